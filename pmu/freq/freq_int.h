/*
 * pmu/freq/freq_int.h - between the files of pmu/freq/ (not for other rooms).
 *
 * A control is found by its vendor's probe (freq_intel.c, freq_amd.c), which
 * reads and never writes.  It describes what the processor offers as a list
 * of levels, each a value for the control's register and the frequency it
 * stands for, and carries its own apply, which writes through the clock's
 * save list (freq_save.c).  freq.c chooses the level and keeps the result;
 * freq_measure.c measures the clock.
 */
#ifndef PMUBOOT_PMU_FREQ_FREQ_INT_H
#define PMUBOOT_PMU_FREQ_FREQ_INT_H

#include "pmu/freq/freq.h"
#include "pmu/count/msr_save.h"

#define FREQ_LEVELS_MAX 256	/* HWP and CPPC levels are 8-bit fields */

struct freq_level {
	uint32_t value;		/* ratio, HWP/CPPC performance level, or P-state number */
	uint32_t mhz;
};

struct freq_plat;

/* What apply wrote, or why it could not. */
struct freq_apply {
	bool wrote;		/* an MSR was written (the save list holds it) */
	bool failed;		/* a write faulted or did not read back: nothing is pinned */
	char why[224];		/* when failed */
	char boost_done[160];	/* what was done about boost */
	bool boost_on_after;	/* boost is allowed once apply is done */
};

struct freq_plat {
	const char *control;			/* hwp, perf_ctl, amd_cppc, amd_pstate */
	struct freq_level level[FREQ_LEVELS_MAX];	/* ascending frequency */
	unsigned nlevels;
	unsigned base;				/* index of the base (nominal, non-boost) level */
	bool boost_exists;			/* the part can run above base */
	bool boost_switch;			/* and there is a per-processor switch for it */
	bool boost_on;				/* boost allowed as found */
	/* Boost runs above the top level by itself (AMD P0 with core performance boost): the top is a floor. */
	bool top_open_with_boost;
	/*
	 * The levels above base are a boost range the hardware reaches only as
	 * conditions allow, at frequencies no register states (AMD CPPC: ACPI's
	 * Highest Performance "may not be sustainable"): measured, not judged.
	 */
	bool above_base_unjudged;
	char note[200];				/* where base and the levels came from */
	/* Write the request for lv (NULL: only boost) and the boost choice. */
	void (*apply)(const struct freq_plat *p, const struct freq_level *lv, enum freq_boost b, struct freq_apply *out);
	/* The control's own registers as found, for apply. */
	uint64_t req, boost_reg;
	uint32_t top_value;			/* HWP/CPPC: the highest level's value */
};

/*
 * Probes: true with *p filled when this processor has a control; false with
 * why (nothing usable, and the reason) otherwise.  Read-only.
 */
bool freq_intel_probe(const struct cpu_info *ci, struct freq_plat *p, char *why, size_t cap);
bool freq_amd_probe(const struct cpu_info *ci, struct freq_plat *p, char *why, size_t cap);

/*
 * Append a level (ascending order is the caller's); false when the list is full.
 * Here and not in freq.c: the probes below freq.c fill the list, and calling up
 * into it would make the two depend on each other.
 */
static inline bool freq_level_add(struct freq_plat *p, uint32_t value, uint32_t mhz)
{
	if (p->nlevels == FREQ_LEVELS_MAX)
		return false;
	p->level[p->nlevels++] = (struct freq_level){ value, mhz };
	return true;
}

/* ---- the save list (freq_save.c) ---- */

#define FREQ_EUNSAVED MSR_SAVE_EUNSAVED	/* the MSR could not be read to save it, or the list is full */
#define FREQ_ENOTHELD (-101)	/* written, but it read back otherwise */

/*
 * Save msr (first time only), write val, read it back.  HW_OK; the fault;
 * FREQ_EUNSAVED (nothing written); FREQ_ENOTHELD with *got (saved: restore
 * puts it back).
 */
int freq_save_write(uint32_t msr, uint64_t val, uint64_t *got);
/* Write val after comparing with what the MSR holds now: nothing is written when equal. */
int freq_save_update(uint32_t msr, uint64_t val, bool *wrote, uint64_t *got);
size_t freq_save_count(void);

/* Every saved MSR back, newest first, each read back; then the list is empty. */
void freq_save_restore(struct msr_restore_result *res);
void freq_save_forget(void);
/* A write's outcome in words: "#GP", "could not be read to save it first", ... */
const char *freq_err_text(int r);
/*
 * For apply: write val to msr (name: for the reason) through freq_save_update;
 * false with out->failed and out->why when it faulted or did not hold.
 */
bool freq_apply_write(struct freq_apply *out, uint32_t msr, const char *name, uint64_t val);

/* ---- the measurement (freq_measure.c) ---- */

struct freq_measurement {
	bool ok;
	uint32_t mhz;
	uint32_t mperf_per_tsc_milli;
	unsigned samples;
	bool settled;		/* the last two samples agreed (else the last one is reported) */
	char why[160];
};
void freq_measure(uint64_t tsc_hz, struct freq_measurement *m);

#endif
