/*
 * platform/metal/runtime.c - platform_init, platform_run, platform_teardown and the
 * `fault` record; see runtime.h and docs/runtime.md.
 *
 * The top of platform/: it owns the platform (the interrupt sources found
 * at platform_init) and passes it down to the files that work on it
 * (platform_metal.c, selftest.c); trap.c reaches back only through the
 * hooks registered here.
 */
#include "platform/metal/runtime.h"
#include "platform/activity.h"
#include "platform/metal/ap.h"
#include "platform/arena.h"
#include "platform/metal/idt.h"
#include "platform/metal/kx.h"
#include "platform/nmi.h"
#include "platform/selftest.h"
#include "platform/trap.h"
#include "platform/firmware.h"
#include "lib/out.h"
#include "lib/record.h"

#define FAULT_CODE_BYTES 16
#define FAULT_TIMER_US 10000
#define FAULT_TIMER_LIMIT_US 500000

static struct win_platform platform;
static bool platform_ready;
/* The boot CPU's CR4 and XCR0 as found, put back at teardown (platform/vec.h). */
static struct vec_state boot_vec;
static struct kx_guard guard;
static struct hw_window fault_window;
static bool fault_window_valid;
/* The platform the open window belongs to: the boot CPU's, or an application processor's during its pass. */
static const struct win_platform *plat_now = &platform;
/* Set while an application processor reports its own fault: no firmware call, and the run goes on. */
static const char *fault_on_ap;

/* Exception context (trap.c's capture hook): keep a copy of the open window for the recovery path. */
static void capture_window(struct kx_fault *f)
{
	struct hw_window *w = win_active();
	f->in_window = w != NULL;
	if (w) {
		fault_window = *w;
		fault_window_valid = true;
	}
}

static void restore_fault_window(void)
{
	if (fault_window_valid && platform_ready) {
		fault_window_valid = false;
		win_forget();
		win_leave(plat_now, &fault_window);
	}
}

/* Exception context, no recovery possible (trap.c's last hook): firmware IDT, CR3 and window back. */
static void emergency_restore(void)
{
	restore_fault_window();
	if (plat_now == &platform)
		vec_restore(&boot_vec);	/* an application processor's own state is its pass's to restore */
	arena_emergency_restore();
	idt_restore();
}

static const struct kx_trap_hooks trap_hooks = { capture_window, emergency_restore };

void platform_init(void)
{
	idt_install();
	/*
	 * Vector state before any kernel runs (needs our fixups: XSETBV may be refused).
	 * Nothing in the image saves vector registers on an interrupt or NMI
	 * (-mgeneral-regs-only): kernels that use them run in the interrupts-off window.
	 */
	vec_enable(&boot_vec);
	/* Only now: the probe reads MSRs, and a missing one must land in our fixup handler. */
	win_probe(&platform);
	platform_ready = true;
	platform_attach(&platform);
	guard_attach(&platform);
	arena_attach(true);
	kx_trap_set_hooks(&trap_hooks, &guard);
}

void platform_selftest(const char *list) { selftest_run(platform_ready ? &platform : NULL, list); }
void platform_pass_selftest(const char *list) { selftest_in_pass(list); }

/* Back on the guarded call's stack after a fault: undo the window, then interrupts as they were. */
static void recover(void)
{
	restore_fault_window();
	if (guard.rflags & RFLAGS_IF)
		__asm__ volatile("sti" : : : "memory");
}

/* Fixed-width strings, not pointers: no relocations for a table nobody writes. */
static const char vector_names[VEC_EXCEPTIONS][9] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "CSO", "#TS", "#NP", "#SS", "#GP",
	"#PF", "reserved", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP", "reserved", "reserved", "reserved",
	"reserved", "reserved", "reserved", "#HV", "#VC", "#SX", "reserved",
};

