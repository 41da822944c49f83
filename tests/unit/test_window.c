/*
 * The interrupts-off window (platform/window.c) against the fake CPU's register file:
 * every source masked after cli, each register restored bit for bit in the
 * right order, xAPIC and x2APIC, TSC-deadline and one-shot timers, SMI and
 * NMI bookkeeping, refusal to nest.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tests/fake/hw_fake.h"
#include "platform/apic.h"
#include "platform/nmi.h"
#include "platform/window.h"

#define APIC_BASE 0xFEE00000ull
#define RFLAGS_IF (1ull << 9)

/* The fake CPU's platform registers (tests/fake/hw_fake.h): its xAPIC page, ports and log. */
static uint32_t *apic;		/* by byte offset / 4 */
static uint8_t *ports;
static bool timer_expires_in_window;	/* one-shot: the count runs out while masked */

#define EV_MMIO_W FAKE_EV_MMIO_W
#define EV_PORT_W FAKE_EV_PORT_W
#define EV_MSR_W FAKE_EV_MSR_W
#define EV_CLI FAKE_EV_CLI
#define EV_STI FAKE_EV_STI

static void timer_device(uint32_t off, uint32_t v)
{
	if (off == APIC_LVT_TIMER && (v & LVT_MASKED) && timer_expires_in_window)
		apic[APIC_TIMER_CCR / 4] = 0;
}

/* An Intel CPU with an xAPIC (or x2APIC), 7 LVT entries, PIC masks as a firmware leaves them. */
static void platform(bool x2apic, bool intel, unsigned max_lvt)
{
	fake_reset();
	apic = fake_mmio_page(APIC_BASE);
	ports = fake_ports();
	fake_mmio_on_write(timer_device);
	timer_expires_in_window = false;
	fake_rflags_set(RFLAGS_IF | 2);
	if (intel)
		fake_cpuid_set(0, 0, 0x20, 0x756e6547, 0x6c65746e, 0x49656e69);	/* GenuineIntel */
	else
		fake_cpuid_set(0, 0, 0x10, 0x68747541, 0x444d4163, 0x69746e65);	/* AuthenticAMD */
	/* CPUID.1: ECX PDCM (15) + TSC-deadline (24); EDX APIC (9). */
	fake_cpuid_set(1, 0, 0x906EA, 0, (1u << 15) | (1u << 24), 1u << 9);
	fake_msr_define(MSR_IA32_APIC_BASE, APIC_BASE | APIC_BASE_EN | (x2apic ? APIC_BASE_EXTD : 0) | (1 << 8),
			~0ull);
	apic[APIC_VERSION / 4] = (max_lvt << 16) | 0x15;
	apic[APIC_LVT_TIMER / 4] = 0x20020;	/* periodic, vector 0x20, unmasked */
	apic[APIC_LVT_THERMAL / 4] = LVT_MASKED;
	apic[APIC_LVT_PERF / 4] = 0x400;	/* NMI, unmasked */
	apic[APIC_LVT_LINT0 / 4] = 0x700;	/* ExtINT */
	apic[APIC_LVT_LINT1 / 4] = 0x400;	/* NMI */
	apic[APIC_LVT_ERROR / 4] = 0x000FE;
	apic[APIC_LVT_CMCI / 4] = LVT_MASKED;
	ports[PIC1_DATA] = 0xB8;
	ports[PIC2_DATA] = 0x8E;
	if (x2apic) {
		/* The x2APIC registers as MSRs, mirroring the page; CMCI absent (#GP) on this model. */
		static const uint32_t regs[] = { APIC_ID, APIC_VERSION, APIC_LVT_TIMER, APIC_LVT_THERMAL, APIC_LVT_PERF,
						 APIC_LVT_LINT0, APIC_LVT_LINT1, APIC_LVT_ERROR, APIC_TIMER_ICR,
						 APIC_TIMER_CCR };
		for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
			fake_msr_define(MSR_X2APIC_BASE + (regs[i] >> 4), apic[regs[i] / 4], 0xFFFFFFFFull);
	}
	fake_msr_define(MSR_IA32_TSC_DEADLINE, 0, ~0ull);
	nmi_unregister_all();
}

static unsigned count(enum fake_event_kind k)
{
	unsigned n = 0;
	for (size_t i = 0; i < fake_event_count(); i++)
		n += fake_event_at(i)->kind == k;
	return n;
}

static int first_index(enum fake_event_kind k, uint64_t addr)
{
	for (size_t i = 0; i < fake_event_count(); i++)
		if (fake_event_at(i)->kind == k && fake_event_at(i)->addr == addr)
			return (int)i;
	return -1;
}

