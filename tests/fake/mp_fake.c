/* tests/fake/mp_fake.c - a fake MP firmware over fake processors; see mp_fake.h. */
#include "tests/fake/mp_fake.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "platform/firmware.h"

static struct {
	const struct fake_cpu *cpus;
	size_t n, bsp, current;
	struct mp_fake_hooks hooks;
	bool in_cleanup, in_body;
} mp;

static jmp_buf fault_jmp;

void mp_fake_start(const struct fake_cpu *cpus, size_t n, size_t bsp, const struct mp_fake_hooks *hooks)
{
	memset(&mp, 0, sizeof(mp));
	mp.cpus = cpus;
	mp.n = n;
	mp.bsp = bsp;
	mp.current = MP_FAKE_NONE;
	if (hooks)
		mp.hooks = *hooks;
	mp_fake_become(bsp);
}

void mp_fake_become(size_t i)
{
	if (mp.current < mp.n && mp.hooks.leaving)
		mp.hooks.leaving(mp.current);
	mp.current = i;
	fake_cpu_become(&mp.cpus[i]);
	if (mp.hooks.arrived)
		mp.hooks.arrived(i);
}

size_t mp_fake_current(void)
{
	return mp.current;
}

bool mp_fake_in_cleanup(void)
{
	return mp.in_cleanup;
}

void mp_fake_fault(void)
{
	if (!mp.in_body)
		abort();	/* a test's mistake: there is no pass body to leave */
	longjmp(fault_jmp, 1);
}

size_t mp_fake_count(const char **why)
{
	(void)why;
	return mp.n;
}

bool mp_fake_info(size_t n, struct topo_cpu *c)
{
	if (n >= mp.n)
		return false;
	c->apic_id = mp.cpus[n].x2apic;
	c->bsp = n == mp.bsp;
	c->enabled = c->healthy = true;
	return true;
}

/* StartupThisAP: the processor's own CPUID while fn runs, the boot processor's again after. */
int mp_fake_run_on(size_t n, void (*fn)(void *), void *arg, uint64_t timeout_us, const char **why)
{
	(void)timeout_us;
	int rc = mp.hooks.run_starting ? mp.hooks.run_starting(n, why) : FW_RUN_OK;
	if (rc != FW_RUN_OK)
		return rc;
	mp_fake_become(n);
	fn(arg);
	mp_fake_become(mp.bsp);
	return FW_RUN_OK;
}

int mp_fake_measure_on(size_t n, struct run_pass *p, uint64_t timeout_us)
{
	int rc = mp.hooks.pass_starting ? mp.hooks.pass_starting(n, p, timeout_us) : FW_RUN_OK;
	if (rc != FW_RUN_OK)
		return rc;
	mp_fake_become(n);
	if (mp.hooks.pass_entered)
		mp.hooks.pass_entered(n, p);
	if (setjmp(fault_jmp) == 0) {
		mp.in_body = true;
		p->body(p->arg);
		mp.in_body = false;
	} else {
		mp.in_body = false;
		p->faulted = true;
		mp.in_cleanup = true;
		p->cleanup(p->arg);
		mp.in_cleanup = false;
	}
	if (mp.hooks.pass_ended)
		mp.hooks.pass_ended(n, p);
	mp_fake_become(mp.bsp);
	return FW_RUN_OK;
}
