/* tools/host/hw_linux.h - host-only controls of the Linux hw implementation. */
#ifndef PMUBOOT_TOOLS_HOST_HW_LINUX_H
#define PMUBOOT_TOOLS_HOST_HW_LINUX_H

#include "kernel/hw.h"

typedef void (*hw_cpuid_source_fn)(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out);

/* Answer CPUID from fn (e.g. a dump file) instead of the instruction; MSRs then read as absent. */
void hw_linux_set_cpuid_source(hw_cpuid_source_fn fn, void *ctx);
/* The CPU this thread runs on (after pinning). */
int hw_linux_pinned_cpu(void);

#endif
