/*
 * pmu/audit/audit_run.c - running the known-answer loop counted: the runners,
 * and samples of two lengths inside one interrupts-off window.
 */
#include "pmu/audit/audit_int.h"
#include "pmu/count/count_sched.h"
#include "platform/hw.h"
#include "lib/strbuf.h"

/* pmu/audit/audit_loop.asm reads these offsets (pmu/count/count.c checks the lists' for toggles.inc). */
_Static_assert(offsetof(struct audit_call, trips) == 0, "audit_call layout");
_Static_assert(offsetof(struct audit_call, start) == 8, "audit_call layout");
_Static_assert(offsetof(struct audit_call, stop) == 16, "audit_call layout");
_Static_assert(offsetof(struct audit_call, tsc_start) == 24, "audit_call layout");
_Static_assert(offsetof(struct audit_call, tsc_end) == 32, "audit_call layout");

static uint64_t run_ring0(void *ctx, uint64_t trips, const struct count_toggle *start, const struct count_toggle *stop)
{
	struct audit_call c = { trips, start, stop, 0, 0 };
	(void)ctx;
	audit_measure(&c);
	return c.tsc_end - c.tsc_start;
}

/* A process cannot execute WRMSR: the lists go through hw_wrmsr (the same writes, in a system call each). */
static uint64_t run_process(void *ctx, uint64_t trips, const struct count_toggle *start, const struct count_toggle *stop)
{
	struct audit_call c = { trips, NULL, NULL, 0, 0 };
	(void)ctx;
	if (start)
		count_toggle_apply(start);
	audit_measure(&c);
	if (stop)
		count_toggle_apply(stop);
	return c.tsc_end - c.tsc_start;
}

const struct audit_runner audit_runner_ring0 = { "ring 0", COUNT_PRIV_ALL, run_ring0, NULL };
/* User mode only: the system calls that carry the writes run kernel code the counts must not include. */
const struct audit_runner audit_runner_process = { "process", COUNT_PRIV_USER, run_process, NULL };

/* The general counters a set's events are pinned to. */
static uint32_t pinned(const struct count_set *set)
{
	uint32_t m = 0;
	for (size_t i = 0; i < set->n; i++) {
		uint32_t c = set->ev[i].counters;
		if (c && !(c & (c - 1)))
			m |= c;
	}
	return m;
}

uint32_t audit_smi_spare(const struct audit_ctx *a)
{
	return a->smi ? 1u : 0u;
}

/* The ledger's SMI event (AMD) on the highest counter the set leaves free, so its windows are judged by it. */
static void add_smi(struct audit_ctx *a)
{
	char err[96];
	a->smi_at = -1;
	uint32_t free = a->view.gp_usable & ~pinned(&a->set);
	if (!a->smi || !free || a->set.n >= COUNT_MAX_EVENTS)
		return;
	struct event_spec ev;
	if (!event_spec_parse(a->es, a->amd, a->smi->name, strlen(a->smi->name), &ev, err, sizeof(err)))
		return;
	for (int c = 31; c >= 0; c--)
		if ((free & (1u << c)) && audit_pin(&ev, (unsigned)c)) {
			a->smi_at = (int)a->set.n;
			a->set.ev[a->set.n++] = ev;
			return;
		}
}

bool audit_begin(struct audit_ctx *a, char *err, size_t cap)
{
	a->set.priv = a->p->runner->priv;
	add_smi(a);
	if (!a->cb->schedule(&a->set, err, cap))
		return false;
	if (a->set.passes != 1) {
		snprintf(err, cap, "the check's events need %u passes, not one", a->set.passes);
		return false;
	}
	return a->cb->pass_begin(&a->set, 0, err, cap);
}

void audit_end(struct audit_ctx *a)
{
	if (a->cb->pass_end)
		a->cb->pass_end(&a->set, 0);
	/* The SMI event was the audit's, not the check's: gone from the set once the pass is over. */
	if (a->smi_at >= 0 && (size_t)a->smi_at == a->set.n - 1)
		a->set.n--;
	a->smi_at = -1;
}

static uint64_t run(struct audit_ctx *a, uint64_t trips, bool counted)
{
	const struct audit_runner *r = a->p->runner;
	return r->run(r->ctx, trips, counted ? &a->set.start : NULL, counted ? &a->set.stop : NULL);
}

void audit_window_open(struct audit_ctx *a, struct audit_window *aw)
{
	memset(aw, 0, sizeof(*aw));
	aw->windowed = hw_window_enter(&aw->w);
	ledger_open(a->ledger, &aw->m);
}

