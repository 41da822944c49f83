/* bench/suite.c - the benchmark stage; see suite.h (and suite_int.h for how it is split). */
#include "bench/suite_int.h"
#include "bench/observer.h"
#include "bench/select.h"
#include "kernel/arena.h"
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
	rec_error("bench", "bench", "unknown benchmark '%.*s' (kernels: %s; or kernel.variant, all, none)",
		  (int)(len > 60 ? 60 : len), w, known);
}

/* ---- set-up ---- */







/* ---- one variant ---- */





static const struct memo *memo_find(const struct bench_def *d, int slot)
{
	for (size_t i = 0; i < suite.nmemo; i++)
		if (suite.memo[i].d == d && suite.memo[i].slot == slot)
			return &suite.memo[i];
	return NULL;
}

static void memo_keep(const struct bench_def *d, int slot, const struct bench_figure *cycles,
		      const struct check_event *ev, size_t nev)
{
	if (suite.nmemo == MEMO_MAX)
		return;
	struct memo *m = &suite.memo[suite.nmemo++];
	m->d = d;
	m->slot = slot;
	m->cycles = *cycles;
	m->nev = 0;
	for (size_t i = 0; i < nev && m->nev < MEMO_EV_MAX; i++)
		m->ev[m->nev++] = ev[i];
}







/*
 * Measure d between two calibrations when its cycles will come from the
 * TSC: if the clock moved by more than CLOCK_DRIFT_MILLI during the variant,
 * its ticks cannot be turned into cycles with either figure, so it is
 * measured again (at most MAX_REMEASURE times; the record says how often
 * and shows both figures).  The figure used is the mean of the two.
 */
#define CLOCK_DRIFT_MILLI 5
#define MAX_REMEASURE 2
static bool measure_bracketed(const struct bench_def *d, uint8_t *window, struct count_set *csp,
			      struct bench_result *res)
{
	bool bracket = !suite.emulator && !suite_counts_cycles(csp) && !suite.hs.cycles_msr;

	suite.ppm_before = suite.ppm_after = 0;
	for (suite.remeasured = 0;; suite.remeasured++) {
		if (bracket) {
			suite_calibrate(window);
			suite.ppm_before = suite.ppm;
		}
		if (!bench_run_variant(&suite.hs, d, window, csp, res))
			return false;
		/* Only the harness's own calibration can be repeated after the variant. */
		if (!bracket || !suite.ppm_before || strcmp(suite.calibration, "harness_add_chain"))
			return true;
		int64_t after, spread;
		if (!bench_calibrate(&suite.hs, window, &after, &spread)) {
			suite.ppm_after = 0;	/* the record then shows only the figure from before */
			suite.ppm = suite.ppm_before;
			return true;
		}
		suite.ppm_after = after;
		suite.ppm = (suite.ppm_before + suite.ppm_after) / 2;
		int64_t drift = suite.ppm_after - suite.ppm_before;
		if (drift < 0)
			drift = -drift;
		if (drift * 1000 <= CLOCK_DRIFT_MILLI * suite.ppm || suite.remeasured == MAX_REMEASURE)
			return true;
	}
}

