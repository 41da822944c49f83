/*
 * tests/fake/guard_fake.c - platform/guard.h for the unit tests: a plain call
 * (the tests run only kernels that finish).  Executable memory is the
 * host's own (linux/xmem_linux.c, linked into libfake.a).
 */
#include <stdio.h>
#include <string.h>

#include "platform/guard.h"

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
