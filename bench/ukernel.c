/* bench/ukernel.c - the kernel file format; see ukernel.h. */
#include "bench/ukernel.h"
#include "lib/crc32.h"

/* Header field offsets (ukernel.h). */
#define OFF_VERSION 4
#define OFF_FLAGS 5
#define OFF_NAME_LEN 6
#define OFF_CONTROL_LEN 7
#define OFF_UNROLL 8
#define OFF_INIT_LEN 10
#define OFF_BODY_LEN 12
#define OFF_RESERVED 14

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static bool name_char(char c, bool first)
{
	if (c >= 'a' && c <= 'z')
		return true;
	return !first && (lc_isdigit(c) || c == '_');
}

bool ukernel_name_ok(const char *s, size_t len)
{
	if (len == 0 || len > UK_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(s[i], i == 0))
			return false;
	return true;
}

bool ukernel_control_ok(const char *s, size_t len)
{
	if (len == 0 || len > UK_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '.')
			return ukernel_name_ok(s, i) && ukernel_name_ok(s + i + 1, len - i - 1);
	return ukernel_name_ok(s, len);
}

unsigned ukernel_unroll(const struct ukernel *k) { return k->unroll ? k->unroll : UK_UNROLL_DEFAULT; }

/* The limits every kernel obeys, from a file or from the hex option (ukernel_encode_host.c too). */
bool ukernel_limits_ok(const struct ukernel *k, char *why, size_t cap)
{
	if (k->unroll > UK_UNROLL_MAX) {
		snprintf(why, cap, "unroll %u is larger than %u", k->unroll, UK_UNROLL_MAX);
		return false;
	}
	if (k->body_len == 0) {
		snprintf(why, cap, "the body is empty");
		return false;
	}
	if (k->body_len > UK_BODY_MAX || k->init_len > UK_INIT_MAX) {
		snprintf(why, cap, "%s is %u bytes; at most %u are allowed", k->body_len > UK_BODY_MAX ? "the body" : "init",
			 k->body_len > UK_BODY_MAX ? k->body_len : k->init_len,
			 k->body_len > UK_BODY_MAX ? UK_BODY_MAX : UK_INIT_MAX);
		return false;
	}
	if ((uint32_t)ukernel_unroll(k) * k->body_len > UK_UNROLLED_MAX) {
		snprintf(why, cap, "%u copies of a %u-byte body exceed the %u bytes the harness places", ukernel_unroll(k),
			 k->body_len, UK_UNROLLED_MAX);
		return false;
	}
	return true;
}

