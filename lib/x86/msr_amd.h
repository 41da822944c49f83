/*
 * lib/x86/msr_amd.h - AMD (and Hygon) core performance-counter MSRs.
 *
 * Sources:
 *   [APM]   AMD64 Architecture Programmer's Manual Vol. 2 (pub. 24593),
 *           §13.2 "Performance-Monitoring Counters" (PerfEvtSel layout,
 *           core extension, PerfMonV2 global registers).
 *   [BKDG-K8] BKDG for AMD Family 0Fh (pub. 32559), MSRC001_00[03:00]: an
 *           8-bit event select, PERF_CTL[63:32] reserved.
 *   [BKDG10] BKDG for AMD Family 10h (pub. 31116), MSRC001_00[03:00]
 *           "Performance Event Select" and MSRC001_00[07:04] "Performance
 *           Event Counter" (48-bit counters, EventSelect[11:8] in [35:32]).
 *   [BKDG15] BKDG for AMD Family 15h (pub. 42301), MSRC001_020[A:0]
 *           PERF_CTL/PERF_CTR[5:0]: the six-counter layout, stride 2; the
 *           legacy addresses C001_0000..7 alias counters 0..3.
 *   [PPR19] PPR for AMD Family 19h (e.g. pub. 55898), MSRC000_0300..0303
 *           PerfCntrGlobalStatus/Ctl/StatusClr/StatusSet; PerfCntrGlobalCtl
 *           resets with every counter's enable bit set.
 */
#ifndef PMUBOOT_LIB_X86_MSR_AMD_H
#define PMUBOOT_LIB_X86_MSR_AMD_H

/* Legacy (K7 .. Family 10h) four counters [BKDG10]. */
#define MSR_K7_PERF_CTL0		0xC0010000u	/* PERF_CTLn = C001_0000 + n, n < 4 */
#define MSR_K7_PERF_CTR0		0xC0010004u	/* PERF_CTRn = C001_0004 + n */
#define AMD_LEGACY_COUNTERS		4

/* Core performance counter extension (CPUID 8000_0001h ECX[23]) [BKDG15]. */
#define MSR_F15H_PERF_CTL0		0xC0010200u	/* PERF_CTLn = C001_0200 + 2n */
#define MSR_F15H_PERF_CTR0		0xC0010201u	/* PERF_CTRn = C001_0201 + 2n */
#define AMD_CORE_EXT_STRIDE		2
#define AMD_CORE_EXT_COUNTERS		6

/* PerfMonV2 (CPUID 8000_0022h EAX[0]) global registers [PPR19][APM]:
 * bit n = counter n in each. */
#define MSR_AMD_PERF_GLOBAL_STATUS	0xC0000300u	/* read-only overflow status */
#define MSR_AMD_PERF_GLOBAL_CTL		0xC0000301u	/* enable; reset value: all counters */
#define MSR_AMD_PERF_GLOBAL_STATUS_CLR	0xC0000302u	/* write 1 to clear a status bit */
#define MSR_AMD_PERF_GLOBAL_STATUS_SET	0xC0000303u	/* write 1 to set a status bit */

/* PERF_CTL fields [APM][BKDG10]; the same positions as Intel's for bits 0..23. */
#define AMD_CTL_EVENT_LO_MASK		0xFFull		/* EventSelect[7:0] */
#define AMD_CTL_UMASK_SHIFT		8		/* UnitMask */
#define AMD_CTL_USR			(1ull << 16)
#define AMD_CTL_OS			(1ull << 17)
#define AMD_CTL_EDGE			(1ull << 18)
#define AMD_CTL_INT			(1ull << 20)
#define AMD_CTL_EN			(1ull << 22)
#define AMD_CTL_INV			(1ull << 23)
#define AMD_CTL_CMASK_SHIFT		24		/* CntMask */
#define AMD_CTL_EVENT_HI_SHIFT		32		/* EventSelect[11:8] in bits 35:32 */
#define AMD_CTL_EVENT_HI_MASK		(0xFull << 32)
#define AMD_CTL_GUEST_ONLY		(1ull << 40)
#define AMD_CTL_HOST_ONLY		(1ull << 41)
#define AMD_EVENT_MAX			0xFFFu		/* 12-bit event select */
/* Bits 19 and 21 are reserved, and 39:36, 63:42 [BKDG10]. */
#define AMD_CTL_WRITABLE		(0xFFFFull | AMD_CTL_USR | AMD_CTL_OS | AMD_CTL_EDGE | AMD_CTL_INT | \
					 AMD_CTL_EN | AMD_CTL_INV | (0xFFull << AMD_CTL_CMASK_SHIFT) | \
					 AMD_CTL_EVENT_HI_MASK | AMD_CTL_GUEST_ONLY | AMD_CTL_HOST_ONLY)

