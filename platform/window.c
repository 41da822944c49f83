/* platform/window.c - see window.h. */
#include "platform/window.h"
#include "platform/hw_regs.h"
#include "lib/libc.h"
#include "platform/nmi.h"
#include "lib/x86/cpuid.h"

#define RFLAGS_IF_BIT (1ull << 9)
#define PIC_ALL_MASKED 0xFF
#define WIN_MAGIC 0x57494E31u			/* "WIN1": this window was entered */
#define WIN_NMI_WHAT "unclaimed NMIs"		/* what the window's NMI fields count (platform/hw.h) */

/* Which LVT entries exist, by the APIC's Max LVT Entry field (SDM Vol. 3A §11.4.8). */
static const struct {
	uint16_t reg;
	uint8_t min_max_lvt;	/* present when Max LVT Entry >= this */
	char name[8];
} lvts[WIN_LVT_COUNT] = {
	{ APIC_LVT_TIMER, 0, "timer" },
	{ APIC_LVT_LINT0, 0, "lint0" },
	{ APIC_LVT_LINT1, 0, "lint1" },
	{ APIC_LVT_ERROR, 0, "error" },
	[WIN_LVT_PERF_INDEX] = { APIC_LVT_PERF, 4, "perf" },	/* P6 family and later */
	{ APIC_LVT_THERMAL, 5, "thermal" },	/* Pentium 4 / AMD and later */
	{ APIC_LVT_CMCI, 6, "cmci" },		/* Nehalem and later */
};
#define LVT_TIMER_INDEX 0

enum { WS_PIC = 1, WS_DEADLINE = 2, WS_FREEZE = 4, WS_ONESHOT = 8 };

struct win_saved {
	uint32_t magic;
	uint32_t lvt_saved, lvt_mask_failed;
	uint32_t lvt[WIN_LVT_COUNT];
	uint32_t timer_ccr;
	uint64_t rflags;
	uint64_t deadline;
	uint64_t debugctl;
	uint8_t pic1, pic2;
	uint8_t flags;
};
_Static_assert(sizeof(struct win_saved) <= sizeof(((struct hw_window *)0)->opaque),
	       "struct win_saved must fit hw_window.opaque");

static struct hw_window *active;
static uint32_t kept;	/* LVT entries routed by us: left alone by windows */

void win_keep_lvt(unsigned i, bool keep)
{
	if (i < WIN_LVT_COUNT)
		kept = keep ? kept | 1u << i : kept & ~(1u << i);
}

static struct win_saved *saved(struct hw_window *w) { return (struct win_saved *)(void *)w->opaque; }

const char *win_lvt_name(unsigned i) { return i < WIN_LVT_COUNT ? lvts[i].name : "?"; }
uint32_t win_lvt_reg(unsigned i) { return i < WIN_LVT_COUNT ? lvts[i].reg : 0; }

bool win_lvt_present(const struct win_platform *p, unsigned i)
{
	return p->apic.mode != APIC_NONE && i < WIN_LVT_COUNT && p->max_lvt >= lvts[i].min_max_lvt;
}

void win_probe(struct win_platform *p)
{
	struct cpuid_regs r0, r1;
	uint64_t v;
	uint32_t ver;

	memset(p, 0, sizeof(*p));
	p->pic = true;	/* masking an absent 8259 writes to nothing: always safe */
	hw_cpuid(CPUID_LEAF_VENDOR, 0, &r0);
	if (r0.eax >= CPUID_LEAF_SIGNATURE)
		hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r1);
	else
		memset(&r1, 0, sizeof(r1));
	bool intel = cpuid_vendor_is_intel(r0.ebx, r0.edx, r0.ecx);

	if (apic_probe(&p->apic, (r1.edx & CPUID1_EDX_APIC) != 0, p->apic_why, sizeof(p->apic_why)) &&
	    apic_read(&p->apic, APIC_VERSION, &ver))
		p->max_lvt = (uint8_t)APIC_VERSION_MAX_LVT(ver);
	p->tsc_deadline = (r1.ecx & CPUID1_ECX_TSC_DEADLINE) != 0;
	p->smi_count = intel && hw_rdmsr(MSR_SMI_COUNT, &v) == HW_OK;
	p->freeze_smm = (r1.ecx & CPUID1_ECX_PDCM) && hw_rdmsr(MSR_IA32_PERF_CAPABILITIES, &v) == HW_OK &&
			(v & PERF_CAP_FREEZE_WHILE_SMM) && hw_rdmsr(MSR_IA32_DEBUGCTL, &v) == HW_OK;
}

