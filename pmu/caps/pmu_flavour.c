/* pmu/caps/pmu_flavour.c - pick the pmu_flavour.h row for a PMU. */
#include "pmu/caps/pmu_flavour.h"

struct table {
	const struct pmu_flavour *rows;
	const size_t *n;
};

static const struct table tables[] = {
	{ pmu_flavours_intel, &pmu_flavours_intel_n },
	{ pmu_flavours_p6, &pmu_flavours_p6_n },
	{ pmu_flavours_amd, &pmu_flavours_amd_n },
};

static unsigned rank(const struct pmu_flavour *f) { return (unsigned)f->min_version << 8 | f->min_family; }

/* The matching row with the highest min_version (then min_family) not above the
 * CPU's: a newer Intel version than any row describes is driven as the newest known. */
const struct pmu_flavour *pmu_flavour_find(enum pmu_kind kind, unsigned version, unsigned family)
{
	const struct pmu_flavour *best = NULL;
	for (size_t t = 0; t < ARRAY_SIZE(tables); t++)
		for (size_t i = 0; i < *tables[t].n; i++) {
			const struct pmu_flavour *f = &tables[t].rows[i];
			if (f->kind == kind && f->min_version <= version && f->min_family <= family &&
			    (!best || rank(f) > rank(best)))
				best = f;
		}
	return best;
}
