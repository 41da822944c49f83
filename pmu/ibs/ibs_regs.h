/*
 * pmu/ibs/ibs_regs.h - AMD Instruction-Based Sampling: every MSR, CPUID bit and
 * register field pmuboot uses, as named constants.
 *
 * Sources (cited below by tag):
 *   [APM2]  AMD64 Architecture Programmer's Manual Vol. 2 (#24593), §13.3
 *           "Instruction-Based Sampling".
 *   [APM3]  AMD64 APM Vol. 3 (#24594), Appendix E, CPUID Fn8000_0001_ECX and
 *           Fn8000_001B_EAX (IBS feature identifiers).
 *   [BKDG10] BIOS and Kernel Developer's Guide for AMD Family 10h (#31116),
 *           registers MSRC001_1030..MSRC001_103A and F3x1CC (IBSCTL).
 *   [BKDG15] BKDG for AMD Family 15h Models 00h-0Fh (#42301), and the
 *           Family 15h Models 30h-3Fh and 60h-6Fh BKDGs: MSRC001_103B..
 *           MSRC001_103D, IbsOpData3 bits 20..63 and DcMissNoMabAlloc.
 *   [PPR19] Processor Programming Reference for AMD Family 19h Model 01h
 *           (#55898): the Zen register layout (DataSrc, RmtNode, L2Miss).
 *   [ERR]   AMD Revision Guides ("Revision Guide for AMD Family NNh
 *           Processors"): Family 10h (#41322, erratum 420), Family 14h
 *           (erratum 484), Family 15h Models 00h-0Fh (#48063, errata 717,
 *           718), Family 15h Models 10h-1Fh (erratum 719), Family 19h
 *           Models 00h-0Fh (errata 1197, 1238, 1293, 1347).
 * Zen 4 (Fn8000_001B_EAX[11]) and Zen 5 (Fn8000_001B_EAX[19]) additions are
 * as AMD's own Linux patches describe them (arch/x86/include/asm/amd-ibs.h).
 */
#ifndef PMUBOOT_PMU_IBS_IBS_REGS_H
#define PMUBOOT_PMU_IBS_IBS_REGS_H

#include "lib/x86/msr_amd.h"
#include "lib/libc.h"
#include "lib/x86/cpuid.h"

/* ---- CPUID ---------------------------------------------------------------- */
#define IBS_CPUID_EXT_FEATURES 0x80000001u	/* [APM3] */
#define IBS_CPUID_CAPS 0x8000001Bu		/* [APM3] Fn8000_001B: IBS capabilities */

/* Fn8000_001B_EAX [APM3]; bits 11.. from AMD's Linux enablement patches. */
#define IBS_CAP_FFV (1u << 0)		/* IBSFFV: the flags below are valid */
#define IBS_CAP_FETCHSAM (1u << 1)	/* fetch sampling */
#define IBS_CAP_OPSAM (1u << 2)		/* op sampling */
#define IBS_CAP_RDWROPCNT (1u << 3)	/* IbsOpCurCnt is writable */
#define IBS_CAP_OPCNT (1u << 4)		/* IbsOpCntCtl: count dispatched ops */
#define IBS_CAP_BRNTRGT (1u << 5)	/* IbsBrTarget (MSRC001_103B) */
#define IBS_CAP_OPCNTEXT (1u << 6)	/* IbsOpMaxCnt[26:20] */
#define IBS_CAP_RIPINVALIDCHK (1u << 7)	/* IbsRipInvalid (IbsOpData[38]) */
#define IBS_CAP_OPBRNFUSE (1u << 8)	/* IbsOpBrnFuse (IbsOpData[39]) */
#define IBS_CAP_FETCHCTLEXTD (1u << 9)	/* IbsFetchCtlExtd (MSRC001_103C) */
#define IBS_CAP_OPDATA4 (1u << 10)	/* IbsOpData4 (MSRC001_103D) */
#define IBS_CAP_ZEN4 (1u << 11)		/* L3MissOnly filters, IbsOpData2 DataSrcHi */
#define IBS_CAP_OPLDLAT (1u << 12)	/* load-latency filtering */
#define IBS_CAP_DIS (1u << 13)		/* IbsFetchCtl2/IbsOpCtl2 disable bits */

/* IbsOpCtl2 / IbsFetchCtl2 (with IBS_CAP_DIS; AMD's Linux enablement, 2026): control-only
 * registers whose Dis bit disables the sampler without touching the status fields of
 * IbsOpCtl / IbsFetchCtl.  A sampler runs only with CTL[En] = 1 and CTL2[Dis] = 0, so Dis
 * must be cleared to start it and set to stop it. */
