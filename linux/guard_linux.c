/*
 * linux/guard_linux.c - platform/guard.h in pmuboot-host.
 *
 * A fault in the guarded code arrives as SIGSEGV, SIGBUS, SIGILL, SIGFPE or
 * SIGTRAP; the handler jumps back (siglongjmp) to hw_guarded_call, which
 * reports it.  The bound is a one-shot ITIMER_REAL: SIGALRM jumps back the
 * same way.  The handlers are installed only for the call and the previous
 * ones put back after it.  They run on an alternate signal stack of their
 * own: the guarded code owns RSP in all but name (a user kernel that zeroes
 * it faults on its next push), and a handler that needed the faulting
 * thread's stack would be a second fault the kernel turns into a plain
 * SIGSEGV death.  Executable memory: linux/xmem_linux.c.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>

#include "platform/guard.h"
#include "platform/trap.h"

#ifndef VEC_BP
#define VEC_BP 3	/* #BP, breakpoint (int3): Intel SDM Vol. 3A §6.3.1, Table 6-1 */
#endif
#define US_PER_S 1000000u
/*
 * The handlers' own stack.  Linux builds a signal frame there (the saved
 * registers and the XSAVE area: a few KiB with AVX-512) and on_signal
 * needs little more; 64 KiB leaves room for any XSAVE layout and for the
 * sanitizers' interceptors of siglongjmp.
 */
#define GUARD_ALTSTACK_BYTES (64u * 1024u)

static const struct {
	int sig;
	unsigned vector;	/* the exception behind the signal on x86 Linux */
	const char *name;
} signals[] = {
	{ SIGSEGV, VEC_PF, "SIGSEGV" },
	{ SIGBUS, VEC_GP, "SIGBUS" },
	{ SIGILL, VEC_UD, "SIGILL" },
	{ SIGFPE, VEC_DE, "SIGFPE" },
	{ SIGTRAP, VEC_BP, "SIGTRAP" },
	{ SIGALRM, 0, "SIGALRM" },
};
#define NSIG_GUARDED (sizeof(signals) / sizeof(signals[0]))

static sigjmp_buf back;
static _Alignas(16) unsigned char altstack[GUARD_ALTSTACK_BYTES];
static volatile sig_atomic_t which = -1;
static volatile uint64_t stop_rip, stop_addr, stop_err, stop_trapno;

static void on_signal(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	for (size_t i = 0; i < NSIG_GUARDED; i++)
		if (signals[i].sig == sig)
			which = (sig_atomic_t)i;
	stop_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	stop_err = (uint64_t)uc->uc_mcontext.gregs[REG_ERR];
	/* The exception itself: SIGSEGV is #PF, and also #GP (RDPMC without CR4.PCE) or #SS; a SIGSEGV the kernel
	 * sent for an exception (si_code > 0) carries its vector in the saved context. */
	stop_trapno = sig == SIGSEGV && si->si_code > 0 ? (uint64_t)uc->uc_mcontext.gregs[REG_TRAPNO] : ~0ull;
	stop_addr = sig == SIGSEGV || sig == SIGBUS ? (uint64_t)(uintptr_t)si->si_addr : 0;
	siglongjmp(back, 1);
}

const char *hw_guard_watchdog(char *why, size_t why_cap)
{
	(void)why;
	(void)why_cap;
	return "sigalrm";
}

void hw_guarded_call(void (*fn)(void *), void *arg, uint64_t bound_us, struct hw_guard_result *r)
{
	struct sigaction sa, old[NSIG_GUARDED];
	struct itimerval t, off;
	stack_t alt, old_alt;

	memset(r, 0, sizeof(*r));
	memset(&alt, 0, sizeof(alt));
	alt.ss_sp = altstack;
	alt.ss_size = sizeof(altstack);
	/* Without it (it cannot fail for a valid static stack) a fault that clobbered RSP still kills. */
	bool have_alt = sigaltstack(&alt, &old_alt) == 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | (have_alt ? SA_ONSTACK : 0);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSIG_GUARDED; i++)
		sigaction(signals[i].sig, &sa, &old[i]);
	memset(&t, 0, sizeof(t));
	memset(&off, 0, sizeof(off));
	t.it_value.tv_sec = (time_t)(bound_us / US_PER_S);
	t.it_value.tv_usec = (suseconds_t)(bound_us % US_PER_S);
	which = -1;
	/* savemask = 1: the handler's signal is unblocked again after the jump. */
	if (sigsetjmp(back, 1) == 0) {
		if (bound_us)
			setitimer(ITIMER_REAL, &t, NULL);
		fn(arg);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	for (size_t i = 0; i < NSIG_GUARDED; i++)
		sigaction(signals[i].sig, &old[i], NULL);
	if (have_alt)
		sigaltstack(&old_alt, NULL);
	if (which < 0)
		return;
	r->what = signals[which].name;
	r->rip = stop_rip;
	if (signals[which].sig == SIGALRM) {
		r->outcome = HW_GUARD_TIMEOUT;
		return;
	}
	r->outcome = HW_GUARD_FAULT;
	r->vector = stop_trapno < VEC_EXCEPTIONS ? (unsigned)stop_trapno : signals[which].vector;
	r->error_code = stop_err;
	r->addr = stop_addr;
}
