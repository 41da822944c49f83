/*
 * linux/hw_linux.h - host-only controls of the Linux hw implementation.
 *
 * pmuboot-host's platform/hw.h answers for one machine: the one it runs on,
 * or a described one (a CPUID dump, and for `program` a model of the
 * dump's PMU).  These select which; nothing above hw.h knows the
 * difference (docs/architecture.md, "The seam").
 */
#ifndef PMUBOOT_LINUX_HW_LINUX_H
#define PMUBOOT_LINUX_HW_LINUX_H

#include "platform/hw.h"

typedef void (*hw_cpuid_source_fn)(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out);

/* Answer CPUID from fn (e.g. a dump file) instead of the instruction; MSRs then read as absent
 * (HW_ENODEV) unless an MSR source describes them too. */
void hw_linux_set_cpuid_source(hw_cpuid_source_fn fn, void *ctx);

/*
 * The MSRs of a described machine (pmuboot-host program: the PMU model of
 * the dump's CPU).  While installed it answers every hw_rdmsr/hw_wrmsr, so
 * a described PMU is never confused with the real one.  Each returns HW_OK
 * or the fault the machine would raise.  NULL removes it.
 */
struct hw_msr_source {
	int (*rdmsr)(void *ctx, uint32_t msr, uint64_t *val);
	int (*wrmsr)(void *ctx, uint32_t msr, uint64_t val);
	void *ctx;
	/* Optional: deliver the machine's PMIs to fn (hw_nmi_route_pmi); fn NULL unroutes. */
	bool (*route_pmi)(void *ctx, hw_nmi_fn fn, void *fn_ctx, char *why, unsigned long why_cap);
	/* Its windows are its own: this process's context switches and interrupts do not disturb them. */
	bool own_windows;
};
void hw_linux_set_msr_source(const struct hw_msr_source *src);
/* CLOCK_MONOTONIC_RAW in nanoseconds: the reference clock linux/timing_linux.c times the TSC by. */
uint64_t hw_linux_mono_raw_ns(void);
/* The CPU this thread runs on (after pinning). */
int hw_linux_pinned_cpu(void);
/* The thread was moved to another CPU (pmuboot-host run cpus=): MSRs are opened again for it. */
void hw_linux_cpu_moved(void);

#endif
