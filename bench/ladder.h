/*
 * bench/ladder.h - the sizes of the memory ladder, from the cache geometry
 * (cpu/cache.h): which `latency.<size>`, `tlb.<size>` and
 * `bandwidth.<op>_<level>` variants the benchmark stage generates
 * (bench/src_ladder.c), and their names.  Pure functions: unit-tested.
 *
 *   latency  a power-of-two ladder from 4 KiB to the first power of two at or
 *            above 4 x the last-level cache, plus for every data-side cache
 *            level of size S the points S/4 (well inside it), S x 7/8 (just
 *            under) and S x 9/8 (just over), and the tlb ladder's points;
 *   tlb      a power-of-two ladder from 64 KiB to 4 x the largest 4 KiB
 *            reach of the data TLBs (entries x 4 KiB), plus 7/8 and 9/8 of
 *            each level's reach;
 *   bandwidth  half of each data-side cache level, and DRAM at the latency
 *            ladder's top.
 * Every size is a multiple of 4 KiB and at most the arena's `limit`.
 */
#ifndef PMUBOOT_BENCH_LADDER_H
#define PMUBOOT_BENCH_LADDER_H

#include "lib/libc.h"
#include "cpu/cache.h"

#define LADDER_GRAIN 4096ull			/* every size is a multiple of this (the ring's page) */
#define LADDER_BYTES_MAX (1ull << 40)		/* 1 TiB: a size past this is no arena's (and its product cannot wrap) */
#define LADDER_MAX_POINTS 64
#define LADDER_TLB_FROM (64ull * 1024)		/* the tlb ladder starts inside every core's L1 DTLB reach */
#define LADDER_LLC_FACTOR 4			/* the latency ladder reaches 4 x the last-level cache */
#define LADDER_TLB_FACTOR 4			/* the tlb ladder reaches 4 x the largest TLB reach */
/* When the geometry names no last-level cache / no data TLB: these tops (documented in docs/benchmarks.md). */
#define LADDER_DEFAULT_TOP (256ull * 1024 * 1024)
#define LADDER_TLB_DEFAULT_TOP (64ull * 1024 * 1024)
#define LADDER_NAME_MAX 24

/* The arena sizes the ladders want. */
uint64_t ladder_latency_top(const struct cache_info *c);
uint64_t ladder_tlb_top(const struct cache_info *c);

/* Sizes, sorted and distinct, at most `limit` bytes; returns how many (at most cap). */
size_t ladder_latency_sizes(const struct cache_info *c, uint64_t limit, uint64_t *out, size_t cap);
size_t ladder_tlb_sizes(const struct cache_info *c, uint64_t limit, uint64_t *out, size_t cap);

/* Bandwidth working sets: one per data-side cache level (level 1, 2, ...) and DRAM (level 0), at most cap. */
struct ladder_level {
	unsigned level;		/* 0: DRAM */
	uint64_t bytes;
};
size_t ladder_bandwidth_sets(const struct cache_info *c, uint64_t limit, struct ladder_level *out, size_t cap);

/* "4k", "48k", "1m", "1536k", "2g": the largest binary unit that divides the size. */
const char *ladder_name(uint64_t bytes, char out[LADDER_NAME_MAX]);
/* The inverse: digits and k, m or g (binary units); false unless a positive multiple of LADDER_GRAIN. */
bool ladder_parse(const char *s, size_t len, uint64_t *bytes);

#endif
