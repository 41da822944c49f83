/*
 * When pmuboot-host measures an instruction form again and when it writes what it has (bench/instr_passes.h):
 * times are the tests' own, no clock is read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/instr_passes.h"

#define START 100.0
#define FIRST 60.0   /* the first pass's length */
#define DEFAULT -1.0 /* no budget given: the share and the ceiling */

/* A table begun at START with the budget given whose first pass took `first` seconds, now in its second pass. */
static struct instr_passes second_pass_after(double budget, double first)
{
	struct instr_passes ps;
	instr_passes_begin(&ps, START, budget);
	assert_true(instr_passes_next(&ps, START + first));
	assert_int_equal(ps.pass, 1);
	return ps;
}

static struct instr_passes in_second_pass(void)
{
	struct instr_passes ps;
	instr_passes_begin(&ps, START, DEFAULT);
	assert_true(instr_passes_next(&ps, START + FIRST));
	assert_int_equal(ps.pass, 1);
	return ps;
}

static void the_first_pass_measures_every_form_and_defers_until_the_ceiling(void **state)
{
	(void)state;
	struct instr_passes ps;
	instr_passes_begin(&ps, START, DEFAULT);
	assert_true(instr_passes_defer(&ps, START));
	assert_true(instr_passes_defer(&ps, START + INSTR_PASSES_CEILING_S - 0.5));
	/* Past the ceiling nothing would measure a deferred form again: it is written now. */
	assert_false(instr_passes_defer(&ps, START + INSTR_PASSES_CEILING_S));
	assert_true(instr_passes_measure_again(&ps, START + 1e6));
}

static void a_long_first_pass_leaves_the_later_passes_the_ceiling_only(void **state)
{
	(void)state;
	/* A first pass of 600 s: twice it would be 1,200 s, past the ceiling. */
	struct instr_passes ps = second_pass_after(DEFAULT, 600.0);
	assert_true(INSTR_LATER_PASSES_SHARE * 600.0 > INSTR_PASSES_CEILING_S);
	assert_true(instr_passes_measure_again(&ps, START + INSTR_PASSES_CEILING_S - 0.5));
	assert_false(instr_passes_measure_again(&ps, START + INSTR_PASSES_CEILING_S));
	assert_false(instr_passes_defer(&ps, START + INSTR_PASSES_CEILING_S));
}

static void a_budget_given_replaces_share_and_ceiling(void **state)
{
	(void)state;
	/* Longer than both: measured again until the user's time, past the ceiling and twice the first pass. */
	double budget = 2.0 * INSTR_PASSES_CEILING_S;
	struct instr_passes ps = second_pass_after(budget, 600.0);
	assert_true(instr_passes_measure_again(&ps, START + budget - 0.5));
	assert_true(instr_passes_defer(&ps, START + budget - 0.5));
	assert_false(instr_passes_measure_again(&ps, START + budget));
	/* Shorter than twice the first pass: it ends there. */
	ps = second_pass_after(90.0, FIRST);
	assert_true(instr_passes_measure_again(&ps, START + 89.5));
	assert_false(instr_passes_measure_again(&ps, START + 90.0));
}

static void a_budget_of_zero_is_one_pass_with_every_form_written(void **state)
{
	(void)state;
	struct instr_passes ps;
	instr_passes_begin(&ps, START, 0.0);
	assert_false(instr_passes_defer(&ps, START));
	assert_true(instr_passes_measure_again(&ps, START + 1.0)); /* the first pass measures all */
}

static void a_later_pass_defers_and_measures_again_until_the_share_is_spent(void **state)
{
	(void)state;
	struct instr_passes ps = in_second_pass();
	double up = START + INSTR_LATER_PASSES_SHARE * FIRST;
	assert_true(instr_passes_measure_again(&ps, up - 0.5));
	assert_true(instr_passes_defer(&ps, up - 0.5));
	/* Time is up: nothing is measured again, and what is measured now is written. */
	assert_false(instr_passes_measure_again(&ps, up));
	assert_false(instr_passes_defer(&ps, up + 0.5));
}

static void the_last_pass_writes_all_it_measures_and_no_pass_follows(void **state)
{
	(void)state;
	struct instr_passes ps = in_second_pass();
	unsigned passes = 2;
	while (instr_passes_next(&ps, START + FIRST + passes))
		passes++;
	assert_int_equal(passes, INSTR_PASSES);
	assert_int_equal(ps.pass, INSTR_PASSES - 1);
	assert_false(instr_passes_defer(&ps, START + FIRST + 1));
	assert_true(instr_passes_measure_again(&ps, START + FIRST + 1));
	/* The first pass's length is kept from the first pass, not from a later one. */
	assert_true(ps.first_pass == FIRST);
}

/*
 * Results of a form's kernels: a figure taken alone, one taken beside another thread, a thin one (fewer
 * samples than asked when the drop budget ran out), one that kept none.
 */
static struct instr_result alone(int64_t milli)
{
	return (struct instr_result){ .assembled = true, .measured = true, .per_instance = milli };
}
static struct instr_result thin(int64_t milli)
{
	struct instr_result r = alone(milli);
	r.thin = true;
	r.unstable = "budget";
	return r;
}
static struct instr_result beside(int64_t milli)
{
	struct instr_result r = alone(milli);
	r.unstable = "contended";
	return r;
}
static struct instr_result none(void)
{
	return (struct instr_result){ .assembled = true,
				      .unkept = true,
				      .why = "not measured: no sample could be kept" };
}

