/*
 * net/netcfg.h - which config files a network-booted image asks its boot
 * server for, in order.
 *
 * A machine loaded over the network reads its options from the server it
 * was loaded from, from the directory of its boot file: first
 * pmuboot-<SMBIOS system UUID>.cfg, then pmuboot-<MAC>.cfg, then
 * pmuboot.cfg; the first that exists is used (docs/lab.md).  One spelling
 * of each, since TFTP names are case-sensitive: the UUID in lower-case hex
 * with dashes (fwtables/smbios.h), the MAC as twelve lower-case hex digits with
 * no separators.  Pure text: boot/config_read.c fetches the files.
 */
#ifndef PMUBOOT_NET_NETCFG_H
#define PMUBOOT_NET_NETCFG_H

#include "lib/libc.h"
#include "net/fetch.h"

#define NETCFG_NAMES 3
#define NETCFG_NAME_MAX 160
#define NETCFG_MAC_MAX 32	/* bytes of a hardware address (UEFI EFI_MAC_ADDRESS) */

struct netcfg_try {
	const char *kind;		/* "uuid", "mac", "default" */
	char name[NETCFG_NAME_MAX];	/* the path asked for; "" when skipped */
	const char *skipped;		/* why this one is not asked for, or NULL */
};

/*
 * The three names in the order they are tried.  dir: the boot file's
 * directory ("" or ending in '/', netcfg_dir); uuid: the canonical text or
 * NULL when the machine has none; mac: its bytes (mac_len 0: unknown).
 */
void netcfg_names(const char *dir, const char *uuid, const uint8_t *mac, size_t mac_len,
		  struct netcfg_try out[NETCFG_NAMES]);

/* The directory part of a boot file path, separator kept: "pxe/BOOTX64.EFI" -> "pxe/", "BOOTX64.EFI" -> "". */
size_t netcfg_dir(const char *boot_file, char *out, size_t cap);

/* A MAC as text: "52:54:00:12:34:56" with sep ':', "525400123456" with sep 0. */
void netcfg_mac_text(const uint8_t *mac, size_t mac_len, char sep, char *out, size_t cap);

/* What a network boot asked its server for, for the begin record's config_tried. */
#define NETCFG_WHERE_MAX (NETCFG_NAME_MAX + 32)
#define NETCFG_WHY_MAX 128
#define NETCFG_RESULT_MAX (NETCFG_WHY_MAX + 16)
enum netcfg_outcome { NETCFG_SKIPPED, NETCFG_NOT_ASKED, NETCFG_USED, NETCFG_ABSENT, NETCFG_FAILED };
struct netcfg_asked {
	struct netcfg_try tries[NETCFG_NAMES];		/* netcfg_names fills them */
	enum netcfg_outcome outcome[NETCFG_NAMES];
	char where[NETCFG_NAMES][NETCFG_WHERE_MAX];	/* how each was asked for ("tftp://..."); "" when it was not */
	char why[NETCFG_NAMES][NETCFG_WHY_MAX];		/* NETCFG_FAILED: what went wrong; NETCFG_SKIPPED: why not asked */
	char result[NETCFG_NAMES][NETCFG_RESULT_MAX];	/* the outcome in words: "used", "not read: <why>" */
};

/* Read one name from the server: its length, or NET_FETCH_ABSENT, or NET_FETCH_FAILED with why (net/fetch.h). */
typedef long netcfg_fetch_fn(void *ctx, const char *name, char *buf, size_t cap, char *where, size_t where_cap,
			     char *why, size_t why_cap);

/*
 * Ask for a->tries in order until one is read into buf (cap bytes): the
 * index of the one read, its length in *len; -1 when none was.  Every
 * try's outcome and result are kept in a.
 */
int netcfg_fetch_first(struct netcfg_asked *a, netcfg_fetch_fn *fetch, void *ctx, char *buf, size_t cap, long *len);

/*
 * Where the options start in a load-options string: the UEFI shell passes
 * the program's own path as the first word, which has no '=' (an option
 * always has one); 0 when the first word is an option.
 */
size_t netcfg_skip_program_word(const char *s, size_t len);

#endif
