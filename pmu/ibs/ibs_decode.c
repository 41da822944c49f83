/*
 * pmu/ibs/ibs_decode.c - the IBS derived events 0xF000-0xF24C; see ibs.h.
 *
 * Definitions: AMD Software Optimization Guide for Family 10h/12h (#40546),
 * Appendix G "Instruction-Based Sampling derived events" (seed 001), with
 * the exact bit tests of AMD's own tools (CodeAnalyst/CodeXL and the
 * OProfile IBS translator written by AMD's engineers):
 *  - a killed fetch (no outcome flag set) counts only in F000 and F001;
 *    every other fetch event is over attempted fetches, so F002 = F003 + F004;
 *  - op samples whose RIP is invalid are dropped (ibs_normalize);
 *  - every F2xx event is over ops that load and/or store;
 *  - northbridge events (F24x) only for loads that missed the DC with a valid
 *    data source (and missed the L2, on parts that report it);
 *  - latency events are sums; averages divide them by F002 (fetch) and by
 *    the loads that missed the DC (F219).
 * Each event is a row: a gate (which samples it looks at), one condition
 * "register & mask == value" on the normalised sample, and either +1 or the
 * sum of a 16-bit field.
 */
#include "pmu/ibs/ibs.h"
#include "pmu/ibs/ibs_regs.h"
#include "events/events.h"

enum gate {
	G_FETCH_ALL,		/* every fetch sample */
	G_FETCH_ATTEMPTED,	/* fetch samples that were not killed */
	G_OP_ALL,		/* every op sample */
	G_OP_LS,		/* ops that load or store */
	G_OP_NB,		/* loads that missed the DC with a valid data source */
};

#define NO_SUM 0xFF

/* Every event is one condition on top of its gate: (register & mask) == value. */
struct rule {
	uint16_t code;
	uint8_t gate;
	uint8_t slot;		/* register slot of the normalised sample the condition reads */
	uint64_t mask, value;
	uint8_t sum_slot;	/* NO_SUM: count samples; else add the 16-bit field at sum_shift */
	uint8_t sum_shift;
	uint32_t needs;		/* IBS_FEAT_* the event is built on */
};

/* Shorthands for the table. */
#define FC IBS_F_CTL
#define D1 IBS_O_DATA
#define D2 IBS_O_DATA2
#define D3 IBS_O_DATA3
#define T(slot, mask, value) slot, mask, value
#define SET(slot, bits) T(slot, bits, bits)
#define CLR(slot, bits) T(slot, bits, 0)
#define ALL(slot, mask, bits) T(slot, mask, bits)
#define ANY T(FC, 0, 0)

/* Fetch bits. */
#define COMP IBS_FETCH_COMP
#define ICM IBS_FETCH_IC_MISS
#define PHY IBS_FETCH_PHY_VALID
#define ITLB1 IBS_FETCH_L1TLB_MISS
#define ITLB2 IBS_FETCH_L2TLB_MISS
#define PGSZ IBS_FETCH_PGSZ_MASK
#define PG(code) ((code) << IBS_FETCH_PGSZ_SHIFT)
/* Op bits. */
#define BR IBS_OPD_BRN_RET
#define MISP IBS_OPD_BRN_MISP
#define TAKEN IBS_OPD_BRN_TAKEN
#define RET IBS_OPD_RETURN
#define LD IBS_OPD3_LD_OP
#define ST IBS_OPD3_ST_OP
#define LIN IBS_OPD3_LIN_VALID
#define DTLB1 IBS_OPD3_L1TLB_MISS
#define DTLB2 IBS_OPD3_L2TLB_MISS
#define L1_2M IBS_OPD3_L1TLB_HIT_2M
#define L1_1G IBS_OPD3_L1TLB_HIT_1G
#define L2_2M IBS_OPD3_L2TLB_HIT_2M
#define L2_1G IBS_OPD3_L2TLB_HIT_1G
#define DCM IBS_OPD3_DC_MISS
#define SRC IBS_OPD2_SRC_MASK
#define RMT IBS_OPD2_DST_REMOTE
#define OWN IBS_OPD2_HIT_OWNED

#define COUNT NO_SUM, 0
#define SUM(slot, shift) slot, shift

