/*
 * The benchmark harness around the real kernels (they run on the host as
 * they do in the image) on the fake CPU's clock (tests/fake/measure_fake.h:
 * a run costs its kernel's chain in fake TSC ticks, whatever the host's
 * load, so every figure, rejection and run count here is exact):
 * dropped-sample accounting through the fake interrupts-off window and the
 * quiet-machine ledger on a fake CPU (an SMI, the AMD SMI event, the clock
 * moving, a thermal log: each retaken and counted by source; a budget spent
 * on them leaves a figure marked "disturbed"), impossible samples rejected
 * and re-taken (a count that went backwards, a run the window did not see
 * disturbed, a calibration whose clock moved), counter passes and the
 * per-iteration differential through a scripted counting backend, where
 * cycles come from, the calibration bracket, adaptive iterations
 * and the kernel table's invariants (bench= is tests/unit/test_plan.c's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bench/harness.h"
#include "bench/kernels.h"
#include "bench/observer.h"
#include "platform/calib.h"
#include "events/events.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_intel.h"
#include "pmu/audit/ledger.h"
#include "tests/fake/fake_pmu.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/measure_fake.h"
#include "pmu/count/count.h"

static uint8_t window[BENCH_WINDOW_BYTES] __attribute__((aligned(4096)));
static int64_t pool[4096];

/*
 * A counting backend that counts nothing real: each read returns, for
 * event i, 777 (fixed overhead) + (i + 1) x the iterations of that run, so
 * the harness must find exactly i + 1 events per iteration.  Reads
 * alternate between the N run and the 2N run, as the harness makes them.
 * pollute_from: from this read on, every window reports an NMI.
 */
static struct {
	unsigned begins, ends, reads, pollute_from;
	unsigned negative_at;	/* this read returns less than the one before it (0: never) */
	uint32_t iterations;
	unsigned passes;
	bool fail_read;
	unsigned smi_event_at;	/* the SMI-role event counts 1 at this read, else 0 */
	void (*on_read)(unsigned read);	/* inside the window: what the machine does during this read's run */
} fk;

static bool fk_schedule(struct count_set *set, char *err, size_t cap)
{
	(void)err; (void)cap;
	set->passes = fk.passes;
	for (size_t i = 0; i < set->n; i++) {
		set->pass_of[i] = (uint8_t)(i % fk.passes);
		set->counter_of[i] = (int8_t)(i / fk.passes);
		set->fixed_of[i] = -1;
	}
	return true;
}

static bool fk_pass_begin(struct count_set *set, unsigned pass, char *err, size_t cap)
{
	(void)pass; (void)err; (void)cap;
	set->start.n = set->stop.n = 0;	/* no MSR writes: the host cannot wrmsr */
	fk.begins++;
	return true;
}

static void fk_pass_end(struct count_set *set, unsigned pass)
{
	(void)set; (void)pass;
	fk.ends++;
}

/* Reads happen inside the sample's window, so an NMI injected here pollutes that window. */
static bool fk_read(struct count_set *set, unsigned pass, uint64_t *v, char *err, size_t cap)
{
	uint64_t runs = (fk.reads++ % 2) ? 2 : 1;
	if (fk.reads >= fk.pollute_from)
		fake_window_inject_nmi(1);
	if (fk.on_read)
		fk.on_read(fk.reads);
	if (fk.fail_read) {
		snprintf(err, cap, "fake read failure");
		return false;
	}
	for (size_t i = 0; i < set->n; i++) {
		if (set->pass_of[i] != pass)
			continue;
		if (set->ev[i].roles & EV_ROLE_SMI)
			v[i] = fk.reads == fk.smi_event_at;
		else
			v[i] = fk.reads == fk.negative_at ? 0 : 777 + (i + 1) * runs * fk.iterations;
	}
	return true;
}

static const struct count_backend fake_backend = {
	.name = "fake", .schedule = fk_schedule, .pass_begin = fk_pass_begin, .read = fk_read, .pass_end = fk_pass_end,
};

static void setup_fk(struct bench_setup *s, unsigned passes)
{
	memset(&fk, 0, sizeof(fk));
	fk.pollute_from = ~0u;
	fk.passes = passes;
	fk.iterations = 256;
	memset(s, 0, sizeof(*s));
	s->iterations = 256;
	s->reps = 5;
	s->warmup = 2;
	s->drop_budget = 5;
	s->cb = &fake_backend;
	s->pool = pool;
	s->pool_cap = sizeof(pool) / sizeof(pool[0]);
	fake_reset();
	fake_measure_reset();
}

/* Samples rejected as impossible, every rule. */
static unsigned rejected(const struct bench_figures *r)
{
	return r->rejected[STATS_REJECT_NEGATIVE] + r->rejected[STATS_REJECT_N_2N] + r->rejected[STATS_REJECT_BELOW_CHAIN] +
	       r->rejected[STATS_REJECT_CLOCK];
}

/* One tick per iteration: every table kernel's chain (one cycle) at one core clock per fake TSC tick. */
#define TICKS_PER_ITER_MILLI 1000

static void set_of(struct count_set *set, size_t n)
{
	memset(set, 0, sizeof(*set));
	set->n = n;
	for (size_t i = 0; i < n; i++)
		snprintf(set->ev[i].name, sizeof(set->ev[i].name), "EV%zu", i);
}

static void timing_only_run_is_complete(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_figures r;
	setup_fk(&s, 1);
	s.cb = NULL;
	assert_true(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, NULL, &r));
	assert_int_equal(r.iterations, 256);
	assert_int_equal(r.reps, 5);
	assert_int_equal(r.tsc.n, 5);
	assert_int_equal(r.dropped, 0);
	assert_false(r.exhausted);
	assert_true(r.windowed);
	assert_int_equal(r.passes, 1);
	/* The fake clock: every sample exactly the chain, nothing rejected, three runs a sample (unmeasured, N, 2N). */
	assert_int_equal(r.tsc.min, TICKS_PER_ITER_MILLI);
	assert_int_equal(r.tsc.max, TICKS_PER_ITER_MILLI);
	assert_int_equal(rejected(&r), 0);
	assert_int_equal(fake_measure_runs(), (2 + 5) * 3);
	/* No counter, no APERF, no calibration: cycles are the raw ticks, and nothing was counted. */
	assert_int_equal(r.cycles_source, BENCH_CYCLES_TSC);
	assert_int_equal(r.cycles.median, r.tsc.median);
	assert_int_equal(r.calibration.source, BENCH_CALIB_NONE);
	assert_int_equal(r.nev, 0);
	assert_int_equal(r.instructions, -1);
	assert_int_equal(r.chain_min, 1000);	/* the add chain's floor applies on silicon */
	assert_int_equal(fake_window_depth(), 0);	/* every window left */
}

static void events_per_iteration_over_passes(void **state)
{
	(void)state;
	struct bench_setup s;
	static struct count_set set;
	struct bench_figures r;
	setup_fk(&s, 2);
	set_of(&set, 3);
	assert_true(bench_run_variant(&s, bench_def_find("store_forward", "forward"), window, &set, &r));
	assert_int_equal(r.passes, 2);
	for (size_t i = 0; i < 3; i++) {
		assert_true(r.ev[i].measured);
		/* The 777 of overhead cancels: exactly i + 1 per iteration, in thousandths. */
		assert_int_equal(r.ev[i].fig.min, (int64_t)(i + 1) * 1000);
		assert_int_equal(r.ev[i].fig.max, (int64_t)(i + 1) * 1000);
		assert_int_equal(r.ev[i].fig.n, 5);
	}
	/* Each pass programmed once; 2 passes x (2 warm-up + 5 samples) x 2 counted runs read. */
	assert_int_equal(fk.begins, 2);
	assert_int_equal(fk.ends, 2);
	assert_int_equal(rejected(&r), 0);
	assert_int_equal(fk.reads, 2 * 7 * 2);
	assert_int_equal(r.problem[0], 0);
}

