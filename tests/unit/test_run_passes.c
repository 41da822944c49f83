/*
 * Measuring passes on each chosen processor (run/run.c run_measuring with a
 * struct run_mp that has measure_on), against a fake multi-CPU machine.
 *
 * The fake measure_on (tests/fake/mp_fake.h) does what boot/mp_pass.c does,
 * as far as the run layer can tell: it answers CPUID as processor n while the
 * pass body runs (and its cleanup, after a fault).  This test's hooks fill the
 * neighbours and can time out one processor; the fake counting backend can
 * fault in the middle of one pass (it leaves count_init through mp_fake_fault,
 * after writing an MSR, as a #GP in the pmu stage would end the body).
 * Everything is asserted through the records the run emits, the MSR left on
 * each processor, and where count_restore ran.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "platform/firmware.h"
#include "lib/record.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_intel.h"
#include "pmu/count/count.h"
#include "pmu/count/msr_save.h"
#include "cpu/uarch.h"
#include "run/run.h"
#include "tests/fake/arena_fake.h"
#include "tests/fake/capture.h"
#include "tests/fake/cpus_fake.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/mp_fake.h"
#include "tests/fake/timing_fake.h"

/* PerfEvtSel0 before the pass, and what the fake counting backend writes there. */
#define EVTSEL_FOUND 0x0ull
#define EVTSEL_WRITTEN 0x4300C0ull	/* EN | USR | OS, event C0H: whatever, it only has to differ */

#define NONE MP_FAKE_NONE
#define MAX_FAKE 8

/* QEMU -smp 4,sockets=1,cores=2,threads=2, but APIC IDs 0,2,4,6, so n and APIC ID differ. */
static const struct fake_cpu smp4[] = {
	{ SIG_SKL, false, 0, 0, 1, 2 }, { SIG_SKL, false, 0, 2, 1, 2 },
	{ SIG_SKL, false, 0, 4, 1, 2 }, { SIG_SKL, false, 0, 6, 1, 2 },
};

/* The fake machine and what happened on it. */
static struct {
	const struct fake_cpu *cpus;
	size_t n;
	size_t timeout_on, fault_on;	/* NONE: every pass comes back */
	unsigned passes[MAX_FAKE];	/* measure_on calls per processor */
	char who[MAX_FAKE][64];		/* rp->who as measure_on saw it */
	uint64_t evtsel_left[MAX_FAKE];	/* PerfEvtSel0 on the processor when its pass ended */
	/* count_restore calls: the x2APIC ID CPUID gave, and whether the pass cleanup called it. */
	unsigned nrestores;
	uint32_t restore_apic[32];
	bool restore_in_cleanup[32];
} fm;

/* Answer CPUID (and hold PerfEvtSel0) as processor i: a brand string naming it, so `cpu` records say who ran. */
static void arrived(size_t i)
{
	char brand[16];
	uint32_t w[4];

	fake_cpuid_set(CPUID_LEAF_EXT_MAX, 0, CPUID_LEAF_BRAND2, 0, 0, 0);
	memcpy(brand, "fake processor ?", sizeof(brand));	/* 16 bytes: leaf BRAND0 alone, no NUL */
	brand[15] = (char)('0' + i);
	memcpy(w, brand, sizeof(w));
	fake_cpuid_set(CPUID_LEAF_BRAND0, 0, w[0], w[1], w[2], w[3]);
	fake_msr_define(MSR_IA32_PERFEVTSEL0, EVTSEL_FOUND, ~0ull);
}

static uint32_t cpuid_x2apic(void)
{
	struct cpuid_regs r;
	hw_cpuid(CPUID_LEAF_EXT_TOPOLOGY, 0, &r);
	return r.edx;
}

/* ---- a counting backend that writes one MSR, may fault, and restores ---- */

static bool pf_init(const struct cpu_info *ci, const struct pmu_caps *caps, const struct count_opts *opts, char *why,
		    size_t cap)
{
	(void)ci, (void)caps, (void)opts;
	assert_int_equal(msr_save_write(MSR_IA32_PERFEVTSEL0, EVTSEL_WRITTEN), HW_OK);
	if (mp_fake_current() == fm.fault_on)
		mp_fake_fault();	/* the pmu stage faulted: the rest of the body does not run */
	snprintf(why, cap, "fake: no counters");
	return false;
}

