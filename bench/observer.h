/*
 * bench/observer.h - things that watch benchmark kernels run (AMD IBS).
 *
 * Observers reach the benchmark stage through its parameters (struct
 * bench_params, filled from the run environment by run/run.c), never
 * through a registry.  The harness measures each variant first; then, for
 * every observer, it runs the same kernel again inside the interrupts-off window
 * with the observer's hooks around each slice, so sampling never disturbs
 * the measured figures.  An observer emits its own records per variant.
 */
#ifndef PMUBOOT_BENCH_OBSERVER_H
#define PMUBOOT_BENCH_OBSERVER_H

#include "lib/libc.h"

struct bench_variant_id {
	const char *kernel;	/* e.g. "store_forward" */
	const char *variant;	/* e.g. "size_mismatch" */
	uint32_t arena_page;	/* 4096, 2 MiB, or 0 when not relevant */
};

struct bench_observer {
	const char *name;
	/* Number of kernel runs (slices) the observer wants per variant. */
	unsigned slices;
	void (*variant_begin)(void *ctx, const struct bench_variant_id *id);
	/* Called inside the interrupts-off window, right before/after each kernel run. */
	void (*slice_begin)(void *ctx);
	void (*slice_end)(void *ctx);
	void (*variant_end)(void *ctx, const struct bench_variant_id *id);
	void *ctx;
};

/* Observers a run may pass to the benchmark stage at once. */
#define BENCH_MAX_OBSERVERS 4

#endif
