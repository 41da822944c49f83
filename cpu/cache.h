/*
 * cpu/cache.h - the cache and TLB geometry of the processor this runs on.
 *
 * Decoded from CPUID alone (platform/hw.h's hw_cpuid), so the image, pmuboot-host
 * and a CPUID dump give the same answer:
 *   Intel  caches from leaf 04H (deterministic cache parameters), else the
 *          one-byte descriptors of leaf 02H; TLBs from leaf 18H, else leaf 02H;
 *   AMD    caches from Fn8000_001D (when TopologyExtensions says it is valid),
 *   Hygon  else Fn8000_0005 (L1) and Fn8000_0006 (L2, L3); TLBs from
 *          Fn8000_0005 (L1), Fn8000_0006 (L2) and Fn8000_0019 (1 GiB pages).
 * A hybrid part's core types differ: the answer is the calling core's.
 * The `cache` record (docs/results-format.md) and its text lines come from
 * cache_report; the benchmark stage's memory ladder (bench/src_ladder.c)
 * takes its sizes from the same struct.
 */
#ifndef PMUBOOT_CPU_CACHE_H
#define PMUBOOT_CPU_CACHE_H

#include "lib/libc.h"
#include "lib/record.h"
#include "cpu/cpu.h"

#define CACHE_MAX_LEVELS 12
#define CACHE_MAX_TLBS 24
/* Subleaves of leaf 04H / Fn8000_001D read at most (every core so far has at most 5 caches). */
#define CACHE_MAX_SUBLEAVES 8
/* Subleaves of leaf 18H read at most (Alder Lake's P-core lists 9). */
#define CACHE_MAX_TLB_SUBLEAVES 16

/* The type field of leaf 04H EAX[4:0] and Fn8000_001D EAX[4:0] (SDM Vol. 2A CPUID leaf 04H; APM Vol. 3 E.4.17). */
enum cache_type { CACHE_NONE = 0, CACHE_DATA = 1, CACHE_INSTRUCTION = 2, CACHE_UNIFIED = 3 };

/* The type field of leaf 18H EDX[4:0] (SDM Vol. 2A CPUID leaf 18H); the other sources map onto it. */
enum tlb_type { TLB_NONE = 0, TLB_DATA = 1, TLB_INSTRUCTION = 2, TLB_UNIFIED = 3, TLB_LOAD = 4, TLB_STORE = 5 };

/* Page sizes a TLB holds: the bit order of leaf 18H EBX[3:0]. */
#define TLB_PAGE_4K (1u << 0)
#define TLB_PAGE_2M (1u << 1)
#define TLB_PAGE_4M (1u << 2)
#define TLB_PAGE_1G (1u << 3)

struct cache_level {
	uint8_t level;			/* 1-based */
	enum cache_type type;
	uint64_t size;			/* bytes: ways x partitions x line x sets */
	uint32_t ways, partitions, line, sets;
	uint32_t shared_by;		/* CPUID's bound on the logical processors sharing it (EAX[25:14] + 1); 0: not given */
	bool fully_associative;
	int8_t inclusive;		/* EDX[1] of leaf 04H / Fn8000_001D; -1: not given */
};

struct cache_tlb {
	uint8_t level;			/* 1-based */
	enum tlb_type type;
	uint8_t pages;			/* TLB_PAGE_* */
	uint32_t entries;
	uint32_t ways;			/* 0: not given (fully_associative says when that is why) */
	bool fully_associative;
	uint32_t shared_by;		/* leaf 18H EDX[25:14] + 1; 0: not given */
};

struct cache_info {
	size_t n, ntlb;
	struct cache_level lv[CACHE_MAX_LEVELS];
	struct cache_tlb tlb[CACHE_MAX_TLBS];
	const char *caches_from;	/* "cpuid_04h", "cpuid_02h", "cpuid_8000001dh", "cpuid_80000005h_6h"; NULL: none */
	const char *tlbs_from;		/* "cpuid_18h", "cpuid_02h", "cpuid_80000005h_6h_19h"; NULL: none */
	const char *why;		/* when there is no cache geometry: why */
	bool page_1g;			/* CPUID 80000001H:EDX[26]: 1 GiB pages */
	uint32_t apic_id;		/* the calling CPU's (CPUID), for the record */
	char notes[160];		/* what was left out or is doubtful ("", none) */
};

/* The geometry of the CPU this runs on (or the dump hw_cpuid answers from). */
void cache_identify(const struct cpu_info *ci, struct cache_info *out);

/*
 * The `cache` record (in the caller's r) and one text line per cache and TLB.
 * with_cpu: the record names its processor itself, {"n": n (null when n < 0),
 * "apic_id": the CPU's}; false inside a measuring pass, whose records carry it
 * already (lib/record.h rec_set_cpu).
 */
void cache_report(const struct cache_info *c, struct rec *r, bool with_cpu, int64_t n);

/* The data-side cache (data or unified) of a level, or NULL. */
const struct cache_level *cache_data_level(const struct cache_info *c, unsigned level);
/* The highest level with a data-side cache, or NULL when none is known. */
const struct cache_level *cache_last_level(const struct cache_info *c);
/* Entries of the data-side TLB (data, load or unified) at level holding pages of `page`; 0: none known. */
uint32_t cache_dtlb_entries(const struct cache_info *c, unsigned level, uint8_t page);

const char *cache_type_name(enum cache_type t);
const char *tlb_type_name(enum tlb_type t);

#endif