static void pf_restore(void)
{
	struct msr_restore_result res;
	msr_save_restore(&res);
	assert_int_equal(res.mismatched, 0);
	if (fm.nrestores < sizeof(fm.restore_apic) / sizeof(fm.restore_apic[0])) {
		fm.restore_apic[fm.nrestores] = cpuid_x2apic();
		fm.restore_in_cleanup[fm.nrestores] = mp_fake_in_cleanup();
	}
	fm.nrestores++;
}

static const struct count_backend pf_backend = { .name = "fake", .init = pf_init, .restore = pf_restore };

/* ---- the fake processors ---- */

/* A pass as measure_on is asked for it: counted, its neighbours filled; it may time out. */
static int pass_starting(size_t n, struct run_pass *p, uint64_t timeout_us)
{
	assert_true(n < fm.n);
	assert_true(timeout_us > 0);
	assert_non_null(p->body);
	assert_non_null(p->cleanup);
	fm.passes[n]++;
	snprintf(fm.who[n], sizeof(fm.who[n]), "%s", p->who ? p->who : "(null)");
	p->faulted = false;
	p->why = NULL;
	snprintf(p->neighbours, sizeof(p->neighbours), "fake: %zu others parked while %zu measured", fm.n - 1, n);
	if (n == fm.timeout_on) {
		p->why = "fake: did not come back within the bound";
		return FW_RUN_TIMEOUT;
	}
	return FW_RUN_OK;
}

static void pass_ended(size_t n, struct run_pass *p)
{
	(void)p;
	fm.evtsel_left[n] = fake_msr_get(MSR_IA32_PERFEVTSEL0);
}

static const struct mp_fake_hooks hooks = { .arrived = arrived, .pass_starting = pass_starting,
					    .pass_ended = pass_ended };

static const struct run_mp fake_mp = {
	.source = "fake mp services", .count = mp_fake_count, .info = mp_fake_info, .run_on = mp_fake_run_on,
	.measure_on = mp_fake_measure_on, .neighbours = "fake: parked",
};

/* ---- the run ---- */

static struct config cfg;
static struct run_env env;
static struct capture cap;

static void report(const struct config_error *e, void *ctx)
{
	(void)ctx;
	fail_msg("option %s: %s", e->key, e->message);
}

/* Run every stage on the machine, booted on processor bsp, with the options given. */
static void run(const struct fake_cpu *cpus, size_t n, size_t bsp, const char *opts, size_t timeout_on,
		size_t fault_on)
{
	struct timing_info t = { .tsc_hz = 2000000000, .tsc_source = "fake", .core_per_tsc_milli = 1000,
				 .core_source = "add_chain" };
	char all[200];

	memset(&fm, 0, sizeof(fm));
	fm.cpus = cpus;
	fm.n = n;
	fm.timeout_on = timeout_on;
	fm.fault_on = fault_on;
	mp_fake_start(cpus, n, bsp, &hooks);
	fake_arena_reset(0);
	fake_timing_set(&t);
	count_use_backend(&pf_backend);
	config_defaults(&cfg);
	snprintf(all, sizeof(all), "bench=ref reps=3 iterations=64 warmup=0 ibs=off %s", opts);
	config_apply_text(&cfg, "test", false, all, strlen(all), report, NULL);
	memset(&env, 0, sizeof(env));
	env.cfg = &cfg;

	env.mp = &fake_mp;
	capture_start(&cap);
	run_stages(&env);
}

static int teardown(void **state)
{
	(void)state;
	capture_free(&cap);
	count_use_backend(&count_backend_msr);
	msr_save_forget();
	fake_arena_reset(0);
	return 0;
}

/* Whether record r is of type `type`. */
static bool is_type(const char *r, const char *type)
{
	char want[40];
	snprintf(want, sizeof(want), "{\"type\":\"%s\"", type);
	return r && strncmp(r, want, strlen(want)) == 0;
}

