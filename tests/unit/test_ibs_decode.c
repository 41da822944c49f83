/*
 * IBS derived events from synthetic raw samples whose bits are set by hand.
 *
 * The case table gives, for every derived event, samples that must count
 * in it and samples that must not (a test checks both exist for every
 * event).  Further tests: killed fetches, attempted = completed + aborted,
 * family masking (10h / 12h / 14h / 15h / 17h / 19h / Zen 4 / Zen 5), the
 * northbridge rules, errata, latency sums and the page-size partitions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>

#include "events/events.h"
#include "pmu/ibs/ibs.h"
#include "pmu/ibs/ibs_regs.h"

/* Fetch bits. */
#define COMP IBS_FETCH_COMP
#define ICM IBS_FETCH_IC_MISS
#define PHY IBS_FETCH_PHY_VALID
#define ITLB1 IBS_FETCH_L1TLB_MISS
#define ITLB2 IBS_FETCH_L2TLB_MISS
#define PG(c) ((uint64_t)(c) << IBS_FETCH_PGSZ_SHIFT)
#define FLAT(n) ((uint64_t)(n) << IBS_FETCH_LAT_SHIFT)
/* Op bits. */
#define BR IBS_OPD_BRN_RET
#define MISP IBS_OPD_BRN_MISP
#define TAKEN IBS_OPD_BRN_TAKEN
#define RET IBS_OPD_RETURN
#define RIPINV IBS_OPD_RIP_INVALID
#define TAG2RET(n) ((uint64_t)(n) << IBS_OPD_TAG_TO_RET_SHIFT)
#define LD IBS_OPD3_LD_OP
#define ST IBS_OPD3_ST_OP
#define LIN IBS_OPD3_LIN_VALID
#define DPHY IBS_OPD3_PHY_VALID
#define DTLB1 IBS_OPD3_L1TLB_MISS
#define DTLB2 IBS_OPD3_L2TLB_MISS
#define L1_2M IBS_OPD3_L1TLB_HIT_2M
#define L1_1G IBS_OPD3_L1TLB_HIT_1G
#define L2_2M IBS_OPD3_L2TLB_HIT_2M
#define L2_1G IBS_OPD3_L2TLB_HIT_1G
#define DCM IBS_OPD3_DC_MISS
#define L2M IBS_OPD3_L2_MISS
#define DLAT(n) ((uint64_t)(n) << IBS_OPD3_DC_MISS_LAT_SHIFT)
#define RMT IBS_OPD2_DST_REMOTE
#define OWN IBS_OPD2_HIT_OWNED
#define SRCHI(n) ((uint64_t)(n) << IBS_OPD2_SRC_HI_SHIFT)
#define NB10 (LD | DCM)		/* an NB-eligible load on Family 10h */
#define NBZ (LD | DCM | L2M)	/* ... and on Zen, which also reports the L2 miss */

#define LINAD 0x401000ull

struct dcase {
	const char *what;
	uint16_t code;
	uint32_t family, model, caps;
	uint8_t kind;
	uint64_t a, b, c;	/* fetch: IbsFetchCtl, IbsFetchLinAd; op: IbsOpData, IbsOpData2, IbsOpData3 */
	uint64_t expect;
};

#define FETCH(fam, mod, ctl) fam, mod, IBS_CAP_DEFAULT, IBS_KIND_FETCH, ctl, LINAD, 0
#define FETCHL(fam, mod, ctl, lin) fam, mod, IBS_CAP_DEFAULT, IBS_KIND_FETCH, ctl, lin, 0
#define OP(fam, mod, d1, d2, d3) fam, mod, IBS_CAP_DEFAULT, IBS_KIND_OP, d1, d2, d3
#define OPC(fam, mod, caps, d1, d2, d3) fam, mod, (caps) | IBS_CAP_DEFAULT, IBS_KIND_OP, d1, d2, d3

