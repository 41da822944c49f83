/*
 * pmu/count/count_msr_int.h - what the MSR backend's files share (internal to pmu/count/count_msr*.c),
 * each calling only the ones below it:
 *   count_msr.c         the backend: init (read what is there), scheduling, the queries for tools
 *   count_msr_pass.c    one pass: planning, programming, the start/stop lists, reading, ending it
 *   count_msr_report.c  restoring, and the records (pmu fields, restore, program)
 *   count_msr_state.c   the state (msr_st) and the primitives below: notes, msr_put, the stop list
 */
#ifndef PMUBOOT_PMU_COUNT_COUNT_MSR_INT_H
#define PMUBOOT_PMU_COUNT_COUNT_MSR_INT_H

#include "pmu/count/count_msr.h"
#include "pmu/count/count_sched.h"
#include "pmu/count/msr_save.h"
#include "pmu/caps/pmu_flavour.h"
#include "platform/hw.h"

#define MAX_GP COUNT_SCHED_MAX_GP
#define MAX_FIXED COUNT_SCHED_MAX_FIXED
#define MAX_NOTES 3

/* The backend's one state: what init found, and the pass programmed now. */
struct count_msr_state {
	bool ready, force, verbose, hypervisor;
	const struct pmu_flavour *fl;
	unsigned n_gp, n_fixed, gp_width, fixed_width;
	bool full_width, any_ok;
	bool arch_pmu, offcore;			/* CPUID.0AH architectural PMU; OFFCORE_RSP MSRs (v3 on) */
	bool arch_only;				/* the CPU has no core event table, only CPUID.0AH's */
	const struct event_set *events;		/* the CPU's event set: the scheduler's rules by code */
	unsigned amd_family;			/* AMD/Hygon display family for events/amd_rules.csv, else 0 */
	bool metrics_ok;			/* PERF_METRICS usable: PERF_CAPABILITIES[15], MSR saved */
	uint32_t gp_expected;			/* general counters the CPU enumerates (23H.1 or 0AH) */
	bool legacy_writes;			/* counters written through IA32_PMCx / P6 PerfCtr: 31:0 only */
	uint8_t arch_len;
	uint32_t arch_absent;
	uint32_t gp_exists, fixed_exists, gp_missing, fixed_missing;
	uint32_t gp_in_use, fixed_in_use;	/* found enabled */
	uint32_t gp_usable, fixed_usable;
	uint64_t found_sel[MAX_GP];
	uint64_t found_fixed_ctrl, found_global, found_status;
	uint64_t keep_global;	/* global-control bits of counters held by others */
	uint64_t keep_fixed;	/* fixed-control fields of counters held by others */
	const char *notes[MAX_NOTES];
	unsigned nnotes;
	/* The pass programmed now. */
	struct count_set *set;
	int pass;
	uint64_t base[COUNT_MAX_EVENTS];
	uint64_t pass_status_bits;
	bool pass_td;				/* the pass reads PERF_METRICS fields (count.h) */
	/* The start/stop lists last tried through the safe accessor (a harness re-programs every run). */
	struct count_toggle checked_start, checked_stop;
	bool checked;
	/* Passes whose `program` record was emitted (verbose), for the set with this signature. */
	uint64_t recorded_sig;
	uint32_t recorded;
	char why[192];
};
extern struct count_msr_state msr_st;	/* count_msr_state.c */

/* Population count without libgcc (the image links none). */
static inline unsigned bits(uint32_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

static inline uint64_t mask_of(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }
static inline uint32_t sel_msr(unsigned c) { return msr_st.fl->sel_base + c * msr_st.fl->stride; }
static inline uint32_t ctr_msr(unsigned c) { return msr_st.fl->ctr_base + c * msr_st.fl->stride; }
static inline uint32_t ctr_write_msr(unsigned c) { return msr_st.full_width ? msr_st.fl->ctr_fw_base + c : ctr_msr(c); }
static inline uint32_t fixed_msr(unsigned f) { return msr_st.fl->fixed_ctr_base + f; }
static inline unsigned field_shift(unsigned f) { return f * msr_st.fl->fixed_field_bits; }
static inline uint64_t field_mask(void) { return (1ull << msr_st.fl->fixed_field_bits) - 1; }
static inline uint64_t gp_global_bit(unsigned c) { return 1ull << c; }
static inline uint64_t fixed_global_bit(unsigned f) { return 1ull << (msr_st.fl->global_fixed_shift + f); }

/* ---- the primitives below every other file (count_msr_state.c) ---- */

/* A note for the pmu record (at most MAX_NOTES). */
void msr_note(const char *s);
/* Write only when the register does not already hold the value. */
int msr_put(uint32_t msr, uint64_t val);
/* An MSR access's outcome in words: "#GP", "could not save its value first", ... */
const char *msr_fault_text(int r);
/* Run the stop list now (phase: the log's label). */
void msr_apply_stop(const struct count_set *set, const char *phase);

/* The `program` record (verbose=on): once per pass of a set (count_msr_report.c). */
void msr_emit_program(const struct count_set *set, unsigned p, uint64_t mark);

/* Does the set hold PERF_METRICS fields (count.h count_td_field)?  Only on an architectural PMU. */
static inline bool count_msr_has_td(const struct count_set *set)
{
	for (size_t i = 0; msr_st.arch_pmu && i < set->n; i++)
		if (count_td_field(&set->ev[i]) >= 0)
			return true;
	return false;
}

/* The backend's entries (count_msr_pass.c, count_msr_report.c). */
bool msr_pass_begin(struct count_set *set, unsigned pass, char *err, size_t err_cap);
bool msr_read_pass(struct count_set *set, unsigned pass, uint64_t *values, char *err, size_t err_cap);
void msr_pass_end(struct count_set *set, unsigned pass);
void msr_restore(void);
void msr_state_fields(struct rec *r);

#endif
