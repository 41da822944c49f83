/*
 * pmu/ibs/ibs.h - AMD Instruction-Based Sampling: collection, decoding and the
 * derived events (0xF000-0xF24C).
 *
 * Five parts, one file each (the run's IBS step, which joins them to the
 * benchmarks, is run/ibs_stage.c):
 *   ibs_family.c   what each family's registers mean: reserved bits, fields
 *                  whose meaning changed, errata; normalises a raw sample
 *                  into the Family 10h meaning the derived events are
 *                  defined in;
 *   ibs_decode.c   the derived events, as a table of rules over normalised
 *                  samples;
 *   ibs_ctl.c      programming the hardware: arm, collect (NMI or polled),
 *                  re-arm, disable, into a bounded sample buffer;
 *   ibs_report.c   the `ibs` and `ibs_sample` records and readable lines;
 *   ibs_capture_host.c  reading `ibs_sample` / `ibs` records back from a
 *                  capture (host-only), so pmuboot-host ibs-report decodes
 *                  with the same code.
 * Register layouts and their sources: pmu/ibs/ibs_regs.h (MSR numbers in
 * lib/x86/msr_amd.h).  docs/ibs.md explains
 * the rules and choices.
 */
#ifndef PMUBOOT_PMU_IBS_IBS_H
#define PMUBOOT_PMU_IBS_IBS_H

#include "lib/libc.h"
#include "cpu/cpu.h"
#include "pmu/caps/pmu_caps.h"

/* ---- Samples ---------------------------------------------------------------- */

enum ibs_kind { IBS_KIND_FETCH, IBS_KIND_OP, IBS_KINDS };

/* Register slots of a fetch sample and of an op sample (ibs_reg_def gives names and MSRs). */
enum { IBS_F_CTL, IBS_F_LINAD, IBS_F_PHYSAD, IBS_F_CTL_EXTD, IBS_F_NREGS };
enum {
	IBS_O_CTL, IBS_O_RIP, IBS_O_DATA, IBS_O_DATA2, IBS_O_DATA3, IBS_O_DC_LINAD, IBS_O_DC_PHYSAD,
	IBS_O_BR_TARGET, IBS_O_DATA4, IBS_O_NREGS
};
#define IBS_MAX_REGS 9

struct ibs_sample {
	uint8_t kind;		/* enum ibs_kind */
	uint16_t have;		/* bit n set: v[n] was captured */
	uint64_t v[IBS_MAX_REGS];
};

struct ibs_reg_def {
	const char *name;	/* AMD's name, e.g. "IbsOpData3" */
	uint32_t msr;
	uint32_t cap;		/* IBS_CAP_* the register needs, 0 = always present */
};
const char *ibs_kind_name(enum ibs_kind k);	/* "fetch", "op" */
unsigned ibs_reg_count(enum ibs_kind k);
const struct ibs_reg_def *ibs_reg_def(enum ibs_kind k, unsigned slot);
/* Slot of the register called name[0..len) in samples of kind k, or -1. */
int ibs_reg_find(enum ibs_kind k, const char *name, size_t len);

/* ---- What a family's registers mean (ibs_family.c) --------------------------- */

/* The CPU a sample came from: decoding depends on family, model and CPUID 8000_001Bh. */
struct ibs_target {
	uint32_t family, model;
	uint32_t caps;		/* Fn8000_001B_EAX as used (IBS_CAP_DEFAULT when IBSFFV is clear) */
};

/* Fields that exist (and so the derived events built on them) per family. */
#define IBS_FEAT_RESYNC (1u << 0)	/* IbsOpBrnResync */
#define IBS_FEAT_MISP_RETURN (1u << 1)	/* IbsOpMispReturn */
#define IBS_FEAT_RIP_INVALID (1u << 2)	/* IbsRipInvalid */
#define IBS_FEAT_LD_BNK_CON (1u << 3)	/* IbsDcLdBnkCon */
#define IBS_FEAT_ST_BNK_CON (1u << 4)	/* IbsDcStBnkCon */
#define IBS_FEAT_ST_TO_LD_FWD (1u << 5)	/* IbsDcStToLdFwd */
#define IBS_FEAT_ST_TO_LD_CAN (1u << 6)	/* IbsDcStToLdCan */
#define IBS_FEAT_MAB_HIT (1u << 7)	/* IbsOpData3[16] means IbsDcMabHit */
#define IBS_FEAT_DTLB_1G (1u << 8)	/* IbsDcL1TlbHit1G, IbsDcL2TlbHit1G */
#define IBS_FEAT_NB_REMOTE (1u << 9)	/* IbsOpData2[4]: local/remote node */
#define IBS_FEAT_NB_HITST (1u << 10)	/* IbsOpData2[5]: M/O state of a cache hit */
#define IBS_FEAT_NB_L3 (1u << 11)	/* a data source meaning the local L3 */
#define IBS_FEAT_IC_MISS (1u << 12)	/* IbsIcMiss is reliable */
#define IBS_FEAT_L2_MISS (1u << 13)	/* IbsL2Miss, IbsSwPf */

