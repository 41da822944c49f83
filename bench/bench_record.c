/* bench/bench_record.c - the `bench` record and its readable line; see stage_int.h. */
#include "bench/stage_int.h"
#include "platform/arena.h"
#include "lib/out.h"

/* Why a figure is null although it was measured: every sample was disturbed or impossible (the record's problem). */
#define NO_SAMPLE "no sample was kept"

/* A figure: min/max of the inliers, the robust spread, outliers apart, and what was kept, rejected and why. */
static void rec_figure(struct rec *r, const char *key, const struct bench_figure *f)
{
	if (!f->n) {	/* no sample kept: no figure (the record's problem says why) */
		rec_null(r, key);
		return;
	}
	rec_obj(r, key);
	rec_milli(r, "min", f->min);
	rec_milli(r, "median", f->median);
	rec_milli(r, "max", f->max);
	rec_u64(r, "n", f->n);
	rec_milli(r, "q1", f->q1);
	rec_milli(r, "q3", f->q3);
	rec_milli(r, "mad", f->mad);
	rec_u64(r, "outliers", f->outliers);
	if (f->outliers) {
		rec_milli(r, "outlier_min", f->out_lo);
		rec_milli(r, "outlier_max", f->out_hi);
	} else {
		rec_null(r, "outlier_min");
		rec_null(r, "outlier_max");
	}
	rec_u64(r, "rejected", f->rejected);
	rec_str(r, "unstable", stats_unstable_name(f->unstable));
	rec_obj_end(r);
}

static const char *expect_name(enum bench_expect e)
{
	static const char *const names[] = { "reference", "control", "slower", "events", "sweep" };
	return names[e];
}

/* Why a variant has no penalty, or NULL when it has one. */
static const char *penalty_why(const struct bench_def *d, const struct bench_figures *f,
			       const struct bench_figures *ctl, const char *ctl_missing, char *buf, size_t cap)
{
	if (!d->control)
		return "no control";
	if (!ctl)
		snprintf(buf, cap, "control %s: %s", d->control, ctl_missing ? ctl_missing : "it was not measured");
	else if (ctl->cycles_invalid)
		snprintf(buf, cap, "control %s: its cycles are not a measurement (%s)", d->control, ctl->cycles_invalid);
	else if (!ctl->cycles.n)
		snprintf(buf, cap, "control %s: %s", d->control, NO_SAMPLE);
	else if (f->cycles_invalid)
		snprintf(buf, cap, "its cycles are not a measurement (%s)", f->cycles_invalid);
	else if (!f->cycles.n)
		return NO_SAMPLE;
	else
		return NULL;
	return buf;
}

