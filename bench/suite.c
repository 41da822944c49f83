/* bench/suite.c - the benchmark stage; see suite.h. */
#include "suite.h"
#include "check.h"
#include "harness.h"
#include "kernels.h"
#include "observer.h"
#include "select.h"
#include "../events/events.h"
#include "../kernel/arena.h"
#include "../kernel/hw.h"
#include "../kernel/timing.h"
#include "../lib/heap.h"
#include "../lib/out.h"
#include "../lib/record.h"
#include "../pmu/count.h"

/*
 * IA32_APERF counts core clocks at the actual frequency while in C0 (SDM
 * Vol. 4 Table 2-2, MSR E8H; AMD APM Vol. 2 section 17.3, MSR0000_00E8);
 * present when CPUID.06H:ECX[0] is set (SDM Vol. 2A CPUID leaf 06H,
 * "Hardware Coordination Feedback Capability"; AMD CPUID Fn0000_0006_ECX[0]
 * EffFreq).  A cycle source where no cycles event can be counted.
 */
#define MSR_IA32_APERF 0xE8u
#define CPUID_LEAF_THERMAL_POWER 0x06u
#define CPUID_06_ECX_APERFMPERF (1u << 0)

#define EXTRA_MAX 8
#define SLOT_MAX 2
#define MEMO_MAX 12
#define MEMO_EV_MAX 6
#define NO_SLOT (-1)
/* Sample storage in an arena starts past the kernels' scratch window. */
#define POOL_ARENA_OFFSET (64u * 1024)

/*
 * Where the kernels run when no arena is at hand (non-split kernels always,
 * split kernels when arena_get refuses), and where samples are kept when
 * there is no arena: the run-time heap (lib/heap.h; the image's .bss is
 * file bytes), or when that is exhausted the stage's own stack frame, which
 * holds these 12 KiB + 4 KiB easily (UEFI gives at least 128 KiB of stack,
 * UEFI 2.10 section 2.3.4.1).
 */
#define SCRATCH_BYTES (BENCH_WINDOW_BYTES + 4096)	/* room to align a window to 4 KiB */
#define POOL_STACK 512u
static uint8_t *scratch;	/* 4 KiB-aligned, BENCH_WINDOW_BYTES, valid during bench_stage */
static int64_t *pool_fallback;

/* One record buffer for the stage: records are built and emitted one at a time. */
static struct rec rbuf;

/* An arena page size the split kernels run in. */
struct slot {
	const char *name;	/* "4k", "2m" or "fallback" */
	uint8_t *window;
	uint32_t page;		/* page size backing the window, 0 when unknown */
	const char *how;	/* the arena's own account of its mapping, or NULL */
};

/* A control's figures, kept for the variants compared with it. */
struct memo {
	const struct bench_def *d;
	int slot;
	struct bench_figure cycles;
	size_t nev;
	struct check_event ev[MEMO_EV_MAX];	/* names point at event tables or S.extra: static */
};

static struct suite {
	const struct config *cfg;
	const struct cpu_info *ci;
	const struct event_set *set;
	bool amd, emulator;
	struct bench_setup hs;
	char count_why[160];
	struct event_spec extra[EXTRA_MAX];
	size_t nextra;
	int64_t ppm;			/* core cycles per TSC tick, millionths; 0 = uncalibrated */
	const char *calibration;	/* where ppm came from */
	int64_t calib_spread;
	int64_t ppm_before, ppm_after;	/* the calibrations around the variant just measured (0: none) */
	unsigned remeasured;		/* times it was measured again because the clock moved */
	const char *samples_in;		/* "arena", "heap" or "stack" */
	const char *aperf_why;		/* why IA32_APERF is not a cycle source, or NULL when it is */
	struct slot slots[SLOT_MAX];
	size_t nslots;
	bool sel[64];
	struct memo memo[MEMO_MAX];
	size_t nmemo;
	struct check_tally tally;
	unsigned measured;
} S;

