/* platform/apic.c - see apic.h. */
#include "platform/apic.h"
#include "platform/hw.h"
#include "platform/hw_regs.h"
#include "lib/libc.h"

#define ICR_SEND_SPINS 100000u	/* the xAPIC clears delivery-pending within a few bus cycles */

const char *apic_mode_name(enum apic_mode m)
{
	static const char *const names[] = { "none", "xapic", "x2apic" };
	return m <= APIC_X2APIC ? names[m] : "?";
}

bool apic_probe(struct apic *a, bool apic_on_chip, char *why, size_t why_cap)
{
	uint64_t base;

	a->mode = APIC_NONE;
	a->base = 0;
	if (!apic_on_chip) {
		snprintf(why, why_cap, "no local APIC (CPUID.1:EDX[9] clear)");
		return false;
	}
	if (hw_rdmsr(MSR_IA32_APIC_BASE, &base) != HW_OK) {
		snprintf(why, why_cap, "IA32_APIC_BASE (MSR 0x1b) cannot be read");
		return false;
	}
	if (!(base & APIC_BASE_EN)) {
		snprintf(why, why_cap, "local APIC disabled by firmware (IA32_APIC_BASE 0x%llx)",
			 (unsigned long long)base);
		return false;
	}
	a->mode = (base & APIC_BASE_EXTD) ? APIC_X2APIC : APIC_XAPIC;
	a->base = base & APIC_BASE_ADDR_MASK;
	if (why_cap)
		why[0] = '\0';
	return true;
}

static uint32_t x2apic_msr(uint32_t reg) { return MSR_X2APIC_BASE + (reg >> 4); }

bool apic_read(const struct apic *a, uint32_t reg, uint32_t *v)
{
	uint64_t val;
	*v = 0;
	switch (a->mode) {
	case APIC_XAPIC:
		*v = hw_mmio_read32(a->base + reg);
		return true;
	case APIC_X2APIC:
		if (hw_rdmsr(x2apic_msr(reg), &val) != HW_OK)
			return false;
		*v = (uint32_t)val;
		return true;
	case APIC_NONE:
		break;
	}
	return false;
}

bool apic_write(const struct apic *a, uint32_t reg, uint32_t v)
{
	switch (a->mode) {
	case APIC_XAPIC:
		hw_mmio_write32(a->base + reg, v);
		return true;
	case APIC_X2APIC:
		return hw_wrmsr(x2apic_msr(reg), v) == HW_OK;
	case APIC_NONE:
		break;
	}
	return false;
}

uint32_t apic_id(const struct apic *a)
{
	uint32_t v = 0;
	if (!apic_read(a, APIC_ID, &v))
		return 0;
	/* xAPIC: ID in bits 31:24 (SDM §11.4.6); x2APIC: the whole 32-bit register. */
	return a->mode == APIC_XAPIC ? v >> 24 : v;
}

bool apic_self_nmi(const struct apic *a) { return apic_send_nmi(a, apic_id(a)); }

bool apic_send_nmi(const struct apic *a, uint32_t id)
{
	uint32_t lo = ICR_DELIVERY_NMI | ICR_LEVEL_ASSERT;

	if (a->mode == APIC_X2APIC)
		return hw_wrmsr(MSR_X2APIC_ICR, ((uint64_t)id << 32) | lo) == HW_OK;
	if (a->mode != APIC_XAPIC)
		return false;
	/* The high half holds the destination; writing the low half sends (SDM §11.6.1). */
	apic_write(a, APIC_ICR_HI, id << 24);
	apic_write(a, APIC_ICR_LO, lo);
	for (unsigned i = 0; i < ICR_SEND_SPINS; i++) {
		uint32_t v;
		apic_read(a, APIC_ICR_LO, &v);
		if (!(v & ICR_DELIVERY_PENDING))
			return true;
	}
	return false;
}
