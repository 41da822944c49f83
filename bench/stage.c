/* bench/stage.c - the benchmark stage; see stage.h (and stage_int.h for how it is built). */
#include "bench/stage_int.h"
#include "platform/arena.h"
#include "lib/heap.h"
#include "lib/out.h"
#include "lib/strbuf.h"

/* The sources, in the order their rows run: the table's variants, the memory ladder, user kernels, instruction forms. */
static const struct bench_source *const sources[] = { &bench_src_variants, &bench_src_ladder, &bench_src_user, &bench_src_instr };

#define DROP_BUDGET_MIN 16

/* A word of bench= no source knows: the error names the table's kernels. */
static void bad_word(const struct bench_plan_word *w)
{
	char known[160];
	size_t k = 0;
	known[0] = 0;
	for (size_t i = 0; i < bench_def_count(); i++) {
		const char *kn = bench_def_at(i)->kernel;
		if (i && !strcmp(kn, bench_def_at(i - 1)->kernel))
			continue;
		k = str_appendf(known, sizeof(known), k, "%s%s", k ? ", " : "", kn);
		if (k >= sizeof(known))
			break;
	}
	rec_error("bench", "bench", "unknown benchmark '%.*s' (kernels: %s; or kernel.variant, all, none, list)",
		  (int)(w->len > 60 ? 60 : w->len), w->text, known);
}

static void bad_words(const struct bench_plan *pl)
{
	for (size_t i = 0; i < pl->nbad && i < BENCH_PLAN_BAD; i++)
		bad_word(&pl->bad[i]);
	if (pl->nbad > BENCH_PLAN_BAD)
		rec_error("bench", "bench", "%zu more unknown benchmarks left out", pl->nbad - BENCH_PLAN_BAD);
	if (pl->dropped)
		rec_error("bench", "bench", "more than %u words; the last %zu are left out", BENCH_PLAN_WORDS,
			  pl->dropped);
}

static void list(const struct cpu_info *ci)
{
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++)
		if (sources[i]->list)
			sources[i]->list(ci);
}

void bench_list(void)
{
	list(NULL);
}

static uint32_t round_up_unroll(uint32_t n)
{
	uint32_t r = (n + BENCH_UNROLL - 1) / BENCH_UNROLL * BENCH_UNROLL;
	return r < n ? n / BENCH_UNROLL * BENCH_UNROLL : r;
}

/* The harness's set-up from the run's options (samples kept in pool until an arena offers room). */
static void setup_harness(struct stage *st, int64_t *pool, size_t pool_cap)
{
	const struct bench_params *p = st->p;

	st->amd = st->ci->vendor == VENDOR_AMD || st->ci->vendor == VENDOR_HYGON;
	st->emulator = st->ci->exec == EXEC_EMULATED;
	st->set = stage_core_event_set(st->ci);
	st->hs.iterations = round_up_unroll(p->iterations);
	st->hs.reps = p->reps;
	st->hs.warmup = p->warmup;
	/* Twice the samples wanted may be thrown away (disturbed or impossible) before a figure is unstable. */
	st->hs.drop_budget = 2 * p->reps < DROP_BUDGET_MIN ? DROP_BUDGET_MIN : 2 * p->reps;
	st->hs.emulated_time = st->emulator;
	st->hs.pool = pool;
	st->hs.pool_cap = pool_cap;
}

void bench_stage(const struct bench_params *p)
{
	/* The context (static: it holds the stage's record builder, ledger and plan, too large for the stack). */
	static struct stage ctx;
	static struct bench_plan plan;
	struct stage *st = &ctx;
	char arena_notes[256];
	uint8_t scratch_mem[SCRATCH_BYTES];
	int64_t pool_mem[POOL_STACK];
	size_t pool_cap = (size_t)p->reps * (3 + COUNT_MAX_EVENTS) + 64;	/* bench/harness.c: 3 series + one per event */
	size_t chosen = 0;

	memset(st, 0, sizeof(*st));
	/* Aligned here, not by asking heap_alloc: the hosted heap is plain calloc, which ignores alignment. */
	st->scratch = heap_alloc(SCRATCH_BYTES, 64);
	if (!st->scratch)
		st->scratch = scratch_mem;
	st->scratch = (uint8_t *)(((uintptr_t)st->scratch + 4095) & ~(uintptr_t)4095);
	st->pool_fallback = heap_alloc(pool_cap * sizeof(int64_t), sizeof(int64_t));
	if (!st->pool_fallback) {
		st->pool_fallback = pool_mem;
		pool_cap = POOL_STACK;
	}
	st->p = p;
	st->ci = p->cpu;
	st->plan = &plan;
	st->src = sources;
	st->nsrc = ARRAY_SIZE(sources);
	bench_plan_parse(&plan, p->bench, NULL, 0);
	if (plan.list) {
		list(st->ci);
		return;
	}
	st->figs = heap_alloc(sizeof(*st->figs), sizeof(int64_t));
	st->cs = heap_alloc(sizeof(*st->cs), sizeof(int64_t));
	if (!st->figs || !st->cs) {
		rec_error("bench", "memory", "no room on the heap for a variant's figures (%zu bytes)",
			  sizeof(*st->figs) + sizeof(*st->cs));
		return;
	}
	if (bench_def_count() > BENCH_PLAN_TABLE) {
		rec_error("bench", "table", "%zu variants but room for %u", bench_def_count(), BENCH_PLAN_TABLE);
		return;
	}
	/* Each source takes what the plan names of it (the user kernels' files are read here), then the rest is bad. */
	for (size_t i = 0; i < st->nsrc; i++)
		chosen += st->src[i]->choose(st);
	bad_words(&plan);
	if (!chosen) {
		out_text("bench: nothing chosen (bench=%s)", p->bench);
		return;
	}
	if (bench_asm_unroll != BENCH_UNROLL) {
		rec_error("bench", "unroll", "kernels unrolled %u times but the harness assumes %u", bench_asm_unroll,
			  BENCH_UNROLL);
		return;
	}
	setup_harness(st, st->pool_fallback, pool_cap);
	st->samples_in = st->pool_fallback == pool_mem ? "stack" : "heap";
	stage_setup_counting(st);
	stage_setup_aperf(st);
	stage_setup_ledger(st, p->ledger);
	stage_setup_extra_events(st);
	stage_setup_arenas(st, arena_notes, sizeof(arena_notes));
	/* The sources make their rows: split variants once per arena, the ladder's from the cache geometry. */
	for (size_t i = 0; i < st->nsrc; i++)
		st->src[i]->prepare(st, &plan.variants, &plan.rows);
	stage_setup_clock(st);
	stage_setup_record(st, arena_notes);
	stage_metrics_setup(st);

	for (size_t i = 0; i < st->nsrc; i++) {
		struct bench_row row;
		while (st->src[i]->next(st, &row)) {
			row.src = st->src[i];
			stage_run_row(st, &row);
		}
	}

	/* The counters are restored by the run's last stage (and the fault path), not here. */
	arena_release_all();
	out_text("bench: checks %u passed, %u failed, %u skipped, %u unstable", st->tally.pass, st->tally.fail,
		 st->tally.skip, st->tally.unstable);
}
