/*
 * boot/serial_setup.c - choose the console UART and attach it as an output sink.
 *
 * serial=auto follows the firmware: when it publishes an ACPI SPCR table
 * naming a 16550 it can be driven (I/O port or MMIO), that UART is the
 * console, since it is the one a BMC's serial-over-LAN or the lab's cable is
 * on.  Otherwise, or when that UART does not answer, COM1.
 */
#include "boot/boot.h"
#include "boot/serial_setup.h"
#include "platform/metal/serial.h"
#include "lib/out.h"
#include "lib/record.h"

#define COM1_PORT 0x3f8		/* PC/AT convention */
#define DEFAULT_BAUD 115200
/* 8N1: a start bit, eight data bits and a stop bit on the line for every byte (the frame uart_init sets). */
#define UART_BITS_PER_BYTE 10u
#define ACPI_HEADER_LENGTH_OFFSET 4	/* ACPI 6.5 §5.2.6: the table length follows the signature */
#define SPCR_MAX_LENGTH 4096		/* far above any revision; guards a corrupt length field */

static struct uart console_uart;

static void uart_line(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)kind;
	struct uart *u = ctx;
	uart_write(u, line, len);
	uart_write(u, "\n", 1);
}

static const enum uart_access uart_access_of[] = {
	[SERIAL_IO] = UART_IO, [SERIAL_MMIO8] = UART_MMIO8, [SERIAL_MMIO32] = UART_MMIO32,
};
static const char *const access_name_of[] = {
	[SERIAL_IO] = "io", [SERIAL_MMIO8] = "mmio", [SERIAL_MMIO32] = "mmio32",
};
static const enum serial_kind kind_of_spcr[] = {
	[SPCR_IO] = SERIAL_IO, [SPCR_MMIO8] = SERIAL_MMIO8, [SPCR_MMIO32] = SERIAL_MMIO32,
};

/* Look for the firmware's SPCR table; true when it names a UART we can drive. */
static bool spcr_choice(struct serial_choice *out, struct serial_cfg *use, uint32_t *driver_baud)
{
	const uint8_t *t = fw_acpi_table("SPCR");
	if (!t)
		return false;
	uint32_t len;
	memcpy(&len, t + ACPI_HEADER_LENGTH_OFFSET, sizeof(len));
	out->spcr_found = true;
	spcr_parse(t, len < SPCR_MAX_LENGTH ? len : SPCR_MAX_LENGTH, &out->spcr);
	if (!out->spcr.usable) {
		out->note = "the ACPI SPCR table was not followed (see spcr.problem)";
		return false;
	}
	bool exact;
	use->kind = kind_of_spcr[out->spcr.access];
	use->base = out->spcr.base;
	use->baud = out->spcr.baud ? out->spcr.baud : DEFAULT_BAUD;
	*driver_baud = spcr_driver_baud(out->spcr.clock_hz, use->baud, &exact);
	if (!out->spcr.baud)
		out->note = "ACPI SPCR leaves the baud rate as the firmware set it; 115200 assumed";
	else if (!exact)
		out->note = "the UART clock allows only an approximate divisor for this baud rate";
	out->clock_hz = out->spcr.clock_hz;
	return true;
}

static bool try_uart(const struct serial_cfg *use, uint32_t driver_baud, struct serial_choice *out)
{
	out->access = access_name_of[use->kind];
	out->base = use->base;
	out->baud = use->baud ? use->baud : DEFAULT_BAUD;
	return uart_init(&console_uart, uart_access_of[use->kind], use->base, driver_baud ? driver_baud : out->baud);
}

void boot_serial_setup(const struct serial_cfg *want, struct serial_choice *out)
{
	struct serial_cfg use = *want;
	uint32_t driver_baud = 0;
	bool ok;

	memset(out, 0, sizeof(*out));
	if (want->kind == SERIAL_OFF) {
		out->how = "serial=off";
		return;
	}
	/* Looked up even when serial= names a port, so the begin record shows what SPCR says. */
	struct serial_cfg from_spcr;
	bool spcr_ok = spcr_choice(out, &from_spcr, &driver_baud);
	if (want->kind != SERIAL_AUTO) {
		out->how = "serial option";
		out->note = NULL;
		out->clock_hz = 0;
		ok = try_uart(&use, 0, out);
	} else if (spcr_ok) {
		out->how = "ACPI SPCR";
		use = from_spcr;
		ok = try_uart(&use, driver_baud, out);
		if (!ok) {
			/* The table may be stale (a UART disabled in setup): fall back to COM1. */
			out->note = "the UART the ACPI SPCR table names did not answer; COM1 tried instead";
			out->clock_hz = 0;
			use = (struct serial_cfg){ SERIAL_IO, COM1_PORT, DEFAULT_BAUD };
			out->how = "default COM1";
			ok = try_uart(&use, 0, out);
		}
	} else {
		use = (struct serial_cfg){ SERIAL_IO, COM1_PORT, DEFAULT_BAUD };
		out->how = "default COM1";
		ok = try_uart(&use, 0, out);
	}
	if (!ok) {
		out->missing = true;
		return;
	}
	out->active = true;
	/* Port I/O or MMIO only: live on any processor, so a rig on the serial line sees a pass as it runs. */
	struct out_sink sink = { .name = "serial",
				 .write_line = uart_line,
				 .ctx = &console_uart,
				 .any_cpu = true,
				 .bytes_per_s = out->baud / UART_BITS_PER_BYTE };
	out_add_sink(&sink);
}

bool boot_serial_dead(void)
{
	return console_uart.present && console_uart.dead;
}

static void spcr_record(struct rec *r, const struct spcr_uart *s)
{
	rec_obj(r, "spcr");
	rec_u64(r, "revision", s->revision);
	rec_hex(r, "interface_type", s->interface_type);
	rec_bool(r, "usable", s->usable);
	if (s->usable) {
		rec_str(r, "access", spcr_access_name(s->access));
		rec_hex(r, "base", s->base);
	}
	rec_u64(r, "baud", s->baud);
	if (s->clock_hz)
		rec_u64(r, "uart_clock", s->clock_hz);
	if (s->problem)
		rec_str(r, "problem", s->problem);
	rec_obj_end(r);
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
	if (c->clock_hz)
		rec_u64(r, "uart_clock", c->clock_hz);
	if (c->missing)
		rec_str(r, "problem", "no UART answered at that address (scratch-register test failed)");
	if (c->note)
		rec_str(r, "note", c->note);
	if (c->spcr_found)
		spcr_record(r, &c->spcr);
	rec_obj_end(r);
}
