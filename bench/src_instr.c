/*
 * bench/src_instr.c - instruction forms from the kernel pack as a source of the benchmark stage (issue 31;
 * docs/instr.md "In the image"; bench/stage_int.h).
 *
 * With instr= other than `none`, the pack the run was given (the image reads \pmuboot\instr.pack from its
 * medium: instr/pack.h) is checked whole and the forms this CPU has (instr/select.h's rule, from the bits
 * and state the pack names) and instr= asks for are counted.  After the other sources' rows, with the
 * harness set up and calibrated, an `instr_pack` record and line give a time estimate from it
 * (bench/instr_estimate.h); each form's kernels are measured through the user-kernel harness
 * (bench/instr_run.h) and one `instr` record and line written per form (bench/instr_record.h), with a
 * progress line at the rate measured after the first PROGRESS_FIRST forms and every PROGRESS_FORMS.  A pack
 * that is missing or damaged gives an `instr_pack` record and line saying what and where when the sources
 * choose, and the run goes on: it is not an error of the run.
 */
#include "bench/instr_choice.h"
#include "bench/instr_estimate.h"
#include "bench/instr_run.h"
#include "bench/stage_int.h"
#include "platform/timing.h"
#include "lib/heap.h"
#include "lib/out.h"
#include "lib/strbuf.h"

#define PROGRESS_FIRST 8
#define PROGRESS_FORMS 48
#define MS_PER_S 1000u
#define MS_PER_TENTH 100u
/*
 * One form's output, bytes: its instr record and its readable line (the development host's full table:
 * 1,705 and 106 bytes on average).  On a line of fixed rate (a UART polled byte by byte) it costs time.
 */
#define OUTPUT_BYTES_PER_FORM 1811u
#define S_PER_MIN 60u

static struct {
	struct instr_choice ch;
	struct instr_pack pk;
	struct instr_pack_form *f;   /* heap */
	struct instr_result *res;    /* IKM_MAX of them (heap) */
	struct instr_events *events; /* the µop events (heap) */
	struct instr_runner run;
	struct instr_cpu cpu; /* this processor, as instr/select.h describes it */
	size_t chosen, kernels;
	const char *where;		/* the pack's place */
	struct instr_estimate estimate; /* made before the run */
	bool done;
} is;

static void cpuid_here(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out)
{
	(void)ctx;
	hw_cpuid(leaf, subleaf, out);
}

/* "about 12.3 s" or "at least 0.4 s": a floor rounded down, a figure to the nearest tenth. */
static void estimate_text(char *out, size_t cap, const struct instr_estimate *e)
{
	uint64_t tenths = (e->ms + (e->at_least ? 0 : MS_PER_TENTH / 2)) / MS_PER_TENTH;
	snprintf(out, cap, "%s %llu.%llu s", e->at_least ? "at least" : "about", (unsigned long long)(tenths / 10),
		 (unsigned long long)(tenths % 10));
}

