/*
 * instr/kernel_vsib.h - the kernels of gathers and scatters (a vector of indices in the address: VSIB, SDM Vol.
 * 2A 2.3.12 "Vector SIB (VSIB) Memory Addressing"), a part of the kernel builder (instr/kernel.h) with a job
 * of its own: valid indices into the window, and a mask that the form clears re-made before every instance.
 */
#ifndef PMUBOOT_INSTR_KERNEL_VSIB_H
#define PMUBOOT_INSTR_KERNEL_VSIB_H

#include "instr/kernel.h"

/* True when form f addresses memory through a vector of indices (its asm names a vm32x..vm64z operand). */
bool ikm_is_vsib(const struct instr_form *f);

/* Every measurement of VSIB form f into p (p was cleared, p->f set); false with p->why when none. */
bool ikm_vsib_build(const struct instr_form *f, struct instr_plan *p);

#endif
