/*
 * pmu/count/count.h - the counting API used by the benchmark harness.
 *
 * The harness describes a set of events; the driver assigns them to
 * counters honouring the constraints (fixed-counter events to fixed
 * counters, "counter 0 only" and the like) and splits them into passes when
 * there are more events than counters.  For each pass the driver programs
 * the counters (disabled, zeroed) and hands back two short lists of MSR
 * writes: `start` enables counting and `stop` disables it.  The harness's
 * NASM measuring routine executes them immediately around the kernel, so
 * as few instructions as possible are counted that are not the kernel's.
 *
 * Backends: pmu/count/count_msr.c drives the MSRs (image, unit tests against the
 * fake PMU); host/count_perf.c uses perf_event_open on Linux, where
 * start/stop lists are empty and the enable/disable hooks are used instead.
 * Every MSR the driver writes is saved first and restored by count_restore()
 * on every exit path.
 */
#ifndef PMUBOOT_PMU_COUNT_COUNT_H
#define PMUBOOT_PMU_COUNT_COUNT_H

#include "events/events.h"
#include "cpu/cpu.h"
#include "pmu/caps/pmu_caps.h"
#include "lib/x86/msr_intel.h"

#define COUNT_MAX_EVENTS 24
#define COUNT_TOGGLE_MAX 12

/* One MSR write in a start/stop list; the layout is read by NASM (bench/measure.asm). */
struct msr_write {
	uint32_t msr;
	uint32_t reserved;
	uint64_t value;
};

struct count_toggle {
	uint32_t n;
	uint32_t reserved;
	struct msr_write w[COUNT_TOGGLE_MAX];
};

/* Which privilege levels an event counts at (select bits USR/OS, fixed-field bits 1/0). */
enum count_priv {
	COUNT_PRIV_ALL = 0,	/* USR and OS: the default, and what the image (ring 0) needs */
	COUNT_PRIV_USER,	/* USR only (CPL > 0) */
	COUNT_PRIV_KERNEL,	/* OS only (CPL 0) */
};

struct count_set {
	size_t n;
	struct event_spec ev[COUNT_MAX_EVENTS];
	/* Filled by count_schedule. */
	unsigned passes;
	uint8_t pass_of[COUNT_MAX_EVENTS];
	int8_t counter_of[COUNT_MAX_EVENTS];	/* general counter index, or -1 */
	int8_t fixed_of[COUNT_MAX_EVENTS];	/* fixed counter index, or -1 */
	/* Filled by count_pass_begin for the current pass. */
	struct count_toggle start, stop;
	/* Added after the first contract (zero-initialised sets get the defaults). */
	enum count_priv priv;	/* privilege levels counted: COUNT_PRIV_ALL (USR and OS) unless asked */
	uint64_t preset;	/* value counters start from: 0, or just below the wrap point to test overflow */
	/* Filled by count_schedule for offcore events: 0 = the event as given (its code with its msr),
	 * 1 = its other form (alt_event/alt_umask with msr_alt); -1 for the others.  The code and the
	 * OFFCORE_RSP MSR always change together. */
	int8_t form_of[COUNT_MAX_EVENTS];
	/* Filled by count_schedule: an AMD large-increment event, on the even counter counter_of[i]
	 * merged with the odd counter after it (which holds the Merge event: PPR 56176 §2.1.15.3, msr_amd.h). */
	bool merged_of[COUNT_MAX_EVENTS];
	/* Asked by the caller (the audit stage): */
	bool pmi;	/* every counter of a pass gets its interrupt-on-overflow bit (select INT bit 20,
			 * fixed-control field PMI bit 3) */
	bool metrics;	/* Intel PERF_METRICS: fixed counter 3 (TOPDOWN.SLOTS) in every pass, the start list
			 * sets IA32_PERF_GLOBAL_CTRL.EN_PERF_METRICS (bit 48), pass_begin zeroes
			 * IA32_FIXED_CTR3 then IA32_PERF_METRICS; refused without PERF_CAPABILITIES[15] */
};

/* What count_init needs from the run's options (force_counters=, verbose=). */
struct count_opts {
	bool force;	/* use counters found enabled by someone else (force_counters=on) */
	bool verbose;	/* report every MSR write (verbose=on) */
};

