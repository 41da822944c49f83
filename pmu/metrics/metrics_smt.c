/* pmu/metrics/metrics_smt.c - HYPERTHREADING_ON for counts of one thread; see metrics.h. */
#include "pmu/metrics/metrics.h"
#include "lib/strbuf.h"

void metrics_smt_form(int threads, const char *siblings_busy, struct metrics_smt *out)
{
	memset(out, 0, sizeof(*out));
	threads = threads > 0 ? threads : -1;	/* none counted in the core (not even this one): not known */
	out->threads = threads;
	out->known = true;
	out->form = "per-thread";
	if (threads == 1) {
		out->siblings = "none";
		snprintf(out->why, sizeof(out->why), "SMT off: this core has one enabled thread");
		return;
	}
	if (!siblings_busy) {
		/* Parked, or none: either way the measured thread alone ran. */
		out->siblings = "parked";
		if (threads > 1)
			snprintf(out->why, sizeof(out->why),
				 "SMT on (%d threads in this core), but the sibling is parked while this thread measures: it "
				 "alone ran, so its own clocks are the core's (the per-thread form, not THREAD_ANY / 2)",
				 threads);
		else
			snprintf(out->why, sizeof(out->why),
				 "the other threads of this core, if any, are parked while this one measures: it alone ran "
				 "(the per-thread form)");
		return;
	}
	if (threads < 0) {
		out->known = false;
		out->siblings = "not known";
		out->form = "none";
		snprintf(out->why, sizeof(out->why),
			 "whether this core's sibling thread is on is not known (no topology), and it is not parked (%s)",
			 siblings_busy);
		return;
	}
	out->on = true;
	out->siblings = "running";
	out->form = "per-core";
	snprintf(out->why, sizeof(out->why),
		 "SMT on (%d threads in this core) and the sibling not parked (%s): the vendor's per-core form", threads,
		 siblings_busy);
}