static void fault_report(void *unused)
{
	struct rec r;	/* on the stack */
	const struct kx_fault *k = kx_fault_info();
	const struct kx_frame *f = &k->f;
	uint64_t base = fw_image_base(), size = fw_image_size();
	bool in_image = base && f->rip >= base && f->rip < base + size;
	const char *name = f->vector < VEC_EXCEPTIONS ? vector_names[f->vector] : "?";
	char where[48], ending[96];

	/* The fault self-test's ud2 was asked for: marked expected, not a run error. */
	const char *fault_expected = activity_fault_expected((int)f->vector);

	(void)unused;
	if (fault_on_ap) {
		snprintf(ending, sizeof(ending), "on %s: its pass ends here, the run goes on", fault_on_ap);
	} else {
		snprintf(ending, sizeof(ending), "the run ends here");
	}
	if (in_image)
		snprintf(where, sizeof(where), "pmuboot.efi+0x%llx", (unsigned long long)(f->rip - base));
	else
		snprintf(where, sizeof(where), "outside the image");
	out_text("FAULT: %s (vector %llu, error code 0x%llx) at 0x%llx (%s), cr2 0x%llx, while running '%s'; "
		 "%s%s%s", name, (unsigned long long)f->vector, (unsigned long long)f->error,
		 (unsigned long long)f->rip, where, (unsigned long long)k->cr2, k->activity, ending,
		 fault_expected ? "; EXPECTED, not a run error: " : "", fault_expected ? fault_expected : "");
	if (!rec_stream_open())
		return;
	rec_start(&r, "fault");
	rec_u64(&r, "vector", f->vector);
	rec_str(&r, "name", name);
	rec_hex(&r, "error_code", f->error);
	rec_hex(&r, "rip", f->rip);
	if (in_image)
		rec_hex(&r, "image_offset", f->rip - base);
	else
		rec_null(&r, "image_offset");
	rec_hex(&r, "image_base", base);
	rec_hex(&r, "cr2", k->cr2);
	rec_hex(&r, "cr3", k->cr3);
	rec_hex(&r, "rsp", f->rsp);
	rec_hex(&r, "rflags", f->rflags);
	rec_hex(&r, "cs", f->cs);
	rec_str(&r, "activity", k->activity);
	rec_bool(&r, "in_window", k->in_window);
	rec_obj(&r, "regs");
	static const char reg_names[][4] = { "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8",
				       "r9",  "r10", "r11", "r12", "r13", "r14", "r15" };
	const uint64_t *regs = &f->rax;
	for (unsigned i = 0; i < ARRAY_SIZE(reg_names); i++)
		rec_hex(&r, reg_names[i], regs[i]);
	rec_obj_end(&r);
	if (in_image && f->rip + FAULT_CODE_BYTES <= base + size) {
		/* The instruction bytes, so a capture alone shows what faulted. */
		char code[FAULT_CODE_BYTES * 3];
		const uint8_t *p = (const uint8_t *)(uintptr_t)f->rip;
		size_t n = 0;
		for (unsigned i = 0; i < FAULT_CODE_BYTES; i++)
			n += (size_t)snprintf(code + n, sizeof(code) - n, i ? " %02x" : "%02x", p[i]);
		rec_str(&r, "code", code);
	}
	/*
	 * The window was restored before this report: the firmware's tick must
	 * be back.  An application processor may not ask the firmware, and its
	 * window never touched the boot CPU's tick.
	 */
	if (fault_on_ap)
		rec_null(&r, "firmware_timer_ok");
	else
		rec_bool(&r, "firmware_timer_ok", fw_timer_event_fires(FAULT_TIMER_US, FAULT_TIMER_LIMIT_US));
	rec_bool(&r, "expected", fault_expected != NULL);
	rec_str(&r, "expected_because", fault_expected);
	rec_str(&r, "outcome", fault_on_ap ? "pass on this processor ended; its interrupt masks and MSRs restored "
					     "next, its own IDT and page tables after; the run goes on"
					   : "run ended; interrupt masks restored, firmware IDT and page tables restored next");
	rec_emit(&r);
	if (!fault_expected)
		rec_stream_note_error();
}

