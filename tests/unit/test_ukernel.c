/* bench/ukernel: the kernel file format round-trips, and every malformed file is refused with its reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/ukernel.h"
#include "lib/crc32.h"

/* add rax, rcx (48 01 c8), with init xor eax, eax / mov ecx, 1. */
static const uint8_t ADD_BODY[] = { 0x48, 0x01, 0xc8 };
static const uint8_t ADD_INIT[] = { 0x31, 0xc0, 0xb9, 0x01, 0x00, 0x00, 0x00 };

static struct ukernel k, back;
static uint8_t file[UK_FILE_MAX + 64];
static char why[256];

static size_t make_add(const char *control, uint16_t unroll)
{
	memset(&k, 0, sizeof(k));
	strcpy(k.name, "add_chain");
	strcpy(k.control, control);
	k.unroll = unroll;
	memcpy(k.init, ADD_INIT, sizeof(ADD_INIT));
	k.init_len = sizeof(ADD_INIT);
	memcpy(k.body, ADD_BODY, sizeof(ADD_BODY));
	k.body_len = sizeof(ADD_BODY);
	size_t n = ukernel_encode(&k, file, sizeof(file), why, sizeof(why));
	assert_true(n > 0);
	return n;
}

/* Rewrite the CRC after editing the bytes, so only the edit is wrong. */
static void reseal(size_t n)
{
	uint32_t c = crc32_update(CRC32_INIT, file, n - 4);
	for (int i = 0; i < 4; i++)
		file[n - 4 + i] = (uint8_t)(c >> (8 * i));
}

static void refused(size_t n, const char *want)
{
	why[0] = 0;
	assert_false(ukernel_parse(file, n, &back, why, sizeof(why)));
	if (!strstr(why, want))
		fail_msg("reason '%s' does not mention '%s'", why, want);
}

static void round_trip(void **state)
{
	(void)state;
	size_t n = make_add("ref.add_chain", 16);
	assert_int_equal(n, 16 + 9 + 13 + 7 + 3 + 4);
	assert_memory_equal(file, "PMUK\x01\x00\x09\x0d\x10\x00\x07\x00\x03\x00\x00\x00", 16);
	assert_true(ukernel_parse(file, n, &back, why, sizeof(why)));
	assert_string_equal(back.name, "add_chain");
	assert_string_equal(back.control, "ref.add_chain");
	assert_int_equal(back.unroll, 16);
	assert_int_equal(ukernel_unroll(&back), 16);
	assert_int_equal(back.init_len, sizeof(ADD_INIT));
	assert_memory_equal(back.init, ADD_INIT, sizeof(ADD_INIT));
	assert_int_equal(back.body_len, sizeof(ADD_BODY));
	assert_memory_equal(back.body, ADD_BODY, sizeof(ADD_BODY));
}

static void minimal_file_without_init_or_control(void **state)
{
	(void)state;
	memset(&k, 0, sizeof(k));
	strcpy(k.name, "x");
	k.body[0] = 0x90;
	k.body_len = 1;
	size_t n = ukernel_encode(&k, file, sizeof(file), why, sizeof(why));
	assert_int_equal(n, 22);
	assert_true(ukernel_parse(file, n, &back, why, sizeof(why)));
	assert_string_equal(back.control, "");
	assert_int_equal(back.init_len, 0);
	assert_int_equal(ukernel_unroll(&back), UK_UNROLL_DEFAULT);
}

static void bad_magic_version_flags(void **state)
{
	(void)state;
	size_t n = make_add("", 0);
	file[0] = 'X';
	refused(n, "magic");
	n = make_add("", 0);
	file[4] = 2;
	reseal(n);
	refused(n, "format version 2");
	n = make_add("", 0);
	file[5] = 1;
	reseal(n);
	refused(n, "reserved");
	n = make_add("", 0);
	file[15] = 0x80;
	reseal(n);
	refused(n, "byte 14");
}

