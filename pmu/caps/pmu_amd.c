/*
 * pmu/caps/pmu_amd.c - AMD (and Hygon) core counters as pmu_flavour.h rows.
 * Sources are those of msr_amd.h: [BKDG-K8] and [BKDG10] the legacy four
 * counters, [BKDG15] the six-counter extension with stride 2, [PPR19]
 * PerfMonV2's global registers.  Every row has 48-bit counters; from Family
 * 10h the event select is 12 bits, bits 11:8 in PERF_CTL[35:32].
 */
#include "pmu/caps/pmu_flavour.h"
#include "lib/x86/msr_amd.h"

#define AMD_SELECT                                                                                     \
	.sel_en = AMD_CTL_EN, .sel_usr = AMD_CTL_USR, .sel_os = AMD_CTL_OS, .sel_edge = AMD_CTL_EDGE,    \
	.sel_inv = AMD_CTL_INV, .sel_int = AMD_CTL_INT, .umask_shift = AMD_CTL_UMASK_SHIFT, .cmask_shift = AMD_CTL_CMASK_SHIFT,   \
	.fallback_width = AMD_COUNTER_WIDTH
/* Family 10h on: a 12-bit event select, bits 11:8 in PERF_CTL[35:32]. */
#define AMD_EVENT12 .event_max = AMD_EVENT_MAX, .event_hi_shift = AMD_CTL_EVENT_HI_SHIFT
/* The six-counter layouts carry the Merge event of Family 17h's large-increment pairs (msr_amd.h);
 * the scheduler pairs events only on families whose rules say so (events/amd_rules.csv). */
#define AMD_MERGE .merge_event = AMD_MERGE_EVENT

const struct pmu_flavour pmu_flavours_amd[] = {
	/* K7/K8: the event select is 8 bits; PERF_CTL[63:32] are reserved [BKDG-K8]. */
	{ .name = "amd-k8", .label = "AMD K7/K8 PMU (4 counters)", .kind = PMU_AMD_LEGACY,
	  .sel_base = MSR_K7_PERF_CTL0, .ctr_base = MSR_K7_PERF_CTR0, .stride = 1,
	  .max_gp = AMD_LEGACY_COUNTERS, .fallback_gp = AMD_LEGACY_COUNTERS, AMD_SELECT,
	  .event_max = 0xFF, .toggle = TOGGLE_EACH_SELECT },
	{ .name = "amd-legacy", .label = "AMD legacy PMU (4 counters)", .kind = PMU_AMD_LEGACY,
	  .min_family = AMD_FAMILY_EVENT_HI, .sel_base = MSR_K7_PERF_CTL0, .ctr_base = MSR_K7_PERF_CTR0,
	  .stride = 1, .max_gp = AMD_LEGACY_COUNTERS, .fallback_gp = AMD_LEGACY_COUNTERS, AMD_SELECT,
	  AMD_EVENT12, .toggle = TOGGLE_EACH_SELECT },
	{ .name = "amd-core-ext", .label = "AMD core performance counter extension", .kind = PMU_AMD_CORE_EXT,
	  .sel_base = MSR_F15H_PERF_CTL0, .ctr_base = MSR_F15H_PERF_CTR0, .stride = AMD_CORE_EXT_STRIDE,
	  .max_gp = AMD_CORE_EXT_COUNTERS, .fallback_gp = AMD_CORE_EXT_COUNTERS, AMD_SELECT, AMD_EVENT12,
	  AMD_MERGE, .toggle = TOGGLE_EACH_SELECT },
	{ .name = "amd-perfmon-v2", .label = "AMD PerfMonV2", .kind = PMU_AMD_V2,
	  .sel_base = MSR_F15H_PERF_CTL0, .ctr_base = MSR_F15H_PERF_CTR0, .stride = AMD_CORE_EXT_STRIDE,
	  .max_gp = 16, .fallback_gp = AMD_CORE_EXT_COUNTERS, AMD_SELECT, AMD_EVENT12, AMD_MERGE,
	  .toggle = TOGGLE_GLOBAL,
	  .global_ctrl = MSR_AMD_PERF_GLOBAL_CTL, .global_status = MSR_AMD_PERF_GLOBAL_STATUS,
	  .global_ovf_clear = MSR_AMD_PERF_GLOBAL_STATUS_CLR, .ovf_clear_name = "PerfCntrGlobalStatusClr" },
};
const size_t pmu_flavours_amd_n = ARRAY_SIZE(pmu_flavours_amd);
