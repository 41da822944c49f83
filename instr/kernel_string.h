/*
 * instr/kernel_string.h - the kernels of forms whose memory operand is implicit, addressed by registers the
 * harness owns or the form fixes (MOVS, STOS, LODS, SCAS, CMPS with and without REP; XLAT; MASKMOVQ,
 * (V)MASKMOVDQU), a part of the kernel builder (instr/kernel.h) with a job of its own: putting those
 * registers back inside the scratch window before every instance, and the harness's rdi back after.
 */
#ifndef PMUBOOT_INSTR_KERNEL_STRING_H
#define PMUBOOT_INSTR_KERNEL_STRING_H

#include "instr/kernel.h"

/* True when form f is one ikm_string_build builds (an implicit memory operand of a form it knows). */
bool ikm_is_string(const struct instr_form *f);

/* Every measurement of form f into p (p was cleared, p->f set); false with p->why when none. */
bool ikm_string_build(const struct instr_form *f, struct instr_plan *p);

#endif
