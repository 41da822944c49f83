/* bench/check.c - `check` records; see check.h. */
#include "bench/check.h"
#include "events/events.h"
#include "lib/out.h"
#include "lib/record.h"

static const struct {
	uint32_t bit;
	const char *name;
} role_names[] = {
	{ EV_ROLE_CYCLES, "cycles" },
	{ EV_ROLE_INSTRUCTIONS, "instructions" },
	{ EV_ROLE_REF_CYCLES, "ref_cycles" },
	{ EV_ROLE_STLF_BLOCK, "stlf_block" },
	{ EV_ROLE_STLF_OK, "stlf_ok" },
	{ EV_ROLE_STA_BLOCK, "sta_block" },
	{ EV_ROLE_STD_BLOCK, "std_block" },
	{ EV_ROLE_OVERLAP_STORE, "overlap_store" },
	{ EV_ROLE_ALIAS_4K, "alias_4k" },
	{ EV_ROLE_SPLIT_LOAD, "split_load" },
	{ EV_ROLE_SPLIT_STORE, "split_store" },
	{ EV_ROLE_PAGE_SPLIT_LOAD, "page_split_load" },
	{ EV_ROLE_PAGE_SPLIT_STORE, "page_split_store" },
	{ EV_ROLE_MISALIGN, "misalign" },
	{ EV_ROLE_LOADS, "loads" },
	{ EV_ROLE_STORES, "stores" },
	{ EV_ROLE_SMI, "smi" },
	{ EV_ROLE_HW_INT, "hw_int" },
};

const char *bench_role_name(uint32_t role_bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(role_names); i++)
		if (role_names[i].bit == role_bit)
			return role_names[i].name;
	return "?";
}

static const char *status_name(int s)
{
	return s > 0 ? "pass" : s < 0 ? "fail" : "skip";
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

/* status: 1 pass, -1 fail, 0 skip.  Emits the record and a readable line. */
static void check_finish(struct rec *r, const struct check_input *in, const char *what, int status,
			 const char *detail, struct check_tally *t)
{
	rec_str(r, "status", status_name(status));
	rec_emit(r);
	if (status > 0)
		t->pass++;
	else if (status < 0)
		t->fail++;
	else
		t->skip++;
	out_text("  check %s.%s%s%s %s: %s - %s", in->d->kernel, in->d->variant, in->arena ? " @" : "",
		 in->arena ? in->arena : "", what, status_name(status), detail);
}

static const struct check_event *find_role(const struct check_side *s, uint32_t bit)
{
	for (size_t i = 0; i < s->nev; i++)
		if (s->ev[i].roles & bit)
			return &s->ev[i];
	return NULL;
}

static void check_reference(const struct check_input *in, struct check_tally *t)
{
	struct rec *r = in->r;
	char a[32], b[32], c[32], detail[160];
	int status;
	const char *reason = NULL;
	int64_t v = in->variant.cycles.median;

	check_start(r, in, "reference");
	rec_milli(r, "value", v);
	rec_milli(r, "expected_min", in->d->ref_lo);
	rec_milli(r, "expected_max", in->d->ref_hi);
	if (in->emulator) {
		status = 0;
		reason = "timing under an emulator is meaningless";
	} else if (in->cycles_uncalibrated) {
		status = 0;
		reason = "cycles are raw TSC ticks (no cycle counter, no calibration)";
	} else {
		status = (v >= in->d->ref_lo && v <= in->d->ref_hi) ? 1 : -1;
		if (in->cycles_self_calibrated)
			reason = "cycles were calibrated on this chain: this checks their stability only";
	}
	rec_str(r, "reason", reason);
	snprintf(detail, sizeof(detail), "%s cycles/iteration, expected %s..%s%s%s", fmt_milli(a, v),
		 fmt_milli(b, in->d->ref_lo), fmt_milli(c, in->d->ref_hi), reason ? "; " : "", reason ? reason : "");
	check_finish(r, in, "reference", status, detail, t);
}

static void check_event_role(const struct check_input *in, uint32_t bit, struct check_tally *t)
{
	struct rec *r = in->r;
	char a[32], b[32], detail[192];
	const struct check_event *v = find_role(&in->variant, bit);
	const struct check_event *c = in->control.measured ? find_role(&in->control, bit) : NULL;
	int status;
	const char *reason = NULL;

	check_start(r, in, "events");
	rec_str(r, "role", bench_role_name(bit));
	rec_str(r, "event", v ? v->name : NULL);
	if (!v) {
		status = 0;
		reason = in->set ? "this core's event set has no event for this role"
				 : "this core's event set is not known";
		rec_null(r, "value");
		rec_null(r, "control_value");
	} else {
		rec_milli(r, "value", v->fig.median);
		if (c)
			rec_milli(r, "control_value", c->fig.median);
		else
			rec_null(r, "control_value");
		bool v_ok = v->fig.median >= CHECK_EV_MIN_MILLI && v->fig.median <= CHECK_EV_MAX_MILLI;
		bool c_ok = !c || c->fig.median <= CHECK_CONTROL_MAX_MILLI;
		status = (v_ok && c_ok) ? 1 : -1;
		if (!c)
			reason = "control not measured with this event";
	}
	rec_str(r, "expected", "variant 0.750..1.500 per iteration, control <= 0.100");
	rec_str(r, "reason", reason);
	if (v)
		snprintf(detail, sizeof(detail), "%s %s/iteration, control %s", v->name, fmt_milli(a, v->fig.median),
			 c ? fmt_milli(b, c->fig.median) : "n/a");
	else
		snprintf(detail, sizeof(detail), "%s: %s", bench_role_name(bit), reason);
	check_finish(r, in, "events", status, detail, t);
}

static void check_timing(const struct check_input *in, struct check_tally *t)
{
	struct rec *r = in->r;
	char a[32], b[32], c[32], detail[192];
	int status;
	const char *reason = NULL;
	int64_t pen = in->variant.cycles.median - in->control.cycles.median;

	check_start(r, in, "timing");
	if (!in->control.measured) {
		status = 0;
		reason = "control not measured";
		rec_null(r, "penalty");
	} else {
		rec_milli(r, "value", in->variant.cycles.median);
		rec_milli(r, "control_value", in->control.cycles.median);
		rec_milli(r, "penalty", pen);
		if (in->d->expect == BENCH_PROVOKES_EVENTS) {
			status = 0;
			reason = "no timing signature expected (the load does not wait on cores with memory "
				 "disambiguation); the events decide";
		} else if (in->emulator) {
			status = 0;
			reason = "timing under an emulator is meaningless";
		} else {
			status = pen > 0 ? 1 : -1;
		}
	}
	rec_str(r, "expected", in->d->expect == BENCH_PROVOKES ? "penalty > 0" : NULL);
	rec_str(r, "reason", reason);
	if (in->control.measured)
		snprintf(detail, sizeof(detail), "penalty %s cycles (%s vs %s)%s%s", fmt_milli(a, pen),
			 fmt_milli(b, in->variant.cycles.median), fmt_milli(c, in->control.cycles.median),
			 reason ? "; " : "", reason ? reason : "");
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
