/*
 * bench/suite.h - the benchmark stage: choose the variants (`bench=`), set up
 * counting, time and memory, measure every variant in table order, and emit
 * `bench_setup`, one `bench` record per variant (as soon as it is measured)
 * and its `check` records.  docs/benchmarks.md describes the kernels and
 * docs/results-format.md the records.
 */
#ifndef PMUBOOT_BENCH_SUITE_H
#define PMUBOOT_BENCH_SUITE_H

#include "run.h"

void bench_stage(struct run_env *env);

#endif
