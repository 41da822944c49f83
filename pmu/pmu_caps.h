/*
 * pmu/pmu_caps.h - what performance-monitoring hardware this CPU has.
 *
 * Derived from CPUID (and IA32_PERF_CAPABILITIES / MSR_SMI_COUNT through the
 * safe accessors), never assumed from the model number alone.  Anything
 * absent carries the reason in words, for the `pmu` record.
 */
#ifndef PMUBOOT_PMU_PMU_CAPS_H
#define PMUBOOT_PMU_PMU_CAPS_H

#include "../lib/libc.h"
#include "../lib/record.h"
#include "cpu.h"

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

	/* IA32_PERF_CAPABILITIES (when CPUID.1:ECX.PDCM). */
	bool pdcm;
	bool perf_caps_read;		/* the MSR was readable */
	uint64_t perf_caps;
	bool full_width_write;		/* bit 13: IA32_A_PMCx aliases */
	bool freeze_while_smm;		/* bit 12 */
	uint8_t pebs_format;		/* bits 11:8 */

	bool smi_count;			/* MSR_SMI_COUNT (0x34) readable */
	bool aperf_mperf;		/* CPUID.6:ECX[0] */

	/* AMD. */
	bool amd_core_ext;		/* CPUID 8000_0001h ECX[23] PerfCtrExtCore */
	bool amd_v2;			/* CPUID 8000_0022h EAX[0] PerfMonV2 */
	uint8_t amd_n_counters;		/* 4, 6, or 8000_0022h EBX[3:0] */

	/* AMD IBS (CPUID 8000_0001h ECX[10]; flags from 8000_001Bh EAX). */
	bool ibs;
	bool ibs_flags_valid;		/* 8000_001Bh EAX[0] IBSFFV */
	uint32_t ibs_flags;
	const char *ibs_absent_reason;
};

void pmu_caps_detect(const struct cpu_info *ci, struct pmu_caps *c);
/* Add the capability fields to a `pmu` record under construction. */
void pmu_caps_fields(struct rec *r, const struct pmu_caps *c);
/* One or two readable lines. */
void pmu_caps_summary(const struct pmu_caps *c);

#endif
