/* pmu/count/count_sched.c - see count_sched.h. */
#include "pmu/count/count_sched.h"
#include "lib/strbuf.h"
#include "pmu/caps/pmu_caps.h"
#include "lib/x86/msr_intel.h"

#define MAX_SLOTS (COUNT_SCHED_MAX_GP + COUNT_SCHED_MAX_FIXED)

/* Without SMT, Sandy Bridge to Cascade Lake give one thread all eight counters (CPUID.0AH
 * EAX[15:8] = 8); perfmon's CounterHTOff applies then. */
#define SMT_ON_GP_COUNTERS	4u

/* CPUID.0AH:EBX bit n <-> the architectural event's encoding (SDM Vol. 3B Table 20-1). */
static const struct { uint8_t event, umask; } arch_events[] = {
	{ 0x3C, 0x00 },	/* 0 unhalted core cycles */
	{ 0xC0, 0x00 },	/* 1 instructions retired */
	{ 0x3C, 0x01 },	/* 2 unhalted reference cycles */
	{ 0x2E, 0x4F },	/* 3 LLC references */
	{ 0x2E, 0x41 },	/* 4 LLC misses */
	{ 0xC4, 0x00 },	/* 5 branch instructions retired */
	{ 0xC5, 0x00 },	/* 6 branch mispredicts retired */
	{ 0xA4, 0x01 },	/* 7 topdown slots */
	{ 0xA4, 0x02 },	/* 8 topdown backend bound */
	{ 0x73, 0x00 },	/* 9 topdown bad speculation */
	{ 0x9C, 0x01 },	/* 10 topdown frontend bound */
	{ 0xC2, 0x02 },	/* 11 topdown retiring */
	{ 0xE4, 0x01 },	/* 12 LBR inserts */
};

int count_sched_arch_bit(const struct event_spec *ev)
{
	if (ev->cmask || ev->inv || ev->edge)
		return -1;
	for (unsigned i = 0; i < ARRAY_SIZE(arch_events); i++)
		if (arch_events[i].event == ev->event && arch_events[i].umask == ev->umask)
			return (int)i;
	return -1;
}

/*
 * CPUID.0AH says this architectural event cannot be counted on a general counter: its EBX bit
 * is set, or - on a CPU known only by its architectural PMU - it is past EAX[31:24].  On a
 * known core an encoding past EAX[31:24] is simply not architectural there, and the core's
 * own table (perfmon's UOPS_RETIRED.SLOTS C2H/02H on Ice Lake) decides.
 */
static bool arch_unavailable(const struct event_spec *ev, const struct count_slots *s)
{
	int b = s->arch_pmu ? count_sched_arch_bit(ev) : -1;
	if (b < 0)
		return false;
	return b < s->arch_len ? (s->arch_absent & (1u << b)) != 0 : s->arch_only;
}

static bool is_offcore(const struct event_spec *ev)
{
	return ev->msr == MSR_OFFCORE_RSP_0 || ev->msr == MSR_OFFCORE_RSP_1;
}

struct slot {
	bool fixed;
	uint8_t index;
};

struct matcher {
	const struct count_set *set;
	const struct count_slots *s;
	int8_t pinned[COUNT_MAX_EVENTS];	/* offcore events: the pass their MSR is free in, else -1 */
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
	return !ev->fixed_only && !(s->event0_fixed_only && ev->event == 0) && !arch_unavailable(ev, s);
}

/* The general counters the event may use on this PMU. */
static uint32_t allowed_gp(const struct event_spec *ev, const struct count_slots *s)
{
	uint32_t m = ev->counters_htoff && s->n_gp > SMT_ON_GP_COUNTERS ? ev->counters_htoff : ev->counters;
	return m ? m : 0xFFFFFFFFu;
}

static bool fixed_capable(const struct event_spec *ev)
{
	/* A fixed counter has no qualifiers to program. */
	return !ev->cmask && !ev->inv && !ev->edge;
}

