/* bench/counting.c - the events a row counts and the audit's verdict on its figures; see stage_int.h. */
#include "bench/stage_int.h"
#include "pmu/audit/audit.h"

const struct event_set *stage_core_event_set(const struct cpu_info *ci)
{
	return ci->event_set ? events_set_find(ci->event_set) : NULL;
}

static void add_spec(struct count_set *cs, const struct event_spec *sp)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!lc_strcasecmp(cs->ev[i].name, sp->name))
			return;
	if (cs->n < COUNT_MAX_EVENTS)
		cs->ev[cs->n++] = *sp;
}

/* The set's event for role, if it has one. */
static void add_role(const struct event_set *set, struct count_set *cs, uint32_t role)
{
	struct event_def def, *d = &def;
	struct event_spec sp;

	if (!events_for_role(set, role, &def))
		return;
	memset(&sp, 0, sizeof(sp));
	memcpy(sp.name, d->name, sizeof(sp.name));	/* both EVENT_NAME_MAX, NUL-terminated */
	sp.event = d->event;
	sp.umask = d->umask;
	sp.cmask = d->cmask;
	sp.inv = d->inv;
	sp.edge = d->edge;
	sp.any = d->any;
	sp.counters = d->counters;
	sp.fixed = d->fixed;
	sp.named = true;
	sp.roles = d->roles;
	events_row_limits(d, &sp.row);
	add_spec(cs, &sp);
}

/* The events for a variant: its roles' events, cycles and instructions, then the extra events. */
void stage_build_set(const struct stage *st, struct count_set *cs, uint32_t roles)
{
	memset(cs, 0, sizeof(*cs));
	if (st->set) {
		add_role(st->set, cs, EV_ROLE_CYCLES);
		add_role(st->set, cs, EV_ROLE_INSTRUCTIONS);
		for (uint32_t bit = 1; bit; bit <<= 1)
			if (roles & bit)
				add_role(st->set, cs, bit);
	}
	for (size_t i = 0; i < st->nextra; i++)
		add_spec(cs, &st->extra[i]);
}

uint32_t stage_roles_for(const struct stage *st, const struct bench_def *d)
{
	uint32_t roles = d->roles;
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *v = bench_def_at(i);
		if (st->plan->table[i] && bench_def_control(v) == d)
			roles |= v->roles;
	}
	return roles;
}

/* The event's name from storage that outlives the count set (kept in the control memo): the
 * extra events' own, or for the roles' events the stage's copy, made the first time. */
const char *stage_static_name(struct stage *st, const struct event_spec *sp)
{
	for (size_t i = 0; i < st->nextra; i++)
		if (!strcmp(st->extra[i].name, sp->name))
			return st->extra[i].name;
	for (size_t i = 0; sp->named && i < ROLE_NAMES_MAX; i++) {
		if (!st->role_names[i][0])
			snprintf(st->role_names[i], sizeof(st->role_names[i]), "%s", sp->name);
		if (!strcmp(st->role_names[i], sp->name))
			return st->role_names[i];
	}
	return "?";
}

/*
 * The audit's verdict on this processor (pmu/audit/audit.h): an event counted on a counter it
 * blamed, or with a unit mask it found ignored, is not a measurement; nor are cycles counted on
 * such a counter, nor any cycles figure after a failed clock check (raw TSC ticks stay ticks).
 */
void stage_apply_audit(const struct stage *st, const struct count_set *set, struct bench_figures *f)
{
	const struct audit_verdict *v = st->p->audit;
	const char *why;
	if (!v || !v->ran)
		return;
	int ce = -1;	/* the harness's cycles event: the first with the role */
	for (size_t i = 0; set && i < f->nev && ce < 0; i++)
		if (f->ev[i].roles & EV_ROLE_CYCLES)
			ce = (int)i;
	for (size_t i = 0; set && i < f->nev; i++) {
		bool fixed = set->fixed_of[i] >= 0;
		int idx = fixed ? set->fixed_of[i] : set->counter_of[i];
		if (!f->ev[i].measured || idx < 0 || audit_counter_ok(v, fixed, (unsigned)idx, set->ev[i].umask, &why))
			continue;
		f->ev[i].measured = false;
		f->ev[i].invalid = why;
		if ((int)i == f->instructions)
			f->instructions = -1;
		if ((f->cycles_source == BENCH_CYCLES_PMC || f->cycles_source == BENCH_CYCLES_FIXED) && (int)i == ce)
			f->cycles_invalid = why;
	}
	if (f->cycles_source != BENCH_CYCLES_TSC && !audit_clock_ok(v, &why))
		f->cycles_invalid = why;
}
