/*
 * bench/instr_events.h - the µops and ports of an instruction form (issue 31; docs/instr.md "µops and
 * ports"), for pmuboot-host and the image alike.
 *
 * The core's µop events come from its event set (events/uops.csv through events_uop_at): µops retired,
 * issued and dispatched, and per port group (Intel) or FP pipe (AMD).  They make one count set, which
 * bench/instr_run.c hands the harness for the form's unrolled throughput kernel only: the harness
 * schedules it and, with more events than counters, measures the kernel once per pass.  Each event's
 * median count per body copy, divided by the instances a body copy holds (instr/pack.h per_iter), is the
 * figure per instance; events of one kind and port are summed.
 */
#ifndef PMUBOOT_BENCH_INSTR_EVENTS_H
#define PMUBOOT_BENCH_INSTR_EVENTS_H

#include "bench/harness.h"

#define INSTR_UOP_SLOTS 20 /* kinds and port groups of one set (the most has 3 + 13) */
#define INSTR_UOPS_WHY_MAX 120

/* What a run counts: chosen once per processor. */
struct instr_events {
	struct count_set set;		   /* the µop events; n 0: none (uops_why says why) */
	uint8_t slot_of[COUNT_MAX_EVENTS]; /* the slot each event adds to */
	size_t nslot;
	struct instr_uop_slot {
		uint8_t kind;		    /* enum event_uop_kind */
		char port[EV_UOP_PORT_MAX]; /* EV_UOP_PORT: the vendor's group */
	} slot[INSTR_UOP_SLOTS];
	char uops_why[INSTR_UOPS_WHY_MAX];  /* why no µop kind is counted, "" when one is */
	char ports_why[INSTR_UOPS_WHY_MAX]; /* why no port is counted, "" when one is */
	/* The audit's verdict on the counters (the image: bench/counting.c stage_apply_audit), applied to the
	 * figures before they are taken, or NULL. */
	void (*judge)(void *ctx, const struct count_set *set, struct bench_figures *f);
	void *judge_ctx;
};

/* One kernel's counts: slot i's µops per instance (thousandths), or INSTR_UOP_NONE. */
#define INSTR_UOP_NONE INT64_MIN
struct instr_uops {
	bool counted; /* the events were counted on this kernel */
	int64_t v[INSTR_UOP_SLOTS];
	char why[INSTR_UOPS_WHY_MAX]; /* not counted: why */
};

/*
 * Choose set's µop events (set NULL: identification names none) where counting is available (cb; else
 * no_count_why says why it is not).  Never fails: a core without the events gets the reasons.
 */
void instr_events_init(struct instr_events *ie, const struct event_set *set, const struct count_backend *cb,
		       const char *no_count_why);

/* The count set to measure a kernel with, or NULL when there is nothing to count. */
struct count_set *instr_events_set(struct instr_events *ie);

/* Slot by slot, f's event figures (per body copy; judged first) divided by per_iter instances, into *out. */
void instr_events_take(const struct instr_events *ie, struct bench_figures *f, unsigned per_iter,
		       struct instr_uops *out);

#endif
