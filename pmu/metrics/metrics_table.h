/*
 * pmu/metrics/metrics_table.h - the packed tables tools/gen_metrics.py generates from events/metrics/
 * into $(B)/gen/metrics_table.c.  Private to pmu/metrics/: everyone else goes through metrics.h.
 *
 * Why this form: the vendors' formulas are fully inlined (perfmon's Formula never names another
 * metric), so written out as bytecode the 2,500 metrics of 27 tables would take some 170,000 tokens.
 * Most of that is the same subexpressions again (SLOTS, the level-1 fractions, CLKS), within a formula,
 * across metrics and across cores.  So every formula of every table is one root in a single DAG whose
 * nodes are hash-consed by the generator: a node is stored once however often it is used, and a
 * metric is a reference to its root.  Leaves (inputs, literals) are not nodes: an operand refers to
 * them directly.  Evaluation walks the DAG from the root (pmu/metrics/metrics.c); a conditional
 * evaluates only the branch its condition picks, as Python does.  No pointers (each would cost a
 * relocation): names are offsets into one pool of token codes (below).  All of it is stored
 * compressed and inflated once (below).
 */
#ifndef PMUBOOT_PMU_METRICS_METRICS_TABLE_H
#define PMUBOOT_PMU_METRICS_METRICS_TABLE_H

#include "pmu/metrics/metrics.h"
#include "pmu/metrics/num.h"
#include "lib/unlz.h"

/* A node's operation.  The generator asserts the order (tools/gen_metrics.py OPS). */
enum mt_op {
	MT_ADD, MT_SUB, MT_MUL, MT_DIV,	/* a op b */
	MT_MIN, MT_MAX,	/* Python's min(a, b), max(a, b): both evaluated */
	MT_GT, MT_LT, MT_GE, MT_LE,	/* 1 or 0 */
	MT_IF,		/* a: the condition (true when not zero); b: an MT_ELSE node */
	MT_ELSE,	/* a: the value when true, b: when false */
};

/* A reference to an operand: its kind in the bits above MT_REF_INDEX_BITS, its index below. */
#define MT_REF_BITS 14
#define MT_REF_INDEX_BITS 12
enum { MT_REF_NODE, MT_REF_INPUT, MT_REF_NUMBER };
#define MT_REF_KIND(r) ((unsigned)(r) >> MT_REF_INDEX_BITS)
#define MT_REF_INDEX(r) ((unsigned)(r) & ((1u << MT_REF_INDEX_BITS) - 1))
/* The deepest formula the evaluator recurses through (the generator checks every formula against it). */
#define MT_MAX_DEPTH 48

struct mt_node {
	uint32_t op : 4;		/* enum mt_op */
	uint32_t a : MT_REF_BITS;	/* operand references */
	uint32_t b : MT_REF_BITS;
};

/* mt_input.kind: which of enum metric_input_kind (metrics.h). */
#define MT_IN_EVENT	METRIC_IN_EVENT
#define MT_IN_TD	METRIC_IN_PERF_METRICS
#define MT_IN_RETLAT	METRIC_IN_RETIRE_LATENCY
#define MT_IN_CONST	METRIC_IN_CONST
#define MT_CONST_SMT		METRIC_CONST_SMT
#define MT_CONST_THREADS	METRIC_CONST_THREADS
#define MT_CONST_TSC		METRIC_CONST_TSC
#define MT_CONST_DURATION_MS	METRIC_CONST_DURATION_MS
#define MT_CONST_SYSTEM		METRIC_CONST_SYSTEM

/* Names are token-coded: a name is a run of codes in mt_codes ended by 0; code c in 1..MT_TOKEN_ONE_BYTE is
 * token c - 1, a byte from MT_TOKEN_TWO_BYTE_LEAD up starts a two-byte code for the rarer tokens.  A token is
 * a word with the separator after it ("MEM_", "RETIRED.", "L1_"), its text at mt_token_text[mt_token_at[t]]. */
#define MT_TOKEN_ONE_BYTE 0xDF
#define MT_TOKEN_TWO_BYTE_LEAD 0xE0

struct mt_input {
	uint16_t name;		/* the key as the vendor spells it (an mt_codes offset) */
	uint16_t spec;		/* what to count: the catalogue event and its modifiers (== name on Intel) */
	uint8_t kind;		/* MT_IN_* */
	uint8_t arg;		/* PERF_METRICS field, or MT_CONST_* */
};

struct mt_metric {
	uint16_t name;		/* an mt_codes offset */
	uint16_t root : MT_REF_BITS;	/* its formula */
	uint16_t unit : 2;	/* index in metrics.c's unit names */
	uint16_t parent : 15;	/* an mt_codes offset; 0 (the empty name) at level 1 */
	uint16_t level2 : 1;	/* 1: a level 2 metric; 0: level 1 */
};

/* One event set's table: its metrics are mt_metrics[mt_lists[first .. first + n)]. */
struct metrics_table {
	uint16_t key;		/* the event set (events/sets.csv key), an mt_codes offset */
	uint16_t source;	/* "intel-perfmon skylake_metrics.json TMA 5.01" */
	uint16_t first, n;
};

/* Host only: a metric the generator left out, and why. */
struct mt_left_out {
	uint16_t table;		/* index in mt_tables */
	const char *name, *why;
};

/*
 * The tables are stored compressed in the image (tools/lzpack.py, lib/unlz.h): mt_blob, which metrics.c
 * inflates once, at first use (or when the run asks, metrics_ready), into memory from lib/heap.h;
 * mt_tables_place then points each table into it.  Until then (and for good when there was no memory or
 * the blob was damaged) they are NULL, so every reader goes through metrics.c's tables_ready().  The
 * counts are plain constants beside the blob.
 */
#define MT_TABLE_ALIGN 8	/* every table starts so aligned in the inflated buffer (struct mnum: uint64_t) */

extern const struct unlz_blob mt_blob;
void mt_tables_place(const uint8_t *base);

extern const struct mt_node *mt_nodes;
extern const uint16_t mt_node_count;
extern const struct mnum *mt_numbers;
extern const uint16_t mt_number_count;
extern const struct mt_input *mt_inputs;
extern const uint16_t mt_input_count;
extern const struct mt_metric *mt_metrics;
extern const uint16_t *mt_lists;
extern const struct metrics_table *mt_tables;
extern const uint16_t mt_table_count;
extern const uint8_t mt_table_width[];	/* per table, in mt_tables' order: not in the blob */
extern const char *mt_token_text;
extern const uint16_t *mt_token_at;
extern const uint16_t mt_token_count;
extern const uint8_t *mt_codes;
extern const uint16_t mt_codes_size;
extern const struct mt_left_out mt_left_out[];	/* PMUBOOT_HOSTED only (not in the blob); ends with name NULL */

/* The DAG the evaluator walks: the generated one (metrics.c points one at the inflated tables), or one a
 * unit test builds by hand. */
struct mt_data {
	const struct mt_node *nodes;
	const uint16_t *node_count;
	const struct mnum *numbers;
	const uint16_t *number_count;
	const uint16_t *input_count;
};
/* Evaluate the formula at reference ref of d (metrics_eval does it for a metric's root in the generated tables). */
void mt_eval(const struct mt_data *d, uint16_t ref, metrics_input_fn get, void *ctx, struct metric_result *out);

#endif
