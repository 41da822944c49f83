/*
 * boot/console.h - the screen as an output sink.
 *
 * Firmware consoles often include the serial port as well as the screen
 * (OVMF's ConOut does), so writing every line to ConOut while the project's
 * own UART driver also writes it would put each line on the serial capture
 * twice.  console_attach() therefore writes to the non-serial consoles only
 * when our UART is in use, and to the firmware's whole ConOut otherwise
 * (then the firmware's serial console is the only serial path).
 */
#ifndef PMUBOOT_BOOT_CONSOLE_H
#define PMUBOOT_BOOT_CONSOLE_H

#include <efi.h>
#include <stdbool.h>

/* Returns the number of screen consoles written to (0: none found). */
unsigned console_attach(EFI_SYSTEM_TABLE *st, bool own_uart_active);
/* Plain ASCII text on every attached console, for messages before the sinks exist. */
void console_puts(EFI_SYSTEM_TABLE *st, const char *s);

#endif
