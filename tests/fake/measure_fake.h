/*
 * tests/fake/measure_fake.h - bench/harness.h's bench_measure for unit
 * tests: the one place the harness reads a clock, made the fake CPU's.
 *
 * bench/measure.asm reads the real TSC around the kernel, so on a busy host
 * a preemption inside a run made a unit test's figures (and which samples
 * were rejected, and how many runs were made) depend on the host's
 * scheduling (issue 30).  This bench_measure runs the same sequence - the
 * start list, the clock, the kernel (really run: its memory effects are
 * the real kernel's), the clock, the stop list - but the clock is the fake
 * TSC (tests/fake/hw_fake.h) and a run advances it by what the run costs on
 * the fake CPU:
 *
 *   FAKE_MEASURE_OVERHEAD + trips x ticks per trip (+ what a test adds)
 *
 * (and the fake TSC's own step between the two reads: hw_fake.h fake_tsc_set)
 *
 * at one core clock per TSC tick: platform/calib.asm's chain one tick per add, its
 * independent-add block (the contention probe) FAKE_ADDS_PER_TICK adds a tick,
 * a variant of bench/kernels.c its dependency chain (chain_min, at least one
 * tick an iteration), any other kernel (the memory ladder's, a user's) one
 * tick an iteration of BENCH_UNROLL.  The cycles MSR (c->cycles_msr) is read
 * through hw_rdmsr before and after and moves only as the test moves it.
 *
 * The Makefile links this file's object ahead of the libraries into every
 * unit test, so bench/measure.asm is never linked there.
 */
#ifndef PMUBOOT_TESTS_FAKE_MEASURE_FAKE_H
#define PMUBOOT_TESTS_FAKE_MEASURE_FAKE_H

#include <stdint.h>

#include "bench/harness.h"

/* Ticks a run costs beyond its trips (the call, the TSC reads): the same in every run, so N/2N cancels it. */
#define FAKE_MEASURE_OVERHEAD 40u
/* The fake core's integer width: the contention probe's adds per tick when nothing shares the core. */
#define FAKE_ADDS_PER_TICK 4u

/*
 * Extra ticks for run number `run` (1 = the first bench_measure since
 * fake_measure_reset): a disturbance the window did not see, a cold buffer.
 * Called inside the run, between the two clock reads.
 */
typedef uint64_t (*fake_measure_extra_fn)(unsigned run, const struct bench_call *c);

/* Run count back to 0, no extra ticks. */
void fake_measure_reset(void);
void fake_measure_extra(fake_measure_extra_fn fn);
/* bench_measure calls since fake_measure_reset. */
unsigned fake_measure_runs(void);
/* What a run of c->trips trips costs on the fake CPU without extras (the model above). */
uint64_t fake_measure_ticks(const struct bench_call *c);

#endif
