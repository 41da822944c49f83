/* net/netcfg.c and net/dhcp.c: which config files a network boot asks for, in which order, and the DHCP answer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
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

/* A canned server: which names it has, which it fails on; what it was asked, in order. */
struct server {
	const char *has, *fails;
	char asked[4][NETCFG_NAME_MAX];
	int n;
};

static long serve(void *ctx, const char *name, char *buf, size_t cap, char *where, size_t where_cap, char *why,
		  size_t why_cap)
{
	struct server *s = ctx;
	snprintf(s->asked[s->n++], NETCFG_NAME_MAX, "%s", name);
	snprintf(where, where_cap, "tftp://10.0.2.2/%s", name);
	if (s->fails && strcmp(name, s->fails) == 0) {
		snprintf(why, why_cap, "TFTP read failed (EFI_TIMEOUT)");
		return NET_FETCH_FAILED;
	}
	if (!s->has || strcmp(name, s->has) != 0)
		return NET_FETCH_ABSENT;
	return snprintf(buf, cap, "suite=quick\n");
}

static void first_file_the_server_has_is_used(void **state)
{
	(void)state;
	struct netcfg_asked a;
	struct server srv = { .has = "pmuboot-5254001234ab.cfg", .fails = NULL };
	char buf[64];
	long len = -9;
	memset(&a, 0x55, sizeof(a));
	netcfg_names("", "00112233-4455-6677-8899-aabbccddeeff", mac, sizeof(mac), a.tries);
	assert_int_equal(netcfg_fetch_first(&a, serve, &srv, buf, sizeof(buf), &len), 1);
	assert_int_equal(len, 12);
	assert_string_equal(buf, "suite=quick\n");
	assert_int_equal(srv.n, 2);	/* the default is not asked for */
	assert_int_equal(a.outcome[0], NETCFG_ABSENT);
	assert_string_equal(a.result[0], "not found");
	assert_string_equal(a.where[0], "tftp://10.0.2.2/pmuboot-00112233-4455-6677-8899-aabbccddeeff.cfg");
	assert_int_equal(a.outcome[1], NETCFG_USED);
	assert_string_equal(a.result[1], "used");
	assert_int_equal(a.outcome[2], NETCFG_NOT_ASKED);
	assert_string_equal(a.result[2], "not asked: an earlier file was used");
	assert_string_equal(a.where[2], "");
}

static void failures_and_skips_are_kept_and_the_search_goes_on(void **state)
{
	(void)state;
	struct netcfg_asked a;
	struct server srv = { .has = NULL, .fails = "pmuboot-5254001234ab.cfg" };
	char buf[64];
	long len = -9;
	netcfg_names("pxe/", NULL, mac, sizeof(mac), a.tries);
	assert_int_equal(netcfg_fetch_first(&a, serve, &srv, buf, sizeof(buf), &len), -1);
	assert_int_equal(len, -9);
	assert_int_equal(srv.n, 2);
	assert_string_equal(srv.asked[0], "pxe/pmuboot-5254001234ab.cfg");
	assert_int_equal(a.outcome[0], NETCFG_SKIPPED);
	assert_non_null(strstr(a.result[0], "skipped: "));
	assert_string_equal(a.where[0], "");
	assert_int_equal(a.outcome[1], NETCFG_ABSENT);	/* "pxe/..." is not the name that fails */
	assert_int_equal(a.outcome[2], NETCFG_ABSENT);

	srv = (struct server){ .has = "pmuboot.cfg", .fails = "pmuboot-5254001234ab.cfg" };
	netcfg_names("", NULL, mac, sizeof(mac), a.tries);
	assert_int_equal(netcfg_fetch_first(&a, serve, &srv, buf, sizeof(buf), &len), 2);
	assert_int_equal(a.outcome[1], NETCFG_FAILED);
	assert_string_equal(a.why[1], "TFTP read failed (EFI_TIMEOUT)");
	assert_string_equal(a.result[1], "not read: TFTP read failed (EFI_TIMEOUT)");
	assert_int_equal(a.outcome[2], NETCFG_USED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uuid_then_mac_then_default),
		cmocka_unit_test(missing_identity_is_skipped_with_a_reason),
		cmocka_unit_test(directory_and_mac_text),
		cmocka_unit_test(dhcp_options),
		cmocka_unit_test(first_file_the_server_has_is_used),
		cmocka_unit_test(failures_and_skips_are_kept_and_the_search_goes_on),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
