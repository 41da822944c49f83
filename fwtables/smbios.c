/* fwtables/smbios.c - see smbios.h. */
#include "fwtables/smbios.h"

/* 64-bit entry point (DSP0134 §5.2.2, table 3). */
#define SM3_ANCHOR "_SM3_"
#define SM3_OFF_LENGTH 0x06
#define SM3_OFF_MAJOR 0x07
#define SM3_OFF_MINOR 0x08
#define SM3_OFF_DOCREV 0x09
#define SM3_OFF_TABLE_MAX 0x0c
#define SM3_OFF_TABLE_ADDR 0x10
#define SM3_MIN_LENGTH 0x18

/* 32-bit entry point (DSP0134 §5.2.1, table 1). */
#define SM2_ANCHOR "_SM_"
#define SM2_OFF_LENGTH 0x05
#define SM2_OFF_MAJOR 0x06
#define SM2_OFF_MINOR 0x07
#define SM2_OFF_TABLE_LEN 0x16
#define SM2_OFF_TABLE_ADDR 0x18
#define SM2_MIN_LENGTH 0x1f

/* Structure header (§6.1.2) and the fields read (§7.1.1, §7.2.1): string numbers. */
#define HDR_TYPE 0
#define HDR_LENGTH 1
#define HDR_SIZE 4
#define TYPE_BIOS 0
#define TYPE_SYSTEM 1
#define TYPE_END 127
#define BIOS_VENDOR 0x04
#define BIOS_VERSION 0x05
#define BIOS_DATE 0x08
#define SYS_MANUFACTURER 0x04
#define SYS_PRODUCT 0x05
#define SYS_VERSION 0x06
#define SYS_SERIAL 0x07
#define SYS_UUID 0x08		/* 16 bytes, SMBIOS 2.1 on */
/* §7.2.1: from 2.6 on, time_low, time_mid and time_hi_and_version are little-endian. */
#define UUID_LE_MAJOR 2
#define UUID_LE_MINOR 6

#define SMBIOS_MAX_STRUCTURES 4096

static bool checksum_ok(const uint8_t *p, size_t n)
{
	uint8_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum = (uint8_t)(sum + p[i]);
	return sum == 0;
}

static uint32_t rd(const uint8_t *p, unsigned bytes)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

bool smbios_entry_point(const void *ep, size_t avail, struct smbios_table *out, const char **problem)
{
	const uint8_t *p = ep;

	memset(out, 0, sizeof(*out));
	*problem = NULL;
	if (p && avail >= SM3_MIN_LENGTH && memcmp(p, SM3_ANCHOR, 5) == 0) {
		uint8_t len = p[SM3_OFF_LENGTH];
		if (len < SM3_MIN_LENGTH || len > avail || !checksum_ok(p, len)) {
			*problem = "SMBIOS 3 entry point has a bad length or checksum";
			return false;
		}
		out->major = p[SM3_OFF_MAJOR];
		out->minor = p[SM3_OFF_MINOR];
		out->docrev = p[SM3_OFF_DOCREV];
		out->length = rd(p + SM3_OFF_TABLE_MAX, 4);
		out->address = (uint64_t)rd(p + SM3_OFF_TABLE_ADDR, 4) | (uint64_t)rd(p + SM3_OFF_TABLE_ADDR + 4, 4) << 32;
		return true;
	}
	if (p && avail >= SM2_MIN_LENGTH && memcmp(p, SM2_ANCHOR, 4) == 0) {
		uint8_t len = p[SM2_OFF_LENGTH];
		if (len < SM2_MIN_LENGTH || len > avail || !checksum_ok(p, len)) {
			*problem = "SMBIOS 2 entry point has a bad length or checksum";
			return false;
		}
		out->major = p[SM2_OFF_MAJOR];
		out->minor = p[SM2_OFF_MINOR];
		out->length = rd(p + SM2_OFF_TABLE_LEN, 2);
		out->address = rd(p + SM2_OFF_TABLE_ADDR, 4);
		return true;
	}
	*problem = "no SMBIOS entry point anchor (_SM3_ or _SM_)";
	return false;
}

