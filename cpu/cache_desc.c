/*
 * cpu/cache_desc.c - CPUID leaf 02H descriptors (see cache_desc.h).
 *
 * Source: Intel SDM Vol. 2A, CPUID, Table 3-12 "Encoding of CPUID Leaf 2
 * Descriptors", every row with a geometry.  TLB levels follow the table's
 * names: "Data TLB0" and "uTLB" are the first level of a two-level data TLB,
 * "Data TLB1" its second, a plain "Data TLB" / "DTLB" / "Instruction TLB" the
 * first level, "Shared 2nd-Level TLB" the unified second level.  Where the
 * table gives a TLB "4 MByte" (4M) or "2M/4M" page sizes, pages say so.
 */
#include "cpu/cache_desc.h"
#include "cpu/cache.h"

#define C(code, level, type, kib, ways, line) { code, DESC_CACHE, level, type, kib, ways, line }
#define T(code, level, type, entries, ways, pages) { code, DESC_TLB, level, type, entries, ways, pages }
#define S(code, kind) { code, kind, 0, 0, 0, 0, 0 }
#define NG DESC_WAYS_NOT_GIVEN
#define FULL 0
#define D CACHE_DATA
#define I CACHE_INSTRUCTION
#define U CACHE_UNIFIED
#define TD TLB_DATA
#define TI TLB_INSTRUCTION
#define TU TLB_UNIFIED
#define P4K TLB_PAGE_4K
#define P2M TLB_PAGE_2M
#define P4M TLB_PAGE_4M
#define P1G TLB_PAGE_1G

