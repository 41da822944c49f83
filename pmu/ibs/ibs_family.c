/*
 * pmu/ibs/ibs_family.c - what IBS registers mean on each AMD family; see ibs.h.
 *
 * The derived events are defined over the Family 10h register layout (AMD
 * Software Optimization Guide for Family 10h/12h, App. G).  Later families
 * reserved some fields, gave bit 16 of IbsOpData3 another meaning, changed
 * the data-source encoding of IbsOpData2 and (Zen 5) the DTLB page-size
 * bits.  Rather than teach every rule every family, a raw sample is first
 * rewritten into the Family 10h meaning here; fields a family lacks are
 * cleared, and the events built on them are reported as not available.
 * Family lists: BKDGs and PPRs per family as summarised in ibs_regs.h, the
 * AMD Research IBS Toolkit (family-specific fields), and AMD's Linux perf
 * IBS code (errata 1197, 1238, 1293, 1347; Zen 4 / Zen 5 encodings).
 */
#include "pmu/ibs/ibs.h"
#include "pmu/ibs/ibs_regs.h"

/* ---- Registers --------------------------------------------------------------- */

static const struct ibs_reg_def fetch_regs[IBS_F_NREGS] = {
	[IBS_F_CTL] = { "IbsFetchCtl", IBS_MSR_FETCH_CTL, 0 },
	[IBS_F_LINAD] = { "IbsFetchLinAd", IBS_MSR_FETCH_LINAD, 0 },
	[IBS_F_PHYSAD] = { "IbsFetchPhysAd", IBS_MSR_FETCH_PHYSAD, 0 },
	[IBS_F_CTL_EXTD] = { "IbsFetchCtlExtd", IBS_MSR_FETCH_CTL_EXTD, IBS_CAP_FETCHCTLEXTD },
};

static const struct ibs_reg_def op_regs[IBS_O_NREGS] = {
	[IBS_O_CTL] = { "IbsOpCtl", IBS_MSR_OP_CTL, 0 },
	[IBS_O_RIP] = { "IbsOpRip", IBS_MSR_OP_RIP, 0 },
	[IBS_O_DATA] = { "IbsOpData", IBS_MSR_OP_DATA, 0 },
	[IBS_O_DATA2] = { "IbsOpData2", IBS_MSR_OP_DATA2, 0 },
	[IBS_O_DATA3] = { "IbsOpData3", IBS_MSR_OP_DATA3, 0 },
	[IBS_O_DC_LINAD] = { "IbsDcLinAd", IBS_MSR_DC_LINAD, 0 },
	[IBS_O_DC_PHYSAD] = { "IbsDcPhysAd", IBS_MSR_DC_PHYSAD, 0 },
	[IBS_O_BR_TARGET] = { "IbsBrTarget", IBS_MSR_BR_TARGET, IBS_CAP_BRNTRGT },
	[IBS_O_DATA4] = { "IbsOpData4", IBS_MSR_OP_DATA4, IBS_CAP_OPDATA4 },
};

const char *ibs_kind_name(enum ibs_kind k)
{
	return k == IBS_KIND_FETCH ? "fetch" : "op";
}

unsigned ibs_reg_count(enum ibs_kind k)
{
	return k == IBS_KIND_FETCH ? IBS_F_NREGS : IBS_O_NREGS;
}

const struct ibs_reg_def *ibs_reg_def(enum ibs_kind k, unsigned slot)
{
	if (slot >= ibs_reg_count(k))
		return NULL;
	return k == IBS_KIND_FETCH ? &fetch_regs[slot] : &op_regs[slot];
}

int ibs_reg_find(enum ibs_kind k, const char *name, size_t len)
{
	for (unsigned i = 0; i < ibs_reg_count(k); i++) {
		const char *n = ibs_reg_def(k, i)->name;
		if (strlen(n) == len && strncmp(n, name, len) == 0)
			return (int)i;
	}
	return -1;
}

/* ---- Families ---------------------------------------------------------------- */

