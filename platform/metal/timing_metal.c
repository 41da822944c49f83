/*
 * platform/metal/timing_metal.c - platform/timing.h on bare metal.
 *
 * CPUID gives the invariant-TSC bit and, on Intel, often the frequency
 * (leaf 15h, or 16h's nominal base).  The TSC is always also measured
 * against an independent clock: the ACPI PM timer, else a running HPET,
 * else the firmware's Stall; each measurement runs inside an interrupts-off
 * window, and the error is stated.  tsc_choose decides which figure is
 * used and says why.  Then the add chain calibrates core cycles per tick.
 */
#include "platform/timing.h"
#include "platform/metal/refclock.h"
#include "platform/timing_common.h"
#include "platform/hw.h"
#include "platform/firmware.h"
#include "lib/libc.h"
#include "lib/muldiv.h"

#define MEASURE_RUNS 3
#define MEASURE_MS 40
#define MS_PER_S 1000u
#define MEASURE_GIVE_UP_TSC (1ull << 34)	/* seconds on any CPU: the reference is dead */
#define STALL_US 40000u
#define STALL_TOLERANCE_PPM 20000	/* UEFI states no accuracy for Stall; 2% is an assumption */
#define US_PER_S 1000000u

static struct timing_detail *detail;

static bool measure_against(const struct ref_clock *c)
{
	struct tsc_sample s[MEASURE_RUNS];
	unsigned n = 0;

	for (unsigned i = 0; i < MEASURE_RUNS; i++) {
		struct hw_window w;
		bool win = hw_window_enter(&w);
		bool ok = tsc_measure(c, c->hz * MEASURE_MS / MS_PER_S, MEASURE_GIVE_UP_TSC, &s[n]);
		if (win)
			hw_window_leave(&w);
		if (ok && !(win && hw_window_polluted(&w)))
			n++;
	}
	if (!n)
		return false;
	detail->measured_runs = n;
	detail->ref_hz = c->hz;
	return tsc_combine(s, n, c->tolerance_ppm, c->name, &detail->measured, &detail->measured_spread_ppm);
}

static void measure(struct timing_detail *d)
{
	detail = d;
	struct ref_clock c;
	static char why_pm[96], why_hpet[96], why_all[256];

	if (refclock_pm_timer(&c, why_pm, sizeof(why_pm)) && measure_against(&c))
		return;
	if (c.name && !detail->measured.hz)
		snprintf(why_pm, sizeof(why_pm), "the PM timer did not advance");
	if (refclock_hpet(&c, why_hpet, sizeof(why_hpet)) && measure_against(&c))
		return;
	if (c.name && !detail->measured.hz)
		snprintf(why_hpet, sizeof(why_hpet), "the HPET did not advance");

	/* Last resort: the firmware's Stall, outside any window (a boot service may turn interrupts on). */
	snprintf(why_all, sizeof(why_all), "PM timer: %s; HPET: %s", why_pm, why_hpet);
	detail->measure_problem = why_all;
	uint64_t t0 = hw_tsc();
	fw_stall_us(STALL_US);
	uint64_t t1 = hw_tsc();
	if (t1 > t0) {
		detail->measured.hz = muldiv64(t1 - t0, US_PER_S, STALL_US);
		detail->measured.error_ppm = STALL_TOLERANCE_PPM;
		detail->measured.source = "firmware_stall";
		detail->measured.how = "one firmware Stall";
		detail->measured_runs = 1;
		detail->ref_hz = US_PER_S;
		return;
	}
	snprintf(why_all, sizeof(why_all), "PM timer: %s; HPET: %s; Stall: TSC did not advance", why_pm, why_hpet);
	detail->measure_problem = why_all;
}

void timing_measure_tsc(struct timing_detail *d)
{
	measure(d);
	/* The firmware seam's wait on another processor needs the rate; it is given, never asked for. */
	fw_stall_tsc_hz(d->measured.hz ? d->measured.hz : d->have_c15 ? d->c15.hz : d->have_c16 ? d->c16.hz : 0);
}