static bool eligible(const struct event_spec *ev, const struct count_slots *s, struct slot sl)
{
	if (sl.fixed)
		return fixed_capable(ev) && !ev->msr && fixed_index(ev, s) == sl.index;
	return gp_capable(ev, s) && (allowed_gp(ev, s) & (1u << sl.index));
}

static bool eligible_in(const struct matcher *m, int ev, unsigned pass, struct slot sl)
{
	if (m->pinned[ev] >= 0 && (unsigned)m->pinned[ev] != pass)
		return false;
	return eligible(&m->set->ev[ev], m->s, sl);
}

/* Kuhn's augmenting path, taking a free slot before displacing anyone, so
 * earlier events keep the counters they were given when they can. */
static bool augment(struct matcher *m, int ev)
{
	for (int displace = 0; displace < 2; displace++)
		for (unsigned p = 0; p < m->passes; p++)
			for (unsigned k = 0; k < m->nslots; k++) {
				unsigned id = p * m->nslots + k;
				if (m->seen[id] || !eligible_in(m, ev, p, m->slot[k]))
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

	if (arch_unavailable(ev, s)) {
		int b = count_sched_arch_bit(ev);
		const char *what = pmu_arch_event_name((unsigned)b);
		bool has_fixed = fx >= 0 && (s->fixed_exists & (1u << fx)) && fixed_capable(ev);
		if (b >= s->arch_len)
			snprintf(err, cap, "event '%s' (%02XH/%02XH) is the architectural event %s, CPUID.0AH:EBX bit %d, "
				 "past the %u architectural events CPUID.0AH:EAX[31:24] enumerates: not available on "
				 "this CPU%s", ev->name, ev->event, ev->umask, what ? what : "?", b, s->arch_len,
				 has_fixed ? "; its fixed counter is in use" : "");
		else
			snprintf(err, cap, "event '%s' (%02XH/%02XH) is the architectural event %s, which CPUID.0AH:EBX "
				 "bit %d marks not available on this CPU%s", ev->name, ev->event, ev->umask,
				 what ? what : "?", b,
				 has_fixed ? "; only its fixed counter could count it, and that is in use (found enabled "
					     "by firmware or a BMC; force_counters=on takes it over)" : "");
		return;
	}
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
	uint32_t allowed = allowed_gp(ev, s);
	uint32_t restricted = allowed != 0xFFFFFFFFu ? allowed : 0;
	uint32_t present = allowed & s->gp_exists;
	if (!s->gp_exists) {
		snprintf(err, cap, "event '%s' needs a general counter and this PMU has none usable", ev->name);
	} else if (!present) {
		list_bits(list, sizeof(list), restricted);
		snprintf(err, cap, "event '%s' may only use counter %s, which this PMU does not have (%u general "
			 "counters)", ev->name, list, s->n_gp);
	} else if (restricted) {
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

/* Constraints pmuboot cannot meet at all: the event is refused, with the reason. */
static bool refused(const struct event_spec *ev, const struct count_slots *s, char *err, size_t cap)
{
	if (ev->msr == MSR_PEBS_LD_LAT || ev->msr == MSR_PEBS_FRONTEND) {
		snprintf(err, cap, "event '%s' needs %s (MSR 0x%X = 0x%llx), which only takes effect with PEBS; pmuboot "
			 "does not drive PEBS, so it would count something else", ev->name,
			 ev->msr == MSR_PEBS_LD_LAT ? "the PEBS load-latency threshold MSR_PEBS_LD_LAT" :
						      "the PEBS front-end selector MSR_PEBS_FRONTEND",
			 ev->msr, (unsigned long long)ev->msr_value);
		return true;
	}
	if (ev->msr && !is_offcore(ev)) {
		snprintf(err, cap, "event '%s' needs MSR 0x%X = 0x%llx, which pmuboot does not program", ev->name,
			 ev->msr, (unsigned long long)ev->msr_value);
		return true;
	}
	if (is_offcore(ev) && !s->offcore) {
		snprintf(err, cap, "event '%s' needs the offcore response MSRs (0x1A6/0x1A7), which this PMU does "
			 "not have", ev->name);
		return true;
	}
	if (ev->has_alt && !ev->msr) {
		snprintf(err, cap, "event '%s' is the bare offcore response event: it counts what OFFCORE_RSP selects, "
			 "so give the value (event=0x%02x,umask=0x%02x,offcore_rsp=0x...) or name an OCR./"
			 "OFFCORE_RESPONSE. event", ev->name, ev->event, ev->umask);
		return true;
	}
	if (ev->pair) {
		snprintf(err, cap, "event '%s' is a large-increment event: it counts correctly only merged with the odd "
			 "counter beside it (Merge event 0xFFF), which pmuboot does not program", ev->name);
		return true;
	}
	if (ev->umask_ext) {
		snprintf(err, cap, "event '%s' needs the extended unit mask 0x%02x (perfmon UMaskExt, PERFEVTSEL bits "
			 "above 15:8), which pmuboot does not program", ev->name, ev->umask_ext);
		return true;
	}
	return false;
}

/*
 * Offcore events need OFFCORE_RSP_0 (first form) or OFFCORE_RSP_1 (second form) for their pass:
 * each goes to the first pass with one of its MSRs free.  Returns the passes this needs.
 */
static unsigned pin_offcore(struct count_set *set, int8_t *pinned)
{
	uint8_t used[COUNT_MAX_EVENTS] = { 0 };		/* per pass: bit 0 RSP_0, bit 1 RSP_1 */
	unsigned need = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct event_spec *ev = &set->ev[i];
		pinned[i] = -1;
		set->form_of[i] = -1;
		if (!is_offcore(ev))
			continue;
		bool alt = ev->has_alt && ev->msr_alt == MSR_OFFCORE_RSP_1;
		uint8_t first = ev->msr == MSR_OFFCORE_RSP_1 ? 2 : 1;
		for (unsigned p = 0; p < COUNT_MAX_EVENTS; p++) {
			int form = !(used[p] & first) ? 0 : alt && !(used[p] & 2) ? 1 : -1;
			if (form < 0)
				continue;
			used[p] |= form ? 2 : first;
			pinned[i] = (int8_t)p;
			set->form_of[i] = (int8_t)form;
			if (p + 1 > need)
				need = p + 1;
			break;
		}
	}
	return need;
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
	if (set->n > COUNT_MAX_EVENTS) {
		snprintf(err, err_cap, "%zu events, at most %d per run", set->n, COUNT_MAX_EVENTS);
		return false;
	}
	for (size_t i = 0; i < set->n; i++) {
		set->pass_of[i] = 0;
		set->counter_of[i] = -1;
		set->fixed_of[i] = -1;
		set->form_of[i] = -1;
	}
	for (size_t i = 0; i < set->n; i++) {
		bool any = false;
		if (refused(&set->ev[i], s, err, err_cap))
			return false;
		for (unsigned k = 0; k < m.nslots && !any; k++)
			any = eligible(&set->ev[i], s, m.slot[k]);
		if (!any) {
			explain(&set->ev[i], s, err, err_cap);
			return false;
		}
	}
	unsigned pinned_passes = pin_offcore(set, m.pinned);
	if (!set->n)
		return true;

	unsigned passes = (unsigned)((set->n + m.nslots - 1) / m.nslots);
	if (passes < pinned_passes)
		passes = pinned_passes;
	while (!match(&m, passes)) {
		/* Without pinned events n passes always do (every event has one of its own); pinned
		 * offcore events that share a pass may not find two counters there. */
		if (++passes > set->n + pinned_passes) {
			snprintf(err, err_cap, "the offcore events cannot be placed: each pass has one OFFCORE_RSP "
				 "MSR per form and too few counters they may use");
			return false;
		}
	}

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