/* The instr_pack record and its line: what became of the pack. */
static void pack_record(struct stage *st, const char *where, const char *status, const char *why)
{
	rec_start(&st->rec, "instr_pack");
	rec_str(&st->rec, "where", where);
	rec_str(&st->rec, "status", status);
	rec_str(&st->rec, "why", why);
	if (why) {
		rec_null(&st->rec, "forms");
		rec_emit(&st->rec);
		out_text("instr: kernel pack %s %s: %s; no instruction forms measured, the run goes on", where, status,
			 why);
		return;
	}
	bool emulated = st->ci->exec == EXEC_EMULATED;
	const struct timing_info *t = timing_get();
	struct instr_estimate e = { 0, false };
	if (is.chosen)
		instr_estimate_before(&st->hs, t ? t->tsc_hz : 0, is.kernels, &e);
	/* A floor is rounded down and a figure to the nearest, so that neither says more than it knows. */
	uint64_t s = (e.ms + (e.at_least ? 0 : MS_PER_S / 2)) / MS_PER_S;
	char said[48];
	estimate_text(said, sizeof(said), &e);
	rec_u64(&st->rec, "forms", is.pk.forms);
	rec_u64(&st->rec, "chosen", is.chosen);
	rec_u64(&st->rec, "kernels", is.kernels);
	if (e.ms || !is.chosen)
		rec_u64(&st->rec, "estimate_s", s);
	else
		rec_null(&st->rec, "estimate_s");
	rec_bool(&st->rec, "estimate_at_least", e.at_least);
	/* Only a UART on bare metal waits at its baud: an emulator's or a hypervisor's takes bytes at once. */
	const char *slow = NULL;
	uint32_t rate = st->ci->exec == EXEC_BARE_METAL ? out_slowest_rate(&slow) : 0;
	uint64_t out_s = rate ? ((uint64_t)is.chosen * OUTPUT_BYTES_PER_FORM + rate / 2) / rate : 0;
	char output[160] = "";
	if (rate && is.chosen)
		snprintf(
			output, sizeof(output),
			"; their records on %s take about %llu %s more (%u bytes a second; serial=off leaves them to the "
			"results file)",
			slow, (unsigned long long)(out_s >= 2 * S_PER_MIN ? out_s / S_PER_MIN : out_s),
			out_s >= 2 * S_PER_MIN ? "min" : "s", rate);
	if (rate)
		rec_u64(&st->rec, "output_s", out_s);
	else
		rec_null(&st->rec, "output_s");
	rec_emit(&st->rec);
	is.estimate = e;
	if (!is.chosen)
		out_text("instr: none of the pack's %u forms chosen (instr=%s): this CPU has none of them, or none is "
			 "asked for", is.pk.forms, st->p->instr);
	else if (!e.ms)
		out_text(
			"instr: %zu of the pack's %u forms chosen (instr=%s), %zu kernels: no estimate before the first "
			"forms (no TSC rate or calibration)%s",
			is.chosen, is.pk.forms, st->p->instr, is.kernels, output);
	else
		out_text(
			"instr: %zu of the pack's %u forms chosen (instr=%s), %zu kernels: %s by the harness's samples "
			"and budget%s%s",
			is.chosen, is.pk.forms, st->p->instr, is.kernels, said,
			emulated ? " (under an emulator: its time, not the core's; each form's own work comes on top)"
				 : "",
			output);
}

/* Whether this CPU has form f and instr= asks for it. */
static bool wanted(struct instr_cpu *cpu, const struct instr_pack_form *f)
{
	return instr_pack_form_matches(f, &is.ch.flt) && instr_pack_form_avail(cpu, f) == INSTR_PRESENT;
}

static size_t instr_choose(struct stage *st)
{
	const struct ukernel_file *file = st->p->instr_pack;
	const char *instr = st->p->instr;
	const char *where = file && file->where[0] ? file->where : INSTR_PACK_PATH_ASCII;
	char why[200];

	memset(&is, 0, sizeof(is));
	if (!instr || !instr_choice_parse(&is.ch, instr, strlen(instr), why, sizeof(why)) ||
	    is.ch.kind == INSTR_CHOOSE_NONE)
		return 0;
	if (!file || !file->data) {
		pack_record(st, where, "missing",
			    file && file->problem ? file->problem
						  : "not on the boot medium (make usb, make iso and make netboot put it there)");
		return 0;
	}
	if (!instr_pack_open(&is.pk, file->data, file->len, why, sizeof(why))) {
		pack_record(st, where, "refused", why);
		return 0;
	}
	is.f = heap_alloc(sizeof(*is.f), 16);
	is.res = heap_alloc(IKM_MAX * sizeof(*is.res), 16);
	is.events = heap_alloc(sizeof(*is.events), 16);
	if (!is.f || !is.res || !is.events) {
		pack_record(st, where, "refused", "no room on the heap for a form and its results");
		return 0;
	}
	/* A name no form has is the user's mistake, said with what the pack has; the other names still count. */
	char unknown[240];
	if (instr_choice_unknown_ext(&is.ch, &is.pk, is.f, unknown, sizeof(unknown)))
		rec_error(where, "instr", "instr=%s: %s", instr, unknown);
	struct hw_vector_state vs;
	hw_vector_state(&vs);
	instr_cpu_init(&is.cpu, cpuid_here, NULL, vs.known, vs.xcr0);
	struct instr_pack walk = is.pk;
	while (instr_pack_next(&walk, is.f))
		if (wanted(&is.cpu, is.f)) {
			is.chosen++;
			is.kernels += is.f->n;
		}
	/* Its record waits for the harness's set-up and calibration, the estimate's ground, unless none is chosen. */
	is.where = where;
	if (!is.chosen)
		pack_record(st, where, "loaded", NULL);
	return is.chosen;
}

static void instr_prepare(struct stage *st, unsigned *variants, unsigned *rows)
{
	(void)st;
	(void)rows;
	*variants += (unsigned)is.chosen;
}

