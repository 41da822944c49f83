/*
 * pmu/freq/freq_measure.c - the clock the core runs at, from APERF and MPERF.
 *
 * APERF counts actual core clocks and MPERF clocks of a fixed reference, both
 * only while the core is in C0 (SDM Vol. 3B §15.2, "Hardware Coordination
 * Feedback"; AMD APM Vol. 2, "Effective Frequency Interface").  MPERF's
 * reference is tied to the TSC's frequency on Intel (SDM Vol. 4 Table 2-2,
 * IA32_MPERF: it "increments at fixed interval (relative to TSC freq.)") and
 * is P0's on AMD, which the Family 10h BKDG's HWCR[24] TscFreqSel makes the
 * TSC's too (not verified for later families).  Taking MPERF at the TSC rate,
 *
 *     frequency = dAPERF / dMPERF x TSC frequency.
 *
 * That premise is checked in the same spin rather than assumed: with
 * interrupts off the core never leaves C0, so MPERF must tick with the TSC;
 * when it does not (a hypervisor's MPERF, Xeon Phi's scaled counters) the
 * figure is not reported.
 */
#include "pmu/freq/freq_int.h"
#include "platform/hw.h"
#include "lib/muldiv.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_intel.h"

#define SPIN_US 2000u			/* one sample */
#define SAMPLES_MAX 8u			/* a request takes effect within microseconds to a few ms */
#define AGREE_MILLI 5u			/* two samples in a row this close: the clock has settled */
#define MPERF_TSC_MILLI_TOLERANCE 10u	/* MPERF within 1% of the TSC's rate */
#define STUCK_READS 1000000u		/* the TSC read this often without moving: it does not run */
#define TSC_STUCK (-1000)		/* sample's own outcome beside the hw.h codes */
#define US_PER_S 1000000u
#define HZ_PER_MHZ 1000000u

struct sample {
	uint64_t dtsc, dmperf, daperf;
};

/* TSC, MPERF, APERF read in that order: both ends alike, so each difference spans the same time. */
static int read_three(uint64_t *t, uint64_t *m, uint64_t *a)
{
	*t = hw_tsc();
	int r = hw_rdmsr(MSR_IA32_MPERF, m);
	return r == HW_OK ? hw_rdmsr(MSR_IA32_APERF, a) : r;
}

/* HW_OK, an MSR read's fault, or TSC_STUCK. */
static int sample(uint64_t ticks, struct sample *s)
{
	struct hw_window w;
	uint64_t t0, m0 = 0, a0 = 0, t1 = 0, m1 = 0, a1 = 0;
	bool win = hw_window_enter(&w);
	int r = read_three(&t0, &m0, &a0);
	for (uint64_t t = t0, stuck = 0; r == HW_OK && t - t0 < ticks;) {
		uint64_t now = hw_tsc();
		if (now == t && ++stuck > STUCK_READS)
			r = TSC_STUCK;
		t = now;
	}
	if (r == HW_OK)
		r = read_three(&t1, &m1, &a1);
	if (win)
		hw_window_leave(&w);
	*s = (struct sample){ t1 - t0, m1 - m0, a1 - a0 };
	return r;
}

static uint32_t diff_milli(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;
	return b ? (uint32_t)muldiv64(d, 1000, b) : UINT32_MAX;
}

void freq_measure(uint64_t tsc_hz, struct freq_measurement *m)
{
	struct cpuid_regs r0, r6 = { 0 };
	uint64_t prev = 0;

	memset(m, 0, sizeof(*m));
	hw_cpuid(CPUID_LEAF_VENDOR, 0, &r0);
	if (r0.eax >= CPUID_LEAF_POWER)
		hw_cpuid(CPUID_LEAF_POWER, 0, &r6);
	if (!(r6.ecx & CPUID6_ECX_APERFMPERF)) {
		snprintf(m->why, sizeof(m->why), "no APERF/MPERF (CPUID.06H:ECX[0] clear)");
		return;
	}
	if (!tsc_hz) {
		snprintf(m->why, sizeof(m->why), "the TSC frequency is unknown, so MPERF's is too");
		return;
	}
	uint64_t ticks = tsc_hz / US_PER_S * SPIN_US;
	for (unsigned i = 0; i < SAMPLES_MAX; i++) {
		struct sample s;
		int r = sample(ticks, &s);
		if (r == TSC_STUCK) {
			snprintf(m->why, sizeof(m->why), "the TSC did not advance during the spin");
			return;
		}
		if (r != HW_OK) {
			snprintf(m->why, sizeof(m->why), "APERF/MPERF could not be read (%s)", freq_err_text(r));
			return;
		}
		if (!s.dmperf || !s.dtsc) {
			snprintf(m->why, sizeof(m->why), "MPERF did not count during a %u us spin", SPIN_US);
			return;
		}
		m->samples = i + 1;
		m->mperf_per_tsc_milli = (uint32_t)muldiv64(s.dmperf, 1000, s.dtsc);
		if (diff_milli(s.dmperf, s.dtsc) > MPERF_TSC_MILLI_TOLERANCE) {
			snprintf(m->why, sizeof(m->why),
				 "MPERF ticked %u.%03u times per TSC tick in a spin with interrupts off, not once: its rate "
				 "is not the TSC's here, so APERF/MPERF gives no frequency",
				 m->mperf_per_tsc_milli / 1000, m->mperf_per_tsc_milli % 1000);
			return;
		}
		uint64_t hz = muldiv64(s.daperf, tsc_hz, s.dmperf);
		m->mhz = (uint32_t)((hz + HZ_PER_MHZ / 2) / HZ_PER_MHZ);
		m->ok = true;
		if (prev && diff_milli(hz, prev) <= AGREE_MILLI) {
			m->settled = true;
			return;
		}
		prev = hz;
	}
}
