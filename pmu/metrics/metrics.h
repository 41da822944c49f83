/*
 * pmu/metrics/metrics.h - top-down analysis from the vendors' own formulas.
 *
 * For each core whose vendor publishes them (Intel perfmon's TMA metric files and E-core
 * spreadsheet, AMD's pipeline-utilisation guidance: events/metrics/, compiled by
 * tools/gen_metrics.py), a table of the level 1 and level 2 metrics: each with its name, level,
 * parent and unit, the inputs it needs (events as the vendor spells them, PERF_METRICS fields,
 * constants the run supplies) and its formula, evaluated here from counts in the integer number
 * type of num.h.  A metric with a missing input or a division by zero is null with the reason,
 * never NaN.  The benchmark stage (bench/stage_metrics.c) counts the inputs beside each variant;
 * `pmuboot-host metrics --eval` evaluates counts given to it.  docs/topdown.md.
 */
#ifndef PMUBOOT_PMU_METRICS_METRICS_H
#define PMUBOOT_PMU_METRICS_METRICS_H

#include "lib/libc.h"
#include "cpu/cpu.h"
#include "pmu/metrics/num.h"
#include "pmu/count/count.h"

struct metrics_table;	/* one event set's metrics (metrics_table.h) */

/* Names are stored token-coded and decoded into the caller's buffer; none is this long (the generator checks). */
#define METRIC_NAME_MAX 112

/*
 * The tables are stored compressed and inflated into the heap at their first use.  The heap has no
 * locking and is the boot processor's, so the run calls this there before any measuring pass
 * (run/run.c): true when the tables are in place, false (after one error record) when they cannot be;
 * then every function below finds no table and no input.
 */
bool metrics_ready(void);
size_t metrics_table_count(void);
const struct metrics_table *metrics_table_at(size_t i);
/* The table of an event set (events/sets.csv key), or NULL. */
const struct metrics_table *metrics_table_find(const char *set_key);
/*
 * The table for an identified core: its event set's, when identification applied that set on the
 * vendor's own mapping (a core that only borrows a related core's events does not borrow its
 * formulas).  NULL with *why saying so otherwise.
 */
const struct metrics_table *metrics_for_cpu(const struct cpu_info *ci, const char **why);
/* Its event set's key into buf (returned). */
const char *metrics_table_key(const struct metrics_table *t, char buf[METRIC_NAME_MAX]);
/* What the records say the formulas are into buf (returned): "intel-perfmon skylake_metrics.json TMA 5.01". */
const char *metrics_table_source(const struct metrics_table *t, char buf[METRIC_NAME_MAX]);
size_t metrics_count(const struct metrics_table *t);
/* The pipeline width the formulas count: issue slots per cycle (SLOTS = width x clocks; events/metrics/tables.csv). */
unsigned metrics_table_width(const struct metrics_table *t);

struct metric_info {
	char name[METRIC_NAME_MAX];	/* "Frontend_Bound", "Info_Thread_IPC", "backend_bound_memory" */
	unsigned level;		/* 1 or 2, as the vendor gives it (Info_* and Bottleneck_* are at 1) */
	char parent[METRIC_NAME_MAX];	/* the level 1 node of a level 2 one, "" at level 1 */
	const char *unit;	/* "percent" (tree nodes), "per instruction", or "" (the metric's own) */
	bool tree;		/* a node of the top-down tree (not an Info_/Bottleneck_ metric) */
};
/* Metric i of t (0 .. metrics_count - 1), in the vendor's order. */
void metrics_at(const struct metrics_table *t, size_t i, struct metric_info *out);
/* The metric of t called name, or -1. */
long metrics_index(const struct metrics_table *t, const char *name);

/* ---- inputs: one list shared by every table, indexed 0 .. metrics_input_total() - 1 ---- */

enum metric_input_kind {
	METRIC_IN_EVENT,	/* an event of the table's set, with perfmon modifiers (":c1:e1", ":SUP") */
	METRIC_IN_PERF_METRICS,	/* a PERF_METRICS field (arg: its byte), in slots: TOPDOWN.SLOTS x byte / 255 */
	METRIC_IN_RETIRE_LATENCY,	/* "X:retire_latency": a PEBS retire-latency average, -1 when not measured */
	METRIC_IN_CONST,	/* a constant (arg: enum metric_const) */
};

enum metric_const {
	METRIC_CONST_SMT,	/* HYPERTHREADING_ON: 1 when the core's sibling thread is enabled */
	METRIC_CONST_THREADS,	/* THREADS_PER_CORE */
	METRIC_CONST_TSC,	/* SYSTEM_TSC_FREQ: despite the name, TSC ticks of the measured interval */
	METRIC_CONST_DURATION_MS,	/* DURATIONTIMEINMILLISECONDS: the measured interval */
	METRIC_CONST_SYSTEM,	/* a system size (sockets, CPUs) the run does not supply */
};