static const struct dcase cases[] = {
	/* ---- fetch ---- */
	{ "killed fetch is a fetch sample", 0xF000, FETCH(0x10, 2, 0), 1 },
	{ "an op sample is not a fetch", 0xF000, OP(0x10, 2, 0, 0, 0), 0 },
	{ "erratum 1197: LinAd 0 dropped", 0xF000, FETCHL(0x19, 1, COMP, 0), 0 },
	{ "1197 only on 19h <10h", 0xF000, FETCHL(0x19, 0x11, COMP, 0), 1 },
	{ "no outcome flag: killed", 0xF001, FETCH(0x10, 2, FLAT(40)), 1 },
	{ "completed is not killed", 0xF001, FETCH(0x10, 2, COMP), 0 },
	{ "ITLB miss alone is not killed", 0xF001, FETCH(0x10, 2, ITLB1), 0 },
	{ "completed is attempted", 0xF002, FETCH(0x10, 2, COMP), 1 },
	{ "killed is not attempted", 0xF002, FETCH(0x10, 2, 0), 0 },
	{ "completed", 0xF003, FETCH(0x10, 2, COMP | PHY), 1 },
	{ "IC miss without Comp aborted", 0xF003, FETCH(0x10, 2, ICM), 0 },
	{ "aborted: attempted, not completed", 0xF004, FETCH(0x10, 2, ICM), 1 },
	{ "completed is not aborted", 0xF004, FETCH(0x10, 2, COMP), 0 },
	{ "killed is not aborted", 0xF004, FETCH(0x10, 2, 0), 0 },
	{ "L1 ITLB hit needs a translation", 0xF005, FETCH(0x10, 2, COMP | PHY), 1 },
	{ "L1 ITLB miss is no hit", 0xF005, FETCH(0x10, 2, PHY | ITLB1), 0 },
	{ "no physical address, no hit", 0xF005, FETCH(0x10, 2, COMP), 0 },
	{ "L1 miss L2 hit", 0xF006, FETCH(0x10, 2, ITLB1 | PHY), 1 },
	{ "L1 and L2 miss is not L2 hit", 0xF006, FETCH(0x10, 2, ITLB1 | ITLB2), 0 },
	{ "L1 and L2 ITLB miss", 0xF007, FETCH(0x10, 2, ITLB1 | ITLB2), 1 },
	{ "L1 miss only", 0xF007, FETCH(0x10, 2, ITLB1), 0 },
	{ "IC miss", 0xF008, FETCH(0x10, 2, COMP | ICM), 1 },
	{ "IC hit is no miss", 0xF008, FETCH(0x10, 2, COMP), 0 },
	{ "erratum 1238: IcMiss ignored", 0xF008, FETCH(0x19, 1, COMP | ICM), 0 },
	{ "IC hit: completed without miss", 0xF009, FETCH(0x10, 2, COMP), 1 },
	{ "IC miss is no hit", 0xF009, FETCH(0x10, 2, COMP | ICM), 0 },
	{ "aborted is no IC hit", 0xF009, FETCH(0x10, 2, PHY), 0 },
	{ "4K page", 0xF00A, FETCH(0x10, 2, COMP | PHY | PG(0)), 1 },
	{ "2M is not 4K", 0xF00A, FETCH(0x10, 2, COMP | PHY | PG(1)), 0 },
	{ "no translation, no page", 0xF00A, FETCH(0x10, 2, COMP), 0 },
	{ "erratum 1347: 16K is not 4K", 0xF00A, FETCH(0x19, 1, COMP | PHY | PG(1)), 0 },
	{ "2M page", 0xF00B, FETCH(0x10, 2, COMP | PHY | PG(1)), 1 },
	{ "4K is not 2M", 0xF00B, FETCH(0x10, 2, COMP | PHY | PG(0)), 0 },
	{ "erratum 1347: code 2 is 2M", 0xF00B, FETCH(0x19, 1, COMP | PHY | PG(2)), 1 },
	{ "erratum 1347: code 1 is not 2M", 0xF00B, FETCH(0x19, 1, COMP | PHY | PG(1)), 0 },
	{ "fetch latency summed", 0xF00E, FETCH(0x10, 2, COMP | FLAT(100)), 100 },
	{ "killed fetch latency not summed", 0xF00E, FETCH(0x10, 2, FLAT(50)), 0 },
	/* ---- op: all, branches ---- */
	{ "an op", 0xF100, OP(0x10, 2, 0, 0, 0), 1 },
	{ "RipInvalid reserved on 10h: kept", 0xF100, OP(0x10, 2, RIPINV, 0, 0), 1 },
	{ "RipInvalid on 15h: dropped", 0xF100, OP(0x15, 2, RIPINV, 0, 0), 0 },
	{ "RipInvalid on 17h: dropped", 0xF100, OP(0x17, 1, RIPINV | BR, 0, LD), 0 },
	{ "tag-to-retire summed", 0xF101, OP(0x10, 2, TAG2RET(30) | 7, 0, 0), 30 },
	{ "a fetch adds no op cycles", 0xF101, FETCH(0x10, 2, COMP | 0xFFFFull), 0 },
	{ "completion-to-retire summed", 0xF102, OP(0x10, 2, TAG2RET(30) | 7, 0, 0), 7 },
	{ "zero completion-to-retire", 0xF102, OP(0x10, 2, TAG2RET(30), 0, 0), 0 },
	{ "branch", 0xF103, OP(0x10, 2, BR, 0, 0), 1 },
	{ "taken without BrnRet is no branch", 0xF103, OP(0x10, 2, TAKEN, 0, 0), 0 },
	{ "mispredicted branch", 0xF104, OP(0x10, 2, BR | MISP, 0, 0), 1 },
	{ "Misp without BrnRet", 0xF104, OP(0x10, 2, MISP, 0, 0), 0 },
	{ "taken branch", 0xF105, OP(0x17, 1, BR | TAKEN, 0, 0), 1 },
	{ "taken without BrnRet", 0xF105, OP(0x17, 1, TAKEN, 0, 0), 0 },
	{ "mispredicted taken", 0xF106, OP(0x10, 2, BR | TAKEN | MISP, 0, 0), 1 },
	{ "taken, predicted", 0xF106, OP(0x10, 2, BR | TAKEN, 0, 0), 0 },
	{ "return", 0xF107, OP(0x10, 2, BR | RET, 0, 0), 1 },
	{ "return without BrnRet", 0xF107, OP(0x10, 2, RET, 0, 0), 0 },
	{ "mispredicted return uses BrnMisp", 0xF108, OP(0x10, 2, BR | RET | MISP, 0, 0), 1 },
	{ "IbsOpMispReturn alone does not count", 0xF108, OP(0x10, 2, BR | RET | IBS_OPD_MISP_RETURN, 0, 0), 0 },
	{ "resync on 10h", 0xF109, OP(0x10, 2, IBS_OPD_BRN_RESYNC, 0, 0), 1 },
	{ "resync bit reserved on 17h", 0xF109, OP(0x17, 1, IBS_OPD_BRN_RESYNC, 0, 0), 0 },
	/* ---- op: load/store ---- */
	{ "a load", 0xF200, OP(0x10, 2, 0, 0, LD), 1 },
	{ "neither load nor store", 0xF200, OP(0x10, 2, 0, 0, DCM | LIN), 0 },
	{ "load", 0xF201, OP(0x10, 2, 0, 0, LD), 1 },
	{ "store is no load", 0xF201, OP(0x10, 2, 0, 0, ST), 0 },
	{ "store", 0xF202, OP(0x10, 2, 0, 0, ST), 1 },
	{ "load is no store", 0xF202, OP(0x10, 2, 0, 0, LD), 0 },
	{ "L1 DTLB hit", 0xF203, OP(0x10, 2, 0, 0, LD | LIN), 1 },
	{ "L1 DTLB miss", 0xF203, OP(0x10, 2, 0, 0, LD | LIN | DTLB1), 0 },
	{ "no linear address, no TLB event", 0xF203, OP(0x10, 2, 0, 0, LD), 0 },
	{ "L1 DTLB miss L2 hit", 0xF204, OP(0x10, 2, 0, 0, LD | LIN | DTLB1), 1 },
	{ "L2 DTLB miss too", 0xF204, OP(0x10, 2, 0, 0, LD | LIN | DTLB1 | DTLB2), 0 },
	{ "L1 and L2 DTLB miss", 0xF205, OP(0x10, 2, 0, 0, ST | LIN | DTLB1 | DTLB2), 1 },
	{ "L1 miss only", 0xF205, OP(0x10, 2, 0, 0, ST | LIN | DTLB1), 0 },
	{ "DC miss", 0xF206, OP(0x10, 2, 0, 0, LD | DCM), 1 },
	{ "DC hit is no miss", 0xF206, OP(0x10, 2, 0, 0, LD), 0 },
	{ "DC hit", 0xF207, OP(0x10, 2, 0, 0, ST), 1 },
	{ "DC miss is no hit", 0xF207, OP(0x10, 2, 0, 0, ST | DCM), 0 },
	{ "not load/store: no DC hit", 0xF207, OP(0x10, 2, 0, 0, 0), 0 },
	{ "misaligned", 0xF208, OP(0x17, 1, 0, 0, ST | IBS_OPD3_MISALIGNED), 1 },
	{ "aligned", 0xF208, OP(0x17, 1, 0, 0, ST), 0 },
	{ "load bank conflict on 10h", 0xF209, OP(0x10, 2, 0, 0, LD | IBS_OPD3_LD_BNK_CON), 1 },
	{ "bit 9 reserved on 17h", 0xF209, OP(0x17, 1, 0, 0, LD | IBS_OPD3_LD_BNK_CON), 0 },
	{ "store bank conflict on 10h", 0xF20A, OP(0x10, 2, 0, 0, ST | IBS_OPD3_ST_BNK_CON), 1 },
	{ "bit 10 reserved on 15h", 0xF20A, OP(0x15, 2, 0, 0, ST | IBS_OPD3_ST_BNK_CON), 0 },
	{ "store-to-load forwarded", 0xF20B, OP(0x10, 2, 0, 0, LD | IBS_OPD3_ST_TO_LD_FWD), 1 },
	{ "forwarded needs a load", 0xF20B, OP(0x10, 2, 0, 0, ST | IBS_OPD3_ST_TO_LD_FWD), 0 },
	{ "forwarding on 16h", 0xF20B, OP(0x16, 0, 0, 0, LD | IBS_OPD3_ST_TO_LD_FWD), 1 },
	{ "store-to-load cancelled", 0xF20C, OP(0x10, 2, 0, 0, LD | IBS_OPD3_ST_TO_LD_CAN), 1 },
	{ "bit 12 reserved on 16h", 0xF20C, OP(0x16, 0, 0, 0, LD | IBS_OPD3_ST_TO_LD_CAN), 0 },
	{ "UC access", 0xF20D, OP(0x10, 2, 0, 0, LD | IBS_OPD3_UC_MEM), 1 },
	{ "WC is not UC", 0xF20D, OP(0x10, 2, 0, 0, LD | IBS_OPD3_WC_MEM), 0 },
	{ "WC access", 0xF20E, OP(0x10, 2, 0, 0, ST | IBS_OPD3_WC_MEM), 1 },
	{ "UC is not WC", 0xF20E, OP(0x10, 2, 0, 0, ST | IBS_OPD3_UC_MEM), 0 },
	{ "locked", 0xF20F, OP(0x10, 2, 0, 0, ST | LD | IBS_OPD3_LOCKED), 1 },
	{ "unlocked", 0xF20F, OP(0x10, 2, 0, 0, ST | LD), 0 },
	{ "MAB hit on 10h", 0xF210, OP(0x10, 2, 0, 0, LD | DCM | IBS_OPD3_MAB_HIT), 1 },
	{ "bit 16 is NoMabAlloc on 17h", 0xF210, OP(0x17, 1, 0, 0, LD | DCM | IBS_OPD3_MAB_HIT), 0 },
	{ "erratum 717: MAB hit without DC miss", 0xF210, OP(0x15, 1, 0, 0, LD | IBS_OPD3_MAB_HIT), 0 },
	{ "717 only on 15h 00h-01h", 0xF210, OP(0x15, 2, 0, 0, LD | IBS_OPD3_MAB_HIT), 1 },
	{ "L1 DTLB 4K", 0xF211, OP(0x10, 2, 0, 0, LD | LIN), 1 },
	{ "L1 DTLB 2M is not 4K", 0xF211, OP(0x10, 2, 0, 0, LD | LIN | L1_2M), 0 },
	{ "L1 DTLB 2M", 0xF212, OP(0x10, 2, 0, 0, LD | LIN | L1_2M), 1 },
	{ "2M flag but L1 missed", 0xF212, OP(0x10, 2, 0, 0, LD | LIN | DTLB1 | L1_2M), 0 },
	{ "L1 DTLB 1G", 0xF213, OP(0x10, 2, 0, 0, LD | LIN | L1_1G), 1 },
	{ "1G bit reserved on 14h", 0xF213, OP(0x14, 1, 0, 0, LD | LIN | L1_1G), 0 },
	{ "L2 DTLB 4K", 0xF215, OP(0x10, 2, 0, 0, LD | LIN | DTLB1), 1 },
	{ "L2 DTLB 2M is not 4K", 0xF215, OP(0x10, 2, 0, 0, LD | LIN | DTLB1 | L2_2M), 0 },
	{ "L2 DTLB 2M", 0xF216, OP(0x10, 2, 0, 0, ST | LIN | DTLB1 | L2_2M), 1 },
	{ "2M but L2 missed", 0xF216, OP(0x10, 2, 0, 0, ST | LIN | DTLB1 | DTLB2 | L2_2M), 0 },
	{ "L2 DTLB 1G", 0xF217, OP(0x10, 2, 0, 0, LD | LIN | DTLB1 | L2_1G), 1 },
	{ "2M wins over 1G", 0xF217, OP(0x10, 2, 0, 0, LD | LIN | DTLB1 | L2_2M | L2_1G), 0 },
	{ "DC miss load latency", 0xF219, OP(0x10, 2, 0, 0, LD | DCM | DLAT(200)), 200 },
	{ "store miss latency not summed", 0xF219, OP(0x10, 2, 0, 0, ST | DCM | DLAT(200)), 0 },
	/* ---- northbridge ---- */
	{ "local DRAM is NB local", 0xF240, OP(0x10, 2, 0, IBS_SRC_DRAM, NB10), 1 },
	{ "remote is not local", 0xF240, OP(0x10, 2, 0, IBS_SRC_DRAM | RMT, NB10), 0 },
	{ "a store has no NB data", 0xF240, OP(0x10, 2, 0, IBS_SRC_DRAM, ST | DCM), 0 },
	{ "a DC hit has no NB data", 0xF240, OP(0x10, 2, 0, IBS_SRC_DRAM, LD), 0 },
	{ "source 0: no valid status", 0xF240, OP(0x10, 2, 0, 0, NB10), 0 },
	{ "12h: DstProc reserved, local", 0xF240, OP(0x12, 1, 0, IBS_SRC_DRAM | RMT, NB10), 1 },
	{ "erratum 484: WC load NB ignored", 0xF240, OP(0x14, 1, 0, IBS_SRC_DRAM, NB10 | IBS_OPD3_WC_MEM), 0 },
	{ "erratum 1293: NoMabAlloc voids NB", 0xF240,
	  OP(0x19, 1, 0, IBS_ZEN_SRC_DRAM, NBZ | IBS_OPD3_NO_MAB_ALLOC), 0 },
	{ "Zen: L2 hit has no NB data", 0xF240, OP(0x17, 1, 0, IBS_ZEN_SRC_DRAM, LD | DCM), 0 },
	{ "Zen: local DRAM", 0xF240, OP(0x17, 1, 0, IBS_ZEN_SRC_DRAM, NBZ), 1 },
	{ "remote DRAM", 0xF241, OP(0x10, 2, 0, IBS_SRC_DRAM | RMT, NB10), 1 },
	{ "local is not remote", 0xF241, OP(0x10, 2, 0, IBS_SRC_DRAM, NB10), 0 },
	{ "local L3 on 10h", 0xF242, OP(0x10, 2, 0, IBS_SRC_L3, NB10), 1 },
	{ "source 1 reserved on 15h 10h", 0xF242, OP(0x15, 0x13, 0, IBS_SRC_L3, NB10), 0 },
	{ "source 1 reserved on Zen 1-3", 0xF242, OP(0x17, 1, 0, 1, NBZ), 0 },
	{ "Zen 4: local CCX", 0xF242, OPC(0x19, 0x11, IBS_CAP_ZEN4, 0, IBS_ZEN4_SRC_LOCAL_CCX, NBZ), 1 },
	{ "sibling core's cache", 0xF243, OP(0x10, 2, 0, IBS_SRC_CACHE, NB10), 1 },
	{ "remote cache is not local", 0xF243, OP(0x10, 2, 0, IBS_SRC_CACHE | RMT, NB10), 0 },
	{ "Zen: local node cache", 0xF243, OP(0x17, 1, 0, IBS_ZEN_SRC_LOCAL_CACHE, NBZ), 1 },
	{ "Zen 4: near CCX", 0xF243, OPC(0x19, 0x61, IBS_CAP_ZEN4, 0, IBS_ZEN4_SRC_NEAR_CCX, NBZ), 1 },
	{ "remote cache", 0xF244, OP(0x10, 2, 0, IBS_SRC_CACHE | RMT, NB10), 1 },
	{ "local cache is not remote", 0xF244, OP(0x10, 2, 0, IBS_SRC_CACHE, NB10), 0 },
	{ "Zen: remote node cache (4)", 0xF244, OP(0x17, 1, 0, IBS_ZEN_SRC_REMOTE_CACHE, NBZ), 1 },
	{ "source 4 reserved before Zen", 0xF244, OP(0x10, 2, 0, 4 | RMT, NB10), 0 },
	{ "Zen 4: far CCX", 0xF244, OPC(0x19, 0x11, IBS_CAP_ZEN4, 0, IBS_ZEN4_SRC_FAR_CCX, NBZ), 1 },
	{ "local DRAM", 0xF245, OP(0x10, 2, 0, IBS_SRC_DRAM, NB10), 1 },
	{ "other is not DRAM", 0xF245, OP(0x10, 2, 0, IBS_SRC_OTHER, NB10), 0 },
	{ "Zen 4: long-latency DIMM is DRAM", 0xF245, OPC(0x19, 0x11, IBS_CAP_ZEN4, 0, IBS_ZEN4_SRC_PMEM, NBZ), 1 },
	{ "remote DRAM", 0xF246, OP(0x10, 2, 0, IBS_SRC_DRAM | RMT, NB10), 1 },
	{ "local DRAM is not remote", 0xF246, OP(0x10, 2, 0, IBS_SRC_DRAM, NB10), 0 },
	{ "local other", 0xF247, OP(0x10, 2, 0, IBS_SRC_OTHER, NB10), 1 },
	{ "remote other is not local", 0xF247, OP(0x10, 2, 0, IBS_SRC_OTHER | RMT, NB10), 0 },
	{ "Zen 4: CXL memory (DataSrcHi)", 0xF247, OPC(0x19, 0x11, IBS_CAP_ZEN4, 0, SRCHI(1), NBZ), 1 },
	{ "remote other", 0xF248, OP(0x10, 2, 0, IBS_SRC_OTHER | RMT, NB10), 1 },
	{ "local other is not remote", 0xF248, OP(0x10, 2, 0, IBS_SRC_OTHER, NB10), 0 },
	{ "cache hit in M", 0xF249, OP(0x10, 2, 0, IBS_SRC_CACHE, NB10), 1 },
	{ "cache hit in O is not M", 0xF249, OP(0x10, 2, 0, IBS_SRC_CACHE | OWN, NB10), 0 },
	{ "DRAM has no cache state", 0xF249, OP(0x10, 2, 0, IBS_SRC_DRAM, NB10), 0 },
	{ "cache hit in O", 0xF24A, OP(0x10, 2, 0, IBS_SRC_CACHE | OWN, NB10), 1 },
	{ "Zen 3: CacheHitSt invalid", 0xF24A, OP(0x19, 1, 0, IBS_ZEN_SRC_LOCAL_CACHE | OWN, NBZ), 0 },
	{ "local NB latency", 0xF24B, OP(0x10, 2, 0, IBS_SRC_DRAM, NB10 | DLAT(300)), 300 },
	{ "remote latency is not local", 0xF24B, OP(0x10, 2, 0, IBS_SRC_DRAM | RMT, NB10 | DLAT(300)), 0 },
	{ "remote NB latency", 0xF24C, OP(0x10, 2, 0, IBS_SRC_DRAM | RMT, NB10 | DLAT(300)), 300 },
	{ "local latency is not remote", 0xF24C, OP(0x10, 2, 0, IBS_SRC_DRAM, NB10 | DLAT(300)), 0 },
	/* ---- Zen 5 DTLB page size (Fn8000_001B_EAX[19]) ---- */
	{ "Zen 5: L1 hit, 2M", 0xF212, OPC(0x1A, 0x44, IBS_CAP_OPDTLBPGSIZE, 0, 0, LD | LIN | DPHY | (1ull << 4)), 1 },
	{ "Zen 5: no PhyAddrValid, no TLB data", 0xF203,
	  OPC(0x1A, 0x44, IBS_CAP_OPDTLBPGSIZE, 0, 0, LD | LIN | (1ull << 4)), 0 },
	{ "Zen 5: L2 hit, 1G", 0xF217,
	  OPC(0x1A, 0x44, IBS_CAP_OPDTLBPGSIZE, 0, 0, LD | LIN | DPHY | DTLB1 | (2ull << 4)), 1 },
	{ "Zen 5: bit 6 reserved", 0xF216,
	  OPC(0x1A, 0x44, IBS_CAP_OPDTLBPGSIZE, 0, 0, LD | LIN | DPHY | DTLB1 | L2_2M), 0 },
};

