/*
 * bench/stats.h - the arithmetic of the measurements, in integers.
 *
 * No floating point exists in the image, so every fractional figure is an
 * integer in thousandths ("milli").  Samples are signed 64-bit: a
 * differential (2N run minus N run) can come out negative when a
 * disturbance hits the N run; such a sample is rejected (stats_judge), not
 * kept.  docs/benchmarks.md gives the rules below with their reasoning.
 */
#ifndef PMUBOOT_BENCH_STATS_H
#define PMUBOOT_BENCH_STATS_H

#include "lib/libc.h"

/*
 * Outliers: a kept sample whose distance from the median exceeds
 * STATS_OUTLIER_Z_MILLI / 1000 "modified z-scores", where the modified
 * z-score is 0.6745 x |x - median| / MAD (Iglewicz and Hoaglin, "How to
 * Detect and Handle Outliers", 1993, who recommend 3.5): |x - median| >
 * 5.19 MAD.  For normally distributed noise that is 3.5 standard
 * deviations, so a clean sample is called an outlier about once in 2000.
 * The MAD used is never below the samples' resolution (the smallest step
 * between two distinct samples: a TSC that advances in steps makes a
 * steady figure two-valued, MAD 0), nor below STATS_MAD_FLOOR_PERMILLE of
 * |median|, nor below one thousandth (the figures' unit): a steady figure
 * does not call its last-digit jitter an outlier.
 */
#define STATS_OUTLIER_Z_MILLI 3500
#define STATS_MAD_NORMAL_1E4 6745		/* 0.6745 in ten-thousandths: the MAD of a standard normal distribution */
#define STATS_MAD_FLOOR_PERMILLE 10	/* 1% of |median| */

/*
 * Unstable: a figure is marked when, after its budget, fewer samples were
 * kept than wanted ("disturbed" when most of the samples thrown away were
 * disturbed - the machine was not quiet - else "budget"); when more than 1
 * in STATS_UNSTABLE_OUTLIER_DIV of the
 * kept samples are outliers (the "outliers" are then the behaviour, not a
 * disturbance); or, for time figures, when the interquartile range exceeds
 * STATS_UNSTABLE_IQR_PERMILLE of the median (and STATS_UNSTABLE_IQR_FLOOR
 * thousandths: near zero a relative spread means nothing).
 */
#define STATS_UNSTABLE_OUTLIER_DIV 4
#define STATS_UNSTABLE_IQR_PERMILLE 100
#define STATS_UNSTABLE_IQR_FLOOR 50

enum stats_unstable {
	STATS_STABLE,
	STATS_UNSTABLE_BUDGET,		/* fewer samples kept than wanted: the budget ran out */
	STATS_UNSTABLE_OUTLIERS,	/* too many outliers */
	STATS_UNSTABLE_SPREAD,		/* interquartile range too wide */
	STATS_UNSTABLE_DISTURBED,	/* fewer samples kept than wanted, most of those thrown away disturbed */
	STATS_UNSTABLE_CONTENDED,	/* fewer samples kept than wanted, most thrown away as contended */
};
/* Short name for records ("budget", "outliers", "spread", "disturbed", "contended"); NULL for STATS_STABLE. */
const char *stats_unstable_name(enum stats_unstable u);

/*
 * A figure over the kept samples, all in the samples' unit.  min and max
 * are those of the inliers: the outliers are counted and their extremes
 * given apart (out_lo, out_hi), never folded into min/max.  median, q1, q3
 * and mad are over every kept sample (inliers and outliers): they are
 * robust to a few outliers by construction.
 */
struct bench_figure {
	int64_t min, median, max;
	uint32_t n;			/* samples kept (inliers + outliers) */
	int64_t q1, q3;			/* quartiles (linear interpolation between ranks) */
	int64_t mad;			/* median absolute deviation from the median */
	uint32_t outliers;		/* kept samples beyond the outlier rule */
	int64_t out_lo, out_hi;		/* lowest and highest outlier (valid when outliers > 0) */
	uint32_t rejected;		/* samples rejected as impossible while this figure was taken */
	enum stats_unstable unstable;
};

/*
 * Sort s[0..n) and summarise it (outliers by the rule above).  The median
 * of an even count is the mean of the two middle values, rounded towards
 * minus infinity.  n == 0 gives all zeros.  rejected and unstable are left
 * for the caller (stats_judge_figure).
 */
void stats_summarise(int64_t *s, size_t n, struct bench_figure *out);

/*
 * The differential: per-iteration value in thousandths from a run of
 * `base` iterations that measured base_v and one of 2*base iterations that
 * measured main_v: (main_v - base_v) * 1000 / base, rounded to nearest.
 * Everything the two runs share (call, set-up, timer reads, counter
 * toggles) cancels.
 */
int64_t stats_differential_milli(uint64_t base_v, uint64_t main_v, uint64_t base);

