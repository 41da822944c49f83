/*
 * bench/stats: median, quartiles, MAD and outliers; the differential;
 * scaling without overflow; which samples are impossible; sample
 * accounting and when a figure is unstable.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bench/stats.h"

static struct bench_figure fig(int64_t min, int64_t median, int64_t max, uint32_t n)
{
	struct bench_figure f;
	memset(&f, 0, sizeof(f));
	f.min = min, f.median = median, f.max = max, f.n = n;
	return f;
}

static void summary_of_odd_count(void **state)
{
	(void)state;
	int64_t s[] = { 50, -3, 7, 1000, 7 };
	struct bench_figure f;
	stats_summarise(s, 5, &f);
	assert_int_equal(f.n, 5);
	assert_int_equal(f.min, -3);
	assert_int_equal(f.median, 7);
	/* Deviations 0, 0, 10, 43, 993: MAD 10, so 1000 is 993 > 5.19 x 10 away - an outlier, not the max. */
	assert_int_equal(f.mad, 10);
	assert_int_equal(f.max, 50);
	assert_int_equal(f.outliers, 1);
	assert_int_equal(f.out_lo, 1000);
	assert_int_equal(f.out_hi, 1000);
	/* Sorted in place. */
	assert_int_equal(s[0], -3);
	assert_int_equal(s[4], 1000);
}

static void median_of_even_count_is_floor_of_middle_mean(void **state)
{
	(void)state;
	int64_t a[] = { 4, 1, 3, 2 };
	int64_t b[] = { -2, -3 };
	int64_t c[] = { INT64_MAX, INT64_MAX - 1 };
	struct bench_figure f;
	stats_summarise(a, 4, &f);
	assert_int_equal(f.median, 2);	/* (2+3)/2 = 2.5 -> 2 */
	stats_summarise(b, 2, &f);
	assert_int_equal(f.median, -3);	/* -2.5 -> -3 */
	stats_summarise(c, 2, &f);
	assert_int_equal(f.median, INT64_MAX - 1);	/* no overflow */
}

static void empty_summary_is_zero(void **state)
{
	(void)state;
	struct bench_figure f = fig(1, 2, 3, 4);
	stats_summarise(NULL, 0, &f);
	assert_int_equal(f.n, 0);
	assert_int_equal(f.min, 0);
	assert_int_equal(f.median, 0);
	assert_int_equal(f.max, 0);
}

static void large_sample_sorts(void **state)
{
	(void)state;
	static int64_t s[5001];
	/* A permutation of 0..5000 (5001 is prime to 2003). */
	for (int64_t i = 0; i < 5001; i++)
		s[i] = (i * 2003) % 5001;
	struct bench_figure f;
	stats_summarise(s, 5001, &f);
	for (size_t i = 1; i < 5001; i++)
		assert_true(s[i - 1] <= s[i]);
	assert_int_equal(f.min, 0);
	assert_int_equal(f.median, 2500);
	assert_int_equal(f.max, 5000);
}

static void differential_cancels_shared_overhead(void **state)
{
	(void)state;
	/* 1000 iterations at 5 ticks plus 300 ticks of overhead, and 2000 iterations with the same overhead. */
	assert_int_equal(stats_differential_milli(5300, 10300, 1000), 5000);
	/* Rounded to nearest thousandth: 1 tick over 3 iterations = 0.333. */
	assert_int_equal(stats_differential_milli(100, 101, 3), 333);
	assert_int_equal(stats_differential_milli(100, 102, 3), 667);
	/* Noise can make the longer run shorter: the result is negative, not a huge unsigned number. */
	assert_int_equal(stats_differential_milli(10300, 5300, 1000), -5000);
	/* Counter values that wrapped between the runs still subtract correctly. */
	assert_int_equal(stats_differential_milli(UINT64_MAX - 9, 10, 10), 2000);
}

static void scale_is_exact_for_large_values(void **state)
{
	(void)state;
	/* 1e15 * 3e6 overflows 64 bits in the product but not in the result. */
	assert_int_equal(stats_scale(1000000000000000LL, 3000000, 1000000), 3000000000000000LL);
	assert_int_equal(stats_scale(-1000000000000000LL, 3000000, 1000000), -3000000000000000LL);
	/* Rounded to nearest, halves away from zero. */
	assert_int_equal(stats_scale(5, 1, 2), 3);
	assert_int_equal(stats_scale(-5, 1, 2), -3);
	assert_int_equal(stats_scale(4, 1, 3), 1);
	/* A result too large saturates rather than wrapping. */
	assert_int_equal(stats_scale(INT64_MAX, 4, 1), INT64_MAX);
	assert_int_equal(stats_scale(7, 1, 0), 0);
}