void stage_emit_bench(struct stage *st, const struct bench_row *row, const struct bench_figures *f)
{
	const struct bench_def *d = row->d;
	const struct slot *sl = row->sl;
	const struct bench_figures *ctl = row->ctl;
	const char *ctl_missing = row->ctl_missing;
	struct rec *r = &st->rec;
	char a[32], b[32], c[32], e[32], pen[64 + 256], unst[48], why_buf[256];
	const char *why = penalty_why(d, f, ctl, ctl_missing, why_buf, sizeof(why_buf));

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
	rec_hex(r, "page_offset", ((uintptr_t)(sl ? sl->window : st->scratch) + d->p_off) & 0xfff);
	rec_u64(r, "iterations", f->iterations);
	rec_u64(r, "iterations_min", f->iterations_min);
	rec_bool(r, "iterations_capped", f->iterations_capped);
	rec_bool(r, "iterations_window", f->iterations_window);
	/* TSC ticks one N run spanned: the kept samples' median, and the pilot's when there was one. */
	if (f->tsc.n)
		rec_u64(r, "sample_ticks", f->tsc.median > 0 ? (uint64_t)stats_scale(f->tsc.median, f->iterations, 1000) : 0);
	else
		rec_null(r, "sample_ticks");
	if (f->pilot_ticks)
		rec_u64(r, "pilot_ticks", f->pilot_ticks);
	else
		rec_null(r, "pilot_ticks");
	rec_u64(r, "reps", f->reps);
	rec_u64(r, "dropped", f->dropped);
	rec_obj(r, "disturbed");
	for (unsigned k = 0; k < LEDGER_SOURCES; k++)
		rec_u64(r, ledger_source_name(k), f->disturbed[k]);
	rec_obj_end(r);
	rec_u64(r, "contended", f->contended);
	rec_u64(r, "retaken", f->retaken);
	rec_obj(r, "rejected");
	for (unsigned k = STATS_REJECT_NEGATIVE; k < STATS_REJECT_DISTURBED; k++)
		rec_u64(r, stats_fate_name(k), f->rejected[k]);
	rec_obj_end(r);
	rec_bool(r, "exhausted", f->exhausted);
	rec_bool(r, "interrupts_off", f->windowed);
	rec_obj(r, "ledger");
	ledger_sources_fields(r, st->ledger);
	rec_obj_end(r);
	if (!st->hs.smi_event) {
		rec_null(r, "smi_event");
	} else {
		rec_obj(r, "smi_event");
		rec_str(r, "event", st->hs.smi_event->name);
		rec_u64(r, "passes", f->smi_event_passes);
		rec_str(r, "missing", f->smi_event_missing[0] ? f->smi_event_missing : NULL);
		rec_obj_end(r);
	}
	rec_str(r, "method", BENCH_METHOD);
	if (f->chain_min) {
		rec_milli(r, "chain_min", f->chain_min);
		rec_milli(r, "chain_slack", f->chain_slack);
	} else {
		rec_null(r, "chain_min");
		rec_null(r, "chain_slack");
	}
	/* A figure the audit refused, or one with no sample kept, is not printed as a measurement: null, and why. */
	if (f->cycles_invalid)
		rec_null(r, "cycles");
	else
		rec_figure(r, "cycles", &f->cycles);
	rec_str(r, "cycles_invalid", f->cycles_invalid ? f->cycles_invalid : f->cycles.n ? NULL : NO_SAMPLE);
	rec_str(r, "cycles_source", bench_cycles_source_name(f->cycles_source));
	rec_str(r, "unstable", stats_unstable_name(f->cycles.unstable));
	if (f->cycles_source == BENCH_CYCLES_TSC_CALIBRATED) {
		const struct bench_calibration *k = &f->calibration;
		rec_obj(r, "calibration");
		rec_str(r, "source", bench_calib_source_name(k->source));
		rec_milli(r, "core_per_tsc", k->ppm / 1000);
		if (k->before && k->after) {
			rec_milli(r, "before", k->before / 1000);
			rec_milli(r, "after", k->after / 1000);
		}
		rec_u64(r, "remeasured", k->remeasured);
		rec_milli(r, "spread", k->spread_milli);
		rec_bool(r, "per_sample", k->per_sample);
		if (k->per_sample && k->samples.n) {
			rec_obj(r, "samples");
			rec_milli(r, "min", k->samples.min / 1000);
			rec_milli(r, "median", k->samples.median / 1000);
			rec_milli(r, "max", k->samples.max / 1000);
			rec_u64(r, "median_ppm", (uint64_t)k->samples.median);
			rec_obj_end(r);
		} else {
			rec_null(r, "samples");
		}
		rec_obj_end(r);
	} else {
		rec_null(r, "calibration");
	}
	rec_figure(r, "tsc", &f->tsc);
	if (f->instructions >= 0)
		rec_figure(r, "instructions", &f->ev[f->instructions].fig);
	else
		rec_null(r, "instructions");
	rec_obj(r, "events");
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].measured && f->ev[i].fig.n)
			rec_figure(r, f->ev[i].name, &f->ev[i].fig);
	rec_obj_end(r);
	rec_obj(r, "invalid");
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].invalid)
			rec_str(r, f->ev[i].name, f->ev[i].invalid);
		else if (!f->ev[i].fig.n && (f->ev[i].measured || f->ev[i].fig.unstable != STATS_STABLE))
			rec_str(r, f->ev[i].name, NO_SAMPLE);	/* its pass ran and kept nothing (bench/check.c judgeable) */
	rec_obj_end(r);
	rec_u64(r, "passes", f->passes);
	if (!why) {
		rec_obj(r, "penalty");
		rec_milli(r, "median", f->cycles.median - ctl->cycles.median);
		rec_milli(r, "low", f->cycles.min - ctl->cycles.max);
		rec_milli(r, "high", f->cycles.max - ctl->cycles.min);
		rec_obj_end(r);
	} else {
		rec_null(r, "penalty");
	}
	rec_str(r, "penalty_why", why);
	if (row->src && row->src->fields)
		row->src->fields(st, row, r, f);
	rec_str(r, "expect", expect_name(d->expect));
	rec_bool(r, "emulated", st->ci->exec == EXEC_EMULATED);
	rec_str(r, "body", d->body);
	if (row->body_hex)
		rec_str(r, "body_hex", row->body_hex);
	rec_str(r, "problem", f->problem[0] ? f->problem : NULL);
	rec_emit(r);

	const struct bench_figure *cy = &f->cycles;
	uint32_t rejected = f->rejected[STATS_REJECT_NEGATIVE] + f->rejected[STATS_REJECT_N_2N] +
			    f->rejected[STATS_REJECT_BELOW_CHAIN] + f->rejected[STATS_REJECT_CLOCK];
	pen[0] = unst[0] = 0;
	if (!why) {
		int64_t p = cy->median - ctl->cycles.median;
		snprintf(pen, sizeof(pen), "  %s%s vs %s", p >= 0 ? "+" : "", fmt_milli(c, p), d->control);
	} else if (d->control && !f->cycles_invalid) {
		/* A variant with a control but no penalty says why on its line (one without a control has none by design). */
		snprintf(pen, sizeof(pen), "  no penalty: %s", why);
	}
	if (cy->unstable)
		snprintf(unst, sizeof(unst), "  UNSTABLE (%s)", stats_unstable_name(cy->unstable));
	if (f->cycles_invalid)
		/* The readable line says so too: no number where the audit refused the figure. */
		out_text("  %-14s %-19s %-8s   INVALID cycles/it  (%s)", d->kernel, d->variant, sl ? sl->name : "",
			 f->cycles_invalid);
	else if (!cy->n)
		out_text("  %-14s %-19s %-8s         - cycles/it  (%s)%s%s", d->kernel, d->variant, sl ? sl->name : "",
			 NO_SAMPLE, pen, unst);
	else
		out_text("  %-14s %-19s %-8s %9s cycles/it  [%s..%s] iqr %s n=%u out=%u rej=%u drop=%u it=%u%s%s",
			 d->kernel, d->variant, sl ? sl->name : "", fmt_milli(a, cy->median), fmt_milli(b, cy->min),
			 fmt_milli(c, cy->max), fmt_milli(e, cy->q3 - cy->q1), cy->n, cy->outliers, rejected, f->dropped,
			 f->iterations, pen, unst);
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].invalid)
			out_text("    %s: not a measurement: %s", f->ev[i].name, f->ev[i].invalid);
	if (f->dropped) {
		char by[96];
		out_text("    disturbed: %u sample%s thrown away (%s), %u taken again; the first disturbance: %s", f->dropped,
			 f->dropped == 1 ? "" : "s", bench_disturbed_by_source(f, by, sizeof(by)), f->retaken,
			 f->disturbance);
	}
	if (f->contended)
		out_text("    contended: %u sample%s thrown away (the contention probe beside them slowed: another thread "
			 "shared the core)", f->contended, f->contended == 1 ? "" : "s");
	if (f->problem[0])
		out_text("    note: %s", f->problem);
	char away[320];
	if (cy->n && bench_clock_away(&f->calibration, away, sizeof(away)))
		out_text("    %s", away);
}