static void polluted_samples_are_dropped_and_retaken(void **state)
{
	(void)state;
	struct bench_setup s;
	static struct count_set set;
	struct bench_figures r;
	setup_fk(&s, 1);
	set_of(&set, 1);
	/* The warm-up makes reads 1-4; from the first measured sample (read 5) on, every window is polluted. */
	fk.pollute_from = 5;
	/* From pass_begin 5 on every window was polluted: the budget of 5 drops ran out with no good sample. */
	/* Nothing kept is still a result: figures of no sample, unstable, and the problem says why. */
	assert_true(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, &set, &r));
	/* No ledger: the window alone judged, and its NMIs are what it saw. */
	assert_string_equal(r.problem, "no sample could be kept: 5 disturbed (nmi 5), 0 contended, 0 rejected as impossible");
	assert_int_equal(r.cycles.n, 0);
	/* Every sample thrown away was disturbed: the figure says the machine was not quiet. */
	assert_int_equal(r.cycles.unstable, STATS_UNSTABLE_DISTURBED);
	assert_int_equal(r.dropped, 5);
	assert_int_equal(r.disturbed[LEDGER_NMI], 5);
	assert_int_equal(r.retaken, 4);	/* the fifth ended the budget */
	assert_string_equal(r.disturbance, "1 NMI");
	assert_true(r.exhausted);
	assert_int_equal(r.tsc.n, 0);
	assert_int_equal(r.tsc.unstable, STATS_UNSTABLE_DISTURBED);
	assert_false(r.ev[0].measured);
}

/* A backend whose windows are polluted exactly once, at a chosen read. */
static unsigned pollute_once_at;
static bool once_read(struct count_set *set, unsigned pass, uint64_t *v, char *err, size_t cap)
{
	if (fk.reads + 1 == pollute_once_at)
		fake_window_inject_nmi(1);
	fk.pollute_from = ~0u;
	return fk_read(set, pass, v, err, cap);
}

static void one_polluted_sample_costs_one_retake(void **state)
{
	(void)state;
	struct bench_setup s;
	static struct count_set set;
	struct bench_figures r;
	struct count_backend b = fake_backend;
	b.read = once_read;
	setup_fk(&s, 1);
	s.cb = &b;
	set_of(&set, 1);
	pollute_once_at = 7;	/* N run of the second measured sample */
	assert_true(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, &set, &r));
	assert_int_equal(r.dropped, 1);
	assert_int_equal(r.retaken, 1);
	assert_int_equal(r.disturbed[LEDGER_NMI], 1);
	assert_false(r.exhausted);
	assert_int_equal(r.tsc.n, 5);
	assert_int_equal(r.ev[0].fig.n, 5);
	assert_int_equal(r.ev[0].fig.median, 1000);
	/* 2 warm-up + 5 good + 1 dropped samples, 2 counted runs each. */
	assert_int_equal(rejected(&r), 0);
	assert_int_equal(fk.reads, 8 * 2);
	assert_int_equal(fk.begins, 1);
}

/* A count of the 2N run below the N run's cannot be: the sample is rejected, counted and re-taken. */
static void impossible_sample_is_rejected_and_retaken(void **state)
{
	(void)state;
	struct bench_setup s;
	static struct count_set set;
	struct bench_figures r;
	setup_fk(&s, 1);
	set_of(&set, 2);
	fk.negative_at = 6;	/* the 2N run of the first measured sample (warm-up: reads 1-4) */
	assert_true(bench_run_variant(&s, bench_def_find("store_forward", "forward"), window, &set, &r));
	/* Rejected as negative, that one sample only, and taken again. */
	assert_int_equal(r.rejected[STATS_REJECT_NEGATIVE], 1);
	assert_int_equal(rejected(&r), 1);
	assert_int_equal(r.dropped, 0);
	assert_false(r.exhausted);
	assert_int_equal(r.ev[0].fig.n, 5);
	assert_int_equal(r.ev[0].fig.rejected, 1);
	assert_int_equal(r.ev[1].fig.min, 2000);	/* the zero never reached a figure */
	assert_int_equal(r.tsc.n, 5);
	assert_int_equal(fk.reads, 2 * (2 + 5 + 1));
}

/*
 * A run made slower by something the window did not see (on the host: a
 * preemption): its 2N run is more than twice its N run, the sample is
 * rejected as n_2n and taken again, and the figure never sees it.
 */
#define WARMUP_RUNS (2 * 3)	/* two warm-up samples of three runs: unmeasured, N, 2N */
static uint64_t first_2n_run_doubled(unsigned run, const struct bench_call *c)
{
	return run == WARMUP_RUNS + 3 ? c->trips * BENCH_UNROLL : 0;
}

static void a_disturbance_the_window_missed_is_rejected_as_n_2n(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_figures r;
	setup_fk(&s, 1);
	s.cb = NULL;
	fake_measure_extra(first_2n_run_doubled);
	assert_true(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, NULL, &r));
	assert_int_equal(r.rejected[STATS_REJECT_N_2N], 1);
	assert_int_equal(rejected(&r), 1);
	assert_int_equal(r.dropped, 0);	/* not disturbed by what the ledger or the window can see */
	assert_false(r.exhausted);
	assert_int_equal(r.tsc.n, 5);
	assert_int_equal(r.tsc.rejected, 1);
	assert_int_equal(r.tsc.min, TICKS_PER_ITER_MILLI);
	assert_int_equal(r.tsc.max, TICKS_PER_ITER_MILLI);
	assert_int_equal(fake_measure_runs(), (2 + 5 + 1) * 3);
}

static void counting_failure_falls_back_to_time(void **state)
{
	(void)state;
	struct bench_setup s;
	static struct count_set set;
	struct bench_figures r;
	setup_fk(&s, 1);
	set_of(&set, 2);
	fk.fail_read = true;
	assert_true(bench_run_variant(&s, bench_def_find("ref", "load_chain"), window, &set, &r));
	assert_int_equal(r.tsc.n, 5);
	assert_false(r.ev[0].measured);
	assert_string_equal(r.problem, "fake read failure");
	assert_int_equal(fk.begins, 1);
	assert_int_equal(fk.ends, 1);
}

static void storage_limits_reps(void **state)
{
	(void)state;
	struct bench_setup s;
	static struct count_set set;
	struct bench_figures r;
	setup_fk(&s, 1);
	set_of(&set, 3);
	s.pool_cap = 12;	/* 6 series (TSC, cycles, per-sample calibration, 3 events): room for 2 samples each */
	assert_true(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, &set, &r));
	assert_int_equal(r.reps, 2);
	assert_int_equal(r.tsc.n, 2);
	assert_int_equal(r.ev[2].fig.n, 2);
	/* No room for one sample per series: nothing can be attempted. */
	s.pool_cap = 5;
	assert_false(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, &set, &r));
	assert_string_equal(r.problem, "no room for samples");
}

/*
 * The real MSR counting backend against the modelled Skylake PMU
 * (tests/fake/fake_pmu.h): the harness's passes, start/stop lists and
 * reads through the driver, with counts the model makes per iteration.
 */
static uint64_t skl_rates(void *ctx, uint16_t event, uint8_t umask)
{
	(void)ctx;
	if (event == PMU_MODEL_FIXED_EVENT)
		return umask == 1 ? 3 : umask == 2 ? 5 : 0;	/* fixed 0: instructions, fixed 1: cycles */
	if (event == 0xC0)
		return 3;
	if (event == 0x3C)
		return 5;
	if (event == 0x03 && umask == 0x02)
		return 1;	/* LD_BLOCKS.STORE_FORWARD */
	if (event == 0xD0 && umask == 0x41)
		return 2;	/* MEM_INST_RETIRED.SPLIT_LOADS */
	return 0;
}

static void model_work(void *ctx, uint64_t iterations)
{
	(void)ctx;
	fake_pmu_run(iterations);
}