#define AMD_COUNTER_WIDTH		48		/* [BKDG10][APM] */

/* Large Increment per Cycle events (Family 17h and later; PPR for Family 17h, e.g. pub. 56176,
 * 2.1.15.3): such an event runs on an even counter whose odd neighbour's PERF_CTL holds the Merge
 * event 0xFFF (EventSelect[7:0] = FFh, [11:8] = Fh) with EN, programmed before the even one.  The
 * two PERF_CTRs then form one 64-bit count: the even PERF_CTR reads all 64 bits and takes bits
 * 47:0 on a write, the odd PERF_CTR's bits 15:0 take bits 63:48 (Linux commit 5738891229a2 "Add
 * support for Large Increment per Cycle Events", which quotes the PPR). */
#define AMD_MERGE_EVENT			0xFFFu
#define AMD_MERGED_WIDTH		64
#define AMD_MERGED_HIGH_SHIFT		48		/* count bits 63:48 live in the odd PERF_CTR */

/* EventSelect[11:8] (PERF_CTL[35:32]) exists from Family 10h; on K7/K8
 * PERF_CTL[63:32] are reserved [BKDG-K8]. */
#define AMD_FAMILY_EVENT_HI		0x10
#define AMD_CTL_WRITABLE_K8		(AMD_CTL_WRITABLE & 0xFFFFFFFFull)

/*
 * The clock (pmu/freq/).  Sources:
 *   [PPR17]  PPR for AMD Family 17h (e.g. pub. 54945) and Family 19h (pub. 55898):
 *            MSRC001_0015 HWCR, MSRC001_0061..0063 P-state current limit, control
 *            and status, MSRC001_00[6B:64] PStateDef ("CoreCOF = (CpuFid /
 *            CpuDfsId) * 200 MHz", Table "Definitions"), MSRC001_02B0..02B4 CPPC.
 *   [APM2]   AMD APM Vol. 2, "Effective Frequency Interface": MPERF counts at
 *            the P0 frequency, APERF at the actual one, in C0.
 *   [LNX-AP] Linux arch/x86/include/asm/msr-index.h and drivers/cpufreq/
 *            amd-pstate.c, acpi-cpufreq.c (facts only): the CPPC field layout
 *            (request: max [7:0], min [15:8], desired [23:16]), CPPC enable is
 *            written once and not undone, HWCR[25] CpbDis turns boost off per CPU.
 */
