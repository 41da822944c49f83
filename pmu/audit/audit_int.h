/*
 * pmu/audit/audit_int.h - what the audit's files share (internal to pmu/audit/audit*.c):
 *   audit.c          the stage: which checks apply, records, the verdict
 *   audit_run.c      runners, samples (two lengths in one window), reading the driver
 *   audit_events.c   the known-answer events: which encoding each core counts them with
 *   audit_count.c    instructions, branches, counters-agree, fixed
 *   audit_width.c    full-width, overflow
 *   audit_clock.c    clock, topdown
 */
#ifndef PMUBOOT_PMU_AUDIT_AUDIT_INT_H
#define PMUBOOT_PMU_AUDIT_AUDIT_INT_H

#include "pmu/audit/audit.h"
#include "pmu/count/count_msr.h"
#include "events/events.h"
#include "lib/record.h"

/*
 * Trips of the short and the long run: the long run's 10,000 extra trips
 * retire 40,000 instructions, far past any framing, and take about 20
 * microseconds, so an SMI rarely lands in one.  Three clean samples per
 * check; a disturbed one is retaken, at most AUDIT_RETAKE_BUDGET times.
 */
#define AUDIT_SHORT_TRIPS 1000u
#define AUDIT_LONG_TRIPS 11000u
#define AUDIT_EXTRA_TRIPS (AUDIT_LONG_TRIPS - AUDIT_SHORT_TRIPS)
#define AUDIT_SAMPLES 3u
#define AUDIT_RETAKE_BUDGET 8u
/* Counts that are not exact by nature (cycles, slots) agree within 1/AUDIT_CLOSE_DIV (0.1%). */
#define AUDIT_CLOSE_DIV 1000u

/* One run of the loop for audit_measure (pmu/audit/audit_loop.asm reads the layout). */
struct audit_call {
	uint64_t trips;
	const struct count_toggle *start, *stop;
	uint64_t tsc_start, tsc_end;
};
void audit_measure(struct audit_call *c);

/* The known-answer events (audit_events.c). */
enum audit_known {
	AK_INSTRUCTIONS,	/* instructions retired: AUDIT_LOOP_INSNS a trip */
	AK_BRANCHES,		/* branches retired: AUDIT_LOOP_BRANCHES */
	AK_COND_BRANCHES,	/* Intel conditional branches (a unit mask): AUDIT_LOOP_COND_BRANCHES */
	AK_SSE,			/* AMD retired SSE instructions (a unit mask): AUDIT_LOOP_SSE */
	AK_CYCLES,		/* unhalted core cycles */
	AK_COUNT
};

/* The stage's state while it runs on one processor. */
struct audit_ctx {
	const struct audit_params *p;
	const struct count_backend *cb;
	struct count_msr_view view;
	const struct event_set *es;
	bool amd;
	struct audit_verdict *v;
	bool counting;			/* the MSR driver is ready here */
	const char *counting_why;	/* why not */
	struct count_set set;
	/* The check being run: its samples' disturbances, for its record. */
	unsigned disturbed, retaken;
	char disturbance[96];		/* the first, in words */
	struct ledger *ledger;
	/* The SMI event (AMD: no SMI count MSR) beside a set's events, and its index in a->set, or -1. */
	const struct event_def *smi;
	int smi_at;
	struct rec rec;
};

/* A check's outcome, for its record and line (audit.c writes them). */
struct audit_result {
	const char *check;
	enum audit_status status;
	char counter[64];		/* the counter(s) it concerns: "pmc2", "pmc0-5,fixed0" */
	bool has_numbers;
	int64_t expected, got;		/* for the counter named (the first that failed) */
	char why[200];
	char detail[160];		/* one line of what was measured, for the screen */
};

/* ---- audit_events.c ---- */
/*
 * The event spec a core counts `which` with on a general counter, with the
 * catalogue's constraints, and what one trip of the loop adds to it (0 for
 * the clocks).  False, with why, when the core has no such event.
 */
bool audit_known_spec(const struct audit_ctx *a, enum audit_known which, struct event_spec *out, uint32_t *per_trip,
		      const char **why);
/* "instructions retired", ... for lines and reasons. */
const char *audit_known_what(enum audit_known which);
/* What fixed counter f is checked against on the loop (audit_fixed_pair). */
enum audit_fixed_how {
	AF_NONE,	/* nothing here to check it against (why says) */
	AF_EXACT,	/* its general-counter form in out, per_trip a trip: exactly */
	AF_CLOSE,	/* its general-counter form in out, the same clock: within 0.1% */
	AF_TSC,		/* REF_TSC without a general form of it: the TSC ticks around the loop, within 0.1% */
	AF_TINY,	/* an event the loop barely moves (audit_fixed_tiny): a bound, not a pairing */
};
enum audit_fixed_how audit_fixed_pair(const struct audit_ctx *a, unsigned f, struct event_spec *out,
				      uint32_t *per_trip, const char **why);
