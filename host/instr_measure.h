/*
 * host/instr_measure.h - measuring instruction forms on this machine (issue 31; docs/instr.md, "Measuring").
 *
 * Each form's kernels (instr/kernel.h) are assembled in one batch per group of forms (GNU as, Intel
 * syntax), cut into user kernels (bench/ukernel.h) and measured through the benchmark harness exactly as
 * a user kernel is (bench/src_user.c): tried once under the guard (platform/guard.h), then the N/2N
 * differential in the interrupts-off window, the quiet-machine ledger and the statistics.  One `instr`
 * record and one readable line per form; a form that faults or does not assemble is recorded with why,
 * and the run goes on.
 */
#ifndef PMUBOOT_HOST_INSTR_MEASURE_H
#define PMUBOOT_HOST_INSTR_MEASURE_H

#include "instr/catalogue.h"

struct instr_measure_opts {
	long cpu;	       /* the CPU to measure on; -1: the one we run on */
	unsigned reps;	       /* kept samples per figure (0: INSTR_REPS_DEFAULT) */
	unsigned warmup;       /* unmeasured samples first */
	unsigned iterations;   /* the floor of iterations per run (adaptive above it) */
	bool show_kernels;     /* print each kernel's assembly as text lines */
	const char *assembler; /* NULL: "as" */
};

#define INSTR_REPS_DEFAULT 7
#define INSTR_WARMUP_DEFAULT 1
#define INSTR_ITERATIONS_DEFAULT 256

/* Measure forms[0..n) and emit their records (the record stream must be open).  Returns the forms that
 * got at least one figure; *failed (optional) the others. */
size_t instr_measure_host(const struct instr_form *const *forms, size_t n, const struct instr_measure_opts *o,
			  size_t *failed);

/* `pmuboot-host instr-dev`: the same measurement of the kernel builder's test forms (instr/kernel_forms.h). */
int cmd_instr_dev(int argc, char **argv);

#endif