static struct ibs_sample make(const struct dcase *c)
{
	struct ibs_sample s;
	memset(&s, 0, sizeof(s));
	s.kind = c->kind;
	if (c->kind == IBS_KIND_FETCH) {
		s.have = (1u << IBS_F_CTL) | (1u << IBS_F_LINAD);
		s.v[IBS_F_CTL] = c->a | IBS_FETCH_VAL | IBS_FETCH_EN;
		s.v[IBS_F_LINAD] = c->b;
	} else {
		s.have = (1u << IBS_O_CTL) | (1u << IBS_O_RIP) | (1u << IBS_O_DATA) | (1u << IBS_O_DATA2) |
			 (1u << IBS_O_DATA3);
		s.v[IBS_O_CTL] = IBS_OP_VAL | IBS_OP_EN;
		s.v[IBS_O_RIP] = LINAD;
		s.v[IBS_O_DATA] = c->a;
		s.v[IBS_O_DATA2] = c->b;
		s.v[IBS_O_DATA3] = c->c;
	}
	return s;
}

static void decode_one(uint32_t family, uint32_t model, uint32_t caps, const struct ibs_sample *s,
		       struct ibs_counts *c)
{
	struct ibs_target t = { family, model, caps };
	struct ibs_profile p;
	assert_true(ibs_profile_get(&t, &p));
	ibs_decode(&p, s, c);
}