static int last_index(enum fake_event_kind k, uint64_t addr)
{
	int r = -1;
	for (size_t i = 0; i < fake_event_count(); i++)
		if (fake_event_at(i)->kind == k && fake_event_at(i)->addr == addr)
			r = (int)i;
	return r;
}

static void xapic_masks_everything_then_restores_exactly(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;
	uint32_t before[0x1000 / 4];

	platform(false, true, 6);
	win_probe(&p);
	assert_int_equal(p.apic.mode, APIC_XAPIC);
	assert_int_equal(p.max_lvt, 6);
	memcpy(before, apic, sizeof(before));

	assert_true(win_enter(&p, &w));
	/* cli is the very first thing done. */
	assert_true(fake_event_count() > 0 && fake_event_at(0)->kind == EV_CLI);
	assert_true(w.if_was_set);
	assert_true(w.if_verified_clear);
	assert_int_equal(ports[PIC1_DATA], 0xFF);
	assert_int_equal(ports[PIC2_DATA], 0xFF);
	static const uint32_t lvts[] = { APIC_LVT_TIMER, APIC_LVT_THERMAL, APIC_LVT_PERF, APIC_LVT_LINT0,
					 APIC_LVT_LINT1, APIC_LVT_ERROR, APIC_LVT_CMCI };
	for (unsigned i = 0; i < 7; i++)
		assert_true(apic[lvts[i] / 4] & LVT_MASKED);
	/* Entries already masked (thermal, CMCI) are not written at all. */
	assert_int_equal(first_index(EV_MMIO_W, APIC_LVT_THERMAL), -1);
	assert_int_equal(first_index(EV_MMIO_W, APIC_LVT_CMCI), -1);
	assert_int_equal(count(EV_STI), 0);

	win_leave(&p, &w);
	assert_memory_equal(apic, before, sizeof(before));
	assert_int_equal(ports[PIC1_DATA], 0xB8);
	assert_int_equal(ports[PIC2_DATA], 0x8E);
	/* Interrupts come back last, after every register. */
	assert_int_equal(fake_event_at(fake_event_count() - 1)->kind, EV_STI);
	assert_true(fake_rflags() & RFLAGS_IF);
	assert_false(hw_window_polluted(&w));
	assert_null(win_active());
}

static void x2apic_uses_msrs_and_skips_missing_entries(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;

	platform(true, true, 6);
	win_probe(&p);
	assert_int_equal(p.apic.mode, APIC_X2APIC);
	assert_int_equal(p.max_lvt, 6);
	uint64_t timer0 = fake_msr_get(0x832), lint0 = fake_msr_get(0x835);

	assert_true(win_enter(&p, &w));
	assert_int_equal(count(EV_MMIO_W), 0);	/* no MMIO in x2APIC mode */
	assert_true(fake_msr_get(0x832) & LVT_MASKED);
	assert_true(fake_msr_get(0x835) & LVT_MASKED);
	struct win_view v;
	win_inspect(&w, &v);
	/* CMCI (MSR 0x82F) faults on this model: not saved, not restored, no harm. */
	assert_false(v.lvt_saved & (1u << 6));
	assert_int_equal(v.lvt_mask_failed, 0);
	win_leave(&p, &w);
	assert_int_equal(fake_msr_get(0x832), timer0);
	assert_int_equal(fake_msr_get(0x835), lint0);
	assert_int_equal(first_index(EV_MSR_W, 0x82F), -1);
}

static void tsc_deadline_is_disarmed_and_rearmed_after_the_lvt(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;

	platform(false, true, 5);
	apic[APIC_LVT_TIMER / 4] = (LVT_TIMER_TSC_DEADLINE << 17) | 0xEF;
	fake_msr_set(MSR_IA32_TSC_DEADLINE, 123456789);
	win_probe(&p);
	assert_true(p.tsc_deadline);

	assert_true(win_enter(&p, &w));
	assert_int_equal(fake_msr_get(MSR_IA32_TSC_DEADLINE), 0);
	win_leave(&p, &w);
	assert_int_equal(fake_msr_get(MSR_IA32_TSC_DEADLINE), 123456789);
	/* The deadline goes back only after the timer LVT is unmasked, or its interrupt would be lost. */
	int lvt = last_index(EV_MMIO_W, APIC_LVT_TIMER), dl = last_index(EV_MSR_W, MSR_IA32_TSC_DEADLINE);
	assert_true(lvt >= 0 && dl > lvt);
	assert_int_equal(apic[APIC_LVT_TIMER / 4], (LVT_TIMER_TSC_DEADLINE << 17) | 0xEF);
}

