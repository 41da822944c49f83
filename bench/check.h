/*
 * bench/check.h - the self-check: does each kernel do what it says?
 *
 * After a variant is measured, its figures are compared with its control's
 * and with what the kernel table expects, and a `check` record says pass,
 * fail or skip with the figures:
 *   reference kernels  cycles/iteration inside the row's [ref_lo, ref_hi];
 *   events             a provoking variant counts 0.75..1.5 events of each
 *                      of its roles per iteration and its control under 0.1;
 *   timing             the penalty (variant - control, median cycles) is
 *                      positive, where the row expects the variant slower.
 * Timing checks are skipped under an emulator (TCG), where time means
 * nothing, and reference checks when cycles are raw TSC ticks.  A check
 * whose figures are unstable (bench/stats.h) says `unstable` and why,
 * instead of passing or failing.  Every figure comes from the one struct
 * the harness filled (struct bench_figures).
 */
#ifndef PMUBOOT_BENCH_CHECK_H
#define PMUBOOT_BENCH_CHECK_H

#include "bench/harness.h"
#include "bench/kernels.h"
#include "lib/record.h"

#define CHECK_EV_MIN_MILLI 750
#define CHECK_EV_MAX_MILLI 1500
#define CHECK_CONTROL_MAX_MILLI 100

struct check_input {
	struct rec *r;			/* record buffer to build the checks in */
	const struct bench_def *d;
	const char *arena;		/* "4k", "2m", "fallback" or NULL */
	const struct bench_figures *variant;
	const struct bench_figures *control;	/* NULL when there is none (or it was not measured) */
	bool counting;			/* events were counted for this variant */
	const struct event_set *set;	/* NULL when the core's events are unknown */
	bool emulator;			/* timing is meaningless (TCG) */
};

enum check_status { CHECK_SKIP, CHECK_PASS, CHECK_FAIL, CHECK_UNSTABLE };

struct check_tally {
	unsigned pass, fail, skip, unstable;
};

/* Emit the variant's `check` records (none for controls and sweep points). */
void bench_checks(const struct check_input *in, struct check_tally *tally);

/* A variant not run here (its `needs` are not usable): one `check` record, what "runs", status skip, and why. */
void bench_check_skipped(const struct check_input *in, const char *reason, struct check_tally *tally);

/* Short lower-case name of one role bit, e.g. "stlf_block". */
const char *bench_role_name(uint32_t role_bit);

#endif
