/* pmu/pmu_caps.c - STUB until identification lands (owner: identification work). */
#include "pmu_caps.h"

void pmu_caps_detect(const struct cpu_info *ci, struct pmu_caps *c)
{
	(void)ci;
	memset(c, 0, sizeof(*c));
	c->kind = PMU_NONE;
	c->absent_reason = "PMU detection not implemented yet";
	c->ibs_absent_reason = "IBS detection not implemented yet";
}

void pmu_caps_fields(struct rec *r, const struct pmu_caps *c)
{
	rec_str(r, "absent_reason", c->absent_reason);
}

void pmu_caps_summary(const struct pmu_caps *c)
{
	(void)c;
}
