/* bench/instr_passes_host.c - the passes of pmuboot-host's instruction table; see instr_passes.h. */
#include "bench/instr_passes.h"

void instr_passes_begin(struct instr_passes *ps, double now)
{
	ps->pass = 0;
	ps->start = now;
	ps->first_pass = 0;
}

bool instr_passes_next(struct instr_passes *ps, double now)
{
	if (!ps->pass)
		ps->first_pass = now - ps->start;
	if (ps->pass + 1 >= INSTR_PASSES)
		return false;
	ps->pass++;
	return true;
}

/* Whether the time the passes may take together is not yet up (the first pass has all it needs). */
static bool time_left(const struct instr_passes *ps, double now)
{
	return !ps->pass || now - ps->start < INSTR_LATER_PASSES_SHARE * ps->first_pass;
}

bool instr_passes_defer(const struct instr_passes *ps, double now)
{
	return ps->pass + 1 < INSTR_PASSES && time_left(ps, now);
}

bool instr_passes_measure_again(const struct instr_passes *ps, double now)
{
	return time_left(ps, now);
}