static void add_named(struct count_set *set, const struct event_set *es, const char *text)
{
	char err[192];
	if (!event_spec_parse(es, false, text, strlen(text), &set->ev[set->n], err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	set->n++;
}

static void msr_backend_against_modelled_pmu(void **state)
{
	(void)state;
	static struct count_set set;
	struct bench_setup s;
	struct bench_figures r;
	char why[192];
	const struct event_set *es = events_set_find("skylake");

	assert_non_null(es);
	memset(&fk, 0, sizeof(fk));
	if (!fake_count_setup("skylake", false, false, why, sizeof(why)))
		fail_msg("count_init: %s", why);
	fake_pmu_set_rate(skl_rates, NULL);
	memset(&s, 0, sizeof(s));
	s.iterations = 512;
	s.reps = 3;
	s.warmup = 1;
	s.drop_budget = 1;	/* nothing disturbs the fake CPU: no sample is thrown away (asserted below) */
	s.cb = count_backend();
	fake_measure_reset();
	s.pool = pool;
	s.pool_cap = sizeof(pool) / sizeof(pool[0]);
	s.model_work = model_work;

	memset(&set, 0, sizeof(set));
	add_named(&set, es, "CPU_CLK_UNHALTED.THREAD_P");
	add_named(&set, es, "INST_RETIRED.ANY_P");
	add_named(&set, es, "LD_BLOCKS.STORE_FORWARD");
	add_named(&set, es, "MEM_INST_RETIRED.SPLIT_LOADS");
	/* Eight more general-counter events: more than the model's 8 general counters hold at once. */
	for (unsigned i = 0; i < 8; i++) {
		char raw[40];
		snprintf(raw, sizeof(raw), "event=0x%02x,umask=0x01", 0x24 + i);
		add_named(&set, es, raw);
	}
	assert_true(bench_run_variant(&s, bench_def_find("store_forward", "size_mismatch"), window, &set, &r));
	assert_string_equal(r.problem, "");
	assert_int_equal(r.passes, 2);
	assert_false(r.exhausted);
	assert_int_equal(rejected(&r), 0);
	/* Cycles from the fixed counter, instructions found by role. */
	assert_int_equal(r.cycles_source, BENCH_CYCLES_FIXED);
	assert_int_equal(r.cycles.median, 5000);
	assert_int_equal(r.instructions, 1);
	assert_int_equal(r.ev[0].roles & EV_ROLE_CYCLES, EV_ROLE_CYCLES);
	assert_int_equal(set.fixed_of[0], 1);	/* cycles on fixed counter 1 */
	assert_int_equal(set.fixed_of[1], 0);	/* instructions on fixed counter 0 */
	/* Exactly the model's rate per iteration: the differential cancels nothing real here. */
	const int64_t want[] = { 5000, 3000, 1000, 2000, 0, 0, 0, 0, 0, 0, 0, 0 };
	for (size_t i = 0; i < set.n; i++) {
		assert_true(r.ev[i].measured);
		assert_int_equal(r.ev[i].fig.n, 3);
		assert_int_equal(r.ev[i].fig.min, want[i]);
		assert_int_equal(r.ev[i].fig.max, want[i]);
	}
	/* Nothing left counting, and everything put back. */
	count_restore();
	for (unsigned c = 0; c < 8; c++)
		assert_false(pmu_model_gp_counting(fake_pmu(), c));
	assert_int_equal(fake_pmu_peek(0x38f), 0xff);	/* IA32_PERF_GLOBAL_CTRL at its reset value */
}

/* A core whose cycles counter says 0.5 cycles per add: faster than the add chain allows. */
static uint64_t fast_rates(void *ctx, uint16_t event, uint8_t umask)
{
	(void)ctx;
	if (event == PMU_MODEL_FIXED_EVENT && umask == 2)
		return 0;	/* fixed 1 (cycles): nothing */
	return event == 0x3C ? 0 : 1;
}

static void below_the_chain_is_rejected(void **state)
{
	(void)state;
	static struct count_set set;
	struct bench_setup s;
	struct bench_figures r;
	char why[192];
	const struct event_set *es = events_set_find("skylake");

	if (!fake_count_setup("skylake", false, false, why, sizeof(why)))
		fail_msg("count_init: %s", why);
	fake_pmu_set_rate(fast_rates, NULL);
	memset(&s, 0, sizeof(s));
	s.iterations = 512;
	s.reps = 3;
	s.warmup = 0;
	s.drop_budget = 4;
	s.cb = count_backend();
	s.pool = pool;
	s.pool_cap = sizeof(pool) / sizeof(pool[0]);
	s.model_work = model_work;
	memset(&set, 0, sizeof(set));
	add_named(&set, es, "CPU_CLK_UNHALTED.THREAD_P");
	assert_true(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, &set, &r));
	/* The whole budget went on impossible samples, every one below the chain. */
	assert_int_equal(r.rejected[STATS_REJECT_BELOW_CHAIN], 4);
	assert_int_equal(rejected(&r), 4);
	assert_int_equal(r.cycles.n, 0);
	assert_int_equal(r.cycles.unstable, STATS_UNSTABLE_BUDGET);
	assert_true(r.exhausted);
	assert_non_null(strstr(r.problem, "4 rejected as impossible"));
	/* Under an emulator time is not physical: no floor, every sample kept. */
	s.emulated_time = true;
	assert_true(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, &set, &r));
	assert_int_equal(r.rejected[STATS_REJECT_BELOW_CHAIN], 0);
	assert_int_equal(r.chain_min, 0);
	assert_int_equal(r.cycles.median, 0);
	count_restore();
}

/* TSC ticks become cycles with the calibration in force, and the figures say which. */
static void calibrated_ticks_and_the_bracket(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_figures r;
	setup_fk(&s, 1);
	s.cb = NULL;
	s.clock = (struct bench_calibration){ .source = BENCH_CALIB_HARNESS, .ppm = 2000000, .spread_milli = 3 };
	assert_true(bench_run_variant(&s, bench_def_find("ref", "load_chain"), window, NULL, &r));
	assert_int_equal(r.cycles_source, BENCH_CYCLES_TSC_CALIBRATED);
	assert_int_equal(r.tsc.median, TICKS_PER_ITER_MILLI);
	assert_int_equal(r.cycles.median, 2 * TICKS_PER_ITER_MILLI);
	assert_int_equal(r.calibration.ppm, 2000000);

	/* The harness's own calibration on platform/calib.asm: one add per fake tick, every run alike. */
	struct bench_calibration c;
	assert_true(bench_calibrate(&s, window, &c));
	assert_int_equal(c.source, BENCH_CALIB_HARNESS);
	assert_int_equal(c.ppm, 1000000);
	assert_int_equal(c.spread_milli, 0);

	/*
	 * measure_variant brackets the variant with two calibrations and each
	 * sample carries its own: the cycles are the samples' ticks times their
	 * own calibrations (a sample whose clock moved inside its window was
	 * rejected as "clock": test_stats.c holds that rule to its figures).
	 */
	memset(&s.clock, 0, sizeof(s.clock));
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "load_chain"), window, NULL, &r));
	assert_int_equal(r.cycles_source, BENCH_CYCLES_TSC_CALIBRATED);
	assert_int_equal(r.calibration.source, BENCH_CALIB_HARNESS);
	assert_true(r.calibration.per_sample);
	assert_int_equal(r.calibration.before, 1000000);
	assert_int_equal(r.calibration.after, 1000000);
	assert_int_equal(r.calibration.ppm, r.calibration.before);	/* the reference the samples were judged by */
	assert_int_equal(r.calibration.remeasured, 0);	/* the clock held: measured once */
	assert_int_equal(rejected(&r), 0);
	assert_int_equal(r.cycles.n, 5);
	assert_int_equal(r.calibration.samples.n, 5);
	assert_int_equal(r.calibration.samples.min, 1000000);
	assert_int_equal(r.calibration.samples.max, 1000000);
	assert_int_equal(r.cycles.median, TICKS_PER_ITER_MILLI);
	assert_int_equal(s.clock.ppm, r.calibration.after);	/* the clock in force is the latest */
	assert_int_equal(r.chain_slack, stats_chain_slack_permille(r.calibration.spread_milli));

	/* Under an emulator one calibration is enough. */
	s.emulated_time = true;
	assert_int_equal(bench_settle(&s, window), 1);
}

/*
 * The core's clock moves inside one measured sample: its calibration's 2N run
 * takes 1% more ticks than twice its N run allows.  The sample is rejected as
 * "clock" and taken again; the others carry their own calibration, and the
 * clock before and after the variant agrees, so it is measured once.
 */
#define CALIB_TRIPS (BENCH_SAMPLE_CALIB_ADDS / CALIB_ADDS_PER_ITER)
static struct {
	unsigned variant_runs, calib_2n;
	bool after_kernel;	/* the last run was the variant's: the next 2N calibration run is its sample's */
} mc;
static uint64_t clock_moves_in_the_first_sample(unsigned run, const struct bench_call *c)
{
	(void)run;
	if (c->kernel == bk_load_chain) {
		mc.variant_runs++;
		mc.after_kernel = true;
		return 0;
	}
	bool sample_2n = mc.after_kernel && c->trips == 2 * CALIB_TRIPS;
	mc.after_kernel = false;
	if (sample_2n && ++mc.calib_2n == 3)	/* after 2 warm-ups */
		return c->trips * CALIB_ADDS_PER_ITER / 100;
	return 0;
}