#define IBS_CTL2_DIS (1ull << 0)		/* IbsOpCtl2/IbsFetchCtl2 (lib/x86/msr_amd.h) bit 0 */
#define IBS_CAP_FETCHLAT (1u << 14)	/* fetch-latency filtering */
#define IBS_CAP_BIT63FILTER (1u << 15)	/* RIP[63] filtering */
#define IBS_CAP_STRMST_RMTSOCKET (1u << 16)	/* IbsOpData2 StrmSt, RmtSocket */
#define IBS_CAP_MEMPROFILER (1u << 18)	/* memory profiler */
#define IBS_CAP_OPDTLBPGSIZE (1u << 19)	/* Zen 5 IbsOpData3 DTLB page-size encoding */
/* What Linux assumes when IBSFFV is clear (Family 10h): fetch and op sampling only. */
#define IBS_CAP_DEFAULT (IBS_CAP_FFV | IBS_CAP_FETCHSAM | IBS_CAP_OPSAM)


/* ---- IbsFetchCtl (MSRC001_1030) [BKDG10], bits 58.. [BKDG15 60h], [PPR19] -- */
#define IBS_FETCH_MAXCNT_MASK 0xFFFFull		/* 15:0 IbsFetchMaxCnt = period[19:4] */
#define IBS_FETCH_CNT_SHIFT 16			/* 31:16 IbsFetchCnt = count[19:4] */
#define IBS_FETCH_CNT_MASK (0xFFFFull << IBS_FETCH_CNT_SHIFT)
#define IBS_FETCH_LAT_SHIFT 32			/* 47:32 IbsFetchLat, cycles */
#define IBS_FETCH_LAT_MASK (0xFFFFull << IBS_FETCH_LAT_SHIFT)
#define IBS_FETCH_EN (1ull << 48)		/* IbsFetchEn */
#define IBS_FETCH_VAL (1ull << 49)		/* IbsFetchVal: a sample is held */
#define IBS_FETCH_COMP (1ull << 50)		/* IbsFetchComp: delivered to the decoder */
#define IBS_FETCH_IC_MISS (1ull << 51)		/* IbsIcMiss */
#define IBS_FETCH_PHY_VALID (1ull << 52)	/* IbsPhyAddrValid */
#define IBS_FETCH_PGSZ_SHIFT 53			/* 54:53 IbsL1TlbPgSz (needs PhyAddrValid) */
#define IBS_FETCH_PGSZ_MASK (3ull << IBS_FETCH_PGSZ_SHIFT)
#define IBS_FETCH_PGSZ_4K 0ull			/* encodings before erratum 1347's table */
#define IBS_FETCH_PGSZ_2M 1ull
#define IBS_FETCH_PGSZ_1G 2ull
#define IBS_FETCH_PGSZ_RSVD 3ull
#define IBS_FETCH_L1TLB_MISS (1ull << 55)	/* IbsL1TlbMiss */
#define IBS_FETCH_L2TLB_MISS (1ull << 56)	/* IbsL2TlbMiss */
#define IBS_FETCH_RAND_EN (1ull << 57)		/* IbsRandEn: hardware randomises count[3:0] */
#define IBS_FETCH_L2_MISS (1ull << 58)		/* IbsFetchL2Miss [BKDG15 60h] */
#define IBS_FETCH_L3_MISS_ONLY (1ull << 59)	/* Zen 4 control bit */
/*
 * A killed fetch never reached the ITLB or IC: every outcome flag is clear
 * (AMD Software Optimization Guide for Family 10h/12h #40546, App. G, event F001).
 */
#define IBS_FETCH_OUTCOME_MASK (IBS_FETCH_COMP | IBS_FETCH_IC_MISS | IBS_FETCH_PHY_VALID | \
				IBS_FETCH_L1TLB_MISS | IBS_FETCH_L2TLB_MISS)

/* ---- IbsFetchCtlExtd (MSRC001_103C) [BKDG15 60h] ---------------------------- */
#define IBS_FETCH_EXTD_ITLB_REFILL_LAT 0xFFFFull	/* 15:0 IbsItlbRefillLat */