static void every_case(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct dcase *c = &cases[i];
		struct ibs_counts cnt;
		struct ibs_sample s = make(c);
		ibs_counts_clear(&cnt);
		decode_one(c->family, c->model, c->caps, &s, &cnt);
		uint64_t got = ibs_count(&cnt, c->code);
		if (got != c->expect)
			fail_msg("0x%04X \"%s\" (Family %xh model %xh): got %llu, expected %llu", c->code, c->what,
				 c->family, c->model, (unsigned long long)got, (unsigned long long)c->expect);
	}
}

static void every_event_has_both_cases(void **state)
{
	(void)state;
	assert_int_equal(ibs_derived_count(), IBS_NEVENTS);
	for (size_t i = 0; i < ibs_derived_count(); i++) {
		uint16_t code = ibs_derived_code(i);
		bool pos = false, neg = false;
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			if (cases[k].code != code)
				continue;
			pos |= cases[k].expect > 0;
			neg |= cases[k].expect == 0;
		}
		if (!pos || !neg)
			fail_msg("event 0x%04X lacks a %s case", code, pos ? "not-counted" : "counted");
	}
}

/* The 59 events of the seed (AMD Family 10h SOG App. G), plus F217 from AMD's CodeXL lists. */
static const uint16_t seed_codes[] = {
	0xF000, 0xF001, 0xF002, 0xF003, 0xF004, 0xF005, 0xF006, 0xF007, 0xF008, 0xF009, 0xF00A, 0xF00B,
	0xF00E, 0xF100, 0xF101, 0xF102, 0xF103, 0xF104, 0xF105, 0xF106, 0xF107, 0xF108, 0xF109, 0xF200,
	0xF201, 0xF202, 0xF203, 0xF204, 0xF205, 0xF206, 0xF207, 0xF208, 0xF209, 0xF20A, 0xF20B, 0xF20C,
	0xF20D, 0xF20E, 0xF20F, 0xF210, 0xF211, 0xF212, 0xF213, 0xF215, 0xF216, 0xF219, 0xF240, 0xF241,
	0xF242, 0xF243, 0xF244, 0xF245, 0xF246, 0xF247, 0xF248, 0xF249, 0xF24A, 0xF24B, 0xF24C,
};

