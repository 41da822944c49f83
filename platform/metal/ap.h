/*
 * platform/metal/ap.h - a measuring pass on an application processor, and the
 * parking of the processors that are not measuring (docs/runtime.md,
 * "Other processors").
 *
 * The firmware's MP Services start a procedure on an AP with the
 * firmware's IDT, page tables and a small stack, and its services must not
 * be called there.  platform_ap_run gives the pass what the boot processor's
 * run has: our exception gates and fixups, the run's page tables (where the
 * benchmark arenas are mapped), a stack of its own, a measurement window
 * over this CPU's local APIC, and a fault path of its own that writes a
 * `fault` record and lets the run go on.  Only one processor runs our code
 * at a time: the boot CPU waits in platform_wait_flag and the others are
 * parked in platform_park, so the runtime's state needs no locks.
 * Image-only.
 */
#ifndef PMUBOOT_PLATFORM_METAL_AP_H
#define PMUBOOT_PLATFORM_METAL_AP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/x86/cpuid.h"

/* What the boot CPU sets up once before the first pass elsewhere. */
struct platform_ap {
	uint64_t cr3;		/* the run's page tables, as loaded on the boot CPU */
	uint8_t *stack;
	size_t stack_bytes;
};
bool platform_ap_prepare(struct platform_ap *a, char *why, size_t why_cap);

struct platform_ap_call {
	void (*body)(void *arg);
	/* After a fault in body, on the same processor: put back what body changed (its MSRs). */
	void (*cleanup)(void *arg);
	void *arg;
	const char *who;	/* "processor 2 (APIC ID 1)", for the fault line */
	/* Results. */
	volatile uint32_t done;	/* set last, after the AP's own state is back */
	bool ran, faulted;
	const char *why;	/* when !ran */
};
/* On the application processor: see the header comment.  Sets c->done last.  (platform/metal/runtime.c) */
void platform_ap_run(const struct platform_ap *a, struct platform_ap_call *c);
/* On the boot CPU, after a pass that never came back: the boot CPU's platform, guard and hooks again. */
void platform_ap_reclaim(void);

/*
 * Parking: a processor that is neither measuring nor waiting for the
 * result sleeps with interrupts off until `release` is written:
 *   - MWAIT on the flag's line where CPUID.01H:ECX[3] MONITOR is set (the
 *     write itself wakes it), unless the CPU is emulated: QEMU TCG with
 *     several CPUs runs MWAIT as PAUSE, a spin that takes a host CPU;
 *   - else HLT, woken by an NMI the boot CPU sends to its APIC ID; its IDT
 *     is meanwhile the firmware's with an NMI gate that only returns
 *     (platform/metal/idt.h idt_load_park), so the wake-up touches nothing shared;
 *   - else PAUSE, bounded by deadline_tsc.
 * Each parked processor has a slot; the boot CPU fills apic_id and k.
 */
enum park_mode { PARK_NONE, PARK_MWAIT, PARK_HLT, PARK_PAUSE };
struct platform_park {
	volatile uint32_t release;
	uint64_t deadline_tsc;
	enum cpu_exec exec;		/* identification's: an emulator's MWAIT is no sleep */
	enum park_mode want;		/* PARK_NONE: the best there is; else that one, or the next down */
};
struct platform_park_slot {
	struct platform_park *k;
	uint32_t apic_id;
	volatile uint32_t mode;		/* enum park_mode, set by the parked CPU */
	volatile uint32_t left;		/* set by the parked CPU on its way out */
};
void platform_park(struct platform_park_slot *s);
/*
 * On the boot CPU: write `release`, wake the HLT sleepers with an NMI (again
 * while they have not left: one that arrives just before the HLT is lost),
 * and wait up to limit_us for every slot to say it left.  Returns how many did.
 */
size_t platform_unpark(struct platform_park *k, struct platform_park_slot *slots, size_t n, uint64_t limit_us);
/* platform_ap_run, platform_ap_reclaim and platform_unpark live in platform/metal/runtime.c, which owns the platforms. */

/*
 * The boot CPU's wait for *flag to become non-zero, interrupts as they are
 * (the firmware's timer keeps running on it): MWAIT where it exists, else
 * HLT (each timer tick ends it), else PAUSE when interrupts are off.
 * False at deadline_tsc.  *how says which.
 */
bool platform_wait_flag(volatile uint32_t *flag, uint64_t deadline_tsc, enum cpu_exec exec, enum park_mode want,
		      const char **how);

#endif