/* The record's "cpu" object as n, or -1 when it has none. */
static long cpu_n(const char *r, long *apic)
{
	const char *c = strstr(r, "\"cpu\":{\"n\":");
	long n = -1;
	*apic = -1;
	if (c && sscanf(c, "\"cpu\":{\"n\":%ld,\"apic_id\":%ld}", &n, apic) != 2)
		fail_msg("bad cpu object in %s", r);
	return n;
}

/* The k-th record of `type` (0-based), or NULL. */
static const char *nth(const char *type, size_t k)
{
	for (size_t i = 0; i < capture_record_count(&cap); i++)
		if (is_type(capture_record(&cap, i), type) && k-- == 0)
			return capture_record(&cap, i);
	return NULL;
}

static size_t count_of(const char *type)
{
	size_t k = 0;
	while (nth(type, k))
		k++;
	return k;
}

/* The `pass` record whose cpu object says processor n, or NULL. */
static const char *pass_of(long n)
{
	long apic;
	for (size_t k = 0; nth("pass", k); k++)
		if (cpu_n(nth("pass", k), &apic) == n)
			return nth("pass", k);
	return NULL;
}

static void has(const char *r, const char *s)
{
	if (!r || !strstr(r, s))
		fail_msg("expected %s in %s", s, r ? r : "(no record)");
}

/*
 * Every record between the first `pmu` record and the last `pass` record
 * carries a cpu object, and the processors appear in the order passed: the
 * records of one pass are not interleaved with another's.  Returns, per
 * processor, how many records of `type` carried its cpu object.
 */
static void per_cpu(const char *type, unsigned counts[MAX_FAKE])
{
	long last = -1, apic;
	bool measuring = false;
	memset(counts, 0, MAX_FAKE * sizeof(counts[0]));
	for (size_t i = 0; i < capture_record_count(&cap); i++) {
		const char *r = capture_record(&cap, i);
		measuring |= is_type(r, "pmu");
		if (!measuring || is_type(r, "error"))
			continue;
		long n = cpu_n(r, &apic);
		if (n < 0 || n >= (long)fm.n)
			fail_msg("record %zu has no cpu object of a listed processor: %s", i, r);
		if (apic != (long)fm.cpus[n].x2apic)
			fail_msg("record %zu: processor %ld has APIC ID %u: %s", i, n, fm.cpus[n].x2apic, r);
		if (n < last)
			fail_msg("record %zu of processor %ld after one of processor %ld: %s", i, n, last, r);
		last = n;
		counts[n] += is_type(r, type);
	}
}

/* 1. cpus=all on a 4-processor machine: one pass each, each one's records its own. */
static void all_processors_each_measured(void **state)
{
	(void)state;
	unsigned benches[MAX_FAKE], cpus[MAX_FAKE], pmus[MAX_FAKE];
	char want[80];

	run(smp4, 4, 0, "cpus=all", NONE, NONE);
	assert_int_equal(env.nsel, 4);
	assert_int_equal(count_of("pass"), 4);
	assert_int_equal(count_of("error"), 0);
	for (size_t n = 0; n < 4; n++) {
		assert_int_equal(fm.passes[n], 1);
		snprintf(want, sizeof(want), "processor %zu (APIC ID %u)", n, smp4[n].x2apic);
		assert_string_equal(fm.who[n], want);
		const char *p = pass_of((long)n);
		has(p, "\"outcome\":\"measured\"");
		has(p, "\"why\":null");
		has(p, n == 0 ? "\"boot_processor\":true" : "\"boot_processor\":false");
		snprintf(want, sizeof(want), "\"neighbours\":\"fake: 3 others parked while %zu measured\"", n);
		has(p, want);
		assert_int_equal(fm.evtsel_left[n], EVTSEL_FOUND);	/* stage_restore ran there */
	}
	per_cpu("bench", benches);
	per_cpu("cpu", cpus);
	per_cpu("pmu", pmus);
	for (size_t n = 0; n < 4; n++) {
		assert_int_equal(benches[n], 2);	/* ref: add_chain and load_chain */
		assert_int_equal(pmus[n], 1);
		/* The boot CPU's pass reuses the identify stage; every other one identifies itself again. */
		assert_int_equal(cpus[n], n == 0 ? 0 : 1);
	}
	assert_int_equal(fake_timing_recalibrations(), 3);
	/* Each AP's `cpu` record is CPUID as answered on that AP. */
	for (size_t k = 1; k < count_of("cpu"); k++) {
		long apic, n = cpu_n(nth("cpu", k), &apic);
		snprintf(want, sizeof(want), "\"brand\":\"fake processor %ld\"", n);
		has(nth("cpu", k), want);
	}
	has(nth("cpu", 0), "\"brand\":\"fake processor 0\"");
	assert_null(strstr(nth("cpu", 0), "\"cpu\":{"));	/* identify ran before any pass */
	/* count_restore ran once per pass, on that pass's processor, never as a fault cleanup. */
	assert_int_equal(fm.nrestores, 4);
	for (size_t k = 0; k < 4; k++) {
		assert_int_equal(fm.restore_apic[k], smp4[k].x2apic);
		assert_false(fm.restore_in_cleanup[k]);
	}
	/* What comes after the passes (the image's finish) is no processor's. */
	rec_error("test", "after", "after the passes");
	assert_null(strstr(nth("error", 0), "\"cpu\":{"));
}

