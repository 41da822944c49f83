/*
 * platform/guard.h - running code that may fault or never finish (user
 * kernels, docs/kernels.md) without losing the run.
 *
 * hw_guarded_call calls fn(arg).  A fault inside it (any exception the
 * fixup table does not absorb) ends the call early instead of the run; so
 * does running longer than bound_us, when the platform has a watchdog that
 * can interrupt code running with interrupts off.  Three implementations:
 *   platform/metal/guard_metal.c     the image: the runtime's exception guard, and
 *                            the local APIC timer in NMI delivery mode;
 *   linux/guard_linux.c pmuboot-host: signal handlers and SIGALRM;
 *   tests/fake/guard_fake.c  unit tests: a plain call.
 */
#ifndef PMUBOOT_PLATFORM_GUARD_H
#define PMUBOOT_PLATFORM_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hw_guard_outcome {
	HW_GUARD_OK,		/* fn returned */
	HW_GUARD_FAULT,		/* an exception (image) or a signal (host) stopped it */
	HW_GUARD_TIMEOUT,	/* the watchdog stopped it after bound_us */
};

struct hw_guard_result {
	enum hw_guard_outcome outcome;
	unsigned vector;	/* HW_GUARD_FAULT: exception vector (host: the signal's equivalent, e.g. 6 for SIGILL) */
	uint64_t error_code;
	uint64_t rip;		/* where it stopped (fault or timeout), 0 when unknown */
	uint64_t addr;		/* a page fault's linear address (CR2, si_addr), else 0 */
	const char *what;	/* "#UD", "SIGSEGV", ... */
};

/*
 * The watchdog hw_guarded_call uses for bound_us ("apic_timer_nmi",
 * "sigalrm"), or NULL when there is none here (then why says so and a
 * kernel that never finishes cannot be stopped).
 */
const char *hw_guard_watchdog(char *why, size_t why_cap);

/* Call fn(arg) under the guard.  May be called inside an interrupts-off window (platform/hw.h). */
void hw_guarded_call(void (*fn)(void *), void *arg, uint64_t bound_us, struct hw_guard_result *r);

/*
 * Executable memory for generated code: bytes (rounded up to 4 KiB pages),
 * 4 KiB-aligned, writable until xmem_seal.  NULL, with why, when it cannot
 * be had.
 */
void *hw_xmem_alloc(size_t bytes, char *why, size_t why_cap);
/* Writing is done: make it executable (and, where the platform can, read-only). */
bool hw_xmem_seal(void *p, size_t bytes, char *why, size_t why_cap);
void hw_xmem_free(void *p, size_t bytes);
/*
 * Set the executable memory aside now, while the platform can still be
 * asked (the image: before a pass on another processor, whose allocations
 * come from it).  False, with why, when it cannot; hosted builds need nothing.
 */
bool hw_xmem_prepare(char *why, size_t why_cap);

#endif
