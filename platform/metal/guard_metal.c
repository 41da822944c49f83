/*
 * platform/metal/guard_metal.c - platform/guard.h in the image.
 *
 * A guarded call runs under trap.c's inner guard (kx_trap_set_inner): a
 * fatal exception inside it, or an NMI while its abort flag is set, makes
 * the CPU resume in kx_guarded_call's frame instead of ending the run.
 *
 * The watchdog is the local APIC timer, one-shot, with the timer LVT's
 * delivery mode set to NMI: an NMI is taken even with RFLAGS.IF clear, so
 * `jmp $` inside an interrupts-off window is stopped.  The SDM defines a
 * delivery mode field for the LINT, performance-counter, thermal and CMCI
 * entries only (Vol. 3A §11.5.1, Figure 11-8); whether the timer entry
 * honours it is a property of the APIC (QEMU's does), so it is tried once,
 * with a short count, before it is trusted (guard_probe), and the answer
 * is what hw_guard_watchdog reports.  The timer's rate is measured against
 * the TSC at the same time.
 */
#include "platform/guard.h"
#include "platform/apic.h"
#include "platform/hw.h"
#include "platform/metal/kx.h"
#include "platform/nmi.h"
#include "platform/trap.h"
#include "platform/timing.h"
#include "platform/window.h"
#include "platform/firmware.h"
#include "lib/libc.h"

/* Divide configuration register (Intel SDM Vol. 3A §11.5.4, Figure 11-10): 1011b = divide by 1. */
#define APIC_TIMER_DCR 0x3E0
#define DCR_DIVIDE_BY_1 0xBu
#define TIMER_MAX_COUNT 0xFFFFFFFFu
/* The probe: a 100 us one-shot, waited for at most 20 ms of TSC time. */
#define PROBE_US 100u
#define PROBE_WAIT_US 20000u
#define PAGE 4096u

static const struct win_platform *plat;
static struct kx_inner inner;
static volatile bool armed, fired;
static enum { PROBE_NOT_YET, PROBE_WORKS, PROBE_FAILS } probe_state;
static char probe_why[96];
static uint64_t timer_per_ms;	/* APIC timer counts per millisecond at divide-by-1 */

/*
 * Executable pages kept for the whole run (hw_xmem_prepare): a pass on
 * another processor may not ask the firmware for any (platform/metal/ap.h), so its
 * user kernels are placed here.  A bit per page, set while in use.
 */
#define XPOOL_PAGES 256
#define BITS 64
static uint8_t *xpool;
static uint64_t xused[XPOOL_PAGES / BITS];

static bool page_used(size_t i) { return xused[i / BITS] & (1ull << (i % BITS)); }
static void page_mark(size_t i, bool used)
{
	if (used)
		xused[i / BITS] |= 1ull << (i % BITS);
	else
		xused[i / BITS] &= ~(1ull << (i % BITS));
}

static void *pool_take(size_t pages)
{
	for (size_t at = 0; xpool && at + pages <= XPOOL_PAGES; at++) {
		size_t run = 0;
		while (run < pages && !page_used(at + run))
			run++;
		if (run == pages) {
			for (size_t i = 0; i < pages; i++)
				page_mark(at + i, true);
			return xpool + at * PAGE;
		}
		at += run;
	}
	return NULL;
}

static bool pool_give(void *p, size_t pages)
{
	uint8_t *b = p;
	if (!xpool || b < xpool || b >= xpool + (size_t)XPOOL_PAGES * PAGE)
		return false;
	for (size_t i = 0, first = (size_t)(b - xpool) / PAGE; i < pages && first + i < XPOOL_PAGES; i++)
		page_mark(first + i, false);
	return true;
}

bool hw_xmem_prepare(char *why, size_t why_cap)
{
	if (!xpool)
		xpool = fw_alloc_code_pages((size_t)XPOOL_PAGES * PAGE);
	if (!xpool)
		snprintf(why, why_cap, "the firmware gave no %u KiB of code pages", XPOOL_PAGES * PAGE / 1024);
	return xpool != NULL;
}

