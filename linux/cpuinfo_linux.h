/*
 * linux/cpuinfo_linux.h - what Linux's /proc/cpuinfo says about a CPU, for
 * what a process cannot read itself without root and the msr module (the
 * microcode revision, MSR 8BH, which the kernel read at boot).
 */
#ifndef PMUBOOT_LINUX_CPUINFO_LINUX_H
#define PMUBOOT_LINUX_CPUINFO_LINUX_H

#include "lib/libc.h"

/*
 * The "microcode" field of logical CPU `cpu` (the kernel's "processor"
 * number) in the text of /proc/cpuinfo: false when there is no such CPU or
 * field, or the value is not a number.
 */
bool cpuinfo_microcode(const char *text, int cpu, uint32_t *rev);

/* The same from the file itself. */
bool cpuinfo_microcode_now(int cpu, uint32_t *rev);

#endif
