/*
 * bench/select.h - which variants a `bench=` value chooses.
 */
#ifndef PMUBOOT_BENCH_SELECT_H
#define PMUBOOT_BENCH_SELECT_H

#include "lib/libc.h"

/*
 * Parse a `bench=` value into sel[0..bench_def_count()): "all", "none", or
 * a comma list of kernel or kernel.variant.  Controls of chosen variants
 * and the reference kernels are added (unless nothing was chosen).  Calls
 * bad() for each unknown word and goes on.  Returns the number chosen.
 */
size_t bench_select(const char *spec, bool *sel, void (*bad)(const char *word, size_t len, void *ctx), void *ctx);

#endif