void guard_attach(const struct win_platform *p)
{
	plat = p;
	probe_state = PROBE_NOT_YET;
	/* Never inside a guarded call: anything left armed belonged to a processor the firmware stopped. */
	armed = false;
	inner.g.active = false;
	kx_trap_set_inner(NULL);
	if (!p && xpool) {
		fw_free_pages(xpool, (size_t)XPOOL_PAGES * PAGE, PAGE);
		xpool = NULL;
		memset(xused, 0, sizeof(xused));
	}
}

static uint64_t tsc_hz(void)
{
	const struct timing_info *t = timing_get();
	return t && t->tsc_hz ? t->tsc_hz : 0;
}

/* NMI context: claim the NMI when it is our timer's (armed and run out). */
static bool on_nmi(void *ctx)
{
	uint32_t ccr = 1;
	(void)ctx;
	if (!armed || !plat || !apic_read(&plat->apic, APIC_TIMER_CCR, &ccr) || ccr != 0)
		return false;
	armed = false;
	fired = true;
	inner.abort = true;
	return true;
}

struct saved_timer {
	uint32_t lvt, dcr;
};

static bool arm(uint32_t count, struct saved_timer *s)
{
	const struct apic *a = &plat->apic;
	if (!apic_read(a, APIC_LVT_TIMER, &s->lvt) || !apic_read(a, APIC_TIMER_DCR, &s->dcr))
		return false;
	fired = false;
	inner.abort = false;
	apic_write(a, APIC_TIMER_ICR, 0);
	apic_write(a, APIC_TIMER_DCR, DCR_DIVIDE_BY_1);
	/* One-shot (mode 00), unmasked, NMI delivery; the vector is ignored for NMIs. */
	apic_write(a, APIC_LVT_TIMER, LVT_DELIVERY_NMI << LVT_DELIVERY_SHIFT);
	armed = true;
	apic_write(a, APIC_TIMER_ICR, count ? count : 1);
	return true;
}

static void disarm(const struct saved_timer *s)
{
	const struct apic *a = &plat->apic;
	apic_write(a, APIC_TIMER_ICR, 0);
	armed = false;
	apic_write(a, APIC_LVT_TIMER, s->lvt | LVT_MASKED);
	apic_write(a, APIC_TIMER_DCR, s->dcr);
	apic_write(a, APIC_LVT_TIMER, s->lvt);
}

/* Does the timer deliver an NMI here, and how fast does it count?  Run once, inside a window. */
static void probe(void)
{
	struct hw_window w;
	struct saved_timer s;
	uint64_t hz = tsc_hz();

	probe_state = PROBE_FAILS;
	if (!plat || plat->apic.mode == APIC_NONE) {
		snprintf(probe_why, sizeof(probe_why), "no local APIC (%s)", plat ? plat->apic_why : "runtime not up");
		return;
	}
	if (!hz) {
		snprintf(probe_why, sizeof(probe_why), "the TSC frequency is unknown");
		return;
	}
	if (!nmi_register(on_nmi, NULL)) {
		snprintf(probe_why, sizeof(probe_why), "no room for another NMI callback");
		return;
	}
	memset(&w, 0, sizeof(w));
	if (!hw_window_enter(&w)) {
		snprintf(probe_why, sizeof(probe_why), "no interrupts-off window for the probe");
		return;
	}
	/* The rate: a full count, read back after a known TSC interval, masked so nothing is delivered. */
	uint32_t lvt = 0, dcr = 0, ccr = 0;
	apic_read(&plat->apic, APIC_LVT_TIMER, &lvt);
	apic_read(&plat->apic, APIC_TIMER_DCR, &dcr);
	apic_write(&plat->apic, APIC_TIMER_DCR, DCR_DIVIDE_BY_1);
	apic_write(&plat->apic, APIC_LVT_TIMER, LVT_MASKED);
	apic_write(&plat->apic, APIC_TIMER_ICR, TIMER_MAX_COUNT);
	uint64_t t0 = hw_tsc(), span = hz / 1000;	/* 1 ms */
	while (hw_tsc() - t0 < span)
		;
	apic_read(&plat->apic, APIC_TIMER_CCR, &ccr);
	apic_write(&plat->apic, APIC_TIMER_ICR, 0);
	apic_write(&plat->apic, APIC_TIMER_DCR, dcr);
	apic_write(&plat->apic, APIC_LVT_TIMER, lvt);
	timer_per_ms = TIMER_MAX_COUNT - ccr;
	if (!timer_per_ms) {
		hw_window_leave(&w);
		snprintf(probe_why, sizeof(probe_why), "the local APIC timer does not count");
		return;
	}
	/* Delivery: a short one-shot in NMI mode, then wait for on_nmi. */
	if (arm((uint32_t)(timer_per_ms * PROBE_US / 1000 + 1), &s)) {
		uint64_t t1 = hw_tsc(), wait = timing_us_to_tsc(PROBE_WAIT_US);
		while (!fired && hw_tsc() - t1 < wait)
			;
		disarm(&s);
	}
	hw_window_leave(&w);
	if (fired)
		probe_state = PROBE_WORKS;
	else
		snprintf(probe_why, sizeof(probe_why),
			 "the local APIC timer does not deliver NMIs here (its LVT has no delivery mode on this APIC)");
}

