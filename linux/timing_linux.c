/*
 * linux/timing_linux.c - platform/timing.h under Linux, for pmuboot-host.
 *
 * The same figures as the image: CPUID 15h/16h where the CPU gives them,
 * checked against a measurement, and the add-chain calibration
 * (platform/timing_common.c).  The independent clock here is
 * clock_gettime(CLOCK_MONOTONIC_RAW); when the kernel's clocksource is the
 * TSC itself, that clock is the TSC scaled by the kernel's own calibration,
 * and the record says so.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "platform/timing.h"
#include "platform/timing_common.h"
#include "platform/hw.h"
#include "linux/hw_linux.h"

#define NS_PER_S 1000000000ull
#define MEASURE_RUNS 5
#define MEASURE_NS 10000000ull
#define MEASURE_GIVE_UP_TSC (1ull << 34)
/* The kernel keeps CLOCK_MONOTONIC_RAW without NTP correction: its error is its clocksource's
 * calibration, which Linux does not publish; 100 ppm is stated as an assumption. */
#define MONO_RAW_TOLERANCE_PPM 100
#define CLOCKSOURCE_PATH "/sys/devices/system/clocksource/clocksource0/current_clocksource"

static struct timing_detail *detail;
static char how[128];

static uint64_t mono_raw_ns(void *ctx)
{
	(void)ctx;
	return hw_linux_mono_raw_ns();
}

static void clocksource(char *buf, size_t cap)
{
	FILE *f = fopen(CLOCKSOURCE_PATH, "r");
	snprintf(buf, cap, "unknown");
	if (!f)
		return;
	if (fgets(buf, (int)cap, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

void timing_measure_tsc(struct timing_detail *d)
{
	detail = d;
	struct ref_clock c = { "clock_monotonic_raw", mono_raw_ns, NULL, UINT64_MAX, NS_PER_S, MONO_RAW_TOLERANCE_PPM };
	struct tsc_sample s[MEASURE_RUNS];
	unsigned n = 0;
	char src[32];

	/*
	 * No window here: the TSC and the clock both run on while the thread is switched out, so a
	 * preemption only matters at the two ends, and there it shows in the sample's own
	 * uncertainty (the TSC time around the edge), which its error bound carries.
	 */
	for (unsigned i = 0; i < MEASURE_RUNS; i++)
		if (tsc_measure(&c, MEASURE_NS, MEASURE_GIVE_UP_TSC, &s[n]))
			n++;
	if (!n || !tsc_combine(s, n, c.tolerance_ppm, c.name, &detail->measured, &detail->measured_spread_ppm)) {
		detail->measure_problem = "CLOCK_MONOTONIC_RAW did not advance";
		return;
	}
	clocksource(src, sizeof(src));
	snprintf(how, sizeof(how), "median of %u; kernel clocksource %s%s", n, src,
		 strcmp(src, "tsc") == 0 ? " (the TSC itself, as the kernel calibrated it)" : "");
	detail->measured.how = how;
	detail->measured_runs = n;
	detail->ref_hz = NS_PER_S;
}
