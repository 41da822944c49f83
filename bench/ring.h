/*
 * bench/ring.h - the pointer-chase ring of the memory ladder (kernels
 * `latency` and `tlb`, bench/k_latency.asm).
 *
 * The ring covers every 64-byte line of a region whose size is a multiple
 * of 4 KiB, once, as one cycle: each line's first 8 bytes hold the address
 * of the next.  Line i of the ring is perm(i), perm a keyed pseudo-random
 * bijection of the line indices (rounds of multiplying by an odd key,
 * xor-shifting and adding a key modulo the next power of two, walked down
 * to the line count), so
 *   - every page gives the ring each of its 64 page-offset classes (the
 *     line's index inside its 4 KiB page, which selects the L1 set) once per
 *     lap, so every set holds as many of the region's lines as any other;
 *   - consecutive loads land in unrelated pages at unrelated offsets: no
 *     stride, stream or adjacent-line prefetcher can follow;
 *   - a page (and a line) comes back after a random number of others, as in
 *     any random permutation of the lines, so TLBs and caches see the hit
 *     rates of random access, not the all-miss of a fixed page order.
 * The bijection is invertible, so the ring is written in address order
 * (streaming: a 2 GiB ring has 32 M lines) and needs no index table.
 */
#ifndef PMUBOOT_BENCH_RING_H
#define PMUBOOT_BENCH_RING_H

#include "lib/libc.h"

#define RING_LINE 64u
#define RING_PAGE 4096u
#define RING_CLASSES (RING_PAGE / RING_LINE)	/* page-offset classes: lines per 4 KiB page */

struct ring_plan {
	uint64_t lines;			/* 64-byte lines in the region */
	unsigned bits;			/* perm works on [0, 2^bits), walked down to [0, lines) */
	uint64_t mask;
	uint64_t key[4];
	uint64_t inv[4];		/* (key | 1)'s inverse modulo 2^64, for undoing mix */
};

/* The plan for a region of `bytes` (a multiple of RING_PAGE, > 0), from a seed. */
void ring_plan_init(struct ring_plan *p, uint64_t bytes, uint64_t seed);
/* The byte offset of the line at position i of the ring (0 <= i < lines). */
uint64_t ring_plan_offset(const struct ring_plan *p, uint64_t i);

/*
 * Write the ring into [base, base + bytes) (bytes a multiple of RING_PAGE):
 * the line at position i points to the line at position i + 1, the last to
 * the first.  Returns the first line's address.
 */
uint8_t *ring_build(uint8_t *base, uint64_t bytes, uint64_t seed);

#endif