#define F(x) IBS_FEAT_##x
/* Family 10h has every field the derived events were defined on. */
#define FEAT_K10 (F(RESYNC) | F(MISP_RETURN) | F(LD_BNK_CON) | F(ST_BNK_CON) | F(ST_TO_LD_FWD) | \
		  F(ST_TO_LD_CAN) | F(MAB_HIT) | F(DTLB_1G) | F(NB_REMOTE) | F(NB_HITST) | F(NB_L3) | F(IC_MISS))
/* Family 15h models 00h-0Fh (Bulldozer, Piledriver): the store bank conflict bit went. */
#define FEAT_BD ((FEAT_K10 & ~F(ST_BNK_CON)) | F(RIP_INVALID))
/* Zen: the load/store-unit detail bits 9-12 and the resync/return bits are reserved. */
#define FEAT_ZEN (F(RIP_INVALID) | F(DTLB_1G) | F(NB_REMOTE) | F(NB_HITST) | F(IC_MISS) | F(L2_MISS))

struct profile_row {
	uint32_t family, model_lo, model_hi;
	const char *name;
	uint32_t feat, errata;
};

/* First match wins. */
static const struct profile_row rows[] = {
	{ 0x10, 0x00, 0xFF, "Family 10h", FEAT_K10, IBS_ERR_420 },
	/* Llano: single node, no L3 (NbIbsReqSrc 1 reserved), DstProc/CacheHitSt reserved. */
	{ 0x12, 0x00, 0xFF, "Family 12h",
	  (FEAT_K10 & ~(F(NB_REMOTE) | F(NB_HITST) | F(NB_L3))) | F(RIP_INVALID), 0 },
	/* Bobcat: bits 5, 9, 10, 12, 19 of IbsOpData3 reserved; bit 16's meaning is not documented. */
	{ 0x14, 0x00, 0xFF, "Family 14h",
	  F(RESYNC) | F(MISP_RETURN) | F(RIP_INVALID) | F(ST_TO_LD_FWD) | F(IC_MISS), IBS_ERR_484 },
	{ 0x15, 0x00, 0x01, "Family 15h models 00h-01h", FEAT_BD, IBS_ERR_717 | IBS_ERR_718 },
	{ 0x15, 0x02, 0x0F, "Family 15h models 02h-0Fh", FEAT_BD, IBS_ERR_718 },
	/* Trinity/Richland: no L3, no resync/bank-conflict/forwarding bits. */
	{ 0x15, 0x10, 0x1F, "Family 15h models 10h-1Fh",
	  F(RIP_INVALID) | F(MAB_HIT) | F(DTLB_1G) | F(NB_REMOTE) | F(NB_HITST) | F(IC_MISS),
	  IBS_ERR_718 | IBS_ERR_719 },
	/* Kaveri and later: IbsL2Miss appears, bit 16 becomes DcMissNoMabAlloc. */
	{ 0x15, 0x20, 0xFF, "Family 15h models 20h-FFh",
	  F(RIP_INVALID) | F(DTLB_1G) | F(NB_REMOTE) | F(NB_HITST) | F(IC_MISS) | F(L2_MISS), 0 },
	/* Jaguar: single node, no L3. */
	{ 0x16, 0x00, 0xFF, "Family 16h",
	  F(RIP_INVALID) | F(ST_TO_LD_FWD) | F(DTLB_1G) | F(IC_MISS) | F(L2_MISS), 0 },
	{ 0x17, 0x00, 0xFF, "Family 17h", FEAT_ZEN, 0 },
	{ 0x18, 0x00, 0xFF, "Family 18h", FEAT_ZEN, 0 },
	/* Zen 3: CacheHitSt invalid, IcMiss unreliable, and more errata. */
	{ 0x19, 0x00, 0x0F, "Family 19h models 00h-0Fh", FEAT_ZEN & ~(F(NB_HITST) | F(IC_MISS)),
	  IBS_ERR_1197 | IBS_ERR_1238 | IBS_ERR_1293 | IBS_ERR_1347 },
	{ 0x19, 0x10, 0x1F, "Family 19h models 10h-1Fh", FEAT_ZEN, 0 },
	/* CacheHitSt is invalid on models 20h-5Fh too (AMD's Linux perf IBS code). */
	{ 0x19, 0x20, 0x5F, "Family 19h models 20h-5Fh", FEAT_ZEN & ~F(NB_HITST), 0 },
	{ 0x19, 0x60, 0xFF, "Family 19h models 60h-FFh", FEAT_ZEN, 0 },
	/* Zen 5: the Zen 4 layout; its DTLB page-size encoding is announced by 8000_001Bh EAX[19]. */
	{ 0x1A, 0x00, 0xFF, "Family 1Ah", FEAT_ZEN, 0 },
};

