/* SMBIOS: entry points (2.x and 3.x), types 0 and 1, and damaged tables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fwtables/smbios.h"

static size_t add(uint8_t *t, size_t at, const void *bytes, size_t n)
{
	memcpy(t + at, bytes, n);
	return at + n;
}

#define TYPE0_STRINGS "EDK II\0  1.2.3 \0" "02/06/2015\0\0"
#define TYPE1_STRINGS "PmubootLab\0RigA\0v2\0\0"
#define TYPE1_AT (0x18 + sizeof(TYPE0_STRINGS) - 1)

/* A table: type 0 (vendor, version, date), type 1 (maker, product, version), type 4 with no strings, end. */
static size_t make_table(uint8_t *t)
{
	size_t n = 0;
	static const uint8_t type0[] = { 0, 0x18, 0x00, 0x00, 1, 2, 0x00, 0xe8, 3, 0 };
	uint8_t pad0[0x18 - sizeof(type0)] = { 0 };
	n = add(t, n, type0, sizeof(type0));
	n = add(t, n, pad0, sizeof(pad0));
	n = add(t, n, TYPE0_STRINGS, sizeof(TYPE0_STRINGS) - 1);
	static const uint8_t type1[0x1b] = { 1, 0x1b, 0x01, 0x00, 1, 2, 3, 0 };
	n = add(t, n, type1, sizeof(type1));
	n = add(t, n, TYPE1_STRINGS, sizeof(TYPE1_STRINGS) - 1);
	static const uint8_t type4[] = { 4, 0x06, 0x02, 0x00, 0, 0 };
	n = add(t, n, type4, sizeof(type4));
	n = add(t, n, "\0\0", 2);
	static const uint8_t end[] = { 127, 4, 0x03, 0x00 };
	n = add(t, n, end, sizeof(end));
	n = add(t, n, "\0\0", 2);
	return n;
}

static void fix_checksum(uint8_t *p, size_t len, size_t at)
{
	uint8_t sum = 0;
	p[at] = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + p[i]);
	p[at] = (uint8_t)(0 - sum);
}

static void types_0_and_1(void **state)
{
	(void)state;
	uint8_t t[256];
	struct smbios_info info;
	size_t n = make_table(t);
	smbios_parse_table(t, n, &info);
	assert_null(info.problem);
	assert_true(info.have_bios && info.have_system);
	assert_int_equal(info.structures, 4);
	assert_string_equal(info.bios_vendor, "EDK II");
	assert_string_equal(info.bios_version, "1.2.3");	/* trimmed */
	assert_string_equal(info.bios_date, "02/06/2015");
	assert_string_equal(info.system_manufacturer, "PmubootLab");
	assert_string_equal(info.system_product, "RigA");
	assert_string_equal(info.system_version, "v2");
}

static void string_zero_and_out_of_range(void **state)
{
	(void)state;
	uint8_t t[256];
	struct smbios_info info;
	size_t n = make_table(t);
	t[TYPE1_AT + 6] = 0;	/* type 1 version: no string */
	t[TYPE1_AT + 5] = 9;	/* type 1 product: string 9 of 3 */
	smbios_parse_table(t, n, &info);
	assert_null(info.problem);
	assert_string_equal(info.system_product, "");
	assert_string_equal(info.system_version, "");
	assert_string_equal(info.system_manufacturer, "PmubootLab");
}