static void a_moving_clock_in_a_sample_is_rejected(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_figures r;
	setup_fk(&s, 1);
	s.cb = NULL;
	memset(&mc, 0, sizeof(mc));
	fake_measure_extra(clock_moves_in_the_first_sample);
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "load_chain"), window, NULL, &r));
	assert_int_equal(mc.calib_2n, 2 + 5 + 1);	/* every sample's: 2 warm-ups, 5 kept, 1 rejected */
	assert_true(r.calibration.per_sample);
	assert_int_equal(r.rejected[STATS_REJECT_CLOCK], 1);
	assert_int_equal(rejected(&r), 1);
	assert_int_equal(r.cycles.n, 5);
	assert_int_equal(r.calibration.remeasured, 0);
	assert_int_equal(r.calibration.samples.min, 1000000);	/* the moved clock reached no figure */
	assert_int_equal(r.calibration.samples.max, 1000000);
	assert_int_equal(r.cycles.median, TICKS_PER_ITER_MILLI);
}

/*
 * A kernel that moves the core clock itself: while it runs, and after it until its sample's window is
 * left, the core runs a sixteenth slower (512-bit vector code on the development host's Xeon: the add
 * chain ran about 6% slower for some microseconds after it).  Both of a sample's calibration runs must
 * see that clock, so its kernel runs before the first of them too: else every sample's chain "moved"
 * and none was kept.
 */
#define SLOW_DIV 16 /* ticks a run takes beyond its cycles: 1/16 of them (exact in the fake's integers) */
static struct {
	bool slow;	  /* a kernel run since the sample's 2N calibration run */
	unsigned charged; /* calibration runs that met the slower clock */
} kc;
static uint64_t kernel_slows_the_clock(unsigned run, const struct bench_call *c)
{
	(void)run;
	if (c->kernel == bk_load_chain) {
		kc.slow = true;
		return (fake_measure_ticks(c) - FAKE_MEASURE_OVERHEAD) / SLOW_DIV;
	}
	bool sample_calib = c->kernel == (bench_kernel_fn)(void (*)(void))calib_add_chain &&
			    (c->trips == CALIB_TRIPS || c->trips == 2 * CALIB_TRIPS);
	if (!sample_calib || !kc.slow)
		return 0;
	kc.charged++;
	if (c->trips == 2 * CALIB_TRIPS)
		kc.slow = false; /* the window is left after its 2N run: the clock is back */
	return c->trips * CALIB_ADDS_PER_ITER / SLOW_DIV;
}

static void a_kernel_that_moves_the_clock_is_calibrated_at_its_own_clock(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_figures r;
	setup_fk(&s, 1);
	s.cb = NULL;
	s.clock = (struct bench_calibration){ .source = BENCH_CALIB_HARNESS, .ppm = 1000000, .spread_milli = 1 };
	s.calib_per_sample = true;
	memset(&kc, 0, sizeof(kc));
	fake_measure_extra(kernel_slows_the_clock);
	assert_true(bench_run_variant(&s, bench_def_find("ref", "load_chain"), window, NULL, &r));
	assert_int_equal(kc.charged, 2 * (2 + 5)); /* both runs of every sample's calibration, warm-ups too */
	assert_int_equal(rejected(&r), 0);
	assert_int_equal(r.cycles.n, 5);
	assert_int_equal(r.tsc.median, (TICKS_PER_ITER_MILLI * (SLOW_DIV + 1) + SLOW_DIV / 2) / SLOW_DIV); /* rounded */
	/* Converted with the clock the kernel left (16/17 cycles a tick): the chain's own cycle an iteration. */
	assert_int_equal(r.calibration.samples.median, 1000000 * SLOW_DIV / (SLOW_DIV + 1));
	assert_in_range(r.cycles.median, TICKS_PER_ITER_MILLI - 1, TICKS_PER_ITER_MILLI + 1);
	/* Its line says the samples' clock is not the one before the variant (5.9% below). */
	char note[320];
	assert_true(bench_clock_away(&r.calibration, note, sizeof(note)));
	assert_non_null(strstr(note, "5.9% below"));
}

/* A variant whose samples ran at another clock than the one measured before it says so (bench_clock_away). */
static void samples_at_another_clock_are_noted(void **state)
{
	(void)state;
	char buf[320];
	struct bench_calibration k = { .source = BENCH_CALIB_HARNESS, .ppm = 1574000, .per_sample = true };
	k.samples.n = 11;
	k.samples.median = 1456000; /* the development host's 512-bit user kernels */
	assert_true(bench_clock_away(&k, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "the samples ran at 1.456 cycles a tick, 7.5% below the 1.574 measured"));
	k.samples.median = 1570000; /* a steady variant: within 0.3% */
	assert_false(bench_clock_away(&k, buf, sizeof(buf)));
	assert_string_equal(buf, "");
	k.samples.median = k.ppm + k.ppm * (BENCH_CLOCK_AWAY_PERMILLE + 1) / 1000;
	assert_true(bench_clock_away(&k, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "3.1% above"));
	k.samples.median = k.ppm + k.ppm * BENCH_CLOCK_AWAY_PERMILLE / 1000; /* at the line: not beyond it */
	assert_false(bench_clock_away(&k, buf, sizeof(buf)));
	k.samples.median = 1456000;
	k.per_sample = false; /* one calibration converted the figure: no samples' clock to compare */
	assert_false(bench_clock_away(&k, buf, sizeof(buf)));
	k.per_sample = true;
	k.samples.n = 0;
	assert_false(bench_clock_away(&k, buf, sizeof(buf)));
}

/*
 * The bracket's calibrations: platform/calib.asm's chain at BENCH_CALIB_ADDS adds an N run.  Its 2N run
 * (BRACKET_2N_TRIPS trips) is the only run of that length: a sample's own calibration runs half as many.
 */
#define BRACKET_2N_TRIPS (2 * BENCH_CALIB_ADDS / CALIB_ADDS_PER_ITER)
static struct {
	unsigned variant_runs, bracket_2n;
	bool slow_after;	/* the calibrations after the variant's first run see a clock 2% slower */
} bc;
static uint64_t bracket_counted(unsigned run, const struct bench_call *c)
{
	(void)run;
	if (c->kernel == bk_load_chain)
		bc.variant_runs++;
	if (c->kernel != (bench_kernel_fn)(void (*)(void))calib_add_chain || c->trips != BRACKET_2N_TRIPS)
		return 0;
	bc.bracket_2n++;
	return bc.slow_after && bc.variant_runs ? c->trips * CALIB_ADDS_PER_ITER / 50 : 0;
}

/*
 * Each sample carries its own calibration and converts with it: the clock after the variant differing
 * from the one before (here by 4%) moves no figure, and the variant is not measured again (on a host
 * whose clock steps between turbo bins that was every other variant, three times its cost).
 */
static void a_clock_moved_across_the_bracket_moves_no_figure(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_figures r;
	setup_fk(&s, 1);
	s.cb = NULL;
	memset(&bc, 0, sizeof(bc));
	bc.slow_after = true;
	fake_measure_extra(bracket_counted);
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "load_chain"), window, NULL, &r));
	assert_true(r.calibration.per_sample);
	assert_int_equal(r.calibration.before, 1000000);
	assert_true(r.calibration.after > 0 && r.calibration.after < 990000);	/* the clock did move */
	assert_int_equal(r.calibration.remeasured, 0);
	assert_int_equal(bc.variant_runs, 3 * (2 + 5));	/* once: 2 warm-ups and 5 samples, 3 runs each */
	assert_int_equal(r.cycles.n, 5);
	assert_int_equal(r.cycles.median, TICKS_PER_ITER_MILLI);	/* each sample's own clock: unmoved */
}

/*
 * With clock_reuse_ticks (the instruction table), a calibration younger than that stands as the next
 * variant's before, and none is taken after: three variants, one calibration, until the fake TSC is
 * moved past the reuse time.
 */