static void computes_every_seed_event(void **state)
{
	(void)state;
	assert_int_equal(sizeof(seed_codes) / sizeof(seed_codes[0]), 59);
	for (size_t i = 0; i < sizeof(seed_codes) / sizeof(seed_codes[0]); i++)
		if (ibs_derived_index(seed_codes[i]) < 0)
			fail_msg("seed event 0x%04X has no rule", seed_codes[i]);
	assert_int_equal(ibs_derived_index(0xF217) >= 0, 1);
	assert_int_equal(ibs_derived_index(0xF00C), -1);
	/* Whatever the events/ table lists, we compute (it is filled from the same seed). */
	for (size_t i = 0; i < ibs_events_count(); i++) {
		const struct ibs_event_def *d = ibs_event_at(i);
		if (ibs_derived_index(d->code) < 0)
			fail_msg("events/ lists 0x%04X (%s) but ibs_decode has no rule", d->code, d->name);
	}
	/* Every event has a name from somewhere once the table is there; F217 always has ours. */
	assert_non_null(ibs_derived_name((size_t)ibs_derived_index(0xF217)));
}

static void killed_fetch_counts_only_in_all_and_killed(void **state)
{
	(void)state;
	struct ibs_counts c;
	struct dcase k = { "killed", 0, FETCH(0x10, 2, FLAT(77) | PG(1)), 0 };
	struct ibs_sample s = make(&k);

	ibs_counts_clear(&c);
	decode_one(0x10, 2, IBS_CAP_DEFAULT, &s, &c);
	for (size_t i = 0; i < ibs_derived_count(); i++) {
		uint16_t code = ibs_derived_code(i);
		uint64_t want = (code == 0xF000 || code == 0xF001) ? 1 : 0;
		if (c.ev[i] != want)
			fail_msg("killed fetch: 0x%04X = %llu", code, (unsigned long long)c.ev[i]);
	}
}

