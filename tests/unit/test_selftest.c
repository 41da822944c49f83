/* The self-test list option and the `selftest` record (platform/selftest_common.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tests/fake/capture.h"
#include "platform/selftest.h"

static void parse_lists(void **state)
{
	(void)state;
	unsigned m;
	char why[160];
	assert_true(selftest_parse("", &m, why, sizeof(why)));
	assert_int_equal(m, 0);
	assert_true(selftest_parse("fixup,nmi", &m, why, sizeof(why)));
	assert_int_equal(m, ST_FIXUP | ST_NMI);
	assert_true(selftest_parse("all", &m, why, sizeof(why)));
	assert_int_equal(m, ST_ALL);
	assert_true(m & ST_FAULT);
	assert_true(selftest_parse("paging,,window", &m, why, sizeof(why)));
	assert_int_equal(m, ST_PAGING | ST_WINDOW);
	assert_false(selftest_parse("fixup,nmis", &m, why, sizeof(why)));
	assert_non_null(strstr(why, "'nmis'"));
	assert_string_equal(selftest_name(4), "fault");
}

static void record_says_what_passed_and_failed(void **state)
{
	(void)state;
	struct capture cap;
	static struct st s;
	capture_start(&cap);
	st_begin(&s, "fixup");
	st_check(&s, "rdmsr_bogus", true, 13, "returned %d", 13);
	st_check(&s, "repeat", false, 999, "%u of %u", 999, 1000);
	assert_false(st_end(&s));
	const char *r = capture_find(&cap, "selftest");
	assert_non_null(r);
	assert_non_null(strstr(r, "\"test\":\"fixup\""));
	assert_non_null(strstr(r, "{\"check\":\"rdmsr_bogus\",\"ok\":true,\"value\":13,\"detail\":\"returned 13\"}"));
	assert_non_null(strstr(r, "\"status\":\"fail\",\"passed\":1,\"failed\":1"));
	capture_free(&cap);
}

static void host_skips_each_requested_test(void **state)
{
	(void)state;
	struct capture cap;
	capture_start(&cap);
	selftest_skip("nmi,paging", "image only");
	assert_int_equal(capture_record_count(&cap), 2);
	assert_non_null(strstr(capture_record(&cap, 0), "\"test\":\"nmi\",\"status\":\"skipped\""));
	assert_non_null(strstr(capture_record(&cap, 1), "\"test\":\"paging\""));
	selftest_skip("", "image only");
	assert_int_equal(capture_record_count(&cap), 2);
	capture_free(&cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_lists),
		cmocka_unit_test(record_says_what_passed_and_failed),
		cmocka_unit_test(host_skips_each_requested_test),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
