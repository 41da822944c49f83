/*
 * kernel/regio.h - the register file the interrupt-source code works on.
 *
 * The APIC, PIC and window logic (apic.c, window.c) is portable: it reaches
 * registers only through this table of functions.  The image fills it with
 * real MMIO, port I/O, fault-safe MSR access and RFLAGS (kernel/hw_metal.c);
 * the unit tests fill it with a fake register file and check exactly what
 * was written and what was restored.
 */
#ifndef PMUBOOT_KERNEL_REGIO_H
#define PMUBOOT_KERNEL_REGIO_H

#include <stdint.h>

struct kx_regio {
	uint32_t (*mmio_read32)(uint64_t addr);
	void (*mmio_write32)(uint64_t addr, uint32_t v);
	/* HW_OK or the absorbed exception vector (kernel/hw.h). */
	int (*rdmsr)(uint32_t msr, uint64_t *v);
	int (*wrmsr)(uint32_t msr, uint64_t v);
	uint8_t (*inb)(uint16_t port);
	void (*outb)(uint16_t port, uint8_t v);
	/* RFLAGS, then interrupts off (cli). */
	uint64_t (*irq_save)(void);
	/* Interrupts back on (sti) only if RFLAGS.IF was set in `rflags`. */
	void (*irq_restore)(uint64_t rflags);
	uint64_t (*rflags)(void);
};

#endif
