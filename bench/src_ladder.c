/*
 * bench/src_ladder.c - the memory ladder as a source of rows (bench/stage_int.h): the
 * variants of the `latency`, `tlb` and `bandwidth` rows, made at run time
 * from the cache geometry (cpu/cache.h) and the arenas (platform/arena.h
 * arena_get_large); see bench/ladder.h for the sizes, bench/ring.h for the
 * ring and docs/benchmarks.md for the method.
 *
 *   latency.<size>   the chase (bench/k_latency.asm) through a ring of <size>
 *                    bytes in the largest pages there are: 1 GiB where CPUID
 *                    80000001H:EDX[26] says so and the arena allows, else 2 MiB;
 *   tlb.<size>       the same ring in 4 KiB pages; its record says how much
 *                    slower it is than latency.<size> (the translation's cost);
 *   bandwidth.<op>_<level>  bench/k_bandwidth.asm at the widest vector width
 *                    the core and XCR0 allow, over half of each cache level
 *                    and over the latency ladder's top size (DRAM).
 * Each variant is measured like any row (bench/row.c: the same harness,
 * ledger, records), with a "memory" object in its bench record
 * (src_ladder_record.c).
 */
#include "bench/src_ladder.h"
#include "bench/ring.h"
#include "platform/hw.h"
#include "platform/timing.h"
#include "platform/vec.h"
#include "lib/heap.h"
#include "lib/out.h"
#include "lib/strbuf.h"
#include "lib/x86/cpuid.h"
#define RING_SEED 0x706d75626f6f74ull	/* any fixed seed: the same ring for the same size, run after run */
#define CELL_OFFSET 8u			/* the chase's position cell: in the first line, beside its pointer */

/* The kernels by width (sse, avx, avx512) and op. */
static const struct {
	bench_kernel_fn fn;
	const uint8_t *end;
} bw_fns[3][BW_OPS] = {
	{ { bk_bw_read_sse, bk_bw_read_sse_end }, { bk_bw_write_sse, bk_bw_write_sse_end },
	  { bk_bw_write_nt_sse, bk_bw_write_nt_sse_end }, { bk_bw_copy_sse, bk_bw_copy_sse_end } },
	{ { bk_bw_read_avx, bk_bw_read_avx_end }, { bk_bw_write_avx, bk_bw_write_avx_end },
	  { bk_bw_write_nt_avx, bk_bw_write_nt_avx_end }, { bk_bw_copy_avx, bk_bw_copy_avx_end } },
	{ { bk_bw_read_avx512, bk_bw_read_avx512_end }, { bk_bw_write_avx512, bk_bw_write_avx512_end },
	  { bk_bw_write_nt_avx512, bk_bw_write_nt_avx512_end }, { bk_bw_copy_avx512, bk_bw_copy_avx512_end } },
};
/* Allocated once, kept for later passes (heap: the image's static storage is file bytes). */
static struct sweep_state *kept;

static struct ladder *ladder_of(struct sweep_state *ls, enum bench_ladder k)
{
	return k == BENCH_LADDER_LATENCY ? &ls->lat : k == BENCH_LADDER_TLB ? &ls->tlb : &ls->bw;
}

/* ---- the chosen variants ---- */

static void choose(const struct stage *st, struct sweep_state *ls)
{
	const struct bench_plan *pl = st->plan;

	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *d = bench_def_at(i);
		if (d->ladder != BENCH_LADDER_NONE && pl->table[i])
			ladder_of(ls, d->ladder)->chosen = true;
	}
	if (pl->all)
		ls->lat.all = ls->tlb.all = ls->bw.all = true;
	for (size_t w = 0; w < pl->nwords; w++) {
		const struct bench_plan_word *pw = &pl->word[w];
		for (size_t i = 0; i < bench_def_count(); i++) {
			const struct bench_def *d = bench_def_at(i);
			if (d->ladder == BENCH_LADDER_NONE || pw->undone || !bench_plan_word_is(pw, BENCH_SRC_LADDER, d->kernel))
				continue;
			struct ladder *l = ladder_of(ls, d->ladder);
			if (pw->len == pw->klen) {
				l->all = true;
			} else if (l->nwords < MAX_WORDS) {
				l->words[l->nwords] = bench_plan_variant(pw, &l->lens[l->nwords]);
				l->nwords++;
			} else {
				rec_error("bench", "bench", "%.*s: more than %u %s variants named; this one is left out",
					  (int)(pw->len > 40 ? 40 : pw->len), pw->text, (unsigned)MAX_WORDS, d->kernel);
			}
		}
	}
}