static void ticks_to_cycles(void **state)
{
	(void)state;
	/* 3.840 ticks per iteration at 1.302 cycles per tick (ppm) = 5.000 cycles. */
	struct bench_figure f = fig(3800, 3840, 3900, 11);
	stats_figure_scale(&f, 1302000, 1000000);
	assert_int_equal(f.min, 4948);
	assert_int_equal(f.median, 5000);
	assert_int_equal(f.max, 5078);
	assert_int_equal(f.n, 11);
}

static void spread(void **state)
{
	(void)state;
	struct bench_figure f = fig(4900, 5000, 5100, 11);
	assert_int_equal(stats_spread_milli(&f), 40);	/* 200 / 5000 = 4.0% */
	f.q1 = 4950, f.q3 = 5050;
	assert_int_equal(stats_iqr_milli(&f), 20);
	struct bench_figure z = fig(-10, 0, 10, 3);
	assert_int_equal(stats_spread_milli(&z), 0);
}

static void take_keeps_going_until_enough_good_samples(void **state)
{
	(void)state;
	struct stats_take t;
	stats_take_init(&t, 3, 5);
	assert_true(stats_take_note(&t, STATS_KEPT));
	assert_true(stats_take_note(&t, STATS_REJECT_DISTURBED));
	assert_true(stats_take_note(&t, STATS_KEPT));
	assert_true(stats_take_note(&t, STATS_REJECT_NEGATIVE));
	assert_false(stats_take_note(&t, STATS_KEPT));
	assert_int_equal(t.good, 3);
	assert_int_equal(t.thrown, 2);
	assert_int_equal(t.by[STATS_REJECT_DISTURBED], 1);
	assert_int_equal(t.by[STATS_REJECT_NEGATIVE], 1);
	assert_int_equal(stats_take_rejected(&t), 1);	/* disturbed samples are dropped, not rejected */
	assert_false(stats_take_exhausted(&t));
}

static void take_gives_up_after_budget(void **state)
{
	(void)state;
	struct stats_take t;
	stats_take_init(&t, 3, 2);
	assert_true(stats_take_note(&t, STATS_KEPT));
	assert_true(stats_take_note(&t, STATS_REJECT_N_2N));
	assert_false(stats_take_note(&t, STATS_REJECT_DISTURBED));	/* second throw: budget spent */
	assert_int_equal(t.good, 1);
	assert_int_equal(t.thrown, 2);
	assert_true(stats_take_exhausted(&t));
}

static void quartiles_interpolate_between_ranks(void **state)
{
	(void)state;
	int64_t s[] = { 40, 10, 30, 20, 50 };
	struct bench_figure f;
	stats_summarise(s, 5, &f);
	assert_int_equal(f.q1, 20);
	assert_int_equal(f.q3, 40);
	int64_t e[] = { 4, 1, 2, 3 };	/* ranks 0.75 and 2.25: 1.75 and 3.25, floored in the unit */
	stats_summarise(e, 4, &f);
	assert_int_equal(f.q1, 1);
	assert_int_equal(f.q3, 3);
	int64_t g[] = { 1000, 1004, 1000, 1008 };	/* sorted 1000 1000 1004 1008: q1 at 0.75 -> 1000, q3 at 2.25 -> 1005 */
	stats_summarise(g, 4, &f);
	assert_int_equal(f.q1, 1000);
	assert_int_equal(f.q3, 1005);
}

static void mad_is_the_median_distance(void **state)
{
	(void)state;
	/* Median 6; distances 5 4 1 0 1 4 8 -> sorted 0 1 1 4 4 5 8: MAD 4. */
	int64_t s[] = { 1, 2, 5, 6, 7, 10, 14 };
	struct bench_figure f;
	stats_summarise(s, 7, &f);
	assert_int_equal(f.median, 6);
	assert_int_equal(f.mad, 4);
	assert_int_equal(f.outliers, 0);
	assert_int_equal(f.min, 1);
	assert_int_equal(f.max, 14);
}

