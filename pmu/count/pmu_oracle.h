/*
 * pmu/count/pmu_oracle.h - what each event counts on each core, as the vendors describe it.
 *
 * The table (pmu_oracle_host.c, generated with pmu/count/oracle.csv by tools/gen_oracle.py from
 * ../shared/vendor-events) classifies every plain event of every event set whose vendor description
 * says it counts something the PMU model models: instructions, branches, SSE instructions, core
 * clocks, reference clocks at their stated rate, top-down slots and their shares, SMIs.  The PMU
 * model (pmu_model.h) counts by it, so the model answers from the vendors' text rather than from
 * the audit's own tables (pmu/audit/audit_events.c).  Host builds only.
 */
#ifndef PMUBOOT_PMU_COUNT_PMU_ORACLE_H
#define PMUBOOT_PMU_COUNT_PMU_ORACLE_H

#include "lib/libc.h"

/* What an event counts: tools/gen_oracle.py's COUNTS, in its order (PO_NONE: nothing modelled). */
enum pmu_oracle_counts {
	PO_NONE,
	PO_INSTRUCTIONS, PO_BRANCHES, PO_TAKEN_BRANCHES, PO_COND_BRANCHES, PO_COND_TAKEN, PO_COND_TAKEN_BWD,
	PO_COND_TAKEN_FWD, PO_COND_NOT_TAKEN, PO_SSE, PO_MMX_FP_ALL,
	PO_CORE_CLOCKS,		/* unhalted core clock cycles */
	PO_REF_TSC,		/* unhalted reference cycles at the TSC's rate */
	PO_REF_CRYSTAL,		/* at the core crystal clock (CPUID 15H ECX) */
	PO_REF_100MHZ,		/* at the 100 MHz base clock (Sandy Bridge to Broadwell) */
	PO_REF_133MHZ,		/* at the 133 MHz base clock (Nehalem, Westmere) */
	PO_BUS_CLOCKS,		/* front-side bus cycles (Core Duo, Core 2, Bonnell) */
	PO_SLOTS, PO_TD_RETIRING, PO_TD_BAD_SPEC, PO_TD_FE_BOUND, PO_TD_BE_BOUND, PO_TD_HEAVY, PO_TD_BR_MISPREDICT,
	PO_TD_FETCH_LATENCY, PO_TD_MEMORY_BOUND,
	PO_SMI,
	PO_COUNTS_N
};

/* For whom it counts: this logical processor, any thread of its core (AnyThread), this one alone. */
enum pmu_oracle_scope { PO_SCOPE_THREAD, PO_SCOPE_CORE, PO_SCOPE_ALONE };

struct pmu_oracle_row {
	const char *set;	/* event-set key (events/sets.csv) */
	const char *name;	/* the vendor's name, for people */
	uint16_t event;
	uint8_t umask, umask_ext;
	int8_t fixed;		/* fixed counter (event 00H, unit mask fixed + 1), or -1: a general-counter encoding */
	uint8_t any;		/* the AnyThread bit */
	uint8_t counts;		/* enum pmu_oracle_counts */
	uint8_t scope;		/* enum pmu_oracle_scope */
};

extern const struct pmu_oracle_row pmu_oracle_rows[];
extern const size_t pmu_oracle_n_rows;

/* The row of set `set` for this encoding (fixed: the fixed counter, or -1), or NULL. */
const struct pmu_oracle_row *pmu_oracle_find(const char *set, int fixed, uint16_t event, uint8_t umask,
					     uint8_t umask_ext, bool any);
/* Whether the table has any row of set `set` (the fallback sets have none). */
bool pmu_oracle_has_set(const char *set);

#endif
