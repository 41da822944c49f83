/* bench/check.c - `check` records; see check.h. */
#include "bench/check.h"
#include "events/events.h"
#include "lib/out.h"
#include "lib/record.h"

const char *bench_role_name(uint32_t role_bit)
{
	const char *w = events_role_name(role_bit);
	return w ? w : "?";
}

static const char *status_name(enum check_status s)
{
	static const char *const names[] = { "skip", "pass", "fail", "unstable" };
	return names[s];
}

/* A figure's median as a check's value; null when no sample of it was kept (the figure is null too). */
static void rec_fig_value(struct rec *r, const char *key, const struct bench_figure *f)
{
	if (f->n)
		rec_milli(r, key, f->median);
	else
		rec_null(r, key);
}

/* Start a check record with the fields every check has. */
static void check_start(struct rec *r, const struct check_input *in, const char *what)
{
	rec_start(r, "check");
	rec_str(r, "kernel", in->d->kernel);
	rec_str(r, "variant", in->d->variant);
	rec_str(r, "control", in->d->control);
	rec_str(r, "arena", in->arena);
	rec_str(r, "what", what);
}

/* Emits the record and a readable line. */
static void check_finish(struct rec *r, const struct check_input *in, const char *what, enum check_status status,
			 const char *detail, struct check_tally *t)
{
	unsigned *count[] = { &t->skip, &t->pass, &t->fail, &t->unstable };
	rec_str(r, "status", status_name(status));
	rec_emit(r);
	(*count[status])++;
	out_text("  check %s.%s%s%s %s: %s - %s", in->d->kernel, in->d->variant, in->arena ? " @" : "",
		 in->arena ? in->arena : "", what, status_name(status), detail);
}

/* The event counted for a role; measured or not (an unmeasured one is unstable when its samples ran out). */
static const struct bench_event_figure *find_role(const struct bench_figures *f, uint32_t bit)
{
	for (size_t i = 0; f && i < f->nev; i++)
		if (f->ev[i].roles & bit)
			return &f->ev[i];
	return NULL;
}

/* Usable for a verdict: measured, or unmeasured because no sample could be kept (then unstable). */
static bool judgeable(const struct bench_event_figure *e)
{
	return e && (e->measured || e->fig.unstable != STATS_STABLE);
}

/*
 * Why a figure the check compares cannot be trusted, or NULL: "variant
 * cycles unstable (spread)" and the like, into buf.
 */
static const char *unstable_why(char *buf, size_t cap, const char *side, const char *what,
				const struct bench_figure *f)
{
	if (!f || f->unstable == STATS_STABLE)
		return NULL;
	snprintf(buf, cap, "%s %s unstable (%s)", side, what, stats_unstable_name(f->unstable));
	return buf;
}

static void check_reference(const struct check_input *in, struct check_tally *t)
{
	struct rec *r = in->r;
	char a[32], b[32], c[32], detail[192], why[96];
	enum check_status status;
	const char *reason = NULL;
	const struct bench_figures *f = in->variant;
	int64_t v = f->cycles.median;

	check_start(r, in, "reference");
	/* A cycles figure the audit refused is not a value to print. */
	if (f->cycles_invalid)
		rec_null(r, "value");
	else
		rec_fig_value(r, "value", &f->cycles);
	rec_milli(r, "expected_min", in->d->ref_lo);
	rec_milli(r, "expected_max", in->d->ref_hi);
	if (f->cycles_invalid) {
		status = CHECK_SKIP;
		reason = f->cycles_invalid;
	} else if (in->emulator) {
		status = CHECK_SKIP;
		reason = "timing under an emulator is meaningless";
	} else if (f->cycles_source == BENCH_CYCLES_TSC) {
		status = CHECK_SKIP;
		reason = "cycles are raw TSC ticks (no cycle counter, no calibration)";
	} else if ((reason = unstable_why(why, sizeof(why), "variant", "cycles", &f->cycles)) != NULL) {
		status = CHECK_UNSTABLE;
	} else {
		status = (v >= in->d->ref_lo && v <= in->d->ref_hi) ? CHECK_PASS : CHECK_FAIL;
		/* The reference add chain is the calibration's own kind of chain (platform/calib.asm). */
		if (in->d->fn == bk_add_chain && f->cycles_source == BENCH_CYCLES_TSC_CALIBRATED &&
		    f->calibration.source == BENCH_CALIB_HARNESS)
			reason = "cycles were calibrated on an add chain: this checks their stability only";
	}
	rec_str(r, "reason", reason);
	if (f->cycles_invalid)
		snprintf(detail, sizeof(detail), "cycles not measured: %s", reason);
	else
		snprintf(detail, sizeof(detail), "%s cycles/iteration, expected %s..%s%s%s",
			 f->cycles.n ? fmt_milli(a, v) : "-",
			 fmt_milli(b, in->d->ref_lo), fmt_milli(c, in->d->ref_hi), reason ? "; " : "",
			 reason ? reason : "");
	check_finish(r, in, "reference", status, detail, t);
}