bool platform_run(void (*body)(void *), void *arg)
{
	guard.active = true;
	int faulted = kx_guarded_call(body, arg, &guard);
	guard.active = false;
	if (!faulted)
		return true;
	recover();
	activity_set("fault report");
	guard.active = true;
	if (kx_guarded_call(fault_report, NULL, &guard)) {
		recover();
		out_text("pmuboot: a second exception while reporting the first; the run ends");
	}
	guard.active = false;
	return false;
}

static void runtime_rejoin(void)
{
	plat_now = &platform;
	platform_attach(&platform);
	guard_attach(&platform);
	kx_trap_set_hooks(&trap_hooks, &guard);
}

/* One guarded step on an application processor; true when it faulted (the fault state is kept). */
static bool ap_step(struct kx_guard *g, void (*fn)(void *), void *arg)
{
	g->active = true;
	int faulted = kx_guarded_call(fn, arg, g);
	g->active = false;
	if (faulted)
		restore_fault_window();	/* interrupts stay off: the AP's own flags come back in platform/metal/ap.c */
	return faulted;
}

/*
 * body(arg) guarded on this application processor with platform p (probed
 * on it).  After a fault: the window closed, the `fault` record written (who
 * names the CPU), cleanup(arg) run, and false returned; the run goes on.
 * Either way the boot CPU's platform, guard and hooks are back after it.
 */
static bool run_here(const struct win_platform *p, void (*body)(void *), void (*cleanup)(void *), void *arg,
		     const char *who)
{
	static struct kx_guard ap_guard;

	plat_now = p;
	platform_attach(p);
	guard_attach(p);
	kx_trap_set_hooks(&trap_hooks, &ap_guard);
	bool faulted = ap_step(&ap_guard, body, arg);
	if (faulted) {
		fault_on_ap = who;
		activity_set("fault report");
		if (ap_step(&ap_guard, fault_report, NULL))
			out_text("pmuboot: a second exception on %s while reporting the first", who);
		if (cleanup) {
			/* A fault here is reported by the line above's mechanism: once, then given up. */
			kx_fault_clear();
			activity_set("restore after fault");
			if (ap_step(&ap_guard, cleanup, arg))
				out_text("pmuboot: an exception on %s while restoring its MSRs after a fault", who);
		}
		fault_on_ap = NULL;
		activity_expect_fault(-1, NULL);	/* declared for that fault only */
		kx_fault_clear();
		fault_window_valid = false;
	}
	platform_attach(NULL);	/* unroutes the EILVT entries of this CPU's local APIC */
	runtime_rejoin();
	return !faulted;
}

/* One AP at a time runs a pass (platform/metal/ap.h): these belong to it. */
static struct win_platform ap_plat;
static struct platform_ap_call *ap_call;

static void ap_on_stack(void *unused)
{
	(void)unused;
	ap_call->faulted = !run_here(&ap_plat, ap_call->body, ap_call->cleanup, ap_call->arg, ap_call->who);
}

void platform_ap_run(const struct platform_ap *a, struct platform_ap_call *c)
{
	struct ap_saved sv;

	if (!ap_enter(a, &sv, &ap_plat)) {
		c->why = "the runtime has no IDT for application processors";
	} else {
		ap_call = c;
		c->ran = true;
		kx_call_on_stack(ap_on_stack, NULL, a->stack + a->stack_bytes);
		ap_leave(a, &sv);
	}
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
}

void platform_ap_reclaim(void)
{
	ap_forget();
	vec_reclaim(&boot_vec);
	runtime_rejoin();
}

size_t platform_unpark(struct platform_park *k, struct platform_park_slot *slots, size_t n, uint64_t limit_us)
{
	return ap_unpark(&platform.apic, k, slots, n, limit_us);
}

void platform_teardown(void)
{
	platform_attach(NULL);	/* unroutes every EILVT entry */
	guard_attach(NULL);
	nmi_unregister_all();
	arena_release_all();
	arena_attach(false);
	vec_restore(&boot_vec);	/* while our fixups are live */
	idt_restore();
	platform_ready = false;
}
