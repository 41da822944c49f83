/*
 * platform/timing_common.h - the parts of timing_init that are the same on
 * bare metal (platform/metal/timing_metal.c) and on Linux (linux/timing_linux.c):
 * reading CPUID's frequency leaves, and the add-chain calibration of core
 * cycles against the TSC inside measurement windows.  Portable.
 */
#ifndef PMUBOOT_PLATFORM_TIMING_COMMON_H
#define PMUBOOT_PLATFORM_TIMING_COMMON_H

#include "platform/timing.h"
#include "platform/tsc_math.h"

/*
 * The platform's measurement of the TSC against an independent clock, into
 * d->measured (or d->measure_problem): ACPI PM timer / HPET / firmware Stall
 * on bare metal, CLOCK_MONOTONIC_RAW on Linux.
 */
void timing_measure_tsc(struct timing_detail *d);

/* Invariant TSC, CPUID 15h/16h figures (hw_cpuid). */
void timing_read_cpuid(struct timing_info *t, struct timing_detail *d);

/* Choose the TSC figure from d's candidates into t (tsc_choose). */
void timing_choose(struct timing_info *t, struct timing_detail *d);

/* core_per_tsc_milli from the add chain, each run inside its own window; polluted runs are re-run. */
void timing_calibrate_core(struct timing_info *t, struct timing_detail *d);

#endif
