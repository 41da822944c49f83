/* bench/src_ladder_record.c - the memory ladder's record fields and its bench=list lines; see src_ladder.c. */
#include "bench/src_ladder.h"
#include "bench/ring.h"
#include "platform/timing.h"
#include "lib/heap.h"
#include "lib/out.h"

const char *const bw_op_names[BW_OPS] = { "read", "write", "write_nt", "copy" };
const char *const width_names[WIDTHS] = { "sse", "avx", "avx512" };

void bw_name(char *out, size_t cap, enum bw_op op, unsigned level)
{
	if (level)
		snprintf(out, cap, "%s_l%u", bw_op_names[op], level);
	else
		snprintf(out, cap, "%s_dram", bw_op_names[op]);
}

int64_t bw_rate(uint64_t bytes, int64_t v_milli)
{
	return v_milli > 0 ? stats_scale((int64_t)bytes * MILLI, MILLI, (uint64_t)v_milli) : 0;
}

/* ---- bench_setup and the bench record ---- */

static void arena_fields(const struct sweep_state *ls, struct rec *r, const char *key, const struct ladder *l)
{
	if (!l->chosen) {
		rec_null(r, key);
		return;
	}
	rec_obj(r, key);
	if (l->have_arena) {
		rec_str(r, "arena", l->arena_name);
		if (l->arena.page_size)
			rec_u64(r, "page", l->arena.page_size);
		else
			rec_null(r, "page");
		rec_u64(r, "size", l->arena.size);
		rec_u64(r, "wanted", l->arena.wanted);
		rec_str(r, "how", l->arena.how);
	} else {
		rec_null(r, "arena");
	}
	rec_str(r, "note", l->why[0] ? l->why : NULL);
	rec_u64(r, "points", l == &ls->bw ? ls->points - ls->lat.n - ls->tlb.n : l->n);
	rec_obj_end(r);
}

void ladder_setup_fields(const struct stage *st, struct rec *r)
{
	const struct sweep_state *ls = st->state[BENCH_SRC_LADDER];
	if (!ls) {
		rec_null(r, "ladder");
		return;
	}
	rec_obj(r, "ladder");
	arena_fields(ls, r, "latency", &ls->lat);
	arena_fields(ls, r, "tlb", &ls->tlb);
	arena_fields(ls, r, "bandwidth", &ls->bw);
	if (ls->bw.chosen) {
		rec_str(r, "vector", width_names[ls->width]);
		rec_u64(r, "vector_bytes", 16u << ls->width);
		rec_str(r, "vector_why", ls->width_why);
	}
	rec_obj_end(r);
}

void ladder_fields(const struct stage *st, const struct bench_row *row, struct rec *r, const struct bench_figures *f)
{
	const struct sweep_state *ls = st->state[BENCH_SRC_LADDER];
	const struct sweep_point *m = row->point;
	const struct timing_info *t = timing_get();
	struct bench_figure ns = f->tsc;
	bool have_ns = t && t->tsc_hz && f->tsc.n;

	if (have_ns)
		stats_figure_scale(&ns, NS_PER_S, t->tsc_hz);
	rec_obj(r, "memory");
	rec_u64(r, "size", m->bytes);
	rec_u64(r, "arena_size", m->arena->size);
	if (have_ns) {
		rec_obj(r, "ns");
		rec_milli(r, "min", ns.min);
		rec_milli(r, "median", ns.median);
		rec_milli(r, "max", ns.max);
		rec_obj_end(r);
	} else {
		rec_null(r, "ns");
	}
	if (m->kind == BENCH_LADDER_BANDWIDTH) {
		rec_str(r, "op", bw_op_names[m->op]);
		if (m->level)
			rec_u64(r, "cache_level", m->level);
		else
			rec_null(r, "cache_level");
		rec_str(r, "vector", width_names[ls->width]);
		rec_u64(r, "bytes_per_iteration", m->bytes_per_iteration);
		rec_obj(r, "bytes_per_cycle");
		if (sweep_cycles_valid(f)) {
			rec_milli(r, "median", bw_rate(m->bytes_per_iteration, f->cycles.median));
			rec_milli(r, "best", bw_rate(m->bytes_per_iteration, f->cycles.min));
		} else {
			rec_null(r, "median");
			rec_null(r, "best");
		}
		rec_obj_end(r);
		rec_obj(r, "gb_per_s");
		if (have_ns) {
			rec_milli(r, "median", bw_rate(m->bytes_per_iteration, ns.median));
			rec_milli(r, "best", bw_rate(m->bytes_per_iteration, ns.min));
		} else {
			rec_null(r, "median");
			rec_null(r, "best");
		}
		rec_obj_end(r);
	} else {
		rec_u64(r, "lines", m->bytes / RING_LINE);
		rec_u64(r, "pages_4k", m->bytes / RING_PAGE);
	}
	if (m->kind == BENCH_LADDER_TLB && m->versus && sweep_cycles_valid(f)) {
		rec_obj(r, "versus");
		rec_str(r, "variant", "latency");
		rec_milli(r, "latency_median", m->versus_median);
		rec_milli(r, "difference", f->cycles.median - m->versus_median);
		rec_obj_end(r);
	} else {
		rec_null(r, "versus");
	}
	rec_obj_end(r);
}

/* ---- bench=list ---- */

static void list_kind(const struct bench_def *d, const struct cpu_info *ci)
{
	static struct cache_info *cp;	/* heap: the image's static storage is file bytes, its stack the firmware's */
	uint64_t sizes[LADDER_MAX_POINTS];
	struct ladder_level sets[BW_LEVELS];
	char name[48], sz[LADDER_NAME_MAX];
	enum bench_ladder k = d->ladder;
	size_t n;

	static struct cpu_info *self;	/* bench=list from pmuboot-host's command line comes before any stage */
	if (!cp && !(cp = heap_alloc(sizeof(*cp), sizeof(uint64_t))))
		return;
	if (!ci) {
		if (!self && !(self = heap_alloc(sizeof(*self), sizeof(uint64_t))))
			return;
		cpu_identify(self);
		ci = self;
	}
	struct cache_info *c = cp;
	cache_identify(ci, c);
	if (k == BENCH_LADDER_BANDWIDTH) {
		n = ladder_bandwidth_sets(c, UINT64_MAX, sets, BW_LEVELS);
		for (size_t i = 0; i < n; i++)
			for (unsigned op = 0; op < BW_OPS; op++) {
				char v[32];
				if (!bw_variant_exists((enum bw_op)op, sets[i].level))
					continue;
				bw_name(v, sizeof(v), (enum bw_op)op, sets[i].level);
				snprintf(name, sizeof(name), "%s.%s", d->kernel, v);
				out_text("%-33s %-38s %s (%s)", name, "ladder point", d->body, ladder_name(sets[i].bytes, sz));
			}
		return;
	}
	n = k == BENCH_LADDER_LATENCY ? ladder_latency_sizes(c, UINT64_MAX, sizes, ARRAY_SIZE(sizes))
				      : ladder_tlb_sizes(c, UINT64_MAX, sizes, ARRAY_SIZE(sizes));
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s.%s", d->kernel, ladder_name(sizes[i], sz));
		out_text("%-33s %-38s %s", name, "ladder point", d->body);
	}
}

void ladder_list(const struct cpu_info *ci)
{
	for (size_t i = 0; i < bench_def_count(); i++)
		if (bench_def_at(i)->ladder != BENCH_LADDER_NONE)
			list_kind(bench_def_at(i), ci);	/* the variants this processor's cache geometry makes */
}
