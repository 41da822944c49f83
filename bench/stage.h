/*
 * bench/stage.h - the benchmark stage: read `bench=` into a plan (bench/plan.h), set up counting, time
 * and memory, measure the rows of each source of the plan (the table's variants, the memory ladder,
 * user kernels) and emit `bench_setup`, one `bench` record per row (as soon as it is measured) and its
 * `check` records.  docs/benchmarks.md describes the kernels and docs/results-format.md the records;
 * bench/stage_int.h how the stage is built.
 */
#ifndef PMUBOOT_BENCH_STAGE_H
#define PMUBOOT_BENCH_STAGE_H

#include "bench/check.h"
#include "bench/harness.h"
#include "bench/observer.h"
#include "bench/plan.h"
#include "bench/ukernel.h"
#include "cpu/cpu.h"
#include "pmu/audit/audit.h"
#include "pmu/audit/ledger.h"
#include "cpu/topo.h"

/* Which arena page sizes the split kernels run in (arena_page=). */
#define BENCH_PAGES_4K (1u << 0)
#define BENCH_PAGES_2M (1u << 1)

/* What the stage needs from the run: its options, already checked, and the CPU it runs on. */
struct bench_params {
	const char *bench;	/* bench=: comma list of kernel[.variant], "all", "none" */
	const char *events;	/* events=: extra events, ';'-separated specs */
	const char *events_source;	/* where events= was set ("pmuboot.cfg:5"), or NULL: errors name it */
	unsigned iterations, reps, warmup;
	unsigned pages;		/* BENCH_PAGES_* */
	const struct cpu_info *cpu;
	/* What watches each variant after it is measured (AMD IBS), from the run environment. */
	const struct bench_observer *observers;
	size_t nobservers;
	/* The quiet-machine ledger of this processor (the audit stage set it up), or NULL: the stage makes its own. */
	struct ledger *ledger;
	/* What the audit stage found (NULL: no audit): figures on the counters it blamed are not printed. */
	const struct audit_verdict *audit;
	/* User kernels (docs/kernels.md, bench/src_user.c): files as read, kernel.NAME=HEX options. */
	const struct ukernel_file *kernel_files;
	size_t nkernel_files;
	const struct ukernel_hex *kernel_hex;
	size_t nkernel_hex;
	unsigned kernel_unroll;		/* 0: each kernel's own */
	/* Instruction forms (docs/instr.md "In the image", bench/src_instr.c): instr= and the kernel pack as
	 * read (NULL: none was looked for). */
	const char *instr;
	const struct ukernel_file *instr_pack;
	unsigned kernel_timeout_ms;	/* the watchdog's bound on a kernel's trial run */
	/* Host only: a one-line disassembly of bytes (ndisasm), NULL in the image (records give the hex). */
	bool (*disasm)(const uint8_t *bytes, size_t n, char *out, size_t cap);
	/* The topology stage's table (NULL: none): whether this core's sibling thread is enabled, which the
	 * top-down formulas need (HYPERTHREADING_ON; bench/stage_metrics.c). */
	const struct topology *topology;
	/* What the other threads of the measured core may run while it measures, when that is work of their own
	 * (pmuboot-host run: what Linux schedules); NULL where they run none: the image parks every other
	 * processor for each pass (boot/mp_pass.c), a modelled PMU has no sibling.  With NULL the top-down
	 * formulas take their per-thread form (pmu/metrics/metrics.h metrics_smt_form). */
	const char *siblings_busy;
	/* A modelled PMU's work hook (bench_setup.model_work): the unit tests and `pmuboot-host metrics --run`,
	 * which measure against pmu/count/pmu_model.h; NULL in the image and `pmuboot-host run`. */
	void (*model_work)(void *ctx, uint64_t iterations);
	void *model_ctx;
};

void bench_stage(const struct bench_params *p);

/* bench=list: every kernel.variant, one line each (text, not records), with what it provokes. */
#define BENCH_LIST_WORD BENCH_PLAN_LIST
void bench_list(void);

#endif
