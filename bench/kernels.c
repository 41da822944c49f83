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

/* A kernel's entry and end (the harness checks the body fits between them). */
#define K(f) .fn = f, .fn_end = f##_end

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
	{ .kernel = "ref", .variant = "add_chain", K(bk_add_chain), .expect = BENCH_REFERENCE,
	  .ref_lo = 950, .ref_hi = 1050, .chain_min = ONE_CYCLE, .body = "add rax, rcx" },
	/* Every x86 core's L1 load-to-use latency lies in 2..8 cycles; outside that the set-up is broken. */
	{ .kernel = "ref", .variant = "load_chain", K(bk_load_chain), .expect = BENCH_REFERENCE,
	  .ref_lo = 2000, .ref_hi = 8000, .chain_min = ONE_CYCLE, .body = "mov rax, [rax]" },

	{ .kernel = "store_forward", .variant = "forward", K(bk_sf_forward), .p_off = SF_P, .roles = EV_ROLE_STLF_OK,
	  .expect = BENCH_CONTROL, .body = "mov [rsi], rax / mov rax, [rsi]" },
	{ .kernel = "store_forward", .variant = "size_mismatch", .control = "forward", K(bk_sf_size_mismatch),
	  .p_off = SF_P, .roles = EV_ROLE_STLF_BLOCK, .expect = BENCH_PROVOKES,
	  .body = "mov [rsi], eax / mov rax, [rsi]" },
	{ .kernel = "store_forward", .variant = "partial_overlap", .control = "forward", K(bk_sf_partial_overlap),
	  .p_off = SF_P, .q_off = SF_P + 4, .roles = EV_ROLE_STLF_BLOCK, .expect = BENCH_PROVOKES,
	  .body = "mov [rsi], rax / mov rax, [rdx=rsi+4]" },
	{ .kernel = "store_forward", .variant = "two_stores", .control = "forward", K(bk_sf_two_stores),
	  .p_off = SF_P, .roles = EV_ROLE_STLF_BLOCK, .expect = BENCH_PROVOKES,
	  .body = "mov [rsi], eax / mov [rsi+4], eax / mov rax, [rsi]" },
	{ .kernel = "store_forward", .variant = "forward_tput", K(bk_sf_forward_tput), .p_off = SF_P,
	  .roles = EV_ROLE_STLF_OK, .expect = BENCH_CONTROL, .body = "mov [rsi], rcx / mov rax, [rsi]" },
	{ .kernel = "store_forward", .variant = "size_mismatch_tput", .control = "forward_tput",
	  K(bk_sf_size_mismatch_tput), .p_off = SF_P, .roles = EV_ROLE_STLF_BLOCK, .expect = BENCH_PROVOKES,
	  .body = "mov [rsi], ecx / mov rax, [rsi]" },
	{ .kernel = "store_forward", .variant = "late_control", K(bk_sf_late_data), .p_off = SF_P, .q_off = SF_P + 64,
	  .expect = BENCH_CONTROL,
	  .body = "mov rcx, r9 / imul rcx, r8 (x3) / mov [rdx=rsi+64], ecx / mov eax, [rsi]" },
	{ .kernel = "store_forward", .variant = "sta_unknown", .control = "late_control", K(bk_sf_late_addr),
	  .p_off = SF_P, .q_off = SF_P + 64, .roles = EV_ROLE_STA_BLOCK, .expect = BENCH_PROVOKES_EVENTS,
	  .body = "mov rdx, r9 / imul rdx, r8 (x3) / mov [rdx=rsi+64], ecx / mov eax, [rsi]" },
	{ .kernel = "store_forward", .variant = "std_unknown", .control = "late_control", K(bk_sf_late_data),
	  .p_off = SF_P, .q_off = SF_P, .roles = EV_ROLE_STD_BLOCK, .expect = BENCH_PROVOKES_EVENTS,
	  .body = "mov rcx, r9 / imul rcx, r8 (x3) / mov [rdx=rsi], ecx / mov eax, [rsi]" },
	/* Vector forwarding (issue 24): each beside the same-width forward that succeeds. */
	{ .kernel = "store_forward", .variant = "ymm_forward", K(bk_sf_ymm_forward), .p_off = SF_P,
	  .roles = EV_ROLE_STLF_OK, .expect = BENCH_CONTROL, .needs = VEC_AVX,
	  .body = "vmovdqu [rsi], ymm0 / vmovdqu ymm0, [rsi]" },
	{ .kernel = "store_forward", .variant = "ymm_upper", .control = "ymm_forward", K(bk_sf_ymm_upper),
	  .p_off = SF_P, .q_off = SF_P + 16, .expect = BENCH_SWEEP, .needs = VEC_AVX,
	  .body = "vmovdqu [rsi], ymm0 / vmovdqu xmm0, [rdx=rsi+16]" },
	{ .kernel = "store_forward", .variant = "xmm_ymm", .control = "ymm_forward", K(bk_sf_xmm_ymm), .p_off = SF_P,
	  .roles = EV_ROLE_STLF_BLOCK, .expect = BENCH_PROVOKES, .needs = VEC_AVX,
	  .body = "vmovdqu [rsi], xmm0 / vmovdqu ymm0, [rsi]" },
	{ .kernel = "store_forward", .variant = "zmm_forward", K(bk_sf_zmm_forward), .p_off = SF_P,
	  .roles = EV_ROLE_STLF_OK, .expect = BENCH_CONTROL, .needs = VEC_AVX512F,
	  .body = "vmovdqu64 [rsi], zmm0 / vmovdqu64 zmm0, [rsi]" },
	{ .kernel = "store_forward", .variant = "zmm_upper", .control = "zmm_forward", K(bk_sf_zmm_upper),
	  .p_off = SF_P, .q_off = SF_P + 32, .expect = BENCH_SWEEP, .needs = VEC_AVX512F,
	  .body = "vmovdqu64 [rsi], zmm0 / vmovdqu ymm0, [rdx=rsi+32]" },
	{ .kernel = "store_forward", .variant = "ymm_zmm", .control = "zmm_forward", K(bk_sf_ymm_zmm), .p_off = SF_P,
	  .roles = EV_ROLE_STLF_BLOCK, .expect = BENCH_PROVOKES, .needs = VEC_AVX512F,
	  .body = "vmovdqu [rsi], ymm0 / vmovdqu64 zmm0, [rsi]" },

	{ .kernel = "alias_4k", .variant = "line_offset", K(bk_alias_chain), .p_off = ALIAS_P, .q_off = ALIAS_Q + 64,
	  .expect = BENCH_CONTROL, .chain_min = ONE_CYCLE,
	  .body = "mov [rdx+rax], rcx (rdx = rsi+4096+64) / mov rax, [rsi+rax] (rax = 0)" },
	{ .kernel = "alias_4k", .variant = "same_offset", .control = "line_offset", K(bk_alias_chain),
	  .p_off = ALIAS_P, .q_off = ALIAS_Q, .roles = EV_ROLE_ALIAS_4K, .expect = BENCH_PROVOKES,
	  .chain_min = ONE_CYCLE, .body = "mov [rdx+rax], rcx (rdx = rsi+4096) / mov rax, [rsi+rax] (rax = 0)" },
	{ .kernel = "alias_4k", .variant = "offset_4", .control = "line_offset", K(bk_alias_chain), .p_off = ALIAS_P,
	  .q_off = ALIAS_Q + 4, .roles = EV_ROLE_ALIAS_4K, .expect = BENCH_SWEEP, .chain_min = ONE_CYCLE,
	  .body = "mov [rdx+rax], rcx (rdx = rsi+4096+4) / mov rax, [rsi+rax] (rax = 0)" },
	{ .kernel = "alias_4k", .variant = "offset_8", .control = "line_offset", K(bk_alias_chain), .p_off = ALIAS_P,
	  .q_off = ALIAS_Q + 8, .roles = EV_ROLE_ALIAS_4K, .expect = BENCH_SWEEP, .chain_min = ONE_CYCLE,
	  .body = "mov [rdx+rax], rcx (rdx = rsi+4096+8) / mov rax, [rsi+rax] (rax = 0)" },
	{ .kernel = "alias_4k", .variant = "offset_16", .control = "line_offset", K(bk_alias_chain), .p_off = ALIAS_P,
	  .q_off = ALIAS_Q + 16, .roles = EV_ROLE_ALIAS_4K, .expect = BENCH_SWEEP, .chain_min = ONE_CYCLE,
	  .body = "mov [rdx+rax], rcx (rdx = rsi+4096+16) / mov rax, [rsi+rax] (rax = 0)" },
	{ .kernel = "alias_4k", .variant = "offset_32", .control = "line_offset", K(bk_alias_chain), .p_off = ALIAS_P,
	  .q_off = ALIAS_Q + 32, .roles = EV_ROLE_ALIAS_4K, .expect = BENCH_SWEEP, .chain_min = ONE_CYCLE,
	  .body = "mov [rdx+rax], rcx (rdx = rsi+4096+32) / mov rax, [rsi+rax] (rax = 0)" },

	{ .kernel = "split", .variant = "load_aligned", K(bk_load_chain), .p_off = SPLIT_ALIGNED, .per_arena = true,
	  .expect = BENCH_CONTROL, .chain_min = ONE_CYCLE, .body = "mov rax, [rax] (rax 8-byte aligned)" },
	{ .kernel = "split", .variant = "load_line", .control = "load_aligned", K(bk_load_chain), .p_off = SPLIT_LINE,
	  .per_arena = true, .roles = EV_ROLE_SPLIT_LOAD, .expect = BENCH_PROVOKES, .chain_min = ONE_CYCLE,
	  .body = "mov rax, [rax] (rax = line end - 4)" },
	{ .kernel = "split", .variant = "load_page", .control = "load_aligned", K(bk_load_chain), .p_off = SPLIT_PAGE,
	  .per_arena = true, .crosses_4k = true, .roles = EV_ROLE_SPLIT_LOAD | EV_ROLE_PAGE_SPLIT_LOAD,
	  .expect = BENCH_PROVOKES, .chain_min = ONE_CYCLE, .body = "mov rax, [rax] (rax = 4 KiB boundary - 4)" },
	{ .kernel = "split", .variant = "store_aligned", K(bk_store_tput), .p_off = SPLIT_ALIGNED, .per_arena = true,
	  .expect = BENCH_CONTROL, .body = "mov [rsi], rcx (rsi 8-byte aligned)" },
	{ .kernel = "split", .variant = "store_line", .control = "store_aligned", K(bk_store_tput),
	  .p_off = SPLIT_LINE, .per_arena = true, .roles = EV_ROLE_SPLIT_STORE, .expect = BENCH_PROVOKES,
	  .body = "mov [rsi], rcx (rsi = line end - 4)" },
	{ .kernel = "split", .variant = "store_page", .control = "store_aligned", K(bk_store_tput),
	  .p_off = SPLIT_PAGE, .per_arena = true, .crosses_4k = true,
	  .roles = EV_ROLE_SPLIT_STORE | EV_ROLE_PAGE_SPLIT_STORE, .expect = BENCH_PROVOKES,
	  .body = "mov [rsi], rcx (rsi = 4 KiB boundary - 4)" },

	/*
	 * The memory ladder: each row stands for the variants bench/src_ladder.c makes from the cache
	 * geometry and the arena it gets (bench/ladder.h), measured after the rows above.  The fn and
	 * body here are the latency rows'; the bandwidth variants choose their kernel by vector width.
	 */
	{ .kernel = "latency", .variant = "<size>", K(bk_chase), .expect = BENCH_SWEEP, .chain_min = ONE_CYCLE,
	  .ladder = BENCH_LADDER_LATENCY,
	  .body = "mov rax, [rax] (a random ring of every 64-byte line of <size> bytes, largest pages)" },
	{ .kernel = "tlb", .variant = "<size>", K(bk_chase), .expect = BENCH_SWEEP, .chain_min = ONE_CYCLE,
	  .ladder = BENCH_LADDER_TLB, .body = "mov rax, [rax] (the same ring on 4 KiB pages)" },
	{ .kernel = "bandwidth", .variant = "<op>_<level>", K(bk_bw_read_sse), .expect = BENCH_SWEEP,
	  .ladder = BENCH_LADDER_BANDWIDTH,
	  .body = "read, write, write_nt or copy 256 bytes per stream, widest vectors (l1, l2, l3, dram)" },
};

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
