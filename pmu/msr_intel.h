/*
 * pmu/msr_intel.h - Intel performance-monitoring MSRs and their bit fields.
 *
 * Sources:
 *   [SDM4]  Intel SDM Vol. 4, Table 2-2 "IA-32 Architectural MSRs" (addresses),
 *           and "MSRs in the P6 Family Processors" (P6 addresses).
 *   [ARCH]  Intel SDM Vol. 3B, chapter "Performance Monitoring" (ch. 20 in the
 *           2023 editions, ch. 18 before): §"Architectural Performance
 *           Monitoring Version 1" .. "Version 5" and their figures.
 *   [FW]    same chapter, §"Full-Width Writes to Performance Counter Registers".
 *   [P6]    same chapter, §"Performance Monitoring (P6 Family Processor)":
 *           "PerfEvtSel0 and PerfEvtSel1 MSRs", "PerfCtr0 and PerfCtr1 MSRs".
 *   [CORE]  same chapter, §"Performance Monitoring for Processors Based on
 *           Intel Core Microarchitecture" and the NOTE in §"Architectural
 *           Performance Monitoring Version 2" on early Core parts.
 */
#ifndef PMUBOOT_PMU_MSR_INTEL_H
#define PMUBOOT_PMU_MSR_INTEL_H

/* General counters and their event selects [SDM4]. */
#define MSR_IA32_PMC0			0x0C1u	/* IA32_PMCx = 0xC1 + x; P6: PerfCtr0/1 at 0xC1/0xC2 */
#define MSR_IA32_PERFEVTSEL0		0x186u	/* IA32_PERFEVTSELx = 0x186 + x; P6: PerfEvtSel0/1 */
#define MSR_IA32_A_PMC0			0x4C1u	/* full-width write alias of IA32_PMCx [FW] */

/* IA32_PERF_CAPABILITIES [SDM4]: bit 13 FW_WRITE says the IA32_A_PMCx aliases exist [FW]. */
#define MSR_IA32_PERF_CAPABILITIES	0x345u
#define PERF_CAP_FW_WRITE		(1ull << 13)

/* Fixed-function counters, architectural version 2 and later [ARCH v2]. */
#define MSR_IA32_FIXED_CTR0		0x309u	/* IA32_FIXED_CTRx = 0x309 + x */
#define MSR_IA32_FIXED_CTR_CTRL		0x38Du
#define MSR_IA32_PERF_GLOBAL_STATUS	0x38Eu
#define MSR_IA32_PERF_GLOBAL_CTRL	0x38Fu
/* Version 2/3 name it IA32_PERF_GLOBAL_OVF_CTRL; version 4 renames it
 * IA32_PERF_GLOBAL_STATUS_RESET with the same write-1-to-clear meaning [ARCH v4]. */
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL	0x390u
#define MSR_IA32_PERF_GLOBAL_STATUS_RESET 0x390u
#define MSR_IA32_PERF_GLOBAL_STATUS_SET	0x391u	/* version 4: write 1 to set a status bit */

/* IA32_PERFEVTSELx fields [ARCH v1, figure "Layout of IA32_PERFEVTSELx MSRs"]. */
#define EVTSEL_EVENT_MASK		0xFFull		/* bits 7:0 event select */
#define EVTSEL_UMASK_SHIFT		8		/* bits 15:8 unit mask */
#define EVTSEL_USR			(1ull << 16)	/* count at CPL > 0 */
#define EVTSEL_OS			(1ull << 17)	/* count at CPL 0 */
#define EVTSEL_EDGE			(1ull << 18)
#define EVTSEL_PC			(1ull << 19)	/* pin control */
#define EVTSEL_INT			(1ull << 20)	/* APIC interrupt on overflow (never set here) */
#define EVTSEL_ANY			(1ull << 21)	/* AnyThread: version 3+, unless CPUID.0AH:EDX[15] */
#define EVTSEL_EN			(1ull << 22)	/* P6: only in PerfEvtSel0, enables both [P6] */
#define EVTSEL_INV			(1ull << 23)
#define EVTSEL_CMASK_SHIFT		24		/* bits 31:24 counter mask */
/* Bits 31:0 are the architectural select; 63:32 are reserved here (TSX
 * qualifiers on some models are model-specific and not used). */
#define EVTSEL_ARCH_BITS		0xFFFFFFFFull

/* IA32_FIXED_CTR_CTRL: a 4-bit field per fixed counter [ARCH v2, figure
 * "Layout of IA32_FIXED_CTR_CTRL MSR"]; AnyThread (bit 2) from version 3. */
#define FIXED_CTRL_FIELD_BITS		4
#define FIXED_CTRL_OS			0x1ull	/* ENABLE bit 0: ring 0 */
#define FIXED_CTRL_USR			0x2ull	/* ENABLE bit 1: ring > 0 */
#define FIXED_CTRL_ANY			0x4ull
#define FIXED_CTRL_PMI			0x8ull
#define FIXED_CTRL_FIELD_MASK		0xFull

/* IA32_PERF_GLOBAL_CTRL / STATUS / OVF_CTRL: bit n = IA32_PMCn, bit 32+n =
 * IA32_FIXED_CTRn [ARCH v2].  At reset GLOBAL_CTRL has every general
 * counter's bit set and the fixed counters' bits clear, so legacy software
 * that only sets PERFEVTSELx.EN keeps working. */
#define GLOBAL_FIXED_SHIFT		32
/* OVF_CTRL bits 62 (ClrOvfBuffer) and 63 (ClrCondChgd) [ARCH v2]; version 4
 * adds further reset bits in 63:55 [ARCH v4]. */
#define GLOBAL_OVF_V2_EXTRA		(3ull << 62)
#define GLOBAL_OVF_V4_EXTRA		(0x1FFull << 55)

/* Fixed counters of the pre-enumeration parts (Core 2, Bonnell) [CORE]:
 * three 40-bit fixed counters although CPUID.0AH:EDX may report none. */
#define CORE2_FIXED_COUNTERS		3

/* Counter widths where CPUID does not give one. */
#define P6_COUNTER_WIDTH		40	/* [P6] */
#define P6_COUNTERS			2	/* [P6] */

#endif
