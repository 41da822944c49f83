/*
 * platform/metal/kx.h - what the image-only kernel files give each other.
 *
 * Calls go one way, down (docs/architecture.md, "Inside platform/";
 * tools/file_circles.py checks it on the objects): runtime.c owns the
 * platform it finds at platform_init and passes it down to the files that
 * need it; nothing calls back up to fetch it.
 */
#ifndef PMUBOOT_PLATFORM_METAL_KX_H
#define PMUBOOT_PLATFORM_METAL_KX_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/metal/idt.h"
#include "platform/vec.h"
#include "platform/window.h"

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
/* arena_metal.c: whether the runtime is up (arenas are refused before platform_init). */
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
 * ap.c, for runtime.c's platform_ap_run: on an application processor,
 * interrupts off, our IDT copy and the run's CR3 loaded, p probed on it
 * (false, nothing changed, without an IDT for it); and all of it back.
 */
struct platform_ap;
struct ap_saved {
	uint64_t rflags, cr3;
	struct idt_reg idt;
	struct vec_state vec;	/* this processor's CR4 and XCR0 as found (platform/vec.h) */
};
bool ap_enter(const struct platform_ap *a, struct ap_saved *sv, struct win_platform *p);
void ap_leave(const struct platform_ap *a, struct ap_saved *sv);
/* ap.c: after a processor the firmware stopped: its open window and EILVT routes forgotten. */
void ap_forget(void);
/* ap.c: platform_unpark with the boot CPU's local APIC, which sends the wake-up NMIs. */
struct platform_park;
struct platform_park_slot;
size_t ap_unpark(const struct apic *boot, struct platform_park *k, struct platform_park_slot *slots, size_t n,
		 uint64_t limit_us);
#endif