#define MSR_AMD_HWCR			0xC0010015u	/* [PPR17] per thread */
#define HWCR_CPB_DIS			(1ull << 25)	/* core performance boost off [LNX-AP] boost_set_msr */
#define MSR_AMD_PSTATE_CUR_LIMIT	0xC0010061u	/* [PPR17] read-only */
#define PSTATE_CUR_LIMIT(v)		((uint32_t)((v) & 0x7u))	/* [2:0] fastest P-state allowed now */
#define PSTATE_MAX_VAL(v)		((uint32_t)(((v) >> 4) & 0x7u))	/* [6:4] slowest P-state */
#define MSR_AMD_PSTATE_CTL		0xC0010062u	/* [PPR17] [2:0] PstateCmd */
#define PSTATE_CTL_CMD_MASK		0x7ull
#define MSR_AMD_PSTATE_DEF0		0xC0010064u	/* [PPR17] PStateDef n = C001_0064 + n, n < 8 */
#define AMD_PSTATES			8
#define PSTATE_DEF_EN			(1ull << 63)	/* PstateEn */
#define PSTATE_DEF_FID(v)		((uint32_t)((v) & 0xffu))		/* [7:0] CpuFid (Family 17h/19h) */
#define PSTATE_DEF_DFSID(v)		((uint32_t)(((v) >> 8) & 0x3fu))	/* [13:8] CpuDfsId */
#define PSTATE_COF_MHZ_PER_RATIO	200u	/* CoreCOF = Fid / DfsId * 200 MHz [PPR17] */
#define MSR_AMD_CPPC_CAP1		0xC00102B0u	/* [LNX-AP] */
#define CPPC_CAP_LOWEST(v)		((uint32_t)((v) & 0xffu))		/* [7:0] */
#define CPPC_CAP_NOMINAL(v)		((uint32_t)(((v) >> 16) & 0xffu))	/* [23:16] */
#define CPPC_CAP_HIGHEST(v)		((uint32_t)(((v) >> 24) & 0xffu))	/* [31:24] */
#define MSR_AMD_CPPC_ENABLE		0xC00102B1u	/* bit 0; write-once: read here, never written [LNX-AP] */
#define CPPC_ENABLE_ON			(1ull << 0)
#define MSR_AMD_CPPC_REQ		0xC00102B3u	/* [LNX-AP] per thread */
#define CPPC_REQ_MAX_SHIFT		0	/* [7:0] maximum performance (HWP's order reversed) */
#define CPPC_REQ_MIN_SHIFT		8	/* [15:8] minimum performance */
#define CPPC_REQ_DESIRED_SHIFT		16	/* [23:16] desired */
#define CPPC_REQ_FIELD			0xffull

/* IBS registers (BKDG for Family 10h pub. 31116 and Family 15h pub. 42301, MSRC001_103x;
 * the control-2 MSRs C001_103E/103F: PPR for Family 19h). */
#define IBS_MSR_FETCH_CTL 0xC0011030u		/* IbsFetchCtl */
#define IBS_MSR_FETCH_LINAD 0xC0011031u		/* IbsFetchLinAd */
#define IBS_MSR_FETCH_PHYSAD 0xC0011032u	/* IbsFetchPhysAd */
#define IBS_MSR_OP_CTL 0xC0011033u		/* IbsOpCtl */
#define IBS_MSR_OP_RIP 0xC0011034u		/* IbsOpRip */
#define IBS_MSR_OP_DATA 0xC0011035u		/* IbsOpData */
#define IBS_MSR_OP_DATA2 0xC0011036u		/* IbsOpData2 */
#define IBS_MSR_OP_DATA3 0xC0011037u		/* IbsOpData3 */
#define IBS_MSR_DC_LINAD 0xC0011038u		/* IbsDcLinAd */
#define IBS_MSR_DC_PHYSAD 0xC0011039u		/* IbsDcPhysAd */
#define IBS_MSR_CTL 0xC001103Au			/* IBS_CTL (IbsCtl) */
#define IBS_MSR_BR_TARGET 0xC001103Bu		/* IbsBrTarget [BKDG15] */
#define IBS_MSR_FETCH_CTL_EXTD 0xC001103Cu	/* IbsFetchCtlExtd (IC_IBS_EXTD_CTL) [BKDG15 60h] */
#define IBS_MSR_OP_DATA4 0xC001103Du		/* IbsOpData4 [BKDG15 60h] */
#define IBS_MSR_OP_CTL2 0xC001103Eu		/* IbsOpCtl2 (CPUID 8000_001BH Dis; AMD's Linux enablement) */
#define IBS_MSR_FETCH_CTL2 0xC001103Fu		/* IbsFetchCtl2 (same) */

#endif
