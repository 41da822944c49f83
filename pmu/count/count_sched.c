/* pmu/count/count_sched.c - see count_sched.h. */
#include "pmu/count/count_sched.h"
#include "lib/strbuf.h"

#define MAX_SLOTS (COUNT_SCHED_MAX_GP + COUNT_SCHED_MAX_FIXED)

struct slot {
	bool fixed;
	uint8_t index;
};

struct matcher {
	const struct count_set *set;
	const struct count_slots *s;
	struct slot slot[MAX_SLOTS];
	unsigned nslots, passes;
	int8_t owner[COUNT_MAX_EVENTS * MAX_SLOTS];	/* event in (pass, slot), or -1 */
	bool seen[COUNT_MAX_EVENTS * MAX_SLOTS];
};

/* The fixed counter an event can use: its table's, or Intel's pseudo-encoding
 * event 0x00 / umask n = fixed counter n-1 for raw specs. */
static int fixed_index(const struct event_spec *ev, const struct count_slots *s)
{
	if (ev->fixed >= 0)
		return ev->fixed;
	if (s->event0_fixed_only && ev->event == 0 && ev->umask >= 1)
		return ev->umask - 1;
	return -1;
}

static bool gp_capable(const struct event_spec *ev, const struct count_slots *s)
{
	return !(s->event0_fixed_only && ev->event == 0);
}

static bool fixed_capable(const struct event_spec *ev)
{
	/* A fixed counter has no qualifiers to program. */
	return !ev->cmask && !ev->inv && !ev->edge;
}

static bool eligible(const struct event_spec *ev, const struct count_slots *s, struct slot sl)
{
	if (sl.fixed)
		return fixed_capable(ev) && fixed_index(ev, s) == sl.index;
	return gp_capable(ev, s) && (!ev->counters || (ev->counters & (1u << sl.index)));
}

/* Kuhn's augmenting path, taking a free slot before displacing anyone, so
 * earlier events keep the counters they were given when they can. */
static bool augment(struct matcher *m, int ev)
{
	for (int displace = 0; displace < 2; displace++)
		for (unsigned p = 0; p < m->passes; p++)
			for (unsigned k = 0; k < m->nslots; k++) {
				unsigned id = p * m->nslots + k;
				if (m->seen[id] || !eligible(&m->set->ev[ev], m->s, m->slot[k]))
					continue;
				if (!displace && m->owner[id] >= 0)
					continue;
				m->seen[id] = true;
				if (m->owner[id] < 0 || augment(m, m->owner[id])) {
					m->owner[id] = (int8_t)ev;
					return true;
				}
			}
	return false;
}

static bool match(struct matcher *m, unsigned passes)
{
	m->passes = passes;
	memset(m->owner, -1, sizeof(m->owner));
	for (size_t i = 0; i < m->set->n; i++) {
		memset(m->seen, 0, sizeof(m->seen));
		if (!augment(m, (int)i))
			return false;
	}
	return true;
}

static void list_bits(char *buf, size_t cap, uint32_t bits)
{
	size_t len = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < 32 && len < cap; i++)
		if (bits & (1u << i))
			len = str_appendf(buf, cap, len, "%s%u", len ? "," : "", i);
}