/* The disturbances of issue 15: a 7x sample beside 30 tight ones, and one far below. */
static void outliers_stay_out_of_min_and_max(void **state)
{
	(void)state;
	int64_t s[32];
	for (int i = 0; i < 30; i++)
		s[i] = 10000 + (i % 7) * 10;	/* 10.000 .. 10.060 */
	s[30] = 70015;
	s[31] = -399599;
	struct bench_figure f;
	stats_summarise(s, 32, &f);
	assert_int_equal(f.n, 32);
	assert_int_equal(f.outliers, 2);
	assert_int_equal(f.min, 10000);
	assert_int_equal(f.max, 10060);
	assert_int_equal(f.out_lo, -399599);
	assert_int_equal(f.out_hi, 70015);
	/* A steady figure's last-digit jitter is not an outlier (MAD 0: the floor is 1% of the median). */
	int64_t t[] = { 5000, 5000, 5000, 5000, 5040, 5000, 4990 };
	stats_summarise(t, 7, &f);
	assert_int_equal(f.mad, 0);
	assert_int_equal(f.outliers, 0);
	assert_int_equal(f.min, 4990);
	assert_int_equal(f.max, 5040);
	/* Two-valued from a coarse clock: a third of the samples one step up are the resolution, not outliers. */
	int64_t c[] = { 980, 980, 1015, 980, 980, 1015, 980, 980, 1015 };
	stats_summarise(c, 9, &f);
	assert_int_equal(f.mad, 0);
	assert_int_equal(f.outliers, 0);
	assert_int_equal(f.max, 1015);
	/* Counts of zero with one stray event: the floor of one unit keeps it in. */
	int64_t z[] = { 0, 0, 0, 1, 0 };
	stats_summarise(z, 5, &f);
	assert_int_equal(f.outliers, 0);
	assert_int_equal(f.max, 1);
}

/*
 * A stall in one run only: the development host's vector kernels took 24,300 ticks an N run and 48,300 a 2N
 * run, with about 2,450 more in one of them in half the samples.  The tight rule refuses both cases, keeps
 * the clean sample (its overhead 300 ticks, 1.2%), and does not judge runs too short for it.
 */
static void a_stall_in_one_run_is_refused_by_the_tight_rule(void **state)
{
	(void)state;
	assert_int_equal(stats_judge_runs_tight(24300, 48300), STATS_KEPT);
	assert_int_equal(stats_judge_runs_tight(24300 + 2450, 48300), STATS_REJECT_N_2N);	/* in the N run */
	assert_int_equal(stats_judge_runs_tight(24300, 48300 + 2450), STATS_REJECT_N_2N);	/* in the 2N run */
	/* the loose rule keeps both: the 2N run is within twice the N run + 10% */
	assert_int_equal(stats_judge_time(24300 + 2450, 48300), STATS_KEPT);
	assert_int_equal(stats_judge_time(24300, 48300 + 2450), STATS_KEPT);
	/* the bounds: o from -1% to +5% of the N run */
	assert_int_equal(stats_judge_runs_tight(20000, 40200), STATS_KEPT);
	assert_int_equal(stats_judge_runs_tight(20000, 40201), STATS_REJECT_N_2N);
	assert_int_equal(stats_judge_runs_tight(20000, 39000), STATS_KEPT);
	assert_int_equal(stats_judge_runs_tight(20000, 38999), STATS_REJECT_N_2N);
	/* too short to judge finely, and not this rule's to judge */
	assert_int_equal(stats_judge_runs_tight(STATS_N2N_TIGHT_MIN_TICKS - 1, 15000), STATS_KEPT);
	assert_int_equal(stats_judge_runs_tight(20000, 19000), STATS_KEPT);
}

