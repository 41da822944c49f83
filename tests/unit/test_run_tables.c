/*
 * The event catalogue and the top-down metric tables are inflated on the boot processor before any
 * measuring pass (run/run.c run_stages), even when cpus= leaves the boot processor out of measuring.
 * Both are inflated into the heap at first use; the heap has no locking and the firmware's services are
 * the boot processor's, so a first use on another processor must not happen.
 *
 * The fake measure_on (tests/fake/mp_fake.h, with this test's hooks) models that: while a pass runs on
 * a processor other than the boot one the heap
 * has no room at all, so a first use there fails (an error record, empty tables).  Inside that pass it
 * asks the catalogue and the metric tables what a measuring stage would; they must answer.  A program
 * of its own: nothing in the process may have touched either before the run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "events/events.h"
#include "platform/firmware.h"
#include "lib/heap.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_intel.h"
#include "pmu/count/count.h"
#include "pmu/count/msr_save.h"
#include "pmu/metrics/metrics.h"
#include "run/run.h"
#include "tests/fake/arena_fake.h"
#include "tests/fake/capture.h"
#include "tests/fake/cpus_fake.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/mp_fake.h"
#include "tests/fake/timing_fake.h"

#define N_FAKE 2
#define BSP 0
#define HEAP_BYTES (4u << 20)	/* the run's heap: the tables and the stages' buffers */

/* Two Skylake threads, APIC IDs 0 and 2. */
static const struct fake_cpu two[N_FAKE] = { { SIG_SKL, false, 0, 0, 1, 2 }, { SIG_SKL, false, 0, 2, 1, 2 } };

static _Alignas(64) uint8_t heap_mem[HEAP_BYTES];
static uint8_t no_room[1];

/* What happened on the fake machine. */
static struct {
	unsigned passes[N_FAKE];
	size_t sets, metric_tables, inputs;	/* what the pass on the other processor found */
	bool skylake_set, skylake_metrics;
} fm;

static void arrived(size_t i)
{
	(void)i;
	fake_msr_define(MSR_IA32_PERFEVTSEL0, 0, ~0ull);
}

/* Counting is not what is tested: a backend that finds no counters. */
static bool pf_init(const struct cpu_info *ci, const struct pmu_caps *caps, const struct count_opts *opts, char *why,
		    size_t cap)
{
	(void)ci, (void)caps, (void)opts;
	snprintf(why, cap, "fake: no counters");
	return false;
}

static void pf_restore(void)
{
}

static const struct count_backend pf_backend = { .name = "fake", .init = pf_init, .restore = pf_restore };

static size_t heap_before;	/* heap_used() when the pass started */

static int pass_starting(size_t n, struct run_pass *p, uint64_t timeout_us)
{
	(void)timeout_us;
	assert_true(n < N_FAKE);
	fm.passes[n]++;
	p->faulted = false;
	p->why = NULL;
	snprintf(p->neighbours, sizeof(p->neighbours), "fake: parked");
	heap_before = heap_used();
	return FW_RUN_OK;
}

/* A pass: elsewhere than the boot processor the heap has no room while it runs. */
static void pass_entered(size_t n, struct run_pass *p)
{
	(void)p;
	if (n == BSP)
		return;
	heap_init(no_room, 0);
	fm.sets = events_set_count();
	fm.skylake_set = events_set_find("skylake") != NULL;
	fm.metric_tables = metrics_table_count();
	fm.skylake_metrics = metrics_table_find("skylake") != NULL;
	fm.inputs = metrics_input_total();
}

static void pass_ended(size_t n, struct run_pass *p)
{
	(void)p;
	if (n != BSP)	/* what the boot processor took stays taken */
		heap_init(heap_mem + heap_before, sizeof(heap_mem) - heap_before);
}

static const struct mp_fake_hooks hooks = { .arrived = arrived, .pass_starting = pass_starting,
					    .pass_entered = pass_entered, .pass_ended = pass_ended };

static const struct run_mp fake_mp = {
	.source = "fake mp services", .count = mp_fake_count, .info = mp_fake_info, .run_on = mp_fake_run_on,
	.measure_on = mp_fake_measure_on, .neighbours = "fake: parked",
};

static void report(const struct config_error *e, void *ctx)
{
	(void)ctx;
	fail_msg("option %s: %s", e->key, e->message);
}

static void tables_ready_before_a_pass_elsewhere(void **state)
{
	(void)state;
	static struct config cfg;
	static struct run_env env;
	struct capture cap;
	struct timing_info t = { .tsc_hz = 2000000000, .tsc_source = "fake", .core_per_tsc_milli = 1000,
				 .core_source = "add_chain" };
	const char *opts = "bench=ref reps=3 iterations=64 warmup=0 ibs=off cpus=1";

	heap_init(heap_mem, sizeof(heap_mem));
	mp_fake_start(two, N_FAKE, BSP, &hooks);
	fake_arena_reset(0);
	fake_timing_set(&t);
	count_use_backend(&pf_backend);
	config_defaults(&cfg);
	config_apply_text(&cfg, "test", false, opts, strlen(opts), report, NULL);
	env.cfg = &cfg;
	env.mp = &fake_mp;
	capture_start(&cap);
	run_stages(&env);

	/* The boot processor did not measure; processor 1 did, once. */
	assert_int_equal(fm.passes[BSP], 0);
	assert_int_equal(fm.passes[1], 1);
	/* There, with no heap, both were already in place. */
	assert_true(fm.sets > 0);
	assert_true(fm.skylake_set);
	assert_true(fm.metric_tables > 0);
	assert_true(fm.skylake_metrics);
	assert_true(fm.inputs > 0);
	/* And no first use failed anywhere.  (The bench stage's buffer for a variant's figures, taken in the
	 * pass, finds no room here and says so in its own record: run/run.c's early call is about the tables.) */
	for (size_t i = 0; i < capture_record_count(&cap); i++) {
		const char *r = capture_record(&cap, i);
		if (strstr(r, "no event tables") || strstr(r, "no top-down metric tables"))
			fail_msg("a table could not be inflated: %s", r);
	}
	assert_int_equal(events_set_count(), fm.sets);
	assert_int_equal(metrics_table_count(), fm.metric_tables);
	capture_free(&cap);
	count_use_backend(&count_backend_msr);
	msr_save_forget();
	fake_arena_reset(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_ready_before_a_pass_elsewhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
