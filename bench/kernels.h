/*
 * bench/kernels.h - the benchmark kernels and the table of variants.
 *
 * A kernel is NASM code (bench/k_*.asm, conventions in bench/kernel.inc):
 * a loop of BENCH_UNROLL copies of a fixed body, called as
 * k(trips, p, q).  A variant is a row of data: which kernel, where p and q
 * point inside the three-page scratch window, which variant is its control,
 * which event roles matter, what is expected, which vector extensions it needs
 * and whether it stands for the memory ladder's variants.  Adding a variant is
 * adding a row; the harness, the records and the checks follow from the row.
 */
#ifndef PMUBOOT_BENCH_KERNELS_H
#define PMUBOOT_BENCH_KERNELS_H

#include "lib/libc.h"

/* Copies of the body per loop trip; bench/kernel.inc says the same (checked at run time). */
#define BENCH_UNROLL 8

typedef void (*bench_kernel_fn)(uint64_t trips, uint8_t *p, uint8_t *q);

#define BENCH_KERNEL(name) \
	void name(uint64_t trips, uint8_t *p, uint8_t *q); \
	extern const uint8_t name##_end[]
BENCH_KERNEL(bk_add_chain);
BENCH_KERNEL(bk_load_chain);
BENCH_KERNEL(bk_store_tput);
BENCH_KERNEL(bk_sf_forward);
BENCH_KERNEL(bk_sf_size_mismatch);
BENCH_KERNEL(bk_sf_partial_overlap);
BENCH_KERNEL(bk_sf_two_stores);
BENCH_KERNEL(bk_sf_forward_tput);
BENCH_KERNEL(bk_sf_size_mismatch_tput);
BENCH_KERNEL(bk_sf_late_addr);
BENCH_KERNEL(bk_sf_late_data);
BENCH_KERNEL(bk_alias_chain);
BENCH_KERNEL(bk_sf_ymm_forward);
BENCH_KERNEL(bk_sf_ymm_upper);
BENCH_KERNEL(bk_sf_xmm_ymm);
BENCH_KERNEL(bk_sf_zmm_forward);
BENCH_KERNEL(bk_sf_zmm_upper);
BENCH_KERNEL(bk_sf_ymm_zmm);
BENCH_KERNEL(bk_chase);
BENCH_KERNEL(bk_bw_read_sse);
BENCH_KERNEL(bk_bw_write_sse);
BENCH_KERNEL(bk_bw_write_nt_sse);
BENCH_KERNEL(bk_bw_copy_sse);
BENCH_KERNEL(bk_bw_read_avx);
BENCH_KERNEL(bk_bw_write_avx);
BENCH_KERNEL(bk_bw_write_nt_avx);
BENCH_KERNEL(bk_bw_copy_avx);
BENCH_KERNEL(bk_bw_read_avx512);
BENCH_KERNEL(bk_bw_write_avx512);
BENCH_KERNEL(bk_bw_write_nt_avx512);
BENCH_KERNEL(bk_bw_copy_avx512);
extern const uint32_t bench_asm_unroll;

/*
 * The bandwidth kernels' parameter block, p (bench/k_bandwidth.asm reads the
 * layout): one iteration moves BENCH_BW_ITER bytes per stream.
 */
struct bench_bw {
	uint8_t *src, *dst;
	uint64_t bytes;		/* each buffer's size, a multiple of BENCH_BW_ITER x BENCH_UNROLL */
	uint64_t off;		/* where the previous run stopped */
};
#define BENCH_BW_ITER 256u
extern const uint32_t bench_asm_bw_iter;

/*
 * The scratch window: two 4 KiB-aligned pages.  p and q are offsets from
 * its start; BENCH_PAGE (0x1000) is the 4 KiB boundary inside it.
 */
#define BENCH_WINDOW_BYTES (2u * 4096)
#define BENCH_PAGE 0x1000u

enum bench_expect {
	BENCH_REFERENCE,	/* a known figure: cycles/iteration within [ref_lo, ref_hi] */
	BENCH_CONTROL,		/* provokes nothing; the others are compared with it */
	BENCH_PROVOKES,		/* about one event of each role per iteration, and slower than the control */
	BENCH_PROVOKES_EVENTS,	/* about one event per iteration; no timing signature expected */
	BENCH_SWEEP,		/* a point of a sweep: figures only, no expectation */
};

/*
 * A row that stands for variants made at run time (bench/src_ladder.c), from
 * the cache geometry and the arena: `latency.<size>`, `tlb.<size>`,
 * `bandwidth.<op>_<level>`.  bench= may name the kernel, or kernel.<variant>
 * with a variant of those (a size: latency.16k).
 */
enum bench_ladder {
	BENCH_LADDER_NONE,
	BENCH_LADDER_LATENCY,	/* the pointer chase on the largest pages there are (1 GiB or 2 MiB) */
	BENCH_LADDER_TLB,	/* the same chase on 4 KiB pages */
	BENCH_LADDER_BANDWIDTH,	/* read, write, write_nt and copy per cache level and DRAM */
};

struct bench_def {
	const char *kernel;	/* e.g. "store_forward" */
	const char *variant;	/* e.g. "size_mismatch" */
	const char *control;	/* variant of the same kernel it is compared with, or NULL */
	bench_kernel_fn fn;
	const uint8_t *fn_end;
	uint32_t p_off, q_off;	/* into the scratch window */
	bool per_arena;		/* run once in each arena page size (splits) */
	bool crosses_4k;	/* the access crosses the 4 KiB boundary at BENCH_PAGE */
	uint32_t roles;		/* enum event_role bits whose events are counted and checked */
	enum bench_expect expect;
	int32_t ref_lo, ref_hi;	/* BENCH_REFERENCE: expected cycles/iteration, thousandths */
	const char *body;	/* the instruction sequence of one iteration */
	/*
	 * The loop-carried register or load chain: no iteration can take fewer
	 * cycles (thousandths; 0: none).  Chains through a store are left out:
	 * memory renaming can forward a store's register to the load at zero
	 * latency (0.5 cycles/iteration seen on Raptor Cove).
	 */
	int32_t chain_min;
	uint32_t unroll;	/* body copies per loop trip; 0: BENCH_UNROLL */
	/* The vector extensions the body executes (platform/vec.h enum vec_ext bits; 0: none): skipped without them. */
	uint32_t needs;
	enum bench_ladder ladder;	/* BENCH_LADDER_NONE, or the kind of variants the row stands for */
};

size_t bench_def_count(void);
const struct bench_def *bench_def_at(size_t i);
/* The row for kernel.variant, or NULL. */
const struct bench_def *bench_def_find(const char *kernel, const char *variant);
/* Its control's row, or NULL. */
const struct bench_def *bench_def_control(const struct bench_def *d);

#endif
