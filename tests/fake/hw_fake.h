/*
 * tests/fake/hw_fake.h - platform/hw.h and platform/hw_regs.h for unit tests:
 * a modelled CPU, linked in place of the image's platform/metal/hw_metal.c (the
 * one way hardware is substituted: docs/architecture.md, "The seam").
 *
 * CPUID answers come from a table of leaves (set by hand, or loaded from a
 * CPUID dump).  MSRs exist only when declared; any other access is #GP,
 * as on real hardware.  A declared MSR holds a value; writes can be checked
 * against a mask of writable bits (#GP on a reserved bit) and are logged in
 * order, so tests can assert the exact sequence a driver wrote.  Models of
 * richer behaviour (counters that count, IBS) hook in through fake_msr_hook.
 * The platform registers (an xAPIC page, the I/O ports, RFLAGS.IF) are
 * modelled too, with one ordered log of every write, cli and sti.
 */
#ifndef PMUBOOT_TESTS_FAKE_HW_FAKE_H
#define PMUBOOT_TESTS_FAKE_HW_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/hw.h"
#include "platform/hw_regs.h"

#define FAKE_MAX_LEAVES 256
#define FAKE_MAX_MSRS 512
#define FAKE_MAX_LOG 4096

/* Forget everything: no CPUID leaves, no MSRs, empty logs, RDPMC raises #UD, no MMIO page,
 * ports all zero, RFLAGS.IF set. */
void fake_reset(void);
/* What hw_platform() says (at start: not ring 0, the machine owned).  The kind of machine a test runs on,
 * not per-processor state: fake_reset leaves it; a test that changes it puts it back. */
void fake_platform_set(bool ring0, bool owns_machine);

/* CPUID: leaf/subleaf -> regs.  Leaves not set read as zero (as on CPUs past their max leaf). */
void fake_cpuid_set(uint32_t leaf, uint32_t subleaf, uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t edx);
/* Make subleaf lookups for `leaf` ignore ECX (leaves that are not subleaf-indexed). */
void fake_cpuid_flat(uint32_t leaf);

/* Declare an MSR with a value; writable is the mask of bits a write may set (others #GP). */
void fake_msr_define(uint32_t msr, uint64_t value, uint64_t writable);
bool fake_msr_exists(uint32_t msr);
/* Make `mask` of a declared MSR sticky logs (R/WC0, e.g. IA32_THERM_STATUS): writing 0 clears such a bit,
 * writing 1 leaves it as it is, and bits outside the writable mask keep their value across writes. */
void fake_msr_rwc0(uint32_t msr, uint64_t mask);
uint64_t fake_msr_get(uint32_t msr);	/* the stored value (0 if undefined) */
void fake_msr_set(uint32_t msr, uint64_t value);	/* set without logging */

/* Every successful hw_wrmsr, in order. */
struct fake_write {
	uint32_t msr;
	uint64_t value;
};
size_t fake_log_count(void);
const struct fake_write *fake_log_at(size_t i);
void fake_log_clear(void);

/*
 * A hook sees every access first.  Return true when it handled the access
 * (setting *result to HW_OK or a fault); false lets the plain MSR store act.
 */
struct fake_msr_hook {
	bool (*read)(void *ctx, uint32_t msr, uint64_t *val, int *result);
	bool (*write)(void *ctx, uint32_t msr, uint64_t val, int *result);
	bool (*rdpmc)(void *ctx, uint32_t index, uint64_t *val, int *result);
	void *ctx;
};
void fake_set_hook(const struct fake_msr_hook *hook);

/*
 * Platform registers (platform/hw_regs.h).  One 4 KiB MMIO page is modelled
 * (an xAPIC): fake_mmio_page returns its registers, by byte offset / 4,
 * for the test to set and inspect.  An access outside it aborts the test:
 * the code under test touched memory it had no business with.
 */
#define FAKE_MMIO_BYTES 0x1000
uint32_t *fake_mmio_page(uint64_t base);
/* Called after every hw_mmio_write32 (offset into the page): a device that reacts to a write. */
void fake_mmio_on_write(void (*fn)(uint32_t offset, uint32_t value));
/* The 64 Ki I/O ports, for the test to set and inspect. */
uint8_t *fake_ports(void);
/* RFLAGS as hw_irq_save/hw_irq_restore/hw_rflags see and change it. */
uint64_t fake_rflags(void);
void fake_rflags_set(uint64_t rflags);

/* Every platform write in order: MMIO (addr = offset into the page), port, successful MSR write, cli, sti. */
enum fake_event_kind { FAKE_EV_MMIO_W, FAKE_EV_PORT_W, FAKE_EV_MSR_W, FAKE_EV_CLI, FAKE_EV_STI, FAKE_EV_CR4_W,
		       FAKE_EV_XSETBV };
struct fake_event {
	enum fake_event_kind kind;
	uint64_t addr, value;
};
size_t fake_event_count(void);
const struct fake_event *fake_event_at(size_t i);

/*
 * CR4 and XCR0 (platform/hw_regs.h, platform/vec.c).  At reset both are 0.  A CR4
 * write setting OSXSAVE #GPs unless CPUID.01H:ECX.XSAVE is set; XGETBV #UDs
 * while CR4.OSXSAVE is clear; XSETBV refuses (#GP) what SDM Vol. 2B XSETBV and
 * Vol. 1 §13.3 say a processor refuses, judged against the fake's CPUID.0DH.0
 * EDX:EAX.  Successful writes go to the event log (FAKE_EV_CR4_W, FAKE_EV_XSETBV).
 * hw_vector_state reports XCR0 as known while CR4.OSXSAVE is set.
 */
void fake_cr4_set(uint64_t v);
uint64_t fake_cr4(void);
void fake_xcr0_set(uint64_t v);
uint64_t fake_xcr0(void);
/* XSETBV also refuses bits outside mask (a hypervisor refusing what its CPUID offers); reset: all. */
void fake_xsetbv_accepts(uint64_t mask);

/* The TSC: advances by `step` on every hw_tsc() call. */
void fake_tsc_set(uint64_t value, uint64_t step);
/* Time passing on the fake CPU (a run of a kernel, tests/fake/measure_fake.h): the TSC moves on by ticks. */
void fake_tsc_advance(uint64_t ticks);

/* Interrupts-off window: count of enter/leave calls, and injected pollution. */
unsigned fake_window_depth(void);
void fake_window_inject_nmi(unsigned count);	/* next window reports this many NMIs */

/* NMI routing for IBS: whether routing succeeds, and firing the routed handler. */
void fake_nmi_allow_route(bool allow);
bool fake_nmi_fire(void);	/* calls the routed handler; false if none */
/* The PMI (hw_nmi_route_pmi): whether routing succeeds, and delivering one (the modelled PMU does). */
void fake_pmi_allow_route(bool allow);
bool fake_pmi_fire(void);	/* calls the routed handler; false if none is routed */

#endif
