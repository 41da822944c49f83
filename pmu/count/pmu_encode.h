/*
 * pmu/count/pmu_encode.h - an event spec as select-register bits.
 *
 * The same encoding serves the MSR backend (which adds USR/OS/EN) and the
 * perf backend (PERF_TYPE_RAW's config is the select without those bits,
 * on AMD with event bits 11:8 at 35:32, as Linux expects).
 */
#ifndef PMUBOOT_PMU_COUNT_PMU_ENCODE_H
#define PMUBOOT_PMU_COUNT_PMU_ENCODE_H

#include "events/events.h"
#include "pmu/caps/pmu_flavour.h"

/* Event, umask, edge, inv, any, cmask in fl's layout; false with a message naming the event. */
bool pmu_encode_select(const struct pmu_flavour *fl, bool any_ok, const struct event_spec *ev, uint64_t *sel,
		       char *err, size_t err_cap);

#endif
