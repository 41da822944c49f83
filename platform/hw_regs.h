/*
 * platform/hw_regs.h - the platform registers under platform/hw.h, for the
 * interrupt-source logic (platform/apic.c, platform/window.c).
 *
 * Part of the one platform seam and substituted the same way, at link
 * time (docs/architecture.md, "The seam"):
 *   platform/metal/hw_metal.c     the image: MMIO, port I/O, RFLAGS, cli/sti;
 *   tests/fake/hw_fake.c  unit tests: a modelled xAPIC page, I/O ports and
 *                         RFLAGS.IF, with an ordered log of every write,
 *                         cli and sti, so a test asserts what was masked,
 *                         what was restored and in which order.
 * pmuboot-host implements none of it: a Linux process reaches none of
 * these registers, its window (linux/hw_linux.c) counts disturbances
 * instead, and it links no code that uses them.
 */
#ifndef PMUBOOT_PLATFORM_HW_REGS_H
#define PMUBOOT_PLATFORM_HW_REGS_H

#include <stdint.h>

uint32_t hw_mmio_read32(uint64_t addr);
void hw_mmio_write32(uint64_t addr, uint32_t v);
uint8_t hw_inb(uint16_t port);
void hw_outb(uint16_t port, uint8_t v);
/* RFLAGS, then interrupts off (cli). */
uint64_t hw_irq_save(void);
/* Interrupts back on (sti) only if RFLAGS.IF was set in `rflags`. */
void hw_irq_restore(uint64_t rflags);
uint64_t hw_rflags(void);
/*
 * CR4 and XCR0, for platform/vec.c (enabling AVX state; SDM Vol. 3A §2.5, §2.6,
 * Vol. 1 §13.3).  The writes and XGETBV never fault: HW_OK, or the exception
 * absorbed (XGETBV #UD while CR4.OSXSAVE is clear, XSETBV #GP on a value the
 * processor refuses), or HW_ENODEV before the fixups are live.
 */
uint64_t hw_read_cr4(void);
int hw_write_cr4(uint64_t v);
int hw_xgetbv0(uint64_t *v);
int hw_xsetbv0(uint64_t v);

#endif