bool win_enter(const struct win_platform *p, struct hw_window *w)
{
	uint64_t v;

	if (active)
		return false;
	memset(w, 0, sizeof(*w));
	struct win_saved *s = saved(w);
	s->rflags = hw_irq_save();
	active = w;
	s->magic = WIN_MAGIC;
	w->if_was_set = (s->rflags & RFLAGS_IF_BIT) != 0;

	if (p->pic) {
		s->pic1 = hw_inb(PIC1_DATA);
		s->pic2 = hw_inb(PIC2_DATA);
		hw_outb(PIC1_DATA, PIC_ALL_MASKED);
		hw_outb(PIC2_DATA, PIC_ALL_MASKED);
		s->flags |= WS_PIC;
	}
	for (unsigned i = 0; i < WIN_LVT_COUNT; i++) {
		uint32_t lvt, back;
		if (!win_lvt_present(p, i) || (kept & (1u << i)) || !apic_read(&p->apic, lvts[i].reg, &lvt))
			continue;
		s->lvt[i] = lvt;
		s->lvt_saved |= 1u << i;
		/* A running one-shot count is read before the mask goes on: it may run out right after. */
		if (i == LVT_TIMER_INDEX && !(lvt & LVT_MASKED) && LVT_TIMER_MODE(lvt) == LVT_TIMER_ONESHOT &&
		    apic_read(&p->apic, APIC_TIMER_CCR, &s->timer_ccr))
			s->flags |= WS_ONESHOT;
		if (!(lvt & LVT_MASKED))
			apic_write(&p->apic, lvts[i].reg, lvt | LVT_MASKED);
		if (!apic_read(&p->apic, lvts[i].reg, &back) || !(back & LVT_MASKED))
			s->lvt_mask_failed |= 1u << i;
	}
	if (s->lvt_saved & (1u << LVT_TIMER_INDEX)) {
		uint32_t mode = LVT_TIMER_MODE(s->lvt[LVT_TIMER_INDEX]);
		if (mode == LVT_TIMER_TSC_DEADLINE && p->tsc_deadline &&
		    hw_rdmsr(MSR_IA32_TSC_DEADLINE, &s->deadline) == HW_OK) {
			/* Writing 0 disarms the deadline timer (SDM Vol. 3A §11.5.4.1). */
			hw_wrmsr(MSR_IA32_TSC_DEADLINE, 0);
			s->flags |= WS_DEADLINE;
		}
	}
	if (p->freeze_smm && hw_rdmsr(MSR_IA32_DEBUGCTL, &s->debugctl) == HW_OK &&
	    hw_wrmsr(MSR_IA32_DEBUGCTL, s->debugctl | DEBUGCTL_FREEZE_WHILE_SMM) == HW_OK)
		s->flags |= WS_FREEZE;

	w->smi_valid = p->smi_count && hw_rdmsr(MSR_SMI_COUNT, &v) == HW_OK;
	w->smi_start = w->smi_end = w->smi_valid ? v : 0;
	w->nmi_start = w->nmi_end = nmi_unclaimed();
	w->nmi_what = WIN_NMI_WHAT;
	w->if_verified_clear = (hw_rflags() & RFLAGS_IF_BIT) == 0;
	return true;
}

void win_poll(const struct win_platform *p, struct hw_window *w)
{
	uint64_t v;

	(void)p;
	if (saved(w)->magic != WIN_MAGIC)
		return;
	w->nmi_end = nmi_unclaimed();
	if (w->smi_valid)
		w->smi_end = hw_rdmsr(MSR_SMI_COUNT, &v) == HW_OK ? v : w->smi_start + 1; /* unreadable now: assume the worst */
}

void win_leave(const struct win_platform *p, struct hw_window *w)
{
	struct win_saved *s = saved(w);

	if (s->magic != WIN_MAGIC)
		return;
	win_poll(p, w);

	/* Something inside turned interrupts back on (a firmware call can): the window was not closed. */
	if (hw_rflags() & RFLAGS_IF_BIT)
		w->if_verified_clear = false;
	if (s->flags & WS_FREEZE)
		hw_wrmsr(MSR_IA32_DEBUGCTL, s->debugctl);
	/* Timer last among the LVTs, so a deadline written below is delivered, not lost behind a mask. */
	for (unsigned i = WIN_LVT_COUNT; i-- > 0;)
		if (s->lvt_saved & (1u << i))
			apic_write(&p->apic, lvts[i].reg, s->lvt[i]);
	if (s->flags & WS_DEADLINE) {
		/* A deadline already passed fires at once: the firmware's tick arrives late, not never. */
		if (s->deadline)
			hw_wrmsr(MSR_IA32_TSC_DEADLINE, s->deadline);
	} else if (s->flags & WS_ONESHOT) {
		uint32_t ccr = 0, icr = 0;
		/*
		 * A one-shot count that ran out behind the mask lost its interrupt; re-arm it with a
		 * count of 1 so it is delivered now (the only register not restored bit for bit).
		 */
		if (s->timer_ccr && apic_read(&p->apic, APIC_TIMER_CCR, &ccr) && ccr == 0 &&
		    apic_read(&p->apic, APIC_TIMER_ICR, &icr) && icr)
			apic_write(&p->apic, APIC_TIMER_ICR, 1);
	}
	if (s->flags & WS_PIC) {
		hw_outb(PIC2_DATA, s->pic2);
		hw_outb(PIC1_DATA, s->pic1);
	}
	s->magic = 0;
	if (active == w)
		active = 0;
	hw_irq_restore(s->rflags);
}

struct hw_window *win_active(void) { return active; }
void win_forget(void) { active = 0; }

void win_inspect(const struct hw_window *w, struct win_view *v)
{
	const struct win_saved *s = (const struct win_saved *)(const void *)w->opaque;
	memset(v, 0, sizeof(*v));
	v->pic_saved = (s->flags & WS_PIC) != 0;
	v->pic1 = s->pic1;
	v->pic2 = s->pic2;
	v->lvt_saved = s->lvt_saved;
	v->lvt_mask_failed = s->lvt_mask_failed;
	memcpy(v->lvt, s->lvt, sizeof(v->lvt));
	v->deadline_saved = (s->flags & WS_DEADLINE) != 0;
	v->deadline = s->deadline;
	v->freeze_set = (s->flags & WS_FREEZE) != 0;
}
