/* platform/metal/serial.c - see serial.h.  Register map: PC16550D datasheet (TI SNLS378), table 2. */
#include "platform/metal/serial.h"
#include "platform/metal/io.h"

#define UART_THR 0	/* transmit holding register (write, DLAB=0) */
#define UART_DLL 0	/* divisor latch low (DLAB=1) */
#define UART_IER 1	/* interrupt enable (DLAB=0) */
#define UART_DLM 1	/* divisor latch high (DLAB=1) */
#define UART_FCR 2	/* FIFO control (write) */
#define UART_LCR 3	/* line control */
#define UART_MCR 4	/* modem control */
#define UART_LSR 5	/* line status */
#define UART_SCR 7	/* scratch */

#define LCR_8N1 0x03		/* 8 data bits, no parity, 1 stop bit */
#define LCR_DLAB 0x80		/* divisor latch access */
#define FCR_ENABLE_CLEAR 0x07	/* FIFO enable, clear RX and TX FIFOs */
#define MCR_DTR_RTS 0x03
#define LSR_THRE 0x20		/* transmit holding register empty */

#define UART_CLOCK_DIV16 115200	/* 1.8432 MHz reference clock / 16 */
/*
 * Bounded waits.  One LSR read costs about a microsecond on an LPC/eSPI
 * UART; a byte at 9600 baud takes ~1 ms, so 20000 polls is ample for a
 * working UART and short enough that a missing one costs little.
 */
#define UART_POLL_LIMIT 20000
/* After this many timed-out bytes the UART is treated as gone. */
#define UART_DEAD_AFTER 8

static void reg_write(struct uart *u, unsigned reg, uint8_t v)
{
	switch (u->access) {
	case UART_IO: outb((uint16_t)(u->base + reg), v); break;
	case UART_MMIO8: mmio_write8(u->base + reg, v); break;
	case UART_MMIO32: mmio_write32(u->base + reg * 4u, v); break;
	}
}

static uint8_t reg_read(struct uart *u, unsigned reg)
{
	switch (u->access) {
	case UART_IO: return inb((uint16_t)(u->base + reg));
	case UART_MMIO8: return mmio_read8(u->base + reg);
	case UART_MMIO32: return (uint8_t)mmio_read32(u->base + reg * 4u);
	}
	return 0xff;
}

bool uart_init(struct uart *u, enum uart_access access, uint64_t base, uint32_t baud)
{
	u->access = access;
	u->base = base;
	u->baud = baud ? baud : UART_CLOCK_DIV16;
	u->present = false;
	u->dead = false;
	u->timeouts = 0;

	/* A floating bus reads 0xff; a real 16550 keeps what is written to SCR. */
	static const uint8_t patterns[] = { 0x55, 0xaa };
	uint8_t saved = reg_read(u, UART_SCR);
	for (size_t i = 0; i < sizeof(patterns); i++) {
		reg_write(u, UART_SCR, patterns[i]);
		if (reg_read(u, UART_SCR) != patterns[i])
			return false;
	}
	reg_write(u, UART_SCR, saved);

	uint16_t divisor = (uint16_t)(UART_CLOCK_DIV16 / u->baud);
	reg_write(u, UART_IER, 0);
	reg_write(u, UART_LCR, LCR_DLAB);
	reg_write(u, UART_DLL, (uint8_t)divisor);
	reg_write(u, UART_DLM, (uint8_t)(divisor >> 8));
	reg_write(u, UART_LCR, LCR_8N1);
	reg_write(u, UART_FCR, FCR_ENABLE_CLEAR);
	reg_write(u, UART_MCR, MCR_DTR_RTS);
	u->present = true;
	return true;
}

static void put_byte(struct uart *u, char c)
{
	for (unsigned n = 0; n < UART_POLL_LIMIT; n++) {
		if (reg_read(u, UART_LSR) & LSR_THRE) {
			reg_write(u, UART_THR, (uint8_t)c);
			return;
		}
	}
	if (++u->timeouts >= UART_DEAD_AFTER)
		u->dead = true;
}

void uart_write(struct uart *u, const char *s, size_t len)
{
	if (!u->present || u->dead)
		return;
	for (size_t i = 0; i < len && !u->dead; i++) {
		if (s[i] == '\n')
			put_byte(u, '\r');
		put_byte(u, s[i]);
	}
}