/* Type 1's serial number and UUID; the UUID's text in the byte order its SMBIOS version says (DSP0134 §7.2.1). */
static void serial_and_uuid(void **state)
{
	(void)state;
	static const uint8_t stored[16] = { 0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66,
					    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	uint8_t t[256];
	struct smbios_info info;
	char text[SMBIOS_UUID_TEXT];
	size_t n = make_table(t);
	t[TYPE1_AT + 7] = 2;	/* serial number: string 2 */
	memcpy(t + TYPE1_AT + 8, stored, sizeof(stored));
	smbios_parse_table(t, n, &info);
	assert_string_equal(info.system_serial, "RigA");
	assert_true(info.have_uuid);
	assert_memory_equal(info.uuid, stored, sizeof(stored));
	/* 2.6 on: time_low, time_mid, time_hi_and_version little-endian, the rest as stored. */
	assert_true(smbios_uuid_text(&info, 2, 8, text));
	assert_string_equal(text, "00112233-4455-6677-8899-aabbccddeeff");
	assert_true(smbios_uuid_text(&info, 3, 0, text));
	assert_string_equal(text, "00112233-4455-6677-8899-aabbccddeeff");
	/* Before 2.6, every byte in the order stored. */
	assert_true(smbios_uuid_text(&info, 2, 5, text));
	assert_string_equal(text, "33221100-5544-7766-8899-aabbccddeeff");

	/* All zeros: no ID; all ones: not set.  Neither is an identity. */
	memset(t + TYPE1_AT + 8, 0x00, 16);
	smbios_parse_table(t, n, &info);
	assert_false(smbios_uuid_text(&info, 2, 8, text));
	assert_string_equal(text, "");
	memset(t + TYPE1_AT + 8, 0xff, 16);
	smbios_parse_table(t, n, &info);
	assert_false(smbios_uuid_text(&info, 2, 8, text));

	/* An SMBIOS 2.0 type 1 (8 bytes) has no UUID field at all. */
	t[TYPE1_AT + 1] = 0x08;
	memcpy(t + TYPE1_AT + 8, TYPE1_STRINGS, sizeof(TYPE1_STRINGS) - 1);
	smbios_parse_table(t, TYPE1_AT + 8 + sizeof(TYPE1_STRINGS) - 1, &info);
	assert_true(info.have_system);
	assert_false(info.have_uuid);
	assert_false(smbios_uuid_text(&info, 2, 8, text));
}

static void damaged_tables_stop_with_a_problem(void **state)
{
	(void)state;
	uint8_t t[256];
	struct smbios_info info;
	size_t n = make_table(t);

	/* Cut inside type 1's strings: no double-NUL terminator. */
	smbios_parse_table(t, TYPE1_AT + 0x1b + 5, &info);
	assert_non_null(info.problem);
	assert_true(info.have_bios);
	assert_false(info.have_system);

	/* A length below the header size. */
	memcpy(t + TYPE1_AT + 1, "\x02", 1);
	smbios_parse_table(t, n, &info);
	assert_non_null(info.problem);
	assert_true(info.have_bios);
	assert_false(info.have_system);
}

static void entry_point_v3(void **state)
{
	(void)state;
	uint8_t ep[0x18] = { '_', 'S', 'M', '3', '_', 0, 0x18, 3, 5, 0, 1, 0 };
	struct smbios_table tab;
	const char *problem;
	ep[0x0c] = 0x34; ep[0x0d] = 0x12;			/* max size 0x1234 */
	ep[0x10] = 0x00; ep[0x11] = 0xf0; ep[0x14] = 0x01;	/* address 0x10000f000 */
	fix_checksum(ep, sizeof(ep), 5);
	assert_true(smbios_entry_point(ep, sizeof(ep), &tab, &problem));
	assert_int_equal(tab.major, 3);
	assert_int_equal(tab.minor, 5);
	assert_int_equal(tab.length, 0x1234);
	assert_int_equal(tab.address, 0x10000f000ull);

	ep[0x0c] ^= 1;	/* damaged: checksum no longer zero */
	assert_false(smbios_entry_point(ep, sizeof(ep), &tab, &problem));
	assert_non_null(strstr(problem, "checksum"));
}

static void entry_point_v2(void **state)
{
	(void)state;
	uint8_t ep[0x1f] = { '_', 'S', 'M', '_', 0, 0x1f, 2, 8 };
	struct smbios_table tab;
	const char *problem;
	memcpy(ep + 0x10, "_DMI_", 5);
	ep[0x16] = 0x00; ep[0x17] = 0x02;			/* 512 bytes */
	ep[0x18] = 0x00; ep[0x19] = 0x00; ep[0x1a] = 0x0f;	/* at 0xf0000 */
	fix_checksum(ep, sizeof(ep), 4);
	assert_true(smbios_entry_point(ep, sizeof(ep), &tab, &problem));
	assert_int_equal(tab.major, 2);
	assert_int_equal(tab.minor, 8);
	assert_int_equal(tab.length, 512);
	assert_int_equal(tab.address, 0xf0000);

	assert_false(smbios_entry_point("_XX_ nothing here at all......", 30, &tab, &problem));
	assert_non_null(strstr(problem, "anchor"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(types_0_and_1),
		cmocka_unit_test(string_zero_and_out_of_range),
		cmocka_unit_test(serial_and_uuid),
		cmocka_unit_test(damaged_tables_stop_with_a_problem),
		cmocka_unit_test(entry_point_v3),
		cmocka_unit_test(entry_point_v2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
