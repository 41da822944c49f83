/* bench/stage_setup.c - what the benchmark stage sets up before measuring, and its bench_setup record; see stage_int.h. */
#include "bench/stage_int.h"
#include "platform/arena.h"
#include "platform/hw.h"
#include "platform/timing.h"
#include "platform/vec.h"
#include "lib/out.h"
#include "lib/strbuf.h"
#include "lib/x86/msr_intel.h"
#include "lib/x86/cpuid.h"

/*
 * IA32_APERF counts core clocks at the actual frequency while in C0 (SDM
 * Vol. 4 Table 2-2, MSR E8H; AMD APM Vol. 2 section 17.3, MSR0000_00E8);
 * present when CPUID.06H:ECX[0] is set (SDM Vol. 2A CPUID leaf 06H,
 * "Hardware Coordination Feedback Capability"; AMD CPUID Fn0000_0006_ECX[0]
 * EffFreq).  A cycle source where no cycles event can be counted.
 */

/* Counting was set up by the pmu stage (count_init); the harness uses it when it is there. */
void stage_setup_counting(struct stage *st)
{
	st->count_why[0] = 0;
	st->hs.model_work = st->p->model_work;
	st->hs.model_ctx = st->p->model_ctx;
	if (count_available())
		st->hs.cb = count_backend();
	else
		snprintf(st->count_why, sizeof(st->count_why), "%s",
			 count_unavailable_reason() ? count_unavailable_reason() : "counting is not available");
}

/*
 * APERF is read raw by bench/measure.asm, so only at ring 0 (hw_platform) and
 * only after one safe read showed it is there: a hypervisor may set the
 * CPUID bit and still refuse the MSR.
 */
void stage_setup_aperf(struct stage *st)
{
	struct cpuid_regs r;
	uint64_t v;

	st->hs.cycles_msr = 0;
	if (!hw_platform()->ring0) {
		st->aperf_why = "not read from a user process";
		return;
	}
	if (st->ci->max_leaf < CPUID_LEAF_POWER) {
		st->aperf_why = "CPUID leaf 06H absent";
		return;
	}
	hw_cpuid(CPUID_LEAF_POWER, 0, &r);
	if (!(r.ecx & CPUID6_ECX_APERFMPERF)) {
		st->aperf_why = "CPUID.06H:ECX[0] clear";
		return;
	}
	if (hw_rdmsr(MSR_IA32_APERF, &v) != HW_OK) {
		st->aperf_why = "MSR E8H not readable";
		return;
	}
	st->hs.cycles_msr = MSR_IA32_APERF;
	st->aperf_why = NULL;
}

/*
 * The quiet-machine ledger judges every sample (docs/benchmarks.md).  It
 * clears thermal log bits only where the run owns the processor (hw_platform); a
 * Linux process leaves them to the kernel's thermal driver.  Its SMI event
 * (AMD) is counted beside each pass when counting is up.
 */
void stage_setup_ledger(struct stage *st, struct ledger *given)
{
	struct ledger_opts o = { .clear_logs = hw_platform()->owns_machine };
	char err[192];

	/* The run's ledger (set up by the audit stage on this processor), else one of the stage's own. */
	st->ledger = given;
	if (!given) {
		st->ledger = &st->own_ledger;
		ledger_init_opts(st->ledger, st->ci, NULL, &o);
	}
	st->hs.ledger = st->ledger;
	st->hs.smi_event = NULL;
	st->smi_why = NULL;
	const struct event_def *smi = ledger_smi_event(st->ledger);
	if (!smi)
		return;
	if (!st->hs.cb)
		st->smi_why = "no event counting";
	else if (!event_spec_parse(st->set, st->amd, smi->name, strlen(smi->name), &st->smi_spec, err, sizeof(err)))
		st->smi_why = "the SMI event does not parse";	/* the catalogue's own name: not expected */
	else
		st->hs.smi_event = &st->smi_spec;
}