/* ---- IbsOpCtl (MSRC001_1033) [BKDG10], [PPR19] ------------------------------ */
#define IBS_OP_MAXCNT_MASK 0xFFFFull		/* 15:0 IbsOpMaxCnt = period[19:4] */
#define IBS_OP_L3_MISS_ONLY (1ull << 16)	/* Zen 4 control bit; reserved before */
#define IBS_OP_EN (1ull << 17)			/* IbsOpEn */
#define IBS_OP_VAL (1ull << 18)			/* IbsOpVal */
#define IBS_OP_CNT_CTL (1ull << 19)		/* IbsOpCntCtl: 1 = dispatched ops, 0 = cycles */
#define IBS_OP_MAXCNT_EXT_SHIFT 20		/* 26:20 IbsOpMaxCnt[26:20] (IBS_CAP_OPCNTEXT) */
#define IBS_OP_MAXCNT_EXT_MASK (0x7Full << IBS_OP_MAXCNT_EXT_SHIFT)
#define IBS_OP_CURCNT_SHIFT 32			/* IbsOpCurCnt */
#define IBS_OP_CURCNT_BITS_FAM10 20		/* 51:32 on Family 10h [BKDG10] */
#define IBS_OP_CURCNT_BITS 27			/* 58:32 from Family 12h [PPR19] */

/* ---- IbsOpData (MSRC001_1035) [BKDG10], [PPR19] ----------------------------- */
#define IBS_OPD_COMP_TO_RET_MASK 0xFFFFull	/* 15:0 IbsCompToRetCtr */
#define IBS_OPD_TAG_TO_RET_SHIFT 16		/* 31:16 IbsTagToRetCtr */
#define IBS_OPD_BRN_RESYNC (1ull << 32)		/* IbsOpBrnResync: Fam 10h/12h/14h, 15h 00h-0Fh */
#define IBS_OPD_MISP_RETURN (1ull << 33)	/* IbsOpMispReturn: same families */
#define IBS_OPD_RETURN (1ull << 34)		/* IbsOpReturn */
#define IBS_OPD_BRN_TAKEN (1ull << 35)		/* IbsOpBrnTaken */
#define IBS_OPD_BRN_MISP (1ull << 36)		/* IbsOpBrnMisp */
#define IBS_OPD_BRN_RET (1ull << 37)		/* IbsOpBrnRet: a branch op retired */
#define IBS_OPD_RIP_INVALID (1ull << 38)	/* IbsRipInvalid: reserved on Family 10h */
#define IBS_OPD_BRN_FUSE (1ull << 39)		/* IbsOpBrnFuse (IBS_CAP_OPBRNFUSE) */
#define IBS_OPD_MICROCODE (1ull << 40)		/* IbsOpMicrocode: Fam 15h 60h+, 17h+ */

/* ---- IbsOpData2 (MSRC001_1036): northbridge / data source, loads only -------- */
#define IBS_OPD2_SRC_MASK 0x7ull		/* 2:0 NbIbsReqSrc [BKDG10] / DataSrc(Lo) [PPR19] */
#define IBS_OPD2_DST_REMOTE (1ull << 4)		/* NbIbsReqDstProc / RmtNode: 1 = remote node */
#define IBS_OPD2_HIT_OWNED (1ull << 5)		/* NbIbsReqCacheHitSt / CacheHitSt: 0 = M, 1 = O */
#define IBS_OPD2_SRC_HI_SHIFT 6			/* 7:6 DataSrcHi (IBS_CAP_ZEN4) */
#define IBS_OPD2_SRC_HI_MASK (3ull << IBS_OPD2_SRC_HI_SHIFT)
#define IBS_OPD2_STRM_ST (1ull << 8)		/* IBS_CAP_STRMST_RMTSOCKET */
#define IBS_OPD2_RMT_SOCKET (1ull << 9)		/* IBS_CAP_STRMST_RMTSOCKET */
/* NbIbsReqSrc, Family 10h [BKDG10] (the encoding the derived events are defined in). */
#define IBS_SRC_NONE 0u			/* no valid status */
#define IBS_SRC_L3 1u			/* local L3 */
#define IBS_SRC_CACHE 2u		/* another core's cache (local or remote per DstProc) */
#define IBS_SRC_DRAM 3u
#define IBS_SRC_OTHER 7u		/* MMIO, configuration, PCI, APIC */
/* DataSrc, Family 17h/19h without IBS_CAP_ZEN4 [PPR19]. */
#define IBS_ZEN_SRC_LOCAL_CACHE 2u	/* local node cache (L3 or a peer cache) */
#define IBS_ZEN_SRC_DRAM 3u
#define IBS_ZEN_SRC_REMOTE_CACHE 4u	/* remote node cache */
#define IBS_ZEN_SRC_OTHER 7u
/* DataSrc = DataSrcHi:DataSrcLo with IBS_CAP_ZEN4. */
#define IBS_ZEN4_SRC_LOCAL_CCX 1u	/* local L3, or another L1/L2 in the CCX */
#define IBS_ZEN4_SRC_NEAR_CCX 2u	/* another CCX's cache in the same node */
#define IBS_ZEN4_SRC_DRAM 3u
#define IBS_ZEN4_SRC_FAR_CCX 5u		/* another CCX's cache in another node */
#define IBS_ZEN4_SRC_PMEM 6u		/* long-latency DIMM */
#define IBS_ZEN4_SRC_IO 7u		/* MMIO, configuration, PCI, APIC */
#define IBS_ZEN4_SRC_EXT_MEM 8u		/* extension memory (CXL) */
#define IBS_ZEN4_SRC_PEER_AGENT 12u	/* coherent memory of another processor type */

