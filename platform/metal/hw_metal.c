/*
 * platform/metal/hw_metal.c - platform/hw.h's instructions on bare metal.
 *
 * MSR and PMC access goes through the exception-fixup table (fixup.h): a
 * #GP or #UD at the instruction resumes at the fixup with the vector in
 * EAX, which becomes the return value.  Only once our IDT is live (idt.c
 * says so through hw_metal_fixups_live): before, a fault would reach the
 * firmware's handler, so every access reports HW_ENODEV.  The window and
 * the EILVT routing, which need the platform's interrupt sources, are
 * platform/metal/platform_metal.c.  This file calls no other platform/ file.
 */
#include "platform/hw.h"
#include "platform/hw_regs.h"
#include "platform/fixup.h"
#include "platform/metal/io.h"
#include "platform/metal/kx.h"
#include "platform/trap.h"
#include "lib/libc.h"

static bool fixups_live;

void hw_metal_fixups_live(bool live) { fixups_live = live; }

void hw_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out)
{
	__asm__ volatile("cpuid"
			 : "=a"(out->eax), "=b"(out->ebx), "=c"(out->ecx), "=d"(out->edx)
			 : "a"(leaf), "c"(subleaf));
}

/* The image runs at ring 0 with boot services only: the machine is the run's. */
const struct hw_platform *hw_platform(void)
{
	static const struct hw_platform p = { .ring0 = true, .owns_machine = true, .shared_with = NULL };
	return &p;
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

/* The writing twin: EDX:EAX = val to the register ECX = index names (WRMSR, XSETBV); the vector, or 0. */
#define SAFE_WRITE_EDX_EAX(insn, index, val)                                          \
	({                                                                            \
		uint32_t lo_ = (uint32_t)(val);                                       \
		int err_ = 0;                                                         \
		__asm__ volatile("1: " insn "\n2:\n\t"                              \
				 ".pushsection .text.fixup, \"ax\"\n"                  \
				 "3: movl %%eax, %1\n\t"                               \
				 "jmp 2b\n\t"                                          \
				 ".popsection\n\t"                                     \
				 EX_ENTRY("1b", "3b")                                   \
				 : "+a"(lo_), "+r"(err_)                                \
				 : "c"(index), "d"((uint32_t)((val) >> 32))             \
				 : "memory");                                           \
		err_;                                                                 \
	})

int hw_rdmsr(uint32_t msr, uint64_t *val)
{
	*val = 0;
	if (!fixups_live)
		return HW_ENODEV;	/* no fault handler of ours: do not risk the firmware's */
	return SAFE_READ_EDX_EAX("rdmsr", msr, val);
}

int hw_wrmsr(uint32_t msr, uint64_t val)
{
	if (!fixups_live)
		return HW_ENODEV;
	return SAFE_WRITE_EDX_EAX("wrmsr", msr, val);
}

int hw_rdpmc(uint32_t index, uint64_t *val)
{
	*val = 0;
	if (!fixups_live)
		return HW_ENODEV;
	return SAFE_READ_EDX_EAX("rdpmc", index, val);
}

/*
 * platform/hw_regs.h: CR4 and XCR0 for platform/vec.c.  XGETBV/XSETBV with ECX = 0
 * (XCR0) go through the fixup table like RDMSR/WRMSR: XGETBV raises #UD while
 * CR4.OSXSAVE is clear, XSETBV #GP on a value the processor refuses (SDM
 * Vol. 2B XGETBV, XSETBV), and so may a CR4 write with a bit it lacks.
 */
#define XCR_XCR0 0u

uint64_t hw_read_cr4(void) { return kx_read_cr4(); }

int hw_write_cr4(uint64_t v)
{
	uint64_t rax = 0;
	int err = 0;
	if (!fixups_live)
		return HW_ENODEV;
	__asm__ volatile("1: mov %2, %%cr4\n2:\n\t"
			 ".pushsection .text.fixup, \"ax\"\n"
			 "3: movl %%eax, %1\n\t"
			 "jmp 2b\n\t"
			 ".popsection\n\t"
			 EX_ENTRY("1b", "3b")
			 : "+a"(rax), "+r"(err)
			 : "r"(v)
			 : "memory");
	return err;
}

int hw_xgetbv0(uint64_t *v)
{
	*v = 0;
	if (!fixups_live)
		return HW_ENODEV;
	return SAFE_READ_EDX_EAX("xgetbv", XCR_XCR0, v);
}

int hw_xsetbv0(uint64_t v)
{
	if (!fixups_live)
		return HW_ENODEV;
	return SAFE_WRITE_EDX_EAX("xsetbv", XCR_XCR0, v);
}

/* platform/hw_regs.h: the registers window.c and apic.c work on. */
uint32_t hw_mmio_read32(uint64_t a) { return mmio_read32(a); }
void hw_mmio_write32(uint64_t a, uint32_t v) { mmio_write32(a, v); }
uint8_t hw_inb(uint16_t port) { return inb(port); }
void hw_outb(uint16_t port, uint8_t v) { outb(port, v); }

uint64_t hw_irq_save(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; pop %0; cli" : "=r"(f) : : "memory");
	return f;
}

void hw_irq_restore(uint64_t rflags)
{
	if (rflags & RFLAGS_IF)
		__asm__ volatile("sti" : : : "memory");
}

uint64_t hw_rflags(void) { return kx_read_rflags(); }

/* No operating system under the image: MSR 8BH is the only word on microcode. */
bool hw_os_microcode(uint32_t *rev, char *source, unsigned long source_cap)
{
	(void)rev;
	(void)source;
	(void)source_cap;
	return false;
}
