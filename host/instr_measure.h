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

#include "instr/kernel.h"
#include "bench/instr_record.h"

struct instr_measure_opts {
	long cpu;	       /* the CPU to measure on; -1: the one we run on */
	unsigned reps;	       /* kept samples per figure (0: INSTR_REPS_DEFAULT) */
	unsigned warmup;       /* unmeasured samples first */
	unsigned iterations;   /* the floor of iterations per run (adaptive above it) */
	bool show_kernels;     /* print each kernel's assembly as text lines */
	const char *assembler; /* NULL: "as" */
	long minutes;	       /* the later passes end this long after the start (bench/instr_passes.h); < 0: default */
};

#define INSTR_REPS_DEFAULT 7
#define INSTR_WARMUP_DEFAULT 1
#define INSTR_ITERATIONS_DEFAULT 256

/* Forms assembled together: one assembler run each (about 40 ms), plans on the heap (about 100 KiB each). */
#define INSTR_BATCH_FORMS 48
/* The assembler and its working directory (a temporary one, removed by instr_asm_close). */
struct instr_asm {
	const char *as;
	char dir[64];
};
/* False after an error record when no directory can be made; assembler NULL: "as". */
bool instr_asm_open(struct instr_asm *a, const char *assembler);
void instr_asm_close(struct instr_asm *a);

/*
 * Assemble the measurements of plans[0..n) (n <= INSTR_BATCH_FORMS) in one run; a kernel the assembler
 * refuses is dropped (res[i][j].why says why, in the assembler's words) and the rest assembled again.
 * Returns the object (to be freed) whose text the results' bytes point into, or NULL after an error
 * record when the assembler cannot be run at all.
 */
uint8_t *instr_assemble(const struct instr_asm *a, struct instr_plan *const *plans, size_t n,
			struct instr_result (*res)[IKM_MAX]);

/* Measure forms[0..n) and emit their records (the record stream must be open).  Returns the forms that
 * got at least one figure; *failed (optional) the others. */
size_t instr_measure_host(const struct instr_form *const *forms, size_t n, const struct instr_measure_opts *o,
			  size_t *failed);

/* `pmuboot-host instr-dev`: the same measurement of the kernel builder's test forms (instr/kernel_forms.h). */
int cmd_instr_dev(int argc, char **argv);

#endif