/* The event set identification named for this core (pmu/cpu.h), or NULL when it named none. */
static const struct event_set *core_event_set(const struct cpu_info *ci)
{
	return ci->event_set ? events_set_find(ci->event_set) : NULL;
}

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
		k += (size_t)snprintf(known + k, sizeof(known) - k, "%s%s", k ? ", " : "", kn);
		if (k >= sizeof(known))
			break;
	}
	rec_error("bench", "bench", "unknown benchmark '%.*s' (kernels: %s; or kernel.variant, all, none)",
		  (int)(len > 60 ? 60 : len), w, known);
}

/* ---- set-up ---- */

/* Counting was set up by the pmu stage (count_init); the harness uses it when it is there. */
static void setup_counting(void)
{
	S.count_why[0] = 0;
	if (count_available())
		S.hs.cb = count_backend();
	else
		snprintf(S.count_why, sizeof(S.count_why), "%s",
			 count_unavailable_reason() ? count_unavailable_reason() : "counting is not available");
}

/*
 * APERF is read raw by bench/measure.asm, so only in the image (ring 0) and
 * only after one safe read showed it is there: a hypervisor may set the
 * CPUID bit and still refuse the MSR.
 */
static void setup_aperf(bool image)
{
	struct cpuid_regs r;
	uint64_t v;

	S.hs.cycles_msr = 0;
	if (!image) {
		S.aperf_why = "not read from a user process";
		return;
	}
	if (S.ci->max_leaf < CPUID_LEAF_THERMAL_POWER) {
		S.aperf_why = "CPUID leaf 06H absent";
		return;
	}
	hw_cpuid(CPUID_LEAF_THERMAL_POWER, 0, &r);
	if (!(r.ecx & CPUID_06_ECX_APERFMPERF)) {
		S.aperf_why = "CPUID.06H:ECX[0] clear";
		return;
	}
	if (hw_rdmsr(MSR_IA32_APERF, &v) != HW_OK) {
		S.aperf_why = "MSR E8H not readable";
		return;
	}
	S.hs.cycles_msr = MSR_IA32_APERF;
	S.aperf_why = NULL;
}

static void setup_extra_events(void)
{
	const char *p = S.cfg->events;
	char err[192];

	while (*p) {
		while (*p == ';' || lc_isspace(*p))
			p++;
		const char *w = p;
		while (*p && *p != ';')
			p++;
		size_t len = (size_t)(p - w);
		while (len && lc_isspace(w[len - 1]))
			len--;
		if (!len)
			continue;
		if (S.nextra == EXTRA_MAX) {
			rec_error("bench", "events", "more than %d extra events; '%.*s' and later ones are ignored",
				  EXTRA_MAX, (int)(len > 60 ? 60 : len), w);
			return;
		}
		if (event_spec_parse(S.set, S.amd, w, len, &S.extra[S.nextra], err, sizeof(err)))
			S.nextra++;
		else
			rec_error("bench", "events", "%s", err);
	}
}

/*
 * TSC ticks to core cycles.  The harness calibrates on its own add chain
 * (bench_calibrate) right before every variant, because the core clock
 * moves under a fixed TSC (turbo, power limits, a busy host: 1.287 to 1.302
 * cycles per tick between runs on the development machine), and a figure
 * taken once at the start would turn that drift into error.  timing's
 * once-per-run calibration is reported beside it and used only when the
 * harness's fails.  Under an emulator one calibration is enough: its
 * figures mean nothing anyway.
 */
static void calibrate(uint8_t *window)
{
	const struct timing_info *t = timing_get();
	int64_t ppm, spread;

	if (bench_calibrate(&S.hs, window, &ppm, &spread)) {
		S.ppm = ppm;
		S.calib_spread = spread;
		S.calibration = "harness_add_chain";
	} else if (t && t->core_source && t->core_per_tsc_milli > 0) {
		S.ppm = t->core_per_tsc_milli * 1000;
		S.calib_spread = t->core_spread_milli;
		S.calibration = "timing";
	} else {
		S.ppm = 0;
		S.calibration = NULL;
	}
}

