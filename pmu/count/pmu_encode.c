/* pmu/count/pmu_encode.c - see pmu_encode.h. */
#include "pmu/count/pmu_encode.h"

bool pmu_encode_select(const struct pmu_flavour *fl, bool any_ok, const struct event_spec *ev, uint64_t *sel,
		       char *err, size_t err_cap)
{
	*sel = 0;
	if (ev->event > fl->event_max) {
		snprintf(err, err_cap, "event '%s': event code 0x%x does not fit this PMU's %s-bit event select",
			 ev->name, ev->event, fl->event_max > 0xFF ? "12" : "8");
		return false;
	}
	if (ev->any && !(fl->sel_any && any_ok)) {
		snprintf(err, err_cap, "event '%s' asks for AnyThread counting, which this PMU does not offer%s",
			 ev->name, fl->sel_any ? " (deprecated: CPUID.0AH:EDX[15])" : "");
		return false;
	}
	uint64_t s = (ev->event & 0xFFull) | ((uint64_t)ev->umask << fl->umask_shift) |
		     ((uint64_t)ev->cmask << fl->cmask_shift);
	if (fl->event_hi_shift)
		s |= (uint64_t)(ev->event >> 8) << fl->event_hi_shift;
	if (ev->edge)
		s |= fl->sel_edge;
	if (ev->inv)
		s |= fl->sel_inv;
	if (ev->any)
		s |= fl->sel_any;
	*sel = s;
	return true;
}
