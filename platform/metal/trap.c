/*
 * platform/metal/trap.c - what happens on an exception.
 *
 * Three outcomes, decided here with interrupts off on the interrupted
 * stack (no output, no firmware calls in this context):
 *   - NMI: dispatched to the registered callbacks (platform/nmi.c), then return;
 *   - #GP or #UD at an address in the fixup table: RAX = vector, resume at
 *     the fixup (the safe MSR/PMC accessors in hw_metal.c);
 *   - anything else is fatal: the state is captured, the runtime's capture
 *     hook copies the open measurement window so it can be restored, and
 *     the CPU resumes where kx_guarded_call said (its guard), on the
 *     guarded call's stack (platform/metal/runtime.c), which reports the fault and
 *     ends the run cleanly.
 * trap.c calls only what lies below it (nmi.c, fixup.c, activity.c); the
 * runtime reaches in through the hooks it registers, never the reverse.
 */
#include "platform/trap.h"
#include "platform/activity.h"
#include "platform/fixup.h"
#include "platform/nmi.h"
#include "lib/libc.h"

extern const struct ex_entry __ex_table_start[], __ex_table_end[];

static struct kx_fault fault;
static struct kx_guard *guard;
static struct kx_trap_hooks hooks;
static volatile uint64_t fixups;
static struct kx_inner *volatile inner;

void kx_trap_set_inner(struct kx_inner *in) { inner = in; }

/* Resume at guard g, on its stack, interrupts as they were masked there (the caller's window restores them). */
static void resume_at(struct kx_frame *f, struct kx_guard *g)
{
	g->active = false;
	f->rip = g->resume;
	f->rsp = g->rsp;
	f->rflags = g->rflags & ~RFLAGS_IF;
	f->cs = kx_read_cs();
	f->ss = kx_read_ss();
}

/* The inner guarded call stops here; true when it did. */
static bool stop_inner(struct kx_frame *f)
{
	struct kx_inner *in = inner;
	if (!in || !in->g.active)
		return false;
	in->frame = *f;
	in->cr2 = kx_read_cr2();
	in->abort = false;
	resume_at(f, &in->g);
	return true;
}

void kx_trap_set_hooks(const struct kx_trap_hooks *h, struct kx_guard *g)
{
	hooks = h ? *h : (struct kx_trap_hooks){ 0 };
	guard = g;
}
const struct kx_fault *kx_fault_info(void) { return &fault; }
void kx_fault_clear(void) { memset(&fault, 0, sizeof(fault)); }
uint64_t kx_fixup_count(void) { return fixups; }

void kx_ex_table(const struct ex_entry **start, const struct ex_entry **end)
{
	*start = __ex_table_start;
	*end = __ex_table_end;
}

/* Only faults resume at a fixup: an NMI or a trap may well report an RIP that is in the table. */
static bool fixable(uint64_t vector) { return vector == VEC_GP || vector == VEC_UD; }

static void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

void kx_trap(struct kx_frame *f)
{
	if (f->vector == VEC_NMI) {
		nmi_dispatch();
		if (inner && inner->abort)
			stop_inner(f);
		return;
	}
	if (fixable(f->vector)) {
		uintptr_t fix = ex_lookup(__ex_table_start, __ex_table_end, (uintptr_t)f->rip);
		if (fix) {
			f->rax = f->vector;
			f->rip = fix;
			fixups++;
			return;
		}
	}

	/* A user kernel's fault ends its guarded call, not the run. */
	if (stop_inner(f))
		return;

	/* Fatal.  Keep the first fault's state: a second one is a failure of the recovery itself. */
	if (fault.count++ == 0) {
		fault.f = *f;
		fault.cr2 = kx_read_cr2();
		fault.cr3 = kx_read_cr3();
		fault.activity = activity_get();
		if (hooks.capture)
			hooks.capture(&fault);
	}
	if (guard && guard->active) {
		guard->active = false;
		f->rip = guard->resume;
		f->rsp = guard->rsp;
		f->rflags = guard->rflags & ~RFLAGS_IF;	/* the recovery code turns interrupts back on */
		f->cs = kx_read_cs();
		f->ss = kx_read_ss();
		return;
	}
	/* No way back: give the firmware its own tables and stop. */
	if (hooks.no_way_back)
		hooks.no_way_back();
	halt_forever();
}
