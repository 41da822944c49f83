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

/* platform_metal.c: the EILVT routes of a processor the firmware stopped are gone with it; forget them. */
void platform_forget_routes(void);
/* arena_metal.c: whether the runtime is up (arenas are refused before kernel_init). */
void arena_attach(bool runtime_up);
/* arena_metal.c: load cr3 on this CPU and flush every translation, global ones too. */
void arena_load_cr3(uint64_t cr3);
/* arena_metal.c: CR3 back to the firmware's without freeing (exception context). */
void arena_emergency_restore(void);

/* guard_metal.c: the platform whose local APIC timer is the watchdog (NULL detaches). */
void guard_attach(const struct win_platform *p);

/* selftest.c: apfault / aphang at the start of a pass on an application processor. */
void selftest_in_pass(const char *list);
/* selftest.c: the `runtime` record and the self-tests in list on platform p (NULL: not initialised). */
void selftest_run(const struct win_platform *p, const char *list);

/*
 * runtime.c, for ap.c: body(arg) guarded on this application processor with
 * platform p (probed on it).  After a fault: the window closed, the `fault`
 * record written (who names the CPU), cleanup(arg) run, and false returned;
 * the run goes on.  Either way the boot CPU's platform, guard and hooks are
 * back when it returns (runtime_rejoin).
 */
bool runtime_run_here(const struct win_platform *p, void (*body)(void *), void (*cleanup)(void *), void *arg,
		      const char *who);
void runtime_rejoin(void);
/* runtime.c: the boot CPU's platform (its local APIC sends the wake-up NMIs of kernel_unpark). */
const struct win_platform *runtime_boot_platform(void);
#endif
