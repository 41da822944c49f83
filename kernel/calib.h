/*
 * kernel/calib.h - the add chain that calibrates core cycles against the
 * TSC (kernel/calib.asm).  Portable: the same code runs in the image and on
 * the host.
 */
#ifndef PMUBOOT_BENCH_CALIB_H
#define PMUBOOT_BENCH_CALIB_H

#include <stdint.h>

/* Runs iterations x 64 dependent one-cycle adds; returns the number of adds run. */
uint64_t calib_add_chain(uint64_t iterations);

#endif