void stage_setup_extra_events(struct stage *st)
{
	const char *p = st->p->events;
	/* An event is looked up here, per core; the error names where events= was written. */
	const char *source = st->p->events_source ? st->p->events_source : "bench";
	char err[192];

	const char *w;
	size_t len;
	while (lc_next_item(&p, ';', &w, &len)) {
		if (st->nextra == EXTRA_MAX) {
			rec_error(source, "events", "more than %d extra events; '%.*s' and later ones are ignored",
				  EXTRA_MAX, (int)(len > 60 ? 60 : len), w);
			return;
		}
		if (event_spec_parse(st->set, st->amd, w, len, &st->extra[st->nextra], err, sizeof(err)))
			st->nextra++;
		else
			rec_error(source, "events", "%s", err);
	}
}

/*
 * TSC ticks to core cycles.  The harness calibrates on platform/calib.asm's
 * add chain right around every variant (bench_measure_variant), because the
 * core clock moves under a fixed TSC (turbo, power limits, a busy host:
 * 1.287 to 1.302 cycles per tick between runs on the development machine),
 * and a figure taken once at the start would turn that drift into error.
 * timing's once-per-run calibration is reported beside it and used only
 * when the harness's fails.  Here: the fallback, and the first calibrations
 * until the clock holds still (bench_settle).
 */
void stage_setup_clock(struct stage *st)
{
	const struct timing_info *t = timing_get();

	memset(&st->hs.fallback, 0, sizeof(st->hs.fallback));
	if (t && t->core_source && t->core_per_tsc_milli > 0) {
		st->hs.fallback.source = BENCH_CALIB_TIMING;
		st->hs.fallback.ppm = t->core_per_tsc_milli * 1000;
		st->hs.fallback.spread_milli = t->core_spread_milli;
	}
	st->settle_runs = bench_settle(&st->hs, st->scratch);
	st->start_clock = st->hs.clock;
	memset(&st->contention, 0, sizeof(st->contention));
	st->hs.contention = &st->contention;
	/*
	 * Adaptive iterations (bench/harness.h), except under an emulator, where a tick means nothing,
	 * and where the TSC rate is unknown: without it there is no time budget to keep them in.
	 */
	bool rate = t && t->tsc_hz;
	st->hs.target_ticks = st->emulator || !rate ? 0 : BENCH_TARGET_TICKS;
	st->hs.budget_ticks = rate ? t->tsc_hz / 1000 * BENCH_VARIANT_BUDGET_MS : 0;
	st->hs.contended_patience_ticks = rate ? t->tsc_hz / 1000 * BENCH_CONTENDED_PATIENCE_MS : 0;
	st->hs.window_ticks_max = st->hs.target_ticks ? t->tsc_hz / 1000000 * hw_platform()->run_us_max : 0;
}

void stage_setup_arenas(struct stage *st, char *notes, size_t cap)
{
	static const struct {
		unsigned sel;
		uint32_t size;
		const char *name;
	} sizes[] = { { BENCH_PAGES_4K, ARENA_PAGE_4K, "4k" }, { BENCH_PAGES_2M, ARENA_PAGE_2M, "2m" } };
	size_t k = 0;

	st->nslots = 0;
	notes[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct arena a;
		char why[96];

		if (!(st->p->pages & sizes[i].sel))
			continue;
		if (!arena_get(sizes[i].size, &a, why, sizeof(why))) {
			k += (size_t)snprintf(notes + k, k < cap ? cap - k : 0, "%s%s: %s", k ? "; " : "", sizes[i].name, why);
			continue;
		}
		uint32_t page = arena_page_size_at(a.base);
		st->slots[st->nslots++] = (struct slot){ sizes[i].name, a.base, page ? page : a.page_size, a.how };
		/* Samples go to an arena, past the scratch window, when there is one. */
		st->hs.pool = (int64_t *)(void *)(a.base + POOL_ARENA_OFFSET);
		st->hs.pool_cap = (a.size - POOL_ARENA_OFFSET) / sizeof(int64_t);
		st->samples_in = "arena";
	}
	if (!st->nslots)
		st->slots[st->nslots++] = (struct slot){ "fallback", st->scratch, arena_page_size_at(st->scratch), "heap or stack" };
}