/* 2. A hybrid part, default cpus=types: a P-core pass on the boot CPU, an E-core pass, each its own event set. */
static void hybrid_types_per_type_event_sets(void **state)
{
	(void)state;
	run(fake_adl, FAKE_ADL_N, 0, "", NONE, NONE);
	assert_string_equal(cfg.cpus, "types");
	assert_int_equal(count_of("pass"), 2);
	assert_int_equal(fm.passes[0], 1);
	assert_int_equal(fm.passes[4], 1);
	has(pass_of(0), "\"outcome\":\"measured\"");
	has(pass_of(0), "\"boot_processor\":true");
	has(pass_of(4), "\"outcome\":\"measured\"");
	has(pass_of(4), "\"cpu\":{\"n\":4,\"apic_id\":16}");

	/* The identify stage (the P-core), then the E-core pass's own identification. */
	assert_int_equal(count_of("cpu"), 2);
	has(nth("cpu", 0), "\"event_set\":\"goldencove\"");
	has(nth("cpu", 1), "\"cpu\":{\"n\":4,\"apic_id\":16}");
	has(nth("cpu", 1), "\"core_type\":\"atom\"");
	has(nth("cpu", 1), "\"uarch_key\":\"gracemont\"");
	has(nth("cpu", 1), "\"event_set\":\"gracemont\"");
	/* And the bench stage of each pass uses its own processor's event set. */
	assert_int_equal(count_of("bench_setup"), 2);
	has(nth("bench_setup", 0), "\"cpu\":{\"n\":0,\"apic_id\":0}");
	has(nth("bench_setup", 0), "\"event_set\":\"goldencove\"");
	has(nth("bench_setup", 1), "\"cpu\":{\"n\":4,\"apic_id\":16}");
	has(nth("bench_setup", 1), "\"event_set\":\"gracemont\"");
	assert_int_equal(fake_timing_recalibrations(), 1);	/* the E-core's own clock */

	/* 5. What the run finishes with is the boot CPU's identity, not the last pass's. */
	assert_string_equal(env.cpu.event_set, "goldencove");
	assert_int_equal(env.cpu.core_type, CORE_TYPE_CORE);
}

/* Booted on an E-core: the P-core pass runs first, on an AP, so the boot CPU's pass identifies itself again. */
static void boot_cpu_measured_second_identifies_itself(void **state)
{
	(void)state;
	run(fake_adl, FAKE_ADL_N, 6, "", NONE, NONE);
	assert_int_equal(count_of("pass"), 2);
	assert_int_equal(fm.passes[0], 1);	/* the first P-core thread, an AP here */
	assert_int_equal(fm.passes[6], 1);	/* the boot E-core */
	has(pass_of(0), "\"boot_processor\":false");
	has(pass_of(6), "\"boot_processor\":true");
	/* The boot CPU's pass comes second, so it identifies itself again too. */
	assert_int_equal(count_of("cpu"), 3);
	has(nth("cpu", 1), "\"event_set\":\"goldencove\"");
	has(nth("cpu", 2), "\"event_set\":\"gracemont\"");
	assert_string_equal(env.cpu.event_set, "gracemont");
	assert_int_equal(env.cpu.core_type, CORE_TYPE_ATOM);
	has(nth("cpu", 2), "\"brand\":\"fake processor 6\"");
}