/* Errata and quirks that change collection or decoding (ibs_regs.h [ERR]). */
#define IBS_ERR_420 (1u << 0)	/* Fam 10h: disable with MaxCnt=0 first */
#define IBS_ERR_484 (1u << 1)	/* Fam 14h: IbsOpData2 invalid for WC accesses */
#define IBS_ERR_717 (1u << 2)	/* Fam 15h 00h-01h: IbsDcMabHit set without a DC miss */
#define IBS_ERR_718 (1u << 3)	/* Fam 15h 00h-1Fh: IbsOpData3 TLB bits sticky; zero it at re-arm */
#define IBS_ERR_719 (1u << 4)	/* Fam 15h 10h-1Fh: IbsFetchCnt writes ignored */
#define IBS_ERR_1197 (1u << 5)	/* Fam 19h 00h-0Fh: fetch samples with IbsFetchLinAd=0 are bogus */
#define IBS_ERR_1238 (1u << 6)	/* Fam 19h 00h-0Fh: IbsIcMiss unreliable */
#define IBS_ERR_1293 (1u << 7)	/* Fam 19h 00h-0Fh: IbsOpData2 invalid with NoMabAlloc or SwPf */
#define IBS_ERR_1347 (1u << 8)	/* Fam 19h 00h-0Fh: IbsL1TlbPgSz uses another table */

enum ibs_nb_encoding {
	IBS_NB_LEGACY,		/* NbIbsReqSrc, Families 10h-16h */
	IBS_NB_ZEN,		/* DataSrc 3 bits, Families 17h-19h without IBS_CAP_ZEN4 */
	IBS_NB_ZEN4,		/* DataSrc 5 bits (IBS_CAP_ZEN4) */
};

struct ibs_profile {
	const char *name;	/* e.g. "Family 15h models 00h-0Fh" */
	uint32_t feat;		/* IBS_FEAT_* */
	uint32_t errata;	/* IBS_ERR_* */
	enum ibs_nb_encoding nb;
	bool dtlb_pgsz;		/* Zen 5 page-size encoding in IbsOpData3[5:4] */
	unsigned op_curcnt_bits;	/* width of IbsOpCurCnt */
};

/* False (with p->name saying why) for a family without IBS. */
bool ibs_profile_get(const struct ibs_target *t, struct ibs_profile *p);

/*
 * Normalise a raw sample into the Family 10h meaning: reserved bits cleared,
 * errata applied, the data source mapped to NbIbsReqSrc, Zen 5 DTLB bits
 * mapped to the Hit2M/Hit1G flags.  Returns false when the sample must be
 * dropped (an erratum-1197 fetch, an op whose RIP is invalid).
 */
bool ibs_normalize(const struct ibs_profile *p, const struct ibs_sample *in, struct ibs_sample *out);

/* ---- Derived events (ibs_decode.c) ------------------------------------------ */

#define IBS_NEVENTS 60

struct ibs_counts {
	uint64_t ev[IBS_NEVENTS];	/* indexed like ibs_derived_code() */
	uint64_t samples[IBS_KINDS];	/* samples seen, dropped ones included */
	uint64_t dropped[IBS_KINDS];	/* erratum-1197 fetches, RIP-invalid ops */
	uint64_t dc_miss_loads;		/* loads that missed the DC: divides F219 */
};

size_t ibs_derived_count(void);
uint16_t ibs_derived_code(size_t i);
int ibs_derived_index(uint16_t code);	/* -1 when not an event we compute */
enum ibs_kind ibs_derived_kind(size_t i);
bool ibs_derived_is_sum(size_t i);	/* a latency/cycle sum rather than a sample count */
/* Name and abbreviation: events/ table by code, or our own for events outside the seed. */
const char *ibs_derived_name(size_t i);
const char *ibs_derived_abbrev(size_t i);
/* Whether event i exists on this family; false sets *why when why is not NULL. */
bool ibs_derived_available(const struct ibs_profile *p, size_t i, const char **why);

void ibs_counts_clear(struct ibs_counts *c);
/* Add one raw sample (normalised inside). */
void ibs_decode(const struct ibs_profile *p, const struct ibs_sample *s, struct ibs_counts *c);
/* The count (or sum) of event code; 0 for an unknown code. */
uint64_t ibs_count(const struct ibs_counts *c, uint16_t code);

/* ---- Collection (ibs_ctl.c) -------------------------------------------------- */

enum ibs_delivery { IBS_DELIVERY_NONE, IBS_DELIVERY_NMI, IBS_DELIVERY_POLLED };
const char *ibs_delivery_name(enum ibs_delivery d);

/* Samples held per kernel variant; more are counted as overflow (80 bytes each, in the image file). */
#define IBS_BUF_SAMPLES 128

