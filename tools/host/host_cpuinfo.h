/*
 * tools/host/host_cpuinfo.h - what Linux's /proc/cpuinfo says about a CPU,
 * for what pmuboot-host cannot read itself without root and the msr module.
 */
#ifndef PMUBOOT_TOOLS_HOST_HOST_CPUINFO_H
#define PMUBOOT_TOOLS_HOST_HOST_CPUINFO_H

#include "lib/libc.h"

/*
 * The "microcode" field of logical CPU `cpu` (the kernel's "processor"
 * number) in the text of /proc/cpuinfo: false when there is no such CPU or
 * field, or the value is not a number.
 */
bool host_cpuinfo_microcode(const char *text, int cpu, uint32_t *rev);

/* The same from the file itself. */
bool host_cpuinfo_microcode_now(int cpu, uint32_t *rev);

#endif
