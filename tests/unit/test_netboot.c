/*
 * What a network boot reads, on canned bytes: net/devpath.c (the device
 * path's nodes), net/efi_status.c (firmware statuses in words), net/fetch.c
 * (what a fetched file came to) and net/netcfg.c's load-options word.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "net/devpath.h"
#include "net/efi_status.h"
#include "net/fetch.h"
#include "net/netcfg.h"

/* PciRoot-ish hardware node, MAC(525400123456), URI(http://h/x), End: as edk2 lays out an HTTP boot's path. */
static const uint8_t http_boot_path[] = {
	0x01, 0x01, 0x06, 0x00, 0x00, 0x02,
	DEVPATH_MESSAGING, DEVPATH_MSG_MAC, 0x25, 0x00,
	0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	DEVPATH_MESSAGING, DEVPATH_MSG_URI, 0x0d, 0x00, 'h', 't', 't', 'p', ':', '/', '/', 'h', '/',
	DEVPATH_END, 0xff, 0x04, 0x00,
};

static void walks_every_node_to_the_end(void **state)
{
	(void)state;
	struct devpath_walk w;
	struct devpath_node n;
	devpath_begin(&w, http_boot_path, sizeof(http_boot_path));
	assert_true(devpath_next(&w, &n));
	assert_int_equal(n.type, 0x01);
	assert_int_equal(n.len, 2);
	assert_true(devpath_next(&w, &n));
	assert_int_equal(n.subtype, DEVPATH_MSG_MAC);
	assert_int_equal(n.len, 0x25 - DEVPATH_HEADER);
	assert_memory_equal(n.data, "\x52\x54\x00\x12\x34\x56", 6);
	assert_true(devpath_next(&w, &n));
	assert_int_equal(n.subtype, DEVPATH_MSG_URI);
	assert_int_equal(n.len, 9);
	assert_memory_equal(n.data, "http://h/", 9);
	assert_false(devpath_next(&w, &n));	/* the end node */
	assert_false(devpath_next(&w, &n));	/* and it stays there */
	/* The firmware's own paths come with no size. */
	devpath_begin(&w, http_boot_path, SIZE_MAX);
	unsigned k = 0;
	while (devpath_next(&w, &n))
		k++;
	assert_int_equal(k, 3);
	devpath_begin(&w, NULL, SIZE_MAX);
	assert_false(devpath_next(&w, &n));
}

static void damaged_paths_end_the_walk(void **state)
{
	(void)state;
	struct devpath_walk w;
	struct devpath_node n;
	/* A node shorter than its own header would never move on. */
	static const uint8_t short_node[] = { 0x01, 0x01, 0x02, 0x00, DEVPATH_END, 0xff, 0x04, 0x00 };
	devpath_begin(&w, short_node, sizeof(short_node));
	assert_false(devpath_next(&w, &n));
	/* A length past the bytes there are, and no end node at all. */
	static const uint8_t long_node[] = { 0x01, 0x01, 0x40, 0x00, 0, 0, 0, 0 };
	devpath_begin(&w, long_node, sizeof(long_node));
	assert_false(devpath_next(&w, &n));
	static const uint8_t no_end[] = { 0x01, 0x01, 0x04, 0x00, 0x01, 0x01, 0x04, 0x00 };
	devpath_begin(&w, no_end, sizeof(no_end));
	assert_true(devpath_next(&w, &n));
	assert_true(devpath_next(&w, &n));
	assert_false(devpath_next(&w, &n));
	/* A loop of header-only nodes stops after DEVPATH_NODES_MAX. */
	uint8_t many[4 * (DEVPATH_NODES_MAX + 8)];
	for (size_t i = 0; i < sizeof(many); i += 4)
		memcpy(many + i, "\x01\x01\x04\x00", 4);
	devpath_begin(&w, many, sizeof(many));
	unsigned k = 0;
	while (devpath_next(&w, &n))
		k++;
	assert_int_equal(k, DEVPATH_NODES_MAX);
}

static void statuses_in_words(void **state)
{
	(void)state;
	assert_string_equal(efi_status_name(0), "EFI_SUCCESS");
	assert_string_equal(efi_status_name(EFI_STATUS_ERR(2)), "EFI_INVALID_PARAMETER");
	assert_string_equal(efi_status_name(EFI_STATUS_ERR(8)), "EFI_WRITE_PROTECTED");
	assert_string_equal(efi_status_name(EFI_STATUS_ERR(18)), "EFI_TIMEOUT");
	assert_string_equal(efi_status_name(EFI_STATUS_ERR(35)), "EFI_HTTP_ERROR");
	assert_string_equal(efi_status_name(EFI_STATUS_ERR(106)), "EFI_CONNECTION_REFUSED");
	assert_string_equal(efi_status_name(EFI_STATUS_ERR(29)), "another EFI error");
	assert_string_equal(efi_status_name(18), "an EFI warning");	/* no error bit */
}

static void tftp_errors_that_mean_absent(void **state)
{
	(void)state;
	assert_true(fetch_tftp_absent(TFTP_ERROR_NOT_FOUND, "", 0));
	assert_true(fetch_tftp_absent(TFTP_ERROR_UNDEFINED, "File Not Found", 14));
	assert_true(fetch_tftp_absent(TFTP_ERROR_UNDEFINED, "open: No such file\0garbage", 26));
	assert_false(fetch_tftp_absent(TFTP_ERROR_UNDEFINED, "Access violation", 16));
	assert_false(fetch_tftp_absent(2, "not found", 9));	/* code 2: access violation, whatever it says */
	/* The message is read only within its field: "not found" cut at "not fou" is not it. */
	assert_false(fetch_tftp_absent(TFTP_ERROR_UNDEFINED, "not found", 7));
}

static void http_results(void **state)
{
	(void)state;
	char why[160] = "";
	assert_int_equal(fetch_http_result(200, false, false, 42, 1024, why, sizeof(why)), 42);
	assert_int_equal(fetch_http_result(404, false, false, 0, 1024, why, sizeof(why)), NET_FETCH_ABSENT);
	assert_int_equal(fetch_http_result(410, false, false, 0, 1024, why, sizeof(why)), NET_FETCH_ABSENT);
	assert_int_equal(fetch_http_result(500, false, false, 0, 1024, why, sizeof(why)), NET_FETCH_FAILED);
	assert_string_equal(why, "the server answered HTTP 500");
	assert_int_equal(fetch_http_result(200, true, false, 10, 1024, why, sizeof(why)), NET_FETCH_FAILED);
	assert_non_null(strstr(why, "no Content-Length"));
	assert_int_equal(fetch_http_result(200, false, true, 1023, 2048, why, sizeof(why)), NET_FETCH_FAILED);
	assert_string_equal(why, "the file is more than the 2 KiB pmuboot reads");
}

static void program_word_of_the_load_options(void **state)
{
	(void)state;
	const char *shell = "  \\EFI\\BOOT\\BOOTX64.EFI suite=quick";
	assert_int_equal(netcfg_skip_program_word(shell, strlen(shell)), 23);
	assert_int_equal(netcfg_skip_program_word("suite=quick x=1", 15), 0);
	assert_int_equal(netcfg_skip_program_word("", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walks_every_node_to_the_end),
		cmocka_unit_test(damaged_paths_end_the_walk),
		cmocka_unit_test(statuses_in_words),
		cmocka_unit_test(tftp_errors_that_mean_absent),
		cmocka_unit_test(http_results),
		cmocka_unit_test(program_word_of_the_load_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
