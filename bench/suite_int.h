/*
 * bench/suite_int.h - what the files of the benchmark stage share (internal
 * to bench/suite*.c): the stage's state and the helpers of each file.
 *   suite.c         the stage: choose, set up, run the rows, checks, observers
 *   suite_setup.c   counting, APERF, the ledger, extra events, arenas, the clock, bench_setup
 *   suite_events.c  which events a variant counts
 *   suite_record.c  the bench record and its readable line
 *   suite_sweep*.c  the memory ladder: its variants made from the cache geometry (suite_sweep_int.h)
 *   suite_metrics.c the top-down metrics of each variant and the metrics record
 */
#ifndef PMUBOOT_BENCH_SUITE_INT_H
#define PMUBOOT_BENCH_SUITE_INT_H

#include "bench/suite.h"
#include "bench/check.h"
#include "bench/harness.h"
#include "bench/kernels.h"
#include "events/events.h"
#include "lib/record.h"
#include "pmu/count/count.h"

#define EXTRA_MAX 8
#define SLOT_MAX 2
#define MEMO_MAX 12
/* Names of the roles' events a stage counts: one per role, and cycles and instructions. */
#define ROLE_NAMES_MAX (EV_ROLE_COUNT + 2)
#define NO_SLOT (-1)
/* Sample storage in an arena starts past the kernels' scratch window. */
#define POOL_ARENA_OFFSET (64u * 1024)

/*
 * Where the kernels run when no arena is at hand (non-split kernels always,
 * split kernels when arena_get refuses), and where samples are kept when
 * there is no arena: the run-time heap (lib/heap.h), or when that is
 * exhausted the stage's own stack frame, which
 * holds these 12 KiB + 4 KiB easily (UEFI gives at least 128 KiB of stack,
 * UEFI 2.10 section 2.3.4.1).
 */
#define SCRATCH_BYTES (BENCH_WINDOW_BYTES + 4096)	/* room to align a window to 4 KiB */
#define POOL_STACK 512u
/* An arena page size the split kernels run in. */
struct slot {
	const char *name;	/* "4k", "2m" or "fallback" */
	uint8_t *window;
	uint32_t page;		/* page size backing the window, 0 when unknown */
	const char *how;	/* the arena's own account of its mapping, or NULL */
};

/* A control's figures (heap), kept for the variants compared with it. */
struct memo {
	const struct bench_def *d;
	int slot;
	const struct bench_figures *f;
};

struct suite {
	const struct bench_params *p;
	const struct cpu_info *ci;
	const struct event_set *set;
	bool amd, emulator;
	struct bench_setup hs;		/* the harness's set-up, including the calibration in force */
	uint8_t *scratch;		/* 4 KiB-aligned, BENCH_WINDOW_BYTES, valid during bench_stage */
	int64_t *pool_fallback;		/* sample storage when there is no arena */
	struct bench_figures *figs;	/* the variant being measured (heap) */
	struct count_set *cs;		/* its events (heap) */
	struct rec rec;			/* records are built and emitted one at a time */
	char count_why[160];
	struct event_spec extra[EXTRA_MAX];
	size_t nextra;
	struct bench_calibration start_clock;	/* the calibration once the clock held still (bench_setup record) */
	unsigned settle_runs;		/* calibrations at the start until the clock held still */
	const char *samples_in;		/* "arena", "heap" or "stack" */
	const char *aperf_why;		/* why IA32_APERF is not a cycle source, or NULL when it is */
	struct ledger *ledger;		/* the quiet-machine ledger of this processor (pmu/audit/ledger.h): the run's */
	struct ledger own_ledger;	/* ... or the stage's own, when the run gave none */
	struct event_spec smi_spec;	/* the ledger's SMI event as counted beside each pass (hs.smi_event) */
	const char *smi_why;		/* why the ledger's SMI event is not counted, or NULL */
	struct slot slots[SLOT_MAX];
	size_t nslots;
	bool sel[64];
	struct memo memo[MEMO_MAX];
	size_t nmemo;
	char role_names[ROLE_NAMES_MAX][EVENT_NAME_MAX];	/* suite_static_name's copies */
	struct check_tally tally;
	unsigned measured;		/* variants chosen */
	unsigned rows, row;		/* rows to run (split variants once per arena), and the current one */
	const struct sweep_point *memory;	/* the memory ladder's variant being measured, or NULL */
};
extern struct suite suite;

/* suite_setup.c */
const struct event_set *suite_core_event_set(const struct cpu_info *ci);
void suite_setup_counting(void);
/* The audit's verdict on a variant's figures (pmu/audit/audit.h): those it refuses are marked so. */
void suite_apply_audit(const struct count_set *set, struct bench_figures *f);
void suite_setup_aperf(void);
void suite_setup_ledger(struct ledger *given);
void suite_setup_extra_events(void);
void suite_setup_arenas(char *notes, size_t cap);
void suite_setup_clock(void);
void suite_setup_record(const char *arena_notes);
/* False, with a skipped `check` saying why, when d's vector instructions cannot run here (platform/vec.h). */
bool suite_runnable(const struct bench_def *d, const char *arena);

/* suite_events.c */
void suite_build_set(struct count_set *cs, uint32_t roles);
uint32_t suite_roles_for(const struct bench_def *d);
const char *suite_static_name(const struct event_spec *sp);
bool suite_counts_cycles(const struct count_set *cs);

/* suite_metrics.c: once the counting is set up, what the core's top-down formulas need (or say once why
 * there are none); after each variant's bench record, count those beside it and emit its metrics record. */
void suite_metrics_setup(void);
void suite_metrics_variant(const struct bench_def *d, const struct slot *sl, uint8_t *window,
			   const struct bench_figures *f);

/* suite_user.c: read and choose the user kernels (returns how many run); measure them, after the built-ins. */
size_t suite_user_prepare(void);
void suite_user_run(size_t chosen);
/* A user kernel's body bytes as hex, for its record; NULL for the built-ins. */
const char *suite_user_body_hex(const struct bench_def *d);

/* suite.c: measure row d (p and q inside sl's window, or the scratch window without sl) and emit its records. */
void suite_run_row(const struct bench_def *d, const struct slot *sl, int slot);

/*
 * suite_sweep.c, the memory ladder (bench/ladder.h): prepare takes the cache geometry, the chosen
 * variants and the ladder's arenas and returns how many variants it will measure; run measures them
 * (after the table's other rows); list prints them for bench=list.  While one is measured,
 * suite.memory describes it and the bench record carries a "memory" object (suite_sweep_fields).
 */
struct sweep_point;
size_t suite_sweep_prepare(void);
void suite_sweep_run(void);
void suite_sweep_list(const struct bench_def *d);
void suite_sweep_setup_fields(struct rec *r);
void suite_sweep_fields(struct rec *r, const struct bench_figures *f);

/*
 * suite_record.c.  ctl: the control's figures, or NULL; then ctl_missing
 * says why when d has a control (NULL: "it was not measured"), for the
 * record's penalty_why and the text line.
 */
void suite_emit_bench(const struct bench_def *d, const struct slot *sl, const struct bench_figures *f,
		      const struct bench_figures *ctl, const char *ctl_missing);

#endif
