/*
 * bench/src_ladder.h - what the memory ladder's files share (internal to
 * bench/src_ladder*.c): src_ladder.c chooses, gets the arenas and makes the
 * rows, src_ladder_record.c writes the records' ladder fields and bench=list.
 * The ladder's state is the stage's st->state[BENCH_SRC_LADDER].
 */
#ifndef PMUBOOT_BENCH_SRC_LADDER_H
#define PMUBOOT_BENCH_SRC_LADDER_H

#include "bench/stage_int.h"
#include "bench/ladder.h"
#include "platform/arena.h"
#include "cpu/cache.h"

#define NS_PER_S 1000000000ull
#define MILLI 1000
#define MAX_WORDS 16			/* kernel.variant words of one ladder kind named in bench= */
#define BW_OPS 4
#define BW_LEVELS (CACHE_MAX_LEVELS + 1)

enum bw_op { BW_READ, BW_WRITE, BW_WRITE_NT, BW_COPY };
extern const char *const bw_op_names[BW_OPS];

#define WIDTHS 3
extern const char *const width_names[WIDTHS];	/* "sse", "avx", "avx512": 16 << index bytes */

/* What the bench record's "memory" object says about the variant being measured. */
struct sweep_point {
	enum bench_ladder kind;
	uint64_t bytes;			/* the ring, or the working set (both buffers of a copy) */
	const struct arena *arena;
	enum bw_op op;
	unsigned level;			/* bandwidth: the cache level (0: DRAM) */
	uint32_t bytes_per_iteration;	/* bandwidth */
	bool versus;			/* tlb: latency.<size> was measured */
	int64_t versus_median;		/* its cycles median */
	size_t index;			/* latency, tlb: the point's place in its ladder's sizes */
};

/* One ladder kind: was it chosen, which variants, in which arena. */
struct ladder {
	bool chosen, all;
	const char *words[MAX_WORDS];	/* variant words bench= named, when not all */
	size_t lens[MAX_WORDS], nwords;
	struct arena arena;
	bool have_arena;
	const char *arena_name;		/* "1g", "2m", "4k" */
	char why[320];			/* why there is no arena, or how it was limited */
	uint64_t sizes[LADDER_MAX_POINTS];
	size_t n;
	int64_t medians[LADDER_MAX_POINTS];	/* latency: cycles medians, for tlb's comparison (-1: none) */
};

/* The ladder's state for one bench stage (heap: the image's static storage is file bytes). */
struct sweep_state {
	struct cache_info cache;
	struct ladder lat, tlb, bw;
	struct ladder_level bw_sets[BW_LEVELS];
	size_t nbw;
	bool bw_want[BW_LEVELS][BW_OPS];
	unsigned width;			/* index into width_names */
	const char *width_why;		/* why not wider, or NULL */
	size_t points;
	/* Where ladder_next is: the table row of the kind, whether its lines were printed, the point (set), op. */
	size_t at;
	bool entered;
	size_t s;
	unsigned op;
};

/* Whether op at a level (0: DRAM) is a variant: non-temporal stores bypass the caches, so a cache level's
 * "write_nt" would be a DRAM figure. */
static inline bool bw_variant_exists(enum bw_op op, unsigned level)
{
	return op != BW_WRITE_NT || level == 0;
}
/* A cycles figure a rate or a difference may be made of: kept samples, not refused by the audit, and core
 * cycles (raw TSC ticks are not). */
static inline bool sweep_cycles_valid(const struct bench_figures *f)
{
	return !f->cycles_invalid && f->cycles.n && f->cycles_source != BENCH_CYCLES_TSC;
}
/* "read_l1", "copy_dram": a bandwidth variant's name. */
void bw_name(char *out, size_t cap, enum bw_op op, unsigned level);
/* bytes per (thousandths of a unit), as thousandths: bytes x 10^6 / v; 0 when v is not positive. */
int64_t bw_rate(uint64_t bytes, int64_t v_milli);

/* src_ladder_record.c: the source's bench_setup fields ("ladder"), a row's "memory" object, bench=list. */
void ladder_setup_fields(const struct stage *st, struct rec *r);
void ladder_fields(const struct stage *st, const struct bench_row *row, struct rec *r, const struct bench_figures *f);
void ladder_list(const struct cpu_info *ci);

#endif