/* In code order; a code with two structures has two consecutive rows. */
static const struct cache_desc table[] = {
	T(0x01, 1, TI, 32, 4, P4K),
	T(0x02, 1, TI, 2, FULL, P4M),
	T(0x03, 1, TD, 64, 4, P4K),
	T(0x04, 1, TD, 8, 4, P4M),
	T(0x05, 2, TD, 32, 4, P4M),		/* Data TLB1 */
	C(0x06, 1, I, 8, 4, 32),
	C(0x08, 1, I, 16, 4, 32),
	C(0x09, 1, I, 32, 4, 64),
	C(0x0A, 1, D, 8, 2, 32),
	T(0x0B, 1, TI, 4, 4, P4M),
	C(0x0C, 1, D, 16, 4, 32),
	C(0x0D, 1, D, 16, 4, 64),
	C(0x0E, 1, D, 24, 6, 64),
	C(0x1D, 2, U, 128, 2, 64),
	C(0x21, 2, U, 256, 8, 64),
	C(0x22, 3, U, 512, 4, 64),
	C(0x23, 3, U, 1024, 8, 64),
	C(0x24, 2, U, 1024, 16, 64),
	C(0x25, 3, U, 2048, 8, 64),
	C(0x29, 3, U, 4096, 8, 64),
	C(0x2C, 1, D, 32, 8, 64),
	C(0x30, 1, I, 32, 8, 64),
	S(0x40, DESC_NO_L2_OR_L3),
	C(0x41, 2, U, 128, 4, 32),
	C(0x42, 2, U, 256, 4, 32),
	C(0x43, 2, U, 512, 4, 32),
	C(0x44, 2, U, 1024, 4, 32),
	C(0x45, 2, U, 2048, 4, 32),
	C(0x46, 3, U, 4096, 4, 64),
	C(0x47, 3, U, 8192, 8, 64),
	C(0x48, 2, U, 3072, 12, 64),
	C(0x49, 2, U, 4096, 16, 64),		/* L3 on the Xeon MP family 0FH model 06H (cache.c) */
	C(0x4A, 3, U, 6144, 12, 64),
	C(0x4B, 3, U, 8192, 16, 64),
	C(0x4C, 3, U, 12288, 12, 64),
	C(0x4D, 3, U, 16384, 16, 64),
	C(0x4E, 2, U, 6144, 24, 64),
	T(0x4F, 1, TI, 32, NG, P4K),
	T(0x50, 1, TI, 64, NG, P4K | P2M | P4M),
	T(0x51, 1, TI, 128, NG, P4K | P2M | P4M),
	T(0x52, 1, TI, 256, NG, P4K | P2M | P4M),
	T(0x55, 1, TI, 7, FULL, P2M | P4M),
	T(0x56, 1, TD, 16, 4, P4M),		/* Data TLB0 */
	T(0x57, 1, TD, 16, 4, P4K),		/* Data TLB0 */
	T(0x59, 1, TD, 16, FULL, P4K),		/* Data TLB0 */
	T(0x5A, 1, TD, 32, 4, P2M | P4M),	/* Data TLB0 */
	T(0x5B, 1, TD, 64, NG, P4K | P4M),
	T(0x5C, 1, TD, 128, NG, P4K | P4M),
	T(0x5D, 1, TD, 256, NG, P4K | P4M),
	C(0x60, 1, D, 16, 8, 64),
	T(0x61, 1, TI, 48, FULL, P4K),
	T(0x63, 1, TD, 32, 4, P2M | P4M),
	T(0x63, 1, TD, 4, 4, P1G),
	T(0x64, 1, TD, 512, 4, P4K),
	C(0x66, 1, D, 8, 4, 64),
	C(0x67, 1, D, 16, 4, 64),
	C(0x68, 1, D, 32, 4, 64),
	T(0x6A, 1, TD, 64, 8, P4K),		/* uTLB */
	T(0x6B, 1, TD, 256, 8, P4K),
	T(0x6C, 1, TD, 128, 8, P2M | P4M),
	T(0x6D, 1, TD, 16, FULL, P1G),
	S(0x70, DESC_OTHER),			/* trace cache, 12K micro-ops */
	S(0x71, DESC_OTHER),
	S(0x72, DESC_OTHER),
	T(0x76, 1, TI, 8, FULL, P2M | P4M),
	C(0x78, 2, U, 1024, 4, 64),
	C(0x79, 2, U, 128, 8, 64),
	C(0x7A, 2, U, 256, 8, 64),
	C(0x7B, 2, U, 512, 8, 64),
	C(0x7C, 2, U, 1024, 8, 64),
	C(0x7D, 2, U, 2048, 8, 64),
	C(0x7F, 2, U, 512, 2, 64),
	C(0x80, 2, U, 512, 8, 64),
	C(0x82, 2, U, 256, 8, 32),
	C(0x83, 2, U, 512, 8, 32),
	C(0x84, 2, U, 1024, 8, 32),
	C(0x85, 2, U, 2048, 8, 32),
	C(0x86, 2, U, 512, 4, 64),
	C(0x87, 2, U, 1024, 8, 64),
	T(0xA0, 1, TD, 32, FULL, P4K),
	T(0xB0, 1, TI, 128, 4, P4K),
	T(0xB1, 1, TI, 8, 4, P2M),		/* or 4M pages, 4 entries */
	T(0xB2, 1, TI, 64, 4, P4K),
	T(0xB3, 1, TD, 128, 4, P4K),
	T(0xB4, 2, TD, 256, 4, P4K),		/* Data TLB1 */
	T(0xB5, 1, TI, 64, 8, P4K),
	T(0xB6, 1, TI, 128, 8, P4K),
	T(0xBA, 2, TD, 64, 4, P4K),		/* Data TLB1 */
	T(0xC0, 1, TD, 8, 4, P4K | P4M),
	T(0xC1, 2, TU, 1024, 8, P4K | P2M),
	T(0xC2, 1, TD, 16, 4, P4K | P2M),
	T(0xC3, 2, TU, 1536, 6, P4K | P2M),
	T(0xC3, 2, TU, 16, 4, P1G),
	T(0xC4, 1, TD, 32, 4, P2M | P4M),
	T(0xCA, 2, TU, 512, 4, P4K),
	C(0xD0, 3, U, 512, 4, 64),
	C(0xD1, 3, U, 1024, 4, 64),
	C(0xD2, 3, U, 2048, 4, 64),
	C(0xD6, 3, U, 1024, 8, 64),
	C(0xD7, 3, U, 2048, 8, 64),
	C(0xD8, 3, U, 4096, 8, 64),
	C(0xDC, 3, U, 1536, 12, 64),
	C(0xDD, 3, U, 3072, 12, 64),
	C(0xDE, 3, U, 6144, 12, 64),
	C(0xE2, 3, U, 2048, 16, 64),
	C(0xE3, 3, U, 4096, 16, 64),
	C(0xE4, 3, U, 8192, 16, 64),
	C(0xEA, 3, U, 12288, 24, 64),
	C(0xEB, 3, U, 18432, 24, 64),
	C(0xEC, 3, U, 24576, 24, 64),
	S(0xF0, DESC_OTHER),			/* 64-byte prefetching */
	S(0xF1, DESC_OTHER),			/* 128-byte prefetching */
	S(0xFE, DESC_USE_LEAF_18H),
	S(0xFF, DESC_USE_LEAF_04H),
};

const struct cache_desc *cache_desc_find(uint8_t code, size_t *n)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		if (table[i].code != code)
			continue;
		size_t k = 1;
		while (i + k < ARRAY_SIZE(table) && table[i + k].code == code)
			k++;
		*n = k;
		return &table[i];
	}
	*n = 0;
	return NULL;
}