/* 3. A processor that does not come back: reported, named in an error, and the next one is measured. */
static void timeout_is_reported_and_the_run_goes_on(void **state)
{
	(void)state;
	unsigned benches[MAX_FAKE];

	run(smp4, 4, 0, "cpus=all", 1, NONE);
	assert_int_equal(count_of("pass"), 4);
	has(pass_of(1), "\"outcome\":\"timeout\"");
	has(pass_of(1), "\"why\":\"fake: did not come back within the bound\"");
	has(pass_of(1), "\"neighbours\":\"fake: 3 others parked while 1 measured\"");
	assert_int_equal(count_of("error"), 1);
	has(nth("error", 0), "processor 1 (APIC ID 2): fake: did not come back within the bound; skipped");
	has(nth("error", 0), "\"source\":\"cpus\"");
	has(nth("error", 0), "\"cpu\":{\"n\":1,\"apic_id\":2}");
	for (size_t n = 2; n < 4; n++)
		has(pass_of((long)n), "\"outcome\":\"measured\"");
	per_cpu("bench", benches);
	assert_int_equal(benches[0], 2);
	assert_int_equal(benches[1], 0);
	assert_int_equal(benches[2], 2);
	assert_int_equal(benches[3], 2);
	/* The error is emitted under processor 1's pass, after its pass record. */
	for (size_t i = 1; i < capture_record_count(&cap); i++)
		if (is_type(capture_record(&cap, i), "error"))
			has(capture_record(&cap, i - 1), "\"outcome\":\"timeout\"");
	assert_string_equal(env.cpu.brand, "fake processor 0");
}

/* 4. A fault in the middle of one pass: its cleanup restores that processor's MSRs there; the next is measured. */
static void fault_is_cleaned_up_there_and_the_run_goes_on(void **state)
{
	(void)state;
	unsigned benches[MAX_FAKE], pmus[MAX_FAKE];

	run(smp4, 4, 0, "cpus=all", NONE, 2);
	assert_int_equal(count_of("pass"), 4);
	has(pass_of(2), "\"outcome\":\"fault\"");
	has(pass_of(2), "\"boot_processor\":false");
	for (size_t n = 0; n < 4; n++) {
		if (n != 2)
			has(pass_of((long)n), "\"outcome\":\"measured\"");
		assert_int_equal(fm.evtsel_left[n], EVTSEL_FOUND);	/* processor 2's by the cleanup */
	}
	/* A fault is not an error record: the image's fault path writes a `fault` record. */
	assert_int_equal(count_of("error"), 0);
	per_cpu("bench", benches);
	per_cpu("pmu", pmus);
	assert_int_equal(benches[2], 0);	/* the body stopped in the pmu stage */
	assert_int_equal(pmus[2], 0);
	assert_int_equal(benches[3], 2);
	assert_int_equal(pmus[3], 1);
	/* count_restore: on each processor, and on processor 2 from the cleanup only. */
	assert_int_equal(fm.nrestores, 4);
	for (size_t k = 0; k < 4; k++) {
		assert_int_equal(fm.restore_apic[k], smp4[k].x2apic);
		assert_int_equal(fm.restore_in_cleanup[k], k == 2);
	}
	assert_int_equal(msr_save_count(), 0);
	assert_string_equal(env.cpu.brand, "fake processor 0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(all_processors_each_measured, teardown),
		cmocka_unit_test_teardown(hybrid_types_per_type_event_sets, teardown),
		cmocka_unit_test_teardown(boot_cpu_measured_second_identifies_itself, teardown),
		cmocka_unit_test_teardown(timeout_is_reported_and_the_run_goes_on, teardown),
		cmocka_unit_test_teardown(fault_is_cleaned_up_there_and_the_run_goes_on, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