/*
 * Why a sample is not kept.  A sample is one window: an N run and a 2N run.
 *   NEGATIVE     a time or a count of the 2N run is below the N run's:
 *                the differential would be negative, which no kernel does.
 *   N_2N         the 2N run took more than twice the N run (plus
 *                STATS_N2N_SLACK_PERCENT): with a shared overhead o >= 0,
 *                2N run = o + 2Nc <= 2 (o + Nc) = 2 x N run, so the 2N run
 *                was disturbed.
 *   BELOW_CHAIN  fewer cycles per iteration than the kernel's dependency
 *                chain allows (less STATS_CHAIN_SLACK_PERCENT for the error
 *                of TSC-to-cycles calibration).
 *   DISTURBED    the window saw an SMI or NMI (host: a context switch).
 *   CONTENDED    the harness's contention probe beside the sample ran slower
 *                than its best (bench/harness.h struct bench_contention):
 *                another thread shared the core.  Like DISTURBED, not an
 *                impossible sample: taken again.
 */
enum stats_fate {
	STATS_KEPT,
	STATS_REJECT_NEGATIVE,
	STATS_REJECT_N_2N,
	STATS_REJECT_BELOW_CHAIN,
	STATS_REJECT_CLOCK,
	STATS_REJECT_DISTURBED,
	STATS_REJECT_CONTENDED,
	STATS_FATES
};
#define STATS_N2N_SLACK_PERCENT 10
/*
 * The chain floor's slack: what the figure's own error can justify, no more.
 * Cycles from the TSC carry the error of their calibration, so the slack is
 * STATS_CHAIN_SLACK_SPREADS times the calibration's measured spread ((max -
 * min) / median of its samples: one spread for the calibration, one for the
 * sample's own timer jitter), never below STATS_CHAIN_SLACK_MIN_PERMILLE (the
 * timer's granularity at the harness's target span) nor above
 * STATS_CHAIN_SLACK_PERCENT (the old fixed slack, for a calibration so noisy
 * that nothing tighter holds).  Counted cycles and APERF carry no calibration:
 * the minimum.
 */
#define STATS_CHAIN_SLACK_PERCENT 10
#define STATS_CHAIN_SLACK_MIN_PERMILLE 5
#define STATS_CHAIN_SLACK_SPREADS 2
/*
 * CLOCK: a sample whose own calibration moved while it ran: the add chain's
 * N run before the kernel's runs and its 2N run after them (bench/harness.c)
 * are not in the ratio 2 within the variant's reference calibration's
 * measured spread (at least STATS_CLOCK_FLOOR_PERMILLE, the finest step the
 * samples resolve, at most STATS_CLOCK_CEIL_PERMILLE): the core clock moved
 * under the TSC inside the window.
 * A sample whose clock held is kept whatever clock that was: its ticks
 * convert with its own figure (a host's clock steps between 1.38 and 1.57
 * cycles per tick from one millisecond to the next, and the reference taken
 * before the variant may be either).
 */
#define STATS_CLOCK_FLOOR_PERMILLE 1
/*
 * ... and never more than STATS_CLOCK_CEIL_PERMILLE, whatever the reference's
 * spread: that spread is between samples, and on a host whose clock steps
 * from one millisecond to the next it spans the steps (28% on the Xeon KVM
 * host), not the noise of one sample's chain.  A sample whose clock moved
 * converts its kernel's ticks with a figure that belongs to neither clock:
 * there, kept samples of one kernel whose chain had moved under 0.5% sat
 * within 1% of their median (9 in 10 of them), those that moved 0.5-1% were
 * 0.9% off (the median), and those that moved 2-27% were 3.6-7.6% off and
 * up to 37%, in both directions; and the contention probe, converted with
 * the same figure, let them through as quiet.
 */
#define STATS_CLOCK_CEIL_PERMILLE 5
/* Short name for records: "kept", "negative", "n_2n", "below_chain", "clock", "disturbed", "contended". */
const char *stats_fate_name(enum stats_fate f);

/* A time series (TSC ticks, cycles): NEGATIVE or N_2N, else KEPT. */
enum stats_fate stats_judge_time(uint64_t base_v, uint64_t main_v);
/*
 * The N and 2N runs of a TSC series held to each other tightly, where nothing but the kernel and the
 * call's small fixed overhead o is in them (no counters toggled, runs of STATS_N2N_TIGHT_MIN_TICKS or
 * more): 2N run = o + 2Nc and N run = o + Nc, so o = 2 x N run - 2N run lies in 0..o_max.  A stall that
 * lands in one run only (seen on the development host: about 2,400 ticks, in half the runs of vector
 * kernels, never in the add chain) moves that o by the stall and the differential by the same amount:
 * 10% high or low on a 24,000-tick run, with every sample of the figure agreeing.  N_2N when o is below
 * -STATS_N2N_TIGHT_UNDER_PERMILLE or above STATS_N2N_TIGHT_OVER_PERMILLE of the N run, else KEPT.
 */