struct metric_input {
	char name[METRIC_NAME_MAX];	/* the key: the vendor's spelling (Intel), perf's name (AMD), the constant's */
	char spec[METRIC_NAME_MAX];	/* what counts it: a catalogue event of the set with modifiers */
	enum metric_input_kind kind;
	unsigned arg;		/* the PERF_METRICS field (0 retiring .. 7 memory bound), or enum metric_const */
};

size_t metrics_input_total(void);
void metrics_input_at(unsigned input, struct metric_input *out);
/*
 * The distinct inputs metric i of t names (i = METRICS_ALL: every metric of t), ascending, into
 * out[0 .. cap); returns how many there are (more than cap: the list is cut there).
 */
#define METRICS_ALL ((size_t)-1)
size_t metrics_inputs(const struct metrics_table *t, size_t i, uint16_t *out, size_t cap);

/*
 * What counts an input of kind METRIC_IN_EVENT or METRIC_IN_PERF_METRICS on a core with event set set: its
 * catalogue event with the modifiers applied (":cN" cmask, ":eN" edge, ":iN" invert, ":u0xNN" unit mask,
 * ":ocr_msr_val=0x.." the offcore response, ":perf_metrics" TOPDOWN.SLOTS read with PERF_METRICS), or the
 * PERF_METRICS field's pseudo event (pmu/count/count.h); *priv the ring it counts at (":SUP" kernel, ":USER"
 * user, else both).  False with why (static text or into buf) when pmuboot cannot count it: an unknown event,
 * a modifier it does not program (":percore", ":eqN"), a retire latency (PEBS), a constant.
 */
bool metrics_input_spec(const struct event_set *set, const struct metric_input *in, struct event_spec *out,
			enum count_priv *priv, char *buf, size_t cap, const char **why);

/* ---- the SMT constant ---- */

/*
 * What HYPERTHREADING_ON is for counts of one thread, and why (docs/topdown.md "SMT: the per-thread form").
 * Before Ice Lake Intel's SLOTS are per physical core (TMA_Metrics: "per-Physical Core till ICL"): with
 * HYPERTHREADING_ON the formulas take the core's clocks (CPU_CLK_UNHALTED.THREAD_ANY / 2) and other AnyThread
 * counts halved as this thread's share, which holds while the sibling runs beside it.  When the sibling is
 * parked the measured thread alone ran, THREAD_ANY counts what THREAD counts, and halving it halves the
 * slots: the breakdown doubles (Retiring 200%, Backend_Bound -100%).  The right form then is the per-thread
 * one, the formulas' SMT-off branch (TMA's EBS-mode CORE_CLKS, THREAD / 2 x (1 + ONE_THREAD_ACTIVE /
 * REF_XCLK), is THREAD when the sibling is never active).  From Ice Lake on the SMT-on branch reads
 * CPU_CLK_UNHALTED.DISTRIBUTED, which is THREAD when the sibling sleeps and about half of it when it spins
 * (a PAUSE park): the per-thread form is right there too.
 */
struct metrics_smt {
	bool known;		/* false: no value can be given (why says), the formulas that need it are null */
	bool on;		/* HYPERTHREADING_ON */
	int threads;		/* enabled threads in the measured core (THREADS_PER_CORE), -1 not known */
	const char *siblings;	/* "parked", "none" (SMT off), "running", "not known" */
	const char *form;	/* "per-thread" or "per-core" */
	char why[240];
};
/*
 * threads: the enabled threads of the measured core (-1: not known); siblings_busy: NULL when the core's
 * other threads run no work of their own while it measures (the image parks them; a model has none), else
 * what they may be doing ("running whatever Linux schedules on them").
 */
void metrics_smt_form(int threads, const char *siblings_busy, struct metrics_smt *out);

/* ---- evaluation ---- */

/* The value of an input: false when there is none (the input is missing). */
typedef bool (*metrics_input_fn)(void *ctx, unsigned input, struct mnum *value);

enum metric_null {
	METRIC_OK,
	METRIC_MISSING,		/* an input it needs has no value (result.input says which) */
	METRIC_DIV_ZERO,	/* a division by zero */
	METRIC_RANGE,		/* a result beyond the number type's range */
};

struct metric_result {
	enum metric_null why;
	struct mnum value;	/* METRIC_OK */
	int input;		/* METRIC_MISSING: the first input found missing, else -1 */
};

/* Evaluate metric i of t with the inputs get gives (only the branch a conditional takes is evaluated). */
void metrics_eval(const struct metrics_table *t, size_t i, metrics_input_fn get, void *ctx,
		  struct metric_result *out);
/* "division by zero", "missing input", "out of range", or NULL for METRIC_OK. */
const char *metrics_null_text(enum metric_null why);

#endif
