/*
 * platform/metal/io.h - port and memory-mapped I/O primitives for the image.
 * Bare-metal only: the host build and the tests never include this.
 */
#ifndef PMUBOOT_PLATFORM_METAL_IO_H
#define PMUBOOT_PLATFORM_METAL_IO_H

#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline void mmio_write8(uint64_t a, uint8_t v) { *(volatile uint8_t *)(uintptr_t)a = v; }
static inline uint8_t mmio_read8(uint64_t a) { return *(volatile uint8_t *)(uintptr_t)a; }
static inline void mmio_write32(uint64_t a, uint32_t v) { *(volatile uint32_t *)(uintptr_t)a = v; }
static inline uint32_t mmio_read32(uint64_t a) { return *(volatile uint32_t *)(uintptr_t)a; }

#endif
