/*
 * run/run.h - the run sequence shared by the image and pmuboot-host.
 *
 * A run is a fixed list of stages (identify, PMU, time, self-tests,
 * benchmarks, ...), each emitting its records as it goes.  The image and
 * the host call run_stages() with the same config, so both print the same
 * records; stages that need bare metal check env->image.
 */
#ifndef PMUBOOT_RUN_RUN_H
#define PMUBOOT_RUN_RUN_H

#include "bench/suite.h"
#include "run/config.h"
#include "pmu/cpu/cpu.h"
#include "pmu/caps/pmu_caps.h"

struct run_env {
	const struct config *cfg;
	bool image;		/* true in the UEFI image, false in pmuboot-host */
	struct cpu_info cpu;
	/* Image only: the runtime record and self-tests (kernel_selftest); NULL on the host. */
	void (*selftest)(const char *list);
	struct pmu_caps caps;
	/* Filled by the stages before `bench` (the IBS stage), passed to it in struct bench_params. */
	struct bench_observer observers[BENCH_MAX_OBSERVERS];
	size_t nobservers;
	/* Set by the caller (the image's screen): reads each variant's figures as the bench stage measures them. */
	const struct bench_listener *bench_listener;
};

/* Run every stage in order; a failing stage is recorded and the run goes on. */
void run_stages(struct run_env *env);
/* Run the one stage called name (pmuboot-host identify runs "identify" and "pmu"); false if unknown. */
bool run_stage(struct run_env *env, const char *name);

/* The stages in run order, for progress displays (the image's screen). */
size_t run_stage_count(void);
const char *run_stage_name(size_t i);

#endif