/* The order is the order of the records' "events" object: the seed's. */
static const struct rule rules[] = {
	/* ---- Fetch ---- */
	{ 0xF000, G_FETCH_ALL, ANY, COUNT, 0 },
	{ 0xF001, G_FETCH_ALL, CLR(FC, IBS_FETCH_OUTCOME_MASK), COUNT, 0 },
	{ 0xF002, G_FETCH_ATTEMPTED, ANY, COUNT, 0 },
	{ 0xF003, G_FETCH_ATTEMPTED, SET(FC, COMP), COUNT, 0 },
	{ 0xF004, G_FETCH_ATTEMPTED, CLR(FC, COMP), COUNT, 0 },
	{ 0xF005, G_FETCH_ATTEMPTED, ALL(FC, ITLB1 | PHY, PHY), COUNT, 0 },
	{ 0xF006, G_FETCH_ATTEMPTED, ALL(FC, ITLB1 | ITLB2, ITLB1), COUNT, 0 },
	{ 0xF007, G_FETCH_ATTEMPTED, SET(FC, ITLB1 | ITLB2), COUNT, 0 },
	{ 0xF008, G_FETCH_ATTEMPTED, SET(FC, ICM), COUNT, IBS_FEAT_IC_MISS },
	{ 0xF009, G_FETCH_ATTEMPTED, ALL(FC, COMP | ICM, COMP), COUNT, IBS_FEAT_IC_MISS },
	{ 0xF00A, G_FETCH_ATTEMPTED, ALL(FC, PHY | PGSZ, PHY | PG(IBS_FETCH_PGSZ_4K)), COUNT, 0 },
	{ 0xF00B, G_FETCH_ATTEMPTED, ALL(FC, PHY | PGSZ, PHY | PG(IBS_FETCH_PGSZ_2M)), COUNT, 0 },
	{ 0xF00E, G_FETCH_ATTEMPTED, ANY, SUM(FC, IBS_FETCH_LAT_SHIFT), 0 },
	/* ---- Op: all ops, branches ---- */
	{ 0xF100, G_OP_ALL, ANY, COUNT, 0 },
	{ 0xF101, G_OP_ALL, ANY, SUM(D1, IBS_OPD_TAG_TO_RET_SHIFT), 0 },
	{ 0xF102, G_OP_ALL, ANY, SUM(D1, 0), 0 },
	{ 0xF103, G_OP_ALL, SET(D1, BR), COUNT, 0 },
	{ 0xF104, G_OP_ALL, SET(D1, BR | MISP), COUNT, 0 },
	{ 0xF105, G_OP_ALL, SET(D1, BR | TAKEN), COUNT, 0 },
	{ 0xF106, G_OP_ALL, SET(D1, BR | TAKEN | MISP), COUNT, 0 },
	{ 0xF107, G_OP_ALL, SET(D1, BR | RET), COUNT, 0 },
	/* AMD's tools test BrnMisp here, not IbsOpMispReturn. */
	{ 0xF108, G_OP_ALL, SET(D1, BR | RET | MISP), COUNT, 0 },
	{ 0xF109, G_OP_ALL, SET(D1, IBS_OPD_BRN_RESYNC), COUNT, IBS_FEAT_RESYNC },
	/* ---- Op: loads and stores ---- */
	{ 0xF200, G_OP_LS, ANY, COUNT, 0 },
	{ 0xF201, G_OP_LS, SET(D3, LD), COUNT, 0 },
	{ 0xF202, G_OP_LS, SET(D3, ST), COUNT, 0 },
	{ 0xF203, G_OP_LS, ALL(D3, LIN | DTLB1, LIN), COUNT, 0 },
	{ 0xF204, G_OP_LS, ALL(D3, LIN | DTLB1 | DTLB2, LIN | DTLB1), COUNT, 0 },
	{ 0xF205, G_OP_LS, SET(D3, LIN | DTLB1 | DTLB2), COUNT, 0 },
	{ 0xF206, G_OP_LS, SET(D3, DCM), COUNT, 0 },
	{ 0xF207, G_OP_LS, CLR(D3, DCM), COUNT, 0 },
	{ 0xF208, G_OP_LS, SET(D3, IBS_OPD3_MISALIGNED), COUNT, 0 },
	{ 0xF209, G_OP_LS, SET(D3, IBS_OPD3_LD_BNK_CON), COUNT, IBS_FEAT_LD_BNK_CON },
	{ 0xF20A, G_OP_LS, SET(D3, IBS_OPD3_ST_BNK_CON), COUNT, IBS_FEAT_ST_BNK_CON },
	{ 0xF20B, G_OP_LS, SET(D3, LD | IBS_OPD3_ST_TO_LD_FWD), COUNT, IBS_FEAT_ST_TO_LD_FWD },
	{ 0xF20C, G_OP_LS, SET(D3, LD | IBS_OPD3_ST_TO_LD_CAN), COUNT, IBS_FEAT_ST_TO_LD_CAN },
	{ 0xF20D, G_OP_LS, SET(D3, IBS_OPD3_UC_MEM), COUNT, 0 },
	{ 0xF20E, G_OP_LS, SET(D3, IBS_OPD3_WC_MEM), COUNT, 0 },
	{ 0xF20F, G_OP_LS, SET(D3, IBS_OPD3_LOCKED), COUNT, 0 },
	{ 0xF210, G_OP_LS, SET(D3, IBS_OPD3_MAB_HIT), COUNT, IBS_FEAT_MAB_HIT },
	/* Page sizes partition the hits: F211 + F212 + F213 = F203, F215 + F216 + F217 = F204. */
	{ 0xF211, G_OP_LS, ALL(D3, LIN | DTLB1 | L1_2M | L1_1G, LIN), COUNT, 0 },
	{ 0xF212, G_OP_LS, ALL(D3, LIN | DTLB1 | L1_2M, LIN | L1_2M), COUNT, 0 },
	{ 0xF213, G_OP_LS, ALL(D3, LIN | DTLB1 | L1_2M | L1_1G, LIN | L1_1G), COUNT, IBS_FEAT_DTLB_1G },
	{ 0xF215, G_OP_LS, ALL(D3, LIN | DTLB1 | DTLB2 | L2_2M | L2_1G, LIN | DTLB1), COUNT, 0 },
	{ 0xF216, G_OP_LS, ALL(D3, LIN | DTLB1 | DTLB2 | L2_2M, LIN | DTLB1 | L2_2M), COUNT, 0 },
	/* Not in the seed; in AMD's CodeXL event lists for Families 10h-17h. */
	{ 0xF217, G_OP_LS, ALL(D3, LIN | DTLB1 | DTLB2 | L2_2M | L2_1G, LIN | DTLB1 | L2_1G), COUNT,
	  IBS_FEAT_DTLB_1G },
	{ 0xF219, G_OP_LS, SET(D3, LD | DCM), SUM(D3, IBS_OPD3_DC_MISS_LAT_SHIFT), 0 },
	/* ---- Northbridge (data source), normalised to the Family 10h encoding ---- */
	{ 0xF240, G_OP_NB, CLR(D2, RMT), COUNT, 0 },
	{ 0xF241, G_OP_NB, SET(D2, RMT), COUNT, IBS_FEAT_NB_REMOTE },
	{ 0xF242, G_OP_NB, ALL(D2, RMT | SRC, IBS_SRC_L3), COUNT, IBS_FEAT_NB_L3 },
	{ 0xF243, G_OP_NB, ALL(D2, RMT | SRC, IBS_SRC_CACHE), COUNT, 0 },
	{ 0xF244, G_OP_NB, ALL(D2, RMT | SRC, RMT | IBS_SRC_CACHE), COUNT, IBS_FEAT_NB_REMOTE },
	{ 0xF245, G_OP_NB, ALL(D2, RMT | SRC, IBS_SRC_DRAM), COUNT, 0 },
	{ 0xF246, G_OP_NB, ALL(D2, RMT | SRC, RMT | IBS_SRC_DRAM), COUNT, IBS_FEAT_NB_REMOTE },
	{ 0xF247, G_OP_NB, ALL(D2, RMT | SRC, IBS_SRC_OTHER), COUNT, 0 },
	{ 0xF248, G_OP_NB, ALL(D2, RMT | SRC, RMT | IBS_SRC_OTHER), COUNT, IBS_FEAT_NB_REMOTE },
	{ 0xF249, G_OP_NB, ALL(D2, OWN | SRC, IBS_SRC_CACHE), COUNT, IBS_FEAT_NB_HITST },
	{ 0xF24A, G_OP_NB, ALL(D2, OWN | SRC, OWN | IBS_SRC_CACHE), COUNT, IBS_FEAT_NB_HITST },
	{ 0xF24B, G_OP_NB, CLR(D2, RMT), SUM(D3, IBS_OPD3_DC_MISS_LAT_SHIFT), 0 },
	{ 0xF24C, G_OP_NB, SET(D2, RMT), SUM(D3, IBS_OPD3_DC_MISS_LAT_SHIFT), IBS_FEAT_NB_REMOTE },
};

