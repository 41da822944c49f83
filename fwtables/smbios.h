/*
 * fwtables/smbios.h - the machine's identity from the SMBIOS tables.
 *
 * A lab compares runs across machines, so the `platform` record names the
 * system (type 1) and its firmware (type 0).  This module reads bytes only:
 * boot/platform.c finds the entry point in the UEFI configuration table and
 * hands over the structure table, so the parsing is unit-tested on the host.
 *
 * Source: DMTF DSP0134 (SMBIOS 3.x): §5.2.1 (32-bit entry point "_SM_"),
 * §5.2.2 (64-bit entry point "_SM3_"), §6.1 (structure header and string
 * set), §7.1 (type 0, BIOS Information), §7.2 (type 1, System Information;
 * §7.2.1 the UUID's byte order).
 */
#ifndef PMUBOOT_FWTABLES_SMBIOS_H
#define PMUBOOT_FWTABLES_SMBIOS_H

#include "lib/libc.h"

#define SMBIOS_STR_MAX 64
#define SMBIOS_UUID_BYTES 16
#define SMBIOS_UUID_TEXT 37	/* 8-4-4-4-12 hex digits, dashes and a NUL */

struct smbios_table {
	uint64_t address;	/* structure table */
	uint32_t length;	/* its length (2.x) or maximum size (3.x) */
	uint8_t major, minor, docrev;
};

struct smbios_info {
	bool have_bios, have_system;
	char bios_vendor[SMBIOS_STR_MAX];
	char bios_version[SMBIOS_STR_MAX];
	char bios_date[SMBIOS_STR_MAX];
	char system_manufacturer[SMBIOS_STR_MAX];
	char system_product[SMBIOS_STR_MAX];
	char system_version[SMBIOS_STR_MAX];
	char system_serial[SMBIOS_STR_MAX];
	bool have_uuid;		/* type 1 is long enough to hold one (SMBIOS 2.1 on) */
	uint8_t uuid[SMBIOS_UUID_BYTES];	/* as stored in the table */
	unsigned structures;	/* structures walked */
	const char *problem;	/* the walk stopped early (bad length, no end marker), or NULL */
};

/*
 * Read an entry point ("_SM3_" or "_SM_") of up to `avail` bytes.  Returns
 * false with *problem set when it is not one or its checksum fails.
 */
bool smbios_entry_point(const void *ep, size_t avail, struct smbios_table *out, const char **problem);

/* Walk a structure table of `len` bytes and collect types 0 and 1. */
void smbios_parse_table(const void *table, size_t len, struct smbios_info *out);

/*
 * The type 1 UUID as lower-case text "00112233-4455-6677-8899-aabbccddeeff".
 * From SMBIOS 2.6 on the first three fields are stored little-endian
 * (§7.2.1); before, every byte is in the order written.  False (out "")
 * when there is none, or it is all zeros (no ID) or all ones (not set).
 */
bool smbios_uuid_text(const struct smbios_info *info, uint8_t major, uint8_t minor, char out[SMBIOS_UUID_TEXT]);

#endif
