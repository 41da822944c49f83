/*
 * run/cpus.h - the `cpus=` option: which processors a run measures on.
 *
 *   bsp          the boot processor alone
 *   all          every enabled, healthy processor
 *   types        one processor of each distinct core type (default): the
 *                boot CPU for its own type; for another type the lowest-
 *                numbered CPU whose SMT siblings can all be parked (none is
 *                the boot CPU, which is busy waiting for the result)
 *   LIST         processor numbers, ranges N-M and apic:ID, comma-separated
 *
 * Parsing and selection are pure functions of the text and a topology
 * table (cpu/topo.h), so they are tested on fake machines.
 */
#ifndef PMUBOOT_RUN_CPUS_H
#define PMUBOOT_RUN_CPUS_H

#include "lib/libc.h"
#include "cpu/topo.h"

enum cpus_mode { CPUS_BSP, CPUS_ALL, CPUS_TYPES, CPUS_LIST };

#define CPUS_LIST_MAX 64

struct cpus_item {
	bool apic;		/* v is an APIC ID, else a processor number */
	uint32_t lo, hi;	/* inclusive range; lo == hi for one */
};

struct cpus_spec {
	enum cpus_mode mode;
	size_t n;
	struct cpus_item item[CPUS_LIST_MAX];
};

/* False with why (naming the bad word) when v is not a cpus= value. */
bool cpus_parse(const char *v, size_t len, struct cpus_spec *s, char *why, size_t cap);

/*
 * Indexes into t->cpu of the processors to measure, in processor-number
 * order, at most cap.  Problems that leave a requested CPU out (no such
 * number, disabled, not identified) are written to why ("" when none) and
 * the rest is still chosen.
 */
size_t cpus_select(const struct cpus_spec *s, const struct topology *t, size_t *out, size_t cap, char *why,
		   size_t why_cap);

/* The index of the boot CPU in t, or t->n when the table has none. */
size_t cpus_bsp(const struct topology *t);

#endif
