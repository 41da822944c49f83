/*
 * lib/libc.h - the C library subset that portable code (lib/, pmu/, events/,
 * bench/) may use.
 *
 * Portable code is compiled twice: freestanding into the UEFI image, where
 * lib/libc_min.c supplies these functions, and hosted into pmuboot-host and
 * the unit tests, where the system C library does.  Keeping the subset small
 * keeps both builds honest.  No floating point: the image is compiled with
 * -mgeneral-regs-only, so fractional figures are carried in fixed point.
 */
#ifndef PMUBOOT_LIB_LIBC_H
#define PMUBOOT_LIB_LIBC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef PMUBOOT_HOSTED
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#else
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ASCII-only helpers: the same result on both builds whatever the locale. */
static inline int lc_tolower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }
static inline bool lc_isspace(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
static inline bool lc_isdigit(int c) { return c >= '0' && c <= '9'; }
static inline bool lc_isxdigit(int c)
{
	return lc_isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int lc_strcasecmp(const char *a, const char *b);
/* v[0..n) in ascending order (an insertion sort: the lists here are a few dozen at most). */
void lc_sort_u64(uint64_t *v, size_t n);
/* The alen bytes at a are the string b, ASCII case ignored (a need not be NUL-terminated). */
bool lc_eq_ci_n(const char *a, size_t alen, const char *b);

/*
 * Parse an unsigned integer, decimal or 0x-prefixed hex, that must fill
 * [s, s+len).  Returns false on an empty string, a stray character or
 * overflow, so callers can say exactly what was wrong.
 */
bool lc_parse_u64(const char *s, size_t len, uint64_t *out);

/*
 * The next item of a list separated by `sep` (option values such as
 * "a,b" or "x;y"): skips separators and white space, sets *item and *len to
 * the item with trailing space trimmed, advances *p.  False at the end.
 */
bool lc_next_item(const char **p, char sep, const char **item, size_t *len);

#endif
