/*
 * pmu/audit/audit.c - the audit stage: which checks run, their records and
 * lines, and the verdict the benchmarks read; see audit.h.
 */
#include "pmu/audit/audit_int.h"
#include "lib/out.h"

struct check {
	const char *name;
	void (*run)(struct audit_ctx *a, struct audit_result *r);
	bool needs_counting;	/* absent without the MSR driver (clock can fall back on APERF) */
};

/* In this order: the exact counts first, so a later check's reference counter is already vouched for. */
static const struct check checks[] = {
	{ "instructions", audit_check_instructions, true },
	{ "branches", audit_check_branches, true },
	{ "counters-agree", audit_check_agree, true },
	{ "fixed", audit_check_fixed, true },
	{ "full-width", audit_check_full_width, true },
	{ "overflow", audit_check_overflow, true },
	{ "topdown", audit_check_topdown, true },
	{ "clock", audit_check_clock, false },
};

const char *audit_status_name(enum audit_status s)
{
	static const char *const names[] = { "pass", "fail", "absent" };
	return s < ARRAY_SIZE(names) ? names[s] : "?";
}

static void emit(struct audit_ctx *a, const struct audit_result *r)
{
	struct rec *rc = &a->rec;
	rec_start(rc, "audit");
	rec_str(rc, "check", r->check);
	rec_str(rc, "status", audit_status_name(r->status));
	rec_str(rc, "counter", r->counter[0] ? r->counter : NULL);
	if (r->has_numbers) {
		rec_i64(rc, "expected", r->expected);
		rec_i64(rc, "got", r->got);
	} else {
		rec_null(rc, "expected");
		rec_null(rc, "got");
	}
	rec_str(rc, "why", r->why[0] ? r->why : NULL);
	rec_str(rc, "measured", r->detail[0] ? r->detail : NULL);
	rec_str(rc, "runner", a->p->runner ? a->p->runner->what : NULL);
	rec_u64(rc, "disturbed", a->disturbed);
	rec_u64(rc, "retaken", a->retaken);
	rec_str(rc, "disturbance", a->disturbance[0] ? a->disturbance : NULL);
	rec_emit(rc);
	const char *text = r->status == AUDIT_PASS ? r->detail : r->why;
	out_text("audit: %-14s %-6s %s", r->check, audit_status_name(r->status), text[0] ? text : "");
	/* A pass with a reservation (a proof absent, a counter not checked) says it on the screen too. */
	if (r->status == AUDIT_PASS && r->why[0])
		out_text("audit: %-14s        but %s", "", r->why);
	if (a->disturbed)
		out_text("audit: %-14s        %u window%s disturbed (first: %s), %u sample%s taken again", "",
			 a->disturbed, a->disturbed == 1 ? "" : "s", a->disturbance, a->retaken, a->retaken == 1 ? "" : "s");
	if (r->status == AUDIT_FAIL)
		rec_stream_note_error();
}

static const char *no_counting(struct audit_ctx *a)
{
	const struct audit_params *p = a->p;
	if (!p->runner)
		return p->runner_why ? p->runner_why : "the known-answer loop cannot be run here";
	if (!count_available())
		return count_unavailable_reason() ? count_unavailable_reason() : "no counters";
	if (strcmp(a->cb->name, count_backend_msr.name))
		return "the counters are Linux perf_event_open's here: the audit programs their MSRs itself "
		       "(pmuboot-host audit on a machine with /dev/cpu/N/msr, or the image)";
	if (!count_msr_view(&a->view))
		return "the counter driver is not ready";
	return NULL;
}

void audit_run(const struct audit_params *p, struct audit_verdict *v)
{
	static struct audit_ctx a;
	struct audit_result r;

	memset(v, 0, sizeof(*v));
	memset(&a, 0, sizeof(a));
	v->ran = true;
	a.p = p;
	a.v = v;
	a.cb = count_backend();
	a.amd = p->ci->vendor == VENDOR_AMD || p->ci->vendor == VENDOR_HYGON;
	a.es = p->ci->event_set ? events_set_find(p->ci->event_set) : NULL;
	a.counting_why = no_counting(&a);
	a.counting = a.counting_why == NULL;
	/* The processor's ledger (the run's), or one of the audit's own. */
	static struct ledger own;
	a.ledger = p->ledger;
	if (!a.ledger) {
		ledger_init(&own, p->ci, p->caps);
		a.ledger = &own;
	}
	a.smi = a.counting ? ledger_smi_event(a.ledger) : NULL;
	a.smi_at = -1;
	for (size_t i = 0; i < ARRAY_SIZE(checks); i++) {
		audit_result_init(&r, checks[i].name);
		a.disturbed = a.retaken = 0;
		a.disturbance[0] = 0;
		a.smi_at = -1;
		/* Each check learns the clock afresh: a reference caught mid-change spoils one check's
		 * frequency verdicts at most (they move no count; the clock check judges the clock itself). */
		ledger_rebase(a.ledger);
		if (checks[i].needs_counting && !a.counting)
			snprintf(r.why, sizeof(r.why), "%s", a.counting_why);
		else if (!p->runner)
			snprintf(r.why, sizeof(r.why), "%s", a.counting_why);
		else
			checks[i].run(&a, &r);
		emit(&a, &r);
		v->passed += r.status == AUDIT_PASS;
		v->failed += r.status == AUDIT_FAIL;
		v->absent += r.status == AUDIT_ABSENT;
	}
	out_text("audit: %u passed, %u failed, %u absent%s", v->passed, v->failed, v->absent,
		 v->failed ? ": figures on the counters named are not printed as measurements" : "");
}

bool audit_counter_ok(const struct audit_verdict *v, bool fixed, unsigned idx, uint8_t umask, const char **why)
{
	if (!v || !v->ran || idx >= 32)
		return true;
	if ((fixed ? v->bad_fixed : v->bad_gp) & (1u << idx)) {
		*why = v->why;
		return false;
	}
	if (v->umask_bad && umask && !fixed) {
		*why = v->why;
		return false;
	}
	return true;
}

bool audit_clock_ok(const struct audit_verdict *v, const char **why)
{
	if (v && v->ran && v->clock_bad) {
		*why = v->clock_why;
		return false;
	}
	return true;
}