static void truncated_trailing_and_damaged(void **state)
{
	(void)state;
	size_t n = make_add("", 0);
	refused(n - 1, "truncated");
	file[n] = 0;
	refused(n + 1, "trailing");
	refused(10, "too short");
	refused(0, "too short");
	refused(UK_FILE_MAX + 1, "too large");
	n = make_add("", 0);
	file[20] ^= 0x01;	/* a name byte: the CRC catches it before the name check */
	refused(n, "CRC-32");
	n = make_add("", 0);
	file[n - 1] ^= 0xff;
	refused(n, "damaged");
}

static void lengths_out_of_range(void **state)
{
	(void)state;
	size_t n = make_add("", 0);
	file[6] = 0;	/* name length */
	reseal(n);
	refused(n, "name length 0");
	n = make_add("", 0);
	file[7] = UK_NAME_MAX + 1;
	reseal(n);
	refused(n, "control length");
	n = make_add("", 0);
	file[12] = 0;	/* body length 0 */
	file[13] = 0;
	reseal(n);
	refused(n, "body is empty");
	n = make_add("", 0);
	file[13] = 0x10;	/* body 4099 bytes */
	reseal(n);
	refused(n, "at most 1024");
	n = make_add("", 0);
	file[8] = 0x01;	/* unroll 257 */
	file[9] = 0x01;
	reseal(n);
	refused(n, "unroll 257");
}

static void unrolled_size_bounded(void **state)
{
	(void)state;
	memset(&k, 0, sizeof(k));
	strcpy(k.name, "big");
	k.body_len = UK_BODY_MAX;
	k.unroll = 64;	/* 64 KiB: the limit exactly */
	assert_true(ukernel_encode(&k, file, sizeof(file), why, sizeof(why)) > 0);
	k.unroll = 65;
	assert_int_equal(ukernel_encode(&k, file, sizeof(file), why, sizeof(why)), 0);
	assert_non_null(strstr(why, "65 copies"));
}

static void names_checked(void **state)
{
	(void)state;
	assert_true(ukernel_name_ok("div_lat2", 8));
	assert_false(ukernel_name_ok("2div", 4));
	assert_false(ukernel_name_ok("Div", 3));
	assert_false(ukernel_name_ok("a-b", 3));
	assert_false(ukernel_name_ok("", 0));
	assert_false(ukernel_name_ok("abcdefghijabcdefghijabcdefghijab", 32));
	assert_true(ukernel_control_ok("store_forward.forward", 21));
	assert_false(ukernel_control_ok("a.b.c", 5));
	assert_false(ukernel_control_ok(".b", 2));
	assert_false(ukernel_control_ok("a.", 2));

	size_t n = make_add("", 0);
	file[16] = 'A';	/* name "Add_chain" */
	reseal(n);
	refused(n, "name is not");
	n = make_add("x.y", 0);
	file[16 + 9] = '-';
	reseal(n);
	refused(n, "control is neither");
	memset(&k, 0, sizeof(k));
	strcpy(k.name, "Bad");
	k.body_len = 1;
	assert_int_equal(ukernel_encode(&k, file, sizeof(file), why, sizeof(why)), 0);
	assert_non_null(strstr(why, "Bad"));
}

