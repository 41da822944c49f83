/*
 * instr/kernel_x87.h - the kernels of x87 forms (st(i) operands, the register stack), a part of the kernel
 * builder (instr/kernel.h) with a job of its own: keeping the stack balanced in every body copy.
 */
#ifndef PMUBOOT_INSTR_KERNEL_X87_H
#define PMUBOOT_INSTR_KERNEL_X87_H

#include "instr/kernel.h"

/* True when form f names an x87 stack register (st0, st(i)): instr_plan_build hands it to ikm_x87_build. */
bool ikm_is_x87(const struct instr_form *f);

/* Every measurement of x87 form f into p (p was cleared, p->f set); false with p->why when none. */
bool ikm_x87_build(const struct instr_form *f, struct instr_plan *p);

#endif
