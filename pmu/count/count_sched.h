/*
 * pmu/count/count_sched.h - assigning events to counters and passes.
 *
 * Shared by the MSR and perf backends.  Each event may go to the fixed
 * counter that counts it (when that counter is usable and the event has no
 * cmask/inv/edge qualifier) or to any usable general counter its counter
 * restriction allows: its catalogue row's `counters` (its `counters_htoff`
 * list when the PMU shows more than four general counters per thread, i.e.
 * SMT is off on Sandy Bridge to Cascade Lake), or for a raw spec no row
 * encodes exactly, the CPU's event set's rule for its code and unit mask or
 * its code (events_code_rule); on AMD the family rules (events_amd_rule)
 * apply to every event as well.  The result uses the fewest passes the
 * search finds (a bipartite matching against `passes` copies of the
 * counters, with passes tried from the lower bound upwards), is
 * deterministic, and puts an event on its fixed counter whenever that is
 * possible.
 *
 * The vendor's other constraints: an architectural event CPUID.0AH:EBX (or
 * EAX[31:24]) marks unavailable gets no general counter; an offcore event
 * takes the OFFCORE_RSP MSR of the form it is programmed in (OFFCORE_RSP_0
 * for B7H, OFFCORE_RSP_1 for BBH ...; code and MSR change together), so two
 * offcore events share a pass only through the two forms; a TakenAlone
 * event has its pass's general counters to itself (fixed counters still
 * count); an AMD large-increment event takes an even counter and the odd
 * one beside it (set->merged_of); AnyThread is refused where the PMU lacks
 * or deprecates it; events needing machinery pmuboot does not drive (PEBS
 * load latency and front-end MSRs, the extended unit mask, a bare offcore
 * event with no response value) are refused with the reason.
 * docs/counters.md lists them.
 */
#ifndef PMUBOOT_PMU_COUNT_COUNT_SCHED_H
#define PMUBOOT_PMU_COUNT_COUNT_SCHED_H

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
	/* Intel architectural PMU: CPUID.0AH EAX[31:24] and EBX (a set bit = event unavailable). */
	bool arch_pmu;
	uint8_t arch_len;
	uint32_t arch_absent;
	bool arch_only;				/* no core table: only CPUID.0AH's events are known */
	bool offcore;				/* OFFCORE_RSP_0/1 (MSR 1A6H/1A7H) exist */
	/* Added with issue 22 (zero: not known, nothing extra applied). */
	const struct event_set *events;		/* the CPU's event set: its rules by code for raw specs */
	unsigned amd_family;			/* AMD/Hygon display family: events/amd_rules.csv applies */
	bool any_absent;			/* the PMU has no AnyThread bit (before v3, P6, AMD) */
	bool any_deprecated;			/* CPUID.0AH:EDX[15]: AnyThread deprecated, refused */
};

/* The architectural event (CPUID.0AH:EBX bit) an encoding is, or -1 (SDM Vol. 3B Table 20-1). */
int count_sched_arch_bit(const struct event_spec *ev);

/* Fill set->passes, pass_of, counter_of, fixed_of; false with a message naming the event. */
bool count_sched_assign(struct count_set *set, const struct count_slots *s, char *err, size_t err_cap);

/* "pmc2" / "fixed0" / "-" for an event's assignment. */
const char *count_sched_counter_name(const struct count_set *set, size_t i, char buf[16]);

#endif