_Static_assert(ARRAY_SIZE(rules) == IBS_NEVENTS, "IBS_NEVENTS must match the rule table");

size_t ibs_derived_count(void) { return ARRAY_SIZE(rules); }

uint16_t ibs_derived_code(size_t i) { return i < ARRAY_SIZE(rules) ? rules[i].code : 0; }

int ibs_derived_index(uint16_t code)
{
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
		if (rules[i].code == code)
			return (int)i;
	return -1;
}

enum ibs_kind ibs_derived_kind(size_t i)
{
	return rules[i].gate <= G_FETCH_ATTEMPTED ? IBS_KIND_FETCH : IBS_KIND_OP;
}

bool ibs_derived_is_sum(size_t i) { return rules[i].sum_slot != NO_SUM; }

/* Names of the events we compute beyond the seed (events/ names the rest). */
static const struct {
	uint16_t code;
	const char *name, *abbrev;
} extra_names[] = {
	{ 0xF217, "IBS L2 DTLB 1-GByte page", "IBS L2 DTLB 1G" },
};

const char *ibs_derived_name(size_t i)
{
	const struct ibs_event_def *d = ibs_event_find(rules[i].code);
	if (d && d->name)
		return d->name;
	for (size_t k = 0; k < ARRAY_SIZE(extra_names); k++)
		if (extra_names[k].code == rules[i].code)
			return extra_names[k].name;
	return NULL;
}

