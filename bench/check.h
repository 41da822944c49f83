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
 * nothing, and reference checks when cycles are raw TSC ticks.
 */
#ifndef PMUBOOT_BENCH_CHECK_H
#define PMUBOOT_BENCH_CHECK_H

#include "bench/kernels.h"
#include "bench/stats.h"
#include "lib/record.h"

#define CHECK_EV_MIN_MILLI 750
#define CHECK_EV_MAX_MILLI 1500
#define CHECK_CONTROL_MAX_MILLI 100

/* One counted event of a measured variant. */
struct check_event {
	const char *name;
	uint32_t roles;			/* enum event_role bits of the event */
	struct bench_figure fig;	/* per iteration, thousandths */
};

/* What one measured variant (or its control) showed. */
struct check_side {
	bool measured;
	struct bench_figure cycles;	/* per iteration, thousandths */
	const struct check_event *ev;
	size_t nev;
};

struct check_input {
	struct rec *r;			/* record buffer to build the checks in */
	const struct bench_def *d;
	const char *arena;		/* "4k", "2m", "fallback" or NULL */
	struct check_side variant, control;	/* control.measured false when there is none */
	bool counting;			/* events were counted for this variant */
	const struct event_set *set;	/* NULL when the core's events are unknown */
	bool cycles_uncalibrated;	/* cycles are raw TSC ticks */
	bool cycles_self_calibrated;	/* cycles were calibrated on this very kernel (add chain) */
	bool emulator;			/* timing is meaningless (TCG) */
};

struct check_tally {
	unsigned pass, fail, skip;
};

/* Emit the variant's `check` records (none for controls and sweep points). */
void bench_checks(const struct check_input *in, struct check_tally *tally);

/* Short lower-case name of one role bit, e.g. "stlf_block". */
const char *bench_role_name(uint32_t role_bit);

#endif