static void run_row(const struct bench_def *d, int slot)
{
	static struct count_set cs;
	static struct bench_result res;
	static struct measured m;
	const struct slot *sl = slot == NO_SLOT ? NULL : &suite.slots[slot];
	uint8_t *window = sl ? sl->window : suite.scratch;
	struct count_set *csp = NULL;

	if (suite.hs.cb) {
		suite_build_set(&cs, suite_roles_for(d));
		if (cs.n)
			csp = &cs;
	}
	if (!measure_bracketed(d, window, csp, &res)) {
		rec_error("bench", d->kernel, "%s.%s not measured: %s", d->kernel, d->variant, res.problem);
		return;
	}

	/* Cycles: a counted cycles event where there is one, else TSC ticks converted by the calibration. */
	memset(&m, 0, sizeof(m));
	m.cycles = res.tsc;
	m.cycles_source = "tsc";
	if (res.aperf.n) {
		m.cycles = res.aperf;
		m.cycles_source = "aperf";
	} else if (suite.ppm) {
		stats_figure_scale(&m.cycles, (uint64_t)suite.ppm, 1000000);
		m.cycles_source = "tsc_calibrated";
	}
	for (size_t i = 0; csp && i < cs.n; i++) {
		uint32_t roles = cs.ev[i].def ? cs.ev[i].def->roles : 0;
		if (!res.ev[i].ok)
			continue;
		if ((roles & EV_ROLE_CYCLES) && strcmp(m.cycles_source, "fixed_counter") && strcmp(m.cycles_source, "pmc")) {
			m.cycles = res.ev[i].fig;
			m.cycles_source = cs.fixed_of[i] >= 0 ? "fixed_counter" : "pmc";
		}
		if ((roles & EV_ROLE_INSTRUCTIONS) && !m.have_instructions) {
			m.instructions = res.ev[i].fig;
			m.have_instructions = true;
		}
		m.ev[m.nev++] = (struct check_event){ suite_static_name(&cs.ev[i]), roles, res.ev[i].fig };
	}

	const struct bench_def *cd = bench_def_control(d);
	const struct memo *ctl = cd ? memo_find(cd, slot) : NULL;
	suite_emit_bench(d, sl, csp, &res, &m, ctl);

	struct check_input in = {
		.r = &suite.rec,
		.d = d,
		.arena = sl ? sl->name : NULL,
		.variant = { true, m.cycles, m.ev, m.nev },
		.counting = csp != NULL && m.nev > 0,
		.set = suite.set,
		.cycles_uncalibrated = !strcmp(m.cycles_source, "tsc"),
		.cycles_self_calibrated = d->fn == bk_add_chain && !strncmp(m.cycles_source, "tsc", 3) && suite.calibration &&
					  !strcmp(suite.calibration, "harness_add_chain"),
		.emulator = suite.emulator,
	};
	if (ctl)
		in.control = (struct check_side){ true, ctl->cycles, ctl->ev, ctl->nev };
	bench_checks(&in, &suite.tally);

	if (d->expect == BENCH_CONTROL)
		memo_keep(d, slot, &m.cycles, m.ev, m.nev);
	if (bench_observer_count())
		bench_observe(&suite.hs, d, window, sl ? sl->page : 0);
}

/* ---- the stage ---- */

/*
 * A core coming out of idle ramps its clock up over a few milliseconds
 * (1.08 to 1.30 cycles per TSC tick on the development machine): calibrate
 * until two figures in a row agree within CLOCK_DRIFT_MILLI, at most
 * SETTLE_MAX times, so the first variants are not measured on a moving
 * clock.  Under an emulator once is enough.
 */
#define SETTLE_MAX 20
static void settle_clock(void)
{
	int64_t last = 0;

	for (suite.settle_runs = 1;; suite.settle_runs++) {
		suite_calibrate(suite.scratch);
		int64_t drift = suite.ppm - last;
		if (drift < 0)
			drift = -drift;
		if (suite.emulator || !suite.ppm || suite.settle_runs == SETTLE_MAX ||
		    (last && drift * 1000 <= CLOCK_DRIFT_MILLI * suite.ppm))
			return;
		last = suite.ppm;
	}
}

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
	size_t pool_cap = (size_t)p->reps * (1 + COUNT_MAX_EVENTS) + 64;

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
	if (n > ARRAY_SIZE(suite.sel)) {
		rec_error("bench", "table", "%zu variants but room for %zu", n, ARRAY_SIZE(suite.sel));
		return;
	}
	suite.measured = (unsigned)bench_select(suite.p->bench, suite.sel, bad_word, NULL);
	if (!suite.measured) {
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
	suite.hs.drop_budget = suite.p->reps < 8 ? 8 : suite.p->reps;
	suite.hs.pool = suite.pool_fallback;
	suite.hs.pool_cap = pool_cap;
	suite.samples_in = suite.pool_fallback == pool_mem ? "stack" : "heap";

	suite_setup_counting();
	suite_setup_aperf(p->image);
	suite_setup_extra_events();
	suite_setup_arenas(arena_notes, sizeof(arena_notes));
	settle_clock();
	suite_setup_record(arena_notes);

	for (size_t i = 0; i < n;) {
		const struct bench_def *d = bench_def_at(i);
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

	/* The counters are restored by the run's last stage (and the fault path), not here. */
	arena_release_all();
	out_text("bench: checks %u passed, %u failed, %u skipped", suite.tally.pass, suite.tally.fail, suite.tally.skip);
}
