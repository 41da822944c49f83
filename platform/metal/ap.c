/*
 * platform/metal/ap.c - see ap.h.  The runtime's guarded run (platform/metal/runtime.c)
 * does the fault handling; this file brings the processor to it and back.
 */
#include "platform/metal/ap.h"
#include "platform/firmware.h"
#include "platform/hw.h"
#include "platform/metal/idt.h"
#include "platform/metal/kx.h"
#include "platform/trap.h"
#include "platform/timing.h"
#include "platform/window.h"
#include "lib/libc.h"
#include "lib/x86/cpuid.h"

/* Deep enough for the whole suite; the boot CPU's own UEFI stack is 128 KiB in EDK2. */
#define AP_STACK_BYTES (256u * 1024)
#define AP_STACK_ALIGN 4096u
/* MWAIT hint EAX[7:4] = 0: C1, the shallowest state (SDM Vol. 2B MWAIT, Table 4-11). */
#define MWAIT_HINT_C1 0u

bool platform_ap_prepare(struct platform_ap *a, char *why, size_t why_cap)
{
	if (!idt_get()->installed) {
		snprintf(why, why_cap, "the runtime has no IDT of its own");
		return false;
	}
	if (!a->stack) {
		a->stack = fw_alloc_pages(AP_STACK_BYTES, AP_STACK_ALIGN);
		if (!a->stack) {
			snprintf(why, why_cap, "the firmware could not give a %u KiB stack", AP_STACK_BYTES / 1024);
			return false;
		}
		a->stack_bytes = AP_STACK_BYTES;
	}
	a->cr3 = kx_read_cr3();
	return true;
}

static bool has_monitor(void)
{
	struct cpuid_regs r;
	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r);
	return r.ecx & CPUID1_ECX_MONITOR;
}

/*
 * What a waiter does: the one asked for where it exists, else the next down
 * (MWAIT, HLT, PAUSE); unasked, MWAIT only on a real core (an emulator's
 * MWAIT is a PAUSE, platform/metal/ap.h).  can_hlt: something will end the HLT.
 */
static enum park_mode choose(enum park_mode want, enum cpu_exec exec, bool can_hlt)
{
	if ((want == PARK_MWAIT || (want == PARK_NONE && exec != EXEC_EMULATED)) && has_monitor())
		return PARK_MWAIT;
	if (want != PARK_PAUSE && can_hlt)
		return PARK_HLT;
	return PARK_PAUSE;
}

static void monitor(const volatile void *p)
{
	__asm__ volatile("monitor" : : "a"(p), "c"(0), "d"(0) : "memory");
}

static void mwait(void) { __asm__ volatile("mwait" : : "a"(MWAIT_HINT_C1), "c"(0) : "memory"); }
static void cpu_relax(void) { __asm__ volatile("pause" : : : "memory"); }
static void irq_off(void) { __asm__ volatile("cli" : : : "memory"); }
static void irq_on(void) { __asm__ volatile("sti" : : : "memory"); }

bool ap_enter(const struct platform_ap *a, struct ap_saved *sv, struct win_platform *p)
{
	sv->rflags = kx_read_rflags();
	irq_off();
	sv->cr3 = kx_read_cr3();
	if (!idt_load_here(&sv->idt)) {
		if (sv->rflags & RFLAGS_IF)
			irq_on();
		return false;
	}
	if (sv->cr3 != a->cr3)
		arena_load_cr3(a->cr3);
	/* Kernels may use AVX here too: this processor's XCR0 is its own (needs our fixups: after the IDT). */
	vec_enable(&sv->vec);
	/* This CPU's own local APIC; the 8259 pair delivers to the boot CPU only and is left alone. */
	win_probe(p);
	p->pic = false;
	return true;
}

void ap_leave(const struct platform_ap *a, struct ap_saved *sv)
{
	vec_restore(&sv->vec);	/* before the IDT goes: a refused write lands in our fixups */
	if (sv->cr3 != a->cr3)
		arena_load_cr3(sv->cr3);
	idt_unload_here(&sv->idt);
	if (sv->rflags & RFLAGS_IF)
		irq_on();
}

