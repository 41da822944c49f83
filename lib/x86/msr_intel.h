/*
 * lib/x86/msr_intel.h - Intel performance-monitoring MSRs and their bit fields.
 *
 * Sources:
 *   [SDM4]  Intel SDM Vol. 4, Table 2-2 "IA-32 Architectural MSRs" (addresses),
 *           and "MSRs in the P6 Family Processors" (P6 addresses).
 *   [ARCH]  Intel SDM Vol. 3B, chapter "Performance Monitoring" (ch. 20 from the
 *           December 2022 edition, 325462-078, on; ch. 18 before): §20.2 "Architectural Performance
 *           Monitoring Version 1" .. "Version 5" and their figures.
 *   [FW]    same chapter, §"Full-Width Writes to Performance Counter Registers".
 *   [P6]    same chapter, §"Performance Monitoring (P6 Family Processor)":
 *           "PerfEvtSel0 and PerfEvtSel1 MSRs", "PerfCtr0 and PerfCtr1 MSRs".
 *   [CORE]  same chapter, §"Performance Monitoring for Processors Based on
 *           Intel Core Microarchitecture" and the NOTE in §"Architectural
 *           Performance Monitoring Version 2" on early Core parts.
 */
#ifndef PMUBOOT_LIB_X86_MSR_INTEL_H
#define PMUBOOT_LIB_X86_MSR_INTEL_H

/*
 * The one index of Intel-defined MSR addresses (architectural IA32_* MSRs,
 * which AMD implements too where it says so, and Intel model-specific
 * ones).  Every MSR number in the tree is defined here or in msr_amd.h,
 * once; the bit fields of the PMU registers sit beside their address.
 */

/* Platform and processor state [SDM4]. */
#define MSR_IA32_APIC_BASE		0x01Bu
#define APIC_BASE_EXTD			(1ull << 10)	/* x2APIC mode (SDM Vol. 3A §11.12.1) */
#define APIC_BASE_EN			(1ull << 11)	/* APIC global enable (SDM Vol. 3A §11.4.4) */
#define APIC_BASE_ADDR_MASK		0x000FFFFFFFFFF000ull
#define MSR_SMI_COUNT			0x034u	/* Nehalem and later: SMIs since reset, bits 31:0 (Table 2-20) */
/* IA32_BIOS_SIGN_ID; AMD's MSR0000_008B PATCH_LEVEL is the same address. */
#define MSR_MICROCODE_REV		0x08Bu
#define MSR_IA32_MPERF			0x0E7u	/* reference clocks in C0, "at fixed interval (relative to TSC
						 * freq.)" [SDM4: IA32_MPERF] (SDM Vol. 3B §15.2) */
#define MSR_IA32_APERF			0x0E8u	/* actual core clocks in C0 (SDM Vol. 3B §15.2) */
#define MSR_IA32_DEBUGCTL		0x1D9u

/*
 * Thermal and power-limit status (SDM Vol. 4 Table 2-2, MSRs 19CH and 1B1H;
 * SDM Vol. 3B §14.7.5.2 "Reading the Digital Sensor", §14.7.6 "Power Limit
 * Notification", §14.8 "Package Level Thermal Management"; §14.4.5 for bits
 * 12-15).  Even bits are status (RO), odd bits their sticky logs (R/WC0:
 * software clears a log by writing 0 to it).  Which bits exist is enumerated:
 *   IA32_THERM_STATUS, the MSR and bits 0-5: CPUID.01H:EDX[22] (ACPI);
 *     without the digital thermal sensor (CPUID.06H:EAX[0] clear: Pentium 4,
 *     Pentium M) bits 0-1 only, the TM1/TM2 layout ("Thermal Status
 *     Information", SDM Vol. 3B: bits 63:2 reserved);
 *     bits 6-9 (thresholds #1, #2): CPUID.01H:ECX[8] (TM2);
 *     bits 10-11 (power limitation): CPUID.06H:EAX[4] (PLN);
 *     bits 12-15 (current, cross-domain limit): CPUID.06H:EAX[7] (HWP);
 *   IA32_PACKAGE_THERM_STATUS, the MSR and bits 0-11: CPUID.06H:EAX[6] (PTM);
 *     bit 26 (HFI structure changed): CPUID.06H:EAX[19] (HFI).
 * Writing 1 to a bit that is not enumerated raises #GP (Linux commit
 * 117e4e5bd9d4, drivers/thermal/intel/therm_throt.c, 2023, which builds its
 * clear masks from these same CPUID bits).
 */
