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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_first_pass_measures_every_form_and_defers_until_the_ceiling),
		cmocka_unit_test(a_long_first_pass_leaves_the_later_passes_the_ceiling_only),
		cmocka_unit_test(a_budget_given_replaces_share_and_ceiling),
		cmocka_unit_test(a_budget_of_zero_is_one_pass_with_every_form_written),
		cmocka_unit_test(a_later_pass_defers_and_measures_again_until_the_share_is_spent),
		cmocka_unit_test(the_last_pass_writes_all_it_measures_and_no_pass_follows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
