/*
 * bench/ukernel_encode_host.c - writing kernel files (ukernel.h), for
 * pmuboot-host kernel build and the tests; the image only reads them.
 */
#include "bench/ukernel.h"
#include "lib/crc32.h"

/* Header field offsets (ukernel.h's table). */
#define OFF_VERSION 4
#define OFF_NAME_LEN 6
#define OFF_CONTROL_LEN 7
#define OFF_UNROLL 8
#define OFF_INIT_LEN 10
#define OFF_BODY_LEN 12

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

size_t ukernel_encode(const struct ukernel *k, uint8_t *out, size_t cap, char *why, size_t why_cap)
{
	size_t nlen = strlen(k->name), clen = strlen(k->control);

	if (!ukernel_name_ok(k->name, nlen)) {
		snprintf(why, why_cap, "name '%.*s' is not [a-z][a-z0-9_]* of at most %d characters", UK_NAME_MAX, k->name,
			 UK_NAME_MAX);
		return 0;
	}
	if (clen && !ukernel_control_ok(k->control, clen)) {
		snprintf(why, why_cap, "control '%.*s' is neither a kernel name nor kernel.variant", UK_NAME_MAX, k->control);
		return 0;
	}
	if (!ukernel_limits_ok(k, why, why_cap))
		return 0;
	size_t len = UK_HEADER_BYTES + nlen + clen + k->init_len + k->body_len + UK_CRC_BYTES;
	if (len > cap) {
		snprintf(why, why_cap, "%zu bytes do not fit in %zu", len, cap);
		return 0;
	}
	memset(out, 0, UK_HEADER_BYTES);
	memcpy(out, UK_MAGIC, UK_MAGIC_LEN);
	out[OFF_VERSION] = UK_FORMAT_VERSION;
	out[OFF_NAME_LEN] = (uint8_t)nlen;
	out[OFF_CONTROL_LEN] = (uint8_t)clen;
	put16(out + OFF_UNROLL, k->unroll);
	put16(out + OFF_INIT_LEN, k->init_len);
	put16(out + OFF_BODY_LEN, k->body_len);
	uint8_t *p = out + UK_HEADER_BYTES;
	memcpy(p, k->name, nlen);
	p += nlen;
	memcpy(p, k->control, clen);
	p += clen;
	memcpy(p, k->init, k->init_len);
	p += k->init_len;
	memcpy(p, k->body, k->body_len);
	p += k->body_len;
	put32(p, crc32_update(CRC32_INIT, out, len - UK_CRC_BYTES));
	return len;
}