/* Was variant `name` of l chosen (every one when the kernel or `all` was named)? */
static bool wanted(const struct ladder *l, const char *name)
{
	if (l->all)
		return true;
	for (size_t i = 0; i < l->nwords; i++)
		if (strlen(name) == l->lens[i] && !strncmp(name, l->words[i], l->lens[i]))
			return true;
	return false;
}

/* ---- arenas ---- */

static bool get_arena(struct ladder *l, uint32_t page, const char *name, uint64_t want)
{
	char why[128];
	if (!arena_get_large(page, want, &l->arena, why, sizeof(why))) {
		snprintf(l->why, sizeof(l->why), "%s pages: %s", name, why);
		return false;
	}
	l->have_arena = true;
	l->arena_name = name;
	if (l->arena.limit)
		snprintf(l->why, sizeof(l->why), "%llu KiB wanted, limited by %s", (unsigned long long)(want / 1024),
			 l->arena.limit);
	return true;
}

/* No large arena (another processor's pass may not allocate): the 4 MiB arena of that page size, said so. */
static void small_arena(struct ladder *l, uint32_t page, const char *name)
{
	char why[128];
	size_t k = strlen(l->why);
	if (!arena_get(page, &l->arena, why, sizeof(why))) {
		snprintf(l->why + k, sizeof(l->why) - k, "%sand no 4 MiB arena: %s", k ? "; " : "", why);
		return;
	}
	l->have_arena = true;
	l->arena_name = name;
	snprintf(l->why + k, sizeof(l->why) - k, "%sthe 4 MiB arena instead", k ? "; " : "");
}

/* The ring's arena: 1 GiB pages where CPUID says so and the arena allows, else 2 MiB. */
static void latency_arena(struct sweep_state *ls, uint64_t want)
{
	if (ls->cache.page_1g && get_arena(&ls->lat, ARENA_PAGE_1G, "1g", want))
		return;
	char was[sizeof(ls->lat.why)];
	snprintf(was, sizeof(was), "%s", ls->lat.why);
	ls->lat.why[0] = 0;
	if (!get_arena(&ls->lat, ARENA_PAGE_2M, "2m", want))
		small_arena(&ls->lat, ARENA_PAGE_2M, "2m");
	if (was[0] && !ls->lat.arena.limit) {
		size_t k = strlen(ls->lat.why);
		snprintf(ls->lat.why + k, sizeof(ls->lat.why) - k, "%s%s", k ? "; " : "", was);
	}
}

/* ---- vector width ---- */

static void choose_width(const struct stage *st, struct sweep_state *ls)
{
	struct cpuid_regs r;
	struct hw_vector_state v;
	uint32_t ext = vec_extensions();
	ls->width = 0;
	ls->width_why = NULL;
	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r);
	hw_vector_state(&v);
	if (!(r.ecx & CPUID1_ECX_AVX)) {
		ls->width_why = "no AVX (CPUID.01H:ECX[28])";
		return;
	}
	if (!(ext & VEC_AVX)) {
		/* platform/vec.h enables the state where the CPU has it; this is the state it could not reach. */
		ls->width_why = !v.known ? "AVX state not known (XCR0 not readable)"
						   : "AVX state not enabled in XCR0";
		return;
	}
	ls->width = 1;
	if (st->ci->max_leaf < CPUID_LEAF_EXT_FEATURES) {
		ls->width_why = "no AVX-512 (no CPUID leaf 07H)";
		return;
	}
	hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	if (!(r.ebx & CPUID7_EBX_AVX512F))
		ls->width_why = "no AVX-512 (CPUID.07H:EBX[16])";
	else if (!(ext & VEC_AVX512F))
		ls->width_why = "AVX-512 state not enabled in XCR0";
	else
		ls->width = 2;
}

/* ---- prepare ---- */

