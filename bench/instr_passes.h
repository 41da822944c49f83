/*
 * bench/instr_passes.h - when pmuboot-host measures an instruction form again and when it writes what it
 * has (docs/instr.md "Speed").  A form whose figure could only be taken beside another thread on the core
 * (unstable "contended") or holds fewer samples than asked, or with a kernel that kept no sample, is left
 * for a later pass: an episode of contention lasts seconds to minutes, and a later pass is a later draw
 * (which keeps, kernel by kernel, an earlier pass's better result).  The time the passes may take is bounded by
 * the first pass's and by a ceiling, so a core shared all the time cannot stretch the table past either:
 * once that time is up, a form left from an earlier pass is written with the figures it has, not measured
 * again.  The user may set the time instead (pmuboot-host instr --minutes).  Pure: the caller reads the
 * clock.
 */
#ifndef PMUBOOT_BENCH_INSTR_PASSES_H
#define PMUBOOT_BENCH_INSTR_PASSES_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/instr_record.h"

/*
 * Passes at most over the forms.  On the development host under heavy sharing (70% of samples thrown away as
 * contended), a second pass took the forms with such a figure from 37% of the figures to 18%.
 */
#define INSTR_PASSES 3
/*
 * All passes together take at most this many times the first's.  Under that heavy sharing three passes took
 * 2.3 times as long as the first (17 minutes for the table); at 87% of samples contended the last pass
 * measuring every form still left took 2.5 times (22.5 minutes) before the bound held for it too.
 */
#define INSTR_LATER_PASSES_SHARE 2
/*
 * And all passes end at most this many seconds after the table began, whatever the first pass took.  The
 * table of the development host's core is wanted in 20 minutes (issue 31); at 90% of samples contended its
 * first pass took 590 s, and the share above let the table run to 1,180 s, 20 s short.  The later passes
 * only improve figures already taken, so they give way first; 18 minutes leaves the forms still left (written
 * from their kept results, in a second or two) and the run's end well inside the 20.
 */
#define INSTR_PASSES_CEILING_S (18 * 60)

struct instr_passes {
	unsigned pass;	   /* 0: the first */
	double start;	   /* seconds, the caller's clock */
	double first_pass; /* the first pass's length; 0 while it runs */
	double budget;	   /* seconds from start the passes may take, the user's; < 0: the share and ceiling above */
};

/*
 * budget: seconds from now after which no form is left for a later pass or measured again; < 0: the default,
 * INSTR_LATER_PASSES_SHARE times the first pass and at most INSTR_PASSES_CEILING_S; 0: one pass, every form
 * written as first measured.  The first pass measures every form whatever the budget.
 */
void instr_passes_begin(struct instr_passes *ps, double now, double budget);
/* The pass that was running has ended at `now`; false when no pass follows (INSTR_PASSES reached). */
bool instr_passes_next(struct instr_passes *ps, double now);
/*
 * Whether a form's results res[0..n) are worth measuring again in a later pass: a figure of it was taken
 * beside another thread on the core (unstable "contended") or is thin (instr_figure_thin), or a kernel of
 * it kept no sample (unkept: every sample thrown away as contended, disturbed or impossible, its own or its
 * connector's; in a full table at 69% of samples contended, 416 forms were written with such a gap, most
 * of them without a throughput).
 */
bool instr_passes_again(const struct instr_result *res, size_t n);
/*
 * A later pass's results now[0..n) keep, kernel by kernel, an earlier pass's (before, or NULL) where that
 * was better: a figure of several samples taken alone over one taken beside another thread, that over a
 * thin one, any over none.  A form measured again for its throughput so does not lose a latency the later
 * draw could not take.  The bytes (init, body) stay now's: the earlier batch's object is gone.
 */
void instr_passes_keep_better(struct instr_result *now, const struct instr_result *before, size_t n);
/* How good a kernel's result is, worst first: the order keep_better and a later pass's order go by. */
enum instr_rank {
	INSTR_RANK_NONE,      /* no figure */
	INSTR_RANK_THIN,      /* cut short of the samples asked (instr_figure_thin) */
	INSTR_RANK_CONTENDED, /* taken beside another thread on the core */
	INSTR_RANK_ALONE,     /* taken alone, every sample asked for */
};
/*
 * How much a form's results res[0..n) need a later draw: its worst kernel's rank (a kernel never run,
 * not assembled, counts as INSTR_RANK_ALONE: a later draw would not run it either).  A later pass
 * measures its forms most in need first, so that when its time runs out the forms it leaves are those
 * with the better figures (at 85% of samples contended a full table's second pass reached 11,760 of its
 * 12,490 forms).
 */
enum instr_rank instr_passes_need(const struct instr_result *res, size_t n);
/* Whether a form just measured that instr_passes_again names is left for the next pass (false: it is written). */
bool instr_passes_defer(const struct instr_passes *ps, double now);
/* Whether a form left from an earlier pass is measured again now (false: its earlier figure is written). */
bool instr_passes_measure_again(const struct instr_passes *ps, double now);

#endif
