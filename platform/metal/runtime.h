/*
 * platform/metal/runtime.h - the no-OS runtime, as boot/efi_main.c sees it.
 *
 * pmuboot stays in UEFI boot services for the whole run (docs/runtime.md):
 * platform_init installs the project's IDT (the firmware's, with our
 * exception and NMI handlers) before anything touches an MSR; platform_run
 * runs the body of the program so that an unexpected exception ends it
 * with a `fault` record instead of a hang; platform_teardown gives the
 * firmware back its IDT, page tables and APIC routing.
 */
#ifndef PMUBOOT_PLATFORM_METAL_RUNTIME_H
#define PMUBOOT_PLATFORM_METAL_RUNTIME_H

#include <stdbool.h>

void platform_init(void);

/*
 * Run body(arg).  Returns true when it returned normally.  After a fatal
 * exception inside it, the open measurement window (if any) is restored,
 * interrupts are back as they were, the `fault` record is written, and
 * false is returned: the caller ends the record stream and finishes.
 */
bool platform_run(void (*body)(void *), void *arg);

/* The firmware's IDT, CR3 and APIC routing back; safe to call more than once. */
void platform_teardown(void);

/* The `runtime` record and the self-tests named in `list` (see platform/selftest.h). */
void platform_selftest(const char *list);

/* The self-tests of `list` that act in a measuring pass on an application processor (apfault, aphang). */
void platform_pass_selftest(const char *list);

#endif