const char *hw_guard_watchdog(char *why, size_t why_cap)
{
	if (probe_state == PROBE_NOT_YET)
		probe();
	if (probe_state == PROBE_WORKS)
		return "apic_timer_nmi";
	snprintf(why, why_cap, "%s", probe_why);
	return NULL;
}

void hw_guarded_call(void (*fn)(void *), void *arg, uint64_t bound_us, struct hw_guard_result *r)
{
	char why[8];
	struct saved_timer s;
	bool watched = false;

	memset(r, 0, sizeof(*r));
	if (bound_us && hw_guard_watchdog(why, sizeof(why))) {
		uint64_t count = timer_per_ms * bound_us / 1000;
		watched = arm(count > TIMER_MAX_COUNT ? TIMER_MAX_COUNT : (uint32_t)count, &s);
	}
	memset(&inner.frame, 0, sizeof(inner.frame));
	kx_trap_set_inner(&inner);
	inner.g.active = true;
	int stopped = kx_guarded_call(fn, arg, &inner.g);
	inner.g.active = false;
	kx_trap_set_inner(NULL);
	if (watched)
		disarm(&s);
	if (!stopped)
		return;
	r->rip = inner.frame.rip;
	if (inner.frame.vector == VEC_NMI) {
		r->outcome = HW_GUARD_TIMEOUT;
		r->what = "NMI";
		return;
	}
	r->outcome = HW_GUARD_FAULT;
	r->vector = (unsigned)inner.frame.vector;
	r->error_code = inner.frame.error;
	r->addr = inner.frame.vector == VEC_PF ? inner.cr2 : 0;
}

void *hw_xmem_alloc(size_t bytes, char *why, size_t why_cap)
{
	void *p = pool_take((bytes + PAGE - 1) / PAGE);
	if (!p)
		p = fw_alloc_code_pages(bytes);
	if (!p)
		snprintf(why, why_cap, "the firmware gave no code pages for %zu bytes%s", bytes,
			 xpool ? " and the run's own pool is full" : "");
	return p;
}

bool hw_xmem_seal(void *p, size_t bytes, char *why, size_t why_cap)
{
	(void)p;
	(void)bytes;
	(void)why;
	(void)why_cap;
	return true;	/* EfiLoaderCode pages are executable as allocated; nothing to change */
}

void hw_xmem_free(void *p, size_t bytes)
{
	if (!pool_give(p, (bytes + PAGE - 1) / PAGE))
		fw_free_pages(p, bytes, PAGE);
}
