/* lib/crc32.c - bitwise CRC-32; records are short, so no table is needed. */
#include "lib/crc32.h"

#define CRC32_POLY_REFLECTED 0xEDB88320u

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (CRC32_POLY_REFLECTED & (0u - (crc & 1u)));
	}
	return ~crc;
}
