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

/* The set's event for role, if it has one. */
static void add_role(struct count_set *cs, uint32_t role)
{
	struct event_def def, *d = &def;
	struct event_spec sp;

	if (!events_for_role(suite.set, role, &def))
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
void suite_build_set(struct count_set *cs, uint32_t roles)
{
	memset(cs, 0, sizeof(*cs));
	if (suite.set) {
		add_role(cs, EV_ROLE_CYCLES);
		add_role(cs, EV_ROLE_INSTRUCTIONS);
		for (uint32_t bit = 1; bit; bit <<= 1)
			if (roles & bit)
				add_role(cs, bit);
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

/* The event's name from storage that outlives the count set (kept in the control memo): the
 * extra events' own, or for the roles' events the stage's copy, made the first time. */
const char *suite_static_name(const struct event_spec *sp)
{
	for (size_t i = 0; i < suite.nextra; i++)
		if (!strcmp(suite.extra[i].name, sp->name))
			return suite.extra[i].name;
	for (size_t i = 0; sp->named && i < ROLE_NAMES_MAX; i++) {
		if (!suite.role_names[i][0])
			snprintf(suite.role_names[i], sizeof(suite.role_names[i]), "%s", sp->name);
		if (!strcmp(suite.role_names[i], sp->name))
			return suite.role_names[i];
	}
	return "?";
}

bool suite_counts_cycles(const struct count_set *cs)
{
	for (size_t i = 0; cs && i < cs->n; i++)
		if (cs->ev[i].roles & EV_ROLE_CYCLES)
			return true;
	return false;
}
