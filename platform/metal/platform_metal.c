/*
 * platform/metal/platform_metal.c - the rest of platform/hw.h on bare metal: the
 * interrupts-off window (platform/window.c over the real registers) and the
 * routing of AMD extended LVT entries as NMIs for IBS.
 *
 * Both need the platform's interrupt sources, which platform/metal/runtime.c finds
 * at platform_init and passes down with platform_attach; until then (and
 * after platform_teardown) hw_window_enter refuses and routing says why.
 */
#include "platform/hw.h"
#include "platform/apic.h"
#include "platform/metal/kx.h"
#include "platform/nmi.h"
#include "platform/window.h"
#include "lib/libc.h"

static const struct win_platform *plat;

bool hw_window_enter(struct hw_window *w)
{
	const struct win_platform *p = plat;
	if (!p) {
		memset(w, 0, sizeof(*w));
		return false;
	}
	return win_enter(p, w);
}

void hw_window_leave(struct hw_window *w)
{
	const struct win_platform *p = plat;
	if (p)
		win_leave(p, w);
}

void hw_window_poll(struct hw_window *w)
{
	const struct win_platform *p = plat;
	if (p)
		win_poll(p, w);
}

/* AMD extended LVT entries routed as NMIs for IBS. */
struct eilvt_route {
	hw_nmi_fn fn;
	void *ctx;
	uint32_t old;
	bool used;
};
static struct eilvt_route routes[APIC_EILVT_MAX];

static bool eilvt_nmi(void *ctx)
{
	struct eilvt_route *r = ctx;
	hw_nmi_fn fn = r->fn;
	if (!fn)
		return false;	/* unrouted: a late NMI counts as unclaimed (survived, and marks its window) */
	return fn(r->ctx);
}

static bool eilvt_count(const struct apic *a, unsigned *count, char *why, unsigned long cap)
{
	uint32_t ver = 0, feat = 0;
	if (a->mode == APIC_NONE) {
		snprintf(why, cap, "no usable local APIC");
		return false;
	}
	if (!apic_read(a, APIC_VERSION, &ver) || !(ver & APIC_VERSION_EXT_SPACE) ||
	    !apic_read(a, APIC_EXT_FEATURE, &feat)) {
		snprintf(why, cap, "the local APIC has no extended register space (AMD APM Vol. 2 §16.3.5)");
		return false;
	}
	*count = APIC_EXT_FEATURE_LVT_COUNT(feat);
	return true;
}

bool hw_nmi_route_eilvt(unsigned offset, hw_nmi_fn fn, void *ctx, char *why, unsigned long why_cap)
{
	const struct win_platform *p = plat;
	unsigned count = 0;
	uint32_t reg = APIC_EILVT0 + offset * APIC_EILVT_STRIDE, old = 0;

	if (!p) {
		snprintf(why, why_cap, "the runtime is not initialised");
		return false;
	}
	if (!eilvt_count(&p->apic, &count, why, why_cap))
		return false;
	if (offset >= count || offset >= APIC_EILVT_MAX) {
		snprintf(why, why_cap, "extended LVT offset %u does not exist (the APIC has %u)", offset, count);
		return false;
	}
	if (routes[offset].used) {
		snprintf(why, why_cap, "extended LVT offset %u is already routed", offset);
		return false;
	}
	if (!apic_read(&p->apic, reg, &old)) {
		snprintf(why, why_cap, "extended LVT offset %u cannot be read", offset);
		return false;
	}
	if (!(old & LVT_MASKED) && ((old >> LVT_DELIVERY_SHIFT) & 7) != LVT_DELIVERY_NMI) {
		snprintf(why, why_cap, "extended LVT offset %u is in use by the firmware (0x%x)", offset, old);
		return false;
	}
	nmi_unregister(eilvt_nmi, &routes[offset]);
	routes[offset] = (struct eilvt_route){ fn, ctx, old, true };
	if (!nmi_register(eilvt_nmi, &routes[offset])) {
		routes[offset].used = false;
		snprintf(why, why_cap, "no free NMI handler slot");
		return false;
	}
	/* Unmasked, message type NMI, vector 0 (AMD APM Vol. 2 §16.4.5). */
	if (!apic_write(&p->apic, reg, LVT_DELIVERY_NMI << LVT_DELIVERY_SHIFT)) {
		nmi_unregister(eilvt_nmi, &routes[offset]);
		routes[offset].used = false;
		snprintf(why, why_cap, "extended LVT offset %u cannot be written", offset);
		return false;
	}
	if (why_cap)
		why[0] = '\0';
	return true;
}