/* Why event ev has nowhere to go, in words. */
static void explain(const struct event_spec *ev, const struct count_slots *s, char *err, size_t cap)
{
	char list[96];
	int fx = fixed_index(ev, s);

	if (!gp_capable(ev, s)) {
		if (fx < 0)
			snprintf(err, cap, "event '%s': event code 0x00 is a fixed-counter encoding and no umask names a "
				 "fixed counter", ev->name);
		else if (!(s->fixed_exists & (1u << fx)))
			snprintf(err, cap, "event '%s' is counted only by fixed counter %d, which this PMU does not have "
				 "(%u fixed counters)", ev->name, fx, s->n_fixed);
		else if (!fixed_capable(ev))
			snprintf(err, cap, "event '%s' is counted only by fixed counter %d, which cannot apply "
				 "cmask/inv/edge", ev->name, fx);
		else
			snprintf(err, cap, "event '%s' is counted only by fixed counter %d, which is in use (found enabled "
				 "by firmware or a BMC; force_counters=on takes it over)", ev->name, fx);
		return;
	}
	uint32_t allowed = ev->counters ? ev->counters : 0xFFFFFFFFu;
	uint32_t present = allowed & s->gp_exists;
	if (!s->gp_exists) {
		snprintf(err, cap, "event '%s' needs a general counter and this PMU has none usable", ev->name);
	} else if (!present) {
		list_bits(list, sizeof(list), ev->counters);
		snprintf(err, cap, "event '%s' may only use counter %s, which this PMU does not have (%u general "
			 "counters)", ev->name, list, s->n_gp);
	} else if (ev->counters) {
		uint32_t held = present & s->gp_in_use;
		list_bits(list, sizeof(list), present);
		snprintf(err, cap, "event '%s' may only use counter %s (its counter restriction), and %s in use (found "
			 "enabled by firmware or a BMC; force_counters=on takes %s over)", ev->name, list,
			 (held & (held - 1)) ? "they are" : "it is", (held & (held - 1)) ? "them" : "it");
	} else {
		list_bits(list, sizeof(list), s->gp_in_use);
		snprintf(err, cap, "event '%s': every general counter is in use (counters %s found enabled by firmware "
			 "or a BMC; force_counters=on takes them over)", ev->name, list);
	}
}

bool count_sched_assign(struct count_set *set, const struct count_slots *s, char *err, size_t err_cap)
{
	static struct matcher m;

	memset(&m, 0, sizeof(m));
	m.set = set;
	m.s = s;
	/* Within a pass, fixed counters are tried first, then general counters in order. */
	for (unsigned f = 0; f < COUNT_SCHED_MAX_FIXED; f++)
		if (s->fixed_usable & (1u << f))
			m.slot[m.nslots++] = (struct slot){ true, (uint8_t)f };
	for (unsigned c = 0; c < COUNT_SCHED_MAX_GP; c++)
		if (s->gp_usable & (1u << c))
			m.slot[m.nslots++] = (struct slot){ false, (uint8_t)c };

	set->passes = 0;
	for (size_t i = 0; i < set->n; i++) {
		set->pass_of[i] = 0;
		set->counter_of[i] = -1;
		set->fixed_of[i] = -1;
	}
	if (set->n > COUNT_MAX_EVENTS) {
		snprintf(err, err_cap, "%zu events, at most %d per run", set->n, COUNT_MAX_EVENTS);
		return false;
	}
	for (size_t i = 0; i < set->n; i++) {
		bool any = false;
		for (unsigned k = 0; k < m.nslots && !any; k++)
			any = eligible(&set->ev[i], s, m.slot[k]);
		if (!any) {
			explain(&set->ev[i], s, err, err_cap);
			return false;
		}
	}
	if (!set->n)
		return true;

	unsigned passes = (unsigned)((set->n + m.nslots - 1) / m.nslots);
	while (!match(&m, passes))
		passes++;	/* terminates: with n passes every event has one of its own */

	for (unsigned p = 0; p < passes; p++)
		for (unsigned k = 0; k < m.nslots; k++) {
			int ev = m.owner[p * m.nslots + k];
			if (ev < 0)
				continue;
			set->pass_of[ev] = (uint8_t)p;
			if (m.slot[k].fixed)
				set->fixed_of[ev] = (int8_t)m.slot[k].index;
			else
				set->counter_of[ev] = (int8_t)m.slot[k].index;
		}
	set->passes = passes;
	return true;
}

const char *count_sched_counter_name(const struct count_set *set, size_t i, char buf[16])
{
	if (set->fixed_of[i] >= 0)
		snprintf(buf, 16, "fixed%d", set->fixed_of[i]);
	else if (set->counter_of[i] >= 0)
		snprintf(buf, 16, "pmc%d", set->counter_of[i]);
	else
		snprintf(buf, 16, "-");
	return buf;
}
