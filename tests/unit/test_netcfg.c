/* net/netcfg.c and net/dhcp.c: which config files a network boot asks for, in which order, and the DHCP answer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "net/dhcp.h"
#include "net/netcfg.h"

static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0xab };

static void uuid_then_mac_then_default(void **state)
{
	(void)state;
	struct netcfg_try t[NETCFG_NAMES];
	netcfg_names("", "00112233-4455-6677-8899-aabbccddeeff", mac, sizeof(mac), t);
	assert_string_equal(t[0].kind, "uuid");
	assert_string_equal(t[0].name, "pmuboot-00112233-4455-6677-8899-aabbccddeeff.cfg");
	assert_null(t[0].skipped);
	assert_string_equal(t[1].kind, "mac");
	assert_string_equal(t[1].name, "pmuboot-5254001234ab.cfg");
	assert_null(t[1].skipped);
	assert_string_equal(t[2].kind, "default");
	assert_string_equal(t[2].name, "pmuboot.cfg");
	assert_null(t[2].skipped);

	/* In the boot file's directory. */
	netcfg_names("lab/pmuboot/", "00112233-4455-6677-8899-aabbccddeeff", mac, sizeof(mac), t);
	assert_string_equal(t[0].name, "lab/pmuboot/pmuboot-00112233-4455-6677-8899-aabbccddeeff.cfg");
	assert_string_equal(t[1].name, "lab/pmuboot/pmuboot-5254001234ab.cfg");
	assert_string_equal(t[2].name, "lab/pmuboot/pmuboot.cfg");
}

static void missing_identity_is_skipped_with_a_reason(void **state)
{
	(void)state;
	struct netcfg_try t[NETCFG_NAMES];
	netcfg_names("", NULL, mac, sizeof(mac), t);
	assert_non_null(t[0].skipped);
	assert_non_null(strstr(t[0].skipped, "UUID"));
	assert_string_equal(t[0].name, "");
	assert_null(t[1].skipped);
	netcfg_names("", "", NULL, 0, t);
	assert_non_null(t[0].skipped);
	assert_non_null(t[1].skipped);
	assert_non_null(strstr(t[1].skipped, "MAC"));
	assert_string_equal(t[2].name, "pmuboot.cfg");
	assert_null(t[2].skipped);
	/* A directory too long to hold a name: that name is skipped, never cut. */
	char dir[200];
	memset(dir, 'd', sizeof(dir) - 2);
	dir[sizeof(dir) - 2] = '/';
	dir[sizeof(dir) - 1] = 0;
	netcfg_names(dir, "00112233-4455-6677-8899-aabbccddeeff", mac, sizeof(mac), t);
	for (int i = 0; i < NETCFG_NAMES; i++) {
		assert_non_null(t[i].skipped);
		assert_string_equal(t[i].name, "");
	}
}

static void directory_and_mac_text(void **state)
{
	(void)state;
	char d[64], m[64];
	assert_int_equal(netcfg_dir("BOOTX64.EFI", d, sizeof(d)), 0);
	assert_string_equal(d, "");
	assert_int_equal(netcfg_dir("pxe/x64/BOOTX64.EFI", d, sizeof(d)), 8);
	assert_string_equal(d, "pxe/x64/");
	assert_int_equal(netcfg_dir("\\boot\\BOOTX64.EFI", d, sizeof(d)), 6);
	assert_string_equal(d, "\\boot\\");
	assert_int_equal(netcfg_dir("/srv/tftp/a.efi", d, 4), 0);	/* does not fit: the root, not half a path */
	netcfg_mac_text(mac, sizeof(mac), ':', m, sizeof(m));
	assert_string_equal(m, "52:54:00:12:34:ab");
	netcfg_mac_text(mac, sizeof(mac), 0, m, sizeof(m));
	assert_string_equal(m, "5254001234ab");
	netcfg_mac_text(mac, sizeof(mac), ':', m, 6);	/* two bytes fit, and a NUL */
	assert_string_equal(m, "52:54");
}

/* A DHCP ACK as the PXE base code keeps it: BOOTP fixed part, cookie, options. */
static size_t ack(uint8_t *p, const uint8_t *opts, size_t nopts, const char *file)
{
	memset(p, 0, 600);
	p[0] = 2;	/* BOOTREPLY */
	p[DHCP_OFF_SIADDR] = 10;
	p[DHCP_OFF_SIADDR + 3] = 2;
	if (file)
		memcpy(p + DHCP_OFF_FILE, file, strlen(file));
	static const uint8_t cookie[4] = { 99, 130, 83, 99 };
	memcpy(p + DHCP_FIXED_LEN, cookie, 4);
	memcpy(p + DHCP_FIXED_LEN + 4, opts, nopts);
	return DHCP_FIXED_LEN + 4 + nopts;
}

static void dhcp_options(void **state)
{
	(void)state;
	uint8_t p[600];
	static const uint8_t opts[] = { 53, 1, 5, 0, 0, 3, 4, 10, 0, 2, 2, 54, 4, 10, 0, 2, 2,
					67, 11, 'p', 'x', 'e', '/', 'b', 'o', 'o', 't', '.', 'e', 'f', 255 };
	size_t n = ack(p, opts, sizeof(opts), "field.efi");
	const uint8_t *v;
	size_t vlen;
	assert_true(dhcp_option(p, n, DHCP_OPT_ROUTER, &v, &vlen));
	assert_int_equal(vlen, 4);
	assert_memory_equal(v, "\x0a\x00\x02\x02", 4);
	assert_true(dhcp_option(p, n, DHCP_OPT_SERVER_ID, &v, &vlen));
	assert_false(dhcp_option(p, n, 6, &v, &vlen));
	assert_null(v);
	char f[DHCP_FILE_LEN + 1];
	dhcp_boot_file(p, n, f, sizeof(f));
	assert_string_equal(f, "pxe/boot.ef");	/* option 67 wins over the file field */

	/* No option 67: the file field. */
	static const uint8_t few[] = { 53, 1, 5, 255 };
	n = ack(p, few, sizeof(few), "BOOTX64.EFI");
	dhcp_boot_file(p, n, f, sizeof(f));
	assert_string_equal(f, "BOOTX64.EFI");

	/* An option running past the packet, a bad cookie, a packet too short: nothing found. */
	static const uint8_t cut[] = { 3, 40, 10, 0 };
	n = ack(p, cut, sizeof(cut), NULL);
	assert_false(dhcp_option(p, n, DHCP_OPT_ROUTER, &v, &vlen));
	n = ack(p, opts, sizeof(opts), NULL);
	p[DHCP_FIXED_LEN] = 98;
	assert_false(dhcp_option(p, n, DHCP_OPT_ROUTER, &v, &vlen));
	assert_false(dhcp_option(p, 100, DHCP_OPT_ROUTER, &v, &vlen));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uuid_then_mac_then_default),
		cmocka_unit_test(missing_identity_is_skipped_with_a_reason),
		cmocka_unit_test(directory_and_mac_text),
		cmocka_unit_test(dhcp_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