static void impossible_samples_are_named(void **state)
{
	(void)state;
	/* 300 ticks of shared overhead: N run 5300, 2N run 10300. */
	assert_int_equal(stats_judge_time(5300, 10300), STATS_KEPT);
	assert_int_equal(stats_judge_time(5300, 5299), STATS_REJECT_NEGATIVE);
	/* 2N run more than twice the N run (+10%): disturbed. */
	assert_int_equal(stats_judge_time(5300, 5300 * 2 + 530), STATS_KEPT);
	assert_int_equal(stats_judge_time(5300, 5300 * 2 + 531), STATS_REJECT_N_2N);
	assert_int_equal(stats_judge_time(0, 0), STATS_KEPT);
	assert_int_equal(stats_judge_time(0, 1), STATS_REJECT_N_2N);
	/* Readings that wrapped are still ordered by their difference. */
	assert_int_equal(stats_judge_time(UINT64_MAX - 9, 10), STATS_KEPT);
	assert_int_equal(stats_judge_count(7, 7), STATS_KEPT);
	assert_int_equal(stats_judge_count(8, 7), STATS_REJECT_NEGATIVE);
	assert_int_equal(stats_judge_count(0, 1000000), STATS_KEPT);	/* counts have no N/2N bound */
	/* A one-cycle chain with the widest slack (10%): 0.90 is within it, 0.899 is not; no chain, no floor. */
	assert_int_equal(stats_judge_chain(900, 1000, 100), STATS_KEPT);
	assert_int_equal(stats_judge_chain(899, 1000, 100), STATS_REJECT_BELOW_CHAIN);
	assert_int_equal(stats_judge_chain(-5, 0, 100), STATS_KEPT);
	/* The host's 0.978 of issue 24: inside a 10% slack, outside what a 0.3% calibration spread justifies. */
	assert_int_equal(stats_judge_chain(978, 1000, 100), STATS_KEPT);
	assert_int_equal(stats_judge_chain(978, 1000, stats_chain_slack_permille(3)), STATS_REJECT_BELOW_CHAIN);
	assert_int_equal(stats_judge_chain(994, 1000, stats_chain_slack_permille(3)), STATS_KEPT);
	assert_string_equal(stats_fate_name(STATS_REJECT_CLOCK), "clock");
	assert_string_equal(stats_fate_name(STATS_REJECT_BELOW_CHAIN), "below_chain");
	assert_string_equal(stats_fate_name(STATS_REJECT_N_2N), "n_2n");
}

/* The chain floor's slack: twice the calibration's spread, between 0.5% and 10%. */
static void slack_follows_the_calibration_spread(void **state)
{
	(void)state;
	assert_int_equal(stats_chain_slack_permille(0), STATS_CHAIN_SLACK_MIN_PERMILLE);	/* exact cycles */
	assert_int_equal(stats_chain_slack_permille(-1), STATS_CHAIN_SLACK_MIN_PERMILLE);
	assert_int_equal(stats_chain_slack_permille(1), 5);	/* 0.1% spread: the floor, 0.5% */
	assert_int_equal(stats_chain_slack_permille(4), 8);	/* 0.4%: twice, 0.8% */
	assert_int_equal(stats_chain_slack_permille(30), 60);
	assert_int_equal(stats_chain_slack_permille(80), 100);	/* noisy: never above the old 10% */
	/* 0.5% slack on a one-cycle chain: 0.995 kept, 0.994 not. */
	assert_int_equal(stats_judge_chain(995, 1000, 5), STATS_KEPT);
	assert_int_equal(stats_judge_chain(994, 1000, 5), STATS_REJECT_BELOW_CHAIN);
}

/*
 * A sample's own calibration, its N run before the kernel and its 2N run after: a clock that moved
 * between them by more than the reference's measured spread is rejected; a clock that held is kept
 * whichever clock it was.
 */
