/* bench/suite_setup.c - what the benchmark stage sets up before measuring; see suite_int.h. */
#include "bench/suite_int.h"
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

/* The event set identification named for this core (cpu/cpu.h), or NULL when it named none. */
const struct event_set *suite_core_event_set(const struct cpu_info *ci)
{
	return ci->event_set ? events_set_find(ci->event_set) : NULL;
}

/* Counting was set up by the pmu stage (count_init); the harness uses it when it is there. */
void suite_setup_counting(void)
{
	suite.count_why[0] = 0;
	suite.hs.model_work = suite.p->model_work;
	suite.hs.model_ctx = suite.p->model_ctx;
	if (count_available())
		suite.hs.cb = count_backend();
	else
		snprintf(suite.count_why, sizeof(suite.count_why), "%s",
			 count_unavailable_reason() ? count_unavailable_reason() : "counting is not available");
}

/*
 * APERF is read raw by bench/measure.asm, so only at ring 0 (hw_platform) and
 * only after one safe read showed it is there: a hypervisor may set the
 * CPUID bit and still refuse the MSR.
 */
void suite_setup_aperf(void)
{
	struct cpuid_regs r;
	uint64_t v;

	suite.hs.cycles_msr = 0;
	if (!hw_platform()->ring0) {
		suite.aperf_why = "not read from a user process";
		return;
	}
	if (suite.ci->max_leaf < CPUID_LEAF_POWER) {
		suite.aperf_why = "CPUID leaf 06H absent";
		return;
	}
	hw_cpuid(CPUID_LEAF_POWER, 0, &r);
	if (!(r.ecx & CPUID6_ECX_APERFMPERF)) {
		suite.aperf_why = "CPUID.06H:ECX[0] clear";
		return;
	}
	if (hw_rdmsr(MSR_IA32_APERF, &v) != HW_OK) {
		suite.aperf_why = "MSR E8H not readable";
		return;
	}
	suite.hs.cycles_msr = MSR_IA32_APERF;
	suite.aperf_why = NULL;
}

/*
 * The quiet-machine ledger judges every sample (docs/benchmarks.md).  It
 * clears thermal log bits only where the run owns the processor (hw_platform); a
 * Linux process leaves them to the kernel's thermal driver.  Its SMI event
 * (AMD) is counted beside each pass when counting is up.
 */
void suite_setup_ledger(struct ledger *given)
{
	struct ledger_opts o = { .clear_logs = hw_platform()->owns_machine };
	char err[192];

	/* The run's ledger (set up by the audit stage on this processor), else one of the stage's own. */
	suite.ledger = given;
	if (!given) {
		suite.ledger = &suite.own_ledger;
		ledger_init_opts(suite.ledger, suite.ci, NULL, &o);
	}
	suite.hs.ledger = suite.ledger;
	suite.hs.smi_event = NULL;
	suite.smi_why = NULL;
	const struct event_def *smi = ledger_smi_event(suite.ledger);
	if (!smi)
		return;
	if (!suite.hs.cb)
		suite.smi_why = "no event counting";
	else if (!event_spec_parse(suite.set, suite.amd, smi->name, strlen(smi->name), &suite.smi_spec, err, sizeof(err)))
		suite.smi_why = "the SMI event does not parse";	/* the catalogue's own name: not expected */
	else
		suite.hs.smi_event = &suite.smi_spec;
}

