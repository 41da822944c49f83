/*
 * tests/unit/instr_plan_text.h - reading the kernel builder's plans (instr/kernel.h) in its unit tests: the
 * lines of a kernel's text, a plan's first measurement of a kind, a catalogue form by asm name and iform.
 * Header-only, for test_instr_kernel.c and test_instr_kernel_implicit.c.
 */
#ifndef PMUBOOT_TESTS_UNIT_INSTR_PLAN_TEXT_H
#define PMUBOOT_TESTS_UNIT_INSTR_PLAN_TEXT_H

#include "instr/catalogue.h"
#include "instr/kernel.h"

static inline const struct ikm *kind(const struct instr_plan *pl, enum ikm_kind k)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->m[i].kind == k)
			return &pl->m[i];
	return NULL;
}

static inline size_t lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Line i (from 0) of s into buf. */
static inline const char *line(const char *s, size_t i, char *buf, size_t cap)
{
	for (; i && *s; s++)
		if (*s == '\n')
			i--;
	size_t n = 0;
	while (s[n] && s[n] != '\n' && n + 1 < cap)
		n++;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

static inline const struct instr_form *catalogue_form(const char *asm_name, const char *iform)
{
	for (size_t i = 0; i < instr_forms_count; i++)
		if (!strcmp(instr_forms[i].asm_name, asm_name) && !strcmp(instr_forms[i].iform, iform))
			return &instr_forms[i];
	fail_msg("%s (%s) is not in the catalogue", asm_name, iform);
	return NULL;
}

#endif