struct ibs_ctl_params {
	struct ibs_target target;
	bool fetch, op;		/* what to sample */
	uint64_t period;	/* ibs_period: fetches (fetch sampling), ops (op sampling) */
	uint32_t seed;		/* randomisation seed (the TSC at start) */
};

/* Decided once by ibs_ctl_init. */
struct ibs_ctl_info {
	bool fetch, op;
	uint64_t fetch_period, op_period;	/* as programmed (units of 16) */
	bool op_counts_ops;	/* IbsOpCntCtl: ops; false: cycles */
	bool op_rand_curcnt;	/* low bits randomised in IbsOpCurCnt (else in MaxCnt) */
	bool nmi_possible;	/* IBS_CTL names a valid LVT offset */
	unsigned lvt_offset;
	const char *polled_reason;	/* why NMI delivery will not be tried, or NULL */
	char note[192];		/* adjustments made to the request, "" if none */
};

/* Per kernel variant. */
struct ibs_ctl_stats {
	enum ibs_delivery delivery;
	char delivery_note[160];	/* why polled, when NMI routing was refused (room for a 95-byte reason) */
	uint32_t slices;
	uint64_t nmis;			/* NMIs that found a sample */
	uint64_t late_nmis;		/* NMIs while disarmed, absorbed */
	uint64_t spurious_nmis;		/* NMIs while armed without a valid sample */
	uint64_t overflow;		/* samples lost because the buffer was full */
	uint64_t msr_faults;
	uint32_t fault_msr;		/* the first MSR that faulted */
	int fault_code;
};

/* Probe the MSRs and decide periods and delivery.  False with the reason when IBS cannot be driven. */
bool ibs_ctl_init(const struct ibs_ctl_params *p, struct ibs_ctl_info *info, char *why, size_t why_cap);
/* Empty the buffer and route the NMI (falling back to polling). */
void ibs_ctl_variant_begin(void);
/* Inside the interrupts-off window around each kernel run. */
void ibs_ctl_arm(void);
void ibs_ctl_disarm(void);
/* Disable, unroute, keep the samples for reading. */
void ibs_ctl_variant_end(void);
size_t ibs_ctl_sample_count(void);
const struct ibs_sample *ibs_ctl_sample_at(size_t i);
const struct ibs_ctl_stats *ibs_ctl_stats(void);
const struct ibs_ctl_info *ibs_ctl_info(void);
/* Leave both samplers disabled (also after a failed init).  Safe to call more than once. */
void ibs_ctl_shutdown(void);
/* The processor IBS was set up on is gone (see count_forget): drop the state without touching hardware. */
void ibs_ctl_forget(void);

/* ---- Records (ibs_report.c) ------------------------------------------------- */

struct ibs_variant_report {
	const char *source;	/* "image" or "capture" */
	const char *kernel, *variant;
	uint32_t arena_page;	/* 0 when not relevant or unknown */
	struct ibs_target target;
	bool sampled[IBS_KINDS];
	const struct ibs_counts *counts;
	/* Collection details, image only (NULL from a capture). */
	const struct ibs_ctl_info *info;
	const struct ibs_ctl_stats *stats;
};

/* `ibs` record with "available":false, once per run. */
void ibs_report_absent(const char *reason);
/* `ibs` record for one kernel variant. */
void ibs_report_variant(const struct ibs_variant_report *v);
/* `ibs_sample` record (ibs_raw=on). */
void ibs_report_sample(const struct ibs_target *t, const char *kernel, const char *variant,
		       const struct ibs_sample *s);
/* One readable line per variant; the full table (pmuboot-host ibs-report only). */
void ibs_report_line(const struct ibs_variant_report *v);
void ibs_report_table(const struct ibs_variant_report *v);
/* A ratio num/den in thousandths, rounded; false when den is 0. */
bool ibs_ratio_milli(uint64_t num, uint64_t den, int64_t *milli);

/* ---- Reading captures (ibs_capture.c, pmuboot-host and tests only) ------------ */

enum ibs_line_type {
	IBS_LINE_OTHER,		/* not a record, or another record type */
	IBS_LINE_SAMPLE,	/* an ibs_sample record */
	IBS_LINE_VARIANT,	/* an ibs record for a kernel variant */
	IBS_LINE_ABSENT,	/* an ibs record with "available":false */
	IBS_LINE_ERROR,		/* an ibs/ibs_sample record that cannot be read: see err */
};

struct ibs_capture_item {
	char kernel[64], variant[64];
	uint32_t family, model;
	bool have_caps;
	uint32_t caps;		/* "ibs_caps" of an ibs record */
	bool have_sampled;
	bool sampled[IBS_KINDS];
	uint32_t arena_page;
	struct ibs_sample sample;	/* IBS_LINE_SAMPLE */
};

/*
 * Classify and read one line of a capture (serial log or .jsonl): a record only
 * with the prefix at the line start (lib/capture.h), read as strict JSON with
 * every field type-checked.
 */
enum ibs_line_type ibs_capture_parse(const char *line, size_t len, struct ibs_capture_item *it, char *err,
				     size_t err_cap);


#endif