static void a_contended_or_thin_figure_or_a_kernel_that_kept_nothing_is_measured_again(void **state)
{
	(void)state;
	struct instr_result r[3] = { alone(1000), alone(250), alone(330) };
	assert_false(instr_passes_again(r, 3));
	r[1] = beside(310);
	assert_true(instr_passes_again(r, 3));
	r[1] = alone(250);
	r[2] = none();
	assert_true(instr_passes_again(r, 3));
	/* A thin figure is drawn again. */
	r[2] = thin(310);
	assert_true(instr_passes_again(r, 3));
	/* Another unstable reason, or a kernel never run (not assembled), is no reason to draw again. */
	r[2] = alone(330);
	r[2].unstable = "outliers";
	r[0] = (struct instr_result){ .why = "not assembled: no such instruction in this assembler" };
	assert_false(instr_passes_again(r, 3));
}

/* Thin: fewer samples than asked because the drop budget ran out first. */
static void a_figure_is_thin_when_the_budget_left_it_short(void **state)
{
	(void)state;
	struct bench_figure f = { .n = 1, .unstable = STATS_UNSTABLE_BUDGET };
	assert_true(instr_figure_thin(&f, 7));
	f.n = 6;
	assert_true(instr_figure_thin(&f, 7));
	f.unstable = STATS_UNSTABLE_CONTENDED;	/* taken without the probe, the budget spent all the same */
	assert_true(instr_figure_thin(&f, 7));
	f.n = 7;
	assert_false(instr_figure_thin(&f, 7));
	/* One sample asked for and kept (reps 1), or two of two. */
	f = (struct bench_figure){ .n = 1, .unstable = STATS_STABLE };
	assert_false(instr_figure_thin(&f, 1));
	f.n = 2;
	assert_false(instr_figure_thin(&f, 2));
	f.n = 1;
	assert_true(instr_figure_thin(&f, 2));
}

/* A later pass takes the forms with a kernel without a figure first, then thin, then contended ones. */
static void need_is_the_worst_kernels_rank(void **state)
{
	(void)state;
	struct instr_result r[3] = { alone(1000), alone(250), alone(330) };
	assert_int_equal(instr_passes_need(r, 3), INSTR_RANK_ALONE);
	r[1] = beside(310);
	enum instr_rank contended = instr_passes_need(r, 3);
	r[2] = thin(320);
	enum instr_rank thinner = instr_passes_need(r, 3);
	r[0] = none();
	enum instr_rank gap = instr_passes_need(r, 3);
	assert_true(gap < thinner && thinner < contended && contended < INSTR_RANK_ALONE);
	/* A kernel never run (not assembled) is no need: a later draw would not run it either. */
	r[0] = (struct instr_result){ .why = "not assembled: no such instruction in this assembler" };
	assert_int_equal(instr_passes_need(r, 3), thinner);
	assert_int_equal(instr_passes_need(r, 1), INSTR_RANK_ALONE);
}

static void a_later_pass_keeps_each_kernels_better_result(void **state)
{
	(void)state;
	static const uint8_t later_bytes[4];
	struct instr_result before[4] = { alone(1000), beside(600), none(), beside(900) };
	struct instr_result now[4] = { none(), alone(500), beside(320), beside(950) };
	for (size_t j = 0; j < 4; j++)
		now[j].body = later_bytes, now[j].body_len = sizeof(later_bytes);
	instr_passes_keep_better(now, before, 4);
	/* The latency taken alone before stays; the throughput now taken alone, and the one now taken at all,
	 * replace theirs; of two taken beside another thread, the later stands. */
	assert_true(now[0].measured && now[0].per_instance == 1000 && !now[0].unkept);
	assert_true(now[1].per_instance == 500 && !now[1].unstable);
	assert_true(now[2].per_instance == 320);
	assert_int_equal(now[3].per_instance, 950);
	for (size_t j = 0; j < 4; j++)
		assert_ptr_equal(now[j].body, later_bytes); /* the bytes are the later pass's */
	assert_false(instr_passes_again(now, 2));	    /* the first two now taken alone */
	assert_true(instr_passes_again(now, 3));	    /* the third still only beside another thread */
	/* A thin figure gives way to one taken beside another thread, and wins over none. */
	struct instr_result thin_before[3] = { thin(800), thin(700), beside(600) };
	struct instr_result thin_now[3] = { beside(900), none(), thin(500) };
	instr_passes_keep_better(thin_now, thin_before, 3);
	assert_int_equal(thin_now[0].per_instance, 900);
	assert_true(thin_now[1].measured && thin_now[1].per_instance == 700);
	assert_int_equal(thin_now[2].per_instance, 600);
	/* The first pass has no earlier results. */
	instr_passes_keep_better(now, NULL, 4);
	assert_int_equal(now[0].per_instance, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_first_pass_measures_every_form_and_defers_until_the_ceiling),
		cmocka_unit_test(a_long_first_pass_leaves_the_later_passes_the_ceiling_only),
		cmocka_unit_test(a_budget_given_replaces_share_and_ceiling),
		cmocka_unit_test(a_budget_of_zero_is_one_pass_with_every_form_written),
		cmocka_unit_test(a_later_pass_defers_and_measures_again_until_the_share_is_spent),
		cmocka_unit_test(the_last_pass_writes_all_it_measures_and_no_pass_follows),
		cmocka_unit_test(a_contended_or_thin_figure_or_a_kernel_that_kept_nothing_is_measured_again),
		cmocka_unit_test(a_figure_is_thin_when_the_budget_left_it_short),
		cmocka_unit_test(need_is_the_worst_kernels_rank),
		cmocka_unit_test(a_later_pass_keeps_each_kernels_better_result),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