static void a_recent_calibration_stands_for_the_next_variant(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_figures r;
	setup_fk(&s, 1);
	s.cb = NULL;
	s.clock_reuse_ticks = 1u << 30;
	memset(&bc, 0, sizeof(bc));
	fake_measure_extra(bracket_counted);
	const struct bench_def *d = bench_def_find("ref", "load_chain");
	unsigned one = 2 + 15;	/* a calibration's 2N runs: 2 warm-ups, 15 kept */
	assert_true(bench_measure_variant(&s, d, window, NULL, &r));
	assert_int_equal(bc.bracket_2n, one);	/* before, none after */
	assert_int_equal(r.calibration.before, 1000000);
	assert_int_equal(r.calibration.after, 0);
	assert_int_equal(r.cycles.n, 5);
	assert_int_equal(r.cycles.median, TICKS_PER_ITER_MILLI);
	assert_true(s.clock_at > 0);
	for (unsigned v = 0; v < 2; v++) {
		assert_true(bench_measure_variant(&s, d, window, NULL, &r));
		assert_int_equal(bc.bracket_2n, one);
		assert_int_equal(r.calibration.before, 1000000);
		assert_int_equal(r.cycles.n, 5);
	}
	fake_tsc_advance(s.clock_reuse_ticks);
	assert_true(bench_measure_variant(&s, d, window, NULL, &r));
	assert_int_equal(bc.bracket_2n, 2 * one);
	/* Without reuse: one before and one after each variant. */
	s.clock_reuse_ticks = 0;
	assert_true(bench_measure_variant(&s, d, window, NULL, &r));
	assert_int_equal(bc.bracket_2n, 4 * one);
	assert_int_equal(r.calibration.after, 1000000);
}

/*
 * Another thread shares the core during one sample: one run of the contention probe (calib_add_block,
 * right before and right after the kernel's runs) takes twice as long.  That sample is thrown away
 * as contended and taken again; the figure is the quiet samples'.  Slow before the kernel's runs, the
 * sample ends there (none of its runs are made); slow after them, the sample is judged so.
 */
static struct {
	unsigned probes, slow_probe, variant_runs;
} pc;
static uint64_t one_slow_probe(unsigned run, const struct bench_call *c)
{
	(void)run;
	if (c->kernel == bk_load_chain)
		pc.variant_runs++;
	if (c->kernel != (bench_kernel_fn)(void (*)(void))calib_add_block)
		return 0;
	return ++pc.probes == pc.slow_probe ? c->trips * CALIB_ADDS_PER_ITER / FAKE_ADDS_PER_TICK : 0;
}

/* ref.load_chain measured with a fresh contention probe, the fake core's probe runs timed by extra. */
static void probed_run(fake_measure_extra_fn extra, uint64_t patience, struct bench_contention *probe,
		       struct bench_figures *r)
{
	struct bench_setup s;
	setup_fk(&s, 1);
	s.cb = NULL;
	memset(probe, 0, sizeof(*probe));
	s.contention = probe;
	s.tight_runs = true;	/* the probe is for kernels that live in the core */
	s.contended_patience_ticks = patience;
	fake_measure_extra(extra);
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "load_chain"), window, NULL, r));
}

static void contended_run(unsigned slow_probe, struct bench_contention *probe, struct bench_figures *r)
{
	memset(&pc, 0, sizeof(pc));
	pc.slow_probe = slow_probe;
	probed_run(one_slow_probe, 0, probe, r);
}

static void a_contended_sample_is_thrown_away_and_retaken(void **state)
{
	(void)state;
	struct bench_contention probe;
	struct bench_figures r;
	/* Two probes a sample; the 2 warm-ups take probes 1-4, the first measured sample 5 and 6. */
	for (unsigned slow = 6; slow <= 7; slow++) {
		contended_run(slow, &probe, &r);
		assert_true(r.calibration.per_sample);
		assert_int_equal(r.contended, 1);
		assert_int_equal(r.retaken, 1);
		assert_int_equal(rejected(&r), 0);	/* not impossible: another thread's doing */
		assert_int_equal(r.cycles.n, 5);
		assert_int_equal(r.cycles.median, TICKS_PER_ITER_MILLI);
		assert_int_equal(probe.contended, 1);
		assert_int_equal(probe.probed, 5 + 1);	/* the measured samples (warm-ups are not judged) */
	}
	/* Probe 7, before the second measured sample's runs, ended it: one probe and no kernel run less. */
	unsigned cut_runs = pc.variant_runs, cut_probes = pc.probes;
	contended_run(6, &probe, &r);
	assert_int_equal(pc.probes, cut_probes + 1);
	assert_true(pc.variant_runs > cut_runs);
	/* The fake core's probe: FAKE_ADDS_PER_TICK adds a tick, plus the run's overhead, at one cycle a tick. */
	int64_t quiet = (int64_t)fake_measure_ticks(&(struct bench_call){
				.kernel = (bench_kernel_fn)(void (*)(void))calib_add_block,
				.trips = BENCH_PROBE_ADDS / CALIB_ADDS_PER_ITER }) *
			1000 / BENCH_PROBE_ADDS;
	/* (and the fake TSC's own step between its two reads: a tick or so more) */
	assert_in_range(bench_contention_reference(&probe), quiet, quiet + 2);

	/* Without a probe (bench_setup.contention NULL) nothing is probed and nothing thrown away. */
	struct bench_setup s;
	setup_fk(&s, 1);
	s.cb = NULL;
	memset(&pc, 0, sizeof(pc));
	pc.slow_probe = 6;
	fake_measure_extra(one_slow_probe);
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "load_chain"), window, NULL, &r));
	assert_int_equal(r.contended, 0);
	assert_int_equal(r.retaken, 0);
	assert_int_equal(pc.probes, 0);
}

/*
 * An episode of another thread on the core that outlasts the drop budget (probes from the first measured
 * sample's on, `episode` of them slow): without patience the variant keeps no sample; with
 * contended_patience_ticks it goes on retaking until the episode ends and keeps the quiet samples; a
 * patience of a few ticks runs out at once, and an episode that never ends stops when the patience does.
 */
static unsigned episode_probes;
static uint64_t an_episode(unsigned run, const struct bench_call *c)
{
	(void)run;
	if (c->kernel != (bench_kernel_fn)(void (*)(void))calib_add_block)
		return 0;
	++pc.probes;
	return pc.probes >= 5 && pc.probes < 5 + episode_probes ? c->trips * CALIB_ADDS_PER_ITER / FAKE_ADDS_PER_TICK
								  : 0;
}

static void episode_run(unsigned episode, uint64_t patience, struct bench_contention *probe, struct bench_figures *r)
{
	memset(&pc, 0, sizeof(pc));
	episode_probes = episode;
	probed_run(an_episode, patience, probe, r);
}

static void a_variant_waits_out_an_episode_of_contention_within_its_patience(void **state)
{
	(void)state;
	struct bench_contention probe;
	struct bench_figures r;
	/* Twenty slow probes: each ends its sample before the kernel's runs, four times the budget of 5. */
	episode_run(20, 0, &probe, &r);
	assert_int_equal(r.cycles.n, 0);
	assert_true(r.exhausted);
	assert_int_equal(r.cycles.unstable, STATS_UNSTABLE_CONTENDED);
	episode_run(20, 1ull << 40, &probe, &r);
	assert_false(r.exhausted);
	assert_int_equal(r.cycles.n, 5);
	assert_int_equal(r.cycles.median, TICKS_PER_ITER_MILLI);
	assert_true(r.contended >= 20);
	assert_int_equal(r.retaken, r.contended);
	/* A patience of a tick is spent by the first sample: as without one. */
	episode_run(20, 1, &probe, &r);
	assert_int_equal(r.cycles.n, 0);
	/* An episode that does not end: the patience runs out on the fake TSC, and the variant says why. */
	episode_run(1u << 30, 4000000, &probe, &r);
	assert_int_equal(r.cycles.n, 0);
	assert_true(r.exhausted && r.contended > 20);
}

/* A probe reference far below the fake core's probe (about 252), the streak over it 4 probes short of
 * BENCH_PROBE_RELEARN (the 2 warm-ups are cut too, then one measured sample), and a setup probing with it. */
static void stuck_reference(struct bench_contention *p, struct bench_setup *s)
{
	memset(p, 0, sizeof(*p));
	p->nlow = BENCH_PROBE_LOW_RANK;
	for (unsigned i = 0; i < BENCH_PROBE_LOW_RANK; i++)
		p->low[i] = 100;
	p->over_in_a_row = BENCH_PROBE_RELEARN - 4;
	setup_fk(s, 1);
	s->cb = NULL;
	s->contention = p;
	s->tight_runs = true;
}

