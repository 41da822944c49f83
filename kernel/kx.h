/*
 * kernel/kx.h - what the image-only kernel files share among themselves.
 */
#ifndef PMUBOOT_KERNEL_KX_H
#define PMUBOOT_KERNEL_KX_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/regio.h"
#include "kernel/window.h"

/* The real register file (hw_metal.c). */
extern const struct kx_regio kx_metal_io;

/* The interrupt sources found by kernel_init; NULL before it and after teardown. */
const struct win_platform *kx_platform(void);

/* Exception context (trap.c): keep a copy of the open window for the recovery path. */
void kx_fault_capture_window(void);
/* Exception context, no recovery possible: firmware IDT, CR3 and window back. */
void kx_emergency_restore(void);

/* hw_metal.c: unroute every AMD extended LVT routed for IBS. */
void kx_unroute_all(void);

/* arena_metal.c: CR3 back to the firmware's without freeing (exception context). */
void arena_emergency_restore(void);
/* arena_metal.c: the firmware's CR3 as found by the first arena_get (0 before). */
uint64_t arena_firmware_cr3(void);

#endif
