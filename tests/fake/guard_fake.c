/*
 * tests/fake/guard_fake.c - kernel/guard.h for the unit tests: a plain call
 * (the tests run only kernels that finish), and executable memory from
 * mmap, as on the host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "kernel/guard.h"

#define PAGE 4096u

const char *hw_guard_watchdog(char *why, size_t why_cap)
{
	snprintf(why, why_cap, "unit tests have no watchdog");
	return NULL;
}

void hw_guarded_call(void (*fn)(void *), void *arg, uint64_t bound_us, struct hw_guard_result *r)
{
	(void)bound_us;
	memset(r, 0, sizeof(*r));
	fn(arg);
}

void *hw_xmem_alloc(size_t bytes, char *why, size_t why_cap)
{
	void *p = mmap(NULL, (bytes + PAGE - 1) / PAGE * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(why, why_cap, "mmap: %s", strerror(errno));
		return NULL;
	}
	return p;
}

bool hw_xmem_seal(void *p, size_t bytes, char *why, size_t why_cap)
{
	if (mprotect(p, (bytes + PAGE - 1) / PAGE * PAGE, PROT_READ | PROT_EXEC) != 0) {
		snprintf(why, why_cap, "mprotect: %s", strerror(errno));
		return false;
	}
	return true;
}

void hw_xmem_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, (bytes + PAGE - 1) / PAGE * PAGE);
}

bool hw_xmem_prepare(char *why, size_t why_cap)
{
	(void)why;
	(void)why_cap;
	return true;	/* mmap works on every CPU */
}