static void setup_arenas(char *notes, size_t cap)
{
	static const struct {
		enum arena_sel sel;
		uint32_t size;
		const char *name;
	} sizes[] = { { ARENA_4K, ARENA_PAGE_4K, "4k" }, { ARENA_2M, ARENA_PAGE_2M, "2m" } };
	size_t k = 0;

	S.nslots = 0;
	notes[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct arena a;
		char why[96];

		if (S.cfg->arena_page != ARENA_BOTH && S.cfg->arena_page != sizes[i].sel)
			continue;
		if (!arena_get(sizes[i].size, &a, why, sizeof(why))) {
			k += (size_t)snprintf(notes + k, k < cap ? cap - k : 0, "%s%s: %s", k ? "; " : "", sizes[i].name, why);
			continue;
		}
		uint32_t page = arena_page_size_at(a.base);
		S.slots[S.nslots++] = (struct slot){ sizes[i].name, a.base, page ? page : a.page_size, a.how };
		/* Samples go to an arena, past the scratch window, when there is one. */
		S.hs.pool = (int64_t *)(void *)(a.base + POOL_ARENA_OFFSET);
		S.hs.pool_cap = (a.size - POOL_ARENA_OFFSET) / sizeof(int64_t);
		S.samples_in = "arena";
	}
	if (!S.nslots)
		S.slots[S.nslots++] = (struct slot){ "fallback", scratch, arena_page_size_at(scratch), "heap or stack" };
}

static void setup_record(const char *arena_notes)
{
	struct rec *r = &rbuf;
	const struct timing_info *t = timing_get();
	char a[32];

	rec_start(r, "bench_setup");
	rec_u64(r, "variants", S.measured);
	rec_u64(r, "iterations", S.hs.iterations);
	rec_u64(r, "reps", S.hs.reps);
	rec_u64(r, "warmup", S.hs.warmup);
	rec_u64(r, "drop_budget", S.hs.drop_budget);
	rec_u64(r, "unroll", BENCH_UNROLL);
	rec_str(r, "method", BENCH_METHOD);
	rec_obj(r, "calibration");
	rec_str(r, "source", S.calibration);
	if (S.ppm) {
		rec_milli(r, "core_per_tsc", S.ppm / 1000);
		rec_u64(r, "core_per_tsc_ppm", (uint64_t)S.ppm);
		rec_milli(r, "spread", S.calib_spread);
	}
	rec_bool(r, "per_variant", !S.emulator);
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
	rec_bool(r, "available", S.hs.cb != NULL);
	rec_str(r, "backend", count_backend() ? count_backend()->name : NULL);
	rec_str(r, "reason", S.hs.cb ? NULL : S.count_why);
	rec_obj_end(r);
	rec_obj(r, "aperf");
	rec_bool(r, "available", S.hs.cycles_msr != 0);
	rec_str(r, "reason", S.aperf_why);
	rec_obj_end(r);
	rec_str(r, "event_set", S.set ? S.set->key : NULL);
	rec_arr(r, "extra_events");
	for (size_t i = 0; i < S.nextra; i++)
		rec_str(r, NULL, S.extra[i].name);
	rec_arr_end(r);
	rec_arr(r, "arenas");
	for (size_t i = 0; i < S.nslots; i++) {
		rec_obj(r, NULL);
		rec_str(r, "name", S.slots[i].name);
		if (S.slots[i].page)
			rec_u64(r, "page", S.slots[i].page);
		else
			rec_null(r, "page");
		rec_str(r, "how", S.slots[i].how);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_str(r, "arena_problems", arena_notes[0] ? arena_notes : NULL);
	rec_str(r, "samples_in", S.samples_in);
	rec_bool(r, "emulated", S.ci->hypervisor);
	rec_bool(r, "emulator", S.emulator);
	rec_emit(r);

	out_text("bench: %u variants, %u iterations x %u reps (+%u warm-up), %s; cycles from %s%s%s", S.measured,
		 S.hs.iterations, S.hs.reps, S.hs.warmup, BENCH_METHOD,
		 S.hs.cb ? "counters where the core has a cycles event, else " : "",
		 S.hs.cycles_msr ? "IA32_APERF" : S.ppm ? "TSC x " : "raw TSC",
		 !S.hs.cycles_msr && S.ppm ? fmt_milli(a, S.ppm / 1000) : "");
	if (!S.hs.cb)
		out_text("bench: no event counting: %s", S.count_why);
	if (arena_notes[0])
		out_text("bench: arenas: %s%s", arena_notes,
			 S.slots[0].window == scratch ? " (split kernels run in a plain buffer)" : "");
	if (S.nextra && !S.hs.cb)
		out_text("bench: the %zu extra events cannot be counted here", S.nextra);
}

/* ---- one variant ---- */

static void add_spec(struct count_set *cs, const struct event_spec *sp)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!lc_strcasecmp(cs->ev[i].name, sp->name))
			return;
	if (cs->n < COUNT_MAX_EVENTS)
		cs->ev[cs->n++] = *sp;
}

