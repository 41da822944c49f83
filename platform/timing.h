/*
 * platform/timing.h - honest time.
 *
 * The TSC frequency (from CPUID 0x15/0x16 where given, otherwise measured
 * against an independent clock with the error stated), invariant-TSC
 * detection, and the dependent-chain calibration that turns TSC ticks into
 * core cycles when no cycle counter exists.  Implemented for bare metal in
 * platform/ and for Linux in host/, behind this one interface.
 */
#ifndef PMUBOOT_PLATFORM_TIMING_H
#define PMUBOOT_PLATFORM_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/x86/cpuid.h"

struct timing_info {
	bool invariant_tsc;		/* CPUID 8000_0007h EDX[8] */
	uint64_t tsc_hz;		/* 0 when unknown */
	const char *tsc_source;		/* "cpuid_15h", "cpuid_16h", "acpi_pm_timer", "hpet", "firmware_stall", "linux" */
	uint32_t tsc_error_ppm;		/* error estimate of tsc_hz */
	/* Core cycles per TSC tick, in thousandths, from a 1-cycle-per-add chain. */
	int64_t core_per_tsc_milli;
	const char *core_source;	/* "add_chain" or NULL when not calibrated */
	uint32_t core_spread_milli;	/* (max-min)/median of the calibration runs, thousandths */
	enum cpu_exec exec;		/* from identification: emulated clocks say nothing about silicon */
};

/* Measure once (a few tens of ms); later calls return the same figures.  exec: struct cpu_info's. */
const struct timing_info *timing_init(enum cpu_exec exec);
const struct timing_info *timing_get(void);
/*
 * The core/TSC calibration again, on the processor calling it (a pass on
 * another core: a hybrid part's E-core runs at its own clock); the TSC
 * frequency stays the one timing_init found.
 */
const struct timing_info *timing_recalibrate(void);
/* TSC ticks in us microseconds at timing_get()'s frequency; 0 while it is unknown. */
static inline uint64_t timing_us_to_tsc(uint64_t us)
{
	return timing_get()->tsc_hz / 1000000u * us;
}

/* The `timing` record. */
void timing_report(const struct timing_info *t);

/*
 * Fields a higher layer adds to every later `timing` record, because the
 * figures depend on what it did (pmu/freq: the clock it pinned before they
 * were taken); NULL for none.  Kept beside the record (platform/tsc_math.c),
 * so platform/ names nothing above it.
 */
struct rec;
void timing_set_fields(void (*fields)(struct rec *r));

#endif