#define MSR_IA32_THERM_STATUS		0x19Cu	/* core scope */
#define MSR_IA32_PACKAGE_THERM_STATUS	0x1B1u	/* package scope */
#define THERM_STATUS_THERMAL		(1ull << 0)	/* PROCHOT# output active (TCC engaged) */
#define THERM_STATUS_PROCHOT_EXT	(1ull << 2)	/* PROCHOT# or FORCEPR# asserted by another agent */
#define THERM_STATUS_CRITICAL		(1ull << 4)	/* critical temperature detector */
#define THERM_STATUS_THRESHOLD1		(1ull << 6)	/* at or above thermal threshold #1 */
#define THERM_STATUS_THRESHOLD2		(1ull << 8)	/* at or above thermal threshold #2 */
#define THERM_STATUS_POWER_LIMIT	(1ull << 10)	/* below the requested P-state or duty cycle */
#define THERM_STATUS_CURRENT_LIMIT	(1ull << 12)	/* an electrical current limit in force */
#define THERM_STATUS_CROSS_DOMAIN	(1ull << 14)	/* another domain limits the core */
#define THERM_LOG_OF(status_bit)	((status_bit) << 1)	/* each status bit's log is the bit above it */
#define PKG_THERM_STATUS_HFI		(1ull << 26)	/* HFI structure changed: R/WC0, not ours to clear */
#define DEBUGCTL_FREEZE_LBRS_ON_PMI	(1ull << 11)	/* LBR recording freezes when a PMI is requested (SDM Vol. 3B §18.4.1) */
#define DEBUGCTL_FREEZE_PERFMON_ON_PMI	(1ull << 12)	/* counters freeze when a PMI is requested (SDM Vol. 3B §18.4.1) */
#define DEBUGCTL_FREEZE_WHILE_SMM	(1ull << 14)	/* SDM Vol. 3B §18.4.1 / §20.8.1 */
#define MSR_IA32_TSC_DEADLINE		0x6E0u	/* SDM Vol. 3A §11.5.4.1 */
#define MSR_IA32_PKRS			0x6E1u	/* CPUID.(7,0):ECX[31]; bits 63:32 reserved */
#define MSR_X2APIC_BASE			0x800u	/* x2APIC registers 800H-8FFH (SDM Vol. 3A §11.12.1.2) */
#define MSR_X2APIC_ICR			0x830u
#define MSR_IA32_EFER			0xC0000080u	/* SDM Vol. 3A §2.2.1 (AMD64 architectural) */

/*
 * The clock [CLK] (pmu/freq/).  Sources:
 *   [SDM3B-PM] Intel SDM Vol. 3B, chapter "Power and Thermal Management":
 *              "Hardware-Controlled Performance States (HWP)" (IA32_PM_ENABLE,
 *              IA32_HWP_CAPABILITIES, IA32_HWP_REQUEST), "Intel Turbo Boost
 *              Technology" / "Opportunistic processor performance operation"
 *              (IA32_PERF_CTL[32] IDA disengage, IA32_MISC_ENABLE[38]).
 *   [SDM4-SNB] SDM Vol. 4, "MSRs in Processors Based on Intel Microarchitecture
 *              Code Name Sandy Bridge" and later tables: MSR_PLATFORM_INFO
 *              ("Frequency = ratio * 100 MHz"), MSR_TURBO_RATIO_LIMIT.
 *   [LNX-IP]   Linux drivers/cpufreq/intel_pstate.c (facts only): PERF_CTL is
 *              written as ratio << 8 (core_get_val), bit 32 set for no-turbo;
 *              turbo ratio from MSR_TURBO_RATIO_LIMIT[7:0] (core_get_turbo_pstate);
 *              HWP levels are 100 MHz apart except on hybrid parts.
 */
