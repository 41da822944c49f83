/*
 * pmu/count/count_td.c - the PERF_METRICS fields as events (count.h): their
 * specs and the slots a field stands for.  Arithmetic only, below count.c
 * (the backend's dispatcher) and the MSR backend that reads the fields, so
 * that neither reaches the other for it.
 */
#include "pmu/count/count.h"

void count_td_spec(unsigned field, const char *name, struct event_spec *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->event = 0;
	out->umask = (uint8_t)(COUNT_TD_UMASK_BASE + (field < PERF_METRICS_FIELDS ? field : 0));
	out->fixed = EV_NO_FIXED;
}

uint64_t count_td_slots(uint64_t perf_metrics, unsigned field, uint64_t slots)
{
	if (field >= PERF_METRICS_FIELDS)
		return 0;
	uint64_t byte = (perf_metrics >> (field * PERF_METRICS_FIELD_BITS)) & PERF_METRICS_FULL;
	/* slots x byte may pass 2^64 for a long run: divide first, then the remainder's share (exact). */
	return slots / PERF_METRICS_FULL * byte + slots % PERF_METRICS_FULL * byte / PERF_METRICS_FULL;
}
