/*
 * pmu/cpu.h - processor identification.
 *
 * Everything is derived from CPUID (through kernel/hw.h) so the same code
 * identifies the CPU in the image, on the host, and from a CPUID dump.
 */
#ifndef PMUBOOT_PMU_CPU_H
#define PMUBOOT_PMU_CPU_H

#include "../lib/libc.h"

enum cpu_vendor { VENDOR_UNKNOWN, VENDOR_INTEL, VENDOR_AMD, VENDOR_HYGON };

struct cpu_info {
	enum cpu_vendor vendor;
	char vendor_str[13];
	uint32_t max_leaf, max_ext_leaf;
	uint32_t signature;		/* CPUID.1:EAX */
	uint32_t family, model, stepping;	/* display values, extended fields applied */
	char brand[49];			/* trimmed; "" when the CPU has no brand string */
	bool hypervisor;		/* CPUID.1:ECX[31] */
	char hv_vendor[13];		/* leaf 0x40000000 signature, "" if none */
};

void cpu_identify(struct cpu_info *ci);
void cpu_report(const struct cpu_info *ci);	/* `cpu` record and a readable summary */
const char *cpu_vendor_name(enum cpu_vendor v);

#endif