#define FAMILY_FIRST_IBS 0x10u
#define FAMILY_NO_IBS 0x11u	/* Family 11h (Griffin) has no IBS */
#define FAMILY_ZEN 0x17u
#define FAMILY_NEWEST_KNOWN 0x1Au

bool ibs_profile_get(const struct ibs_target *t, struct ibs_profile *p)
{
	const struct profile_row *row = NULL;

	memset(p, 0, sizeof(*p));
	if (t->family < FAMILY_FIRST_IBS || t->family == FAMILY_NO_IBS) {
		p->name = "a family without IBS";
		return false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(rows) && !row; i++)
		if (rows[i].family == t->family && t->model >= rows[i].model_lo && t->model <= rows[i].model_hi)
			row = &rows[i];
	if (row) {
		p->name = row->name;
		p->feat = row->feat;
		p->errata = row->errata;
	} else if (t->family > FAMILY_NEWEST_KNOWN) {
		/* Newer than any family documented here: decode as the last Zen family. */
		p->name = "a family after 1Ah (decoded as Family 1Ah)";
		p->feat = FEAT_ZEN;
	} else {
		p->name = "an AMD family without a documented IBS layout";
		return false;
	}
	p->op_curcnt_bits = t->family == 0x10 ? IBS_OP_CURCNT_BITS_FAM10 : IBS_OP_CURCNT_BITS;
	if (t->family < FAMILY_ZEN) {
		p->nb = IBS_NB_LEGACY;
	} else if (t->caps & IBS_CAP_ZEN4) {
		p->nb = IBS_NB_ZEN4;
		p->feat |= IBS_FEAT_NB_L3;	/* DataSrc 1: the local CCX's L3 or a peer L1/L2 */
	} else {
		p->nb = IBS_NB_ZEN;
	}
	p->dtlb_pgsz = t->family >= FAMILY_ZEN && (t->caps & IBS_CAP_OPDTLBPGSIZE);
	return true;
}

/* ---- Normalisation ------------------------------------------------------------ */

/* Bits cleared when the family lacks the feature. */
static const struct {
	uint32_t feat;
	uint8_t kind, slot;
	uint64_t bits;
} feature_bits[] = {
	{ IBS_FEAT_IC_MISS, IBS_KIND_FETCH, IBS_F_CTL, IBS_FETCH_IC_MISS },
	{ IBS_FEAT_RESYNC, IBS_KIND_OP, IBS_O_DATA, IBS_OPD_BRN_RESYNC },
	{ IBS_FEAT_MISP_RETURN, IBS_KIND_OP, IBS_O_DATA, IBS_OPD_MISP_RETURN },
	{ IBS_FEAT_RIP_INVALID, IBS_KIND_OP, IBS_O_DATA, IBS_OPD_RIP_INVALID },
	{ IBS_FEAT_LD_BNK_CON, IBS_KIND_OP, IBS_O_DATA3, IBS_OPD3_LD_BNK_CON },
	{ IBS_FEAT_ST_BNK_CON, IBS_KIND_OP, IBS_O_DATA3, IBS_OPD3_ST_BNK_CON },
	{ IBS_FEAT_ST_TO_LD_FWD, IBS_KIND_OP, IBS_O_DATA3, IBS_OPD3_ST_TO_LD_FWD },
	{ IBS_FEAT_ST_TO_LD_CAN, IBS_KIND_OP, IBS_O_DATA3, IBS_OPD3_ST_TO_LD_CAN },
	/* Where bit 16 means DcMissNoMabAlloc it is not a MAB hit. */
	{ IBS_FEAT_MAB_HIT, IBS_KIND_OP, IBS_O_DATA3, IBS_OPD3_MAB_HIT },
	{ IBS_FEAT_DTLB_1G, IBS_KIND_OP, IBS_O_DATA3, IBS_OPD3_L1TLB_HIT_1G | IBS_OPD3_L2TLB_HIT_1G },
	{ IBS_FEAT_L2_MISS, IBS_KIND_OP, IBS_O_DATA3, IBS_OPD3_L2_MISS | IBS_OPD3_SW_PF },
};

