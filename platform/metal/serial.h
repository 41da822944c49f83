/*
 * platform/metal/serial.h - polled 16550 UART driver.
 *
 * I/O-port UARTs (COM1 at 0x3f8 by default) and memory-mapped ones with 1- or
 * 4-byte register spacing.  Nothing here can hang: presence is checked with
 * the scratch register before use, and every wait on the line-status
 * register is bounded; a UART that stops draining is declared dead and
 * skipped from then on.
 */
#ifndef PMUBOOT_PLATFORM_METAL_SERIAL_H
#define PMUBOOT_PLATFORM_METAL_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum uart_access { UART_IO, UART_MMIO8, UART_MMIO32 };

struct uart {
	enum uart_access access;
	uint64_t base;
	uint32_t baud;
	bool present;
	bool dead;		/* stopped draining mid-run */
	uint32_t timeouts;
};

/*
 * Probe and program the UART (baud, 8N1, FIFO on, interrupts off).  Returns
 * false, with u->present false, when no UART answers at that address.
 */
bool uart_init(struct uart *u, enum uart_access access, uint64_t base, uint32_t baud);
/* Send bytes, turning "\n" into "\r\n". */
void uart_write(struct uart *u, const char *s, size_t len);

#endif
