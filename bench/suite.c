/* bench/suite.c - the benchmark stage; see suite.h (and suite_int.h for how it is split). */
#include "bench/suite_int.h"
#include "bench/select.h"
#include "platform/arena.h"
#include "lib/heap.h"
#include "lib/out.h"
#include "lib/strbuf.h"

struct suite suite;

/* ---- selection ---- */

static void bad_word(const char *w, size_t len, void *ctx)
{
	char known[160];
	size_t k = 0;
	(void)ctx;
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
		  (int)(len > 60 ? 60 : len), w, known);
}

void bench_list(void)
{
	static const char *const expect[] = { "reference", "control", "slower than its control", "events only",
					      "sweep point" };
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *d = bench_def_at(i);
		char name[64], what[64];
		if (d->ladder != BENCH_LADDER_NONE) {
			suite_sweep_list(d);	/* the variants this processor's cache geometry makes */
			continue;
		}
		snprintf(name, sizeof(name), "%s.%s", d->kernel, d->variant);
		snprintf(what, sizeof(what), "%s%s%s%s", expect[d->expect], d->control ? " (vs " : "",
			 d->control ? d->control : "", d->control ? ")" : "");
		out_text("%-33s %-38s %s", name, what, d->body);
	}
}

/* Controls' figures are kept (on the heap) for the variants compared with them. */
static const struct bench_figures *memo_find(const struct bench_def *d, int slot)
{
	for (size_t i = 0; i < suite.nmemo; i++)
		if (suite.memo[i].d == d && suite.memo[i].slot == slot)
			return suite.memo[i].f;
	return NULL;
}

static void memo_keep(const struct bench_def *d, int slot, const struct bench_figures *f)
{
	struct bench_figures *copy;

	if (suite.nmemo == MEMO_MAX || !(copy = heap_alloc(sizeof(*copy), sizeof(int64_t))))
		return;	/* its variants' checks then say "control not measured" */
	*copy = *f;
	suite.memo[suite.nmemo++] = (struct memo){ d, slot, copy };
}

/*
 * The audit's verdict on this processor (pmu/audit/audit.h): an event counted on a counter it
 * blamed, or with a unit mask it found ignored, is not a measurement; nor are cycles counted on
 * such a counter, nor any cycles figure after a failed clock check (raw TSC ticks stay ticks).
 */
void suite_apply_audit(const struct count_set *set, struct bench_figures *f)
{
	const struct audit_verdict *v = suite.p->audit;
	const char *why;
	if (!v || !v->ran)
		return;
	int ce = -1;	/* the harness's cycles event: the first with the role */
	for (size_t i = 0; set && i < f->nev && ce < 0; i++)
		if (f->ev[i].roles & EV_ROLE_CYCLES)
			ce = (int)i;
	for (size_t i = 0; set && i < f->nev; i++) {
		bool fixed = set->fixed_of[i] >= 0;
		int idx = fixed ? set->fixed_of[i] : set->counter_of[i];
		if (!f->ev[i].measured || idx < 0 || audit_counter_ok(v, fixed, (unsigned)idx, set->ev[i].umask, &why))
			continue;
		f->ev[i].measured = false;
		f->ev[i].invalid = why;
		if ((int)i == f->instructions)
			f->instructions = -1;
		if ((f->cycles_source == BENCH_CYCLES_PMC || f->cycles_source == BENCH_CYCLES_FIXED) && (int)i == ce)
			f->cycles_invalid = why;
	}
	if (f->cycles_source != BENCH_CYCLES_TSC && !audit_clock_ok(v, &why))
		f->cycles_invalid = why;
}

static void run_row(const struct bench_def *d, int slot)
{
	suite_run_row(d, slot == NO_SLOT ? NULL : &suite.slots[slot], slot);
}

void suite_run_row(const struct bench_def *d, const struct slot *sl, int slot)
{
	uint8_t *window = sl ? sl->window : suite.scratch;
	struct count_set *csp = NULL;
	struct bench_figures *f = suite.figs;

	if (!suite_runnable(d, sl ? sl->name : NULL))
		return;
	if (suite.hs.cb) {
		suite_build_set(suite.cs, suite_roles_for(d));
		if (suite.cs->n)
			csp = suite.cs;
	}
	if (!bench_measure_variant(&suite.hs, d, window, csp, f)) {
		rec_error("bench", d->kernel, "%s.%s not measured: %s", d->kernel, d->variant, f->problem);
		return;
	}
	/* Names that outlive the count set, which is rebuilt for the next variant. */
	for (size_t i = 0; i < f->nev; i++)
		f->ev[i].name = suite_static_name(&suite.cs->ev[i]);
	suite_apply_audit(csp, f);

	const struct bench_def *cd = bench_def_control(d);
	const struct bench_figures *ctl = cd ? memo_find(cd, slot) : NULL;
	suite_emit_bench(d, sl, f, ctl, "it was not measured here (its error record says why)");
	suite_metrics_variant(d, sl, window, f);

	struct check_input in = {
		.r = &suite.rec,
		.d = d,
		.arena = sl ? sl->name : NULL,
		.variant = f,
		.control = ctl,
		.counting = csp != NULL && f->nev > 0,
		.set = suite.set,
		.emulator = suite.emulator,
	};
	struct check_tally checks = { 0, 0, 0, 0 };
	suite.row++;
	bench_checks(&in, &checks);
	suite.tally.pass += checks.pass;
	suite.tally.fail += checks.fail;
	suite.tally.skip += checks.skip;
	suite.tally.unstable += checks.unstable;

	if (d->expect == BENCH_CONTROL)
		memo_keep(d, slot, f);
	if (suite.p->nobservers)
		bench_observe(&suite.hs, d, window, sl ? sl->page : 0, suite.p->observers, suite.p->nobservers);
}

