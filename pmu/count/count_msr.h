/*
 * pmu/count/count_msr.h - what the MSR counting backend found, for tools.
 *
 * The backend itself is count_backend_msr (count.h).  These read-only
 * queries let pmuboot-host program describe the PMU it drove.
 */
#ifndef PMUBOOT_PMU_COUNT_COUNT_MSR_H
#define PMUBOOT_PMU_COUNT_COUNT_MSR_H

#include "pmu/count/count.h"

/* One line: flavour, counters usable, widths, full-width writes, counters found in use. */
void count_msr_describe(char *buf, size_t cap);
/* The flavour row in use, or NULL before a successful init. */
const struct pmu_flavour *count_msr_flavour(void);

/* What the driver may use on this processor, for the audit's checks (pmu/audit/audit.h). */
struct count_msr_view {
	const struct pmu_flavour *fl;
	uint32_t gp_usable, fixed_usable;	/* counters it may program */
	unsigned gp_width, fixed_width;
	bool full_width;			/* counters written through IA32_A_PMCx */
	bool legacy_writes;			/* written through the 32-bit sign-extending address */
};
/* False (v untouched) before a successful init. */
bool count_msr_view(struct count_msr_view *v);

#endif
