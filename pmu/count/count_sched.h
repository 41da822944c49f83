/*
 * pmu/count/count_sched.h - assigning events to counters and passes.
 *
 * Shared by the MSR and perf backends.  Each event may go to the fixed
 * counter that counts it (when that counter is usable and the event has no
 * cmask/inv/edge qualifier) or to any usable general counter its
 * `counters` mask allows.  The result uses the fewest passes any assignment
 * could (a bipartite matching against `passes` copies of the counters,
 * with passes tried from the lower bound upwards), is deterministic, and
 * puts an event on its fixed counter whenever that is possible.
 */
#ifndef PMUBOOT_PMU_COUNT_SCHED_H
#define PMUBOOT_PMU_COUNT_SCHED_H

#include "pmu/count/count.h"

#define COUNT_SCHED_MAX_GP 16
#define COUNT_SCHED_MAX_FIXED 16

struct count_slots {
	uint32_t gp_usable, fixed_usable;	/* counters we may program, bit per counter */
	/* For the error messages: what exists, and what someone else holds. */
	unsigned n_gp, n_fixed;
	uint32_t gp_exists, fixed_exists;
	uint32_t gp_in_use, fixed_in_use;	/* found enabled and not forced */
	bool event0_fixed_only;			/* event code 0 means "fixed counter only" (Intel) */
};

/* Fill set->passes, pass_of, counter_of, fixed_of; false with a message naming the event. */
bool count_sched_assign(struct count_set *set, const struct count_slots *s, char *err, size_t err_cap);

/* "pmc2" / "fixed0" / "-" for an event's assignment. */
const char *count_sched_counter_name(const struct count_set *set, size_t i, char buf[16]);

#endif