static void hex_bodies(void **state)
{
	(void)state;
	assert_true(ukernel_from_hex("add", 3, "4801C8", 6, &k, why, sizeof(why)));
	assert_string_equal(k.name, "add");
	assert_int_equal(k.body_len, 3);
	assert_memory_equal(k.body, ADD_BODY, 3);
	assert_int_equal(k.init_len, 0);
	assert_true(ukernel_from_hex("add", 3, "0x4801c8", 8, &k, why, sizeof(why)));
	assert_int_equal(k.body_len, 3);
	assert_false(ukernel_from_hex("add", 3, "4801c", 5, &k, why, sizeof(why)));
	assert_non_null(strstr(why, "whole number"));
	assert_false(ukernel_from_hex("add", 3, "48g1", 4, &k, why, sizeof(why)));
	assert_non_null(strstr(why, "character 3 ('g')"));
	assert_false(ukernel_from_hex("add", 3, "", 0, &k, why, sizeof(why)));
	assert_false(ukernel_from_hex("Add", 3, "90", 2, &k, why, sizeof(why)));
	assert_non_null(strstr(why, "kernel name"));
	static char big[2 * UK_BODY_MAX + 3];
	memset(big, '9', sizeof(big) - 1);
	assert_false(ukernel_from_hex("big", 3, big, 2 * UK_BODY_MAX + 2, &k, why, sizeof(why)));
	assert_non_null(strstr(why, "1025 bytes"));
	assert_true(ukernel_from_hex("big", 3, big, 2 * UK_BODY_MAX, &k, why, sizeof(why)));
}

static void hex_out(void **state)
{
	(void)state;
	char s[8];
	ukernel_hex(ADD_BODY, 3, s, sizeof(s));
	assert_string_equal(s, "4801c8");
	ukernel_hex(ADD_BODY, 3, s, 5);	/* cut to whole bytes */
	assert_string_equal(s, "4801");
}

static char bad_log[1024];
static void log_bad(const char *where, const char *why, void *ctx)
{
	(void)ctx;
	size_t n = strlen(bad_log);
	snprintf(bad_log + n, sizeof(bad_log) - n, "[%s: %s]", where, why);
}

static void set_collects_and_reports(void **state)
{
	(void)state;
	static uint8_t a[UK_FILE_MAX], b[UK_FILE_MAX];
	size_t na = make_add("", 0);
	memcpy(a, file, na);
	size_t nb = make_add("", 0);	/* the same name again */
	memcpy(b, file, nb);
	b[nb - 1] ^= 1;
	struct ukernel_file files[] = {
		{ "\\pmuboot\\kernels\\a.pmuk", a, na, NULL },
		{ "\\pmuboot\\kernels\\dup.pmuk", a, na, NULL },
		{ "\\pmuboot\\kernels\\bad.pmuk", b, nb, NULL },
		{ "\\pmuboot\\kernels\\big.pmuk", NULL, 0, "larger than 2130 bytes" },
	};
	struct ukernel_hex hex[] = { { "nop", "90" }, { "odd", "909" } };
	static struct ukernel_set set;
	bad_log[0] = 0;
	ukernel_set_build(&set, files, 4, hex, 2, log_bad, NULL);
	assert_int_equal(set.n, 2);
	assert_non_null(ukernel_set_find(&set, "add_chain", 9));
	assert_null(ukernel_set_find(&set, "add_chai", 8));
	const struct ukernel *n = ukernel_set_find(&set, "nop", 3);
	assert_non_null(n);
	assert_int_equal(n->body_len, 1);
	assert_string_equal(set.where[1], "kernel.nop");
	assert_non_null(strstr(bad_log, "[\\pmuboot\\kernels\\dup.pmuk: a kernel named add_chain was already loaded from \\pmuboot\\kernels\\a.pmuk"));
	assert_non_null(strstr(bad_log, "bad.pmuk: byte"));
	assert_non_null(strstr(bad_log, "big.pmuk: larger than"));
	assert_non_null(strstr(bad_log, "[kernel.odd: 3 hex digits"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(minimal_file_without_init_or_control),
		cmocka_unit_test(bad_magic_version_flags),
		cmocka_unit_test(truncated_trailing_and_damaged),
		cmocka_unit_test(lengths_out_of_range),
		cmocka_unit_test(unrolled_size_bounded),
		cmocka_unit_test(names_checked),
		cmocka_unit_test(hex_bodies),
		cmocka_unit_test(hex_out),
		cmocka_unit_test(set_collects_and_reports),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
