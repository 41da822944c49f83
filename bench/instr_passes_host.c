/* bench/instr_passes_host.c - the passes of pmuboot-host's instruction table; see instr_passes.h. */
#include "bench/instr_passes.h"

#include <string.h>

#include "bench/stats.h"

void instr_passes_begin(struct instr_passes *ps, double now, double budget)
{
	ps->pass = 0;
	ps->start = now;
	ps->first_pass = 0;
	ps->budget = budget;
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

/*
 * Seconds from the start the passes may take together.  While the first pass runs its length is not known:
 * the ceiling is the most the default can allow, and a form deferred past it would only be written later
 * with the figure it has now.
 */
static double until(const struct instr_passes *ps)
{
	if (ps->budget >= 0)
		return ps->budget;
	if (!ps->pass)
		return INSTR_PASSES_CEILING_S;
	double t = INSTR_LATER_PASSES_SHARE * ps->first_pass;
	return t < INSTR_PASSES_CEILING_S ? t : INSTR_PASSES_CEILING_S;
}

bool instr_passes_defer(const struct instr_passes *ps, double now)
{
	return ps->pass + 1 < INSTR_PASSES && now - ps->start < until(ps);
}

/* The first pass has all it needs: each form is measured at least once. */
bool instr_passes_measure_again(const struct instr_passes *ps, double now)
{
	return !ps->pass || now - ps->start < until(ps);
}

static bool contended_figure(const struct instr_result *r)
{
	return r->measured && r->unstable && !strcmp(r->unstable, stats_unstable_name(STATS_UNSTABLE_CONTENDED));
}

static bool thin_figure(const struct instr_result *r) { return r->measured && r->thin; }

bool instr_passes_again(const struct instr_result *res, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if (res[j].unkept || contended_figure(&res[j]) || thin_figure(&res[j]))
			return true;
	return false;
}

static enum instr_rank result_rank(const struct instr_result *r)
{
	return !r->measured		? INSTR_RANK_NONE
	       : thin_figure(r)		? INSTR_RANK_THIN
	       : contended_figure(r)	? INSTR_RANK_CONTENDED
					: INSTR_RANK_ALONE;
}

enum instr_rank instr_passes_need(const struct instr_result *res, size_t n)
{
	enum instr_rank need = INSTR_RANK_ALONE;
	for (size_t j = 0; j < n; j++) {
		enum instr_rank r = res[j].measured || res[j].unkept ? result_rank(&res[j]) : INSTR_RANK_ALONE;
		if (r < need)
			need = r;
	}
	return need;
}

void instr_passes_keep_better(struct instr_result *now, const struct instr_result *before, size_t n)
{
	for (size_t j = 0; before && j < n; j++) {
		if (result_rank(&before[j]) <= result_rank(&now[j]))
			continue;
		struct instr_result r = before[j];
		r.init = now[j].init, r.body = now[j].body;
		r.init_len = now[j].init_len, r.body_len = now[j].body_len;
		now[j] = r;
	}
}
