/*
 * pmu/caps/pmu_intel.c - Intel architectural performance monitoring, versions 1 to 5,
 * as rows for pmu_flavour.h.  Sources are those of msr_intel.h: [ARCH] for
 * what each version adds, [FW] for the full-width aliases, [CORE] for the
 * fixed counters early Core 2 and Bonnell parts do not enumerate.
 */
#include "pmu/caps/pmu_flavour.h"
#include "lib/x86/msr_intel.h"

/* What every version shares: PERFEVTSELx / IA32_PMCx and the select layout [ARCH v1]. */
#define INTEL_GP                                                                                      \
	.kind = PMU_INTEL_ARCH, .sel_base = MSR_IA32_PERFEVTSEL0, .ctr_base = MSR_IA32_PMC0, .stride = 1, \
	.ctr_fw_base = MSR_IA32_A_PMC0, .ctr_write_sext32 = true, .max_gp = 16, .fallback_gp = 2,        \
	.fallback_width = 40, .sel_en = EVTSEL_EN, .sel_usr = EVTSEL_USR, .sel_os = EVTSEL_OS,           \
	.sel_edge = EVTSEL_EDGE, .sel_inv = EVTSEL_INV, .sel_int = EVTSEL_INT,                           \
	.umask_shift = EVTSEL_UMASK_SHIFT,                                                               \
	.cmask_shift = EVTSEL_CMASK_SHIFT, .event_max = 0xFF, .event0_fixed_only = true

/* Version 2 adds the global registers and the fixed counters [ARCH v2]. */
#define INTEL_GLOBAL                                                                                 \
	.toggle = TOGGLE_GLOBAL, .global_ctrl = MSR_IA32_PERF_GLOBAL_CTRL,                               \
	.global_status = MSR_IA32_PERF_GLOBAL_STATUS, .global_ovf_clear = MSR_IA32_PERF_GLOBAL_OVF_CTRL, \
	.global_fixed_shift = GLOBAL_FIXED_SHIFT, .fixed_ctrl = MSR_IA32_FIXED_CTR_CTRL,                 \
	.fixed_ctr_base = MSR_IA32_FIXED_CTR0, .fixed_field_bits = FIXED_CTRL_FIELD_BITS,               \
	.fixed_os = FIXED_CTRL_OS, .fixed_usr = FIXED_CTRL_USR, .fixed_pmi = FIXED_CTRL_PMI,             \
	.fixed_enable_mask = FIXED_CTRL_OS | FIXED_CTRL_USR

const struct pmu_flavour pmu_flavours_intel[] = {
	/* Version 1: no global control; each select's EN bit switches its counter. */
	{ .name = "intel-arch-v1", .label = "Intel architectural PMU version 1", .min_version = 1, INTEL_GP,
	  .toggle = TOGGLE_EACH_SELECT },
	{ .name = "intel-arch-v2", .label = "Intel architectural PMU version 2", .min_version = 2, INTEL_GP,
	  INTEL_GLOBAL, .ovf_clear_name = "IA32_PERF_GLOBAL_OVF_CTRL", .fixed_min_bare_metal = CORE2_FIXED_COUNTERS },
	/* Version 3 adds AnyThread in the select and in each fixed field. */
	{ .name = "intel-arch-v3", .label = "Intel architectural PMU version 3", .min_version = 3, INTEL_GP,
	  INTEL_GLOBAL, .ovf_clear_name = "IA32_PERF_GLOBAL_OVF_CTRL", .sel_any = EVTSEL_ANY,
	  .fixed_any = FIXED_CTRL_ANY, .fixed_min_bare_metal = CORE2_FIXED_COUNTERS },
	/* Version 4 renames OVF_CTRL to STATUS_RESET (same write-1-to-clear use); Ice Lake, a v4 part,
	 * brings PERF_METRICS (used only where IA32_PERF_CAPABILITIES[15] says so). */
	{ .name = "intel-arch-v4", .label = "Intel architectural PMU version 4", .min_version = 4, INTEL_GP,
	  INTEL_GLOBAL, .ovf_clear_name = "IA32_PERF_GLOBAL_STATUS_RESET", .sel_any = EVTSEL_ANY,
	  .fixed_any = FIXED_CTRL_ANY, .fixed_min_bare_metal = CORE2_FIXED_COUNTERS, .perf_metrics = true },
	/* Version 5 enumerates fixed counters by bitmap (CPUID.0AH:ECX). */
	{ .name = "intel-arch-v5", .label = "Intel architectural PMU version 5", .min_version = 5, INTEL_GP,
	  INTEL_GLOBAL, .ovf_clear_name = "IA32_PERF_GLOBAL_STATUS_RESET", .sel_any = EVTSEL_ANY,
	  .fixed_any = FIXED_CTRL_ANY, .fixed_bitmap = true, .perf_metrics = true },
};
const size_t pmu_flavours_intel_n = ARRAY_SIZE(pmu_flavours_intel);