static void check_event_role(const struct check_input *in, uint32_t bit, struct check_tally *t)
{
	struct rec *r = in->r;
	char a[32], b[32], detail[192], why[96];
	const struct bench_event_figure *v = find_role(in->variant, bit);
	const struct bench_event_figure *c = find_role(in->control, bit);
	enum check_status status;
	const char *reason = NULL;

	check_start(r, in, "events");
	rec_str(r, "role", bench_role_name(bit));
	rec_str(r, "event", v ? v->name : NULL);
	if (!judgeable(c))
		c = NULL;
	if (!judgeable(v)) {
		status = CHECK_SKIP;
		reason = v && v->invalid ? v->invalid
		       : v ? "the event was not measured (counting failed: see the bench record's problem)"
		       : in->set ? "this core's event set has no event for this role"
				 : "this core's event set is not known";
		v = NULL;
		rec_null(r, "value");
		rec_null(r, "control_value");
	} else {
		rec_fig_value(r, "value", &v->fig);
		if (c)
			rec_fig_value(r, "control_value", &c->fig);
		else
			rec_null(r, "control_value");
		bool v_ok = v->fig.median >= CHECK_EV_MIN_MILLI && v->fig.median <= CHECK_EV_MAX_MILLI;
		bool c_ok = !c || c->fig.median <= CHECK_CONTROL_MAX_MILLI;
		status = (v_ok && c_ok) ? CHECK_PASS : CHECK_FAIL;
		if ((reason = unstable_why(why, sizeof(why), "variant", v->name, &v->fig)) != NULL ||
		    (reason = unstable_why(why, sizeof(why), "control", c ? c->name : NULL, c ? &c->fig : NULL)) != NULL)
			status = CHECK_UNSTABLE;
		else if (!c)
			reason = "control not measured with this event";
	}
	rec_str(r, "expected", "variant 0.750..1.500 per iteration, control <= 0.100");
	rec_str(r, "reason", reason);
	if (v)
		snprintf(detail, sizeof(detail), "%s %s/iteration, control %s%s%s", v->name,
			 v->fig.n ? fmt_milli(a, v->fig.median) : "-", c ? (c->fig.n ? fmt_milli(b, c->fig.median) : "-") : "n/a",
			 status == CHECK_UNSTABLE ? "; " : "", status == CHECK_UNSTABLE ? reason : "");
	else
		snprintf(detail, sizeof(detail), "%s: %s", bench_role_name(bit), reason);
	check_finish(r, in, "events", status, detail, t);
}

static void check_timing(const struct check_input *in, struct check_tally *t)
{
	struct rec *r = in->r;
	char a[32], b[32], c[32], detail[224], why[96];
	enum check_status status;
	const char *reason = NULL;
	const struct bench_figures *v = in->variant, *ctl = in->control;
	int64_t pen = ctl ? v->cycles.median - ctl->cycles.median : 0;

	check_start(r, in, "timing");
	if (!ctl) {
		status = CHECK_SKIP;
		reason = "control not measured";
		rec_null(r, "penalty");
	} else if (v->cycles_invalid || ctl->cycles_invalid) {
		/* The audit refused a cycles figure: no value, no penalty, and why. */
		status = CHECK_SKIP;
		reason = v->cycles_invalid ? v->cycles_invalid : ctl->cycles_invalid;
		rec_null(r, "value");
		rec_null(r, "control_value");
		rec_null(r, "penalty");
		ctl = NULL;
	} else {
		rec_fig_value(r, "value", &v->cycles);
		rec_fig_value(r, "control_value", &ctl->cycles);
		if (v->cycles.n && ctl->cycles.n)
			rec_milli(r, "penalty", pen);
		else
			rec_null(r, "penalty");
		if (in->d->expect == BENCH_PROVOKES_EVENTS) {
			status = CHECK_SKIP;
			reason = "no timing signature expected (the load does not wait on cores with memory "
				 "disambiguation); the events decide";
		} else if (in->emulator) {
			status = CHECK_SKIP;
			reason = "timing under an emulator is meaningless";
		} else if ((reason = unstable_why(why, sizeof(why), "variant", "cycles", &v->cycles)) != NULL ||
			   (reason = unstable_why(why, sizeof(why), "control", "cycles", &ctl->cycles)) != NULL) {
			status = CHECK_UNSTABLE;
		} else {
			status = pen > 0 ? CHECK_PASS : CHECK_FAIL;
		}
	}
	rec_str(r, "expected", in->d->expect == BENCH_PROVOKES ? "penalty > 0" : NULL);
	rec_str(r, "reason", reason);
	if (ctl && (!v->cycles.n || !ctl->cycles.n))
		snprintf(detail, sizeof(detail), "no penalty: %s", reason ? reason : "no sample was kept");
	else if (ctl)
		snprintf(detail, sizeof(detail), "penalty %s cycles (%s vs %s)%s%s", fmt_milli(a, pen),
			 fmt_milli(b, v->cycles.median), fmt_milli(c, ctl->cycles.median), reason ? "; " : "",
			 reason ? reason : "");
	else
		snprintf(detail, sizeof(detail), "%s", reason);
	check_finish(r, in, "timing", status, detail, t);
}

void bench_checks(const struct check_input *in, struct check_tally *tally)
{
	switch (in->d->expect) {
	case BENCH_REFERENCE:
		check_reference(in, tally);
		return;
	case BENCH_PROVOKES:
	case BENCH_PROVOKES_EVENTS:
		if (in->counting)
			for (uint32_t bit = 1; bit; bit <<= 1)
				if (in->d->roles & bit)
					check_event_role(in, bit, tally);
		/* Without counters a provoking-by-events-only variant still gets its (skipped) timing line. */
		check_timing(in, tally);
		return;
	case BENCH_CONTROL:
	case BENCH_SWEEP:
		return;
	}
}

void bench_check_skipped(const struct check_input *in, const char *reason, struct check_tally *t)
{
	check_start(in->r, in, "runs");
	rec_str(in->r, "reason", reason);
	check_finish(in->r, in, "runs", CHECK_SKIP, reason, t);
}