static bool bad_size(const struct ladder *l, const char *kernel)
{
	bool bad = false;
	for (size_t i = 0; i < l->nwords; i++) {
		uint64_t b;
		if (!ladder_parse(l->words[i], l->lens[i], &b)) {
			rec_error("bench", "bench", "%s.%.*s: not a size (a multiple of 4 KiB: 16k, 1536k, 8m, 1g)", kernel,
				  (int)(l->lens[i] > 40 ? 40 : l->lens[i]), l->words[i]);
			bad = true;
		} else if (!l->have_arena || b > l->arena.size) {
			rec_error("bench", "bench", "%s.%.*s: larger than the arena (%llu KiB)", kernel, (int)l->lens[i],
				  l->words[i], (unsigned long long)(l->have_arena ? l->arena.size / 1024 : 0));
			bad = true;
		}
	}
	return bad;
}

/* The sizes of one ring ladder: all its sizes, or those bench= named (in ladder order, then the rest). */
static void sizes_of(struct ladder *l, const uint64_t *all, size_t nall)
{
	l->n = 0;
	if (l->all) {
		for (size_t i = 0; i < nall && l->n < LADDER_MAX_POINTS; i++)
			l->sizes[l->n++] = all[i];
		return;
	}
	for (size_t i = 0; i < l->nwords && l->n < LADDER_MAX_POINTS; i++) {
		uint64_t b;
		bool dup = false;
		if (!ladder_parse(l->words[i], l->lens[i], &b) || !l->have_arena || b > l->arena.size)
			continue;
		for (size_t j = 0; j < l->n; j++)
			dup = dup || l->sizes[j] == b;
		if (!dup)
			l->sizes[l->n++] = b;
	}
	lc_sort_u64(l->sizes, l->n);
}

static void bw_choose(struct sweep_state *ls)
{
	char name[32];
	ls->nbw = ladder_bandwidth_sets(&ls->cache, ls->lat.have_arena ? ls->lat.arena.size : 0, ls->bw_sets, BW_LEVELS);
	for (size_t i = 0; i < ls->nbw; i++)
		for (unsigned op = 0; op < BW_OPS; op++) {
			if (!bw_variant_exists((enum bw_op)op, ls->bw_sets[i].level))
				continue;
			bw_name(name, sizeof(name), (enum bw_op)op, ls->bw_sets[i].level);
			ls->bw_want[i][op] = wanted(&ls->bw, name);
			ls->points += ls->bw_want[i][op];
		}
	unsigned top = 0;	/* the highest cache level with a set, for the message */
	for (size_t i = 0; i < ls->nbw; i++)
		top = ls->bw_sets[i].level > top ? ls->bw_sets[i].level : top;
	for (size_t w = 0; w < ls->bw.nwords; w++) {
		bool found = false;
		for (size_t i = 0; i < ls->nbw; i++)
			for (unsigned op = 0; op < BW_OPS; op++) {
				if (!bw_variant_exists((enum bw_op)op, ls->bw_sets[i].level))
					continue;
				bw_name(name, sizeof(name), (enum bw_op)op, ls->bw_sets[i].level);
				found = found || (strlen(name) == ls->bw.lens[w] && !strncmp(name, ls->bw.words[w], ls->bw.lens[w]));
			}
		if (!found)
			rec_error("bench", "bench", "bandwidth.%.*s: not a variant here (op read, write, write_nt (DRAM only) "
				  "or copy, _l1.._l%u or _dram)", (int)(ls->bw.lens[w] > 40 ? 40 : ls->bw.lens[w]), ls->bw.words[w],
				  top);
	}
}

/* The largest size bench= names for l (0: none or none valid): the arena grows to it past the ladder's top. */
static uint64_t largest_named(const struct ladder *l)
{
	uint64_t most = 0, b;
	for (size_t i = 0; i < l->nwords; i++)
		if (ladder_parse(l->words[i], l->lens[i], &b) && b > most)
			most = b;
	return most;
}