/*
 * A reference no probe meets any more (taught by a run converted with a clock that had moved, or a core
 * shared for good) is learned again after BENCH_PROBE_RELEARN probes in a row over it, and the samples are
 * kept from then on.
 */
static void a_reference_no_probe_meets_is_learned_again(void **state)
{
	(void)state;
	struct bench_contention p;
	struct bench_setup s;
	struct bench_figures r;
	stuck_reference(&p, &s);
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "load_chain"), window, NULL, &r));
	assert_int_equal(p.relearned, 1);
	assert_int_equal(r.contended, 1);	/* the one before the relearning */
	assert_int_equal(r.cycles.n, 5);
	assert_true(bench_contention_reference(&p) > 200);
	assert_int_equal(p.over_in_a_row, 0);
}

/*
 * Probes over the reference that do not agree among themselves are an episode of another thread coming and
 * going, not a reference gone wrong: after BENCH_PROBE_RELEARN of them the reference stands, and the samples
 * beside them stay thrown away.
 */
static void an_episode_of_contention_does_not_teach_the_reference(void **state)
{
	(void)state;
	struct bench_contention p;
	struct bench_setup s;
	struct bench_figures r;
	stuck_reference(&p, &s);
	/* The streak so far: probes from 300 to 1000, far more spread than the tolerance allows. */
	for (unsigned i = 0; i < BENCH_PROBE_LOW_RANK; i++) {
		p.streak_low[i] = 300 + i;
		p.streak_high[i] = 1000 - i;
	}
	p.streak_nlow = p.streak_nhigh = BENCH_PROBE_LOW_RANK;
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "load_chain"), window, NULL, &r));
	assert_int_equal(p.relearned, 0);
	assert_true(p.episodes >= 1);
	assert_int_equal(bench_contention_reference(&p), 100);
	assert_int_equal(r.cycles.n, 0);	/* every sample beside the episode thrown away */
	assert_true(r.contended > 0);
	assert_int_equal(r.cycles.unstable, STATS_UNSTABLE_CONTENDED);
}

/* One fast run does not become the reference: the BENCH_PROBE_LOW_RANK-th fastest does. */
static void the_probe_reference_is_a_low_rank_not_the_fastest(void **state)
{
	(void)state;
	struct bench_contention p;
	memset(&p, 0, sizeof(p));
	assert_int_equal(bench_contention_reference(&p), 0);
	struct bench_setup s;
	struct bench_figures r;
	setup_fk(&s, 1);
	s.cb = NULL;
	s.contention = &p;
	s.tight_runs = true;
	/* A reference already learned, one lone fast run among them. */
	p.nlow = BENCH_PROBE_LOW_RANK;
	for (unsigned i = 0; i < BENCH_PROBE_LOW_RANK; i++)
		p.low[i] = i ? 250 : 180;
	assert_int_equal(bench_contention_reference(&p), 250);
	/* Every fake probe takes about 252 (FAKE_ADDS_PER_TICK adds a tick and the run's overhead): far slower
	 * than the lone 180, within the tolerance of the reference 250.  None is contended. */
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "load_chain"), window, NULL, &r));
	assert_int_equal(r.contended, 0);
	assert_int_equal(r.cycles.n, 5);
	assert_int_equal(p.low[0], 180);
	assert_int_equal(bench_contention_reference(&p), 250);
}

/* Adaptive iterations, timed only: a floor, a target, room to retake. */
static void adaptive_setup(struct bench_setup *s, uint32_t floor, uint64_t target_ticks)
{
	setup_fk(s, 1);
	s->cb = NULL;
	s->iterations = floor;
	s->reps = 3;
	s->drop_budget = 4;
	s->target_ticks = target_ticks;
}

/* Adaptive iterations: enough for the target, the floor kept, the budget obeyed. */
static void iterations_adapt_to_the_kernel(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_figures r;
	adaptive_setup(&s, 64, 20000);
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "add_chain"), window, NULL, &r));
	assert_int_equal(s.iterations, 64);	/* the setup's floor is left as it was */
	assert_int_equal(r.iterations_min, 64);
	assert_int_equal(r.iterations % BENCH_UNROLL, 0);
	/* 64 one-cycle adds span 64 ticks: the count went up until a run spans the target, aiming an eighth past it. */
	assert_false(r.iterations_capped);
	assert_true(r.iterations >= 20000 && r.iterations <= 20000 + 20000 / 8 + BENCH_UNROLL);
	assert_int_equal(r.pilot_ticks, r.iterations);	/* the last pilot: one tick an add */
	assert_int_equal(r.tsc.n, 3);
	/* A budget that allows less than the floor: the floor, and the figures say the budget decided. */
	s.budget_ticks = 1000;
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "add_chain"), window, NULL, &r));
	assert_int_equal(r.iterations, 64);
	assert_true(r.iterations_capped);
	/* No target: the floor, no pilot. */
	s.target_ticks = 0;
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "add_chain"), window, NULL, &r));
	assert_int_equal(r.iterations, 64);
	assert_int_equal(r.pilot_ticks, 0);
	assert_false(r.iterations_window);
}

/*
 * Where the window cannot hold interrupts off, a run longer than the
 * platform allows is cut to fit, below the floor if need be, and the
 * figures say the window decided; within it, nothing changes.
 */
static void a_long_run_is_cut_to_the_window(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_figures r;
	adaptive_setup(&s, 1u << 16, 2000);	/* 65,536 one-cycle adds: 65,536 ticks */
	s.window_ticks_max = 8000;
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "add_chain"), window, NULL, &r));
	assert_int_equal(s.iterations, 1u << 16);	/* the setup's floor is left as it was */
	assert_int_equal(r.iterations % BENCH_UNROLL, 0);
	assert_true(r.iterations_window && r.iterations_capped);
	/* The most whole trips whose run fits, and the last pilot says it does. */
	assert_true(r.iterations <= 8000 && r.iterations > 8000 - BENCH_UNROLL);
	assert_int_equal(r.pilot_ticks, r.iterations);
	assert_int_equal(r.cycles.n, 3);
	/* No window limit: the floor stands. */
	s.window_ticks_max = 0;
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "add_chain"), window, NULL, &r));
	assert_int_equal(r.iterations, 1u << 16);
	assert_false(r.iterations_window);
}

/*
 * A pilot that reads ten times slower than the kernel runs (a cold buffer,
 * a disturbance in each of its runs): it reaches the target at a tenth of
 * the iterations, the kept samples span a tenth of it, and the count is
 * chosen again from what they took.
 */
#define PILOT_ROUND_RUNS (3 * 3)	/* bench/harness.c: PILOT_RUNS pilots of three runs (unmeasured, N, 2N) */
static uint64_t slow_pilots(unsigned run, const struct bench_call *c)
{
	return run <= 2 * PILOT_ROUND_RUNS ? 9 * c->trips * BENCH_UNROLL : 0;
}

static void a_slow_pilot_is_chosen_again(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_figures r;
	adaptive_setup(&s, 64, 20000);
	fake_measure_extra(slow_pilots);
	assert_true(bench_measure_variant(&s, bench_def_find("ref", "add_chain"), window, NULL, &r));
	assert_false(r.iterations_capped);
	/* The samples' own ticks chose the count: the target reached, the first choice's span recorded. */
	assert_true(r.iterations >= 20000 && r.iterations <= 20000 + 20000 / 8 + BENCH_UNROLL);
	/* What the samples took at the first choice: a tenth of the slow pilot's reading, which reached the target. */
	assert_true(r.pilot_ticks >= 20000 / 10 && r.pilot_ticks < 20000 - 20000 / 10);
	assert_int_equal(r.tsc.median, TICKS_PER_ITER_MILLI);
	assert_int_equal(r.tsc.n, 3);
}

static struct {
	unsigned begins, ends, slices_in_window, slice_ends, variant_page;
	const char *kernel, *variant;
} ob;
static void ob_variant_begin(void *ctx, const struct bench_variant_id *id)
{
	(void)ctx;
	ob.begins++;
	ob.kernel = id->kernel;
	ob.variant = id->variant;
	ob.variant_page = id->arena_page;
}
static void ob_slice_begin(void *ctx) { (void)ctx; ob.slices_in_window += fake_window_depth() == 1; }
static void ob_slice_end(void *ctx) { (void)ctx; ob.slice_ends += fake_window_depth() == 1; }
static void ob_variant_end(void *ctx, const struct bench_variant_id *id) { (void)ctx; (void)id; ob.ends++; }

