/* platform/fixup.c - fixup-table lookup; see fixup.h.  Portable (unit-tested on the host). */
#include "platform/fixup.h"

uintptr_t ex_lookup(const struct ex_entry *start, const struct ex_entry *end, uintptr_t rip)
{
	/* A few dozen entries: a linear scan keeps the table unsorted and the handler simple. */
	for (const struct ex_entry *e = start; e < end; e++)
		if (ex_insn(e) == rip)
			return ex_fixup(e);
	return 0;
}

long ex_check(const struct ex_entry *start, const struct ex_entry *end, uintptr_t lo, uintptr_t hi)
{
	for (const struct ex_entry *e = start; e < end; e++) {
		uintptr_t insn = ex_insn(e), fix = ex_fixup(e);
		if (insn < lo || insn >= hi || fix < lo || fix >= hi)
			return e - start;
		for (const struct ex_entry *p = start; p < e; p++)
			if (ex_insn(p) == insn)
				return e - start;
	}
	return -1;
}