static void add_def(struct count_set *cs, const struct event_def *d)
{
	struct event_spec sp;

	if (!d)
		return;
	memset(&sp, 0, sizeof(sp));
	snprintf(sp.name, sizeof(sp.name), "%s", d->name);
	sp.event = d->event;
	sp.umask = d->umask;
	sp.cmask = d->cmask;
	sp.inv = d->inv;
	sp.edge = d->edge;
	sp.any = d->any;
	sp.counters = d->counters;
	sp.fixed = d->fixed;
	sp.def = d;
	add_spec(cs, &sp);
}

/* The events for a variant: its roles' events, cycles and instructions, then the extra events. */
static void build_set(struct count_set *cs, uint32_t roles)
{
	memset(cs, 0, sizeof(*cs));
	if (S.set) {
		add_def(cs, events_for_role(S.set, EV_ROLE_CYCLES));
		add_def(cs, events_for_role(S.set, EV_ROLE_INSTRUCTIONS));
		for (uint32_t bit = 1; bit; bit <<= 1)
			if (roles & bit)
				add_def(cs, events_for_role(S.set, bit));
	}
	for (size_t i = 0; i < S.nextra; i++)
		add_spec(cs, &S.extra[i]);
}

/* The roles a variant counts: its own, and for a control those of every chosen variant compared with it. */
static uint32_t roles_for(const struct bench_def *d)
{
	uint32_t roles = d->roles;
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *v = bench_def_at(i);
		if (S.sel[i] && bench_def_control(v) == d)
			roles |= v->roles;
	}
	return roles;
}

static const struct memo *memo_find(const struct bench_def *d, int slot)
{
	for (size_t i = 0; i < S.nmemo; i++)
		if (S.memo[i].d == d && S.memo[i].slot == slot)
			return &S.memo[i];
	return NULL;
}

static void memo_keep(const struct bench_def *d, int slot, const struct bench_figure *cycles,
		      const struct check_event *ev, size_t nev)
{
	if (S.nmemo == MEMO_MAX)
		return;
	struct memo *m = &S.memo[S.nmemo++];
	m->d = d;
	m->slot = slot;
	m->cycles = *cycles;
	m->nev = 0;
	for (size_t i = 0; i < nev && m->nev < MEMO_EV_MAX; i++)
		m->ev[m->nev++] = ev[i];
}