static uint64_t ms_since(uint64_t t0)
{
	uint64_t hz = timing_get()->tsc_hz;
	return hz ? (hw_tsc() - t0) / (hz / MS_PER_S) : 0;
}

/* n forms, `kernels` measurements, done in spent_ms: the rate so far and what is left at it. */
static void progress(size_t n, size_t kernels, uint64_t spent_ms)
{
	char before[80] = "";
	if (is.estimate.ms) {
		char said[48];
		estimate_text(said, sizeof(said), &is.estimate);
		snprintf(before, sizeof(before), " (estimated before: %s)", said);
	}
	out_text("instr: %zu of %zu forms, %llu s, %llu forms per minute: about %llu s left at this rate%s", n,
		 is.chosen, (unsigned long long)(spent_ms / MS_PER_S),
		 (unsigned long long)instr_estimate_per_minute(spent_ms, n),
		 (unsigned long long)(instr_estimate_left_ms(spent_ms, kernels, is.kernels) / MS_PER_S), before);
}

/* The audit's verdict on the µop events' counters, as on every bench row's. */
static void audit_judge(void *ctx, const struct count_set *set, struct bench_figures *f)
{
	stage_apply_audit(ctx, set, f);
}

/* Every chosen form, measured and recorded, the first time the stage asks; no rows of the stage's own. */
static bool instr_next(struct stage *st, struct bench_row *row)
{
	char why[160];
	(void)row;

	if (is.done || !is.chosen)
		return false;
	is.done = true;
	instr_events_init(is.events, st->set, st->hs.cb, st->count_why);
	is.events->judge = audit_judge;
	is.events->judge_ctx = st;
	is.run = (struct instr_runner){ .hs = &st->hs,
					.window = st->scratch,
					.watchdog = hw_guard_watchdog(why, sizeof(why)),
					.events = is.events };
	struct instr_record_ctx c = {
		.emulated = st->emulator,
		.core_per_tsc_ppm = (int64_t)st->hs.clock.ppm,
		.watchdog = is.run.watchdog,
		.trial_bound_ms = INSTR_TRIAL_BOUND_US / MS_PER_S,
		.events = is.events,
	};
	/* The forms' kernels live in the core: their runs are held tightly (bench/harness.h tight_runs), and
	 * a calibration stands for BENCH_CLOCK_REUSE_MS (clock_reuse_ticks; set first: the estimate counts it). */
	bool tight = st->hs.tight_runs;
	uint64_t reuse = st->hs.clock_reuse_ticks, hz = timing_get() ? timing_get()->tsc_hz : 0;
	uint64_t patience = st->hs.contended_patience_ticks;
	st->hs.contended_patience_ticks = 0; /* a form with a contended figure waits for no episode to end */
	st->hs.tight_runs = true;
	st->hs.clock_reuse_ticks = hz / MS_PER_S * BENCH_CLOCK_REUSE_MS;
	pack_record(st, is.where, "loaded", NULL);
	uint64_t start = hw_tsc();
	size_t n = 0, good = 0, kernels = 0;
	struct instr_pack walk = is.pk;
	while (instr_pack_next(&walk, is.f)) {
		if (!wanted(&is.cpu, is.f))
			continue;
		uint64_t t0 = hw_tsc();
		instr_run_form(&is.run, is.f, is.res);
		good += instr_record_emit(is.f, is.res, &c, (int64_t)ms_since(t0));
		kernels += is.f->n;
		if (++n < is.chosen && (n == PROGRESS_FIRST || n % PROGRESS_FORMS == 0))
			progress(n, kernels, ms_since(start));
	}
	st->hs.tight_runs = tight;
	st->hs.clock_reuse_ticks = reuse;
	st->hs.contended_patience_ticks = patience;
	uint64_t spent = ms_since(start);
	out_text("instr: %zu forms measured, %zu without a figure, in %llu s (%llu forms per minute)", good, n - good,
		 (unsigned long long)(spent / MS_PER_S), (unsigned long long)instr_estimate_per_minute(spent, n));
	return false;
}

static void instr_done(struct stage *st, const struct bench_row *row, bool measured)
{
	(void)st;
	(void)row;
	(void)measured;
}

const struct bench_source bench_src_instr = {
	.kind = BENCH_SRC_INSTR,
	.choose = instr_choose,
	.prepare = instr_prepare,
	.next = instr_next,
	.done = instr_done,
};