bool audit_window_close(struct audit_ctx *a, struct audit_window *aw, uint64_t smi_events)
{
	ledger_close(a->ledger, &aw->m, aw->windowed ? &aw->w : NULL, smi_events, &aw->v);
	if (aw->windowed)
		hw_window_leave(&aw->w);
	ledger_window_left(&aw->v, aw->windowed ? &aw->w : NULL);
	if (!aw->v.sources)
		return false;
	if (!a->disturbed++)
		ledger_verdict_text(&aw->v, a->disturbance, sizeof(a->disturbance));
	return (aw->v.sources & ~LEDGER_BIT(LEDGER_FREQUENCY)) != 0;
}

/* The SMI event's count in the two counted runs, when the set carries it. */
static uint64_t smi_of(const struct audit_ctx *a, const uint64_t *v1, const uint64_t *v2)
{
	return a->smi_at < 0 ? LEDGER_NO_SMI_EVENT : v1[a->smi_at] + (v2 ? v2[a->smi_at] : 0);
}

bool audit_sample(struct audit_ctx *a, int64_t *diff, int64_t *ticks, char *err, size_t cap)
{
	return audit_sample_trips(a, AUDIT_LONG_TRIPS, diff, ticks, err, cap);
}

bool audit_sample_trips(struct audit_ctx *a, uint64_t long_trips, int64_t *diff, int64_t *ticks, char *err, size_t cap)
{
	uint64_t v1[COUNT_MAX_EVENTS], v2[COUNT_MAX_EVENTS];

	for (unsigned tries = 0; tries <= AUDIT_RETAKE_BUDGET; tries++) {
		struct audit_window aw;
		audit_window_open(a, &aw);
		/* Unmeasured first: whatever entering the window left cold is warm for both runs. */
		run(a, AUDIT_SHORT_TRIPS, false);
		uint64_t t1 = run(a, AUDIT_SHORT_TRIPS, true);
		bool ok = a->cb->read(&a->set, 0, v1, err, cap);
		uint64_t t2 = ok ? run(a, long_trips, true) : 0;
		ok = ok && a->cb->read(&a->set, 0, v2, err, cap);
		bool disturbed = audit_window_close(a, &aw, ok ? smi_of(a, v1, v2) : LEDGER_NO_SMI_EVENT);
		if (!ok)
			return false;
		if (disturbed) {
			a->retaken++;
			continue;
		}
		for (size_t i = 0; i < a->set.n; i++)
			diff[i] = (int64_t)(v2[i] - v1[i]);
		*ticks = (int64_t)(t2 - t1);
		return true;
	}
	snprintf(err, cap, "no clean sample in %u tries: every window was disturbed (%s)", AUDIT_RETAKE_BUDGET + 1,
		 a->disturbance);
	return false;
}

bool audit_once(struct audit_ctx *a, uint64_t trips, uint64_t *counts, char *err, size_t cap)
{
	struct audit_window aw;
	audit_window_open(a, &aw);
	run(a, trips, true);
	bool ok = a->cb->read(&a->set, 0, counts, err, cap);
	audit_window_close(a, &aw, ok ? smi_of(a, counts, NULL) : LEDGER_NO_SMI_EVENT);
	return ok;
}

const char *audit_counter_name(const struct audit_ctx *a, size_t i, char buf[16])
{
	return count_sched_counter_name(&a->set, i, buf);
}

void audit_blame(struct audit_ctx *a, const struct audit_result *r, bool fixed, unsigned idx)
{
	struct audit_verdict *v = a->v;
	if (fixed)
		v->bad_fixed |= 1u << idx;
	else
		v->bad_gp |= 1u << idx;
	if (!v->why[0])
		snprintf(v->why, sizeof(v->why), "audit: %s failed on %s%u", r->check, fixed ? "fixed" : "pmc", idx);
}

void audit_result_init(struct audit_result *r, const char *check)
{
	memset(r, 0, sizeof(*r));
	r->check = check;
	r->status = AUDIT_ABSENT;
}

/* "pmc0-5,fixed0-2": runs of consecutive counters folded. */
static size_t list_runs(char *buf, size_t cap, size_t len, const char *prefix, uint32_t bits)
{
	for (unsigned i = 0; i < 32 && len < cap; i++) {
		if (!(bits & (1u << i)))
			continue;
		unsigned j = i;
		while (j + 1 < 32 && (bits & (1u << (j + 1))))
			j++;
		len = str_appendf(buf, cap, len, len ? ",%s%u" : "%s%u", prefix, i);
		if (j > i)
			len = str_appendf(buf, cap, len, "-%u", j);
		i = j;
	}
	return len;
}

void audit_counters_text(char *buf, size_t cap, uint32_t gp, uint32_t fixed)
{
	buf[0] = 0;
	size_t len = list_runs(buf, cap, 0, "pmc", gp);
	list_runs(buf, cap, len, "fixed", fixed);
}