static void rec_figure(struct rec *r, const char *key, const struct bench_figure *f)
{
	rec_obj(r, key);
	rec_milli(r, "min", f->min);
	rec_milli(r, "median", f->median);
	rec_milli(r, "max", f->max);
	rec_u64(r, "n", f->n);
	rec_obj_end(r);
}

static const char *expect_name(enum bench_expect e)
{
	static const char *const names[] = { "reference", "control", "slower", "events", "sweep" };
	return names[e];
}

struct measured {
	struct bench_figure cycles;
	const char *cycles_source;
	bool have_instructions;
	struct bench_figure instructions;
	struct check_event ev[COUNT_MAX_EVENTS];
	size_t nev;
};

static void emit_bench(const struct bench_def *d, const struct slot *sl, const struct count_set *cs,
		       const struct bench_result *res, const struct measured *m, const struct memo *ctl)
{
	struct rec *r = &rbuf;
	char a[32], b[32], c[32], pen[64];

	rec_start(r, "bench");
	rec_str(r, "kernel", d->kernel);
	rec_str(r, "variant", d->variant);
	rec_str(r, "control", d->control);
	rec_str(r, "arena", sl ? sl->name : NULL);
	if (sl && sl->page)
		rec_u64(r, "arena_page", sl->page);
	else
		rec_null(r, "arena_page");
	if (!sl)
		rec_null(r, "page_crossed");
	else if (!d->crosses_4k)
		rec_bool(r, "page_crossed", false);
	else if (sl->page)
		rec_bool(r, "page_crossed", sl->page == ARENA_PAGE_4K);
	else
		rec_null(r, "page_crossed");
	rec_hex(r, "page_offset", ((uintptr_t)(sl ? sl->window : scratch) + d->p_off) & 0xfff);
	rec_u64(r, "iterations", res->iterations);
	rec_u64(r, "reps", res->reps);
	rec_u64(r, "dropped", res->dropped);
	rec_bool(r, "exhausted", res->exhausted);
	rec_bool(r, "interrupts_off", res->windowed);
	rec_str(r, "method", BENCH_METHOD);
	rec_figure(r, "cycles", &m->cycles);
	rec_str(r, "cycles_source", m->cycles_source);
	if (!strcmp(m->cycles_source, "tsc_calibrated")) {
		rec_obj(r, "calibration");
		rec_str(r, "source", S.calibration);
		rec_milli(r, "core_per_tsc", S.ppm / 1000);
		if (S.ppm_before && S.ppm_after) {
			rec_milli(r, "before", S.ppm_before / 1000);
			rec_milli(r, "after", S.ppm_after / 1000);
		}
		rec_u64(r, "remeasured", S.remeasured);
		rec_obj_end(r);
	} else {
		rec_null(r, "calibration");
	}
	rec_figure(r, "tsc", &res->tsc);
	if (m->have_instructions)
		rec_figure(r, "instructions", &m->instructions);
	else
		rec_null(r, "instructions");
	rec_obj(r, "events");
	for (size_t i = 0; cs && i < cs->n; i++)
		if (res->ev[i].ok)
			rec_figure(r, cs->ev[i].name, &res->ev[i].fig);
	rec_obj_end(r);
	rec_u64(r, "passes", res->passes);
	if (ctl) {
		rec_obj(r, "penalty");
		rec_milli(r, "median", m->cycles.median - ctl->cycles.median);
		rec_milli(r, "low", m->cycles.min - ctl->cycles.max);
		rec_milli(r, "high", m->cycles.max - ctl->cycles.min);
		rec_obj_end(r);
	} else {
		rec_null(r, "penalty");
	}
	rec_str(r, "expect", expect_name(d->expect));
	rec_bool(r, "emulated", S.ci->hypervisor);
	rec_str(r, "body", d->body);
	rec_str(r, "problem", res->problem[0] ? res->problem : NULL);
	rec_emit(r);

	pen[0] = 0;
	if (ctl) {
		int64_t p = m->cycles.median - ctl->cycles.median;
		snprintf(pen, sizeof(pen), "  %s%s vs %s", p >= 0 ? "+" : "", fmt_milli(c, p), d->control);
	}
	out_text("  %-14s %-19s %-8s %9s cycles/it  [%s..%s] n=%u drop=%u%s", d->kernel, d->variant, sl ? sl->name : "",
		 fmt_milli(a, m->cycles.median), fmt_milli(b, m->cycles.min), fmt_milli(c, m->cycles.max), m->cycles.n,
		 res->dropped, pen);
	if (res->problem[0])
		out_text("    note: %s", res->problem);
}

