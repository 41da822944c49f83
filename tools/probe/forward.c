/*
 * tools/probe/forward.c - the probe's store-to-load forwarding chains (forward.h), one per pairing of
 * store and load widths that bench/kernels.c measures.  A narrower load into a vector register zeroes the
 * register above it (SDM Vol. 1 §14.1.3), so it still feeds the next wider store and the chain holds.
 * Vector chains end with VZEROUPPER: no dirty upper state follows them into the rest of the program.
 */
#include <stddef.h>

#include "tools/probe/forward.h"

#define STR(x) #x
#define XSTR(x) STR(x)

#define CHAIN(name, zero, store, load, end)                                                   \
	static void name(uint8_t *p, const uint8_t *q, long units)                            \
	{                                                                                     \
		long trips = units / FORWARD_UNROLL;                                          \
		__asm__ volatile(zero "\n\t1:\n\t.rept " XSTR(FORWARD_UNROLL) "\n\t" store "\n\t" load "\n\t.endr\n\t" \
				 "dec %0\n\tjnz 1b\n\t" end                                   \
				 : "+r"(trips) : "r"(p), "r"(q) : "rax", "xmm0", "memory");   \
	}

#define GPR_ZERO "xorl %%eax, %%eax"
#define VEC_ZERO "vpxor %%xmm0, %%xmm0, %%xmm0"

CHAIN(chain_4_8, GPR_ZERO, "movl %%eax, (%1)", "movq (%2), %%rax", "")
CHAIN(chain_8_8, GPR_ZERO, "movq %%rax, (%1)", "movq (%2), %%rax", "")
CHAIN(chain_16_32, VEC_ZERO, "vmovdqu %%xmm0, (%1)", "vmovdqu (%2), %%ymm0", "vzeroupper")
CHAIN(chain_32_16, VEC_ZERO, "vmovdqu %%ymm0, (%1)", "vmovdqu (%2), %%xmm0", "vzeroupper")
CHAIN(chain_32_32, VEC_ZERO, "vmovdqu %%ymm0, (%1)", "vmovdqu (%2), %%ymm0", "vzeroupper")
CHAIN(chain_32_64, VEC_ZERO, "vmovdqu %%ymm0, (%1)", "vmovdqu64 (%2), %%zmm0", "vzeroupper")
CHAIN(chain_64_32, VEC_ZERO, "vmovdqu64 %%zmm0, (%1)", "vmovdqu (%2), %%ymm0", "vzeroupper")
CHAIN(chain_64_64, VEC_ZERO, "vmovdqu64 %%zmm0, (%1)", "vmovdqu64 (%2), %%zmm0", "vzeroupper")

static const struct forward chains[] = {
	{ 4, 8, FORWARD_ANY, chain_4_8 },
	{ 8, 8, FORWARD_ANY, chain_8_8 },
	{ 16, 32, FORWARD_AVX, chain_16_32 },
	{ 32, 16, FORWARD_AVX, chain_32_16 },
	{ 32, 32, FORWARD_AVX, chain_32_32 },
	{ 32, 64, FORWARD_AVX512F, chain_32_64 },
	{ 64, 32, FORWARD_AVX512F, chain_64_32 },
	{ 64, 64, FORWARD_AVX512F, chain_64_64 },
};

const struct forward *forward_find(int store, int load)
{
	for (unsigned i = 0; i < sizeof(chains) / sizeof(chains[0]); i++)
		if (chains[i].store == store && chains[i].load == load)
			return &chains[i];
	return NULL;
}

int forward_usable(const struct forward *f)
{
	__builtin_cpu_init();
	switch (f->needs) {
	case FORWARD_AVX:
		return __builtin_cpu_supports("avx");
	case FORWARD_AVX512F:
		return __builtin_cpu_supports("avx512f");
	default:
		return 1;
	}
}
