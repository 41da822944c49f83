/*
 * cpu/cache_desc.h - the one-byte cache and TLB descriptors of Intel's
 * CPUID leaf 02H, as data (cpu/cache_desc.c).  Internal to cpu/cache.c.
 */
#ifndef PMUBOOT_CPU_CACHE_DESC_H
#define PMUBOOT_CPU_CACHE_DESC_H

#include "lib/libc.h"

enum cache_desc_kind {
	DESC_CACHE,		/* a cache: size_kib, ways, line */
	DESC_TLB,		/* a TLB: entries, ways (0: fully associative or not given), pages */
	DESC_NO_L2_OR_L3,	/* 40H: no L2, or (with an L2) no L3 */
	DESC_USE_LEAF_04H,	/* FFH: caches are in leaf 04H */
	DESC_USE_LEAF_18H,	/* FEH: TLBs are in leaf 18H */
	DESC_OTHER,		/* prefetch sizes, trace caches (micro-ops, not bytes): no geometry */
};

/* Ways when SDM Vol. 2A Table 3-12 (leaf 02H) names none ("Instruction TLB: 4 KByte pages, 32 entries"). */
#define DESC_WAYS_NOT_GIVEN 0xffffu

struct cache_desc {
	uint8_t code;
	uint8_t kind;		/* enum cache_desc_kind */
	uint8_t level;
	uint8_t type;		/* enum cache_type (caches) or enum tlb_type (TLBs) */
	uint32_t size;		/* caches: KiB; TLBs: entries */
	uint16_t ways;		/* 0: fully associative; DESC_WAYS_NOT_GIVEN */
	uint8_t line;		/* caches: line bytes; TLBs: TLB_PAGE_* bits */
};

/* The rows for descriptor code (a code may have two: 63H, C3H), *n of them; NULL when the code is unknown. */
const struct cache_desc *cache_desc_find(uint8_t code, size_t *n);

/*
 * Descriptor 49H is an L3 on the Xeon MP family 0FH model 06H and an L2 on
 * every other part (SDM Vol. 2A Table 3-12).
 */
#define DESC_49H 0x49u
#define DESC_49H_L3_FAMILY 0xFu
#define DESC_49H_L3_MODEL 0x6u

#endif
