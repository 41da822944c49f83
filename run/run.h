/*
 * run/run.h - the run sequence shared by the image and pmuboot-host.
 *
 * A run is a fixed list of stages (identify, PMU, time, self-tests,
 * benchmarks, ...), each emitting its records as it goes.  The image and
 * the host call run_stages() with the same config, so both print the same
 * records; what differs is a capability of the platform (platform/hw.h's
 * hw_platform: ring 0, owning the machine), never a flag of the run.
 */
#ifndef PMUBOOT_RUN_RUN_H
#define PMUBOOT_RUN_RUN_H

#include "bench/stage.h"
#include "bench/observer.h"
#include "bench/ukernel.h"
#include "run/config.h"
#include "cpu/cpu.h"
#include "pmu/caps/pmu_caps.h"
#include "cpu/topo.h"
#include "pmu/audit/audit.h"
#include "pmu/audit/ledger.h"

/*
 * A measuring pass run by struct run_mp's measure_on: body(arg) on the
 * chosen processor with the others parked, and cleanup(arg) on that same
 * processor after a fault in body (image: platform/metal/ap.h, boot/mp_pass.c).
 */
struct run_pass {
	void (*body)(void *arg);
	void (*cleanup)(void *arg);
	void *arg;
	const char *who;		/* "processor 2 (APIC ID 1)" */
	enum cpu_exec exec;		/* identification's, for how to park the others (platform/metal/ap.h) */
	enum park_sel park;		/* the park= option */
	/* Filled by measure_on. */
	bool faulted;			/* body faulted; its `fault` record is written */
	const char *why;		/* when the pass did not run or did not come back */
	char neighbours[200];		/* what the other processors did meanwhile */
};

/*
 * The processors, for the topology stage (run/topology_stage.c).  The image
 * lists them through the firmware (boot/mp.c), pmuboot-host through Linux
 * (host/mp_linux.c); NULL means this processor alone.
 */
struct run_mp {
	const char *source;		/* "uefi mp services", "linux" */
	/* How many processors there are; 0 with *why when they cannot be listed. */
	size_t (*count)(const char **why);
	/* The lister's fields of processor n (apic_id, bsp, enabled, healthy, location); false when unknown. */
	bool (*info)(size_t n, struct topo_cpu *c);
	/* Run fn(arg) on processor n, waiting at most timeout_us: FW_RUN_* of platform/firmware.h. */
	int (*run_on)(size_t n, void (*fn)(void *arg), void *arg, uint64_t timeout_us, const char **why);
	/*
	 * A measuring pass on processor n, the boot CPU included (in the image the
	 * others are parked around it): FW_RUN_*.  NULL: the measuring stages run
	 * on this processor only, and why_not says why.
	 */
	int (*measure_on)(size_t n, struct run_pass *p, uint64_t timeout_us);
	/* Optional: the lister's own view set against the probes (Linux's cpu_core/cpu_atom lists). */
	void (*check)(const struct topology *t);
	const char *why_not;		/* when there is no measure_on: the reason */
	const char *neighbours;		/* what the other processors do while one measures */
};

struct run_env {
	const struct config *cfg;
	struct cpu_info cpu;
	/* Image only: the runtime record and self-tests (platform_selftest); NULL on the host. */
	void (*selftest)(const char *list);
	/* Image only: the self-tests that act in a pass on another processor (platform_pass_selftest); NULL on the host. */
	void (*pass_selftest)(const char *list);
	struct pmu_caps caps;
	/* Filled by the stages before `bench` (the IBS stage), passed to it in struct bench_params. */
	struct bench_observer observers[BENCH_MAX_OBSERVERS];
	size_t nobservers;
	/* What the audit found on the processor being measured. */
	struct audit_verdict audit;
	/* The quiet-machine ledger of the processor being measured: the audit stage sets it up, both it and
	 * the benchmarks judge their windows by it. */
	struct ledger ledger;
	/* User kernel files as the platform read them (boot medium, kernels=DIR), and a host disassembler. */
	const struct ukernel_file *kernel_files;
	size_t nkernel_files;
	/* The kernel pack of instruction forms as read from the medium (bench/src_instr.c), or NULL. */
	const struct ukernel_file *instr_pack;
	bool (*disasm)(const uint8_t *bytes, size_t n, char *out, size_t cap);
	/* The processors (NULL: this one only), and the topology stage's answer: indexes into
	 * run_topology()->cpu of the processors cpus= chose. */
	const struct run_mp *mp;
	size_t sel[TOPO_MAX_CPUS];
	size_t nsel;
	/* Optional: called after each stage and each measuring pass, on the processor that ran it (the image's
	 * live upload, boot/upload.c; it does nothing on another processor). */
	void (*after_stage)(const char *name);
};

/* The table the topology stage filled; NULL before it ran (or when there was no memory for it). */
const struct topology *run_topology(void);
/* The topology stage: list, probe on each processor, report, choose per cpus=. */
void run_topology_stage(struct run_env *env);

/* After a fault ended the run on the boot CPU: IBS off and every counter MSR back as found. */
void run_after_fault(void);

/* Run every stage in order; a failing stage is recorded and the run goes on. */
void run_stages(struct run_env *env);
/* Run the one stage called name (pmuboot-host identify runs "identify" and "pmu"); false if unknown. */
bool run_stage(struct run_env *env, const char *name);

/* The stages in run order, for progress displays (the image's screen). */
size_t run_stage_count(void);
const char *run_stage_name(size_t i);

#endif
