/*
 * instr/kernel_forms.h - a small hand-written table of instruction forms for the kernel builder's tests
 * and `pmuboot-host instr-dev` (host only): one form of each shape the builder handles (register chains,
 * implicit operands, flags, loads, stores, register files that differ, masks, idioms, moves, a fault).
 * The catalogue (instr/catalogue.h, generated from XED) replaces it for real runs.
 */
#ifndef PMUBOOT_INSTR_KERNEL_FORMS_H
#define PMUBOOT_INSTR_KERNEL_FORMS_H

#include "instr/catalogue.h"

extern const struct instr_form ikm_test_forms[];
extern const size_t ikm_test_forms_count;

/* The test form whose asm name is `asm_name` (exactly), or NULL. */
const struct instr_form *ikm_test_form(const char *asm_name);

#endif