/* One line: which sources the ledger reads, and thermal logs it found set. */
static void setup_ledger_text(const struct stage *st)
{
	const struct ledger *l = st->ledger;
	char have[160], lacks[160];
	size_t h = 0, k = 0;

	/* The two SMI sources stand in for each other: one of them is enough. */
	bool smi_on = l->src[LEDGER_SMI_COUNT].available || st->hs.smi_event;
	have[0] = lacks[0] = 0;
	for (unsigned s = 0; s < LEDGER_SOURCES; s++) {
		bool smi = s == LEDGER_SMI_COUNT || s == LEDGER_SMI_EVENT;
		bool on = l->src[s].available && (s != LEDGER_SMI_EVENT || st->hs.smi_event);
		if (on)
			h = str_appendf(have, sizeof(have), h, "%s%s", h ? ", " : "", ledger_source_name(s));
		else if (!smi || (!smi_on && s == LEDGER_SMI_COUNT))
			k = str_appendf(lacks, sizeof(lacks), k, "%s%s", k ? ", " : "", smi ? "smi" : ledger_source_name(s));
	}
	out_text("bench: ledger reads %s%s%s%s", h ? have : "nothing", k ? " (not: " : "", lacks, k ? ")" : "");
	if (l->therm.found || l->pkg.found)
		out_text("bench: thermal log bits found set at the start: core 0x%llx, package 0x%llx (%s)",
			 (unsigned long long)l->therm.found, (unsigned long long)l->pkg.found,
			 l->clear_logs ? "cleared" : "left as found");
}

