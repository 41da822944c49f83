/*
 * HYPERTHREADING_ON for counts of one thread (pmu/metrics/metrics.h metrics_smt_form) and the metrics stage
 * (bench/stage_metrics.c) that applies it, end to end against the modelled Skylake PMU (tests/fake/fake_pmu.h)
 * behind the real MSR counting backend, on a core whose two threads are enabled.
 *
 * The model counts one thread and ignores the AnyThread bit, which is what a parked sibling makes of a real
 * core: CPU_CLK_UNHALTED.THREAD_ANY and INT_MISC.RECOVERY_CYCLES_ANY count what THREAD and RECOVERY_CYCLES
 * count.  Skylake's formulas (skylake_metrics.json) with HYPERTHREADING_ON take SLOTS = 4 x THREAD_ANY / 2,
 * half of what the thread had, and the level 1 breakdown leaves 0..100 (here Backend_Bound -30%).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/stage.h"
#include "pmu/count/count.h"
#include "cpu/topo.h"
#include "cpu/uarch.h"
#include "pmu/metrics/metrics.h"
#include "tests/fake/arena_fake.h"
#include "tests/fake/capture.h"
#include "tests/fake/fake_pmu.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/timing_fake.h"
#include "tests/unit/record_asserts.h"

/* ---- the rule ---- */

static void parked_or_alone_is_the_per_thread_form(void **state)
{
	(void)state;
	struct metrics_smt s;
	/* SMT on, sibling parked (the image): the measured thread alone ran. */
	metrics_smt_form(2, NULL, &s);
	assert_true(s.known);
	assert_false(s.on);
	assert_int_equal(s.threads, 2);
	assert_string_equal(s.siblings, "parked");
	assert_string_equal(s.form, "per-thread");
	assert_non_null(strstr(s.why, "SMT on (2 threads in this core), but the sibling is parked"));
	/* SMT off, whoever else runs on the machine. */
	metrics_smt_form(1, "running whatever Linux schedules on them (not parked)", &s);
	assert_true(s.known);
	assert_false(s.on);
	assert_string_equal(s.siblings, "none");
	assert_string_equal(s.why, "SMT off: this core has one enabled thread");
	/* No topology, but parked: whatever the core has, this thread alone ran. */
	metrics_smt_form(-1, NULL, &s);
	assert_true(s.known);
	assert_false(s.on);
	assert_int_equal(s.threads, -1);
	assert_string_equal(s.form, "per-thread");
	/* A count of 0 threads in the measured core is no count: not known. */
	metrics_smt_form(0, NULL, &s);
	assert_int_equal(s.threads, -1);
}

static void a_running_sibling_keeps_the_vendors_per_core_form(void **state)
{
	(void)state;
	struct metrics_smt s;
	metrics_smt_form(2, "running whatever Linux schedules on them (not parked)", &s);
	assert_true(s.known);
	assert_true(s.on);
	assert_string_equal(s.siblings, "running");
	assert_string_equal(s.form, "per-core");
	assert_non_null(strstr(s.why, "(running whatever Linux schedules on them (not parked))"));
	/* Not parked and no topology: whether the sibling shares the core is not known, so no value. */
	metrics_smt_form(-1, "an operating system schedules them", &s);
	assert_false(s.known);
	assert_string_equal(s.siblings, "not known");
	assert_non_null(strstr(s.why, "not known (no topology)"));
}

/* ---- the stage against the modelled Skylake ---- */

/* Per iteration: 100 core cycles, 150 instructions; the level 1 inputs below; every other event 0. */
#define CYCLES 100
static uint64_t skl_rates(void *ctx, uint16_t event, uint8_t umask)
{
	static const struct { uint16_t event; uint8_t umask; uint64_t rate; } rates[] = {
		{ PMU_MODEL_FIXED_EVENT, 1, 150 },	/* fixed 0: INST_RETIRED.ANY */
		{ PMU_MODEL_FIXED_EVENT, 2, CYCLES },	/* fixed 1: CPU_CLK_UNHALTED.THREAD (and _ANY) */
		{ 0x3C, 0x00, CYCLES },			/* CPU_CLK_UNHALTED.THREAD_P (and THREAD_ANY) */
		{ 0x9C, 0x01, 100 },			/* IDQ_UOPS_NOT_DELIVERED.CORE */
		{ 0xC2, 0x02, 120 },			/* UOPS_RETIRED.RETIRE_SLOTS */
		{ 0x0E, 0x01, 150 },			/* UOPS_ISSUED.ANY */
		{ 0x0D, 0x01, 5 },			/* INT_MISC.RECOVERY_CYCLES (and _ANY) */
	};
	(void)ctx;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].event == event && rates[i].umask == umask)
			return rates[i].rate;
	return 0;
}

static void model_work(void *ctx, uint64_t iterations)
{
	(void)ctx;
	fake_pmu_run(iterations);
}

static struct capture cap;
static struct topology topo;
static struct cpu_info ci;

