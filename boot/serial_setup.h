/* boot/serial_setup.h - which UART carries the console, and how it was chosen. */
#ifndef PMUBOOT_BOOT_SERIAL_SETUP_H
#define PMUBOOT_BOOT_SERIAL_SETUP_H

#include "run/config.h"
#include "lib/record.h"
#include "fwtables/spcr.h"

struct serial_choice {
	bool active;		/* a UART answered and is an output sink */
	bool missing;		/* one was expected but did not answer */
	const char *how;	/* "serial option", "ACPI SPCR", "default COM1", "serial=off" */
	const char *access;	/* "io", "mmio", "mmio32" or NULL */
	uint64_t base;
	uint32_t baud;
	uint32_t clock_hz;	/* from SPCR when it names a non-standard UART clock, else 0 */
	const char *note;	/* why SPCR was not followed, or a caveat; NULL when none */
	bool spcr_found;	/* the firmware publishes an SPCR table (described by spcr) */
	struct spcr_uart spcr;
};

void boot_serial_setup(const struct serial_cfg *want, struct serial_choice *out);
bool boot_serial_dead(void);
/* The "serial" object of the begin record. */
void serial_choice_record(struct rec *r, const struct serial_choice *c);

#endif
