/*
 * platform/apic.h - the local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode.
 *
 * Registers are named by their xAPIC MMIO offset; in x2APIC mode the same
 * register is MSR 800h + offset/16 (Intel SDM Vol. 3A §11.12.1.2, Table
 * 11-6), and the two ICR halves are one 64-bit MSR 830h.  Portable: the
 * registers are reached through platform/hw.h (MSRs) and platform/hw_regs.h
 * (MMIO), so the unit tests run it against the fake CPU.
 */
#ifndef PMUBOOT_PLATFORM_APIC_H
#define PMUBOOT_PLATFORM_APIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/x86/msr_intel.h"


/* xAPIC register offsets (Intel SDM Vol. 3A §11.4.1, Table 11-1; AMD APM Vol. 2 §16.3.2). */
#define APIC_ID 0x020
#define APIC_VERSION 0x030
#define APIC_LVT_CMCI 0x2F0
#define APIC_ICR_LO 0x300
#define APIC_ICR_HI 0x310
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_THERMAL 0x330
#define APIC_LVT_PERF 0x340
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_LINT1 0x360
#define APIC_LVT_ERROR 0x370
#define APIC_TIMER_ICR 0x380
#define APIC_TIMER_CCR 0x390
/* AMD extended APIC space (AMD APM Vol. 2 §16.3.5, §16.4.5). */
#define APIC_EXT_FEATURE 0x400
#define APIC_EILVT0 0x500
#define APIC_EILVT_STRIDE 0x10
#define APIC_EILVT_MAX 4

#define APIC_VERSION_MAX_LVT(v) (((v) >> 16) & 0xFF)	/* entries minus one (SDM Vol. 3A §11.4.8) */
#define APIC_VERSION_EXT_SPACE (1u << 31)		/* AMD APM Vol. 2 §16.3.2: extended space present */
#define APIC_EXT_FEATURE_LVT_COUNT(v) (((v) >> 16) & 0xFF)

/* LVT fields (Intel SDM Vol. 3A §11.5.1, Figure 11-8). */
#define LVT_MASKED (1u << 16)
#define LVT_DELIVERY_SHIFT 8
#define LVT_DELIVERY_NMI 4u
#define LVT_TIMER_MODE(v) (((v) >> 17) & 3)
#define LVT_TIMER_ONESHOT 0
#define LVT_TIMER_TSC_DEADLINE 2

/* ICR fields (Intel SDM Vol. 3A §11.6.1, Figure 11-12). */
#define ICR_DELIVERY_NMI (4u << 8)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_DELIVERY_PENDING (1u << 12)	/* xAPIC only */

enum apic_mode { APIC_NONE, APIC_XAPIC, APIC_X2APIC };

struct apic {
	enum apic_mode mode;
	uint64_t base;			/* xAPIC MMIO base */
};

/*
 * Find the local APIC from IA32_APIC_BASE.  apic_on_chip is CPUID.1:EDX[9].
 * Returns false (mode APIC_NONE, the reason in why) when there is none or
 * it is disabled.
 */
bool apic_probe(struct apic *a, bool apic_on_chip, char *why, size_t why_cap);
const char *apic_mode_name(enum apic_mode m);

/* False when the register cannot be accessed (x2APIC MSR that faults, no APIC). */
bool apic_read(const struct apic *a, uint32_t reg, uint32_t *v);
bool apic_write(const struct apic *a, uint32_t reg, uint32_t v);
uint32_t apic_id(const struct apic *a);

/*
 * Send an NMI to this CPU: no destination shorthand, physical destination
 * = own APIC ID (the "self" shorthand is defined for fixed delivery only,
 * SDM Vol. 3A §11.6.1).  False when it could not be sent.
 */
bool apic_self_nmi(const struct apic *a);
/* An NMI to the processor with local APIC ID id (physical destination); false when it could not be sent. */
bool apic_send_nmi(const struct apic *a, uint32_t id);

#endif
