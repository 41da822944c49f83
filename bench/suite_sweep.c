/*
 * bench/suite_sweep.c - the memory ladder of the benchmark stage: the
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
 * Each variant is measured like any row (suite_run_row: the same harness,
 * ledger, records), with a "memory" object in its bench record.
 */
#include "bench/suite_sweep_int.h"
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
struct sweep_state *ladder_state;

/* ---- the chosen variants ---- */

static void choose(const char *spec)
{
	struct ladder *by_kind[] = { NULL, &ladder_state->lat, &ladder_state->tlb, &ladder_state->bw };
	const char *p = spec, *w;
	size_t len;
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *d = bench_def_at(i);
		enum bench_ladder k = d->ladder;
		if (k != BENCH_LADDER_NONE && suite.sel[i])
			by_kind[k]->chosen = true;
	}
	while (lc_next_item(&p, ',', &w, &len)) {
		if (len == 3 && !strncmp(w, "all", 3)) {
			ladder_state->lat.all = ladder_state->tlb.all = ladder_state->bw.all = true;
			continue;
		}
		if (len == 4 && !strncmp(w, "none", 4)) {	/* as bench/select.c: what came before is undone */
			for (size_t k = 1; k < ARRAY_SIZE(by_kind); k++)
				by_kind[k]->all = false, by_kind[k]->nwords = 0;
			continue;
		}
		for (size_t i = 0; i < bench_def_count(); i++) {
			const struct bench_def *d = bench_def_at(i);
			enum bench_ladder k = d->ladder;
			size_t kl = strlen(d->kernel);
			if (k == BENCH_LADDER_NONE || len < kl || strncmp(w, d->kernel, kl))
				continue;
			struct ladder *l = by_kind[k];
			if (len == kl)
				l->all = true;
			else if (w[kl] == '.' && l->nwords < MAX_WORDS) {
				l->words[l->nwords] = w + kl + 1;
				l->lens[l->nwords++] = len - kl - 1;
			} else if (w[kl] == '.') {
				rec_error("bench", "bench", "%.*s: more than %u %s variants named; this one is left out",
					  (int)(len > 40 ? 40 : len), w, (unsigned)MAX_WORDS, d->kernel);
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
static void latency_arena(uint64_t want)
{
	if (ladder_state->cache.page_1g && get_arena(&ladder_state->lat, ARENA_PAGE_1G, "1g", want))
		return;
	char was[sizeof(ladder_state->lat.why)];
	snprintf(was, sizeof(was), "%s", ladder_state->lat.why);
	ladder_state->lat.why[0] = 0;
	if (!get_arena(&ladder_state->lat, ARENA_PAGE_2M, "2m", want))
		small_arena(&ladder_state->lat, ARENA_PAGE_2M, "2m");
	if (was[0] && !ladder_state->lat.arena.limit) {
		size_t k = strlen(ladder_state->lat.why);
		snprintf(ladder_state->lat.why + k, sizeof(ladder_state->lat.why) - k, "%s%s", k ? "; " : "", was);
	}
}

/* ---- vector width ---- */

static void choose_width(void)
{
	struct cpuid_regs r;
	struct hw_vector_state v;
	uint32_t ext = vec_extensions();
	ladder_state->width = 0;
	ladder_state->width_why = NULL;
	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r);
	hw_vector_state(&v);
	if (!(r.ecx & CPUID1_ECX_AVX)) {
		ladder_state->width_why = "no AVX (CPUID.01H:ECX[28])";
		return;
	}
	if (!(ext & VEC_AVX)) {
		/* platform/vec.h enables the state where the CPU has it; this is the state it could not reach. */
		ladder_state->width_why = !v.known ? "AVX state not known (XCR0 not readable)"
						   : "AVX state not enabled in XCR0";
		return;
	}
	ladder_state->width = 1;
	if (suite.ci->max_leaf < CPUID_LEAF_EXT_FEATURES) {
		ladder_state->width_why = "no AVX-512 (no CPUID leaf 07H)";
		return;
	}
	hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	if (!(r.ebx & CPUID7_EBX_AVX512F))
		ladder_state->width_why = "no AVX-512 (CPUID.07H:EBX[16])";
	else if (!(ext & VEC_AVX512F))
		ladder_state->width_why = "AVX-512 state not enabled in XCR0";
	else
		ladder_state->width = 2;
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

static void bw_choose(void)
{
	char name[32];
	ladder_state->nbw = ladder_bandwidth_sets(&ladder_state->cache, ladder_state->lat.have_arena ? ladder_state->lat.arena.size : 0, ladder_state->bw_sets, BW_LEVELS);
	for (size_t i = 0; i < ladder_state->nbw; i++)
		for (unsigned op = 0; op < BW_OPS; op++) {
			if (!bw_variant_exists((enum bw_op)op, ladder_state->bw_sets[i].level))
				continue;
			bw_name(name, sizeof(name), (enum bw_op)op, ladder_state->bw_sets[i].level);
			ladder_state->bw_want[i][op] = wanted(&ladder_state->bw, name);
			ladder_state->points += ladder_state->bw_want[i][op];
		}
	unsigned top = 0;	/* the highest cache level with a set, for the message */
	for (size_t i = 0; i < ladder_state->nbw; i++)
		top = ladder_state->bw_sets[i].level > top ? ladder_state->bw_sets[i].level : top;
	for (size_t w = 0; w < ladder_state->bw.nwords; w++) {
		bool found = false;
		for (size_t i = 0; i < ladder_state->nbw; i++)
			for (unsigned op = 0; op < BW_OPS; op++) {
				if (!bw_variant_exists((enum bw_op)op, ladder_state->bw_sets[i].level))
					continue;
				bw_name(name, sizeof(name), (enum bw_op)op, ladder_state->bw_sets[i].level);
				found = found || (strlen(name) == ladder_state->bw.lens[w] && !strncmp(name, ladder_state->bw.words[w], ladder_state->bw.lens[w]));
			}
		if (!found)
			rec_error("bench", "bench", "bandwidth.%.*s: not a variant here (op read, write, write_nt (DRAM only) "
				  "or copy, _l1.._l%u or _dram)", (int)(ladder_state->bw.lens[w] > 40 ? 40 : ladder_state->bw.lens[w]), ladder_state->bw.words[w],
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

/* The largest size `all` measures under an emulator (bench/suite_sweep.c, suite_sweep_prepare). */
#define EMULATED_TOP (4ull << 20)

/* Under an emulator, a ladder chosen whole says where it stopped (bench_setup.ladder.<kind>.note). */
static void emulated_note(struct ladder *l)
{
	size_t k = strlen(l->why);
	if (suite.emulator && l->all)
		snprintf(l->why + k, sizeof(l->why) - k, "%sunder an emulator the whole ladder stops at 4 MiB "
			 "(its figures mean nothing here); name a larger size to measure it", k ? "; " : "");
}

size_t suite_sweep_prepare(void)
{
	uint64_t all[LADDER_MAX_POINTS];

	suite.memory = NULL;
	if (!ladder_state && !(ladder_state = heap_alloc(sizeof(*ladder_state), sizeof(uint64_t)))) {
		rec_error("bench", "memory", "no room on the heap for the memory ladder (%zu bytes)", sizeof(*ladder_state));
		return 0;
	}
	memset(ladder_state, 0, sizeof(*ladder_state));
	choose(suite.p->bench);
	if (!ladder_state->lat.chosen && !ladder_state->tlb.chosen && !ladder_state->bw.chosen)
		return 0;
	cache_identify(suite.ci, &ladder_state->cache);
	uint64_t top = ladder_latency_top(&ladder_state->cache), tlb_top = ladder_tlb_top(&ladder_state->cache);
	/*
	 * Under an emulator a ladder's figures mean nothing (they are labelled emulated) and every size costs
	 * real seconds: `all` stops at EMULATED_TOP there, and sizes named one by one are measured as named.
	 */
	uint64_t all_cap = suite.emulator ? EMULATED_TOP : UINT64_MAX;
	uint64_t dram_top = top;	/* bandwidth's DRAM set lies past the last level whatever the cap */
	if (top > all_cap)
		top = all_cap;
	if (tlb_top > all_cap)
		tlb_top = all_cap;
	/* The tlb ladder compares with latency at its sizes, and bandwidth uses the ring's arena. */
	if (ladder_state->lat.chosen || ladder_state->bw.chosen)
		latency_arena(at_least(ladder_state->bw.chosen ? dram_top : top,
				       at_least(largest_named(&ladder_state->lat), largest_named(&ladder_state->tlb))));
	if (ladder_state->tlb.chosen &&
	    !get_arena(&ladder_state->tlb, ARENA_PAGE_4K, "4k", at_least(tlb_top, largest_named(&ladder_state->tlb))))
		small_arena(&ladder_state->tlb, ARENA_PAGE_4K, "4k");
	if (ladder_state->lat.chosen && !bad_size(&ladder_state->lat, "latency") && ladder_state->lat.have_arena) {
		uint64_t lim = ladder_state->lat.arena.size < all_cap ? ladder_state->lat.arena.size : all_cap;
		size_t n = ladder_latency_sizes(&ladder_state->cache, lim, all, ARRAY_SIZE(all));
		sizes_of(&ladder_state->lat, all, n);
		emulated_note(&ladder_state->lat);
	}
	if (ladder_state->tlb.chosen && !bad_size(&ladder_state->tlb, "tlb") && ladder_state->tlb.have_arena) {
		uint64_t lim = ladder_state->tlb.arena.size;
		if (ladder_state->lat.have_arena && ladder_state->lat.arena.size < lim)
			lim = ladder_state->lat.arena.size;
		if (lim > all_cap)
			lim = all_cap;
		size_t n = ladder_tlb_sizes(&ladder_state->cache, lim, all, ARRAY_SIZE(all));
		sizes_of(&ladder_state->tlb, all, n);
		emulated_note(&ladder_state->tlb);
	}
	ladder_state->points = ladder_state->lat.n + ladder_state->tlb.n;
	if (ladder_state->bw.chosen) {
		choose_width();
		if (bench_asm_bw_iter != BENCH_BW_ITER)
			rec_error("bench", "bandwidth", "kernels move %u bytes per iteration but the stage assumes %u",
				  bench_asm_bw_iter, BENCH_BW_ITER);
		else if (ladder_state->lat.have_arena)
			bw_choose();
	}
	for (size_t i = 0; i < LADDER_MAX_POINTS; i++)
		ladder_state->lat.medians[i] = -1;
	return ladder_state->points;
}

/* ---- measuring ---- */

/* A generated row: its def (variant name in `name`) and the window its p lives in. */
struct made {
	struct bench_def def;
	char name[32];
	struct slot slot;
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

static void measure(struct made *m, const struct sweep_point *pt)
{
	suite.memory = pt;
	suite_run_row(&m->def, &m->slot, NO_SLOT);
	suite.memory = NULL;
}

static void ring_point(struct ladder *l, enum bench_ladder kind, size_t i, const struct bench_def *tmpl)
{
	struct made *m = made_row();
	uint64_t bytes = l->sizes[i];
	const struct cache_level *llc = cache_last_level(&ladder_state->cache);
	char a[32], b[32];
	if (!m) {
		rec_error("bench", tmpl->kernel, "no room on the heap for a variant");
		return;
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
	struct sweep_point pt = { .kind = kind, .bytes = bytes, .arena = &l->arena };
	if (kind == BENCH_LADDER_TLB)
		for (size_t j = 0; j < ladder_state->lat.n; j++)
			if (ladder_state->lat.sizes[j] == bytes && ladder_state->lat.medians[j] >= 0) {
				pt.versus = true;
				pt.versus_median = ladder_state->lat.medians[j];
			}
	measure(m, &pt);
	const struct bench_figures *f = suite.figs;
	if (kind == BENCH_LADDER_LATENCY && !f->cycles_invalid && f->cycles.n)
		l->medians[i] = f->cycles.median;
	const struct timing_info *t = timing_get();
	char c[32];
	if (t && t->tsc_hz && f->tsc.n)
		out_text("    %s %s: %s cycles = %s ns per load%s%s", tmpl->kernel, m->name,
			 f->cycles_invalid ? "?" : fmt_milli(a, f->cycles.median),
			 fmt_milli(b, stats_scale(f->tsc.median, NS_PER_S, t->tsc_hz)),
			 pt.versus ? ", latency (large pages) " : "", pt.versus ? fmt_milli(c, pt.versus_median) : "");
}

static void bw_point(size_t i, enum bw_op op, const struct bench_def *tmpl)
{
	struct made *m = made_row();
	const struct ladder_level *lv = &ladder_state->bw_sets[i];
	uint64_t trip = (uint64_t)BENCH_BW_ITER * BENCH_UNROLL;
	uint64_t stream = (op == BW_COPY ? lv->bytes / 2 : lv->bytes) / trip * trip;
	char a[32], b[32];
	if (!m) {
		rec_error("bench", tmpl->kernel, "no room on the heap for a variant");
		return;
	}
	if (stream < trip)
		return;
	bw_name(m->name, sizeof(m->name), op, lv->level);
	m->def = *tmpl;
	m->def.variant = m->name;
	m->def.fn = bw_fns[ladder_state->width][op].fn;
	m->def.fn_end = bw_fns[ladder_state->width][op].end;
	m->def.chain_min = 0;
	/* The parameter block sits in the scratch window, apart from the buffers. */
	struct bench_bw *blk = (struct bench_bw *)(void *)suite.scratch;
	uint8_t *base = ladder_state->lat.arena.base;
	*blk = (struct bench_bw){ base, op == BW_COPY ? base + stream : base, stream, 0 };
	m->slot = (struct slot){ ladder_state->lat.arena_name, suite.scratch, ladder_state->lat.arena.page_size, ladder_state->lat.arena.how };
	/* A working set that fits a cache is swept once before the first sample; DRAM's is not. */
	if (lv->level) {
		struct bench_call warm_call = { .kernel = m->def.fn, .trips = stream / trip, .p = (uint8_t *)blk };
		bench_measure(&warm_call);
		blk->off = 0;
	}
	struct sweep_point pt = { .kind = BENCH_LADDER_BANDWIDTH, .bytes = op == BW_COPY ? 2 * stream : stream,
				  .arena = &ladder_state->lat.arena, .op = op, .level = lv->level,
				  .bytes_per_iteration = op == BW_COPY ? 2 * BENCH_BW_ITER : BENCH_BW_ITER };
	measure(m, &pt);
	const struct bench_figures *f = suite.figs;
	const struct timing_info *t = timing_get();
	if (t && t->tsc_hz && f->tsc.n)
		out_text("    bandwidth %s: %s bytes/cycle, %s GB/s (%s, %llu KiB)", m->name,
			 sweep_cycles_valid(f) ? fmt_milli(a, bw_rate(pt.bytes_per_iteration, f->cycles.median)) : "?",
			 fmt_milli(b, bw_rate(pt.bytes_per_iteration, stats_scale(f->tsc.median, NS_PER_S, t->tsc_hz))),
			 width_names[ladder_state->width], (unsigned long long)(pt.bytes / 1024));
}

void suite_sweep_run(void)
{
	if (!ladder_state)
		return;
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *d = bench_def_at(i);
		enum bench_ladder k = d->ladder;
		struct ladder *l = k == BENCH_LADDER_LATENCY ? &ladder_state->lat : k == BENCH_LADDER_TLB ? &ladder_state->tlb : &ladder_state->bw;
		if (k == BENCH_LADDER_NONE || !l->chosen)
			continue;
		if (l->why[0])
			out_text("bench: %s: %s", d->kernel, l->why);
		if (k == BENCH_LADDER_BANDWIDTH) {
			if (!ladder_state->lat.have_arena)
				continue;
			out_text("bench: bandwidth with %u-byte %s accesses%s%s", 16u << ladder_state->width, width_names[ladder_state->width],
				 ladder_state->width_why ? ": " : "", ladder_state->width_why ? ladder_state->width_why : "");
			for (size_t s = 0; s < ladder_state->nbw; s++)
				for (unsigned op = 0; op < BW_OPS; op++)
					if (ladder_state->bw_want[s][op])
						bw_point(s, (enum bw_op)op, d);
			continue;
		}
		for (size_t s = 0; s < l->n; s++)
			ring_point(l, k, s, d);
	}
}