/* The event's name from storage that outlives the count set (kept in the control memo). */
static const char *static_name(const struct event_spec *sp)
{
	if (sp->def)
		return sp->def->name;
	for (size_t i = 0; i < S.nextra; i++)
		if (!strcmp(S.extra[i].name, sp->name))
			return S.extra[i].name;
	return "?";
}

static bool counts_cycles(const struct count_set *cs)
{
	for (size_t i = 0; cs && i < cs->n; i++)
		if (cs->ev[i].def && (cs->ev[i].def->roles & EV_ROLE_CYCLES))
			return true;
	return false;
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
	bool bracket = !S.emulator && !counts_cycles(csp) && !S.hs.cycles_msr;

	S.ppm_before = S.ppm_after = 0;
	for (S.remeasured = 0;; S.remeasured++) {
		if (bracket) {
			calibrate(window);
			S.ppm_before = S.ppm;
		}
		if (!bench_run_variant(&S.hs, d, window, csp, res))
			return false;
		if (!bracket || !S.ppm_before)
			return true;
		calibrate(window);
		S.ppm_after = S.ppm;
		S.ppm = (S.ppm_before + S.ppm_after) / 2;
		int64_t drift = S.ppm_after - S.ppm_before;
		if (drift < 0)
			drift = -drift;
		if (drift * 1000 <= CLOCK_DRIFT_MILLI * S.ppm || S.remeasured == MAX_REMEASURE)
			return true;
	}
}

static void run_row(const struct bench_def *d, int slot)
{
	static struct count_set cs;
	static struct bench_result res;
	static struct measured m;
	const struct slot *sl = slot == NO_SLOT ? NULL : &S.slots[slot];
	uint8_t *window = sl ? sl->window : scratch;
	struct count_set *csp = NULL;

	if (S.hs.cb) {
		build_set(&cs, roles_for(d));
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
	} else if (S.ppm) {
		stats_figure_scale(&m.cycles, (uint64_t)S.ppm, 1000000);
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
		m.ev[m.nev++] = (struct check_event){ static_name(&cs.ev[i]), roles, res.ev[i].fig };
	}

	const struct bench_def *cd = bench_def_control(d);
	const struct memo *ctl = cd ? memo_find(cd, slot) : NULL;
	emit_bench(d, sl, csp, &res, &m, ctl);

	struct check_input in = {
		.r = &rbuf,
		.d = d,
		.arena = sl ? sl->name : NULL,
		.variant = { true, m.cycles, m.ev, m.nev },
		.counting = csp != NULL && m.nev > 0,
		.set = S.set,
		.cycles_uncalibrated = !strcmp(m.cycles_source, "tsc"),
		.cycles_self_calibrated = d->fn == bk_add_chain && !strncmp(m.cycles_source, "tsc", 3) && S.calibration &&
					  !strcmp(S.calibration, "harness_add_chain"),
		.emulator = S.emulator,
	};
	if (ctl)
		in.control = (struct check_side){ true, ctl->cycles, ctl->ev, ctl->nev };
	bench_checks(&in, &S.tally);

	if (d->expect == BENCH_CONTROL)
		memo_keep(d, slot, &m.cycles, m.ev, m.nev);
	if (bench_observer_count())
		bench_observe(&S.hs, d, window, sl ? sl->page : 0);
}

