/*
 * The pinned clock in the run (run/run.c): with freq=, each measured
 * processor's clock is pinned before its timing figures are taken (the boot
 * processor's before timing_init, another's before timing_recalibrate in its
 * pass), and put back at the end of its pass, on the fault path too;
 * pmuboot-host writes nothing.  A fake two-processor HWP machine whose
 * IA32_HWP_REQUEST each processor keeps for itself (on the fake MP
 * firmware, tests/fake/mp_fake.h), and the fake timing, which counts its calls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "platform/firmware.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_intel.h"
#include "pmu/count/count.h"
#include "pmu/freq/freq.h"
#include "run/run.h"
#include "tests/fake/arena_fake.h"
#include "tests/fake/capture.h"
#include "tests/fake/cpus_fake.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/mp_fake.h"
#include "tests/fake/timing_fake.h"

#define NONE MP_FAKE_NONE
#define NCPU 2
#define MAX_WRITES 16
/* HWP as in tests/unit/freq_test.h: levels 8..42, base 30; the request as firmware left it. */
#define HWP_CAPS (42ull | (30ull << 8) | (12ull << 16) | (8ull << 24))
#define REQ_FOUND (8ull | (42ull << 8) | (0x80ull << 24))
#define REQ_BASE (30ull | (30ull << 8) | (30ull << 16) | (0x80ull << 24))
#define PLATFORM_INFO ((8ull << 40) | (30ull << 8))

static const struct fake_cpu cpus[NCPU] = { { SIG_SKL, false, 0, 0, 1, 2 }, { SIG_SKL, false, 0, 2, 1, 2 } };

static struct {
	size_t fault_on, refuse_on;	/* refuse_on: measure_on does not run that pass */
	uint64_t req[NCPU];		/* each processor's IA32_HWP_REQUEST while another one runs */
	struct {
		size_t cpu;
		uint64_t value;
		unsigned inits, recalibrations;	/* the fake timing's calls when the write was made */
		bool in_cleanup;
	} w[MAX_WRITES];
	size_t nw;
} fm;

static bool note_write(void *ctx, uint32_t msr, uint64_t val, int *result)
{
	(void)ctx, (void)result;
	if (msr == MSR_IA32_HWP_REQUEST && fm.nw < MAX_WRITES)
		fm.w[fm.nw++] = (typeof(fm.w[0])){ mp_fake_current(), val, fake_timing_inits(),
						   fake_timing_recalibrations(), mp_fake_in_cleanup() };
	return false;	/* the plain MSR store takes the write */
}

static const struct fake_msr_hook hook = { NULL, note_write, NULL, NULL };

/* Processor i keeps its request while another one runs. */
static void leaving(size_t i)
{
	if (fake_msr_exists(MSR_IA32_HWP_REQUEST))
		fm.req[i] = fake_msr_get(MSR_IA32_HWP_REQUEST);
}

/* Answer as processor i, its request as it left it. */
static void arrived(size_t i)
{
	fake_cpuid_set(CPUID_LEAF_POWER, 0, CPUID6_EAX_TURBO | CPUID6_EAX_HWP, 0, 0, 0);
	fake_msr_define(MSR_IA32_PM_ENABLE, 1, 0);
	fake_msr_define(MSR_IA32_HWP_CAPABILITIES, HWP_CAPS, 0);
	fake_msr_define(MSR_IA32_HWP_REQUEST, fm.req[i], 0x7ffffffffffull);
	fake_msr_define(MSR_PLATFORM_INFO, PLATFORM_INFO, 0);
	fake_cpuid_set(CPUID_LEAF_EXT_MAX, 0, CPUID_LEAF_EXT_POWER, 0, 0, 0);
	fake_cpuid_set(CPUID_LEAF_EXT_POWER, 0, 0, 0, 0, CPUID_EXT_POWER_EDX_INVARIANT_TSC);
	fake_set_hook(&hook);
}

/* Counting: none, and a #GP in the pmu stage of processor fault_on, after the pin. */
static bool no_counters(const struct cpu_info *c, const struct pmu_caps *caps, const struct count_opts *opts, char *why,
			size_t cap)
{
	(void)c, (void)caps, (void)opts;
	if (mp_fake_current() == fm.fault_on)
		mp_fake_fault();
	snprintf(why, cap, "fake: no counters");
	return false;
}
static const struct count_backend none_backend = { .name = "none", .init = no_counters };