bool ukernel_parse(const uint8_t *buf, size_t len, struct ukernel *k, char *why, size_t cap)
{
	if (len < UK_HEADER_BYTES + UK_CRC_BYTES) {
		snprintf(why, cap, "%zu bytes is too short for a kernel file (at least %u)", len,
			 UK_HEADER_BYTES + UK_CRC_BYTES + 2);
		return false;
	}
	if (len > UK_FILE_MAX) {
		snprintf(why, cap, "%zu bytes is too large for a kernel file (at most %u)", len, UK_FILE_MAX);
		return false;
	}
	if (memcmp(buf, UK_MAGIC, UK_MAGIC_LEN) != 0) {
		snprintf(why, cap, "byte 0: not a pmuboot kernel file (no \"%s\" magic)", UK_MAGIC);
		return false;
	}
	if (buf[OFF_VERSION] != UK_FORMAT_VERSION) {
		snprintf(why, cap, "byte %d: format version %u; this pmuboot reads version %u", OFF_VERSION, buf[OFF_VERSION],
			 UK_FORMAT_VERSION);
		return false;
	}
	if (buf[OFF_FLAGS] != 0 || get16(buf + OFF_RESERVED) != 0) {
		snprintf(why, cap, "byte %d: reserved bits set (a newer format?)",
			 buf[OFF_FLAGS] != 0 ? OFF_FLAGS : OFF_RESERVED);
		return false;
	}
	size_t nlen = buf[OFF_NAME_LEN], clen = buf[OFF_CONTROL_LEN];
	memset(k, 0, sizeof(*k));
	k->unroll = get16(buf + OFF_UNROLL);
	k->init_len = get16(buf + OFF_INIT_LEN);
	k->body_len = get16(buf + OFF_BODY_LEN);
	if (nlen == 0 || nlen > UK_NAME_MAX || clen > UK_NAME_MAX) {
		snprintf(why, cap, "byte %d: %s length %zu is out of range", nlen == 0 || nlen > UK_NAME_MAX ? OFF_NAME_LEN : OFF_CONTROL_LEN,
			 nlen == 0 || nlen > UK_NAME_MAX ? "name" : "control", nlen == 0 || nlen > UK_NAME_MAX ? nlen : clen);
		return false;
	}
	char lim[96];
	if (!ukernel_limits_ok(k, lim, sizeof(lim))) {
		snprintf(why, cap, "header: %s", lim);
		return false;
	}
	size_t want = UK_HEADER_BYTES + nlen + clen + k->init_len + k->body_len + UK_CRC_BYTES;
	if (want != len) {
		snprintf(why, cap, "the header describes %zu bytes but the file has %zu (%s)", want, len,
			 want > len ? "truncated" : "trailing bytes");
		return false;
	}
	uint32_t crc = crc32_update(CRC32_INIT, buf, len - UK_CRC_BYTES), stored = get32(buf + len - UK_CRC_BYTES);
	if (crc != stored) {
		snprintf(why, cap, "byte %zu: CRC-32 0x%08x does not match the contents (0x%08x): the file is damaged",
			 len - UK_CRC_BYTES, stored, crc);
		return false;
	}
	const uint8_t *p = buf + UK_HEADER_BYTES;
	if (!ukernel_name_ok((const char *)p, nlen)) {
		snprintf(why, cap, "byte %d: the name is not [a-z][a-z0-9_]*", UK_HEADER_BYTES);
		return false;
	}
	memcpy(k->name, p, nlen);
	p += nlen;
	if (clen && !ukernel_control_ok((const char *)p, clen)) {
		snprintf(why, cap, "byte %zu: the control is neither a kernel name nor kernel.variant", UK_HEADER_BYTES + nlen);
		return false;
	}
	memcpy(k->control, p, clen);
	p += clen;
	memcpy(k->init, p, k->init_len);
	p += k->init_len;
	memcpy(k->body, p, k->body_len);
	return true;
}

static int hex_value(char c)
{
	if (lc_isdigit(c))
		return c - '0';
	c = (char)lc_tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool ukernel_from_hex(const char *name, size_t name_len, const char *hex, size_t hex_len, struct ukernel *k,
		      char *why, size_t cap)
{
	memset(k, 0, sizeof(*k));
	if (!ukernel_name_ok(name, name_len)) {
		snprintf(why, cap, "kernel name '%.*s' is not [a-z][a-z0-9_]* of at most %d characters",
			 (int)(name_len > 40 ? 40 : name_len), name, UK_NAME_MAX);
		return false;
	}
	memcpy(k->name, name, name_len);
	if (hex_len >= 2 && hex[0] == '0' && lc_tolower(hex[1]) == 'x') {
		hex += 2;
		hex_len -= 2;
	}
	if (hex_len == 0 || hex_len % 2) {
		snprintf(why, cap, "%zu hex digits: a body needs a whole number of bytes, at least one", hex_len);
		return false;
	}
	if (hex_len / 2 > UK_BODY_MAX) {
		snprintf(why, cap, "the body is %zu bytes; at most %u are allowed", hex_len / 2, UK_BODY_MAX);
		return false;
	}
	for (size_t i = 0; i < hex_len; i += 2) {
		int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
		if (hi < 0 || lo < 0) {
			snprintf(why, cap, "character %zu ('%c') is not a hex digit", i + 1 + (hi >= 0),
				 hi < 0 ? hex[i] : hex[i + 1]);
			return false;
		}
		k->body[k->body_len++] = (uint8_t)(hi << 4 | lo);
	}
	return ukernel_limits_ok(k, why, cap);
}

void ukernel_hex(const uint8_t *bytes, size_t n, char *out, size_t cap)
{
	static const char digits[] = "0123456789abcdef";
	size_t k = 0;

	if (!cap)
		return;
	for (size_t i = 0; i < n && k + 2 < cap; i++) {
		out[k++] = digits[bytes[i] >> 4];
		out[k++] = digits[bytes[i] & 0xf];
	}
	out[k] = 0;
}