/* ---- the stage ---- */

static uint32_t round_up_unroll(uint32_t n)
{
	uint32_t r = (n + BENCH_UNROLL - 1) / BENCH_UNROLL * BENCH_UNROLL;
	return r < n ? n / BENCH_UNROLL * BENCH_UNROLL : r;
}

void bench_stage(struct run_env *env)
{
	char arena_notes[256];
	size_t n = bench_def_count();
	uint8_t scratch_mem[SCRATCH_BYTES];
	int64_t pool_mem[POOL_STACK];
	size_t pool_cap = (size_t)env->cfg->reps * (1 + COUNT_MAX_EVENTS) + 64;

	/* Aligned here, not by asking heap_alloc: the hosted heap is plain calloc, which ignores alignment. */
	scratch = heap_alloc(SCRATCH_BYTES, 64);
	if (!scratch)
		scratch = scratch_mem;
	scratch = (uint8_t *)(((uintptr_t)scratch + 4095) & ~(uintptr_t)4095);
	pool_fallback = heap_alloc(pool_cap * sizeof(int64_t), sizeof(int64_t));
	if (!pool_fallback) {
		pool_fallback = pool_mem;
		pool_cap = POOL_STACK;
	}

	memset(&S, 0, sizeof(S));
	S.cfg = env->cfg;
	S.ci = &env->cpu;
	if (n > ARRAY_SIZE(S.sel)) {
		rec_error("bench", "table", "%zu variants but room for %zu", n, ARRAY_SIZE(S.sel));
		return;
	}
	S.measured = (unsigned)bench_select(S.cfg->bench, S.sel, bad_word, NULL);
	if (!S.measured) {
		out_text("bench: nothing chosen (bench=%s)", S.cfg->bench);
		return;
	}
	if (bench_asm_unroll != BENCH_UNROLL) {
		rec_error("bench", "unroll", "kernels unrolled %u times but the harness assumes %u", bench_asm_unroll,
			  BENCH_UNROLL);
		return;
	}
	S.amd = S.ci->vendor == VENDOR_AMD || S.ci->vendor == VENDOR_HYGON;
	S.emulator = S.ci->hypervisor && !strcmp(S.ci->hv_vendor, "TCGTCGTCGTCG");
	S.set = core_event_set(S.ci);
	S.hs.iterations = round_up_unroll(S.cfg->iterations);
	S.hs.reps = S.cfg->reps;
	S.hs.warmup = S.cfg->warmup;
	S.hs.drop_budget = S.cfg->reps < 8 ? 8 : S.cfg->reps;
	S.hs.pool = pool_fallback;
	S.hs.pool_cap = pool_cap;
	S.samples_in = pool_fallback == pool_mem ? "stack" : "heap";

	setup_counting();
	setup_aperf(env->image);
	setup_extra_events();
	setup_arenas(arena_notes, sizeof(arena_notes));
	calibrate(scratch);
	setup_record(arena_notes);

	for (size_t i = 0; i < n;) {
		const struct bench_def *d = bench_def_at(i);
		if (!d->per_arena) {
			if (S.sel[i])
				run_row(d, NO_SLOT);
			i++;
			continue;
		}
		/* A kernel's per-arena rows run arena by arena, controls first within each. */
		size_t j = i;
		while (j < n && bench_def_at(j)->per_arena && !strcmp(bench_def_at(j)->kernel, d->kernel))
			j++;
		for (size_t s = 0; s < S.nslots; s++)
			for (size_t k = i; k < j; k++)
				if (S.sel[k])
					run_row(bench_def_at(k), (int)s);
		i = j;
	}

	/* The counters are restored by the run's last stage (and the fault path), not here. */
	arena_release_all();
	out_text("bench: checks %u passed, %u failed, %u skipped", S.tally.pass, S.tally.fail, S.tally.skip);
}
