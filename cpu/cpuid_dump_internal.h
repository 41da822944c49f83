/*
 * cpu/cpuid_dump_internal.h - helpers shared by the CPUID dump readers
 * (cpuid_dump_host.c: the AIDA64/EVEREST text; cpuid_dump_tagged_host.c:
 * pmuboot's compact fixtures and Debian `cpuid -r` output), defined below
 * both in cpuid_dump_text_host.c.  Not for use outside cpu/cpuid_dump*.
 */
#ifndef PMUBOOT_CPU_CPUID_DUMP_INTERNAL_H
#define PMUBOOT_CPU_CPUID_DUMP_INTERNAL_H

#include "cpu/cpuid_dump.h"

/* One line of the text, without its end-of-line characters. */
struct cpuid_dump_line {
	const char *p;
	size_t n;
	uint32_t no;	/* 1-based */
};

/* Set d->err / d->err_line; always returns false. */
bool cpuid_dump_fail(struct cpuid_dump *d, uint32_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Value of a hex digit, -1 for anything else. */
int cpuid_dump_hexval(char c);
/* Number of hex digits at p (before e). */
size_t cpuid_dump_hex_run(const char *p, const char *e);
/* Up to 16 characters at p, quoted, non-printables as '?' (or "end of line"), for an error message. */
const char *cpuid_dump_excerpt(const char *p, const char *e, char out[20]);
/* Split off the next line at *p (CR before LF dropped); false at the end of the text. */
bool cpuid_dump_next_line(const char **p, const char *end, uint32_t *no, struct cpuid_dump_line *l);

/* Readers of the tagged formats (cpuid_dump_tagged_host.c). */
#define CPUID_FIXTURE_MAGIC "# pmuboot cpuid fixture 1"
/* Does the first non-empty line l open a compact fixture ('X') or `cpuid -r` output ('R')? 0 if neither. */
char cpuid_dump_tagged_variant(const struct cpuid_dump_line *l, const char *rest, const char *end);
/* Parse the whole text as variant 'X' or 'R'. */
bool cpuid_dump_parse_tagged(struct cpuid_dump *d, char variant, const char *text, const char *end);

#endif
