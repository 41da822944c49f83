/*
 * pmu/audit/audit_run.c - running the known-answer loop counted: the runners,
 * and samples of two lengths inside one interrupts-off window.
 */
#include "pmu/audit/audit_int.h"
#include "pmu/count/count_sched.h"
#include "kernel/hw.h"
#include "lib/strbuf.h"

/* pmu/audit/audit_loop.asm reads these offsets; pmu/count/toggles.inc those of the lists. */
_Static_assert(offsetof(struct audit_call, trips) == 0, "audit_call layout");
_Static_assert(offsetof(struct audit_call, start) == 8, "audit_call layout");
_Static_assert(offsetof(struct audit_call, stop) == 16, "audit_call layout");
_Static_assert(offsetof(struct audit_call, tsc_start) == 24, "audit_call layout");
_Static_assert(offsetof(struct audit_call, tsc_end) == 32, "audit_call layout");
_Static_assert(offsetof(struct count_toggle, n) == 0 && offsetof(struct count_toggle, w) == 8, "count_toggle layout");
_Static_assert(offsetof(struct msr_write, msr) == 0 && offsetof(struct msr_write, value) == 8 &&
		       sizeof(struct msr_write) == 16, "msr_write layout");

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

bool audit_begin(struct audit_ctx *a, char *err, size_t cap)
{
	a->set.priv = a->p->runner->priv;
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
}

static uint64_t run(struct audit_ctx *a, uint64_t trips, bool counted)
{
	const struct audit_runner *r = a->p->runner;
	return r->run(r->ctx, trips, counted ? &a->set.start : NULL, counted ? &a->set.stop : NULL);
}

bool audit_sample(struct audit_ctx *a, int64_t *diff, int64_t *ticks, char *err, size_t cap)
{
	uint64_t v1[COUNT_MAX_EVENTS], v2[COUNT_MAX_EVENTS];

	for (unsigned tries = 0; tries <= AUDIT_RETAKE_BUDGET; tries++) {
		struct hw_window w;
		memset(&w, 0, sizeof(w));
		bool windowed = hw_window_enter(&w);
		/* Unmeasured first: whatever entering the window left cold is warm for both runs. */
		run(a, AUDIT_SHORT_TRIPS, false);
		uint64_t t1 = run(a, AUDIT_SHORT_TRIPS, true);
		bool ok = a->cb->read(&a->set, 0, v1, err, cap);
		uint64_t t2 = ok ? run(a, AUDIT_LONG_TRIPS, true) : 0;
		ok = ok && a->cb->read(&a->set, 0, v2, err, cap);
		if (windowed)
			hw_window_leave(&w);
		if (!ok)
			return false;
		if (windowed && hw_window_polluted(&w)) {
			a->disturbed++;
			a->retaken++;
			continue;
		}
		for (size_t i = 0; i < a->set.n; i++)
			diff[i] = (int64_t)(v2[i] - v1[i]);
		*ticks = (int64_t)(t2 - t1);
		return true;
	}
	snprintf(err, cap, "no clean sample in %u tries: every window was disturbed (SMI or NMI)",
		 AUDIT_RETAKE_BUDGET + 1);
	return false;
}

bool audit_once(struct audit_ctx *a, uint64_t trips, uint64_t *counts, char *err, size_t cap)
{
	struct hw_window w;
	memset(&w, 0, sizeof(w));
	bool windowed = hw_window_enter(&w);
	run(a, trips, true);
	if (windowed)
		hw_window_leave(&w);
	if (windowed && hw_window_polluted(&w))
		a->disturbed++;
	return a->cb->read(&a->set, 0, counts, err, cap);
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