#define STATS_N2N_TIGHT_MIN_TICKS 10000u
#define STATS_N2N_TIGHT_UNDER_PERMILLE 10
#define STATS_N2N_TIGHT_OVER_PERMILLE 50
enum stats_fate stats_judge_runs_tight(uint64_t base_v, uint64_t main_v);
/* A count series: NEGATIVE, else KEPT. */
enum stats_fate stats_judge_count(uint64_t base_v, uint64_t main_v);
/*
 * A per-iteration cycles figure (thousandths) against the kernel's chain
 * (cycles per iteration, thousandths; 0: no chain), less slack_permille
 * (stats_chain_slack_permille): BELOW_CHAIN or KEPT.
 */
enum stats_fate stats_judge_chain(int64_t cycles_milli, int64_t chain_milli, int64_t slack_permille);
/* The slack a calibration of this spread (thousandths; <= 0: exact cycles, no calibration) justifies. */
int64_t stats_chain_slack_permille(int64_t calib_spread_milli);
/* A sample's calibration runs (TSC ticks of the N run before, the 2N run after) against the reference's
 * spread (thousandths): CLOCK or KEPT. */
enum stats_fate stats_judge_clock(uint64_t cal_n, uint64_t cal_2n, int64_t ref_spread_milli);

/*
 * Adaptive iterations: the count that makes one run span at least
 * target_ticks, from a pilot run of pilot_iters that took pilot_ticks
 * (its differential, so overheads are out): pilot_iters x target /
 * pilot_ticks rounded up to a multiple of unroll, never below min_iters.
 * Capped where a run would span more than max_ticks (the time budget; 0:
 * none) or exceed max_iters; *capped says the cap, not the target, decided.
 * A pilot that saw no ticks at all gives the cap.
 */
/*
 * One pilot window's estimate of an N run's ticks from its N run (n) and 2N run (n2): their differential,
 * but never under half the N run.  A differential below that means one of the two runs was held back
 * (another thread on the core, an interrupt) and says nothing of the kernel: on the shared development
 * host such windows (differentials of 0 to tens of ticks at 256 iterations) extrapolated to the most
 * iterations allowed, pilots of over a second each and most of a full instruction table's time.  Half the
 * N run errs long, which costs a sample short of the target (chosen again from the kept samples), never a
 * run a thousand times too long.
 */
uint64_t stats_pilot_ticks(uint64_t n, uint64_t n2);
/*
 * The iterations, from `iters` whose run spanned `ticks`, that keep one run
 * within max_ticks: a multiple of unroll, at least one unroll, rounded down
 * (iters itself when it fits or max_ticks is 0).
 */
uint32_t stats_fit_window(uint32_t iters, uint32_t unroll, uint64_t ticks, uint64_t max_ticks);
uint32_t stats_choose_iterations(uint32_t min_iters, uint32_t unroll, uint64_t pilot_iters, uint64_t pilot_ticks,
				 uint64_t target_ticks, uint64_t max_ticks, uint32_t max_iters, bool *capped);

/* a * mul / div rounded to nearest, exact for any int64 a and 64-bit mul, div (div > 0). */
int64_t stats_scale(int64_t a, uint64_t mul, uint64_t div);

/* (max - min) / median in thousandths; 0 when the median is not positive. */
int64_t stats_spread_milli(const struct bench_figure *f);
/* (q3 - q1) / median in thousandths; 0 when the median is not positive. */
int64_t stats_iqr_milli(const struct bench_figure *f);

/* Scale every value of a figure by mul/div (e.g. TSC ticks to core cycles). */
void stats_figure_scale(struct bench_figure *f, uint64_t mul, uint64_t div);

/*
 * Sample accounting for one pass: rejected and disturbed samples are
 * thrown away and re-taken, at most `budget` in all.
 */
struct stats_take {
	uint32_t wanted;		/* good samples wanted */
	uint32_t good;			/* samples kept */
	uint32_t budget;		/* most samples thrown away before giving up */
	uint32_t thrown;		/* samples thrown away, all reasons */
	uint32_t by[STATS_FATES];	/* samples per fate (by[STATS_KEPT] == good) */
};
void stats_take_init(struct stats_take *t, uint32_t wanted, uint32_t budget);
/* Record one sample's fate; true while more should be taken. */
bool stats_take_note(struct stats_take *t, enum stats_fate fate);
/* One more sample may be thrown away before the budget runs out (the harness's patience with contention). */
void stats_take_extend(struct stats_take *t);
/* True when the budget ran out before `wanted` good samples were kept. */
bool stats_take_exhausted(const struct stats_take *t);
/* Samples rejected as impossible (every fate but KEPT, DISTURBED and CONTENDED). */
uint32_t stats_take_rejected(const struct stats_take *t);

/*
 * After stats_summarise: note the pass's rejections and decide stability
 * (time: the IQR rule applies).
 */
void stats_judge_figure(struct bench_figure *f, const struct stats_take *t, bool time);

#endif
