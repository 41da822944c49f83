/*
 * lib/crc32.h - CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as in
 * zlib and Python's zlib.crc32), used by the `end` record so a capture
 * can be checked for truncation or corruption.
 */
#ifndef PMUBOOT_LIB_CRC32_H
#define PMUBOOT_LIB_CRC32_H

#include "lib/libc.h"

#define CRC32_INIT 0u

/* Continue a CRC over buf; start with CRC32_INIT.  crc32_update(0, "123456789", 9) == 0xCBF43926. */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);

#endif
