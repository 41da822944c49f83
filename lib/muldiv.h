/*
 * lib/muldiv.h - the one 128-bit multiply-divide: a * b / c without losing
 * the product's high bits (tick counts times rates, ppm of a frequency).
 *
 * The image has no libgcc (__udivti3 for a 128-bit division), so the
 * division is the CPU's own 128-by-64 DIV, safe because the quotient is
 * known to fit 64 bits before it runs (Intel SDM Vol. 2A, DIV: #DE when it
 * does not).
 */
#ifndef PMUBOOT_LIB_MULDIV_H
#define PMUBOOT_LIB_MULDIV_H

#include "lib/libc.h"

/* floor(a * b / c); UINT64_MAX when the quotient does not fit 64 bits; 0 when c is 0. */
uint64_t muldiv64(uint64_t a, uint64_t b, uint64_t c);
/* The same, rounded to the nearest (halves up). */
uint64_t muldiv64_round(uint64_t a, uint64_t b, uint64_t c);

#endif