/* ---- the stage ---- */

#define DROP_BUDGET_MIN 16

static uint32_t round_up_unroll(uint32_t n)
{
	uint32_t r = (n + BENCH_UNROLL - 1) / BENCH_UNROLL * BENCH_UNROLL;
	return r < n ? n / BENCH_UNROLL * BENCH_UNROLL : r;
}

void bench_stage(const struct bench_params *p)
{
	char arena_notes[256];
	size_t n = bench_def_count();
	uint8_t scratch_mem[SCRATCH_BYTES];
	int64_t pool_mem[POOL_STACK];
	size_t pool_cap = (size_t)p->reps * (3 + COUNT_MAX_EVENTS) + 64;	/* bench/harness.c: 3 series + one per event */

	memset(&suite, 0, sizeof(suite));
	/* Aligned here, not by asking heap_alloc: the hosted heap is plain calloc, which ignores alignment. */
	suite.scratch = heap_alloc(SCRATCH_BYTES, 64);
	if (!suite.scratch)
		suite.scratch = scratch_mem;
	suite.scratch = (uint8_t *)(((uintptr_t)suite.scratch + 4095) & ~(uintptr_t)4095);
	suite.pool_fallback = heap_alloc(pool_cap * sizeof(int64_t), sizeof(int64_t));
	if (!suite.pool_fallback) {
		suite.pool_fallback = pool_mem;
		pool_cap = POOL_STACK;
	}
	suite.p = p;
	suite.ci = p->cpu;
	if (!strcmp(p->bench, BENCH_LIST_WORD)) {
		bench_list();
		return;
	}
	suite.figs = heap_alloc(sizeof(*suite.figs), sizeof(int64_t));
	suite.cs = heap_alloc(sizeof(*suite.cs), sizeof(int64_t));
	if (!suite.figs || !suite.cs) {
		rec_error("bench", "memory", "no room on the heap for a variant's figures (%zu bytes)",
			  sizeof(*suite.figs) + sizeof(*suite.cs));
		return;
	}
	if (n > ARRAY_SIZE(suite.sel)) {
		rec_error("bench", "table", "%zu variants but room for %zu", n, ARRAY_SIZE(suite.sel));
		return;
	}
	size_t user = suite_user_prepare();
	suite.measured = (unsigned)bench_select(suite.p->bench, suite.sel, bad_word, NULL);
	if (!suite.measured && !user) {
		out_text("bench: nothing chosen (bench=%s)", suite.p->bench);
		return;
	}
	if (bench_asm_unroll != BENCH_UNROLL) {
		rec_error("bench", "unroll", "kernels unrolled %u times but the harness assumes %u", bench_asm_unroll,
			  BENCH_UNROLL);
		return;
	}
	suite.amd = suite.ci->vendor == VENDOR_AMD || suite.ci->vendor == VENDOR_HYGON;
	suite.emulator = suite.ci->exec == EXEC_EMULATED;
	suite.set = suite_core_event_set(suite.ci);
	suite.hs.iterations = round_up_unroll(suite.p->iterations);
	suite.hs.reps = suite.p->reps;
	suite.hs.warmup = suite.p->warmup;
	/* Twice the samples wanted may be thrown away (disturbed or impossible) before a figure is unstable. */
	suite.hs.drop_budget = 2 * suite.p->reps < DROP_BUDGET_MIN ? DROP_BUDGET_MIN : 2 * suite.p->reps;
	suite.hs.emulated_time = suite.emulator;
	suite.hs.pool = suite.pool_fallback;
	suite.hs.pool_cap = pool_cap;
	suite.samples_in = suite.pool_fallback == pool_mem ? "stack" : "heap";

	suite_setup_counting();
	suite_setup_aperf();
	suite_setup_ledger(p->ledger);
	suite_setup_extra_events();
	suite_setup_arenas(arena_notes, sizeof(arena_notes));
	/* The memory ladder's rows stand for variants made from the cache geometry and the arena it gets. */
	size_t points = suite_sweep_prepare();
	for (size_t i = 0; i < n; i++)
		if (suite.sel[i] && bench_def_at(i)->ladder != BENCH_LADDER_NONE)
			suite.measured--;
	suite.measured += (unsigned)(points + user);
	suite_setup_clock();
	suite_setup_record(arena_notes);
	suite_metrics_setup();
	for (size_t i = 0; i < n; i++)
		if (suite.sel[i] && bench_def_at(i)->ladder == BENCH_LADDER_NONE)
			suite.rows += bench_def_at(i)->per_arena ? (unsigned)suite.nslots : 1;
	suite.rows += (unsigned)(user + points);

	for (size_t i = 0; i < n;) {
		const struct bench_def *d = bench_def_at(i);
		if (d->ladder != BENCH_LADDER_NONE) {
			i++;	/* its variants are made and measured by suite_sweep_run, below */
			continue;
		}
		if (!d->per_arena) {
			if (suite.sel[i])
				run_row(d, NO_SLOT);
			i++;
			continue;
		}
		/* A kernel's per-arena rows run arena by arena, controls first within each. */
		size_t j = i;
		while (j < n && bench_def_at(j)->per_arena && !strcmp(bench_def_at(j)->kernel, d->kernel))
			j++;
		for (size_t s = 0; s < suite.nslots; s++)
			for (size_t k = i; k < j; k++)
				if (suite.sel[k])
					run_row(bench_def_at(k), (int)s);
		i = j;
	}

	suite_sweep_run();
	suite_user_run(user);

	/* The counters are restored by the run's last stage (and the fault path), not here. */
	arena_release_all();
	out_text("bench: checks %u passed, %u failed, %u skipped, %u unstable", suite.tally.pass, suite.tally.fail,
		 suite.tally.skip, suite.tally.unstable);
}
