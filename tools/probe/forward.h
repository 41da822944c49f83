/*
 * tools/probe/forward.h - store-to-load forwarding chains for the independent probe (chase_probe.c's
 * KIND forward-S-L-OFF): a store of S bytes at p and a load of L bytes from p + OFF, the loaded register
 * the next store's data, so a unit's time is the forwarding latency of that pairing.  Written apart from
 * pmuboot's kernels (bench/k_store_forward.asm): `make bench` holds their spread against this one's.
 */
#ifndef PMUBOOT_TOOLS_PROBE_FORWARD_H
#define PMUBOOT_TOOLS_PROBE_FORWARD_H

#include <stdint.h>

/* Units go in eights: one loop trip runs eight store-load pairs. */
#define FORWARD_UNROLL 8

enum forward_needs { FORWARD_ANY, FORWARD_AVX, FORWARD_AVX512F };

struct forward {
	int store, load;	/* bytes */
	enum forward_needs needs;
	void (*chain)(uint8_t *p, const uint8_t *q, long units);
};

/* The chain of that store and load width, or NULL when there is none. */
const struct forward *forward_find(int store, int load);

/* Whether this CPU and its OS run the chain (__builtin_cpu_supports, which asks XCR0 too). */
int forward_usable(const struct forward *f);

#endif