static void attempted_is_completed_plus_aborted(void **state)
{
	(void)state;
	/* Every combination of the outcome flags, with latencies. */
	static const uint64_t flags[] = { COMP, ICM, PHY, ITLB1, ITLB2 };
	struct ibs_counts c;
	uint64_t killed = 0, lat = 0;

	ibs_counts_clear(&c);
	for (unsigned m = 0; m < 32; m++) {
		uint64_t ctl = FLAT(m + 1);
		for (unsigned b = 0; b < 5; b++)
			if (m & (1u << b))
				ctl |= flags[b];
		struct dcase k = { "mix", 0, FETCH(0x10, 2, ctl), 0 };
		struct ibs_sample s = make(&k);
		decode_one(0x10, 2, IBS_CAP_DEFAULT, &s, &c);
		killed += m == 0;
		lat += m ? m + 1 : 0;
	}
	assert_int_equal(ibs_count(&c, 0xF000), 32);
	assert_int_equal(ibs_count(&c, 0xF001), killed);
	assert_int_equal(ibs_count(&c, 0xF002), 32 - killed);
	assert_int_equal(ibs_count(&c, 0xF002), ibs_count(&c, 0xF003) + ibs_count(&c, 0xF004));
	assert_int_equal(ibs_count(&c, 0xF003), 16);
	assert_int_equal(ibs_count(&c, 0xF008) + ibs_count(&c, 0xF009),
			 ibs_count(&c, 0xF003) + 8 /* IC misses that aborted */);
	assert_int_equal(ibs_count(&c, 0xF00E), lat);
}

