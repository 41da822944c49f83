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
#define FIRST 60.0 /* the first pass's length */

/* A table begun at START whose first pass took FIRST seconds, now in its second pass. */
static struct instr_passes in_second_pass(void)
{
	struct instr_passes ps;
	instr_passes_begin(&ps, START);
	assert_true(instr_passes_next(&ps, START + FIRST));
	assert_int_equal(ps.pass, 1);
	return ps;
}

static void the_first_pass_defers_whatever_its_length(void **state)
{
	(void)state;
	struct instr_passes ps;
	instr_passes_begin(&ps, START);
	assert_true(instr_passes_defer(&ps, START));
	assert_true(instr_passes_defer(&ps, START + 1e6));
	assert_true(instr_passes_measure_again(&ps, START + 1e6));
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
		cmocka_unit_test(the_first_pass_defers_whatever_its_length),
		cmocka_unit_test(a_later_pass_defers_and_measures_again_until_the_share_is_spent),
		cmocka_unit_test(the_last_pass_writes_all_it_measures_and_no_pass_follows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