struct count_backend {
	const char *name;	/* "msr" or "perf" */
	/* Read the machine's state, decide what may be used; false = no counting (reason set). */
	bool (*init)(const struct cpu_info *ci, const struct pmu_caps *caps, const struct count_opts *opts,
		     char *why, size_t why_cap);
	bool (*schedule)(struct count_set *set, char *err, size_t err_cap);
	/* Program pass p (counters zeroed and disabled) and fill set->start / set->stop. */
	bool (*pass_begin)(struct count_set *set, unsigned pass, char *err, size_t err_cap);
	/* Optional C-level enable/disable (perf); NULL where the toggles do the work. */
	void (*enable)(struct count_set *set);
	void (*disable)(struct count_set *set);
	/* After stop: counts for the events of pass p, indexed like set->ev (others untouched).
	 * Each value is the count since pass_begin or the previous read of the pass, so a
	 * harness may run start/kernel/stop/read several times per pass_begin. */
	bool (*read)(struct count_set *set, unsigned pass, uint64_t *values, char *err, size_t err_cap);
	void (*pass_end)(struct count_set *set, unsigned pass);
	/* Restore every MSR written, exactly as found.  Safe to call more than once. */
	void (*restore)(void);
	/* Extra fields for the `pmu` record: counters found in use, what was forced. */
	void (*state_fields)(struct rec *r);
};

/* The backend in use: set once at start-up by the image or the host program
 * (pmuboot-host selects the perf backend from host/count_perf.c). */
void count_use_backend(const struct count_backend *b);
const struct count_backend *count_backend(void);
extern const struct count_backend count_backend_msr;

/*
 * Conveniences over the backend in use.  count_init runs its init and
 * remembers the outcome; count_available/count_unavailable_reason report
 * it.  count_restore puts back every MSR the run wrote (and leaves the
 * current pass stopped): call it at the end of a run, on an error, and from
 * the fatal-fault path; it is safe to call more than once.
 */
bool count_init(const struct cpu_info *ci, const struct pmu_caps *caps, const struct count_opts *opts, char *why,
		size_t why_cap);
bool count_available(void);
const char *count_unavailable_reason(void);
void count_restore(void);
/*
 * The processor whose MSRs were saved is gone (the firmware stopped a pass
 * that never returned): forget them without writing anything, so the next
 * processor's init does not "restore" another CPU's values onto itself.
 */
void count_forget(void);
void count_state_fields(struct rec *r);
/* One human line: counting ready (with the backend's name) or why not. */
void count_summary(void);

/* Events counted between two reads of a counter `width` bits wide, across one wrap. */
static inline uint64_t count_delta(uint64_t start, uint64_t end, unsigned width)
{
	uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
	return (end - start) & mask;
}

/*
 * PERF_METRICS fields as events of a set (the top-down metrics, pmu/metrics/): event 00H with unit mask
 * 80H + the field's byte, which is Linux perf's pseudo-encoding of them (arch/x86/events/intel/core.c,
 * INTEL_TD_METRIC_*: raw config 0x8000 + 0x100 x field), so the perf backend opens them as they are.
 * No counter counts one: the scheduler puts it in the pass of the set's TOPDOWN.SLOTS (fixed counter 3,
 * IA32_PERF_METRICS derives from it), and each read gives the slots it stands for over the same runs,
 * TOPDOWN.SLOTS x field / 0xFF, after which the MSR backend clears fixed counter 3 then PERF_METRICS
 * (the order of Intel SDM Vol. 3B §20.3.9.3) so that the next run's bytes are its own.
 */
#define COUNT_TD_UMASK_BASE 0x80
/* The PERF_METRICS field (0..7) a spec stands for, or -1. */
static inline int count_td_field(const struct event_spec *ev)
{
	return ev->event == 0 && ev->umask >= COUNT_TD_UMASK_BASE && ev->umask < COUNT_TD_UMASK_BASE + PERF_METRICS_FIELDS &&
			       !ev->cmask && !ev->inv && !ev->edge && !ev->any ? ev->umask - COUNT_TD_UMASK_BASE : -1;
}
/* The spec of PERF_METRICS field `field`, named name ("PERF_METRICS.MEMORY_BOUND"). */
void count_td_spec(unsigned field, const char *name, struct event_spec *out);
/* The slots a PERF_METRICS value's field stands for: slots x byte / 0xFF, rounded down as Linux does. */
uint64_t count_td_slots(uint64_t perf_metrics, unsigned field, uint64_t slots);

/* Execute a start or stop list from C (tests, and harnesses without the NASM routine). */
void count_toggle_apply(const struct count_toggle *t);

#endif
