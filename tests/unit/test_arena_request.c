/*
 * tests/unit/test_arena_request.c - platform/arena_common.c: the large-arena
 * request both implementations of arena_get_large check the same way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "platform/arena.h"

static void each_page_size_has_its_kind_and_unit(void **state)
{
	(void)state;
	struct arena_large_req r;
	char why[96] = "";

	/* 4 KiB and 2 MiB pages come in ARENA_LARGE_MIN units, 1 GiB pages in whole pages; want rounds up. */
	assert_true(arena_large_request(ARENA_PAGE_4K, 1, &r, why, sizeof(why)));
	assert_int_equal(r.kind, 0);
	assert_int_equal(r.unit, ARENA_LARGE_MIN);
	assert_int_equal(r.size, ARENA_LARGE_MIN);
	assert_true(arena_large_request(ARENA_PAGE_2M, 3ull * ARENA_LARGE_MIN + 1, &r, why, sizeof(why)));
	assert_int_equal(r.kind, 1);
	assert_int_equal(r.size, 4ull * ARENA_LARGE_MIN);
	assert_true(arena_large_request(ARENA_PAGE_1G, ARENA_PAGE_1G, &r, why, sizeof(why)));
	assert_int_equal(r.kind, 2);
	assert_int_equal(r.unit, ARENA_PAGE_1G);
	assert_int_equal(r.size, ARENA_PAGE_1G);
	assert_int_equal(r.kind + 1, ARENA_LARGE_KINDS);
	/* Nothing asked: nothing rounded up. */
	assert_true(arena_large_request(ARENA_PAGE_2M, 0, &r, why, sizeof(why)));
	assert_int_equal(r.size, 0);
	assert_string_equal(why, "");
}

static void another_page_size_is_refused_by_name(void **state)
{
	(void)state;
	struct arena_large_req r;
	char why[96] = "";

	assert_false(arena_large_request(8192, 1u << 20, &r, why, sizeof(why)));
	assert_string_equal(why, "page size 8192 is not 4 KiB, 2 MiB or 1 GiB");
	assert_false(arena_large_request(0, 1u << 20, &r, why, sizeof(why)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_page_size_has_its_kind_and_unit),
		cmocka_unit_test(another_page_size_is_refused_by_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
