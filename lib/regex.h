/*
 * lib/regex.h - a small regular-expression engine, freestanding, for choosing instruction forms
 * by name (`pmuboot-host instr --match REGEX`, the image's `instr=REGEX`; docs/instr.md).
 *
 * The language is a subset of POSIX extended regular expressions (ERE):
 *   c          a literal character; \c a literal c for any punctuation (\. \* \[ \\ \{ ...)
 *   .          any character
 *   [abc] [a-z] [^a-z]   a class, with ranges and negation; `]` first in the class is literal
 *   \d \w \s   digit, word character ([A-Za-z0-9_]), white space
 *   x* x+ x?   repetition
 *   ^ $        the start, the end of the text
 *   a|b (..)   alternation and grouping
 * A match is searched for anywhere in the text (as grep -E does) unless anchored with ^ / $.
 * Matching simulates the compiled NFA over the text once (Thompson's construction): time is
 * proportional to text length x program length, whatever the pattern (no exponential blow-up),
 * and no memory is allocated.
 */
#ifndef PMUBOOT_LIB_REGEX_H
#define PMUBOOT_LIB_REGEX_H

#include "lib/libc.h"

/* The largest program a pattern compiles to, and the most bracket classes in one pattern. */
#define REGEX_MAX_INSNS 256
#define REGEX_MAX_CLASSES 16
/* Letters match either case (for names typed by hand: `vaddps` finds VADDPS). */
#define REGEX_ICASE 0x1u

struct regex_insn {
	uint8_t op;	/* internal to lib/regex.c */
	uint8_t arg;	/* a character or a class index */
	uint16_t x, y;	/* jump targets */
};

struct regex {
	uint16_t n;
	uint8_t nclass;
	bool icase;
	struct regex_insn insn[REGEX_MAX_INSNS];
	uint8_t cls[REGEX_MAX_CLASSES][32];	/* 256-bit character sets */
};

/* Why a pattern was refused: the position (0-based, in bytes) and what is wrong there. */
struct regex_error {
	size_t pos;
	const char *what;
};

/* Compile `pattern`; false with *err saying where and what is wrong. */
bool regex_compile(struct regex *re, const char *pattern, unsigned flags, struct regex_error *err);
/* Whether the compiled pattern matches somewhere in `text`. */
bool regex_search(const struct regex *re, const char *text);

#endif
