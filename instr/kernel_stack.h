/*
 * instr/kernel_stack.h - the kernels of forms that move the stack pointer by a step the form fixes (PUSH,
 * POP, PUSHF, ENTER), a part of the kernel builder (instr/kernel.h) with a job of its own: keeping RSP
 * where the harness left it in every body copy (docs/kernels.md: pushes and pops balance within one copy).
 */
#ifndef PMUBOOT_INSTR_KERNEL_STACK_H
#define PMUBOOT_INSTR_KERNEL_STACK_H

#include "instr/kernel.h"

/* True when form f pushes or pops (XED's stackpush / stackpop operand): instr_plan_build hands it to
 * ikm_stack_build. */
bool ikm_is_stack(const struct instr_form *f);

/* Every measurement of stack form f into p (p was cleared, p->f set); false with p->why when none. */
bool ikm_stack_build(const struct instr_form *f, struct instr_plan *p);

#endif
