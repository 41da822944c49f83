/*
 * tests/fake/cpus_fake.h - fake processors for the multi-CPU tests: each
 * answers CPUID with its own signature, hybrid bit, core type (leaf 1AH),
 * x2APIC ID and topology shifts (leaf 0BH), so that a P-core and an E-core
 * of one part differ the way real ones do.
 */
#ifndef PMUBOOT_TESTS_FAKE_CPUS_FAKE_H
#define PMUBOOT_TESTS_FAKE_CPUS_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPUID.01H:EAX signatures [SDM2 CPUID; SDM4 Table 2-1]. */
#define SIG_ADL_P 0x000906A4u		/* family 6 model 0x9A stepping 4 (Alder Lake-P) */
#define SIG_ADL_S 0x00090675u		/* family 6 model 0x97 stepping 5 (Alder Lake-S, i5-12400) */
#define SIG_SKL 0x000506E3u		/* family 6 model 0x5E (Skylake client) */

struct fake_cpu {
	uint32_t sig;
	bool hybrid;
	uint8_t core_type;	/* CPUID.1AH:EAX[31:24] */
	uint32_t x2apic;
	uint8_t smt_shift, core_shift;
};

/* An i3-1220P-like part: 2 P-cores with 2 threads (APIC 0,1,8,9), 4 E-cores (16,18,20,22). */
#define FAKE_ADL_N 8
extern const struct fake_cpu fake_adl[FAKE_ADL_N];

/*
 * The fake hw (tests/fake/hw_fake.h) reset to answer CPUID as f would:
 * leaves 0, 1, 7, 0AH (PMU v5), 0BH and 1AH.  Callers add what they need on top.
 */
void fake_cpu_become(const struct fake_cpu *f);

#endif
