/*
 * platform/calib.h - the add chain that calibrates core cycles against the
 * TSC (platform/calib.asm): the project's one calibration kernel, used by
 * platform/timing_common.c once per run and by the benchmark harness around
 * every variant (bench/harness.c).  Portable: the same code runs in the
 * image and on the host.
 */
#ifndef PMUBOOT_PLATFORM_CALIB_H
#define PMUBOOT_PLATFORM_CALIB_H

#include <stdint.h>

/* Dependent adds per iteration; platform/calib.asm says the same (its return value shows it). */
#define CALIB_ADDS_PER_ITER 64

/*
 * Runs iterations x CALIB_ADDS_PER_ITER dependent one-cycle adds; returns
 * the number of adds run.  Touches only RAX, RCX, RDX and no memory, so it
 * may also be called as a benchmark kernel k(trips, p, q) (bench/kernel.inc).
 */
uint64_t calib_add_chain(uint64_t iterations);

/*
 * Runs iterations x CALIB_ADDS_PER_ITER adds in independent chains, every
 * other one with its addend loaded from the caller's stack: as many a cycle as
 * the core's ALUs and load ports take, so another thread on the core slows it
 * where it does not slow the chain (the harness's contention probe,
 * bench/harness.c).  Touches only caller-saved registers; reads 32 bytes at
 * its stack pointer, writes no memory.
 */
void calib_add_block(uint64_t iterations);

#endif
