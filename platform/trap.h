/*
 * platform/trap.h - exception entry (platform/metal/entry.asm) and its C handler.
 *
 * Image-only.  The layout of struct kx_frame is fixed by the pushes in
 * kx_common; struct kx_guard by kx_guarded_call.
 */
#ifndef PMUBOOT_PLATFORM_TRAP_H
#define PMUBOOT_PLATFORM_TRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exception vectors (Intel SDM Vol. 3A §6.3.1, Table 6-1; AMD APM Vol. 2 §8.2). */
#define VEC_DE 0
#define VEC_NMI 2
#define VEC_UD 6
#define VEC_DF 8
#define VEC_GP 13
#define VEC_PF 14
#define VEC_VC 29	/* AMD SEV-ES VMM communication: left to the firmware */
#define VEC_EXCEPTIONS 32

#define RFLAGS_IF (1ull << 9)	/* Intel SDM Vol. 1 §3.4.3, Figure 3-8 */

struct kx_frame {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t vector, error;
	/* Pushed by the CPU (Intel SDM Vol. 3A §6.14.2, Figure 6-9). */
	uint64_t rip, cs, rflags, rsp, ss;
};

/*
 * Written by kx_guarded_call: where a fatal exception resumes (resume, on
 * the stack rsp) so that trap.c needs no symbol of entry.asm's.
 */
struct kx_guard {
	uint64_t rsp, rflags, resume;
	volatile bool active;
};
/* entry.asm stores at these offsets. */
_Static_assert(offsetof(struct kx_guard, rsp) == 0 && offsetof(struct kx_guard, rflags) == 8 &&
		       offsetof(struct kx_guard, resume) == 16,
	       "struct kx_guard layout is fixed by platform/metal/entry.asm");

/* platform/metal/entry.asm */
extern const char kx_stubs[], kx_stubs_end[];
#define KX_STUB_SIZE 16
int kx_guarded_call(void (*fn)(void *), void *arg, struct kx_guard *g);

/* platform/metal/trap.c */
void kx_trap(struct kx_frame *f);

/* What a fatal exception left behind, for the `fault` record. */
struct kx_fault {
	struct kx_frame f;
	uint64_t cr2, cr3;
	const char *activity;
	bool in_window;
	unsigned count;		/* fatal exceptions so far (a second one during recovery) */
};
const struct kx_fault *kx_fault_info(void);
/* Forget the fault reported: an application processor's fault ends its pass, not the run. */
void kx_fault_clear(void);
/* platform/metal/entry.asm: an NMI gate that only returns (the wake-up of a processor parked in HLT). */
extern const char kx_nmi_return[];
/* platform/metal/entry.asm: fn(arg) on the stack ending at top. */
void kx_call_on_stack(void (*fn)(void *), void *arg, void *top);

/*
 * What trap.c cannot know itself, registered by the runtime (platform/metal/runtime.c)
 * instead of called: trap.c sits below the runtime and calls nothing above
 * it.  Both run in exception context, interrupts off.
 */
struct kx_trap_hooks {
	/* First fatal exception: note what the runtime knows (the open window) in f. */
	void (*capture)(struct kx_fault *f);
	/* No guarded call to resume in: give the firmware its tables back before halting. */
	void (*no_way_back)(void);
};
/* Either may be NULL; g is the guarded call a fatal exception resumes in. */
void kx_trap_set_hooks(const struct kx_trap_hooks *h, struct kx_guard *g);

/*
 * A guarded call inside the run (platform/guard.h, platform/metal/guard_metal.c):
 * while g.active, a fatal exception - or an NMI after which `abort` is set
 * (the watchdog's callback sets it) - resumes at g (kx_guarded_call returns
 * 1) with the stopping frame in `frame`, instead of ending the run.  The
 * run's own fault state (kx_fault_info) is not touched.
 */
struct kx_inner {
	struct kx_guard g;
	volatile bool abort;
	struct kx_frame frame;
	uint64_t cr2;
};
/* NULL: none. */
void kx_trap_set_inner(struct kx_inner *in);

/* Fixups taken so far (self-test and diagnostics). */
uint64_t kx_fixup_count(void);
/* The fixup table this image was linked with. */
struct ex_entry;
void kx_ex_table(const struct ex_entry **start, const struct ex_entry **end);

/* Control registers (Intel SDM Vol. 3A §2.5). */
static inline uint64_t kx_read_cr2(void) { uint64_t v; __asm__ volatile("mov %%cr2, %0" : "=r"(v)); return v; }
static inline uint64_t kx_read_cr3(void) { uint64_t v; __asm__ volatile("mov %%cr3, %0" : "=r"(v)); return v; }
static inline uint64_t kx_read_cr4(void) { uint64_t v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }
static inline uint16_t kx_read_cs(void) { uint16_t v; __asm__ volatile("mov %%cs, %0" : "=r"(v)); return v; }
static inline uint16_t kx_read_ss(void) { uint16_t v; __asm__ volatile("mov %%ss, %0" : "=r"(v)); return v; }
static inline uint64_t kx_read_rflags(void)
{
	uint64_t v;
	__asm__ volatile("pushfq; pop %0" : "=r"(v) : : "memory");
	return v;
}

#endif
