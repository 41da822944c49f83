/*
 * pmu/caps/pmu_caps.h - what performance-monitoring hardware this CPU has.
 *
 * Derived from CPUID (and IA32_PERF_CAPABILITIES / MSR_SMI_COUNT through the
 * safe accessors), never assumed from the model number alone.  Anything
 * absent carries the reason in words, for the `pmu` record.
 */
#ifndef PMUBOOT_PMU_CAPS_PMU_CAPS_H
#define PMUBOOT_PMU_CAPS_PMU_CAPS_H

#include "lib/libc.h"
#include "lib/record.h"
#include "cpu/cpu.h"

enum pmu_kind {
	PMU_NONE,		/* no usable counters (see absent_reason) */
	PMU_INTEL_P6,		/* P6 family: 2 x 40-bit, PerfEvtSel0.EN enables both */
	PMU_INTEL_ARCH,		/* architectural PMU, version 1..5+ (CPUID.0AH) */
	PMU_AMD_LEGACY,		/* K7-style 4 counters at C001_0000/C001_0004 */
	PMU_AMD_CORE_EXT,	/* 6 counters at C001_0200 + 2n (CPUID 8000_0001h ECX[23]) */
	PMU_AMD_V2,		/* PerfMonV2: core extension + global control (8000_0022h) */
};

struct pmu_caps {
	enum pmu_kind kind;
	const char *absent_reason;	/* why kind is PMU_NONE, or NULL */

	/* Intel architectural PMU (CPUID.0AH). */
	uint8_t version;
	uint8_t n_gp, gp_width;
	uint8_t n_fixed, fixed_width;
	uint8_t arch_events_len;	/* EAX[31:24] */
	uint32_t arch_events_absent;	/* EBX: a set bit means that event is NOT available */
	uint32_t fixed_bitmap;		/* ECX (v5+): fixed counters supported, bit per counter */
	bool any_thread_deprecated;	/* EDX[15] */
	uint32_t fixed_mask;		/* fixed counters usable: bit i = ECX[i] || EDX[4:0] > i (SDM Vol. 2A, 0AH) */
	bool fixed_assumed;		/* n_fixed/fixed_width not from CPUID: see fixed_note */
	const char *fixed_note;
	bool arch_ext;			/* CPUID.23H present (CPUID.(07H,1):EAX[8]) */
	uint32_t ext_gp_mask, ext_fixed_mask;	/* CPUID.(23H,1):EAX / EBX */

	/* IA32_PERF_CAPABILITIES (when CPUID.1:ECX.PDCM). */
	bool pdcm;
	bool perf_caps_read;		/* the MSR was readable */
	uint64_t perf_caps;
	bool full_width_write;		/* bit 13: IA32_A_PMCx aliases */
	bool freeze_while_smm;		/* bit 12 */
	uint8_t pebs_format;		/* bits 11:8 */
	uint8_t lbr_format;		/* bits 5:0 */
	bool pebs_trap;			/* bit 6 */
	bool pebs_arch_regs;		/* bit 7 */
	bool pebs_baseline;		/* bit 14 */
	bool perf_metrics;		/* bit 15 */
	const char *perf_caps_reason;	/* why perf_caps is not known, or NULL */

	bool smi_count;			/* MSR_SMI_COUNT (0x34) readable */
	const char *smi_count_reason;	/* why not, or NULL */
	bool aperf_mperf;		/* CPUID.6:ECX[0] */

	/* AMD. */
	bool amd_core_ext;		/* CPUID 8000_0001h ECX[23] PerfCtrExtCore */
	bool amd_v2;			/* CPUID 8000_0022h EAX[0] PerfMonV2 */
	uint8_t amd_n_counters;		/* 4, 6, or 8000_0022h EBX[3:0] */
	bool amd_nb_ext;		/* 8000_0001h ECX[24] PerfCtrExtNB (data fabric counters) */
	bool amd_llc_ext;		/* 8000_0001h ECX[28] PerfCtrExtLLC (L3 counters) */
	uint8_t amd_n_nb, amd_n_umc;	/* 8000_0022h EBX[15:10], EBX[21:16] */
	bool amd_lbr_v2;		/* 8000_0022h EAX[1] LbrStack */
	uint8_t amd_lbr_depth;		/* 8000_0022h EBX[9:4] */

	/*
	 * Under a hypervisor, CPUID may advertise counters that do not count
	 * (QEMU TCG: PMU MSRs read 0 and ignore writes).  The first counter is
	 * then checked: a value written to it while disabled must read back.
	 */
	bool probed;			/* the check ran */
	char note[160];			/* its outcome, or other detail; "" if none */

	/* AMD IBS (CPUID 8000_0001h ECX[10]; flags from 8000_001Bh EAX). */
	bool ibs;
	bool ibs_flags_valid;		/* 8000_001Bh EAX[0] IBSFFV */
	uint32_t ibs_flags;
	const char *ibs_absent_reason;
	const char *ibs_note;		/* e.g. why the flags are not valid, or NULL */
};

/* Names for the record: "none", "intel_p6", ... */
const char *pmu_kind_name(enum pmu_kind k);
/* Name of IBS capability flag `bit` of CPUID 8000_001Bh EAX, or NULL for a reserved bit. */
const char *pmu_ibs_flag_name(unsigned bit);
/* Name of architectural event `bit` of CPUID.0AH:EBX, or NULL beyond the known ones. */
const char *pmu_arch_event_name(unsigned bit);

void pmu_caps_detect(const struct cpu_info *ci, struct pmu_caps *c);
/*
 * The general and fixed counters of an Intel architectural PMU, as bit masks: CPUID.(23H,1):EAX
 * and EBX where leaf 23H enumerates them (sub-leaf 1 valid: CPUID.(23H,0):EAX[1]) - the view of
 * this core type on a hybrid part, whose CPUID.0AH is common to all types (Meteor Lake P-cores
 * have fixed counter 3 only there) - else CPUID.0AH: EAX[15:8] general counters, fixed_mask.
 * 0 for other PMUs.  The counter driver and the PMU model both count on these.
 */
uint32_t pmu_caps_gp_mask(const struct pmu_caps *c);
uint32_t pmu_caps_fixed_mask(const struct pmu_caps *c);
/* Add the capability fields to a `pmu` record under construction. */
void pmu_caps_fields(struct rec *r, const struct pmu_caps *c);
/* One or two readable lines. */
void pmu_caps_summary(const struct pmu_caps *c);

#endif
