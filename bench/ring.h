/*
 * bench/ring.h - the pointer-chase ring of the memory ladder (kernel
 * `latency` and `tlb`, bench/k_latency.asm).
 *
 * The ring covers every 64-byte line of a region whose size is a multiple
 * of 4 KiB, once, as one cycle: each line's first 8 bytes hold the address
 * of the next.  It is walked in 64 rounds; each round visits every 4 KiB
 * page of the region once, in a pseudo-random page order (the same in every
 * round), and takes from each page one line of a page-offset class (the
 * line's index inside its page, 0..63) that no earlier round took from that
 * page: class (sigma[round] + tau[page position mod 64]) mod 64, sigma and
 * tau random permutations of the 64 classes.  So consecutive loads are in
 * different pages at unrelated offsets, a page's lines come in random order
 * 64 page-visits apart, and no stride, stream or adjacent-line prefetcher
 * can follow; and every page-offset class (every L1 set) holds as many of
 * the region's lines as any other.  On 4 KiB pages every load past the
 * first round's reach of the TLB is a TLB miss, which is what `tlb` shows.
 */
#ifndef PMUBOOT_BENCH_RING_H
#define PMUBOOT_BENCH_RING_H

#include "lib/libc.h"

#define RING_LINE 64u
#define RING_PAGE 4096u
#define RING_CLASSES (RING_PAGE / RING_LINE)	/* page-offset classes: lines per 4 KiB page */

struct ring_plan {
	uint64_t pages;			/* 4 KiB pages in the region */
	unsigned bits;			/* the page permutation works on [0, 2^bits), walked down to [0, pages) */
	uint64_t mask;
	uint64_t key[3];
	uint8_t sigma[RING_CLASSES];	/* per round */
	uint8_t tau[RING_CLASSES];	/* per page position mod 64 */
};

/* The plan for a region of `bytes` (a multiple of RING_PAGE, > 0), from a seed. */
void ring_plan_init(struct ring_plan *p, uint64_t bytes, uint64_t seed);
/* The byte offset of the line at position i of the ring (0 <= i < bytes / RING_LINE). */
uint64_t ring_plan_offset(const struct ring_plan *p, uint64_t i);
/* The page at position k of a round (a permutation of [0, pages)). */
uint64_t ring_plan_page(const struct ring_plan *p, uint64_t k);

/*
 * Write the ring into [base, base + bytes) (bytes a multiple of RING_PAGE):
 * the line at position i points to the line at position i + 1, the last to
 * the first.  Returns the first line's address.
 */
uint8_t *ring_build(uint8_t *base, uint64_t bytes, uint64_t seed);

#endif