/* ---- IbsOpData3 (MSRC001_1037) [BKDG10]; bits 20..63 [BKDG15 30h], [PPR19] -- */
#define IBS_OPD3_LD_OP (1ull << 0)		/* IbsLdOp */
#define IBS_OPD3_ST_OP (1ull << 1)		/* IbsStOp */
#define IBS_OPD3_L1TLB_MISS (1ull << 2)		/* IbsDcL1TlbMiss */
#define IBS_OPD3_L2TLB_MISS (1ull << 3)		/* IbsDcL2TlbMiss */
#define IBS_OPD3_L1TLB_HIT_2M (1ull << 4)	/* IbsDcL1TlbHit2M */
#define IBS_OPD3_L1TLB_HIT_1G (1ull << 5)	/* IbsDcL1TlbHit1G */
#define IBS_OPD3_L2TLB_HIT_2M (1ull << 6)	/* IbsDcL2TlbHit2M */
#define IBS_OPD3_DC_MISS (1ull << 7)		/* IbsDcMiss */
#define IBS_OPD3_MISALIGNED (1ull << 8)		/* IbsDcMisAcc */
#define IBS_OPD3_LD_BNK_CON (1ull << 9)		/* IbsDcLdBnkCon */
#define IBS_OPD3_ST_BNK_CON (1ull << 10)	/* IbsDcStBnkCon */
#define IBS_OPD3_ST_TO_LD_FWD (1ull << 11)	/* IbsDcStToLdFwd */
#define IBS_OPD3_ST_TO_LD_CAN (1ull << 12)	/* IbsDcStToLdCan */
#define IBS_OPD3_WC_MEM (1ull << 13)		/* IbsDcWcMemAcc */
#define IBS_OPD3_UC_MEM (1ull << 14)		/* IbsDcUcMemAcc */
#define IBS_OPD3_LOCKED (1ull << 15)		/* IbsDcLockedOp */
/* Bit 16: IbsDcMabHit (Fam 10h, 12h, 15h 00h-1Fh); DcMissNoMabAlloc later. */
#define IBS_OPD3_MAB_HIT (1ull << 16)
#define IBS_OPD3_NO_MAB_ALLOC (1ull << 16)
#define IBS_OPD3_LIN_VALID (1ull << 17)		/* IbsDcLinAddrValid */
#define IBS_OPD3_PHY_VALID (1ull << 18)		/* IbsDcPhyAddrValid */
#define IBS_OPD3_L2TLB_HIT_1G (1ull << 19)	/* IbsDcL2TlbHit1G */
#define IBS_OPD3_L2_MISS (1ull << 20)		/* IbsL2Miss: Fam 15h 30h+, 16h, 17h+ */
#define IBS_OPD3_SW_PF (1ull << 21)		/* IbsSwPf: same families */
#define IBS_OPD3_DC_MISS_LAT_SHIFT 32		/* 47:32 IbsDcMissLat, cycles */
/* Zen 5 (IBS_CAP_OPDTLBPGSIZE): bits 5:4 are the page size, bits 6 and 19 reserved. */
#define IBS_OPD3_PGSZ_SHIFT 4
#define IBS_OPD3_PGSZ_MASK (3ull << IBS_OPD3_PGSZ_SHIFT)

/* ---- IbsOpData4 (MSRC001_103D) [BKDG15 60h] --------------------------------- */
#define IBS_OPD4_LD_RESYNC (1ull << 0)		/* IbsOpLdResync */

/* ---- IBS_CTL (MSRC001_103A) [BKDG10]; mirrors F3x1CC on Family 10h --------- */
#define IBS_CTL_LVT_OFFSET_MASK 0xFull		/* 3:0 LvtOffset: the APIC extended LVT entry */
#define IBS_CTL_LVT_OFFSET_VALID (1ull << 8)	/* LvtOffsetVal */
/* Family 10h: software assigns the offset in northbridge function 3, register 1CCh. */
#define IBS_FAM10_PCI_IBSCTL_REG 0x1CCu

/* Every 16-bit latency/count field above is a 16-bit unsigned value. */
#define IBS_FIELD16 0xFFFFull

#endif