static uint64_t at_least(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The largest size `all` measures under an emulator (ladder_prepare). */
#define EMULATED_TOP (4ull << 20)

/* Under an emulator, a ladder chosen whole says where it stopped (bench_setup.ladder.<kind>.note). */
static void emulated_note(const struct stage *st, struct ladder *l)
{
	size_t k = strlen(l->why);
	if (st->emulator && l->all)
		snprintf(l->why + k, sizeof(l->why) - k, "%sunder an emulator the whole ladder stops at 4 MiB "
			 "(its figures mean nothing here); name a larger size to measure it", k ? "; " : "");
}

static size_t ladder_choose(struct stage *st)
{
	size_t n = 0;
	for (size_t i = 0; i < bench_def_count(); i++)
		n += st->plan->table[i] && bench_def_at(i)->ladder != BENCH_LADDER_NONE;
	return n;
}

static size_t prepare(struct stage *st, struct sweep_state *ls)
{
	uint64_t all[LADDER_MAX_POINTS];

	choose(st, ls);
	if (!ls->lat.chosen && !ls->tlb.chosen && !ls->bw.chosen)
		return 0;
	cache_identify(st->ci, &ls->cache);
	uint64_t top = ladder_latency_top(&ls->cache), tlb_top = ladder_tlb_top(&ls->cache);
	/*
	 * Under an emulator a ladder's figures mean nothing (they are labelled emulated) and every size costs
	 * real seconds: `all` stops at EMULATED_TOP there, and sizes named one by one are measured as named.
	 */
	uint64_t all_cap = st->emulator ? EMULATED_TOP : UINT64_MAX;
	uint64_t dram_top = top;	/* bandwidth's DRAM set lies past the last level whatever the cap */
	if (top > all_cap)
		top = all_cap;
	if (tlb_top > all_cap)
		tlb_top = all_cap;
	/* The tlb ladder compares with latency at its sizes, and bandwidth uses the ring's arena. */
	if (ls->lat.chosen || ls->bw.chosen)
		latency_arena(ls, at_least(ls->bw.chosen ? dram_top : top,
				       at_least(largest_named(&ls->lat), largest_named(&ls->tlb))));
	if (ls->tlb.chosen &&
	    !get_arena(&ls->tlb, ARENA_PAGE_4K, "4k", at_least(tlb_top, largest_named(&ls->tlb))))
		small_arena(&ls->tlb, ARENA_PAGE_4K, "4k");
	if (ls->lat.chosen && !bad_size(&ls->lat, "latency") && ls->lat.have_arena) {
		uint64_t lim = ls->lat.arena.size < all_cap ? ls->lat.arena.size : all_cap;
		size_t n = ladder_latency_sizes(&ls->cache, lim, all, ARRAY_SIZE(all));
		sizes_of(&ls->lat, all, n);
		emulated_note(st, &ls->lat);
	}
	if (ls->tlb.chosen && !bad_size(&ls->tlb, "tlb") && ls->tlb.have_arena) {
		uint64_t lim = ls->tlb.arena.size;
		if (ls->lat.have_arena && ls->lat.arena.size < lim)
			lim = ls->lat.arena.size;
		if (lim > all_cap)
			lim = all_cap;
		size_t n = ladder_tlb_sizes(&ls->cache, lim, all, ARRAY_SIZE(all));
		sizes_of(&ls->tlb, all, n);
		emulated_note(st, &ls->tlb);
	}
	ls->points = ls->lat.n + ls->tlb.n;
	if (ls->bw.chosen) {
		choose_width(st, ls);
		if (bench_asm_bw_iter != BENCH_BW_ITER)
			rec_error("bench", "bandwidth", "kernels move %u bytes per iteration but the stage assumes %u",
				  bench_asm_bw_iter, BENCH_BW_ITER);
		else if (ls->lat.have_arena)
			bw_choose(ls);
	}
	for (size_t i = 0; i < LADDER_MAX_POINTS; i++)
		ls->lat.medians[i] = -1;
	return ls->points;
}

static void ladder_prepare(struct stage *st, unsigned *variants, unsigned *rows)
{
	st->state[BENCH_SRC_LADDER] = NULL;
	if (!kept && !(kept = heap_alloc(sizeof(*kept), sizeof(uint64_t)))) {
		rec_error("bench", "memory", "no room on the heap for the memory ladder (%zu bytes)", sizeof(*kept));
		return;
	}
	memset(kept, 0, sizeof(*kept));
	st->state[BENCH_SRC_LADDER] = kept;
	size_t points = prepare(st, kept);
	*variants += (unsigned)points;
	*rows += (unsigned)points;
}

/* ---- measuring ---- */

/* A generated row: its def (variant name in `name`), the window its p lives in, what its record says. */
struct made {
	struct bench_def def;
	char name[32];
	struct slot slot;
	struct sweep_point pt;
};

static struct made *made_row(void)
{
	static struct made *m;	/* heap: the image's static storage is file bytes; kept for later passes */
	if (!m)
		m = heap_alloc(sizeof(*m), sizeof(uint64_t));
	if (m)
		memset(m, 0, sizeof(*m));
	return m;
}

/* Touch every line in address order: a ring that fits a cache is in it (and in the TLB) before the first sample. */
static void warm(const uint8_t *p, uint64_t bytes)
{
	uint64_t sum = 0;
	for (uint64_t off = 0; off < bytes; off += RING_LINE)
		sum += ((const volatile uint8_t *)p)[off];
	(void)sum;
}

static void row_of(struct made *m, struct bench_row *row)
{
	*row = (struct bench_row){ .d = &m->def, .sl = &m->slot, .slot = NO_SLOT, .checked = true, .point = &m->pt };
}

/* Point i of ring ladder l as a row: false when there is no room for it (said so). */
static bool ring_point(struct sweep_state *ls, struct ladder *l, enum bench_ladder kind, size_t i,
		       const struct bench_def *tmpl, struct bench_row *row)
{
	struct made *m = made_row();
	uint64_t bytes = l->sizes[i];
	const struct cache_level *llc = cache_last_level(&ls->cache);
	if (!m) {
		rec_error("bench", tmpl->kernel, "no room on the heap for a variant");
		return false;
	}
	ladder_name(bytes, m->name);
	m->def = *tmpl;
	m->def.variant = m->name;
	m->def.p_off = CELL_OFFSET;
	m->slot = (struct slot){ l->arena_name, l->arena.base, l->arena.page_size, l->arena.how };
	uint8_t *first = ring_build(l->arena.base, bytes, RING_SEED ^ bytes);
	/* A ring larger than the last level is not read in advance: only what the samples reach is touched. */
	if (!llc || bytes <= llc->size)
		warm(l->arena.base, bytes);
	*(uint8_t **)(void *)(l->arena.base + CELL_OFFSET) = first;
	m->pt = (struct sweep_point){ .kind = kind, .bytes = bytes, .arena = &l->arena, .index = i };
	if (kind == BENCH_LADDER_TLB)
		for (size_t j = 0; j < ls->lat.n; j++)
			if (ls->lat.sizes[j] == bytes && ls->lat.medians[j] >= 0) {
				m->pt.versus = true;
				m->pt.versus_median = ls->lat.medians[j];
			}
	row_of(m, row);
	return true;
}

/* A ring point measured: latency keeps its median for tlb's comparison; one line in ns. */
static void ring_done(struct sweep_state *ls, const struct bench_row *row, const struct bench_figures *f)
{
	const struct sweep_point *pt = row->point;
	const struct timing_info *t = timing_get();
	char a[32], b[32], c[32];
	if (pt->kind == BENCH_LADDER_LATENCY && !f->cycles_invalid && f->cycles.n)
		ls->lat.medians[pt->index] = f->cycles.median;
	if (t && t->tsc_hz && f->tsc.n)
		out_text("    %s %s: %s cycles = %s ns per load%s%s", row->d->kernel, row->d->variant,
			 f->cycles_invalid ? "?" : fmt_milli(a, f->cycles.median),
			 fmt_milli(b, stats_scale(f->tsc.median, NS_PER_S, t->tsc_hz)),
			 pt->versus ? ", latency (large pages) " : "", pt->versus ? fmt_milli(c, pt->versus_median) : "");
}

/* Bandwidth set i, op as a row: false when there is no room for it (said so) or its stream is too short. */
static bool bw_point(struct stage *st, struct sweep_state *ls, size_t i, enum bw_op op, const struct bench_def *tmpl,
		     struct bench_row *row)
{
	struct made *m = made_row();
	const struct ladder_level *lv = &ls->bw_sets[i];
	uint64_t trip = (uint64_t)BENCH_BW_ITER * BENCH_UNROLL;
	uint64_t stream = (op == BW_COPY ? lv->bytes / 2 : lv->bytes) / trip * trip;
	if (!m) {
		rec_error("bench", tmpl->kernel, "no room on the heap for a variant");
		return false;
	}
	if (stream < trip)
		return false;
	bw_name(m->name, sizeof(m->name), op, lv->level);
	m->def = *tmpl;
	m->def.variant = m->name;
	m->def.fn = bw_fns[ls->width][op].fn;
	m->def.fn_end = bw_fns[ls->width][op].end;
	m->def.chain_min = 0;
	/* The parameter block sits in the scratch window, apart from the buffers. */
	struct bench_bw *blk = (struct bench_bw *)(void *)st->scratch;
	uint8_t *base = ls->lat.arena.base;
	*blk = (struct bench_bw){ base, op == BW_COPY ? base + stream : base, stream, 0 };
	m->slot = (struct slot){ ls->lat.arena_name, st->scratch, ls->lat.arena.page_size, ls->lat.arena.how };
	/* A working set that fits a cache is swept once before the first sample; DRAM's is not. */
	if (lv->level) {
		struct bench_call warm_call = { .kernel = m->def.fn, .trips = stream / trip, .p = (uint8_t *)blk };
		bench_measure(&warm_call);
		blk->off = 0;
	}
	m->pt = (struct sweep_point){ .kind = BENCH_LADDER_BANDWIDTH, .bytes = op == BW_COPY ? 2 * stream : stream,
				      .arena = &ls->lat.arena, .op = op, .level = lv->level,
				      .bytes_per_iteration = op == BW_COPY ? 2 * BENCH_BW_ITER : BENCH_BW_ITER };
	row_of(m, row);
	return true;
}

/* A bandwidth point measured: one line in bytes per cycle and GB/s. */
static void bw_done(const struct sweep_state *ls, const struct bench_row *row, const struct bench_figures *f)
{
	const struct sweep_point *pt = row->point;
	const struct timing_info *t = timing_get();
	char a[32], b[32];
	if (t && t->tsc_hz && f->tsc.n)
		out_text("    bandwidth %s: %s bytes/cycle, %s GB/s (%s, %llu KiB)", row->d->variant,
			 sweep_cycles_valid(f) ? fmt_milli(a, bw_rate(pt->bytes_per_iteration, f->cycles.median)) : "?",
			 fmt_milli(b, bw_rate(pt->bytes_per_iteration, stats_scale(f->tsc.median, NS_PER_S, t->tsc_hz))),
			 width_names[ls->width], (unsigned long long)(pt->bytes / 1024));
}

/* Entering a kind: why its arena is as it is, and for bandwidth the access width (false: no arena for it). */
static bool enter(const struct sweep_state *ls, const struct bench_def *d, const struct ladder *l)
{
	if (l->why[0])
		out_text("bench: %s: %s", d->kernel, l->why);
	if (d->ladder != BENCH_LADDER_BANDWIDTH)
		return true;
	if (!ls->lat.have_arena)
		return false;
	out_text("bench: bandwidth with %u-byte %s accesses%s%s", 16u << ls->width, width_names[ls->width],
		 ls->width_why ? ": " : "", ls->width_why ? ls->width_why : "");
	return true;
}

/* The kinds in table order, each's points in order (bandwidth: by set, then op). */
static bool ladder_next(struct stage *st, struct bench_row *row)
{
	struct sweep_state *ls = st->state[BENCH_SRC_LADDER];

	for (; ls && ls->at < bench_def_count(); ls->at++, ls->entered = false, ls->s = 0, ls->op = 0) {
		const struct bench_def *d = bench_def_at(ls->at);
		if (d->ladder == BENCH_LADDER_NONE || !ladder_of(ls, d->ladder)->chosen)
			continue;
		struct ladder *l = ladder_of(ls, d->ladder);
		if (!ls->entered) {
			ls->entered = true;
			if (!enter(ls, d, l))
				continue;
		}
		if (d->ladder != BENCH_LADDER_BANDWIDTH) {
			while (ls->s < l->n)
				if (ring_point(ls, l, d->ladder, ls->s++, d, row))
					return true;
			continue;
		}
		for (; ls->s < ls->nbw; ls->s++, ls->op = 0)
			while (ls->op < BW_OPS) {
				unsigned op = ls->op++;
				if (ls->bw_want[ls->s][op] && bw_point(st, ls, ls->s, (enum bw_op)op, d, row))
					return true;
			}
	}
	return false;
}

static void ladder_done(struct stage *st, const struct bench_row *row, bool measured)
{
	const struct sweep_point *pt = row->point;
	(void)measured;	/* the figures say what was kept, as they do when the harness gave up */
	if (pt->kind == BENCH_LADDER_BANDWIDTH)
		bw_done(st->state[BENCH_SRC_LADDER], row, st->figs);
	else
		ring_done(st->state[BENCH_SRC_LADDER], row, st->figs);
}

const struct bench_source bench_src_ladder = {
	.kind = BENCH_SRC_LADDER,
	.choose = ladder_choose,
	.prepare = ladder_prepare,
	.next = ladder_next,
	.done = ladder_done,
	.setup_fields = ladder_setup_fields,
	.fields = ladder_fields,
	.list = ladder_list,
};
