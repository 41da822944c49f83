/* boot/serial_setup.h - which UART carries the console, and how it was chosen. */
#ifndef PMUBOOT_BOOT_SERIAL_SETUP_H
#define PMUBOOT_BOOT_SERIAL_SETUP_H

#include "../lib/config.h"
#include "../lib/record.h"

struct serial_choice {
	bool active;		/* a UART answered and is an output sink */
	bool missing;		/* one was expected but did not answer */
	const char *how;	/* "serial option", "ACPI SPCR", "default COM1", "serial=off" */
	const char *access;	/* "io", "mmio", "mmio32" or NULL */
	uint64_t base;
	uint32_t baud;
};

void boot_serial_setup(const struct serial_cfg *want, struct serial_choice *out);
bool boot_serial_dead(void);
/* The "serial" object of the begin record. */
void serial_choice_record(struct rec *r, const struct serial_choice *c);

#endif
