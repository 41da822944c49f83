/*
 * pmu/count.h - the counting API used by the benchmark harness.
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
 * Backends: pmu/count_msr.c drives the MSRs (image, unit tests against the
 * fake PMU); tools/host/count_perf.c uses perf_event_open on Linux, where
 * start/stop lists are empty and the enable/disable hooks are used instead.
 * Every MSR the driver writes is saved first and restored by count_restore()
 * on every exit path.
 */
#ifndef PMUBOOT_PMU_COUNT_H
#define PMUBOOT_PMU_COUNT_H

#include "../events/events.h"
#include "../lib/config.h"
#include "cpu.h"
#include "pmu_caps.h"

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
};

struct count_backend {
	const char *name;	/* "msr" or "perf" */
	/* Read the machine's state, decide what may be used; false = no counting (reason set). */
	bool (*init)(const struct cpu_info *ci, const struct pmu_caps *caps, const struct config *cfg,
		     char *why, size_t why_cap);
	bool (*schedule)(struct count_set *set, char *err, size_t err_cap);
	/* Program pass p (counters zeroed and disabled) and fill set->start / set->stop. */
	bool (*pass_begin)(struct count_set *set, unsigned pass, char *err, size_t err_cap);
	/* Optional C-level enable/disable (perf); NULL where the toggles do the work. */
	void (*enable)(struct count_set *set);
	void (*disable)(struct count_set *set);
	/* After stop: counts for the events of pass p, indexed like set->ev (others untouched). */
	bool (*read)(struct count_set *set, unsigned pass, uint64_t *values, char *err, size_t err_cap);
	void (*pass_end)(struct count_set *set, unsigned pass);
	/* Restore every MSR written, exactly as found.  Safe to call more than once. */
	void (*restore)(void);
	/* Extra fields for the `pmu` record: counters found in use, what was forced. */
	void (*state_fields)(struct rec *r);
};

/* The backend in use: set once at start-up by the image or the host program. */
void count_use_backend(const struct count_backend *b);
const struct count_backend *count_backend(void);
extern const struct count_backend count_backend_msr;

#endif