/* One Skylake core with both threads enabled; this processor (CPUID's APIC ID on the fake: 0) is thread 0. */
static void skylake_smt_machine(void)
{
	char why[192];
	struct timing_info t = { .invariant_tsc = true, .tsc_hz = 0, .tsc_source = "fake",
				 .core_per_tsc_milli = 1000, .core_source = "add_chain", .core_spread_milli = 4 };
	fake_reset();
	fake_arena_reset(0);
	fake_timing_set(&t);
	if (!fake_count_setup("skylake", false, false, why, sizeof(why)))
		fail_msg("count_init: %s", why);
	fake_pmu_set_rate(skl_rates, NULL);
	ci = fake_cpu_identified(fake_cpu_find("skylake"));
	ci.event_set_basis = uarch_basis_name(BASIS_VENDOR);	/* the vendor's own mapping: its formulas apply */
	memset(&topo, 0, sizeof(topo));
	topo.source = "fake";
	topo.n = topo.total = 2;
	for (uint32_t i = 0; i < 2; i++) {
		struct topo_cpu *c = &topo.cpu[i];
		c->n = i;
		c->apic_id = c->cpuid_apic_id = i;
		c->bsp = i == 0;
		c->enabled = c->healthy = c->probed = true;
		c->package = c->die = c->core = 0;
		c->thread = i;
	}
	capture_start(&cap);
}

/* 12 samples a set, with room for 24 thrown away: the harness still judges its runs by the real TSC, which a busy
 * host disturbs in bursts; the figures themselves are the model's, the same in every sample. */
static void run_stage(const char *siblings_busy)
{
	struct bench_params p = { .bench = "store_forward.forward", .events = "", .iterations = 64, .reps = 12,
				  .warmup = 0, .pages = BENCH_PAGES_4K, .cpu = &ci, .topology = &topo,
				  .siblings_busy = siblings_busy, .model_work = model_work };
	bench_stage(&p);
}

/* The figure of metric name in a metrics record (its "values" come first among the numbers named so). */
static double value_of(const char *rec, const char *name)
{
	char key[80];
	const char *v = strstr(rec, "\"values\":{");
	assert_non_null(v);
	snprintf(key, sizeof(key), "\"%s\":", name);
	const char *at = strstr(v, key);
	if (!at)
		fail_msg("no %s in %s", name, rec);
	at += strlen(key);
	if (!strncmp(at, "null", 4))
		fail_msg("%s is null: %s", name, rec);
	return strtod(at, NULL);
}

static const char *const level1[] = { "Frontend_Bound", "Bad_Speculation", "Backend_Bound", "Retiring" };

static void skylake_smt_on_sibling_parked_sums_to_100(void **state)
{
	(void)state;
	const char *m[8];
	skylake_smt_machine();
	run_stage(NULL);
	size_t n = records_of_type(&cap, "metrics", m, 8);
	assert_int_equal(n, 3);		/* ref.add_chain, ref.load_chain, store_forward.forward */
	for (size_t i = 0; i < n; i++) {
		/* SLOTS = 4 x THREAD = 400: 100 / 400, (150 - 120 + 4 x 5) / 400, 1 - 100 / 400 - (150 + 4 x 5) / 400,
		 * 120 / 400.  (The per-core form: 200 slots, 50, 20, -30 and 60.) */
		static const double want[] = { 25.0, 12.5, 32.5, 30.0 };
		double sum = 0;
		for (size_t k = 0; k < 4; k++) {
			double v = value_of(m[i], level1[k]);
			if (v < 0 || v > 100 || v != want[k])
				fail_msg("%s %.3f, want %.3f: %s", level1[k], v, want[k], m[i]);
			sum += v;
		}
		assert_true(sum > 99.999 && sum < 100.001);
		record_has(m[i], "\"constants\":{\"HYPERTHREADING_ON\":0},\"pipeline_width\":4,");
		record_has(m[i], "\"smt\":{\"threads\":2,\"siblings\":\"parked\",\"form\":\"per-thread\",\"why\":\"SMT on (2 "
				 "threads in this core), but the sibling is parked while this thread measures");
	}
}

static void skylake_smt_on_sibling_running_keeps_the_per_core_form(void **state)
{
	(void)state;
	const char *m[8];
	skylake_smt_machine();
	run_stage("running whatever Linux schedules on them (not parked)");
	size_t n = records_of_type(&cap, "metrics", m, 8);
	assert_int_equal(n, 3);
	/* The vendor's formula as it stands: THREAD_ANY / 2 are the thread's clocks. */
	assert_true(value_of(m[0], "Frontend_Bound") == 50.0);
	record_has(m[0], "\"constants\":{\"HYPERTHREADING_ON\":1}");
	record_has(m[0], "\"siblings\":\"running\",\"form\":\"per-core\"");
}

static int teardown(void **state)
{
	(void)state;
	capture_free(&cap);
	count_restore();
	fake_arena_reset(0);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parked_or_alone_is_the_per_thread_form),
		cmocka_unit_test(a_running_sibling_keeps_the_vendors_per_core_form),
		cmocka_unit_test_teardown(skylake_smt_on_sibling_parked_sums_to_100, teardown),
		cmocka_unit_test_teardown(skylake_smt_on_sibling_running_keeps_the_per_core_form, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
