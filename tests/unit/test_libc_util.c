/* tests/unit/test_libc_util.c - lib/libc_util.c's locale-free comparisons. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/libc.h"

static void a_counted_word_equals_a_string_whatever_its_case(void **state)
{
	(void)state;
	/* The config's values, HTTP's header names and the upload's words are counted, not NUL-terminated. */
	assert_true(lc_eq_ci_n("Content-Length: 12", 14, "content-length"));
	assert_true(lc_eq_ci_n("LIVE,http", 4, "live"));
	assert_true(lc_eq_ci_n("", 0, ""));
	assert_false(lc_eq_ci_n("liv", 3, "live"));		/* shorter */
	assert_false(lc_eq_ci_n("lives", 5, "live"));		/* longer */
	assert_false(lc_eq_ci_n("life", 4, "live"));
	/* Only ASCII letters fold: '@' is not '`' though they differ by 32 as 'A' and 'a' do. */
	assert_false(lc_eq_ci_n("@", 1, "`"));
	assert_int_equal(lc_strcasecmp("Skylake", "SKYLAKE"), 0);
	assert_true(lc_strcasecmp("a", "B") < 0);
}

static void numbers_sort_in_place(void **state)
{
	(void)state;
	uint64_t v[] = { 5, UINT64_MAX, 0, 5, 2 }, want[] = { 0, 2, 5, 5, UINT64_MAX };
	lc_sort_u64(v, 5);
	assert_memory_equal(v, want, sizeof(v));
	lc_sort_u64(v, 0);	/* nothing to do */
	lc_sort_u64(v, 1);
	assert_memory_equal(v, want, sizeof(v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_counted_word_equals_a_string_whatever_its_case),
		cmocka_unit_test(numbers_sort_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
