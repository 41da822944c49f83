/* platform/activity.c: the current activity and a fault declared on purpose. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform/activity.h"
#include "platform/trap.h"

static void set_returns_the_previous(void **state)
{
	(void)state;
	activity_set("one");
	assert_string_equal(activity_set("two"), "one");
	assert_string_equal(activity_get(), "two");
	activity_set(NULL);
	assert_string_equal(activity_get(), "?");
}

static void expected_fault_is_for_its_vector_only(void **state)
{
	(void)state;
	assert_null(activity_fault_expected(VEC_UD));
	activity_expect_fault(VEC_UD, "on purpose");
	assert_string_equal(activity_fault_expected(VEC_UD), "on purpose");
	assert_null(activity_fault_expected(VEC_UD + 1));	/* any other fault stays an error */
	assert_null(activity_fault_expected(-1));
	activity_expect_fault(-1, NULL);
	assert_null(activity_fault_expected(VEC_UD));
	activity_expect_fault(VEC_UD, NULL);			/* no reason: nothing declared */
	assert_null(activity_fault_expected(VEC_UD));
}

/* A declared hang is read once, by the pass that timed out, and not by the next one. */
static void expected_hang_is_read_once(void **state)
{
	(void)state;
	assert_null(activity_hang_expected());
	activity_expect_hang("spins on purpose");
	assert_string_equal(activity_hang_expected(), "spins on purpose");
	assert_null(activity_hang_expected());
	activity_expect_hang("again");
	activity_expect_hang(NULL);
	assert_null(activity_hang_expected());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(set_returns_the_previous),
		cmocka_unit_test(expected_fault_is_for_its_vector_only),
		cmocka_unit_test(expected_hang_is_read_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