const char *ibs_derived_abbrev(size_t i)
{
	const struct ibs_event_def *d = ibs_event_find(rules[i].code);
	if (d && d->abbrev)
		return d->abbrev;
	for (size_t k = 0; k < ARRAY_SIZE(extra_names); k++)
		if (extra_names[k].code == rules[i].code)
			return extra_names[k].abbrev;
	return NULL;
}

/* Why an event is missing, by the feature it needs. */
static const struct {
	uint32_t feat;
	const char *why;
} missing[] = {
	{ IBS_FEAT_IC_MISS, "IbsIcMiss is unreliable on this family (erratum 1238)" },
	{ IBS_FEAT_RESYNC, "IbsOpBrnResync is reserved on this family" },
	{ IBS_FEAT_LD_BNK_CON, "IbsDcLdBnkCon is reserved on this family" },
	{ IBS_FEAT_ST_BNK_CON, "IbsDcStBnkCon is reserved on this family" },
	{ IBS_FEAT_ST_TO_LD_FWD, "IbsDcStToLdFwd is reserved on this family" },
	{ IBS_FEAT_ST_TO_LD_CAN, "IbsDcStToLdCan is reserved on this family" },
	{ IBS_FEAT_MAB_HIT, "IbsOpData3[16] is not IbsDcMabHit on this family" },
	{ IBS_FEAT_DTLB_1G, "the 1-GByte DTLB bits are reserved on this family" },
	{ IBS_FEAT_NB_REMOTE, "the data source does not tell local from remote on this family" },
	{ IBS_FEAT_NB_HITST, "the cache hit state (M/O) is reserved or invalid on this family" },
	{ IBS_FEAT_NB_L3, "no data source means the local L3 on this family" },
};

bool ibs_derived_available(const struct ibs_profile *p, size_t i, const char **why)
{
	uint32_t lack = rules[i].needs & ~p->feat;

	if (!lack)
		return true;
	if (why) {
		*why = "not on this family";
		for (size_t k = 0; k < ARRAY_SIZE(missing); k++)
			if (lack & missing[k].feat)
				*why = missing[k].why;
	}
	return false;
}

void ibs_counts_clear(struct ibs_counts *c) { memset(c, 0, sizeof(*c)); }

static bool gate_open(enum gate g, const struct ibs_profile *p, const struct ibs_sample *n)
{
	uint64_t d3 = n->v[D3];

	switch (g) {
	case G_FETCH_ALL:
	case G_OP_ALL:
		return true;
	case G_FETCH_ATTEMPTED:
		return (n->v[FC] & IBS_FETCH_OUTCOME_MASK) != 0;
	case G_OP_LS:
		return (d3 & (LD | ST)) != 0;
	case G_OP_NB:
		/* AMD: NB data is valid only for loads that missed the DC (and the L2). */
		if ((d3 & (LD | DCM)) != (LD | DCM) || (n->v[D2] & SRC) == IBS_SRC_NONE)
			return false;
		return !(p->feat & IBS_FEAT_L2_MISS) || (d3 & IBS_OPD3_L2_MISS);
	}
	return false;
}

void ibs_decode(const struct ibs_profile *p, const struct ibs_sample *s, struct ibs_counts *c)
{
	struct ibs_sample n;
	enum ibs_kind kind = s->kind == IBS_KIND_FETCH ? IBS_KIND_FETCH : IBS_KIND_OP;

	c->samples[kind]++;
	if (!ibs_normalize(p, s, &n)) {
		c->dropped[kind]++;
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		const struct rule *r = &rules[i];

		if (ibs_derived_kind(i) != kind || !gate_open((enum gate)r->gate, p, &n) ||
		    (n.v[r->slot] & r->mask) != r->value)
			continue;
		if (r->sum_slot == NO_SUM)
			c->ev[i]++;
		else
			c->ev[i] += (n.v[r->sum_slot] >> r->sum_shift) & IBS_FIELD16;
	}
	if (kind == IBS_KIND_OP && (n.v[D3] & (LD | DCM)) == (LD | DCM))
		c->dc_miss_loads++;
}

uint64_t ibs_count(const struct ibs_counts *c, uint16_t code)
{
	int i = ibs_derived_index(code);
	return i < 0 ? 0 : c->ev[i];
}
