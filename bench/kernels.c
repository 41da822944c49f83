/*
 * bench/kernels.c - the variants, as data (see kernels.h).
 *
 * Scratch window layout (offsets from its start, page 0 = 0x0000-0x0fff,
 * page 1 = 0x1000-0x1fff):
 *   0x000        ref.load_chain's self-pointer
 *   0x200-0x24f  store_forward (p at 0x200, line-aligned)
 *   0x400        alias_4k load (page 0); its stores at 0x1400 + d (page 1)
 *   0xf80-0x1003 split: aligned 0xf80, line split 0xfbc (crosses 0xfc0),
 *                page split 0xffc (crosses 0x1000); both splits sit at
 *                offset 60 of their line, so only what is crossed differs.
 * Controls come before the variants compared with them: the harness runs the
 * table in order and a variant's penalty needs its control's figure.
 */
#include "bench/kernels.h"
#include "events/events.h"
#include "platform/vec.h"

#define K(fn) fn, fn##_end

#define SF_P 0x200u
#define ALIAS_P 0x400u
#define ALIAS_Q (BENCH_PAGE + ALIAS_P)
#define SPLIT_ALIGNED 0xf80u
#define SPLIT_LINE 0xfbcu
#define SPLIT_PAGE (BENCH_PAGE - 4u)

/*
 * A loop-carried chain through a register add or a load (bench_def.chain_min):
 * each link takes at least one cycle on any core, so a sample below it is not
 * a measurement (bench/stats.h).  The L1 load-to-use latency is 4-5 cycles on
 * today's cores, but one cycle is the floor nothing can beat.
 */
#define ONE_CYCLE 1000

