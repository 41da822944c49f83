/*
 * pmu/caps/pmu_p6.c - the P6 family PMU (Pentium Pro, II, III, Pentium M) as a
 * pmu_flavour.h row.  [P6] in msr_intel.h: two 40-bit counters, PerfEvtSel0/1
 * at 0x186/0x187 and PerfCtr0/1 at 0xC1/0xC2; the EN bit exists only in
 * PerfEvtSel0 and switches both counters; a counter write keeps bits 31:0
 * and sign-extends them.
 */
#include "pmu/caps/pmu_flavour.h"
#include "lib/x86/msr_intel.h"

const struct pmu_flavour pmu_flavours_p6[] = {
	{ .name = "intel-p6", .label = "Intel P6 family PMU", .kind = PMU_INTEL_P6,
	  .sel_base = MSR_IA32_PERFEVTSEL0, .ctr_base = MSR_IA32_PMC0, .stride = 1, .ctr_write_sext32 = true,
	  .max_gp = P6_COUNTERS, .fallback_gp = P6_COUNTERS, .fallback_width = P6_COUNTER_WIDTH,
	  .sel_en = EVTSEL_EN, .sel_usr = EVTSEL_USR, .sel_os = EVTSEL_OS, .sel_edge = EVTSEL_EDGE,
	  .sel_inv = EVTSEL_INV, .sel_int = EVTSEL_INT, .umask_shift = EVTSEL_UMASK_SHIFT, .cmask_shift = EVTSEL_CMASK_SHIFT,
	  .event_max = 0xFF, .toggle = TOGGLE_SELECT0 },
};
const size_t pmu_flavours_p6_n = ARRAY_SIZE(pmu_flavours_p6);