void hw_nmi_unroute_eilvt(unsigned offset)
{
	const struct win_platform *p = plat;
	if (!p || offset >= APIC_EILVT_MAX || !routes[offset].used)
		return;
	uint32_t reg = APIC_EILVT0 + offset * APIC_EILVT_STRIDE;
	apic_write(&p->apic, reg, routes[offset].old | LVT_MASKED);
	apic_write(&p->apic, reg, routes[offset].old);
	routes[offset].fn = NULL;
	routes[offset].used = false;
	nmi_unregister(eilvt_nmi, &routes[offset]);
}

/* The PMI routed as an NMI (the audit's overflow check). */
static struct {
	hw_nmi_fn fn;
	void *ctx;
	uint32_t old;
	bool used;
	const struct win_platform *on;	/* the APIC it was routed on */
} pmi;

static bool pmi_nmi(void *ctx)
{
	(void)ctx;
	hw_nmi_fn fn = pmi.fn;
	if (!fn)
		return false;
	bool claimed = fn(pmi.ctx);
	/* Intel's APIC sets the entry's mask bit when it delivers a PMI; only software clears it
	 * (SDM Vol. 3B, "Generating an Interrupt on Overflow"). AMD's does not, and the write is harmless. */
	apic_write(&pmi.on->apic, APIC_LVT_PERF, LVT_DELIVERY_NMI << LVT_DELIVERY_SHIFT);
	return claimed;
}

bool hw_nmi_route_pmi(hw_nmi_fn fn, void *ctx, char *why, unsigned long why_cap)
{
	const struct win_platform *p = plat;
	uint32_t old = 0;

	if (!p) {
		snprintf(why, why_cap, "the runtime is not initialised");
		return false;
	}
	if (!win_lvt_present(p, WIN_LVT_PERF_INDEX)) {
		snprintf(why, why_cap, "%s", p->apic.mode == APIC_NONE ? p->apic_why :
			 "the local APIC has no performance-counter LVT entry (Max LVT Entry < 4)");
		return false;
	}
	if (pmi.used) {
		snprintf(why, why_cap, "the performance-counter LVT entry is already routed");
		return false;
	}
	if (!apic_read(&p->apic, APIC_LVT_PERF, &old)) {
		snprintf(why, why_cap, "the performance-counter LVT entry cannot be read");
		return false;
	}
	pmi.fn = fn;
	pmi.ctx = ctx;
	pmi.old = old;
	pmi.on = p;
	pmi.used = true;
	if (!nmi_register(pmi_nmi, &pmi)) {
		pmi.used = false;
		pmi.fn = NULL;
		snprintf(why, why_cap, "no free NMI handler slot");
		return false;
	}
	win_keep_lvt(WIN_LVT_PERF_INDEX, true);
	/* Unmasked, delivery mode NMI (the vector is ignored for NMI delivery, SDM Vol. 3A §11.5.1). */
	if (!apic_write(&p->apic, APIC_LVT_PERF, LVT_DELIVERY_NMI << LVT_DELIVERY_SHIFT)) {
		hw_nmi_unroute_pmi();
		snprintf(why, why_cap, "the performance-counter LVT entry cannot be written");
		return false;
	}
	if (why_cap)
		why[0] = '\0';
	return true;
}

void hw_nmi_unroute_pmi(void)
{
	if (!pmi.used)
		return;
	apic_write(&pmi.on->apic, APIC_LVT_PERF, pmi.old | LVT_MASKED);
	apic_write(&pmi.on->apic, APIC_LVT_PERF, pmi.old);
	win_keep_lvt(WIN_LVT_PERF_INDEX, false);
	pmi.fn = NULL;
	pmi.used = false;
	nmi_unregister(pmi_nmi, &pmi);
}

void platform_forget_routes(void)
{
	if (pmi.used)
		nmi_unregister(pmi_nmi, &pmi);
	pmi.fn = NULL;
	pmi.used = false;
	win_keep_lvt(WIN_LVT_PERF_INDEX, false);
	for (unsigned i = 0; i < APIC_EILVT_MAX; i++) {
		if (routes[i].used)
			nmi_unregister(eilvt_nmi, &routes[i]);
		routes[i].fn = NULL;
		routes[i].used = false;
	}
}

void platform_attach(const struct win_platform *p)
{
	if (!p) {
		for (unsigned i = 0; i < APIC_EILVT_MAX; i++)
			hw_nmi_unroute_eilvt(i);
		hw_nmi_unroute_pmi();
	}
	plat = p;
}