static const struct bench_def defs[] = {
	/* Reference kernels first: a broken set-up is obvious from these two lines. */
	{ "ref", "add_chain", NULL, K(bk_add_chain), 0, 0, false, false, 0, BENCH_REFERENCE, 950, 1050,
	  "add rax, rcx", ONE_CYCLE, 0 },
	/* Every x86 core's L1 load-to-use latency lies in 2..8 cycles; outside that the set-up is broken. */
	{ "ref", "load_chain", NULL, K(bk_load_chain), 0x000, 0, false, false, 0, BENCH_REFERENCE, 2000, 8000,
	  "mov rax, [rax]", ONE_CYCLE, 0 },

	{ "store_forward", "forward", NULL, K(bk_sf_forward), SF_P, 0, false, false, EV_ROLE_STLF_OK,
	  BENCH_CONTROL, 0, 0, "mov [rsi], rax / mov rax, [rsi]", 0, 0 },
	{ "store_forward", "size_mismatch", "forward", K(bk_sf_size_mismatch), SF_P, 0, false, false,
	  EV_ROLE_STLF_BLOCK, BENCH_PROVOKES, 0, 0, "mov [rsi], eax / mov rax, [rsi]", 0, 0 },
	{ "store_forward", "partial_overlap", "forward", K(bk_sf_partial_overlap), SF_P, SF_P + 4, false, false,
	  EV_ROLE_STLF_BLOCK, BENCH_PROVOKES, 0, 0, "mov [rsi], rax / mov rax, [rdx=rsi+4]", 0, 0 },
	{ "store_forward", "two_stores", "forward", K(bk_sf_two_stores), SF_P, 0, false, false,
	  EV_ROLE_STLF_BLOCK, BENCH_PROVOKES, 0, 0, "mov [rsi], eax / mov [rsi+4], eax / mov rax, [rsi]", 0, 0 },
	{ "store_forward", "forward_tput", NULL, K(bk_sf_forward_tput), SF_P, 0, false, false, EV_ROLE_STLF_OK,
	  BENCH_CONTROL, 0, 0, "mov [rsi], rcx / mov rax, [rsi]", 0, 0 },
	{ "store_forward", "size_mismatch_tput", "forward_tput", K(bk_sf_size_mismatch_tput), SF_P, 0, false,
	  false, EV_ROLE_STLF_BLOCK, BENCH_PROVOKES, 0, 0, "mov [rsi], ecx / mov rax, [rsi]", 0, 0 },
	{ "store_forward", "late_control", NULL, K(bk_sf_late_data), SF_P, SF_P + 64, false, false, 0,
	  BENCH_CONTROL, 0, 0, "mov rcx, r9 / imul rcx, r8 (x3) / mov [rdx=rsi+64], ecx / mov eax, [rsi]", 0, 0 },
	{ "store_forward", "sta_unknown", "late_control", K(bk_sf_late_addr), SF_P, SF_P + 64, false, false,
	  EV_ROLE_STA_BLOCK, BENCH_PROVOKES_EVENTS, 0, 0,
	  "mov rdx, r9 / imul rdx, r8 (x3) / mov [rdx=rsi+64], ecx / mov eax, [rsi]", 0, 0 },
	{ "store_forward", "std_unknown", "late_control", K(bk_sf_late_data), SF_P, SF_P, false, false,
	  EV_ROLE_STD_BLOCK, BENCH_PROVOKES_EVENTS, 0, 0,
	  "mov rcx, r9 / imul rcx, r8 (x3) / mov [rdx=rsi], ecx / mov eax, [rsi]", 0, 0 },
	/* Vector forwarding (issue 24): each beside the same-width forward that succeeds. */
	{ "store_forward", "ymm_forward", NULL, K(bk_sf_ymm_forward), SF_P, 0, false, false, EV_ROLE_STLF_OK,
	  BENCH_CONTROL, 0, 0, "vmovdqu [rsi], ymm0 / vmovdqu ymm0, [rsi]", 0, 0 },
	{ "store_forward", "ymm_upper", "ymm_forward", K(bk_sf_ymm_upper), SF_P, SF_P + 16, false, false, 0,
	  BENCH_SWEEP, 0, 0, "vmovdqu [rsi], ymm0 / vmovdqu xmm0, [rdx=rsi+16]", 0, 0 },
	{ "store_forward", "xmm_ymm", "ymm_forward", K(bk_sf_xmm_ymm), SF_P, 0, false, false, EV_ROLE_STLF_BLOCK,
	  BENCH_PROVOKES, 0, 0, "vmovdqu [rsi], xmm0 / vmovdqu ymm0, [rsi]", 0, 0 },
	{ "store_forward", "zmm_forward", NULL, K(bk_sf_zmm_forward), SF_P, 0, false, false, EV_ROLE_STLF_OK,
	  BENCH_CONTROL, 0, 0, "vmovdqu64 [rsi], zmm0 / vmovdqu64 zmm0, [rsi]", 0, 0 },
	{ "store_forward", "zmm_upper", "zmm_forward", K(bk_sf_zmm_upper), SF_P, SF_P + 32, false, false, 0,
	  BENCH_SWEEP, 0, 0, "vmovdqu64 [rsi], zmm0 / vmovdqu ymm0, [rdx=rsi+32]", 0, 0 },
	{ "store_forward", "ymm_zmm", "zmm_forward", K(bk_sf_ymm_zmm), SF_P, 0, false, false, EV_ROLE_STLF_BLOCK,
	  BENCH_PROVOKES, 0, 0, "vmovdqu [rsi], ymm0 / vmovdqu64 zmm0, [rsi]", 0, 0 },

	{ "alias_4k", "line_offset", NULL, K(bk_alias_chain), ALIAS_P, ALIAS_Q + 64, false, false, 0,
	  BENCH_CONTROL, 0, 0, "mov [rdx+rax], rcx (rdx = rsi+4096+64) / mov rax, [rsi+rax] (rax = 0)", ONE_CYCLE, 0 },
	{ "alias_4k", "same_offset", "line_offset", K(bk_alias_chain), ALIAS_P, ALIAS_Q, false, false,
	  EV_ROLE_ALIAS_4K, BENCH_PROVOKES, 0, 0, "mov [rdx+rax], rcx (rdx = rsi+4096) / mov rax, [rsi+rax] (rax = 0)", ONE_CYCLE, 0 },
	{ "alias_4k", "offset_4", "line_offset", K(bk_alias_chain), ALIAS_P, ALIAS_Q + 4, false, false,
	  EV_ROLE_ALIAS_4K, BENCH_SWEEP, 0, 0, "mov [rdx+rax], rcx (rdx = rsi+4096+4) / mov rax, [rsi+rax] (rax = 0)", ONE_CYCLE, 0 },
	{ "alias_4k", "offset_8", "line_offset", K(bk_alias_chain), ALIAS_P, ALIAS_Q + 8, false, false,
	  EV_ROLE_ALIAS_4K, BENCH_SWEEP, 0, 0, "mov [rdx+rax], rcx (rdx = rsi+4096+8) / mov rax, [rsi+rax] (rax = 0)", ONE_CYCLE, 0 },
	{ "alias_4k", "offset_16", "line_offset", K(bk_alias_chain), ALIAS_P, ALIAS_Q + 16, false, false,
	  EV_ROLE_ALIAS_4K, BENCH_SWEEP, 0, 0, "mov [rdx+rax], rcx (rdx = rsi+4096+16) / mov rax, [rsi+rax] (rax = 0)", ONE_CYCLE, 0 },
	{ "alias_4k", "offset_32", "line_offset", K(bk_alias_chain), ALIAS_P, ALIAS_Q + 32, false, false,
	  EV_ROLE_ALIAS_4K, BENCH_SWEEP, 0, 0, "mov [rdx+rax], rcx (rdx = rsi+4096+32) / mov rax, [rsi+rax] (rax = 0)", ONE_CYCLE, 0 },

	{ "split", "load_aligned", NULL, K(bk_load_chain), SPLIT_ALIGNED, 0, true, false, 0, BENCH_CONTROL, 0, 0,
	  "mov rax, [rax] (rax 8-byte aligned)", ONE_CYCLE, 0 },
	{ "split", "load_line", "load_aligned", K(bk_load_chain), SPLIT_LINE, 0, true, false, EV_ROLE_SPLIT_LOAD,
	  BENCH_PROVOKES, 0, 0, "mov rax, [rax] (rax = line end - 4)", ONE_CYCLE, 0 },
	{ "split", "load_page", "load_aligned", K(bk_load_chain), SPLIT_PAGE, 0, true, true,
	  EV_ROLE_SPLIT_LOAD | EV_ROLE_PAGE_SPLIT_LOAD, BENCH_PROVOKES, 0, 0, "mov rax, [rax] (rax = 4 KiB boundary - 4)", ONE_CYCLE, 0 },
	{ "split", "store_aligned", NULL, K(bk_store_tput), SPLIT_ALIGNED, 0, true, false, 0, BENCH_CONTROL, 0, 0,
	  "mov [rsi], rcx (rsi 8-byte aligned)", 0, 0 },
	{ "split", "store_line", "store_aligned", K(bk_store_tput), SPLIT_LINE, 0, true, false, EV_ROLE_SPLIT_STORE,
	  BENCH_PROVOKES, 0, 0, "mov [rsi], rcx (rsi = line end - 4)", 0, 0 },
	{ "split", "store_page", "store_aligned", K(bk_store_tput), SPLIT_PAGE, 0, true, true,
	  EV_ROLE_SPLIT_STORE | EV_ROLE_PAGE_SPLIT_STORE, BENCH_PROVOKES, 0, 0,
	  "mov [rsi], rcx (rsi = 4 KiB boundary - 4)", 0, 0 },

	/*
	 * The memory ladder: each row stands for the variants bench/suite_sweep.c makes from the cache
	 * geometry and the arena it gets (bench/ladder.h), measured after the rows above.  The fn and
	 * body here are the latency rows'; the bandwidth variants choose their kernel by vector width.
	 */
	{ "latency", "<size>", NULL, K(bk_chase), 0, 0, false, false, 0, BENCH_SWEEP, 0, 0,
	  "mov rax, [rax] (a random ring of every 64-byte line of <size> bytes, largest pages)", ONE_CYCLE, 0 },
	{ "tlb", "<size>", NULL, K(bk_chase), 0, 0, false, false, 0, BENCH_SWEEP, 0, 0,
	  "mov rax, [rax] (the same ring on 4 KiB pages)", ONE_CYCLE, 0 },
	{ "bandwidth", "<op>_<level>", NULL, K(bk_bw_read_sse), 0, 0, false, false, 0, BENCH_SWEEP, 0, 0,
	  "read, write, write_nt or copy 256 bytes per stream, widest vectors (l1, l2, l3, dram)", 0, 0 },
};

