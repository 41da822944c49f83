/*
 * platform/metal/idt.h - the project's IDT for the run.
 *
 * A copy of the firmware's IDT with the exception vectors 0-31 (NMI
 * included) pointed at platform/metal/entry.asm's stubs.  The firmware's gates for
 * vectors 32 and up stay, so its timer and device interrupts keep working
 * between measurement windows; #VC (29) stays the firmware's, since under
 * AMD SEV-ES its handler is what makes CPUID and port I/O work at all.
 * docs/runtime.md explains the choice.  Image-only.
 */
#ifndef PMUBOOT_PLATFORM_METAL_IDT_H
#define PMUBOOT_PLATFORM_METAL_IDT_H

#include <stdbool.h>
#include <stdint.h>

struct idt_info {
	uint64_t fw_base;
	uint16_t fw_limit;
	uint64_t base;		/* ours */
	uint16_t limit;
	uint16_t cs;		/* code selector of our gates: the firmware's CS, read with mov */
	uint8_t df_ist;		/* IST kept from the firmware's #DF gate */
	bool installed;
};

/* Does nothing when the firmware cannot give a page for the table (then idt_get()->installed is false). */
void idt_install(void);
/* Load the firmware's IDTR again (idempotent). */
void idt_restore(void);
const struct idt_info *idt_get(void);

/*
 * On an application processor (platform/metal/ap.c): load a copy of our table whose
 * gates use that CPU's code selector and no IST stack (the AP's TSS is the
 * firmware's and need not have any), keeping the AP's own IDTR in *saved.
 * False, nothing loaded, when the runtime has no IDT.
 */
struct idt_reg {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));
bool idt_load_here(struct idt_reg *saved);
void idt_unload_here(const struct idt_reg *saved);
/*
 * For a processor parked in HLT: the firmware's table with the NMI gate
 * returning at once, built on the boot CPU.  False, nothing loaded, when
 * there is none or this CPU's code selector is not the boot CPU's.
 */
bool idt_load_park(struct idt_reg *saved);

#endif
