/*
 * lib/decimal.h - the one reader of decimal numbers in text.
 *
 * Every parser of outside text (HTTP headers, URLs, option values, file
 * names, dumps) reads its numbers here, so that each is bounded the same
 * way: the value never wraps, and the caller learns where reading stopped
 * (the end of the digits, or the digit that took the number past its
 * limit) to name in its error.
 */
#ifndef PMUBOOT_LIB_DECIMAL_H
#define PMUBOOT_LIB_DECIMAL_H

#include "lib/libc.h"

enum dec_result {
	DEC_OK,		/* one digit or more, within max */
	DEC_NO_DIGIT,	/* s does not start with a digit */
	DEC_TOO_BIG,	/* the digits make a number above max */
};

/*
 * The decimal digits at the start of s[0..len) as a number no larger than
 * max.  *end: where reading stopped - the first character after the digits
 * (len when they fill s) for DEC_OK, 0 for DEC_NO_DIGIT, the digit that
 * took the number past max for DEC_TOO_BIG.  *value is set for DEC_OK only.
 * Reading stops at the first non-digit, so a NUL-terminated string may be
 * passed with len SIZE_MAX.
 */
enum dec_result dec_parse(const char *s, size_t len, uint64_t max, uint64_t *value, size_t *end);

/* True when s[0..len) is all digits (one at least) making a number no larger than max. */
bool dec_whole(const char *s, size_t len, uint64_t max, uint64_t *value);

#endif
