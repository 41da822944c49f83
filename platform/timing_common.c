/* platform/timing_common.c - see timing_common.h. */
#include "platform/timing_common.h"
#include "platform/hw.h"
#include "platform/calib.h"
#include "lib/libc.h"
#include "lib/x86/cpuid.h"

#define CPUID_TSC_LEAF 0x15u		/* Intel SDM Vol. 2A, CPUID leaf 15H */
#define CPUID_FREQ_LEAF 0x16u		/* leaf 16H */
#define CORE_RUNS 7
#define CORE_MAX_ATTEMPTS 21
#define CORE_ITERATIONS 16384u		/* x 64 adds: about 1M cycles, under a millisecond on silicon */

void timing_read_cpuid(struct timing_info *t, struct timing_detail *d)
{
	struct cpuid_regs r0, r1, r;

	hw_cpuid(0, 0, &r0);
	hw_cpuid(1, 0, &r1);
	struct cpuid_signature sig = cpuid_decode_signature(r1.eax, cpuid_vendor_is_amd_like(r0.ebx, r0.edx, r0.ecx));

	hw_cpuid(CPUID_LEAF_EXT_MAX, 0, &r);
	if (r.eax >= CPUID_LEAF_EXT_POWER) {
		hw_cpuid(CPUID_LEAF_EXT_POWER, 0, &r);
		t->invariant_tsc = (r.edx & CPUID_EXT_POWER_EDX_INVARIANT_TSC) != 0;
	}
	if (r0.eax >= CPUID_FREQ_LEAF) {
		hw_cpuid(CPUID_FREQ_LEAF, 0, &r);
		d->c16_base_mhz = r.eax & 0xFFFF;
		d->c16_max_mhz = r.ebx & 0xFFFF;
		d->c16_bus_mhz = r.ecx & 0xFFFF;
		d->have_c16 = d->c16_base_mhz != 0;
		if (d->have_c16)
			tsc_from_cpuid16(d->c16_base_mhz, &d->c16);
	}
	if (r0.eax >= CPUID_TSC_LEAF) {
		hw_cpuid(CPUID_TSC_LEAF, 0, &r);
		d->c15_eax = r.eax;
		d->c15_ebx = r.ebx;
		d->c15_ecx = r.ecx;
		d->have_c15 = r.eax && r.ebx;
		if (d->have_c15)
			tsc_from_cpuid15(r.eax, r.ebx, r.ecx, sig.family, sig.model, d->c16_base_mhz, &d->c15);
	}
}

void timing_choose(struct timing_info *t, struct timing_detail *d)
{
	struct tsc_figure chosen;
	tsc_choose(&d->c15, &d->c16, &d->measured, &chosen, d->note, sizeof(d->note));
	t->tsc_hz = chosen.hz;
	t->tsc_source = chosen.hz ? chosen.source : "unknown";
	t->tsc_error_ppm = chosen.error_ppm;
}

void timing_calibrate_core(struct timing_info *t, struct timing_detail *d)
{
	uint64_t ratio[CORE_RUNS];
	unsigned n = 0, attempts = 0;
	bool unwindowed = false;

	(void)calib_add_chain(CORE_ITERATIONS);	/* warm the code and the branch predictor */
	while (n < CORE_RUNS && attempts++ < CORE_MAX_ATTEMPTS) {
		struct hw_window w;
		bool win = hw_window_enter(&w);
		uint64_t t0 = hw_tsc();
		uint64_t adds = calib_add_chain(CORE_ITERATIONS);
		uint64_t t1 = hw_tsc();
		if (win)
			hw_window_leave(&w);
		else
			unwindowed = true;
		if (win && hw_window_polluted(&w)) {
			d->core_dropped++;
			continue;
		}
		d->core_adds = adds;
		int64_t r = core_per_tsc_milli(adds, t1 - t0);
		ratio[n++] = r > 0 ? (uint64_t)r : 0;
	}
	d->core_runs = n;
	if (!n) {
		snprintf(d->core_note, sizeof(d->core_note), "every calibration run was disturbed (%u dropped)",
			 d->core_dropped);
		return;
	}
	t->core_per_tsc_milli = (int64_t)u64_median(ratio, n);
	t->core_spread_milli = spread_milli(ratio, n);
	t->core_source = "add_chain";
	if (unwindowed)
		snprintf(d->core_note, sizeof(d->core_note), "no interrupts-off window was available");
	else if (t->exec == EXEC_EMULATED)
		snprintf(d->core_note, sizeof(d->core_note),
			 "emulated (QEMU TCG): the clocks are the emulator's and say nothing about any silicon");
	else if (t->exec == EXEC_VIRTUALISED)
		snprintf(d->core_note, sizeof(d->core_note),
			 "virtualised: the core is real, the hypervisor may interrupt and may present its own TSC rate");
}

static struct timing_info info;
static struct timing_detail detail;
static bool done;

const struct timing_info *timing_init(enum cpu_exec exec)
{
	if (done)
		return &info;
	info.exec = exec;
	timing_read_cpuid(&info, &detail);
	timing_measure_tsc(&detail);
	timing_choose(&info, &detail);
	timing_calibrate_core(&info, &detail);
	done = true;
	return &info;
}

const struct timing_info *timing_get(void) { return &info; }

const struct timing_info *timing_recalibrate(void)
{
	if (done)
		timing_calibrate_core(&info, &detail);
	return &info;
}

void timing_report(const struct timing_info *t) { timing_emit(t, &detail); }