void suite_setup_extra_events(void)
{
	const char *p = suite.p->events;
	/* An event is looked up here, per core; the error names where events= was written. */
	const char *source = suite.p->events_source ? suite.p->events_source : "bench";
	char err[192];

	const char *w;
	size_t len;
	while (lc_next_item(&p, ';', &w, &len)) {
		if (suite.nextra == EXTRA_MAX) {
			rec_error(source, "events", "more than %d extra events; '%.*s' and later ones are ignored",
				  EXTRA_MAX, (int)(len > 60 ? 60 : len), w);
			return;
		}
		if (event_spec_parse(suite.set, suite.amd, w, len, &suite.extra[suite.nextra], err, sizeof(err)))
			suite.nextra++;
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
void suite_setup_clock(void)
{
	const struct timing_info *t = timing_get();

	memset(&suite.hs.fallback, 0, sizeof(suite.hs.fallback));
	if (t && t->core_source && t->core_per_tsc_milli > 0) {
		suite.hs.fallback.source = BENCH_CALIB_TIMING;
		suite.hs.fallback.ppm = t->core_per_tsc_milli * 1000;
		suite.hs.fallback.spread_milli = t->core_spread_milli;
	}
	suite.settle_runs = bench_settle(&suite.hs, suite.scratch);
	suite.start_clock = suite.hs.clock;
	/*
	 * Adaptive iterations (bench/harness.h), except under an emulator, where a tick means nothing,
	 * and where the TSC rate is unknown: without it there is no time budget to keep them in.
	 */
	bool rate = t && t->tsc_hz;
	suite.hs.target_ticks = suite.emulator || !rate ? 0 : BENCH_TARGET_TICKS;
	suite.hs.budget_ticks = rate ? t->tsc_hz / 1000 * BENCH_VARIANT_BUDGET_MS : 0;
	suite.hs.window_ticks_max = suite.hs.target_ticks ? t->tsc_hz / 1000000 * hw_platform()->run_us_max : 0;
}

void suite_setup_arenas(char *notes, size_t cap)
{
	static const struct {
		unsigned sel;
		uint32_t size;
		const char *name;
	} sizes[] = { { BENCH_PAGES_4K, ARENA_PAGE_4K, "4k" }, { BENCH_PAGES_2M, ARENA_PAGE_2M, "2m" } };
	size_t k = 0;

	suite.nslots = 0;
	notes[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct arena a;
		char why[96];

		if (!(suite.p->pages & sizes[i].sel))
			continue;
		if (!arena_get(sizes[i].size, &a, why, sizeof(why))) {
			k += (size_t)snprintf(notes + k, k < cap ? cap - k : 0, "%s%s: %s", k ? "; " : "", sizes[i].name, why);
			continue;
		}
		uint32_t page = arena_page_size_at(a.base);
		suite.slots[suite.nslots++] = (struct slot){ sizes[i].name, a.base, page ? page : a.page_size, a.how };
		/* Samples go to an arena, past the scratch window, when there is one. */
		suite.hs.pool = (int64_t *)(void *)(a.base + POOL_ARENA_OFFSET);
		suite.hs.pool_cap = (a.size - POOL_ARENA_OFFSET) / sizeof(int64_t);
		suite.samples_in = "arena";
	}
	if (!suite.nslots)
		suite.slots[suite.nslots++] = (struct slot){ "fallback", suite.scratch, arena_page_size_at(suite.scratch), "heap or stack" };
}

/* One line: which sources the ledger reads, and thermal logs it found set. */
static void setup_ledger_text(void)
{
	const struct ledger *l = suite.ledger;
	char have[160], lacks[160];
	size_t h = 0, k = 0;

	/* The two SMI sources stand in for each other: one of them is enough. */
	bool smi_on = l->src[LEDGER_SMI_COUNT].available || suite.hs.smi_event;
	have[0] = lacks[0] = 0;
	for (unsigned s = 0; s < LEDGER_SOURCES; s++) {
		bool smi = s == LEDGER_SMI_COUNT || s == LEDGER_SMI_EVENT;
		bool on = l->src[s].available && (s != LEDGER_SMI_EVENT || suite.hs.smi_event);
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

void suite_setup_record(const char *arena_notes)
{
	struct rec *r = &suite.rec;
	const struct timing_info *t = timing_get();
	char a[32];

	rec_start(r, "bench_setup");
	rec_u64(r, "variants", suite.measured);
	rec_u64(r, "iterations", suite.hs.iterations);
	rec_obj(r, "adaptive");
	rec_bool(r, "on", suite.hs.target_ticks != 0);
	rec_u64(r, "target_ticks", suite.hs.target_ticks);
	if (suite.hs.budget_ticks)
		rec_u64(r, "budget_ms", BENCH_VARIANT_BUDGET_MS);
	else
		rec_null(r, "budget_ms");
	rec_u64(r, "max_iterations", BENCH_ITERATIONS_MAX);
	if (suite.hs.window_ticks_max)
		rec_u64(r, "window_ticks", suite.hs.window_ticks_max);
	else
		rec_null(r, "window_ticks");
	rec_str(r, "why_off", suite.hs.target_ticks ? NULL
			      : suite.emulator ? "under an emulator TSC ticks are not physical"
					       : "the TSC rate is not known: no time budget");
	rec_obj_end(r);
	rec_u64(r, "reps", suite.hs.reps);
	rec_u64(r, "warmup", suite.hs.warmup);
	rec_u64(r, "drop_budget", suite.hs.drop_budget);
	rec_u64(r, "unroll", BENCH_UNROLL);
	rec_str(r, "method", BENCH_METHOD);
	rec_obj(r, "calibration");
	rec_str(r, "source", bench_calib_source_name(suite.start_clock.source));
	if (suite.start_clock.ppm) {
		rec_milli(r, "core_per_tsc", suite.start_clock.ppm / 1000);
		rec_u64(r, "core_per_tsc_ppm", (uint64_t)suite.start_clock.ppm);
		rec_milli(r, "spread", suite.start_clock.spread_milli);
	}
	rec_bool(r, "per_variant", !suite.emulator);
	rec_u64(r, "settle_runs", suite.settle_runs);
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
	rec_bool(r, "available", suite.hs.cb != NULL);
	rec_str(r, "backend", count_backend() ? count_backend()->name : NULL);
	rec_str(r, "reason", suite.hs.cb ? NULL : suite.count_why);
	rec_obj_end(r);
	rec_obj(r, "aperf");
	rec_bool(r, "available", suite.hs.cycles_msr != 0);
	rec_str(r, "reason", suite.aperf_why);
	rec_obj_end(r);
	rec_obj(r, "ledger");
	ledger_sources_fields(r, suite.ledger);
	ledger_init_fields(r, suite.ledger);
	rec_str(r, "smi_event_counted", suite.hs.smi_event ? suite.hs.smi_event->name : NULL);
	rec_str(r, "smi_event_reason", suite.smi_why);
	rec_obj_end(r);
	rec_str(r, "event_set", suite.set ? suite.set->key : NULL);
	rec_arr(r, "extra_events");
	for (size_t i = 0; i < suite.nextra; i++)
		rec_str(r, NULL, suite.extra[i].name);
	rec_arr_end(r);
	rec_arr(r, "arenas");
	for (size_t i = 0; i < suite.nslots; i++) {
		rec_obj(r, NULL);
		rec_str(r, "name", suite.slots[i].name);
		if (suite.slots[i].page)
			rec_u64(r, "page", suite.slots[i].page);
		else
			rec_null(r, "page");
		rec_str(r, "how", suite.slots[i].how);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_str(r, "arena_problems", arena_notes[0] ? arena_notes : NULL);
	suite_sweep_setup_fields(r);
	rec_str(r, "samples_in", suite.samples_in);
	/* The rules of bench/stats.h, so a reader of the records need not look them up. */
	rec_obj(r, "rules");
	rec_milli(r, "outlier_z", STATS_OUTLIER_Z_MILLI);
	rec_milli(r, "mad_floor", STATS_MAD_FLOOR_PERMILLE);
	rec_milli(r, "n_2n_slack", STATS_N2N_SLACK_PERCENT * 10);
	rec_milli(r, "chain_slack", STATS_CHAIN_SLACK_PERCENT * 10);
	rec_milli(r, "chain_slack_min", STATS_CHAIN_SLACK_MIN_PERMILLE);
	rec_u64(r, "chain_slack_spreads", STATS_CHAIN_SLACK_SPREADS);
	rec_milli(r, "clock_floor", STATS_CLOCK_FLOOR_PERMILLE);
	rec_u64(r, "calib_adds", BENCH_CALIB_ADDS);
	rec_milli(r, "unstable_outliers", 1000 / STATS_UNSTABLE_OUTLIER_DIV);
	rec_milli(r, "unstable_iqr", STATS_UNSTABLE_IQR_PERMILLE);
	rec_obj_end(r);
	rec_bool(r, "emulated", suite.ci->exec == EXEC_EMULATED);
	rec_bool(r, "emulator", suite.emulator);
	rec_emit(r);

	char adapt[64];
	adapt[0] = 0;
	if (suite.hs.target_ticks)
		snprintf(adapt, sizeof(adapt), "adaptive: >= %llu TSC ticks per run, at least ",
			 (unsigned long long)suite.hs.target_ticks);
	out_text("bench: %u variants, %s%u iterations x %u reps (+%u warm-up), %s; cycles from %s%s%s", suite.measured,
		 adapt, suite.hs.iterations, suite.hs.reps, suite.hs.warmup, BENCH_METHOD,
		 suite.hs.cb ? "counters where the core has a cycles event, else " : "",
		 suite.hs.cycles_msr ? "IA32_APERF" : suite.start_clock.ppm ? "TSC x " : "raw TSC",
		 !suite.hs.cycles_msr && suite.start_clock.ppm ? fmt_milli(a, suite.start_clock.ppm / 1000) : "");
	if (!suite.hs.cb)
		out_text("bench: no event counting: %s", suite.count_why);
	setup_ledger_text();
	if (arena_notes[0])
		out_text("bench: arenas: %s%s", arena_notes,
			 suite.slots[0].window == suite.scratch ? " (split kernels run in a plain buffer)" : "");
	if (suite.nextra && !suite.hs.cb)
		out_text("bench: the %zu extra events cannot be counted here", suite.nextra);
}

/*
 * A variant whose body executes vector instructions the run cannot use here
 * (platform/vec.h: CPUID and XCR0) is not run: it would raise #UD.  Its
 * `check` says skip and why, and the stage goes on.
 */
bool suite_runnable(const struct bench_def *d, const char *arena)
{
	uint32_t needs = d->needs, have = needs ? vec_extensions() : 0, missing = needs & ~have;
	struct hw_vector_state vs;
	char why[200], names[48];
	size_t k = 0;

	if (!missing)
		return true;
	names[0] = 0;
	for (unsigned i = 0; vec_ext_name(i); i++)
		if (missing & (1u << i))
			k = str_appendf(names, sizeof(names), k, "%s%s", k ? ", " : "", vec_ext_name(i));
	hw_vector_state(&vs);
	/* Which it is, said plainly: the processor lacks it, or has it with its register state off. */
	struct cpuid_regs l0, l1, l7 = { 0, 0, 0, 0 };
	hw_cpuid(CPUID_LEAF_VENDOR, 0, &l0);
	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &l1);
	if (l0.eax >= CPUID_LEAF_EXT_FEATURES)
		hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &l7);
	uint32_t in_cpuid = vec_extensions_of(~0ull, l1.ecx | CPUID1_ECX_OSXSAVE, l7.ebx);
	if (missing & ~in_cpuid)
		snprintf(why, sizeof(why), "needs %s, not usable here: this processor does not have %s (CPUID)", names,
			 (missing & (missing - 1)) ? "them" : "it");
	else if (vs.known)
		snprintf(why, sizeof(why), "needs %s, not usable here: the processor has it, but XCR0 0x%llx does not "
			 "enable its registers (%s)", names, (unsigned long long)vs.xcr0, vs.who);
	else
		snprintf(why, sizeof(why), "needs %s, not usable here: XCR0 cannot be read (%s)", names, vs.who);
	struct check_input in = { .r = &suite.rec, .d = d, .arena = arena };
	bench_check_skipped(&in, why, &suite.tally);
	return false;
}