static void mask_features(const struct ibs_profile *p, struct ibs_sample *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(feature_bits); i++)
		if (feature_bits[i].kind == s->kind && !(p->feat & feature_bits[i].feat))
			s->v[feature_bits[i].slot] &= ~feature_bits[i].bits;
}

/* IbsL1TlbPgSz, erratum 1347's table (4K, 16K, 2M, 1G) mapped to the usual one; 16K has no event. */
static const uint8_t fetch_pgsz_1347[4] = { IBS_FETCH_PGSZ_4K, IBS_FETCH_PGSZ_RSVD, IBS_FETCH_PGSZ_2M,
					    IBS_FETCH_PGSZ_1G };

static bool normalize_fetch(const struct ibs_profile *p, struct ibs_sample *s)
{
	uint64_t *ctl = &s->v[IBS_F_CTL];

	if ((p->errata & IBS_ERR_1197) && (s->have & (1u << IBS_F_LINAD)) && s->v[IBS_F_LINAD] == 0)
		return false;
	if (p->errata & IBS_ERR_1347) {
		uint64_t code = (*ctl & IBS_FETCH_PGSZ_MASK) >> IBS_FETCH_PGSZ_SHIFT;
		*ctl = (*ctl & ~IBS_FETCH_PGSZ_MASK) | ((uint64_t)fetch_pgsz_1347[code] << IBS_FETCH_PGSZ_SHIFT);
	}
	mask_features(p, s);
	return true;
}

/* Where a data source goes in the Family 10h encoding, and how its node is known. */
enum { DST_BIT, DST_LOCAL, DST_REMOTE };
struct src_map {
	uint8_t src;	/* IBS_SRC_*; 0 = no valid source */
	uint8_t dst;
};

static const struct src_map legacy_map[8] = {
	[IBS_SRC_L3] = { IBS_SRC_L3, DST_BIT },
	[IBS_SRC_CACHE] = { IBS_SRC_CACHE, DST_BIT },
	[IBS_SRC_DRAM] = { IBS_SRC_DRAM, DST_BIT },
	[IBS_SRC_OTHER] = { IBS_SRC_OTHER, DST_BIT },
};
/* Zen 1-3 do not tell the local L3 from a peer cache: both are "local node cache". */
static const struct src_map zen_map[8] = {
	[IBS_ZEN_SRC_LOCAL_CACHE] = { IBS_SRC_CACHE, DST_LOCAL },
	[IBS_ZEN_SRC_DRAM] = { IBS_SRC_DRAM, DST_BIT },
	[IBS_ZEN_SRC_REMOTE_CACHE] = { IBS_SRC_CACHE, DST_REMOTE },
	[IBS_ZEN_SRC_OTHER] = { IBS_SRC_OTHER, DST_BIT },
};
static const struct src_map zen4_map[32] = {
	[IBS_ZEN4_SRC_LOCAL_CCX] = { IBS_SRC_L3, DST_LOCAL },
	[IBS_ZEN4_SRC_NEAR_CCX] = { IBS_SRC_CACHE, DST_LOCAL },
	[IBS_ZEN4_SRC_DRAM] = { IBS_SRC_DRAM, DST_BIT },
	[IBS_ZEN4_SRC_FAR_CCX] = { IBS_SRC_CACHE, DST_REMOTE },
	[IBS_ZEN4_SRC_PMEM] = { IBS_SRC_DRAM, DST_BIT },
	[IBS_ZEN4_SRC_IO] = { IBS_SRC_OTHER, DST_BIT },
	[IBS_ZEN4_SRC_EXT_MEM] = { IBS_SRC_OTHER, DST_BIT },
	[IBS_ZEN4_SRC_PEER_AGENT] = { IBS_SRC_OTHER, DST_BIT },
};