static void observers_run_slices_inside_windows(void **state)
{
	(void)state;
	struct bench_setup s;
	struct bench_observer o[2] = {
		{ "test", 3, ob_variant_begin, ob_slice_begin, ob_slice_end, ob_variant_end, NULL },
		{ "second", 2, ob_variant_begin, ob_slice_begin, ob_slice_end, ob_variant_end, NULL },
	};
	setup_fk(&s, 1);
	memset(&ob, 0, sizeof(ob));
	/* Observers are passed in, not registered: none given, none run. */
	bench_observe(&s, bench_def_find("split", "load_page"), window, 4096, o, 0);
	assert_int_equal(ob.begins, 0);
	bench_observe(&s, bench_def_find("split", "load_page"), window, 4096, o, 2);
	assert_int_equal(ob.begins, 2);
	assert_int_equal(ob.ends, 2);
	assert_int_equal(ob.slices_in_window, 5);
	assert_int_equal(ob.slice_ends, 5);
	assert_string_equal(ob.kernel, "split");
	assert_string_equal(ob.variant, "load_page");
	assert_int_equal(ob.variant_page, 4096);
	assert_int_equal(fake_window_depth(), 0);
}

/*
 * The ledger on a fake Intel core: SMI count, APERF/MPERF, thermal logs, all
 * quiet until a test's on_read hook disturbs one window.  Reads 1-4 are the
 * two warm-up samples; each measured sample makes two reads (N run, 2N run).
 */
static struct ledger led;
static struct cpu_info lci;

static void ledger_intel(struct bench_setup *s)
{
	memset(&lci, 0, sizeof(lci));
	lci.vendor = VENDOR_INTEL;
	lci.max_leaf = 0x16;
	lci.event_set = "skylake";
	fake_cpuid_set(CPUID_LEAF_SIGNATURE, 0, 0x506E3, 0, 0, CPUID1_EDX_ACPI);
	fake_cpuid_set(CPUID_LEAF_POWER, 0, 0, 0, CPUID6_ECX_APERFMPERF, 0);
	fake_msr_define(MSR_SMI_COUNT, 40, 0);
	fake_msr_define(MSR_IA32_MPERF, 0, 0);
	fake_msr_define(MSR_IA32_APERF, 0, 0);
	const uint64_t logs = THERM_LOG_OF(THERM_STATUS_THERMAL) | THERM_LOG_OF(THERM_STATUS_PROCHOT_EXT) |
			      THERM_LOG_OF(THERM_STATUS_CRITICAL);
	fake_msr_define(MSR_IA32_THERM_STATUS, 0, logs);
	fake_msr_rwc0(MSR_IA32_THERM_STATUS, logs);
	ledger_init(&led, &lci, NULL);
	assert_true(led.src[LEDGER_SMI_COUNT].available);
	assert_true(led.src[LEDGER_FREQUENCY].available);
	assert_true(led.src[LEDGER_THERMAL].available);
	s->ledger = &led;
}

/* Every counted run: 50,000 MPERF ticks at 1.000 cycles per tick, 1.060 in the read `fast_at`. */
static unsigned fast_at, smi_at, therm_at;
static void machine_runs(unsigned read)
{
	uint64_t ratio_milli = read == fast_at ? 1060 : 1000;
	fake_msr_set(MSR_IA32_MPERF, fake_msr_get(MSR_IA32_MPERF) + 50000);
	fake_msr_set(MSR_IA32_APERF, fake_msr_get(MSR_IA32_APERF) + 50 * ratio_milli);
	if (read == smi_at || smi_at == ~0u)
		fake_msr_set(MSR_SMI_COUNT, fake_msr_get(MSR_SMI_COUNT) + 1);
	if (read == therm_at)
		fake_msr_set(MSR_IA32_THERM_STATUS, THERM_STATUS_THERMAL | THERM_LOG_OF(THERM_STATUS_THERMAL));
}

static void run_disturbed_once(struct bench_figures *r, unsigned fast, unsigned smi, unsigned therm)
{
	static struct count_set set;
	struct bench_setup s;
	setup_fk(&s, 1);
	ledger_intel(&s);
	fast_at = fast, smi_at = smi, therm_at = therm;
	fk.on_read = machine_runs;
	set_of(&set, 1);
	assert_true(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, &set, r));
	/* Quiet but for the one: 5 good, 1 retaken, nothing else thrown away. */
	assert_int_equal(r->dropped, 1);
	assert_int_equal(r->retaken, 1);
	assert_false(r->exhausted);
	assert_int_equal(r->ev[0].fig.n, 5);
	assert_int_equal(r->ev[0].fig.unstable, STATS_STABLE);
	assert_int_equal(rejected(r), 0);
	assert_int_equal(fk.reads, 8 * 2);
	assert_int_equal(fake_window_depth(), 0);
}

static void smi_in_a_sample_is_retaken(void **state)
{
	(void)state;
	struct bench_figures r;
	run_disturbed_once(&r, 0, 8, 0);	/* the 2N run of the second measured sample */
	assert_int_equal(r.disturbed[LEDGER_SMI_COUNT], 1);
	assert_int_equal(r.disturbed[LEDGER_FREQUENCY] + r.disturbed[LEDGER_THERMAL] + r.disturbed[LEDGER_NMI], 0);
	assert_string_equal(r.disturbance, "1 SMI");
}

static void clock_moving_in_a_sample_is_retaken(void **state)
{
	(void)state;
	struct bench_figures r;
	/* 1.000 in the first (warm-up) window, the reference; 1.030 over the window of reads 7-8. */
	run_disturbed_once(&r, 7, 0, 0);
	assert_int_equal(r.disturbed[LEDGER_FREQUENCY], 1);
	assert_int_equal(r.disturbed[LEDGER_SMI_COUNT] + r.disturbed[LEDGER_THERMAL], 0);
	assert_string_equal(r.disturbance, "frequency moved +3.0%");
	assert_int_equal(led.ref, LEDGER_REF_LEARNED);
	assert_int_equal(led.ref_ppm, 1000000);
}

static void quiet_machine_loses_nothing(void **state)
{
	(void)state;
	static struct count_set set;
	struct bench_setup s;
	struct bench_figures r;
	setup_fk(&s, 1);
	ledger_intel(&s);
	fast_at = smi_at = therm_at = 0;
	fk.on_read = machine_runs;
	set_of(&set, 1);
	assert_true(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, &set, &r));
	assert_int_equal(r.dropped, 0);
	assert_int_equal(r.retaken, 0);
	for (unsigned k = 0; k < LEDGER_SOURCES; k++)
		assert_int_equal(r.disturbed[k], 0);
	assert_string_equal(r.disturbance, "");
	assert_int_equal(rejected(&r), 0);
	assert_int_equal(fk.reads, 7 * 2);
	/* The ledger saw every window: the warm-up ones and the measured ones. */
	assert_int_equal(led.windows, 7);
}

/* An SMI in every window: the budget runs out, and the figures say they could not be cleaned. */
static void budget_spent_on_smis_is_not_clean(void **state)
{
	(void)state;
	static struct count_set set;
	struct bench_setup s;
	struct bench_figures r;
	setup_fk(&s, 1);
	ledger_intel(&s);
	fast_at = therm_at = 0;
	smi_at = ~0u;
	fk.on_read = machine_runs;
	set_of(&set, 1);
	assert_true(bench_run_variant(&s, bench_def_find("ref", "add_chain"), window, &set, &r));
	assert_true(r.exhausted);
	assert_int_equal(r.dropped, 5);
	assert_int_equal(r.disturbed[LEDGER_SMI_COUNT], 5);
	assert_int_equal(r.retaken, 4);
	assert_int_equal(r.tsc.unstable, STATS_UNSTABLE_DISTURBED);
	assert_int_equal(r.cycles.unstable, STATS_UNSTABLE_DISTURBED);
	assert_false(r.ev[0].measured);
	assert_string_equal(r.disturbance, "2 SMIs");	/* one per counted run */
	assert_string_equal(r.problem, "no sample could be kept: 5 disturbed (smi_count 5), 0 contended, 0 rejected as impossible");
	char by[64];
	assert_string_equal(bench_disturbed_by_source(&r, by, sizeof(by)), "smi_count 5");
}

