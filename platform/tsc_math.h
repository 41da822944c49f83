/*
 * platform/tsc_math.h - the arithmetic of honest time, shared by the image
 * (platform/metal/timing_metal.c) and the host (linux/timing_linux.c).
 *
 * Integer only (no floating point anywhere in the image).  Portable and
 * unit-tested: TSC frequency from CPUID 15h/16h, from a measurement against
 * a reference clock, the error of each, the choice between them, the
 * add-chain calibration figures, and the `timing` record.
 */
#ifndef PMUBOOT_PLATFORM_TSC_MATH_H
#define PMUBOOT_PLATFORM_TSC_MATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/timing.h"

#define PPM 1000000u

/* |a - b| / b in ppm (saturating). */
uint32_t ppm_diff(uint64_t a, uint64_t b);
/* Sorts v in place and returns the median (the lower middle for even n); 0 for n == 0. */
uint64_t u64_median(uint64_t *v, unsigned n);

/* One candidate figure for the TSC frequency. */
struct tsc_figure {
	uint64_t hz;		/* 0: none */
	uint32_t error_ppm;
	const char *source;	/* timing.h source names */
	const char *how;	/* e.g. "crystal from CPUID.15H:ECX" */
};

/*
 * CPUID 15h: TSC = crystal * EBX / EAX (Intel SDM Vol. 3B §20.7.3).  When
 * ECX (the crystal) is 0, the crystal comes from that section's table for the
 * few models it lists, else from CPUID 16h's base frequency.  False when
 * the leaf gives no ratio.
 */
bool tsc_from_cpuid15(uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t family, uint32_t model,
		      uint32_t base_mhz_16h, struct tsc_figure *out);
/* CPUID 16h base frequency in MHz: a nominal figure only (SDM Vol. 2A, CPUID leaf 16H note). */
bool tsc_from_cpuid16(uint32_t base_mhz, struct tsc_figure *out);

/* A reference clock: a counter of `mask` width ticking at hz. */
struct ref_clock {
	const char *name;		/* "acpi_pm_timer", "hpet", "clock_monotonic_raw" */
	uint64_t (*read)(void *ctx);
	void *ctx;
	uint64_t mask;
	uint64_t hz;
	uint32_t tolerance_ppm;		/* the reference's own accuracy, stated where it comes from */
};

struct tsc_sample {
	uint64_t dtsc, dref;
	uint64_t uncertainty;	/* TSC ticks: how far each end may be from the reference edge, summed */
	uint64_t hz;
	uint32_t error_ppm;	/* this sample's bound, reference tolerance excluded */
};

/*
 * One measurement: wait for a reference edge, read the TSC (hw_tsc), wait
 * ref_ticks more, align to the next edge, read the TSC.  Each end's
 * uncertainty is the TSC time of the reference read that saw the edge plus
 * the read before it.  Gives up (false) after max_tsc ticks without the
 * reference moving.
 */
bool tsc_measure(const struct ref_clock *r, uint64_t ref_ticks, uint64_t max_tsc, struct tsc_sample *s);
/* Sample error bound: uncertainty / dtsc in ppm, rounded up. */
uint32_t tsc_sample_error_ppm(uint64_t dtsc, uint64_t uncertainty);

/* Several samples into one figure: the median, its error the larger of its bound and the half-spread, plus the reference tolerance. */
bool tsc_combine(struct tsc_sample *s, unsigned n, uint32_t ref_tolerance_ppm, const char *source,
		 struct tsc_figure *out, uint32_t *spread_ppm);

/*
 * Pick the figure to use.  CPUID 15h wins unless a measurement disagrees
 * with it by more than both errors together (a hypervisor's invented leaf,
 * a wrong crystal); CPUID 16h is used only when it agrees and is the more
 * precise; otherwise the measurement.  note says what was done and why.
 */
void tsc_choose(const struct tsc_figure *c15, const struct tsc_figure *c16, const struct tsc_figure *measured,
		struct tsc_figure *chosen, char *note, size_t note_cap);

/* Core cycles per TSC tick in thousandths, from `adds` dependent 1-cycle adds over dtsc ticks. */
int64_t core_per_tsc_milli(uint64_t adds, uint64_t dtsc);
/* (max - min) / median in thousandths of already-sorted v. */
uint32_t spread_milli(const uint64_t *sorted, unsigned n);

/* What the `timing` record carries beyond struct timing_info. */
struct timing_detail {
	struct tsc_figure c15, c16, measured;
	uint32_t c15_eax, c15_ebx, c15_ecx;
	uint32_t c16_base_mhz, c16_max_mhz, c16_bus_mhz;
	bool have_c15, have_c16;
	unsigned measured_runs;
	uint32_t measured_spread_ppm;
	uint64_t ref_hz;
	const char *measure_problem;	/* why there is no measurement, or NULL */
	unsigned core_runs, core_dropped;
	uint64_t core_adds;
	char note[192];
	char core_note[128];
};

/* The `timing` record and a readable line. */
void timing_emit(const struct timing_info *t, const struct timing_detail *d);

#endif
