/* boot/serial_setup.c - choose the console UART and attach it as an output sink. */
#include "boot.h"
#include "serial_setup.h"
#include "../kernel/serial.h"
#include "../lib/out.h"
#include "../lib/record.h"

#define COM1_PORT 0x3f8		/* PC/AT convention */
#define DEFAULT_BAUD 115200

static struct uart console_uart;

static void uart_line(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)kind;
	struct uart *u = ctx;
	uart_write(u, line, len);
	uart_write(u, "\n", 1);
}

void boot_serial_setup(const struct serial_cfg *want, struct serial_choice *out)
{
	struct serial_cfg use = *want;

	memset(out, 0, sizeof(*out));
	if (want->kind == SERIAL_OFF) {
		out->how = "serial=off";
		return;
	}
	if (want->kind == SERIAL_AUTO) {
		use.kind = SERIAL_IO;
		use.base = COM1_PORT;
		use.baud = DEFAULT_BAUD;
		out->how = "default COM1";
	} else {
		out->how = "serial option";
	}
	enum uart_access acc = use.kind == SERIAL_MMIO8 ? UART_MMIO8 : use.kind == SERIAL_MMIO32 ? UART_MMIO32 : UART_IO;
	out->access = use.kind == SERIAL_IO ? "io" : use.kind == SERIAL_MMIO8 ? "mmio" : "mmio32";
	out->base = use.base;
	out->baud = use.baud;
	if (!uart_init(&console_uart, acc, use.base, use.baud)) {
		out->missing = true;
		return;
	}
	out->active = true;
	struct out_sink sink = { .name = "serial", .write_line = uart_line, .ctx = &console_uart };
	out_add_sink(&sink);
}

bool boot_serial_dead(void)
{
	return console_uart.present && console_uart.dead;
}

void serial_choice_record(struct rec *r, const struct serial_choice *c)
{
	rec_obj(r, "serial");
	rec_bool(r, "active", c->active);
	rec_str(r, "how", c->how);
	if (c->access) {
		rec_str(r, "access", c->access);
		rec_hex(r, "base", c->base);
		rec_u64(r, "baud", c->baud);
	}
	if (c->missing)
		rec_str(r, "problem", "no UART answered at that address (scratch-register test failed)");
	rec_obj_end(r);
}