/* The firmware would not start a pass on processor refuse_on. */
static int pass_starting(size_t n, struct run_pass *p, uint64_t timeout_us)
{
	(void)timeout_us;
	if (n != fm.refuse_on)
		return FW_RUN_OK;
	p->why = "fake: the firmware would not start it";
	return FW_RUN_FAILED;
}

static const struct mp_fake_hooks hooks = { .leaving = leaving, .arrived = arrived, .pass_starting = pass_starting };

static const struct run_mp mp = { .source = "fake", .count = mp_fake_count, .info = mp_fake_info,
				  .run_on = mp_fake_run_on, .measure_on = mp_fake_measure_on,
				  .neighbours = "fake: parked" };

static struct config cfg;
static struct run_env env;
static struct capture cap;

static void report(const struct config_error *e, void *ctx)
{
	(void)ctx;
	fail_msg("option %s: %s", e->key, e->message);
}

static void run(const char *opts, bool image, size_t fault_on, size_t refuse_on)
{
	struct timing_info t = { .tsc_hz = 3000000000ull, .tsc_source = "fake", .core_per_tsc_milli = 1000,
				 .core_source = "add_chain" };
	memset(&fm, 0, sizeof(fm));
	fm.fault_on = fault_on;
	fm.refuse_on = refuse_on;
	for (size_t i = 0; i < NCPU; i++)
		fm.req[i] = REQ_FOUND;
	mp_fake_start(cpus, NCPU, 0, &hooks);
	fake_arena_reset(0);
	fake_timing_set(&t);
	count_use_backend(&none_backend);
	config_defaults(&cfg);
	config_apply_text(&cfg, "test", false, opts, strlen(opts), report, NULL);
	memset(&env, 0, sizeof(env));
	env.cfg = &cfg;
	fake_platform_set(false, image);
	env.mp = &mp;
	capture_start(&cap);
	run_stages(&env);
	mp_fake_become(0);	/* saves the boot processor's request too */
}

static int teardown(void **state)
{
	(void)state;
	capture_free(&cap);
	count_use_backend(&count_backend_msr);
	fake_platform_set(false, true);
	fake_set_hook(NULL);
	fake_arena_reset(0);
	return 0;
}

/* The k-th `restore` record of the clock, or NULL. */
static const char *clock_restore(size_t k)
{
	for (size_t i = 0; i < capture_record_count(&cap); i++) {
		const char *r = capture_record(&cap, i);
		static const char head[] = "{\"type\":\"restore\",";
		if (!strncmp(r, head, sizeof(head) - 1) && strstr(r, "\"what\":\"clock\"") && k-- == 0)
			return r;
	}
	return NULL;
}

/* cpus=all: pinned on each processor before its figures, back as found at the end of its pass. */
static void each_pass_pins_before_timing_and_restores(void **state)
{
	(void)state;
	run("bench=none ibs=off cpus=all freq=base boost=off", true, NONE, NONE);
	assert_int_equal(fm.nw, 4);
	/* The boot processor, measured first: pinned before timing_init, restored in its pass's restore stage. */
	assert_int_equal(fm.w[0].cpu, 0);
	assert_int_equal(fm.w[0].value, REQ_BASE);
	assert_int_equal(fm.w[0].inits, 0);
	assert_int_equal(fm.w[1].cpu, 0);
	assert_int_equal(fm.w[1].value, REQ_FOUND);
	/* The other: pinned in its pass before its calibration, then restored. */
	assert_int_equal(fm.w[2].cpu, 1);
	assert_int_equal(fm.w[2].value, REQ_BASE);
	assert_int_equal(fm.w[2].recalibrations, 0);
	assert_int_equal(fm.w[3].cpu, 1);
	assert_int_equal(fm.w[3].value, REQ_FOUND);
	assert_int_equal(fake_timing_recalibrations(), 1);
	assert_int_equal(fm.req[0], REQ_FOUND);
	assert_int_equal(fm.req[1], REQ_FOUND);
	const char *r0 = clock_restore(0), *r1 = clock_restore(1);
	assert_non_null(r0);
	assert_non_null(r1);
	assert_null(clock_restore(2));
	assert_string_equal(r0, "{\"type\":\"restore\",\"cpu\":{\"n\":0,\"apic_id\":0},\"what\":\"clock\",\"msrs\":1,"
				"\"exact\":true}");
	assert_string_equal(r1, "{\"type\":\"restore\",\"cpu\":{\"n\":1,\"apic_id\":2},\"what\":\"clock\",\"msrs\":1,"
				"\"exact\":true}");
}