void ap_forget(void)
{
	/* The stopped processor's open window and EILVT routes went with it: nothing to restore, only to forget. */
	win_forget();
	platform_forget_routes();
}

/* How often the boot CPU repeats a wake-up NMI to a processor that has not left HLT yet. */
#define WAKE_RETRY_US 2000u
/* While the TSC frequency is unknown, a 1 GHz guess bounds the loop all the same. */
#define GUESS_TSC_PER_US 1000u

static uint64_t us_to_tsc(uint64_t us)
{
	uint64_t t = timing_us_to_tsc(us);
	return t ? t : us * GUESS_TSC_PER_US;
}

void platform_park(struct platform_park_slot *s)
{
	struct platform_park *k = s->k;
	struct idt_reg fw_idt;
	uint64_t flags = kx_read_rflags();
	irq_off();
	/* HLT only once the park IDT is loaded: the wake-up NMI must find its gate. */
	uint32_t mode = choose(k->want, k->exec, false);
	if (mode == PARK_PAUSE && k->want != PARK_PAUSE && idt_load_park(&fw_idt))
		mode = PARK_HLT;
	__atomic_store_n(&s->mode, mode, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&k->release, __ATOMIC_ACQUIRE)) {
		if (mode == PARK_MWAIT) {
			monitor(&k->release);
			if (!__atomic_load_n(&k->release, __ATOMIC_ACQUIRE))
				mwait();
		} else if (mode == PARK_HLT) {
			__asm__ volatile("hlt" : : : "memory");	/* interrupts off: only an NMI (or SMI) wakes it */
		} else {
			if (hw_tsc() >= k->deadline_tsc)
				break;
			cpu_relax();
		}
	}
	if (mode == PARK_HLT)
		idt_unload_here(&fw_idt);
	__atomic_store_n(&s->left, 1, __ATOMIC_RELEASE);
	if (flags & RFLAGS_IF)
		irq_on();
}

size_t ap_unpark(const struct apic *boot, struct platform_park *k, struct platform_park_slot *slots, size_t n,
		  uint64_t limit_us)
{
	uint64_t end = hw_tsc() + us_to_tsc(limit_us), step = us_to_tsc(WAKE_RETRY_US);
	size_t left = 0;

	__atomic_store_n(&k->release, 1, __ATOMIC_RELEASE);
	for (uint64_t next = 0;; ) {
		left = 0;
		uint64_t now = hw_tsc();
		for (size_t i = 0; i < n; i++) {
			if (__atomic_load_n(&slots[i].left, __ATOMIC_ACQUIRE)) {
				left++;
			} else if (now >= next && __atomic_load_n(&slots[i].mode, __ATOMIC_ACQUIRE) == PARK_HLT) {
				apic_send_nmi(boot, slots[i].apic_id);
			}
		}
		if (now >= next)
			next = now + step;
		if (left == n || now >= end)
			return left;
		cpu_relax();
	}
}

bool platform_wait_flag(volatile uint32_t *flag, uint64_t deadline_tsc, enum cpu_exec exec, enum park_mode want,
		      const char **how)
{
	/* With interrupts on, the firmware's periodic timer ends every HLT: the flag is looked at each tick. */
	enum park_mode m = choose(want, exec, kx_read_rflags() & RFLAGS_IF);
	bool mw = m == PARK_MWAIT, hlt = m == PARK_HLT;

	*how = mw ? "with MWAIT" : hlt ? "with HLT between the firmware's timer ticks" : "with PAUSE";
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (hw_tsc() >= deadline_tsc)
			return false;
		if (mw) {
			monitor(flag);
			if (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
				mwait();	/* interrupts are on here: the firmware's tick wakes it too */
		} else if (hlt) {
			__asm__ volatile("hlt" : : : "memory");
		} else {
			cpu_relax();
		}
	}
	return true;
}