static uint64_t normalize_data_source(const struct ibs_profile *p, uint64_t d2)
{
	struct src_map m;
	bool remote;

	if (p->nb == IBS_NB_ZEN4)
		m = zen4_map[((d2 & IBS_OPD2_SRC_HI_MASK) >> (IBS_OPD2_SRC_HI_SHIFT - 3)) | (d2 & IBS_OPD2_SRC_MASK)];
	else if (p->nb == IBS_NB_ZEN)
		m = zen_map[d2 & IBS_OPD2_SRC_MASK];
	else
		m = legacy_map[d2 & IBS_OPD2_SRC_MASK];
	if (m.src == IBS_SRC_L3 && !(p->feat & IBS_FEAT_NB_L3))
		m.src = IBS_SRC_NONE;	/* value 1 is reserved on parts without an L3 */
	if (m.src == IBS_SRC_NONE)
		return 0;
	if (m.dst == DST_BIT)
		remote = (d2 & IBS_OPD2_DST_REMOTE) != 0;
	else
		remote = m.dst == DST_REMOTE;
	if (!(p->feat & IBS_FEAT_NB_REMOTE))
		remote = false;	/* single-node parts: the bit is reserved */
	return m.src | (remote ? IBS_OPD2_DST_REMOTE : 0) |
	       ((p->feat & IBS_FEAT_NB_HITST) ? (d2 & IBS_OPD2_HIT_OWNED) : 0);
}

/*
 * Zen 5: IbsOpData3[5:4] is the page size of whichever TLB level translated,
 * valid only with IbsDcPhyAddrValid; bits 6 and 19 are reserved.  Rewrite it
 * as the Hit2M/Hit1G flags of the level that hit.  Without a valid
 * translation the TLB bits say nothing, so LinAddrValid is cleared.
 */
static uint64_t normalize_dtlb_pgsz(uint64_t d3)
{
	static const uint64_t l1_flag[4] = { 0, IBS_OPD3_L1TLB_HIT_2M, IBS_OPD3_L1TLB_HIT_1G, 0 };
	static const uint64_t l2_flag[4] = { 0, IBS_OPD3_L2TLB_HIT_2M, IBS_OPD3_L2TLB_HIT_1G, 0 };
	unsigned code = (unsigned)((d3 & IBS_OPD3_PGSZ_MASK) >> IBS_OPD3_PGSZ_SHIFT);

	d3 &= ~(IBS_OPD3_PGSZ_MASK | IBS_OPD3_L2TLB_HIT_2M | IBS_OPD3_L2TLB_HIT_1G);
	if (!(d3 & IBS_OPD3_PHY_VALID) || code == 3)
		return d3 & ~IBS_OPD3_LIN_VALID;
	if (!(d3 & IBS_OPD3_L1TLB_MISS))
		return d3 | l1_flag[code];
	if (!(d3 & IBS_OPD3_L2TLB_MISS))
		return d3 | l2_flag[code];
	return d3;
}

static bool normalize_op(const struct ibs_profile *p, struct ibs_sample *s)
{
	uint64_t *d2 = &s->v[IBS_O_DATA2], *d3 = &s->v[IBS_O_DATA3];

	/* Errata first: they are stated on the raw bits. */
	if ((p->errata & IBS_ERR_1293) && (*d3 & (IBS_OPD3_NO_MAB_ALLOC | IBS_OPD3_SW_PF)))
		*d2 = 0;
	if ((p->errata & IBS_ERR_484) && (*d3 & IBS_OPD3_WC_MEM))
		*d2 = 0;
	if ((p->errata & IBS_ERR_717) && !(*d3 & IBS_OPD3_DC_MISS))
		*d3 &= ~IBS_OPD3_MAB_HIT;
	if (p->dtlb_pgsz)
		*d3 = normalize_dtlb_pgsz(*d3);
	*d2 = normalize_data_source(p, *d2);
	mask_features(p, s);
	return !(s->v[IBS_O_DATA] & IBS_OPD_RIP_INVALID);
}

bool ibs_normalize(const struct ibs_profile *p, const struct ibs_sample *in, struct ibs_sample *out)
{
	*out = *in;
	/* A register that was not captured reads as zero. */
	for (unsigned i = 0; i < IBS_MAX_REGS; i++)
		if (!(in->have & (1u << i)))
			out->v[i] = 0;
	return in->kind == IBS_KIND_FETCH ? normalize_fetch(p, out) : normalize_op(p, out);
}