static void expired_one_shot_is_rearmed(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;

	platform(false, true, 5);
	apic[APIC_LVT_TIMER / 4] = 0x30;	/* one-shot, vector 0x30 */
	apic[APIC_TIMER_ICR / 4] = 50000;
	apic[APIC_TIMER_CCR / 4] = 1234;
	timer_expires_in_window = true;
	win_probe(&p);
	assert_true(win_enter(&p, &w));
	win_leave(&p, &w);
	/* The lost expiry is delivered now: a count of 1, written after the LVT is unmasked. */
	assert_int_equal(apic[APIC_TIMER_ICR / 4], 1);
	assert_true(last_index(EV_MMIO_W, APIC_TIMER_ICR) > last_index(EV_MMIO_W, APIC_LVT_TIMER));

	/* Not expired: the count is left alone. */
	platform(false, true, 5);
	apic[APIC_LVT_TIMER / 4] = 0x30;
	apic[APIC_TIMER_ICR / 4] = 50000;
	apic[APIC_TIMER_CCR / 4] = 1234;
	win_probe(&p);
	assert_true(win_enter(&p, &w));
	win_leave(&p, &w);
	assert_int_equal(apic[APIC_TIMER_ICR / 4], 50000);
	assert_int_equal(first_index(EV_MMIO_W, APIC_TIMER_ICR), -1);
}

static void windows_do_not_nest(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w, w2;

	platform(false, true, 5);
	win_probe(&p);
	assert_true(win_enter(&p, &w));
	size_t n = fake_event_count();
	assert_false(win_enter(&p, &w2));
	assert_int_equal(fake_event_count(), n);	/* nothing touched */
	assert_ptr_equal(win_active(), &w);
	win_leave(&p, &w);
	assert_null(win_active());
}

static void smi_counted_on_intel_only(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;

	platform(false, true, 5);
	fake_msr_define(MSR_SMI_COUNT, 7, 0);
	win_probe(&p);
	assert_true(p.smi_count);
	assert_true(win_enter(&p, &w));
	assert_true(w.smi_valid);
	fake_msr_set(MSR_SMI_COUNT, 9);	/* two SMIs during the sample */
	win_leave(&p, &w);
	assert_int_equal(w.smi_start, 7);
	assert_int_equal(w.smi_end, 9);
	assert_true(hw_window_polluted(&w));

	/* AMD: MSR 0x34 means nothing there, even if it reads. */
	platform(false, false, 5);
	fake_msr_define(MSR_SMI_COUNT, 7, 0);
	win_probe(&p);
	assert_false(p.smi_count);
	assert_true(win_enter(&p, &w));
	assert_false(w.smi_valid);
	win_leave(&p, &w);
	assert_false(hw_window_polluted(&w));
}

static void freeze_while_smm_set_inside_only(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;

	platform(false, true, 5);
	fake_msr_define(MSR_IA32_PERF_CAPABILITIES, PERF_CAP_FREEZE_WHILE_SMM, 0);
	fake_msr_define(MSR_IA32_DEBUGCTL, 0x1, ~0ull);
	win_probe(&p);
	assert_true(p.freeze_smm);
	assert_true(win_enter(&p, &w));
	assert_int_equal(fake_msr_get(MSR_IA32_DEBUGCTL), 0x1 | DEBUGCTL_FREEZE_WHILE_SMM);
	win_leave(&p, &w);
	assert_int_equal(fake_msr_get(MSR_IA32_DEBUGCTL), 0x1);

	/* Without the capability DEBUGCTL is never written. */
	platform(false, true, 5);
	fake_msr_define(MSR_IA32_PERF_CAPABILITIES, 0, 0);
	fake_msr_define(MSR_IA32_DEBUGCTL, 0x1, ~0ull);
	win_probe(&p);
	assert_false(p.freeze_smm);
	assert_true(win_enter(&p, &w));
	win_leave(&p, &w);
	assert_int_equal(first_index(EV_MSR_W, MSR_IA32_DEBUGCTL), -1);
}

static void disabled_apic_still_masks_the_pic(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;

	platform(false, true, 5);
	fake_msr_set(MSR_IA32_APIC_BASE, APIC_BASE);	/* EN clear */
	win_probe(&p);
	assert_int_equal(p.apic.mode, APIC_NONE);
	assert_non_null(strstr(p.apic_why, "disabled"));
	assert_true(win_enter(&p, &w));
	assert_int_equal(count(EV_MMIO_W), 0);
	assert_int_equal(ports[PIC1_DATA], 0xFF);
	win_leave(&p, &w);
	assert_int_equal(ports[PIC1_DATA], 0xB8);
}