/* A scheduler with a single general counter: every event takes a pass of its own. */
static bool one_counter_schedule(struct count_set *set, char *err, size_t cap)
{
	(void)err; (void)cap;
	set->passes = (unsigned)set->n;
	for (size_t i = 0; i < set->n; i++) {
		set->pass_of[i] = (uint8_t)i;
		set->counter_of[i] = 0;
		set->fixed_of[i] = -1;
		set->form_of[i] = -1;
	}
	return true;
}

/* AMD: no SMI count MSR; the catalogue's SMI event rides beside each pass's events and its count judges. */
static void amd_smi_event_beside_each_pass(void **state)
{
	(void)state;
	static struct count_set set;
	struct bench_setup s;
	struct bench_figures r;
	struct event_spec smi;
	char err[192];
	const struct event_set *zen2 = events_set_find("zen2");

	setup_fk(&s, 1);
	memset(&lci, 0, sizeof(lci));
	lci.vendor = VENDOR_AMD;
	lci.event_set = "zen2";
	ledger_init(&led, &lci, NULL);
	assert_non_null(ledger_smi_event(&led));
	const char *name = ledger_smi_event(&led)->name;
	assert_true(event_spec_parse(zen2, true, name, strlen(name), &smi, err, sizeof(err)));
	s.ledger = &led;
	s.smi_event = &smi;
	set_of(&set, 2);
	fk.smi_event_at = 8;	/* the 2N run of the second measured sample */
	assert_true(bench_run_variant(&s, bench_def_find("store_forward", "forward"), window, &set, &r));
	assert_int_equal(r.smi_event_passes, 1);
	assert_string_equal(r.smi_event_missing, "");
	assert_int_equal(r.dropped, 1);
	assert_int_equal(r.disturbed[LEDGER_SMI_EVENT], 1);
	assert_int_equal(r.retaken, 1);
	assert_string_equal(r.disturbance, "1 SMI");
	/* The SMI event is the ledger's, not a figure: the variant's events only, and the set as it was given. */
	assert_int_equal(r.nev, 2);
	assert_int_equal(set.n, 2);
	assert_int_equal(r.ev[0].fig.min, 1000);
	assert_int_equal(r.ev[1].fig.min, 2000);
	assert_int_equal(r.ev[1].fig.n, 5);

	/* No spare counter beside a pass's events: measured without it, and the figures say so. */
	struct count_backend one = fake_backend;
	one.schedule = one_counter_schedule;
	s.cb = &one;
	memset(&fk, 0, sizeof(fk));
	fk.pollute_from = ~0u;
	fk.passes = 1;
	fk.iterations = 256;
	fk.smi_event_at = 6;	/* would disturb - but nothing counts the event */
	assert_true(bench_run_variant(&s, bench_def_find("store_forward", "forward"), window, &set, &r));
	assert_int_equal(r.passes, 2);
	assert_int_equal(r.smi_event_passes, 0);
	assert_string_equal(r.smi_event_missing, "no spare counter in 2 of 2 passes (pass 1)");
	assert_int_equal(r.disturbed[LEDGER_SMI_EVENT], 0);
	assert_int_equal(set.n, 2);

	/* Timed only: nothing counts it, and the figures say that too. */
	assert_true(bench_run_variant(&s, bench_def_find("store_forward", "forward"), window, NULL, &r));
	assert_int_equal(r.smi_event_passes, 0);
	assert_string_equal(r.smi_event_missing, "the variant was not counted");
}

static void thermal_log_in_a_sample_is_retaken(void **state)
{
	(void)state;
	struct bench_figures r;
	run_disturbed_once(&r, 0, 0, 5);
	assert_int_equal(r.disturbed[LEDGER_THERMAL], 1);
	assert_string_equal(r.disturbance, "thermal log (PROCHOT)");
	/* Cleared where it was seen, so a later event would show again. */
	assert_int_equal(fake_msr_get(MSR_IA32_THERM_STATUS) & THERM_LOG_OF(THERM_STATUS_THERMAL), 0);
}

static void table_invariants(void **state)
{
	(void)state;
	assert_int_equal(bench_asm_unroll, BENCH_UNROLL);
	/* The one calibration kernel runs the number of adds its header says. */
	assert_int_equal(calib_add_chain(3), 3 * CALIB_ADDS_PER_ITER);
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *d = bench_def_at(i), *c = bench_def_control(d);
		/* Both addresses and an 8-byte access stay inside the window. */
		assert_true(d->p_off + 8 <= BENCH_WINDOW_BYTES);
		assert_true(d->q_off + 8 <= BENCH_WINDOW_BYTES);
		assert_non_null(d->fn);
		assert_true((const uint8_t *)(uintptr_t)d->fn < d->fn_end);
		assert_non_null(d->body);
		/* The 4 KiB-crossing flag says what the offset does. */
		bool crosses = d->p_off / BENCH_PAGE != (d->p_off + 7) / BENCH_PAGE;
		assert_int_equal(crosses, d->crosses_4k);
		if (d->control) {
			/* The control exists, is a control, and is measured first (table order). */
			assert_non_null(c);
			assert_int_equal(c->expect, BENCH_CONTROL);
			assert_true(c < d);
			assert_int_equal(c->per_arena, d->per_arena);
		}
		if (d->expect == BENCH_PROVOKES || d->expect == BENCH_PROVOKES_EVENTS)
			assert_true(d->roles != 0 && d->control != NULL);
		if (d->expect == BENCH_REFERENCE)
			assert_true(d->ref_lo > 0 && d->ref_lo < d->ref_hi);
		/* Names are unique. */
		for (size_t j = 0; j < i; j++)
			assert_false(!strcmp(d->kernel, bench_def_at(j)->kernel) &&
				     !strcmp(d->variant, bench_def_at(j)->variant));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(timing_only_run_is_complete),
		cmocka_unit_test(events_per_iteration_over_passes),
		cmocka_unit_test(polluted_samples_are_dropped_and_retaken),
		cmocka_unit_test(a_clock_moved_across_the_bracket_moves_no_figure),
		cmocka_unit_test(a_recent_calibration_stands_for_the_next_variant),
		cmocka_unit_test(one_polluted_sample_costs_one_retake),
		cmocka_unit_test(quiet_machine_loses_nothing),
		cmocka_unit_test(smi_in_a_sample_is_retaken),
		cmocka_unit_test(clock_moving_in_a_sample_is_retaken),
		cmocka_unit_test(thermal_log_in_a_sample_is_retaken),
		cmocka_unit_test(budget_spent_on_smis_is_not_clean),
		cmocka_unit_test(amd_smi_event_beside_each_pass),
		cmocka_unit_test(impossible_sample_is_rejected_and_retaken),
		cmocka_unit_test(a_disturbance_the_window_missed_is_rejected_as_n_2n),
		cmocka_unit_test(a_moving_clock_in_a_sample_is_rejected),
		cmocka_unit_test(a_kernel_that_moves_the_clock_is_calibrated_at_its_own_clock),
		cmocka_unit_test(samples_at_another_clock_are_noted),
		cmocka_unit_test(a_contended_sample_is_thrown_away_and_retaken),
		cmocka_unit_test(a_variant_waits_out_an_episode_of_contention_within_its_patience),
		cmocka_unit_test(the_probe_reference_is_a_low_rank_not_the_fastest),
		cmocka_unit_test(a_reference_no_probe_meets_is_learned_again),
		cmocka_unit_test(an_episode_of_contention_does_not_teach_the_reference),
		cmocka_unit_test(counting_failure_falls_back_to_time),
		cmocka_unit_test(below_the_chain_is_rejected),
		cmocka_unit_test(calibrated_ticks_and_the_bracket),
		cmocka_unit_test(iterations_adapt_to_the_kernel),
		cmocka_unit_test(a_long_run_is_cut_to_the_window),
		cmocka_unit_test(a_slow_pilot_is_chosen_again),
		cmocka_unit_test(storage_limits_reps),
		cmocka_unit_test(observers_run_slices_inside_windows),
		cmocka_unit_test(msr_backend_against_modelled_pmu),
		cmocka_unit_test(table_invariants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