#define MSR_PLATFORM_INFO		0x0CEu	/* [SDM4-SNB] read-only */
#define PLATFORM_INFO_MAX_NON_TURBO(v)	((uint32_t)(((v) >> 8) & 0xffu))	/* [15:8]: the TSC's ratio */
#define PLATFORM_INFO_MAX_EFFICIENCY(v)	((uint32_t)(((v) >> 40) & 0xffu))	/* [47:40]: the lowest ratio */
#define INTEL_BUS_MHZ			100u	/* [SDM4-SNB] MSR_PLATFORM_INFO: ratio * 100 MHz, Sandy Bridge on */
#define MSR_IA32_PERF_CTL		0x199u	/* [SDM4] Table 2-2, [SDM3B-PM] */
#define PERF_CTL_RATIO_SHIFT		8	/* [LNX-IP] core_get_val: target ratio in [15:8] */
#define PERF_CTL_RATIO_MASK		(0xffull << PERF_CTL_RATIO_SHIFT)
#define PERF_CTL_IDA_DISENGAGE		(1ull << 32)	/* [SDM4] Table 2-2: 1 = no turbo on this logical processor */
#define MSR_IA32_MISC_ENABLE		0x1A0u	/* [SDM4] Table 2-2; read only here */
#define MISC_ENABLE_TURBO_DISABLE	(1ull << 38)	/* package-wide, "BIOS only" [SDM3B-PM]; CPUID.06H:EAX[1] reads 0 then */
#define MSR_TURBO_RATIO_LIMIT		0x1ADu	/* [SDM4-SNB]; [7:0] the 1-core turbo ratio [LNX-IP] */
#define TURBO_RATIO_1C(v)		((uint32_t)((v) & 0xffu))
#define MSR_IA32_PM_ENABLE		0x770u	/* [SDM3B-PM] write-once: read here, never written */
#define PM_ENABLE_HWP			(1ull << 0)
#define MSR_IA32_HWP_CAPABILITIES	0x771u	/* [SDM3B-PM] */
#define HWP_CAP_HIGHEST(v)		((uint32_t)((v) & 0xffu))		/* [7:0] */
#define HWP_CAP_GUARANTEED(v)		((uint32_t)(((v) >> 8) & 0xffu))	/* [15:8] */
#define HWP_CAP_LOWEST(v)		((uint32_t)(((v) >> 24) & 0xffu))	/* [31:24] */
#define MSR_IA32_HWP_REQUEST		0x774u	/* [SDM3B-PM] per logical processor */
#define HWP_REQ_MIN_SHIFT		0	/* [7:0] minimum performance */
#define HWP_REQ_MAX_SHIFT		8	/* [15:8] maximum performance */
#define HWP_REQ_DESIRED_SHIFT		16	/* [23:16] desired (0: autonomous) */
#define HWP_REQ_FIELD			0xffull
#define HWP_REQ_PACKAGE_CONTROL		(1ull << 42)	/* 1: IA32_HWP_REQUEST_PKG governs this processor */

/* General counters and their event selects [SDM4]. */
#define MSR_IA32_PMC0			0x0C1u	/* IA32_PMCx = 0xC1 + x; P6: PerfCtr0/1 at 0xC1/0xC2 */
#define MSR_IA32_PERFEVTSEL0		0x186u	/* IA32_PERFEVTSELx = 0x186 + x; P6: PerfEvtSel0/1 */
#define MSR_IA32_A_PMC0			0x4C1u	/* full-width write alias of IA32_PMCx [FW] */

/* IA32_PERF_CAPABILITIES [SDM4]: bit 13 FW_WRITE says the IA32_A_PMCx aliases exist [FW]. */
#define MSR_IA32_PERF_CAPABILITIES	0x345u
#define PERF_CAP_LBR_FMT(v)		((uint8_t)((v) & 0x3f))
#define PERF_CAP_PEBS_TRAP		(1ull << 6)
#define PERF_CAP_PEBS_ARCH_REGS		(1ull << 7)
#define PERF_CAP_PEBS_FMT(v)		((uint8_t)(((v) >> 8) & 0xf))
#define PERF_CAP_FREEZE_WHILE_SMM	(1ull << 12)	/* SMM_FRZ (SDM Vol. 3B §20.8) */
#define PERF_CAP_FW_WRITE		(1ull << 13)
#define PERF_CAP_PEBS_BASELINE		(1ull << 14)
#define PERF_CAP_PERF_METRICS		(1ull << 15)

