/*
 * run/ibs_stage.h - the run's IBS step (run/ibs_stage.c).
 *
 * Decide whether IBS runs beside the benchmarks: report absence plainly
 * (an `ibs` record with "available":false and the reason) and return
 * false, or fill *out with the observer that samples every kernel variant
 * (the run passes it to the bench stage) and return true.  Where the
 * platform does not own the machine (pmuboot-host: hw_platform()), IBS is
 * left to the Linux kernel that owns it.
 */
#ifndef PMUBOOT_RUN_IBS_STAGE_H
#define PMUBOOT_RUN_IBS_STAGE_H

#include "bench/observer.h"
#include "run/config.h"
#include "cpu/cpu.h"
#include "pmu/caps/pmu_caps.h"

bool ibs_setup(const struct cpu_info *ci, const struct pmu_caps *caps, const struct config *cfg,
	       struct bench_observer *out);

#endif