/* The rows that stand for variants made at run time, by kernel. */
static const struct {
	const char *kernel;
	enum bench_ladder kind;
} ladders[] = {
	{ "latency", BENCH_LADDER_LATENCY },
	{ "tlb", BENCH_LADDER_TLB },
	{ "bandwidth", BENCH_LADDER_BANDWIDTH },
};

enum bench_ladder bench_def_ladder(const struct bench_def *d)
{
	for (size_t i = 0; i < ARRAY_SIZE(ladders); i++)
		if (!strcmp(d->kernel, ladders[i].kernel))
			return ladders[i].kind;
	return BENCH_LADDER_NONE;
}

size_t bench_def_count(void) { return ARRAY_SIZE(defs); }
const struct bench_def *bench_def_at(size_t i) { return i < ARRAY_SIZE(defs) ? &defs[i] : NULL; }

const struct bench_def *bench_def_find(const char *kernel, const char *variant)
{
	for (size_t i = 0; i < ARRAY_SIZE(defs); i++)
		if (!strcmp(defs[i].kernel, kernel) && !strcmp(defs[i].variant, variant))
			return &defs[i];
	return NULL;
}

const struct bench_def *bench_def_control(const struct bench_def *d)
{
	return d->control ? bench_def_find(d->kernel, d->control) : NULL;
}

/* Kernels whose bodies use vector registers beyond SSE, and what they need (platform/vec.h). */
static const struct {
	bench_kernel_fn fn;
	uint32_t needs;
} vector_kernels[] = {
	{ bk_sf_ymm_forward, VEC_AVX }, { bk_sf_ymm_upper, VEC_AVX },     { bk_sf_xmm_ymm, VEC_AVX },
	{ bk_sf_zmm_forward, VEC_AVX512F }, { bk_sf_zmm_upper, VEC_AVX512F }, { bk_sf_ymm_zmm, VEC_AVX512F },
};

uint32_t bench_def_needs(const struct bench_def *d)
{
	for (size_t i = 0; i < ARRAY_SIZE(vector_kernels); i++)
		if (vector_kernels[i].fn == d->fn)
			return vector_kernels[i].needs;
	return 0;
}