/* Fixed-function counters, architectural version 2 and later [ARCH v2]. */
#define MSR_IA32_FIXED_CTR0		0x309u	/* IA32_FIXED_CTRx = 0x309 + x */
#define MSR_IA32_FIXED_CTR_CTRL		0x38Du
#define MSR_IA32_PERF_GLOBAL_STATUS	0x38Eu
#define MSR_IA32_PERF_GLOBAL_CTRL	0x38Fu
/* Version 2/3 name it IA32_PERF_GLOBAL_OVF_CTRL; version 4 renames it
 * IA32_PERF_GLOBAL_STATUS_RESET with the same write-1-to-clear meaning [ARCH v4]. */
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL	0x390u
#define MSR_IA32_PERF_GLOBAL_STATUS_RESET MSR_IA32_PERF_GLOBAL_OVF_CTRL
#define MSR_IA32_PERF_GLOBAL_STATUS_SET	0x391u	/* version 4: write 1 to set a status bit */

/* Top-down metrics (Ice Lake and later P-cores; IA32_PERF_CAPABILITIES[15] PERF_METRICS):
 * IA32_PERF_METRICS holds 8-bit fractions of fixed counter 3 (TOPDOWN.SLOTS); GLOBAL_CTRL bit 48
 * enables it.  SDM Vol. 4 Table 2-2 (IA32_PERF_METRICS, IA32_PERF_GLOBAL_CTRL), Vol. 3B
 * §20.3.9.3 "Performance Metrics"; Linux msr-index.h MSR_PERF_METRICS.  Both start at 0; to reset them
 * write fixed counter 3 first, then PERF_METRICS (SDM Vol. 3B §20.3.9.3; Linux icl_set_topdown_event_period). */
#define MSR_IA32_PERF_METRICS		0x329u
#define GLOBAL_CTRL_EN_PERF_METRICS	(1ull << 48)
#define FIXED_TOPDOWN_SLOTS		3	/* the fixed counter PERF_METRICS derives from */

/* Extra MSRs some events need (SDM Vol. 4: Nehalem Table 2-15 on, Silvermont Table 2-6 on;
 * perfmon's MSRIndex): the offcore response selections for an event's two forms, and the
 * PEBS-only load-latency threshold and front-end selector. */
#define MSR_OFFCORE_RSP_0		0x1A6u
#define MSR_OFFCORE_RSP_1		0x1A7u
#define MSR_PEBS_LD_LAT			0x3F6u
#define MSR_PEBS_FRONTEND		0x3F7u

/* PERF_METRICS' level 1 (same sources as above): bytes 0-3 are retiring, bad speculation, frontend
 * bound, backend bound. */
#define PERF_METRICS_L1_FIELDS		4
#define PERF_METRICS_FIELD_BITS		8
#define PERF_METRICS_FULL		0xFFu	/* the level-1 fields sum to this (rounding aside) */
/* Golden Cove and later P-cores add bytes 4-7, level 2: heavy operations, branch mispredicts, fetch latency,
 * memory bound (Linux INTEL_TD_METRIC_HEAVY_OPS .. INTEL_TD_METRIC_MEM_BOUND; likwid TMA4..TMA7). */
#define PERF_METRICS_FIELDS		8
/* Each field's byte (SDM Vol. 3B §20.3.9.3 "Performance Metrics"; Linux INTEL_TD_METRIC_*): level 2 bytes 4-7 are
 * parts of level 1 bytes 0-3 in that order. */
#define PERF_METRICS_RETIRING		0
#define PERF_METRICS_BAD_SPEC		1
#define PERF_METRICS_FE_BOUND		2
#define PERF_METRICS_BE_BOUND		3
#define PERF_METRICS_HEAVY_OPS		4	/* part of retiring */
#define PERF_METRICS_BR_MISPREDICT	5	/* part of bad speculation */
#define PERF_METRICS_FETCH_LAT		6	/* part of frontend bound */
#define PERF_METRICS_MEM_BOUND		7	/* part of backend bound */

/* IA32_PERFEVTSELx fields [ARCH v1, figure "Layout of IA32_PERFEVTSELx MSRs"]. */
#define EVTSEL_EVENT_MASK		0xFFull		/* bits 7:0 event select */
#define EVTSEL_UMASK_SHIFT		8		/* bits 15:8 unit mask */
#define EVTSEL_USR			(1ull << 16)	/* count at CPL > 0 */
#define EVTSEL_OS			(1ull << 17)	/* count at CPL 0 */
#define EVTSEL_EDGE			(1ull << 18)
#define EVTSEL_PC			(1ull << 19)	/* pin control */
#define EVTSEL_INT			(1ull << 20)	/* APIC interrupt on overflow (count_set.pmi) */
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