static void a_sample_whose_clock_moved_is_rejected(void **state)
{
	(void)state;
	static const struct {
		uint64_t cal_n, cal_2n;
		int64_t spread_milli;
		enum stats_fate want;
	} cases[] = {
		/* 50,000 ticks then 100,000: held (any rate: 45,000 then 90,000 too). */
		{ 50000, 100000, 4, STATS_KEPT },
		{ 45000, 90000, 4, STATS_KEPT },
		/* The shared overhead (40 ticks) is no move. */
		{ 50040, 100040, 0, STATS_KEPT },
		/* 0.4% of the 2N run allowed (about 400 ticks here): 390 kept either way, 410 not either way. */
		{ 50000, 100390, 4, STATS_KEPT },
		{ 50000, 99610, 4, STATS_KEPT },
		{ 50000, 100410, 4, STATS_REJECT_CLOCK },
		{ 50000, 99590, 4, STATS_REJECT_CLOCK },
		/* A spread below the floor: the floor (0.1%) decides. */
		{ 50000, 100100, 0, STATS_KEPT },
		{ 50000, 100101, 0, STATS_REJECT_CLOCK },
		/* A host's step from 1.38 to 1.57 cycles per tick inside the window: the 2N run is 12% short. */
		{ 45016, 83334, 6, STATS_REJECT_CLOCK },
		/*
		 * A reference whose spread spans such steps (283 per mille) allows no more than the ceiling
		 * (0.5%, about 500 ticks here): 490 kept, 510 not, and the 12% step not.
		 */
		{ 50000, 100490, 283, STATS_KEPT },
		{ 50000, 99510, 283, STATS_KEPT },
		{ 50000, 100510, 283, STATS_REJECT_CLOCK },
		{ 50000, 99490, 283, STATS_REJECT_CLOCK },
		{ 45016, 83334, 283, STATS_REJECT_CLOCK },
		/* A calibration that saw nothing, or a 2N run no longer than its N run, is not a figure. */
		{ 0, 100000, 4, STATS_REJECT_CLOCK },
		{ 50000, 50000, 4, STATS_REJECT_CLOCK },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(stats_judge_clock(cases[i].cal_n, cases[i].cal_2n, cases[i].spread_milli), cases[i].want);
}

/* A run too long for the window is cut to fit: a multiple of the unroll, at least one. */
static void a_run_is_cut_to_fit_the_window(void **state)
{
	(void)state;
	/* 2000 iterations took 1,200,000 ticks; 100,000 allowed: 166 fit, 160 with an unroll of 16. */
	assert_int_equal(stats_fit_window(2000, 16, 1200000, 100000), 160);
	/* Already within, or no limit: unchanged. */
	assert_int_equal(stats_fit_window(2000, 16, 100000, 100000), 2000);
	assert_int_equal(stats_fit_window(2000, 16, 1200000, 0), 2000);
	/* Even one unroll is too long: one unroll, the least a run can be. */
	assert_int_equal(stats_fit_window(32, 16, 10000000, 1000), 16);
	assert_int_equal(stats_fit_window(32, 0, 10000000, 1000), 1);
}

/* A pilot window's estimate: the differential, but a window whose runs were held back never looks nearly free. */
static void pilot_windows_never_look_free(void **state)
{
	(void)state;
	/* A quiet window: the 2N run is the N run and one more N of the kernel's work. */
	assert_int_equal(stats_pilot_ticks(1000, 1900), 900);
	/* The N run held back (another thread): the differential 10 would extrapolate 2,000 times too far. */
	assert_int_equal(stats_pilot_ticks(1000, 1010), 500);
	/* The 2N run no longer than the N run: half the N run, not 0 (which chose the most iterations allowed). */
	assert_int_equal(stats_pilot_ticks(1000, 1000), 500);
	assert_int_equal(stats_pilot_ticks(1000, 400), 500);
	/* And from there the iterations stay within sight of the target: 256 x 22500 / 500 -> 11520 (x8). */
	bool capped;
	assert_int_equal(
		stats_choose_iterations(256, 8, 256, stats_pilot_ticks(1000, 1000), 22500, 0, 1u << 24, &capped),
		11520);
	assert_false(capped);
}

/* Adaptive iterations: enough for the target, a multiple of the unroll, never below the floor, capped by the budget. */
static void iterations_reach_the_target_within_the_budget(void **state)
{
	(void)state;
	bool capped;
	/* 2000 iterations of a 0.5-cycle kernel took 770 ticks: 20000 ticks need 51949.4 -> 51952 (x8). */
	assert_int_equal(stats_choose_iterations(2000, 8, 2000, 770, 20000, 0, 1u << 24, &capped), 51952);
	assert_false(capped);
	/* A slow kernel already past the target stays at the floor. */
	assert_int_equal(stats_choose_iterations(2000, 8, 2000, 40000, 20000, 0, 1u << 24, &capped), 2000);
	assert_false(capped);
	/* Exactly divisible: no rounding up beyond the unroll. */
	assert_int_equal(stats_choose_iterations(8, 8, 1000, 1000, 20000, 0, 1u << 24, &capped), 20000);
	/* The budget: runs of at most 10000 ticks allow 26000 (26000 x 770/2000 = 10010 > 10000: 25968). */
	assert_int_equal(stats_choose_iterations(2000, 8, 2000, 770, 20000, 10000, 1u << 24, &capped), 25968);
	assert_true(capped);
	/* The hard cap, rounded down to the unroll. */
	assert_int_equal(stats_choose_iterations(2000, 64, 2000, 1, 20000, 0, 100000, &capped), 99968);
	assert_true(capped);
	/* A pilot that saw no ticks: the cap. */
	assert_int_equal(stats_choose_iterations(2000, 8, 2000, 0, 20000, 0, 1u << 20, &capped), 1u << 20);
	assert_true(capped);
	/* A budget below the floor never takes the count under the floor. */
	assert_int_equal(stats_choose_iterations(2000, 8, 2000, 770, 20000, 100, 1u << 24, &capped), 2000);
	assert_true(capped);
}

static void unstable_figures_say_why(void **state)
{
	(void)state;
	struct stats_take t;
	struct bench_figure f;

	stats_take_init(&t, 4, 2);
	stats_take_note(&t, STATS_KEPT);
	stats_take_note(&t, STATS_REJECT_NEGATIVE);
	stats_take_note(&t, STATS_REJECT_DISTURBED);
	f = fig(1000, 1000, 1000, 1);
	stats_judge_figure(&f, &t, true);
	assert_int_equal(f.unstable, STATS_UNSTABLE_BUDGET);
	assert_int_equal(f.rejected, 1);
	assert_string_equal(stats_unstable_name(f.unstable), "budget");

	/* Most of those thrown away disturbed: the figure could not be cleaned, and says so. */
	stats_take_init(&t, 4, 3);
	stats_take_note(&t, STATS_KEPT);
	stats_take_note(&t, STATS_REJECT_DISTURBED);
	stats_take_note(&t, STATS_REJECT_N_2N);
	stats_take_note(&t, STATS_REJECT_DISTURBED);
	f = fig(1000, 1000, 1000, 1);
	stats_judge_figure(&f, &t, true);
	assert_int_equal(f.unstable, STATS_UNSTABLE_DISTURBED);
	assert_int_equal(f.rejected, 1);
	assert_string_equal(stats_unstable_name(f.unstable), "disturbed");

	stats_take_init(&t, 3, 2);
	for (int i = 0; i < 3; i++)
		stats_take_note(&t, STATS_KEPT);
	f = fig(1000, 1000, 1000, 3);
	stats_judge_figure(&f, &t, true);
	assert_int_equal(f.unstable, STATS_STABLE);
	assert_null(stats_unstable_name(f.unstable));
	f.outliers = 1;	/* one of three: more than a quarter */
	stats_judge_figure(&f, &t, true);
	assert_int_equal(f.unstable, STATS_UNSTABLE_OUTLIERS);
	/* IQR 200 of a 1000 median: 20% > 10% for time, not judged for counts. */
	f = fig(900, 1000, 1100, 3);
	f.q1 = 900, f.q3 = 1100;
	stats_judge_figure(&f, &t, true);
	assert_int_equal(f.unstable, STATS_UNSTABLE_SPREAD);
	stats_judge_figure(&f, &t, false);
	assert_int_equal(f.unstable, STATS_STABLE);
	/* Near zero the relative spread means nothing: 40 thousandths of IQR stay under the floor. */
	f = fig(0, 100, 140, 3);
	f.q1 = 80, f.q3 = 120;
	stats_judge_figure(&f, &t, true);
	assert_int_equal(f.unstable, STATS_STABLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_of_odd_count),
		cmocka_unit_test(median_of_even_count_is_floor_of_middle_mean),
		cmocka_unit_test(empty_summary_is_zero),
		cmocka_unit_test(large_sample_sorts),
		cmocka_unit_test(differential_cancels_shared_overhead),
		cmocka_unit_test(a_stall_in_one_run_is_refused_by_the_tight_rule),
		cmocka_unit_test(scale_is_exact_for_large_values),
		cmocka_unit_test(ticks_to_cycles),
		cmocka_unit_test(spread),
		cmocka_unit_test(take_keeps_going_until_enough_good_samples),
		cmocka_unit_test(take_gives_up_after_budget),
		cmocka_unit_test(quartiles_interpolate_between_ranks),
		cmocka_unit_test(mad_is_the_median_distance),
		cmocka_unit_test(outliers_stay_out_of_min_and_max),
		cmocka_unit_test(impossible_samples_are_named),
		cmocka_unit_test(unstable_figures_say_why),
		cmocka_unit_test(slack_follows_the_calibration_spread),
		cmocka_unit_test(a_sample_whose_clock_moved_is_rejected),
		cmocka_unit_test(a_run_is_cut_to_fit_the_window),
		cmocka_unit_test(pilot_windows_never_look_free),
		cmocka_unit_test(iterations_reach_the_target_within_the_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
