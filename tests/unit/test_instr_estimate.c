/*
 * The instr= run's time (bench/instr_estimate.c over bench/harness.c's bench_variant_ticks): before the run
 * from the harness's set-up, figures these tests choose (no clock is read); during it from the rate so far.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bench/instr_estimate.h"
#include "bench/kernels.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/measure_fake.h"

#define GHZ 1000000000ull
#define TICKS_PER_MS (GHZ / 1000)

/* A set-up's sample counts; the rest zero (no target, no budget, no calibration). */
static struct bench_setup setup_of(uint32_t iterations, uint32_t warmup, uint32_t reps, uint32_t drop_budget)
{
	struct bench_setup s;
	memset(&s, 0, sizeof(s));
	s.iterations = iterations;
	s.warmup = warmup;
	s.reps = reps;
	s.drop_budget = drop_budget;
	return s;
}

/* A set-up as the stage leaves it on a core with APERF (no TSC calibration around the variant). */
static struct bench_setup aperf_setup(void)
{
	struct bench_setup s = setup_of(1000, 3, 11, 6);
	s.cycles_msr = 1;
	s.target_ticks = BENCH_TARGET_TICKS;
	s.budget_ticks = TICKS_PER_MS * BENCH_VARIANT_BUDGET_MS;
	s.clock.ppm = 2000000;
	return s;
}

/* Adaptive iterations: every run aims an eighth past the target; 3 pilot runs and 14 samples, 4 runs each. */
static void adaptive_runs_at_the_target(void **state)
{
	(void)state;
	struct bench_setup s = aperf_setup();
	uint64_t run = BENCH_TARGET_TICKS + BENCH_TARGET_TICKS / 8;
	assert_int_equal(bench_variant_ticks(&s, 12345), (3 + 3 + 11) * 4 * run);
	struct instr_estimate e;
	instr_estimate_before(&s, GHZ, 27, &e);
	assert_false(e.at_least);
	/* 27 x 1,530,000 ticks at 1 GHz: 41.31 ms, rounded up. */
	assert_int_equal(e.ms, 42);
	/* Twice the measurements, twice the time (to the rounding). */
	instr_estimate_before(&s, GHZ, 54, &e);
	assert_int_equal(e.ms, 83);
}

/* A budget too small for the target caps the run: budget / (samples a pass may take x 4 runs). */
static void budget_caps_the_run(void **state)
{
	(void)state;
	struct bench_setup s = aperf_setup();
	s.budget_ticks = 1000000;
	uint64_t cap = 1000000 / ((3 + 11 + 6) * 4);
	assert_int_equal(bench_variant_ticks(&s, 0), (3 + 3 + 11) * 4 * cap);
}

/* Cycles from the TSC: two calibrations of 17 samples (at least 15 kept, 2 warm-up) and one in each sample. */
static void tsc_cycles_add_the_calibrations(void **state)
{
	(void)state;
	struct bench_setup s = aperf_setup();
	s.cycles_msr = 0;
	uint64_t run = BENCH_TARGET_TICKS + BENCH_TARGET_TICKS / 8;
	/* 2 cycles per tick: the chain's N run is half its adds in ticks. */
	uint64_t cal = BENCH_CALIB_ADDS / 2;
	uint64_t in_sample = cal * BENCH_SAMPLE_CALIB_ADDS / BENCH_CALIB_ADDS;	/* the sample's own, smaller */
	uint64_t want = (3 + 3 + 11) * 4 * run + 2 * (15 + 2) * 4 * cal + (3 + 11) * 3 * in_sample;
	assert_int_equal(bench_variant_ticks(&s, 0), want);
	s.reps = 31;
	want = (3 + 3 + 31) * 4 * run + 2 * (31 + 2) * 4 * cal + (3 + 31) * 3 * in_sample;
	assert_int_equal(bench_variant_ticks(&s, 0), want);
	/* Under an emulator there is no calibration around a variant. */
	s.emulated_time = true;
	assert_int_equal(bench_variant_ticks(&s, 0), (3 + 3 + 31) * 4 * run);
}