void stage_setup_record(struct stage *st, const char *arena_notes)
{
	struct rec *r = &st->rec;
	const struct timing_info *t = timing_get();
	char a[32];

	rec_start(r, "bench_setup");
	rec_u64(r, "variants", st->plan->variants);
	rec_u64(r, "rows", st->plan->rows);
	rec_u64(r, "iterations", st->hs.iterations);
	rec_obj(r, "adaptive");
	rec_bool(r, "on", st->hs.target_ticks != 0);
	rec_u64(r, "target_ticks", st->hs.target_ticks);
	if (st->hs.budget_ticks)
		rec_u64(r, "budget_ms", BENCH_VARIANT_BUDGET_MS);
	else
		rec_null(r, "budget_ms");
	rec_u64(r, "max_iterations", BENCH_ITERATIONS_MAX);
	if (st->hs.window_ticks_max)
		rec_u64(r, "window_ticks", st->hs.window_ticks_max);
	else
		rec_null(r, "window_ticks");
	rec_str(r, "why_off", st->hs.target_ticks ? NULL
			      : st->emulator ? "under an emulator TSC ticks are not physical"
					       : "the TSC rate is not known: no time budget");
	rec_obj_end(r);
	rec_u64(r, "reps", st->hs.reps);
	rec_u64(r, "warmup", st->hs.warmup);
	rec_u64(r, "drop_budget", st->hs.drop_budget);
	rec_u64(r, "unroll", BENCH_UNROLL);
	rec_str(r, "method", BENCH_METHOD);
	rec_obj(r, "calibration");
	rec_str(r, "source", bench_calib_source_name(st->start_clock.source));
	if (st->start_clock.ppm) {
		rec_milli(r, "core_per_tsc", st->start_clock.ppm / 1000);
		rec_u64(r, "core_per_tsc_ppm", (uint64_t)st->start_clock.ppm);
		rec_milli(r, "spread", st->start_clock.spread_milli);
	}
	rec_bool(r, "per_variant", !st->emulator);
	rec_u64(r, "settle_runs", st->settle_runs);
	if (t && t->core_source && t->core_per_tsc_milli > 0) {
		rec_str(r, "timing_source", t->core_source);
		rec_milli(r, "timing_core_per_tsc", t->core_per_tsc_milli);
	}
	rec_obj_end(r);
	if (t && t->tsc_hz)
		rec_u64(r, "tsc_hz", t->tsc_hz);
	else
		rec_null(r, "tsc_hz");
	rec_obj(r, "counting");
	rec_bool(r, "available", st->hs.cb != NULL);
	rec_str(r, "backend", count_backend() ? count_backend()->name : NULL);
	rec_str(r, "reason", st->hs.cb ? NULL : st->count_why);
	rec_obj_end(r);
	rec_obj(r, "aperf");
	rec_bool(r, "available", st->hs.cycles_msr != 0);
	rec_str(r, "reason", st->aperf_why);
	rec_obj_end(r);
	rec_obj(r, "ledger");
	ledger_sources_fields(r, st->ledger);
	ledger_init_fields(r, st->ledger);
	rec_str(r, "smi_event_counted", st->hs.smi_event ? st->hs.smi_event->name : NULL);
	rec_str(r, "smi_event_reason", st->smi_why);
	rec_obj_end(r);
	rec_str(r, "event_set", st->set ? st->set->key : NULL);
	rec_arr(r, "extra_events");
	for (size_t i = 0; i < st->nextra; i++)
		rec_str(r, NULL, st->extra[i].name);
	rec_arr_end(r);
	rec_arr(r, "arenas");
	for (size_t i = 0; i < st->nslots; i++) {
		rec_obj(r, NULL);
		rec_str(r, "name", st->slots[i].name);
		if (st->slots[i].page)
			rec_u64(r, "page", st->slots[i].page);
		else
			rec_null(r, "page");
		rec_str(r, "how", st->slots[i].how);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_str(r, "arena_problems", arena_notes[0] ? arena_notes : NULL);
	for (size_t i = 0; i < st->nsrc; i++)
		if (st->src[i]->setup_fields)
			st->src[i]->setup_fields(st, r);
	rec_str(r, "samples_in", st->samples_in);
	/* The rules of bench/stats.h, so a reader of the records need not look them up. */
	rec_obj(r, "rules");
	rec_milli(r, "outlier_z", STATS_OUTLIER_Z_MILLI);
	rec_milli(r, "mad_floor", STATS_MAD_FLOOR_PERMILLE);
	rec_milli(r, "n_2n_slack", STATS_N2N_SLACK_PERCENT * 10);
	rec_milli(r, "chain_slack", STATS_CHAIN_SLACK_PERCENT * 10);
	rec_milli(r, "chain_slack_min", STATS_CHAIN_SLACK_MIN_PERMILLE);
	rec_u64(r, "chain_slack_spreads", STATS_CHAIN_SLACK_SPREADS);
	rec_milli(r, "clock_floor", STATS_CLOCK_FLOOR_PERMILLE);
	rec_milli(r, "clock_ceiling", STATS_CLOCK_CEIL_PERMILLE);
	rec_u64(r, "calib_adds", BENCH_CALIB_ADDS);
	rec_u64(r, "sample_calib_adds", BENCH_SAMPLE_CALIB_ADDS);
	rec_milli(r, "n_2n_tight_under", STATS_N2N_TIGHT_UNDER_PERMILLE);
	rec_milli(r, "n_2n_tight_over", STATS_N2N_TIGHT_OVER_PERMILLE);
	rec_milli(r, "contention_tolerance", BENCH_PROBE_TOLERANCE_PERMILLE);
	rec_milli(r, "unstable_outliers", 1000 / STATS_UNSTABLE_OUTLIER_DIV);
	rec_milli(r, "unstable_iqr", STATS_UNSTABLE_IQR_PERMILLE);
	rec_obj_end(r);
	rec_bool(r, "emulated", st->ci->exec == EXEC_EMULATED);
	rec_bool(r, "emulator", st->emulator);
	rec_emit(r);

	char adapt[64];
	adapt[0] = 0;
	if (st->hs.target_ticks)
		snprintf(adapt, sizeof(adapt), "adaptive: >= %llu TSC ticks per run, at least ",
			 (unsigned long long)st->hs.target_ticks);
	out_text("bench: %u variants, %s%u iterations x %u reps (+%u warm-up), %s; cycles from %s%s%s", st->plan->variants,
		 adapt, st->hs.iterations, st->hs.reps, st->hs.warmup, BENCH_METHOD,
		 st->hs.cb ? "counters where the core has a cycles event, else " : "",
		 st->hs.cycles_msr ? "IA32_APERF" : st->start_clock.ppm ? "TSC x " : "raw TSC",
		 !st->hs.cycles_msr && st->start_clock.ppm ? fmt_milli(a, st->start_clock.ppm / 1000) : "");
	if (!st->hs.cb)
		out_text("bench: no event counting: %s", st->count_why);
	setup_ledger_text(st);
	if (arena_notes[0])
		out_text("bench: arenas: %s%s", arena_notes,
			 st->slots[0].window == st->scratch ? " (split kernels run in a plain buffer)" : "");
	if (st->nextra && !st->hs.cb)
		out_text("bench: the %zu extra events cannot be counted here", st->nextra);
}