static void dtlb_page_sizes_partition_the_hits(void **state)
{
	(void)state;
	/* All 2^9 combinations of the TLB bits, for a load with a linear address. */
	static const uint64_t bits[] = { DTLB1, DTLB2, L1_2M, L1_1G, L2_2M, L2_1G, LIN, ST, DCM };
	struct ibs_counts c;

	ibs_counts_clear(&c);
	for (unsigned m = 0; m < 512; m++) {
		uint64_t d3 = LD;
		for (unsigned b = 0; b < 9; b++)
			if (m & (1u << b))
				d3 |= bits[b];
		struct dcase k = { "tlb", 0, OP(0x10, 2, 0, 0, d3), 0 };
		struct ibs_sample s = make(&k);
		decode_one(0x10, 2, IBS_CAP_DEFAULT, &s, &c);
	}
	assert_true(ibs_count(&c, 0xF203) > 0 && ibs_count(&c, 0xF204) > 0);
	assert_int_equal(ibs_count(&c, 0xF211) + ibs_count(&c, 0xF212) + ibs_count(&c, 0xF213), ibs_count(&c, 0xF203));
	assert_int_equal(ibs_count(&c, 0xF215) + ibs_count(&c, 0xF216) + ibs_count(&c, 0xF217), ibs_count(&c, 0xF204));
	assert_int_equal(ibs_count(&c, 0xF203) + ibs_count(&c, 0xF204) + ibs_count(&c, 0xF205), 256);
	assert_int_equal(ibs_count(&c, 0xF206) + ibs_count(&c, 0xF207), ibs_count(&c, 0xF200));
	assert_int_equal(ibs_count(&c, 0xF200), 512);
}

static bool available(uint32_t family, uint32_t model, uint32_t caps, uint16_t code)
{
	struct ibs_target t = { family, model, caps };
	struct ibs_profile p;
	assert_true(ibs_profile_get(&t, &p));
	return ibs_derived_available(&p, (size_t)ibs_derived_index(code), NULL);
}

static void family_availability(void **state)
{
	(void)state;
	/* Family 10h defined them all. */
	for (size_t i = 0; i < ibs_derived_count(); i++)
		assert_true(available(0x10, 2, IBS_CAP_DEFAULT, ibs_derived_code(i)));
	/* Zen: load/store-unit detail bits, resync, MAB hit and "local L3" are gone. */
	static const uint16_t zen_gone[] = { 0xF109, 0xF209, 0xF20A, 0xF20B, 0xF20C, 0xF210, 0xF242 };
	for (size_t i = 0; i < sizeof(zen_gone) / sizeof(zen_gone[0]); i++)
		assert_false(available(0x17, 1, IBS_CAP_DEFAULT, zen_gone[i]));
	assert_true(available(0x17, 1, IBS_CAP_DEFAULT, 0xF241));
	assert_true(available(0x17, 1, IBS_CAP_DEFAULT, 0xF208));
	/* Zen 4's extended data source names the local CCX again. */
	assert_true(available(0x19, 0x11, IBS_CAP_DEFAULT | IBS_CAP_ZEN4, 0xF242));
	/* Zen 3: IcMiss (erratum 1238) and CacheHitSt are unreliable. */
	assert_false(available(0x19, 0x01, IBS_CAP_DEFAULT, 0xF008));
	assert_false(available(0x19, 0x01, IBS_CAP_DEFAULT, 0xF009));
	assert_false(available(0x19, 0x01, IBS_CAP_DEFAULT, 0xF249));
	assert_true(available(0x19, 0x61, IBS_CAP_DEFAULT, 0xF249));
	assert_false(available(0x19, 0x21, IBS_CAP_DEFAULT, 0xF24A));
	/* Single-node parts: nothing remote. */
	assert_false(available(0x12, 1, IBS_CAP_DEFAULT, 0xF241));
	assert_false(available(0x16, 0, IBS_CAP_DEFAULT, 0xF24C));
	assert_true(available(0x16, 0, IBS_CAP_DEFAULT, 0xF240));
	/* 15h models 00h-0Fh keep the store bank conflict? No: Family 10h and 12h only. */
	assert_false(available(0x15, 2, IBS_CAP_DEFAULT, 0xF20A));
	assert_true(available(0x15, 2, IBS_CAP_DEFAULT, 0xF209));
	/* Families without IBS have no profile. */
	struct ibs_target t = { 0x11, 3, 0 };
	struct ibs_profile p;
	assert_false(ibs_profile_get(&t, &p));
	t.family = 0xF;
	assert_false(ibs_profile_get(&t, &p));
	const char *why = NULL;
	t = (struct ibs_target){ 0x17, 1, IBS_CAP_DEFAULT };
	assert_true(ibs_profile_get(&t, &p));
	assert_false(ibs_derived_available(&p, (size_t)ibs_derived_index(0xF210), &why));
	assert_non_null(why);
	assert_non_null(strstr(why, "16"));
}

