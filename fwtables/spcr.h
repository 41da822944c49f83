/*
 * fwtables/spcr.h - the console UART named by the ACPI SPCR table.
 *
 * Lab machines and BMC serial-over-LAN do not all put the console on COM1:
 * the firmware's Serial Port Console Redirection table says which UART it
 * used (I/O port or MMIO, register width, baud).  This module reads the
 * table's bytes only; boot/ finds the table (fw_acpi_table) and programs the
 * UART, so the parsing is unit-tested on the host.
 *
 * Source: Microsoft "Serial Port Console Redirection Table" specification
 * (revisions 1 to 4), its interface subtypes from the DBG2 specification
 * (table 3), and the Generic Address Structure of ACPI 6.5 §5.2.3.2.
 */
#ifndef PMUBOOT_FWTABLES_SPCR_H
#define PMUBOOT_FWTABLES_SPCR_H

#include "lib/libc.h"

enum spcr_access { SPCR_IO, SPCR_MMIO8, SPCR_MMIO32 };

struct spcr_uart {
	bool usable;		/* a 16550-compatible UART pmuboot can drive */
	const char *problem;	/* why not usable (or a caveat when usable), NULL when none */
	uint8_t revision;
	uint8_t interface_type;	/* DBG2 serial subtype (revision 1: 0 = 16550, 1 = 16450) */
	enum spcr_access access;
	uint64_t base;
	uint8_t reg_bit_width;	/* GAS register bit width */
	uint8_t access_size;	/* GAS access size (0 undefined, 1 byte, 3 dword) */
	uint32_t baud;		/* 0: the table leaves it "as configured" by the firmware */
	uint32_t clock_hz;	/* UART input clock (revision 3+), 0 when not stated */
};

/*
 * Parse an SPCR table of `len` bytes (the bytes available, normally the
 * header's length).  Returns false when the bytes are not a well-formed SPCR
 * table (out->problem says why); true when they are, with out->usable false
 * when the UART described is not one pmuboot can drive (out->problem again).
 */
bool spcr_parse(const void *table, size_t len, struct spcr_uart *out);

/*
 * platform/metal/serial.c derives the divisor as 115200 / baud (a 1.8432 MHz clock).
 * For a UART with another input clock, the baud value to hand it so that it
 * programs the divisor this UART needs for `baud`.  Returns 0 when no
 * divisor fits (clock too slow for the rate); *exact is false when the
 * divisor it will program differs by one from the ideal one.
 */
uint32_t spcr_driver_baud(uint32_t clock_hz, uint32_t baud, bool *exact);

/* "io", "mmio" or "mmio32": the same words as the serial= option. */
const char *spcr_access_name(enum spcr_access a);

#endif