/* Fixed iterations (an emulator): each instance timed as one add of the calibration, so a floor. */
static void emulator_gives_a_floor(void **state)
{
	(void)state;
	struct bench_setup s = aperf_setup();
	s.cycles_msr = 0;
	s.emulated_time = true;
	s.target_ticks = 0;
	s.iterations = 64;
	s.clock.ppm = 500000; /* half a cycle a tick: an add takes 2 ticks */
	struct instr_estimate e;
	instr_estimate_before(&s, GHZ, 1000000, &e);
	assert_true(e.at_least);
	/* No pilot: 14 samples x 4 runs of 128 ticks, a million times, at 1 GHz: 7168 ms. */
	assert_int_equal(e.ms, (3 + 11) * 4 * 128 * 1000000ull / TICKS_PER_MS);
	/* No calibration to time the instances by, or no TSC rate: no estimate. */
	s.clock.ppm = 0;
	instr_estimate_before(&s, GHZ, 10, &e);
	assert_int_equal(e.ms, 0);
	struct bench_setup a = aperf_setup();
	instr_estimate_before(&a, 0, 10, &e);
	assert_int_equal(e.ms, 0);
}

static uint8_t window[BENCH_WINDOW_BYTES] __attribute__((aligned(4096)));
static int64_t pool[4096];

/* The fake clock's ticks bench_measure_variant spends on ref add_chain (one tick an add). */
static uint64_t spent_on_add_chain(struct bench_setup *s)
{
	struct bench_figures f;
	fake_reset();
	fake_measure_reset();
	uint64_t t0 = hw_tsc();
	assert_true(bench_measure_variant(s, bench_def_find("ref", "add_chain"), window, NULL, &f));
	return hw_tsc() - t0;
}

/*
 * The model against the harness itself on the fake clock (tests/fake/measure_fake.h: a run costs its trips
 * and FAKE_MEASURE_OVERHEAD ticks): what it spends is what bench_variant_ticks says, to the calls' own
 * ticks, and adaptive iterations' earlier pilot rounds.
 */
static void the_harness_spends_what_the_model_says(void **state)
{
	(void)state;
	struct bench_setup s = setup_of(256, 2, 5, 5);
	s.pool = pool;
	s.pool_cap = sizeof(pool) / sizeof(pool[0]);
	s.emulated_time = true;
	uint64_t model = bench_variant_ticks(&s, 256 + FAKE_MEASURE_OVERHEAD);
	uint64_t spent = spent_on_add_chain(&s);
	assert_int_equal(model, (2 + 5) * 4 * (256 + FAKE_MEASURE_OVERHEAD));
	/* Within 5%: a 2N run pays the call once, where the model counts two N runs. */
	assert_true(spent >= model - model / 20 && spent <= model + model / 20);
	/* Adaptive: from 64 adds a run up to the target; the pilot rounds before the last are short. */
	s.iterations = 64;
	s.target_ticks = 20000;
	model = bench_variant_ticks(&s, 0);
	spent = spent_on_add_chain(&s);
	assert_true(spent >= model - model / 20 && spent <= model + model / 20);
}

/* During the run: what is left at the rate so far, and forms a minute. */
static void rate_so_far(void **state)
{
	(void)state;
	assert_int_equal(instr_estimate_left_ms(10000, 40, 200), 40000);
	assert_int_equal(instr_estimate_left_ms(10000, 200, 200), 0);
	assert_int_equal(instr_estimate_left_ms(10000, 0, 200), 0);
	assert_int_equal(instr_estimate_per_minute(12000, 8), 40);
	assert_int_equal(instr_estimate_per_minute(0, 8), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(adaptive_runs_at_the_target),
		cmocka_unit_test(budget_caps_the_run),
		cmocka_unit_test(tsc_cycles_add_the_calibrations),
		cmocka_unit_test(emulator_gives_a_floor),
		cmocka_unit_test(the_harness_spends_what_the_model_says),
		cmocka_unit_test(rate_so_far),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
