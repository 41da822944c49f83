/*
 * bench/plan.h - what the benchmark stage will run, read once from `bench=`.
 *
 * bench= is a comma list of words: `all`, `none` (undoes what came before), a kernel, kernel.variant,
 * `user` or user.NAME; bench=list alone asks for the list of variants instead.  The plan sorts every
 * word to the source of rows that knows it (bench/stage_int.h, struct bench_source):
 *   BENCH_SRC_VARIANTS  a kernel of the table (bench/kernels.c), or kernel.variant of one of its rows
 *   BENCH_SRC_LADDER    latency, tlb, bandwidth, or kernel.<variant> of them: the memory ladder checks
 *                       the variant word against the cache geometry and the arena it gets
 *   BENCH_SRC_USER      user or user.NAME: the user kernels check the name against those loaded
 * A word no source knows is the parse's error.  A source of rows with an option of its own (instruction
 * forms, from instr=) is one more kind here; the stage adds that option's words to the plan
 * (bench_plan_add_words) and the source reads them as the others read theirs: no other source is touched.
 *
 * The stage completes the plan once its sources are prepared: `variants` and `rows` are what the
 * bench_setup record reports and what the screen's progress counts to (output/screen_state.c).
 */
#ifndef PMUBOOT_BENCH_PLAN_H
#define PMUBOOT_BENCH_PLAN_H

#include "lib/libc.h"

enum bench_source_kind {
	BENCH_SRC_VARIANTS,
	BENCH_SRC_LADDER,
	BENCH_SRC_USER,
	BENCH_SRC_INSTR,	/* instruction forms from the kernel pack, chosen by instr= (bench/src_instr.c) */
	BENCH_SRC_KINDS
};

#define BENCH_PLAN_LIST "list"		/* bench=list: the variants, one line each, nothing measured */
#define BENCH_PLAN_WORDS 128		/* words kept: bench= holds 256 characters (run/config.h) */
#define BENCH_PLAN_BAD 8		/* unknown words kept for the errors */
#define BENCH_PLAN_TABLE 64		/* rows of bench/kernels.c the plan can mark */
#define BENCH_USER_KERNEL "user"

/* A word of bench=, as written (pointers into the value, not NUL-terminated). */
struct bench_plan_word {
	const char *text;
	size_t len;
	size_t klen;			/* its kernel part: up to the dot, or all of it */
	enum bench_source_kind source;
	bool undone;			/* a later `none` undid it: chooses nothing (a source may still say it is bad) */
};

struct bench_plan {
	bool list;			/* bench=list */
	bool all;			/* `all` named after the last `none` */
	struct bench_plan_word word[BENCH_PLAN_WORDS];	/* the kernel words, in order */
	size_t nwords;
	size_t dropped;			/* words past BENCH_PLAN_WORDS, left out */
	struct bench_plan_word bad[BENCH_PLAN_BAD];	/* words no source knows (the first BENCH_PLAN_BAD) */
	size_t nbad;
	/*
	 * The table's rows chosen (bench/kernels.c order): the variants named, their controls and the
	 * reference kernels (unless nothing was chosen); a memory-ladder row when its kernel is named.
	 */
	bool table[BENCH_PLAN_TABLE];
	size_t table_chosen;
	/* Filled by the stage once its sources are prepared. */
	unsigned variants;		/* variants chosen: split variants once, ladder points, user kernels */
	unsigned rows;			/* rows it will measure: split variants once per arena */
};

/*
 * Read `bench=` into pl.  False, with why naming the first bad word, when a word is known to no source
 * (pl is filled all the same: the known words stand) or the table is larger than the plan can mark.
 */
bool bench_plan_parse(struct bench_plan *pl, const char *bench, char *why, size_t cap);

/*
 * Add the words of an option that belongs to one source (kind k: every word is its to check) after
 * those of bench=.  False, with why, when there is no room for them all (those that fit are kept).
 */
bool bench_plan_add_words(struct bench_plan *pl, enum bench_source_kind k, const char *value, char *why, size_t cap);

/* Does the word belong to source kind k, and does its kernel part say `kernel`?  (Sources read their words so.) */
bool bench_plan_word_is(const struct bench_plan_word *w, enum bench_source_kind k, const char *kernel);
/* The variant part of w (after the dot; length 0 when w names the whole kernel). */
const char *bench_plan_variant(const struct bench_plan_word *w, size_t *len);

#endif
