/*
 * bench/instr_estimate.h - how long the chosen instruction forms should take to measure (instr=; docs/instr.md
 * "In the image"): before the run, from the harness's own arithmetic (bench_variant_ticks: its pilot,
 * samples, budget and calibrations) for each measurement the pack gives the chosen forms; during it, from
 * the rate measured so far.  Arithmetic only, so the unit tests check it with figures they choose.
 */
#ifndef PMUBOOT_BENCH_INSTR_ESTIMATE_H
#define PMUBOOT_BENCH_INSTR_ESTIMATE_H

#include "bench/harness.h"

struct instr_estimate {
	uint64_t ms;   /* 0: not known (no TSC rate, or iterations fixed and no calibration to time them by) */
	bool at_least; /* iterations fixed (an emulator): each instance timed as one add of the calibration, a floor */
};

/* `measurements` kernels measured under hs, the harness's set-up as the stage calibrated it; tsc_hz 0: unknown. */
void instr_estimate_before(const struct bench_setup *hs, uint64_t tsc_hz, uint64_t measurements,
			   struct instr_estimate *e);

/* What is left at the rate so far: `done` of `total` measurements took spent_ms (0 when none is done). */
uint64_t instr_estimate_left_ms(uint64_t spent_ms, uint64_t done, uint64_t total);

/* Forms a minute at the rate so far (0 when no time has passed). */
uint64_t instr_estimate_per_minute(uint64_t spent_ms, uint64_t forms);

#endif
