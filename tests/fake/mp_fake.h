/*
 * tests/fake/mp_fake.h - a fake MP firmware over a table of fake processors
 * (tests/fake/cpus_fake.h), for the tests that run the topology stage or
 * measuring passes (struct run_mp, run/run.h).  run_on and measure_on answer
 * CPUID as processor n while the function or pass body runs, and as the boot
 * processor again after; a pass body may end in a fault (mp_fake_fault), after
 * which its cleanup runs, as boot/mp_pass.c's would.  What each test does
 * differently is in its hooks; each test builds its own struct run_mp from
 * the functions here (its source, neighbours and why_not are its own).
 */
#ifndef PMUBOOT_TESTS_FAKE_MP_FAKE_H
#define PMUBOOT_TESTS_FAKE_MP_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run/run.h"
#include "tests/fake/cpus_fake.h"

#define MP_FAKE_NONE ((size_t)-1)	/* no processor: before the first mp_fake_become */

/* Every hook may be NULL. */
struct mp_fake_hooks {
	/* Before the fake stops answering as processor cpu (to keep what it holds). */
	void (*leaving)(size_t cpu);
	/* After fake_cpu_become: what this test's processor cpu answers on top (more CPUID, MSRs). */
	void (*arrived)(size_t cpu);
	/* run_on, before anything: FW_RUN_OK lets fn run, another result (with *why) is returned instead. */
	int (*run_starting)(size_t cpu, const char **why);
	/* measure_on, before anything: FW_RUN_OK lets the pass run, another result (with p->why) is returned. */
	int (*pass_starting)(size_t cpu, struct run_pass *p, uint64_t timeout_us);
	/* measure_on, as cpu: before the body, and after the body or its cleanup. */
	void (*pass_entered)(size_t cpu, struct run_pass *p);
	void (*pass_ended)(size_t cpu, struct run_pass *p);
};

/* A machine of n processors booted on bsp; answers as bsp from here on.  hooks may be NULL. */
void mp_fake_start(const struct fake_cpu *cpus, size_t n, size_t bsp, const struct mp_fake_hooks *hooks);
/* Answer as processor i (the hooks' leaving and arrived run). */
void mp_fake_become(size_t i);
size_t mp_fake_current(void);
/* Whether a pass's cleanup is running, after a fault. */
bool mp_fake_in_cleanup(void);
/* End the running pass body as a fault would: its cleanup runs next.  Only inside measure_on's body. */
_Noreturn void mp_fake_fault(void);

/* struct run_mp's members. */
size_t mp_fake_count(const char **why);
bool mp_fake_info(size_t n, struct topo_cpu *c);
int mp_fake_run_on(size_t n, void (*fn)(void *), void *arg, uint64_t timeout_us, const char **why);
int mp_fake_measure_on(size_t n, struct run_pass *p, uint64_t timeout_us);

#endif
