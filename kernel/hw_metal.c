/*
 * kernel/hw_metal.c - kernel/hw.h on bare metal.
 *
 * MSR and PMC access goes through the exception-fixup table (fixup.h): a
 * #GP or #UD at the instruction resumes at the fixup with the vector in
 * EAX, which becomes the return value.  The window is kernel/window.c over
 * the real registers; EILVT routing is AMD's extended APIC space.
 */
#include "kernel/hw.h"
#include "kernel/apic.h"
#include "kernel/fixup.h"
#include "kernel/idt.h"
#include "kernel/io.h"
#include "kernel/nmi.h"
#include "kernel/kx.h"
#include "kernel/trap.h"
#include "kernel/window.h"
#include "lib/libc.h"

void hw_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out)
{
	__asm__ volatile("cpuid"
			 : "=a"(out->eax), "=b"(out->ebx), "=c"(out->ecx), "=d"(out->edx)
			 : "a"(leaf), "c"(subleaf));
}

uint64_t hw_tsc(void)
{
	uint32_t lo, hi;
	/* LFENCE before: earlier instructions complete; after: later ones wait (SDM Vol. 2B, RDTSC). */
	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * On a fault at label 1, kx_trap sets RAX to the vector and resumes at label
 * 3 (out of line, in .text.fixup), which stores it in err and returns to 2.
 * SAFE_READ_EDX_EAX does that for the 64-bit reads into EDX:EAX with ECX as
 * the index (RDMSR, RDPMC); a faulting read yields 0.
 */
#define SAFE_READ_EDX_EAX(insn, index, val)                                           \
	({                                                                            \
		uint32_t lo_, hi_;                                                    \
		int err_ = 0;                                                         \
		__asm__ volatile("1: " insn "\n2:\n\t"                              \
				 ".pushsection .text.fixup, \"ax\"\n"                  \
				 "3: movl %%eax, %2\n\t"                               \
				 "xorl %%eax, %%eax\n\t"                               \
				 "xorl %%edx, %%edx\n\t"                               \
				 "jmp 2b\n\t"                                          \
				 ".popsection\n\t"                                     \
				 EX_ENTRY("1b", "3b")                                   \
				 : "=a"(lo_), "=d"(hi_), "+r"(err_)                     \
				 : "c"(index)                                           \
				 : "memory");                                           \
		*(val) = err_ ? 0 : ((uint64_t)hi_ << 32) | lo_;                      \
		err_;                                                                 \
	})

int hw_rdmsr(uint32_t msr, uint64_t *val)
{
	*val = 0;
	if (!idt_get()->installed)
		return HW_ENODEV;	/* no fault handler of ours: do not risk the firmware's */
	return SAFE_READ_EDX_EAX("rdmsr", msr, val);
}

int hw_wrmsr(uint32_t msr, uint64_t val)
{
	uint32_t lo = (uint32_t)val;
	int err = 0;
	if (!idt_get()->installed)
		return HW_ENODEV;
	__asm__ volatile("1: wrmsr\n2:\n\t"
			 ".pushsection .text.fixup, \"ax\"\n"
			 "3: movl %%eax, %1\n\t"
			 "jmp 2b\n\t"
			 ".popsection\n\t"
			 EX_ENTRY("1b", "3b")
			 : "+a"(lo), "+r"(err)
			 : "c"(msr), "d"((uint32_t)(val >> 32))
			 : "memory");
	return err;
}

int hw_rdpmc(uint32_t index, uint64_t *val)
{
	*val = 0;
	if (!idt_get()->installed)
		return HW_ENODEV;
	return SAFE_READ_EDX_EAX("rdpmc", index, val);
}

/* The register file for window.c and apic.c. */
static uint32_t metal_mmio_read32(uint64_t a) { return mmio_read32(a); }
static void metal_mmio_write32(uint64_t a, uint32_t v) { mmio_write32(a, v); }
static uint8_t metal_inb(uint16_t port) { return inb(port); }
static void metal_outb(uint16_t port, uint8_t v) { outb(port, v); }

static uint64_t metal_irq_save(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; pop %0; cli" : "=r"(f) : : "memory");
	return f;
}

static void metal_irq_restore(uint64_t rflags)
{
	if (rflags & RFLAGS_IF)
		__asm__ volatile("sti" : : : "memory");
}

static uint64_t metal_rflags(void) { return kx_read_rflags(); }

const struct kx_regio kx_metal_io = {
	.mmio_read32 = metal_mmio_read32,
	.mmio_write32 = metal_mmio_write32,
	.rdmsr = hw_rdmsr,
	.wrmsr = hw_wrmsr,
	.inb = metal_inb,
	.outb = metal_outb,
	.irq_save = metal_irq_save,
	.irq_restore = metal_irq_restore,
	.rflags = metal_rflags,
};

bool hw_window_enter(struct hw_window *w)
{
	const struct win_platform *p = kx_platform();
	if (!p) {
		memset(w, 0, sizeof(*w));
		return false;
	}
	return win_enter(p, w);
}

void hw_window_leave(struct hw_window *w)
{
	const struct win_platform *p = kx_platform();
	if (p)
		win_leave(p, w);
}

/* AMD extended LVT entries routed as NMIs for IBS. */
struct eilvt_route {
	hw_nmi_fn fn;
	void *ctx;
	uint32_t old;
	bool used;
};
static struct eilvt_route routes[APIC_EILVT_MAX];

static bool eilvt_nmi(void *ctx)
{
	struct eilvt_route *r = ctx;
	hw_nmi_fn fn = r->fn;
	if (!fn)
		return false;	/* unrouted: a late NMI counts as unclaimed (survived, and marks its window) */
	fn(r->ctx);
	/* The callback cannot say whether its source fired; a routed source is expected inside windows. */
	return true;
}

static bool eilvt_count(const struct apic *a, unsigned *count, char *why, unsigned long cap)
{
	uint32_t ver = 0, feat = 0;
	if (a->mode == APIC_NONE) {
		snprintf(why, cap, "no usable local APIC");
		return false;
	}
	if (!apic_read(a, APIC_VERSION, &ver) || !(ver & APIC_VERSION_EXT_SPACE) ||
	    !apic_read(a, APIC_EXT_FEATURE, &feat)) {
		snprintf(why, cap, "the local APIC has no extended register space (AMD APM Vol. 2 §16.3.5)");
		return false;
	}
	*count = APIC_EXT_FEATURE_LVT_COUNT(feat);
	return true;
}

bool hw_nmi_route_eilvt(unsigned offset, hw_nmi_fn fn, void *ctx, char *why, unsigned long why_cap)
{
	const struct win_platform *p = kx_platform();
	unsigned count = 0;
	uint32_t reg = APIC_EILVT0 + offset * APIC_EILVT_STRIDE, old = 0;

	if (!p) {
		snprintf(why, why_cap, "the runtime is not initialised");
		return false;
	}
	if (!eilvt_count(&p->apic, &count, why, why_cap))
		return false;
	if (offset >= count || offset >= APIC_EILVT_MAX) {
		snprintf(why, why_cap, "extended LVT offset %u does not exist (the APIC has %u)", offset, count);
		return false;
	}
	if (routes[offset].used) {
		snprintf(why, why_cap, "extended LVT offset %u is already routed", offset);
		return false;
	}
	if (!apic_read(&p->apic, reg, &old)) {
		snprintf(why, why_cap, "extended LVT offset %u cannot be read", offset);
		return false;
	}
	if (!(old & LVT_MASKED) && ((old >> LVT_DELIVERY_SHIFT) & 7) != LVT_DELIVERY_NMI) {
		snprintf(why, why_cap, "extended LVT offset %u is in use by the firmware (0x%x)", offset, old);
		return false;
	}
	nmi_unregister(eilvt_nmi, &routes[offset]);
	routes[offset] = (struct eilvt_route){ fn, ctx, old, true };
	if (!nmi_register(eilvt_nmi, &routes[offset])) {
		routes[offset].used = false;
		snprintf(why, why_cap, "no free NMI handler slot");
		return false;
	}
	/* Unmasked, message type NMI, vector 0 (AMD APM Vol. 2 §16.4.5). */
	if (!apic_write(&p->apic, reg, LVT_DELIVERY_NMI << LVT_DELIVERY_SHIFT)) {
		nmi_unregister(eilvt_nmi, &routes[offset]);
		routes[offset].used = false;
		snprintf(why, why_cap, "extended LVT offset %u cannot be written", offset);
		return false;
	}
	if (why_cap)
		why[0] = '\0';
	return true;
}

void hw_nmi_unroute_eilvt(unsigned offset)
{
	const struct win_platform *p = kx_platform();
	if (!p || offset >= APIC_EILVT_MAX || !routes[offset].used)
		return;
	uint32_t reg = APIC_EILVT0 + offset * APIC_EILVT_STRIDE;
	apic_write(&p->apic, reg, routes[offset].old | LVT_MASKED);
	apic_write(&p->apic, reg, routes[offset].old);
	routes[offset].fn = NULL;
	routes[offset].used = false;
	nmi_unregister(eilvt_nmi, &routes[offset]);
}

void kx_unroute_all(void)
{
	for (unsigned i = 0; i < APIC_EILVT_MAX; i++)
		hw_nmi_unroute_eilvt(i);
}
