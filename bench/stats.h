/*
 * bench/stats.h - the arithmetic of the measurements, in integers.
 *
 * No floating point exists in the image, so every fractional figure is an
 * integer in thousandths ("milli").  Samples are signed 64-bit: a
 * differential (2N run minus N run) can come out negative when noise wins.
 */
#ifndef PMUBOOT_BENCH_STATS_H
#define PMUBOOT_BENCH_STATS_H

#include "lib/libc.h"

/* min, median, max over n samples; all in the samples' unit. */
struct bench_figure {
	int64_t min, median, max;
	uint32_t n;
};

/*
 * Sort s[0..n) and summarise it.  The median of an even count is the mean
 * of the two middle values, rounded towards minus infinity.  n == 0 gives
 * all zeros.
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

/* a * mul / div rounded to nearest, exact for any int64 a and 64-bit mul, div (div > 0). */
int64_t stats_scale(int64_t a, uint64_t mul, uint64_t div);

/* (max - min) / median in thousandths; 0 when the median is not positive. */
int64_t stats_spread_milli(const struct bench_figure *f);

/* Scale every field of a figure by mul/div (e.g. TSC ticks to core cycles). */
void stats_figure_scale(struct bench_figure *f, uint64_t mul, uint64_t div);

/*
 * Dropped-sample accounting for one figure: samples whose window was
 * polluted are thrown away and re-taken, at most `budget` times in all.
 */
struct stats_take {
	uint32_t wanted;	/* good samples wanted */
	uint32_t good;		/* good samples kept */
	uint32_t dropped;	/* polluted samples thrown away */
	uint32_t budget;	/* most drops allowed before giving up */
};
void stats_take_init(struct stats_take *t, uint32_t wanted, uint32_t budget);
/* Record one sample's fate; true while more should be taken (at most `budget` are ever dropped). */
bool stats_take_note(struct stats_take *t, bool polluted);
/* True when the budget ran out before `wanted` good samples were kept. */
bool stats_take_exhausted(const struct stats_take *t);

#endif
