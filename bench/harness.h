/*
 * bench/harness.h - measuring one benchmark variant.
 *
 * A sample is one pass through the interrupts-off window (kernel/hw.h) in
 * which the kernel runs `iterations` times and then 2 x `iterations` times
 * (bench/measure.asm around each run: counter start list, TSC, kernel,
 * TSC, stop list).  The sample's value is the difference of the two runs
 * divided by `iterations`, so every cost the runs share - call, set-up,
 * timer reads, counter toggles - cancels ("differential_n_2n").  Samples
 * whose window saw an SMI or NMI (on the host: a context switch) are
 * dropped and re-taken, within a budget.  After `warmup` unmeasured
 * samples, `reps` samples give min, median and max per figure; with more
 * events than counters, the whole thing is repeated per counter pass.
 */
#ifndef PMUBOOT_BENCH_HARNESS_H
#define PMUBOOT_BENCH_HARNESS_H

#include "pmu/count/count.h"
#include "bench/kernels.h"
#include "bench/stats.h"

/* One run of a kernel; the layout is read by bench/measure.asm. */
struct bench_call {
	bench_kernel_fn kernel;
	uint64_t trips;
	uint8_t *p, *q;
	const struct count_toggle *start, *stop;	/* NULL: no MSR writes */
	uint64_t tsc_start, tsc_end;			/* out */
	uint32_t cycles_msr;				/* read around the kernel (IA32_APERF), 0: none */
	uint32_t reserved;
	uint64_t cyc_start, cyc_end;			/* out */
};
void bench_measure(struct bench_call *c);
extern const uint8_t bench_measure_end[];

#define BENCH_METHOD "differential_n_2n"

struct bench_setup {
	uint32_t iterations;		/* body copies per run (a multiple of BENCH_UNROLL) */
	uint32_t reps, warmup;
	uint32_t drop_budget;		/* polluted samples dropped at most, per pass */
	const struct count_backend *cb;	/* NULL: no counting */
	uint32_t cycles_msr;		/* IA32_APERF when it may be read raw (image, checked), else 0 */
	int64_t *pool;			/* sample storage */
	size_t pool_cap;		/* in samples */
	/*
	 * Tests only (NULL in the image and on the host): apply the counters'
	 * start/stop lists from C (count_toggle_apply) instead of in
	 * bench/measure.asm, and report each run's iterations to a modelled
	 * PMU (tests/fake/fake_pmu.h) between them, so the harness can be run
	 * against the real MSR backend without touching real MSRs.
	 */
	void (*model_work)(void *ctx, uint64_t iterations);
	void *model_ctx;
};

struct bench_event_result {
	struct bench_figure fig;	/* events per iteration, thousandths */
	bool ok;			/* measured */
};

struct bench_result {
	uint32_t iterations;
	uint32_t reps;			/* samples wanted per pass (reps, or fewer if storage ran short) */
	uint32_t dropped;		/* polluted samples thrown away, all passes */
	bool exhausted;			/* a pass ran out of drop budget with fewer samples than wanted */
	bool windowed;			/* every sample was inside an established interrupts-off window */
	unsigned passes;
	struct bench_figure tsc;	/* TSC ticks per iteration, thousandths (first pass) */
	struct bench_figure aperf;	/* cycles_msr counts per iteration (first pass; n = 0 without it) */
	struct bench_event_result ev[COUNT_MAX_EVENTS];	/* indexed like the count set's events */
	char problem[160];		/* counting trouble, "" when none */
};

/*
 * Measure variant d with p and q inside `window`.  set (NULL when not
 * counting) holds the events to count; it is scheduled here.  Returns
 * false only when nothing at all could be measured (problem says why).
 */
bool bench_run_variant(const struct bench_setup *s, const struct bench_def *d, uint8_t *window,
		       struct count_set *set, struct bench_result *r);

/*
 * TSC ticks to core cycles from the add chain (1 cycle per add): core
 * cycles per TSC tick in millionths, and the calibration's spread in
 * thousandths.  False when the TSC did not advance (no usable TSC).
 */
bool bench_calibrate(const struct bench_setup *s, uint8_t *window, int64_t *core_per_tsc_ppm,
		     int64_t *spread_milli);

/* Run the registered observers (bench/observer.h) over variant d, after it was measured. */
void bench_observe(const struct bench_setup *s, const struct bench_def *d, uint8_t *window, uint32_t arena_page);

#endif
