/* lib/decimal.c (the one decimal reader) and lib/muldiv.c (the one 128-bit multiply-divide). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "lib/decimal.h"
#include "lib/muldiv.h"

static enum dec_result parse(const char *s, uint64_t max, uint64_t *v, size_t *end)
{
	return dec_parse(s, strlen(s), max, v, end);
}

static void reads_digits_and_says_where_it_stopped(void **state)
{
	(void)state;
	uint64_t v = 7;
	size_t end = 99;
	assert_int_equal(parse("8080/x", UINT64_MAX, &v, &end), DEC_OK);
	assert_int_equal(v, 8080);
	assert_int_equal(end, 4);
	assert_int_equal(parse("0", 0, &v, &end), DEC_OK);
	assert_int_equal(v, 0);
	assert_int_equal(end, 1);
	assert_int_equal(parse("18446744073709551615", UINT64_MAX, &v, &end), DEC_OK);
	assert_true(v == UINT64_MAX);
	assert_int_equal(end, 20);

	/* No digit: nothing read, the value untouched. */
	v = 7;
	assert_int_equal(parse("x1", UINT64_MAX, &v, &end), DEC_NO_DIGIT);
	assert_int_equal(end, 0);
	assert_int_equal(v, 7);
	assert_int_equal(parse("", UINT64_MAX, &v, &end), DEC_NO_DIGIT);
	assert_int_equal(parse("-1", UINT64_MAX, &v, &end), DEC_NO_DIGIT);

	/* len bounds it: the digits after len are not read. */
	assert_int_equal(dec_parse("12345", 2, UINT64_MAX, &v, &end), DEC_OK);
	assert_int_equal(v, 12);
	assert_int_equal(end, 2);
}

static void never_wraps_and_names_the_digit_too_many(void **state)
{
	(void)state;
	uint64_t v = 7;
	size_t end = 99;
	/* One past 2^64 - 1: the last digit takes it over. */
	assert_int_equal(parse("18446744073709551616", UINT64_MAX, &v, &end), DEC_TOO_BIG);
	assert_int_equal(end, 19);
	assert_int_equal(v, 7);
	assert_int_equal(parse("99999999999999999999999", UINT64_MAX, &v, &end), DEC_TOO_BIG);
	assert_int_equal(end, 19);
	/* A small limit: 65536 fails at its fifth digit, 655350 at its sixth. */
	assert_int_equal(parse("65535", 65535, &v, &end), DEC_OK);
	assert_int_equal(parse("65536", 65535, &v, &end), DEC_TOO_BIG);
	assert_int_equal(end, 4);
	assert_int_equal(parse("655350", 65535, &v, &end), DEC_TOO_BIG);
	assert_int_equal(end, 5);
	assert_int_equal(parse("256", 255, &v, &end), DEC_TOO_BIG);
	assert_int_equal(end, 2);
	/* A limit below one digit: the first digit alone can pass it. */
	assert_int_equal(parse("5", 3, &v, &end), DEC_TOO_BIG);
	assert_int_equal(end, 0);
	assert_int_equal(parse("3", 3, &v, &end), DEC_OK);
	assert_int_equal(parse("00", 0, &v, &end), DEC_OK);
	assert_int_equal(v, 0);
	assert_int_equal(parse("01", 0, &v, &end), DEC_TOO_BIG);
	assert_int_equal(end, 1);
}

static void whole_means_every_character(void **state)
{
	(void)state;
	uint64_t v = 0;
	assert_true(dec_whole("600", 3, 600, &v));
	assert_int_equal(v, 600);
	assert_false(dec_whole("601", 3, 600, &v));
	assert_false(dec_whole("5s", 2, 600, &v));
	assert_false(dec_whole("", 0, 600, &v));
	assert_false(dec_whole(" 5", 2, 600, &v));
}

static void muldiv_is_exact_beyond_64_bits(void **state)
{
	(void)state;
	assert_true(muldiv64(6, 7, 3) == 14);
	assert_true(muldiv64(7, 1, 2) == 3);	/* rounds down */
	assert_true(muldiv64(5, 5, 0) == 0);
	/* The product needs 128 bits; the quotient fits. */
	uint64_t a = 0xfedcba9876543210ull, b = 0x123456789abcdefull, c = 0x0fffffffffffffffull;
	assert_true(muldiv64(a, b, c) == (uint64_t)((unsigned __int128)a * b / c));
	assert_true(muldiv64(UINT64_MAX, UINT64_MAX, UINT64_MAX) == UINT64_MAX);
	assert_true(muldiv64(UINT64_MAX, UINT64_MAX, 1) == UINT64_MAX);	/* saturates */
	assert_true(muldiv64(1ull << 63, 4, 2) == UINT64_MAX);		/* 2^64: one past */
	assert_true(muldiv64(1ull << 63, 2, 2) == 1ull << 63);
}

static void muldiv_round_takes_the_nearest(void **state)
{
	(void)state;
	assert_true(muldiv64_round(7, 1, 2) == 4);	/* 3.5: halves up */
	assert_true(muldiv64_round(10, 1, 3) == 3);	/* 3.33 */
	assert_true(muldiv64_round(11, 1, 3) == 4);	/* 3.67 */
	assert_true(muldiv64_round(5, 5, 0) == 0);
	uint64_t a = 0xfedcba9876543210ull, b = 1000000007ull, c = 999999937ull;
	unsigned __int128 p = (unsigned __int128)a * b;
	assert_true(muldiv64_round(a, b, c) == (uint64_t)((p + c / 2) / c));
	assert_true(muldiv64_round(UINT64_MAX, 2, 2) == UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_digits_and_says_where_it_stopped),
		cmocka_unit_test(never_wraps_and_names_the_digit_too_many),
		cmocka_unit_test(whole_means_every_character),
		cmocka_unit_test(muldiv_is_exact_beyond_64_bits),
		cmocka_unit_test(muldiv_round_takes_the_nearest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
