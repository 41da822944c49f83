/*
 * lib/units.h - binary size units, and a size written in the largest one that divides it.
 *
 * The ladder names its variants by size ("16k", "2m") and the cache record's lines say sizes
 * the same way ("48 KiB", "2 MiB"): one rule, two spellings.
 */
#ifndef PMUBOOT_LIB_UNITS_H
#define PMUBOOT_LIB_UNITS_H

#include "lib/libc.h"

#define KIB 1024ull
#define MIB (KIB * KIB)
#define GIB (KIB * MIB)

/* Spellings of bytes, KiB, MiB, GiB, in that order. */
extern const char *const units_short[4];	/* "", "k", "m", "g": variant names */
extern const char *const units_long[4];		/* " B", " KiB", " MiB", " GiB": text lines */

/* b in the largest binary unit that divides it (0 in bytes), spelled with `names`; returns out. */
const char *size_in_units(char *out, size_t cap, uint64_t b, const char *const names[4]);

#endif
