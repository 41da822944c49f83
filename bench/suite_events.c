/* bench/suite_events.c - the events a variant counts; see suite_int.h. */
#include "bench/suite_int.h"

static void add_spec(struct count_set *cs, const struct event_spec *sp)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!lc_strcasecmp(cs->ev[i].name, sp->name))
			return;
	if (cs->n < COUNT_MAX_EVENTS)
		cs->ev[cs->n++] = *sp;
}

static void add_def(struct count_set *cs, const struct event_def *d)
{
	struct event_spec sp;

	if (!d)
		return;
	memset(&sp, 0, sizeof(sp));
	snprintf(sp.name, sizeof(sp.name), "%s", d->name);
	sp.event = d->event;
	sp.umask = d->umask;
	sp.cmask = d->cmask;
	sp.inv = d->inv;
	sp.edge = d->edge;
	sp.any = d->any;
	sp.counters = d->counters;
	sp.fixed = d->fixed;
	sp.def = d;
	add_spec(cs, &sp);
}

/* The events for a variant: its roles' events, cycles and instructions, then the extra events. */
void suite_build_set(struct count_set *cs, uint32_t roles)
{
	memset(cs, 0, sizeof(*cs));
	if (suite.set) {
		add_def(cs, events_for_role(suite.set, EV_ROLE_CYCLES));
		add_def(cs, events_for_role(suite.set, EV_ROLE_INSTRUCTIONS));
		for (uint32_t bit = 1; bit; bit <<= 1)
			if (roles & bit)
				add_def(cs, events_for_role(suite.set, bit));
	}
	for (size_t i = 0; i < suite.nextra; i++)
		add_spec(cs, &suite.extra[i]);
}

/* The roles a variant counts: its own, and for a control those of every chosen variant compared with it. */
uint32_t suite_roles_for(const struct bench_def *d)
{
	uint32_t roles = d->roles;
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *v = bench_def_at(i);
		if (suite.sel[i] && bench_def_control(v) == d)
			roles |= v->roles;
	}
	return roles;
}

/* The event's name from storage that outlives the count set (kept in the control memo). */
const char *suite_static_name(const struct event_spec *sp)
{
	if (sp->def)
		return sp->def->name;
	for (size_t i = 0; i < suite.nextra; i++)
		if (!strcmp(suite.extra[i].name, sp->name))
			return suite.extra[i].name;
	return "?";
}

bool suite_counts_cycles(const struct count_set *cs)
{
	for (size_t i = 0; cs && i < cs->n; i++)
		if (cs->ev[i].def && (cs->ev[i].def->roles & EV_ROLE_CYCLES))
			return true;
	return false;
}