/* A processor other than the boot one measured alone: the boot processor is never written. */
static void only_the_measured_processor_is_pinned(void **state)
{
	(void)state;
	run("bench=none ibs=off cpus=1 freq=max boost=on", true, NONE, NONE);
	assert_int_equal(fm.nw, 2);
	assert_int_equal(fm.w[0].cpu, 1);
	assert_int_equal(fm.w[0].value, 42ull | (42ull << 8) | (42ull << 16) | (0x80ull << 24));
	assert_int_equal(fm.w[1].cpu, 1);
	assert_int_equal(fm.w[1].value, REQ_FOUND);
	assert_int_equal(fm.req[1], REQ_FOUND);
	/* The boot processor's timing record came before any pin, and said why it pinned nothing. */
	assert_int_equal(freq_result()->asked_mhz, 4200);
}

/* A fault in a pass after the pin: the cleanup puts the clock back on that processor. */
static void fault_path_restores(void **state)
{
	(void)state;
	run("bench=none ibs=off cpus=all freq=base", true, 1, NONE);
	assert_int_equal(fm.nw, 4);
	assert_int_equal(fm.w[2].cpu, 1);
	assert_false(fm.w[2].in_cleanup);
	assert_int_equal(fm.w[3].cpu, 1);
	assert_int_equal(fm.w[3].value, REQ_FOUND);
	assert_true(fm.w[3].in_cleanup);
	assert_int_equal(fm.req[1], REQ_FOUND);
	assert_string_equal(clock_restore(1), "{\"type\":\"restore\",\"cpu\":{\"n\":1,\"apic_id\":2},\"what\":\"clock\","
					      "\"msrs\":1,\"exact\":true}");
}

/* The boot processor pinned in the timing stage, but its pass never ran: put back there, not mixed into the next. */
static void pass_not_run_restores_the_boot_processor(void **state)
{
	(void)state;
	run("bench=none ibs=off cpus=all freq=base", true, NONE, 0);
	assert_int_equal(fm.nw, 4);
	assert_int_equal(fm.w[0].cpu, 0);
	assert_int_equal(fm.w[1].cpu, 0);
	assert_int_equal(fm.w[1].value, REQ_FOUND);
	assert_int_equal(fm.w[2].cpu, 1);
	assert_int_equal(fm.w[3].cpu, 1);
	assert_int_equal(fm.w[3].value, REQ_FOUND);
	assert_int_equal(fm.req[0], REQ_FOUND);
	assert_int_equal(fm.req[1], REQ_FOUND);
	assert_non_null(clock_restore(1));
}

/* run_after_fault, the image's fault path on the boot processor, restores the clock. */
static void run_after_fault_restores(void **state)
{
	(void)state;
	struct freq_opts o = { FREQ_ASK_BASE, 0, FREQ_BOOST_KEEP, NULL };
	struct cpu_info ci;
	run("bench=none ibs=off cpus=bsp", true, NONE, NONE);	/* freq=keep: nothing written */
	assert_int_equal(fm.nw, 0);
	memset(&ci, 0, sizeof(ci));
	cpu_identify(&ci);
	freq_pin(&ci, &o);
	assert_int_equal(fake_msr_get(MSR_IA32_HWP_REQUEST), REQ_BASE);
	run_after_fault();
	assert_int_equal(fake_msr_get(MSR_IA32_HWP_REQUEST), REQ_FOUND);
	assert_non_null(clock_restore(0));
}

/* pmuboot-host: the options are taken, nothing is written, and the reason is Linux's ownership. */
static void host_writes_nothing(void **state)
{
	(void)state;
	run("bench=none ibs=off cpus=all freq=base boost=off", false, NONE, NONE);
	assert_int_equal(fm.nw, 0);
	assert_null(clock_restore(0));
	assert_non_null(strstr(freq_result()->why, "pmuboot-host leaves the clock to Linux"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(each_pass_pins_before_timing_and_restores, teardown),
		cmocka_unit_test_teardown(only_the_measured_processor_is_pinned, teardown),
		cmocka_unit_test_teardown(fault_path_restores, teardown),
		cmocka_unit_test_teardown(pass_not_run_restores_the_boot_processor, teardown),
		cmocka_unit_test_teardown(run_after_fault_restores, teardown),
		cmocka_unit_test_teardown(host_writes_nothing, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
