/*
 * run/ibs_stage.h - the run's IBS step (run/ibs_stage.c).
 *
 * Decide whether IBS runs beside the benchmarks: report absence plainly
 * (an `ibs` record with "available":false and the reason), or register the
 * observer that samples every kernel variant.  image is false in
 * pmuboot-host, which leaves IBS to the Linux kernel that owns it.
 */
#ifndef PMUBOOT_RUN_IBS_STAGE_H
#define PMUBOOT_RUN_IBS_STAGE_H

#include "run/config.h"
#include "pmu/cpu/cpu.h"
#include "pmu/caps/pmu_caps.h"

void ibs_setup(const struct cpu_info *ci, const struct pmu_caps *caps, const struct config *cfg, bool image);

#endif