static void family_masking_10h_15h_17h(void **state)
{
	(void)state;
	/* One op, bits set everywhere, decoded as three families. */
	struct dcase k = { "all bits", 0, OP(0, 0, BR | IBS_OPD_BRN_RESYNC | RIPINV,
					    IBS_SRC_L3, NB10 | L2M | IBS_OPD3_LD_BNK_CON | IBS_OPD3_MAB_HIT), 0 };
	struct ibs_sample s = make(&k);
	struct ibs_counts c10, c15, c17;

	ibs_counts_clear(&c10);
	ibs_counts_clear(&c15);
	ibs_counts_clear(&c17);
	decode_one(0x10, 4, IBS_CAP_DEFAULT, &s, &c10);
	decode_one(0x15, 2, IBS_CAP_DEFAULT, &s, &c15);
	decode_one(0x17, 1, IBS_CAP_DEFAULT, &s, &c17);
	/* 10h: bit 38 reserved, so the sample counts, resync, bank conflict, MAB hit, L3 all count. */
	assert_int_equal(ibs_count(&c10, 0xF100), 1);
	assert_int_equal(ibs_count(&c10, 0xF109), 1);
	assert_int_equal(ibs_count(&c10, 0xF209), 1);
	assert_int_equal(ibs_count(&c10, 0xF210), 1);
	assert_int_equal(ibs_count(&c10, 0xF242), 1);
	assert_int_equal(c10.dropped[IBS_KIND_OP], 0);
	/* 15h and 17h: RipInvalid is real, so the op is dropped from every event. */
	for (size_t i = 0; i < ibs_derived_count(); i++) {
		assert_int_equal(c15.ev[i], 0);
		assert_int_equal(c17.ev[i], 0);
	}
	assert_int_equal(c15.dropped[IBS_KIND_OP], 1);
	assert_int_equal(c17.samples[IBS_KIND_OP], 1);
	/* Without RipInvalid, 17h: resync, bank conflict, MAB hit and source 1 are not counted. */
	s.v[IBS_O_DATA] &= ~RIPINV;
	ibs_counts_clear(&c17);
	decode_one(0x17, 1, IBS_CAP_DEFAULT, &s, &c17);
	assert_int_equal(ibs_count(&c17, 0xF100), 1);
	assert_int_equal(ibs_count(&c17, 0xF103), 1);
	assert_int_equal(ibs_count(&c17, 0xF109), 0);
	assert_int_equal(ibs_count(&c17, 0xF209), 0);
	assert_int_equal(ibs_count(&c17, 0xF210), 0);
	assert_int_equal(ibs_count(&c17, 0xF242), 0);
	assert_int_equal(ibs_count(&c17, 0xF240), 0);	/* source 1 is reserved: no valid source */
}

static void latency_sums_and_averages(void **state)
{
	(void)state;
	static const unsigned lat[] = { 120, 340, 65535, 1 };
	struct ibs_counts c;
	uint64_t sum = 0;
	int64_t avg;

	ibs_counts_clear(&c);
	for (size_t i = 0; i < 4; i++) {
		struct dcase k = { "load miss", 0, OP(0x10, 2, TAG2RET(lat[i]) | 3, IBS_SRC_DRAM | (i & 1 ? RMT : 0),
						     NB10 | DLAT(lat[i])), 0 };
		struct ibs_sample s = make(&k);
		decode_one(0x10, 2, IBS_CAP_DEFAULT, &s, &c);
		sum += lat[i];
	}
	/* A load that hit and a store that missed add nothing to the DC miss latency. */
	struct dcase hit = { "hit", 0, OP(0x10, 2, 0, 0, LD | DLAT(999)), 0 };
	struct dcase st = { "st", 0, OP(0x10, 2, 0, 0, ST | DCM | DLAT(999)), 0 };
	struct ibs_sample s1 = make(&hit), s2 = make(&st);
	decode_one(0x10, 2, IBS_CAP_DEFAULT, &s1, &c);
	decode_one(0x10, 2, IBS_CAP_DEFAULT, &s2, &c);

	assert_int_equal(ibs_count(&c, 0xF219), sum);
	assert_int_equal(c.dc_miss_loads, 4);
	assert_int_equal(ibs_count(&c, 0xF206), 5);	/* the store's miss is a DC miss too */
	assert_int_equal(ibs_count(&c, 0xF24B), 120 + 65535);
	assert_int_equal(ibs_count(&c, 0xF24C), 340 + 1);
	assert_int_equal(ibs_count(&c, 0xF24B) + ibs_count(&c, 0xF24C), sum);
	assert_int_equal(ibs_count(&c, 0xF101), sum);
	assert_int_equal(ibs_count(&c, 0xF102), 12);
	/* The documented average: F219 / loads that missed. */
	assert_true(ibs_ratio_milli(ibs_count(&c, 0xF219), c.dc_miss_loads, &avg));
	assert_int_equal(avg, (int64_t)((sum * 1000 + 2) / 4));
	assert_false(ibs_ratio_milli(5, 0, &avg));
	assert_true(ibs_ratio_milli(1, 3, &avg));
	assert_int_equal(avg, 333);
	assert_true(ibs_ratio_milli(2, 3, &avg));
	assert_int_equal(avg, 667);
}

static void missing_registers_read_as_zero(void **state)
{
	(void)state;
	struct ibs_sample s;
	struct ibs_counts c;

	memset(&s, 0, sizeof(s));
	s.kind = IBS_KIND_OP;
	s.have = 1u << IBS_O_CTL;
	s.v[IBS_O_DATA3] = LD | DCM;	/* not captured: must not count */
	ibs_counts_clear(&c);
	decode_one(0x17, 1, IBS_CAP_DEFAULT, &s, &c);
	assert_int_equal(ibs_count(&c, 0xF100), 1);
	assert_int_equal(ibs_count(&c, 0xF200), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_case),
		cmocka_unit_test(every_event_has_both_cases),
		cmocka_unit_test(computes_every_seed_event),
		cmocka_unit_test(killed_fetch_counts_only_in_all_and_killed),
		cmocka_unit_test(attempted_is_completed_plus_aborted),
		cmocka_unit_test(dtlb_page_sizes_partition_the_hits),
		cmocka_unit_test(family_availability),
		cmocka_unit_test(family_masking_10h_15h_17h),
		cmocka_unit_test(latency_sums_and_averages),
		cmocka_unit_test(missing_registers_read_as_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