static bool claim(void *ctx)
{
	(void)ctx;
	return true;
}

static void unclaimed_nmi_pollutes_claimed_does_not(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;

	platform(false, true, 5);
	win_probe(&p);
	assert_true(win_enter(&p, &w));
	nmi_dispatch();	/* nobody's */
	win_leave(&p, &w);
	assert_int_equal(w.nmi_end - w.nmi_start, 1);
	assert_true(hw_window_polluted(&w));

	assert_true(nmi_register(claim, NULL));
	assert_true(win_enter(&p, &w));
	nmi_dispatch();	/* the routed source's: part of the measurement */
	win_leave(&p, &w);
	assert_false(hw_window_polluted(&w));
	nmi_unregister(claim, NULL);
}

static void interrupts_left_off_when_they_were_off(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;

	platform(false, true, 5);
	fake_rflags_set(2);	/* IF clear already */
	win_probe(&p);
	assert_true(win_enter(&p, &w));
	assert_false(w.if_was_set);
	win_leave(&p, &w);
	assert_int_equal(count(EV_STI), 0);
	assert_false(fake_rflags() & RFLAGS_IF);
}

static void interrupts_turned_on_inside_are_reported(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;

	platform(false, true, 5);
	win_probe(&p);
	assert_true(win_enter(&p, &w));
	assert_true(w.if_verified_clear);
	fake_rflags_set(fake_rflags() | RFLAGS_IF);	/* e.g. a firmware call inside the window */
	win_leave(&p, &w);
	assert_false(w.if_verified_clear);
}

/* The wake-up NMI of a parked processor (platform/metal/ap.c): to another APIC ID, destination before command. */
static void nmi_ipi_goes_to_the_named_processor(void **state)
{
	(void)state;
	platform(false, true, 6);
	struct apic a = { .mode = APIC_XAPIC, .base = APIC_BASE };
	size_t before = fake_event_count();
	assert_true(apic_send_nmi(&a, 5));
	size_t hi = 0, lo = 0;
	for (size_t i = before; i < fake_event_count(); i++) {
		const struct fake_event *e = fake_event_at(i);
		if (e->kind == EV_MMIO_W && e->addr == APIC_ICR_HI)
			hi = i + 1, assert_int_equal(e->value, 5u << 24);
		if (e->kind == EV_MMIO_W && e->addr == APIC_ICR_LO)
			lo = i + 1, assert_int_equal(e->value, ICR_DELIVERY_NMI | ICR_LEVEL_ASSERT);
	}
	assert_true(hi && lo && hi < lo);

	platform(true, true, 6);
	fake_msr_define(MSR_X2APIC_ICR, 0, ~0ull);
	struct apic x = { .mode = APIC_X2APIC };
	before = fake_event_count();
	assert_true(apic_send_nmi(&x, 300));	/* x2APIC IDs go beyond 8 bits */
	bool sent = false;
	for (size_t i = before; i < fake_event_count(); i++) {
		const struct fake_event *e = fake_event_at(i);
		if (e->kind == EV_MSR_W && e->addr == MSR_X2APIC_ICR) {
			assert_int_equal(e->value, (300ull << 32) | ICR_DELIVERY_NMI | ICR_LEVEL_ASSERT);
			sent = true;
		}
	}
	assert_true(sent);
	struct apic none = { .mode = APIC_NONE };
	assert_false(apic_send_nmi(&none, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(xapic_masks_everything_then_restores_exactly),
		cmocka_unit_test(nmi_ipi_goes_to_the_named_processor),
		cmocka_unit_test(x2apic_uses_msrs_and_skips_missing_entries),
		cmocka_unit_test(tsc_deadline_is_disarmed_and_rearmed_after_the_lvt),
		cmocka_unit_test(expired_one_shot_is_rearmed),
		cmocka_unit_test(windows_do_not_nest),
		cmocka_unit_test(smi_counted_on_intel_only),
		cmocka_unit_test(freeze_while_smm_set_inside_only),
		cmocka_unit_test(disabled_apic_still_masks_the_pic),
		cmocka_unit_test(unclaimed_nmi_pollutes_claimed_does_not),
		cmocka_unit_test(interrupts_left_off_when_they_were_off),
		cmocka_unit_test(interrupts_turned_on_inside_are_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
