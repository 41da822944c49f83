/*
 * kernel/hw_metal.c - kernel/hw.h on bare metal.
 */
#include "hw.h"

void hw_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out)
{
	__asm__ volatile("cpuid"
			 : "=a"(out->eax), "=b"(out->ebx), "=c"(out->ecx), "=d"(out->edx)
			 : "a"(leaf), "c"(subleaf));
}

uint64_t hw_tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* Until the fault-fixup runtime is in place, MSR and PMC access report no access. */
int hw_rdmsr(uint32_t msr, uint64_t *val)
{
	(void)msr;
	*val = 0;
	return HW_ENODEV;
}

int hw_wrmsr(uint32_t msr, uint64_t val)
{
	(void)msr;
	(void)val;
	return HW_ENODEV;
}

int hw_rdpmc(uint32_t index, uint64_t *val)
{
	(void)index;
	*val = 0;
	return HW_ENODEV;
}

bool hw_window_enter(struct hw_window *w)
{
	(void)w;
	return false;
}

void hw_window_leave(struct hw_window *w)
{
	(void)w;
}

bool hw_nmi_route_eilvt(unsigned offset, hw_nmi_fn fn, void *ctx, char *why, unsigned long why_cap)
{
	(void)offset;
	(void)fn;
	(void)ctx;
	if (why_cap)
		why[0] = '\0';
	return false;
}

void hw_nmi_unroute_eilvt(unsigned offset)
{
	(void)offset;
}
