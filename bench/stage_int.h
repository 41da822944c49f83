/*
 * bench/stage_int.h - how the benchmark stage is built (internal to bench/): the context each part is
 * handed (struct stage), a row to measure (struct bench_row) and a source of rows (struct bench_source).
 *
 * Each kind of row is a source: the table's variants (src_variants.c), the memory ladder's points
 * (src_ladder.c, src_ladder_record.c), user kernels (src_user.c).  The stage (stage.c) reads `bench=`
 * once into a plan (bench/plan.h), lets every source choose from it, sets up, lets every source
 * prepare its rows, and measures each source's rows in turn (row.c).  Each file uses only files
 * below it in this list, never the one that calls it:
 *   stage.c              the stage: the plan, the set-up in order, the sources' rows, the tally
 *   src_variants.c       source: the table's variants, split variants once per arena, controls first
 *   src_ladder.c         source: the memory ladder's points (src_ladder.h)
 *   src_ladder_record.c  the ladder's record fields and its bench=list lines
 *   src_user.c           source: user kernels, tried under the guard first
 *   row.c                one row: measure, audit, record, metrics, checks, observers, then its source's done
 *   stage_setup.c        counting, APERF, the ledger, extra events, arenas, the clock, bench_setup
 *   stage_metrics.c      the top-down metrics of each row and the metrics record
 *   bench_record.c       the bench record and its readable line
 *   counting.c           the events a row counts, their names, the audit's verdict on its figures
 */
#ifndef PMUBOOT_BENCH_STAGE_INT_H
#define PMUBOOT_BENCH_STAGE_INT_H

#include "bench/stage.h"
#include "bench/check.h"
#include "bench/harness.h"
#include "bench/kernels.h"
#include "bench/plan.h"
#include "events/events.h"
#include "lib/record.h"
#include "pmu/count/count.h"

#define EXTRA_MAX 8
#define SLOT_MAX 2
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

struct bench_source;

/* The stage's context: set up by stage.c, handed to every part. */
struct stage {
	const struct bench_params *p;
	const struct cpu_info *ci;
	const struct event_set *set;
	struct bench_plan *plan;
	const struct bench_source *const *src;	/* the sources, in the order their rows run */
	size_t nsrc;
	void *state[BENCH_SRC_KINDS];	/* a source's own state, by kind, where several files share it */
	bool amd, emulator;
	struct bench_setup hs;		/* the harness's set-up, including the calibration in force */
	struct bench_contention contention;	/* hs.contention's state: one probe best for the whole stage */
	uint8_t *scratch;		/* 4 KiB-aligned, BENCH_WINDOW_BYTES, valid during bench_stage */
	int64_t *pool_fallback;		/* sample storage when there is no arena */
	struct bench_figures *figs;	/* the row being measured (heap) */
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
	char role_names[ROLE_NAMES_MAX][EVENT_NAME_MAX];	/* stage_static_name's copies */
	struct check_tally tally;
};

/* A row to measure, as a source hands it to the stage. */
struct bench_row {
	const struct bench_source *src;	/* set by the stage */
	const struct bench_def *d;
	const struct slot *sl;		/* the arena its window lies in, or NULL: the scratch window */
	int slot;			/* sl's index in the stage's slots (controls are kept per slot), or NO_SLOT */
	uint32_t iterations;		/* the iterations it is measured with; 0: the stage's */
	bool checked;			/* bench/check.c judges it (user kernels: nothing is expected of them) */
	const struct bench_figures *ctl;	/* its control's figures, or NULL; then ctl_missing says why */
	const char *ctl_missing;	/* (NULL: "it was not measured"), for the record's penalty_why and the text */
	const char *body_hex;		/* the body's bytes for the record (user kernels), or NULL */
	const void *point;		/* the source's own account of the row (the ladder's point), or NULL */
};

/*
 * A source of rows.  The stage calls choose on every source (in order) before it sets up, prepare
 * after, then next until it says no more, measuring each row it gives; only next is required besides
 * choose and prepare.
 */
struct bench_source {
	enum bench_source_kind kind;
	/* What the plan chooses of it (errors for words it cannot use): how many variants, 0 for none. */
	size_t (*choose)(struct stage *st);
	/* After the set-up (counting, arenas): make the rows; how many variants and rows it will measure. */
	void (*prepare)(struct stage *st, unsigned *variants, unsigned *rows);
	/* The next row to measure, in order; false when there are no more. */
	bool (*next)(struct stage *st, struct bench_row *row);
	/* After the row: measured says whether st->figs holds its figures. */
	void (*done)(struct stage *st, const struct bench_row *row, bool measured);
	/* Its fields of the bench_setup record. */
	void (*setup_fields)(const struct stage *st, struct rec *r);
	/* Its fields of a row's bench record (after penalty_why). */
	void (*fields)(const struct stage *st, const struct bench_row *row, struct rec *r,
		       const struct bench_figures *f);
	/* bench=list: its variants, one line each (ci NULL: no stage has run, it identifies this processor). */
	void (*list)(const struct cpu_info *ci);
};

extern const struct bench_source bench_src_variants, bench_src_ladder, bench_src_user, bench_src_instr;

/* stage_setup.c */
void stage_setup_counting(struct stage *st);
void stage_setup_aperf(struct stage *st);
void stage_setup_ledger(struct stage *st, struct ledger *given);
void stage_setup_extra_events(struct stage *st);
void stage_setup_arenas(struct stage *st, char *notes, size_t cap);
void stage_setup_clock(struct stage *st);
void stage_setup_record(struct stage *st, const char *arena_notes);

/* counting.c */
/* The event set identification named for this core (cpu/cpu.h), or NULL when it named none. */
const struct event_set *stage_core_event_set(const struct cpu_info *ci);
void stage_build_set(const struct stage *st, struct count_set *cs, uint32_t roles);
/* The roles a row counts: its own, and for a control those of every chosen variant compared with it. */
uint32_t stage_roles_for(const struct stage *st, const struct bench_def *d);
const char *stage_static_name(struct stage *st, const struct event_spec *sp);
/* The audit's verdict on a row's figures (pmu/audit/audit.h): those it refuses are marked so. */
void stage_apply_audit(const struct stage *st, const struct count_set *set, struct bench_figures *f);

/* stage_metrics.c: once the counting is set up, what the core's top-down formulas need (or say once why
 * there are none); after each row's bench record, count those beside it and emit its metrics record. */
void stage_metrics_setup(struct stage *st);
void stage_metrics_row(struct stage *st, const struct bench_def *d, const struct slot *sl, uint8_t *window,
		       const struct bench_figures *f);

/* bench_record.c: the bench record of a row measured into f, and its readable line. */
void stage_emit_bench(struct stage *st, const struct bench_row *row, const struct bench_figures *f);

/* row.c: measure a row (p and q inside its arena's window, or the scratch window) and emit its records. */
void stage_run_row(struct stage *st, const struct bench_row *row);

#endif
