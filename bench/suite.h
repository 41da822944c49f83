/*
 * bench/suite.h - the benchmark stage: choose the variants (`bench=`), set up
 * counting, time and memory, measure every variant in table order, and emit
 * `bench_setup`, one `bench` record per variant (as soon as it is measured)
 * and its `check` records.  docs/benchmarks.md describes the kernels and
 * docs/results-format.md the records.
 */
#ifndef PMUBOOT_BENCH_SUITE_H
#define PMUBOOT_BENCH_SUITE_H

#include "pmu/cpu/cpu.h"

/* Which arena page sizes the split kernels run in (arena_page=). */
#define BENCH_PAGES_4K (1u << 0)
#define BENCH_PAGES_2M (1u << 1)

/* What the stage needs from the run: its options, already checked, and the CPU it runs on. */
struct bench_params {
	const char *bench;	/* bench=: comma list of kernel[.variant], "all", "none" */
	const char *events;	/* events=: extra events, ';'-separated specs */
	unsigned iterations, reps, warmup;
	unsigned pages;		/* BENCH_PAGES_* */
	bool image;		/* in the UEFI image (APERF is read there only) */
	const struct cpu_info *cpu;
};

void bench_stage(const struct bench_params *p);

#endif
