/* bench/stats: min/median/max, the differential, scaling without overflow, dropped-sample accounting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/stats.h"

static void summary_of_odd_count(void **state)
{
	(void)state;
	int64_t s[] = { 50, -3, 7, 1000, 7 };
	struct bench_figure f;
	stats_summarise(s, 5, &f);
	assert_int_equal(f.n, 5);
	assert_int_equal(f.min, -3);
	assert_int_equal(f.median, 7);
	assert_int_equal(f.max, 1000);
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
	struct bench_figure f = { 1, 2, 3, 4 };
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
	struct bench_figure f = { 3800, 3840, 3900, 11 };
	stats_figure_scale(&f, 1302000, 1000000);
	assert_int_equal(f.min, 4948);
	assert_int_equal(f.median, 5000);
	assert_int_equal(f.max, 5078);
	assert_int_equal(f.n, 11);
}

static void spread(void **state)
{
	(void)state;
	struct bench_figure f = { 4900, 5000, 5100, 11 };
	assert_int_equal(stats_spread_milli(&f), 40);	/* 200 / 5000 = 4.0% */
	struct bench_figure z = { -10, 0, 10, 3 };
	assert_int_equal(stats_spread_milli(&z), 0);
}

static void take_keeps_going_until_enough_good_samples(void **state)
{
	(void)state;
	struct stats_take t;
	stats_take_init(&t, 3, 5);
	assert_true(stats_take_note(&t, false));
	assert_true(stats_take_note(&t, true));
	assert_true(stats_take_note(&t, false));
	assert_false(stats_take_note(&t, false));
	assert_int_equal(t.good, 3);
	assert_int_equal(t.dropped, 1);
	assert_false(stats_take_exhausted(&t));
}

static void take_gives_up_after_budget(void **state)
{
	(void)state;
	struct stats_take t;
	stats_take_init(&t, 3, 2);
	assert_true(stats_take_note(&t, false));
	assert_true(stats_take_note(&t, true));
	assert_false(stats_take_note(&t, true));	/* second drop: budget spent */
	assert_int_equal(t.good, 1);
	assert_int_equal(t.dropped, 2);
	assert_true(stats_take_exhausted(&t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_of_odd_count),
		cmocka_unit_test(median_of_even_count_is_floor_of_middle_mean),
		cmocka_unit_test(empty_summary_is_zero),
		cmocka_unit_test(large_sample_sorts),
		cmocka_unit_test(differential_cancels_shared_overhead),
		cmocka_unit_test(scale_is_exact_for_large_values),
		cmocka_unit_test(ticks_to_cycles),
		cmocka_unit_test(spread),
		cmocka_unit_test(take_keeps_going_until_enough_good_samples),
		cmocka_unit_test(take_gives_up_after_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
