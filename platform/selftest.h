/*
 * platform/selftest.h - the runtime's self-tests (`selftest=` option).
 *
 *   fixup   faults inside the fixup mechanism: #GP from a bad MSR read and
 *           write, #UD or #GP from RDPMC, recovery each time;
 *   window  the interrupts-off window: every source masked, IF clear, all
 *           restored bit for bit, the firmware's timer alive afterwards;
 *   nmi     a self-NMI through the local APIC is dispatched and counted,
 *           an unclaimed one is survived, one inside a window pollutes it;
 *   paging  both arenas: the live page-table walk reports 4 KiB and 2 MiB;
 *   fault   an unexpected #UD: the `fault` record and a clean end (last);
 *   all     every one of them.
 * Each test emits one `selftest` record (docs/results-format.md).  The
 * record building and the list parsing are portable (selftest_common.c);
 * the tests themselves run only in the image (platform/metal/selftest.c).
 */
#ifndef PMUBOOT_PLATFORM_SELFTEST_H
#define PMUBOOT_PLATFORM_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/record.h"

enum {
	ST_FIXUP = 1u << 0,
	ST_WINDOW = 1u << 1,
	ST_NMI = 1u << 2,
	ST_PAGING = 1u << 3,
	ST_FAULT = 1u << 4,	/* always run last: it ends the run */
	ST_ALL = (1u << 5) - 1,
	/* Not in `all`: at the start of each measuring pass on an application processor (platform_pass_selftest). */
	ST_AP_FAULT = 1u << 5,
	ST_AP_HANG = 1u << 6,
};

/* Parse "fixup,nmi" / "all" / "" into a mask; false with the reason for an unknown name. */
bool selftest_parse(const char *list, unsigned *mask, char *why, size_t why_cap);
/* Names in run order; the bit for index i is 1 << i. */
const char *selftest_name(unsigned index);
#define SELFTEST_COUNT 7


/* One `selftest` record under construction. */
struct st {
	struct rec r;
	const char *name;
	unsigned passed, failed;
};
void st_begin(struct st *s, const char *name);
/* A check: what it is, whether it held, and a value and detail to show. */
void st_check(struct st *s, const char *what, bool ok, int64_t value, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Close, emit, count a failure as a run error; returns true when every check passed. */
bool st_end(struct st *s);

/* The stage on a platform without the runtime (pmuboot-host): a `skipped` record per requested test. */
void selftest_skip(const char *list, const char *reason);

#endif