/* Whether fixed counter f counts an event the loop barely moves (bad speculation); name: the event's. */
bool audit_fixed_tiny(const struct audit_ctx *a, unsigned f, const char **name);
/* Fixed counter f itself, as a spec the scheduler puts only there. */
void audit_fixed_spec(unsigned f, struct event_spec *out);
/* Pin a spec to general counter c; false when its constraints forbid that counter. */
bool audit_pin(struct event_spec *ev, unsigned c);
/*
 * Pin ev to the first usable counter it may use that no earlier check blamed (a reference must be
 * one the exact checks vouched for); false when there is none.
 */
bool audit_pin_trusted(const struct audit_ctx *a, struct event_spec *ev);

/* ---- audit_run.c ---- */
/* One interrupts-off window with the ledger reading around it. */
struct audit_window {
	struct hw_window w;
	struct ledger_mark m;
	bool windowed;
	struct ledger_verdict v;
};
void audit_window_open(struct audit_ctx *a, struct audit_window *aw);
/*
 * Close it (smi_events: the SMI event's count in it, or LEDGER_NO_SMI_EVENT); true when a source
 * that matters to counts found it disturbed (every source but the clock's frequency, which moves
 * no count and which the clock check measures itself).  Counted in a->disturbed either way.
 */
bool audit_window_close(struct audit_ctx *a, struct audit_window *aw, uint64_t smi_events);
/* The check's own events in a->set (the ledger's SMI event, when added, comes after them). */
static inline size_t audit_events(const struct audit_ctx *a)
{
	return a->smi_at >= 0 ? (size_t)a->smi_at : a->set.n;
}
/* Counters a set must leave free for the ledger's SMI event (AMD): 1, else 0. */
uint32_t audit_smi_spare(const struct audit_ctx *a);
/* Schedule a.set (with the ledger's SMI event on a counter it leaves free) and begin pass 0
 * (every audit set is one pass); false with err. */
bool audit_begin(struct audit_ctx *a, char *err, size_t cap);
void audit_end(struct audit_ctx *a);
/*
 * One clean sample: the short and the long run in one window, each event's
 * long-run count minus its short-run count in diff[] (indexed like
 * a->set.ev), the TSC ticks likewise.  Disturbed samples are retaken
 * (a->disturbed, a->retaken).  False with err when counting failed or no
 * clean sample came within the budget.
 */
bool audit_sample(struct audit_ctx *a, int64_t *diff, int64_t *ticks, char *err, size_t cap);
/* The same with a long run of long_trips trips (the short run's AUDIT_SHORT_TRIPS as ever). */
bool audit_sample_trips(struct audit_ctx *a, uint64_t long_trips, int64_t *diff, int64_t *ticks, char *err, size_t cap);
/* One counted run of `trips` trips in its own window (overflow, full-width): raw reads of a's events. */
bool audit_once(struct audit_ctx *a, uint64_t trips, uint64_t *counts, char *err, size_t cap);
/* "pmc2" / "fixed0" for event i of a->set after scheduling. */
const char *audit_counter_name(const struct audit_ctx *a, size_t i, char buf[16]);
/* Note a counter a failed check names (the verdict). */
void audit_blame(struct audit_ctx *a, const struct audit_result *r, bool fixed, unsigned idx);
/* Start a result; fill `counter` from a list of counters. */
void audit_result_init(struct audit_result *r, const char *check);
void audit_counters_text(char *buf, size_t cap, uint32_t gp, uint32_t fixed);

/* ---- the checks: each fills r (status absent with why where it cannot run) ---- */
void audit_check_instructions(struct audit_ctx *a, struct audit_result *r);
void audit_check_branches(struct audit_ctx *a, struct audit_result *r);
void audit_check_agree(struct audit_ctx *a, struct audit_result *r);
void audit_check_fixed(struct audit_ctx *a, struct audit_result *r);
void audit_check_full_width(struct audit_ctx *a, struct audit_result *r);
void audit_check_overflow(struct audit_ctx *a, struct audit_result *r);
void audit_check_topdown(struct audit_ctx *a, struct audit_result *r);
void audit_check_clock(struct audit_ctx *a, struct audit_result *r);

#endif
