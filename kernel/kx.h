/*
 * kernel/kx.h - what the image-only kernel files give each other.
 *
 * Calls go one way, down (docs/architecture.md, "Inside kernel/";
 * tools/kernel_calls.py checks it on the objects): runtime.c owns the
 * platform it finds at kernel_init and passes it down to the files that
 * need it; nothing calls back up to fetch it.
 */
#ifndef PMUBOOT_KERNEL_KX_H
#define PMUBOOT_KERNEL_KX_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/window.h"

/* hw_metal.c: our fault handlers are live (idt.c); until then MSR and PMC access reports HW_ENODEV. */
void hw_metal_fixups_live(bool live);

/*
 * platform_metal.c: the interrupt sources hw_window_enter and the EILVT
 * routing work on.  NULL detaches: every routed EILVT entry is unrouted and
 * windows are refused from then on.
 */
void platform_attach(const struct win_platform *p);

/* arena_metal.c: whether the runtime is up (arenas are refused before kernel_init). */
void arena_attach(bool runtime_up);
/* arena_metal.c: CR3 back to the firmware's without freeing (exception context). */
void arena_emergency_restore(void);

/* selftest.c: the `runtime` record and the self-tests in list on platform p (NULL: not initialised). */
void selftest_run(const struct win_platform *p, const char *list);

#endif
