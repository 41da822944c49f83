/*
 * boot/console.h - the screen as an output sink.
 *
 * Firmware consoles often include the serial port as well as the screen
 * (OVMF's ConOut does), so writing every line to ConOut while the project's
 * own UART driver also writes it would put each line on the serial capture
 * twice.  console_attach() therefore writes the screen to the non-serial
 * consoles only, and the lines to the firmware's serial consoles only when
 * our UART is not in use (then they are the only serial path).
 */
#ifndef PMUBOOT_BOOT_CONSOLE_H
#define PMUBOOT_BOOT_CONSOLE_H

#include <efi.h>
#include <stdbool.h>
#include "lib/record.h"
#include "run/config.h"

/*
 * Register the screen sink (readable or records, as cfg->screen says) and,
 * when our UART is not in use and serial= is not off, a sink for the
 * firmware's own serial consoles.  With serial=off nothing of the run is
 * written to a serial console.  Returns the number of screens written to.
 */
unsigned console_attach(EFI_SYSTEM_TABLE *st, bool own_uart_active, bool serial_off, const struct config *cfg);
/* The "screen" object of the begin record: mode, size, consoles. */
void console_record(struct rec *r);
/* Plain ASCII text on every attached console, for messages before the sinks exist. */
void console_puts(EFI_SYSTEM_TABLE *st, const char *s);

#endif
