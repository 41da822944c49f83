/*
 * pmu/audit/audit_model.h - the known-answer loop run on the PMU model
 * (pmu/count/pmu_model.h) instead of a core: for `pmuboot-host audit
 * --cpuid-dump` and the audit's unit tests.  Host builds only
 * (audit_model_host.c).
 *
 * The model is taught what one trip of the loop retires by a rate function
 * written here from the loop's own instructions and what each event counts
 * by its vendor's description (pmu/count/pmu_oracle.h, generated from
 * ../shared/vendor-events), independently of the audit's table of
 * known-answer events (audit_events.c): a wrong row there shows as a failed
 * check against the model, not as agreement with itself.
 */
#ifndef PMUBOOT_PMU_AUDIT_AUDIT_MODEL_H
#define PMUBOOT_PMU_AUDIT_AUDIT_MODEL_H

#include "pmu/audit/audit.h"
#include "pmu/count/pmu_model.h"

/* Core cycles one trip of the loop takes in the model (its TSC ticks follow core_per_tsc_milli). */
#define AUDIT_MODEL_CYCLES_PER_TRIP 2u

struct audit_model_runner {
	struct audit_runner runner;	/* pass &runner as audit_params.runner */
	struct pmu_model *m;
	const struct event_set *es;	/* the core's table: its event names */
	bool amd;
};

/* Make m count the loop (its rate function) and mr->runner run trips of it on m. */
void audit_model_runner_init(struct audit_model_runner *mr, struct pmu_model *m, const struct cpu_info *ci);

#endif