/* String number n (1-based) of the string set at s..end, trimmed, into dst. */
static void get_string(char dst[SMBIOS_STR_MAX], const uint8_t *s, const uint8_t *end, uint8_t n)
{
	dst[0] = '\0';
	if (n == 0)
		return;	/* 0: no string */
	for (uint8_t k = 1; s < end && *s; k++) {
		const uint8_t *e = s;
		while (e < end && *e)
			e++;
		if (k == n) {
			while (s < e && *s == ' ')
				s++;
			while (e > s && e[-1] == ' ')
				e--;
			size_t len = (size_t)(e - s);
			if (len >= SMBIOS_STR_MAX)
				len = SMBIOS_STR_MAX - 1;
			memcpy(dst, s, len);
			dst[len] = '\0';
			return;
		}
		s = e + 1;
	}
}

static uint8_t field(const uint8_t *st, uint8_t len, unsigned off)
{
	return off < len ? st[off] : 0;
}

void smbios_parse_table(const void *table, size_t len, struct smbios_info *out)
{
	const uint8_t *p = table, *end = p + len;

	memset(out, 0, sizeof(*out));
	while (p && p + HDR_SIZE <= end && out->structures < SMBIOS_MAX_STRUCTURES) {
		uint8_t type = p[HDR_TYPE], slen = p[HDR_LENGTH];
		if (slen < HDR_SIZE || p + slen > end) {
			out->problem = "an SMBIOS structure's length runs past the table";
			return;
		}
		/* The string set ends with two NULs. */
		const uint8_t *strings = p + slen, *q = strings;
		while (q + 1 < end && !(q[0] == 0 && q[1] == 0))
			q++;
		if (q + 1 >= end) {
			out->problem = "an SMBIOS string set has no terminator";
			return;
		}
		out->structures++;
		if (type == TYPE_BIOS && !out->have_bios) {
			out->have_bios = true;
			get_string(out->bios_vendor, strings, q, field(p, slen, BIOS_VENDOR));
			get_string(out->bios_version, strings, q, field(p, slen, BIOS_VERSION));
			get_string(out->bios_date, strings, q, field(p, slen, BIOS_DATE));
		} else if (type == TYPE_SYSTEM && !out->have_system) {
			out->have_system = true;
			get_string(out->system_manufacturer, strings, q, field(p, slen, SYS_MANUFACTURER));
			get_string(out->system_product, strings, q, field(p, slen, SYS_PRODUCT));
			get_string(out->system_version, strings, q, field(p, slen, SYS_VERSION));
			get_string(out->system_serial, strings, q, field(p, slen, SYS_SERIAL));
			if (slen >= SYS_UUID + SMBIOS_UUID_BYTES) {
				out->have_uuid = true;
				memcpy(out->uuid, p + SYS_UUID, SMBIOS_UUID_BYTES);
			}
		}
		if (type == TYPE_END)
			return;
		p = q + 2;
	}
	if (out->structures >= SMBIOS_MAX_STRUCTURES)
		out->problem = "more SMBIOS structures than expected; the walk was stopped";
}

bool smbios_uuid_text(const struct smbios_info *info, uint8_t major, uint8_t minor, char out[SMBIOS_UUID_TEXT])
{
	/* Byte order of the text: the first three fields swapped when stored little-endian. */
	static const uint8_t le_order[SMBIOS_UUID_BYTES] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const char hex[] = "0123456789abcdef";
	bool zeros = true, ones = true;

	out[0] = '\0';
	if (!info->have_system || !info->have_uuid)
		return false;
	for (unsigned i = 0; i < SMBIOS_UUID_BYTES; i++) {
		zeros &= info->uuid[i] == 0x00;
		ones &= info->uuid[i] == 0xff;
	}
	if (zeros || ones)
		return false;
	bool le = major > UUID_LE_MAJOR || (major == UUID_LE_MAJOR && minor >= UUID_LE_MINOR);
	size_t k = 0;
	for (unsigned i = 0; i < SMBIOS_UUID_BYTES; i++) {
		uint8_t b = info->uuid[le ? le_order[i] : i];
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[k++] = '-';
		out[k++] = hex[b >> 4];
		out[k++] = hex[b & 0xf];
	}
	out[k] = '\0';
	return true;
}
