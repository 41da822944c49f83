/*
 * bench/instr_run.h - measuring one instruction form's kernels through the user-kernel harness (issue 31;
 * docs/instr.md "Running the kernels"), for pmuboot-host and the image alike.
 *
 * Each measurement of a form (instr/pack.h: its bytes, as the pack or this host's assembler gave them) is
 * placed in executable memory inside the harness's frame (bench/ukernel_code.c), tried once under the
 * guard (platform/guard.h) with the trip counts the measurement will use, then measured by
 * bench_measure_variant: the N/2N differential in the interrupts-off window, the ledger and the
 * statistics.  Connectors are measured once per run (by name; again when they had no figure) and
 * subtracted; a form whose kernel faults is left with the fault and its other kernels are not run.
 */
#ifndef PMUBOOT_BENCH_INSTR_RUN_H
#define PMUBOOT_BENCH_INSTR_RUN_H

#include "bench/harness.h"
#include "bench/instr_record.h"

#define INSTR_CONN_MAX 64
#define INSTR_TRIAL_BOUND_US 1000000u

struct instr_runner {
	struct bench_setup *hs; /* the harness's set-up, calibrated */
	uint8_t *window;	/* BENCH_WINDOW_BYTES, 4 KiB-aligned */
	const char *watchdog;	/* hw_guard_watchdog's, or NULL: trials unbounded */
	/* Called before each measurement is measured (pmuboot-host --show-kernels), or NULL. */
	void (*before)(void *ctx, const struct instr_pack_form *f, size_t j);
	void *ctx;
	struct instr_events *events; /* the µop events counted on the unrolled throughput kernel, or NULL */
	struct {
		char name[IKM_NAME_MAX];
		int64_t cycles; /* per instance, thousandths */
	} conn[INSTR_CONN_MAX]; /* the connectors measured so far in this run (none thin: instr_figure_thin) */
	size_t nconn;
};

/* Measure every measurement of f into res[0..f->n) (cleared first: res[j].why says what did not work). */
void instr_run_form(struct instr_runner *r, const struct instr_pack_form *f, struct instr_result *res);

#endif
