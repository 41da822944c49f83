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

/* Where an event's general-counter restriction comes from, for the messages. */
enum rule_src { SRC_NONE, SRC_ROW, SRC_CODE_UMASK, SRC_CODE, SRC_AMD };

/* What the scheduler needs to know about one event, worked out once per schedule. */
struct place {
	uint32_t allowed;	/* general counters its restrictions allow (all ones: any) */
	bool none;		/* a rule says no general counter counts it */
	bool alone;		/* TakenAlone: its pass's general counters are its own */
	bool pair;		/* AMD large-increment: even counter + the odd one beside it */
	enum rule_src src, none_src;
};

struct slot {
	bool fixed;
	uint8_t index;
};

#define MAX_PASSES COUNT_MAX_EVENTS
#define FREE (-1)
#define RESERVED (-2)	/* the odd counter a merged pair holds */

struct matcher {
	const struct count_set *set;
	const struct count_slots *s;
	struct place pl[COUNT_MAX_EVENTS];
	int8_t pinned[COUNT_MAX_EVENTS];	/* offcore events: the pass their MSR is free in, else -1 */
	int8_t alone_pass[COUNT_MAX_EVENTS];	/* TakenAlone events: the pass they have, else -1 */
	int8_t pass_alone[MAX_PASSES];		/* per pass: the TakenAlone event owning its general counters */
	struct slot slot[MAX_SLOTS];
	unsigned nslots, passes;
	int8_t owner[MAX_PASSES * MAX_SLOTS];	/* event in (pass, slot), FREE or RESERVED */
	bool locked[MAX_PASSES * MAX_SLOTS];	/* a merged pair's: not for the matching to move */
	bool seen[MAX_PASSES * MAX_SLOTS];
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

static bool gp_capable(const struct event_spec *ev, const struct place *p, const struct count_slots *s)
{
	return !ev->fixed_only && !p->none && !(s->event0_fixed_only && ev->event == 0) && !arch_unavailable(ev, s);
}

/* A counter list as a mask: the vendors' 0 means any counter. */
static uint32_t any_if_zero(uint32_t m) { return m ? m : 0xFFFFFFFFu; }

/* Even counters whose odd neighbour is usable: where a merged pair can go. */
static uint32_t pair_bases(const struct count_slots *s)
{
	uint32_t m = 0;
	for (unsigned c = 0; c + 1 < COUNT_SCHED_MAX_GP; c += 2)
		if ((s->gp_usable & (1u << c)) && (s->gp_usable & (1u << (c + 1))))
			m |= 1u << c;
	return m;
}

/*
 * An event's restrictions.  A named event, or a raw spec encoding a row exactly, has the row's
 * lists (the row's SMT-off list with more than four counters a thread); a hand-built spec its own;
 * any other raw spec the event set's rule by code and unit mask, else by code.  On AMD the family
 * rules apply on top.  TakenAlone and the merged pair come from any of them.
 */
static void work_out(const struct event_spec *ev, const struct count_slots *s, struct place *p)
{
	const struct event_row_limits *row = ev->row.found ? &ev->row : NULL;
	uint32_t on = ev->counters, off = ev->counters_htoff;
	struct event_rule r;

	memset(p, 0, sizeof(*p));
	p->alone = ev->taken_alone || (row && row->taken_alone);
	p->pair = ev->pair || (row && row->pair);
	if (row) {
		on = row->counters;
		off = row->counters_htoff;
	}
	if (row || on || off) {
		p->src = on || off ? SRC_ROW : SRC_NONE;
	} else if (events_code_rule(s->events, ev->event, ev->umask, &r)) {
		on = r.counters;
		off = r.counters_htoff;
		p->none = r.none;
		p->alone |= r.taken_alone;
		p->src = p->none_src = r.by_umask ? SRC_CODE_UMASK : SRC_CODE;
	}
	p->allowed = any_if_zero(off && s->n_gp > SMT_ON_GP_COUNTERS ? off : on);
	/* The caller's own lists narrow the row's further (the audit pins an event to one counter): never wider. */
	uint32_t own = ev->counters_htoff && s->n_gp > SMT_ON_GP_COUNTERS ? ev->counters_htoff : ev->counters;
	if (row && own)
		p->allowed &= own;
	if (s->amd_family && events_amd_rule(s->amd_family, ev->event, ev->umask, &r)) {
		if (r.counters) {
			p->allowed &= r.counters;
			p->src = SRC_AMD;
		}
		if (r.none) {
			p->none = true;
			p->none_src = SRC_AMD;
		}
		p->pair |= r.pair;
	}
	if (p->pair)
		p->allowed &= pair_bases(s);
}

static bool fixed_capable(const struct event_spec *ev)
{
	/* A fixed counter has no qualifiers to program. */
	return !ev->cmask && !ev->inv && !ev->edge;
}

static bool eligible(const struct event_spec *ev, const struct place *p, const struct count_slots *s,
		     struct slot sl)
{
	if (sl.fixed)
		return !p->pair && fixed_capable(ev) && !ev->msr && fixed_index(ev, s) == sl.index;
	return gp_capable(ev, p, s) && (p->allowed & (1u << sl.index));
}

static bool eligible_in(const struct matcher *m, int ev, unsigned pass, struct slot sl)
{
	if (m->pinned[ev] >= 0 && (unsigned)m->pinned[ev] != pass)
		return false;
	if (m->alone_pass[ev] >= 0 && (unsigned)m->alone_pass[ev] != pass)
		return false;
	if (!sl.fixed && m->pass_alone[pass] >= 0 && m->pass_alone[pass] != ev)
		return false;
	return eligible(&m->set->ev[ev], &m->pl[ev], m->s, sl);
}

/* Kuhn's augmenting path, taking a free slot before displacing anyone, so
 * earlier events keep the counters they were given when they can. */
static bool augment(struct matcher *m, int ev)
{
	for (int displace = 0; displace < 2; displace++)
		for (unsigned p = 0; p < m->passes; p++)
			for (unsigned k = 0; k < m->nslots; k++) {
				unsigned id = p * m->nslots + k;
				if (m->seen[id] || m->locked[id] || !eligible_in(m, ev, p, m->slot[k]))
					continue;
				if (!displace && m->owner[id] != FREE)
					continue;
				m->seen[id] = true;
				if (m->owner[id] == FREE || augment(m, m->owner[id])) {
					m->owner[id] = (int8_t)ev;
					return true;
				}
			}
	return false;
}

/* The slot index of general counter c, or -1. */
static int gp_slot(const struct matcher *m, unsigned c)
{
	for (unsigned k = 0; k < m->nslots; k++)
		if (!m->slot[k].fixed && m->slot[k].index == c)
			return (int)k;
	return -1;
}

/*
 * TakenAlone events get passes of their own: an offcore one the pass its MSR was pinned to, the
 * others the last passes no offcore event is pinned to.  False when `passes` is too few.
 */
static bool give_alone_passes(struct matcher *m)
{
	bool pinned_pass[MAX_PASSES] = { false };
	unsigned next = m->passes;

	memset(m->pass_alone, -1, sizeof(m->pass_alone));
	for (size_t i = 0; i < m->set->n; i++) {
		m->alone_pass[i] = -1;
		if (m->pinned[i] >= 0)
			pinned_pass[m->pinned[i]] = true;
	}
	for (size_t i = 0; i < m->set->n; i++) {
		if (!m->pl[i].alone)
			continue;
		int p = m->pinned[i];
		while (p < 0 && next > 0) {
			next--;
			if (!pinned_pass[next] && m->pass_alone[next] < 0)
				p = (int)next;
		}
		if (p < 0 || p >= (int)m->passes || m->pass_alone[p] >= 0)
			return false;
		m->alone_pass[i] = (int8_t)p;
		m->pass_alone[p] = (int8_t)i;
	}
	return true;
}

/* Merged pairs first, each on the first (pass, even counter) it may have with the odd counter
 * beside it free; the matching then works around them.  False when `passes` is too few. */
static bool place_pairs(struct matcher *m)
{
	for (size_t i = 0; i < m->set->n; i++) {
		if (!m->pl[i].pair)
			continue;
		bool done = false;
		for (unsigned p = 0; p < m->passes && !done; p++)
			for (unsigned c = 0; c + 1 < COUNT_SCHED_MAX_GP && !done; c += 2) {
				int k = gp_slot(m, c), k1 = gp_slot(m, c + 1);
				if (k < 0 || k1 < 0 || !eligible_in(m, (int)i, p, m->slot[k]))
					continue;
				unsigned id = p * m->nslots + (unsigned)k, id1 = p * m->nslots + (unsigned)k1;
				if (m->owner[id] != FREE || m->owner[id1] != FREE ||
				    (m->pass_alone[p] >= 0 && m->pass_alone[p] != (int8_t)i))
					continue;
				m->owner[id] = (int8_t)i;
				m->owner[id1] = RESERVED;
				m->locked[id] = m->locked[id1] = true;
				done = true;
			}
		if (!done)
			return false;
	}
	return true;
}

/* A PERF_METRICS field (count.h): no counter of its own, it goes with its set's TOPDOWN.SLOTS. */
static bool is_td(const struct count_set *set, size_t i, const struct count_slots *s)
{
	return s->event0_fixed_only && count_td_field(&set->ev[i]) >= 0;
}

static bool match(struct matcher *m, unsigned passes)
{
	m->passes = passes;
	memset(m->owner, FREE, sizeof(m->owner));
	memset(m->locked, 0, sizeof(m->locked));
	if (!give_alone_passes(m) || !place_pairs(m))
		return false;
	for (size_t i = 0; i < m->set->n; i++) {
		if (m->pl[i].pair || is_td(m->set, i, m->s))
			continue;
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

static const char *src_words(enum rule_src src)
{
	switch (src) {
	case SRC_CODE_UMASK: return "the restriction of its code and unit mask in the CPU's event table";
	case SRC_CODE: return "the restriction of its event code in the CPU's event table";
	case SRC_AMD: return "the AMD family rule for its code";
	default: return "its counter restriction";
	}
}

/* Why event ev has nowhere to go, in words. */
static void explain(const struct event_spec *ev, const struct place *pl, const struct count_slots *s, char *err,
		    size_t cap)
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
	if (pl->none) {
		if (pl->none_src == SRC_AMD)
			snprintf(err, cap, "event '%s' (event 0x%03x, umask 0x%02x): AMD Family %02Xh counts it on no core "
				 "counter (events/amd_rules.csv, from the BKDG)", ev->name, ev->event, ev->umask,
				 s->amd_family);
		else
			snprintf(err, cap, "event '%s' (event 0x%02x, umask 0x%02x): the CPU's event table lists rows "
				 "with this %s whose counter restrictions have no counter in common, so pmuboot cannot tell "
				 "where this encoding counts; name the catalogue event instead", ev->name, ev->event,
				 ev->umask, pl->none_src == SRC_CODE_UMASK ? "code and unit mask" : "code");
		return;
	}
	if (!gp_capable(ev, pl, s)) {
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
	if (pl->pair && !(pl->allowed & s->gp_exists)) {
		list_bits(list, sizeof(list), s->gp_usable);
		snprintf(err, cap, "event '%s' is an AMD large-increment event: it needs an even counter merged with the "
			 "odd counter beside it (PPR \"Large Increment per Cycle Events\"), and no such pair is free "
			 "(usable counters: %s)", ev->name, list[0] ? list : "none");
		return;
	}
	uint32_t allowed = pl->allowed;
	uint32_t restricted = allowed != 0xFFFFFFFFu ? allowed : 0;
	uint32_t present = allowed & s->gp_exists;
	if (!s->gp_exists) {
		snprintf(err, cap, "event '%s' needs a general counter and this PMU has none usable", ev->name);
	} else if (!present) {
		list_bits(list, sizeof(list), restricted);
		snprintf(err, cap, "event '%s' may only use counter %s, which this PMU does not have (%u general "
			 "counters; %s)", ev->name, list, s->n_gp, src_words(pl->src));
	} else if (restricted) {
		uint32_t held = present & s->gp_in_use;
		list_bits(list, sizeof(list), present);
		snprintf(err, cap, "event '%s' may only use counter %s (%s), and %s in use (found enabled by firmware "
			 "or a BMC; force_counters=on takes %s over)", ev->name, list, src_words(pl->src),
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
	if (ev->any && (s->any_absent || s->any_deprecated)) {
		snprintf(err, cap, "event '%s' asks for AnyThread counting, which this PMU %s", ev->name,
			 s->any_deprecated ? "deprecates (CPUID.0AH:EDX[15]): the bit is reserved, so the event is refused "
					     "before anything is programmed" :
					     "does not have (architectural PMU version 3 and later, Intel only)");
		return true;
	}
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
	if (ev->umask_ext) {
		snprintf(err, cap, "event '%s' needs the extended unit mask 0x%02x (perfmon UMaskExt, PERFEVTSEL bits "
			 "above 15:8), which pmuboot does not program", ev->name, ev->umask_ext);
		return true;
	}
	return false;
}

/* OFFCORE_RSP_0 -> bit 0, OFFCORE_RSP_1 -> bit 1 of a pass's "MSRs taken". */
static uint8_t rsp_bit(uint16_t msr)
{
	return msr == MSR_OFFCORE_RSP_0 ? 1 : msr == MSR_OFFCORE_RSP_1 ? 2 : 0;
}

/*
 * Offcore events need the OFFCORE_RSP MSR of the form they are programmed in for their pass:
 * each goes to the first pass where its own form's MSR, or failing that its other form's, is
 * free (a TakenAlone one to a pass no other offcore event uses).  Returns the passes this needs.
 */
static unsigned pin_offcore(struct count_set *set, const struct place *pl, int8_t *pinned)
{
	uint8_t used[MAX_PASSES] = { 0 };
	unsigned need = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct event_spec *ev = &set->ev[i];
		pinned[i] = -1;
		set->form_of[i] = -1;
		if (!is_offcore(ev))
			continue;
		uint8_t own = rsp_bit(ev->msr), other = ev->has_alt ? rsp_bit(ev->msr_alt) : 0;
		for (unsigned p = 0; p < MAX_PASSES; p++) {
			int form = pl[i].alone ? (used[p] ? -1 : 0) :
				   !(used[p] & own) ? 0 : other && !(used[p] & other) ? 1 : -1;
			if (form < 0)
				continue;
			used[p] |= pl[i].alone ? 3 : form ? other : own;
			pinned[i] = (int8_t)p;
			set->form_of[i] = (int8_t)form;
			if (p + 1 > need)
				need = p + 1;
			break;
		}
	}
	return need;
}

/* PERF_METRICS fields go in the pass of the set's TOPDOWN.SLOTS on fixed counter 3, from which they derive. */
static bool place_td(struct count_set *set, const struct count_slots *s, char *err, size_t err_cap)
{
	int slots = -1;
	for (size_t i = 0; i < set->n && slots < 0; i++)
		if (set->fixed_of[i] == FIXED_TOPDOWN_SLOTS)
			slots = (int)i;
	for (size_t i = 0; i < set->n; i++) {
		if (!is_td(set, i, s))
			continue;
		if (slots < 0) {
			snprintf(err, err_cap, "event '%s' is a PERF_METRICS field: it needs TOPDOWN.SLOTS on fixed counter 3 "
				 "in the same set, from which the fields derive", set->ev[i].name);
			return false;
		}
		set->pass_of[i] = set->pass_of[slots];
	}
	return true;
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
		set->merged_of[i] = false;
	}
	unsigned alone = 0, td = 0;
	for (size_t i = 0; i < set->n; i++) {
		bool any = false;
		if (is_td(set, i, s)) {
			td++;
			continue;
		}
		if (refused(&set->ev[i], s, err, err_cap))
			return false;
		work_out(&set->ev[i], s, &m.pl[i]);
		for (unsigned k = 0; k < m.nslots && !any; k++)
			any = eligible(&set->ev[i], &m.pl[i], s, m.slot[k]);
		if (!any) {
			explain(&set->ev[i], &m.pl[i], s, err, err_cap);
			return false;
		}
		alone += m.pl[i].alone;
	}
	unsigned pinned_passes = pin_offcore(set, m.pl, m.pinned);
	if (!set->n)
		return true;

	unsigned passes = (unsigned)((set->n - td + m.nslots - 1) / m.nslots);
	if (!passes)
		passes = 1;
	if (passes < pinned_passes)
		passes = pinned_passes;
	if (passes < alone)
		passes = alone;
	while (!match(&m, passes)) {
		/* Each event in a pass of its own always fits (every one has a counter it may use), so
		 * only pinned offcore events sharing a pass can run out of counters there. */
		if (++passes > MAX_PASSES) {
			snprintf(err, err_cap, "the events cannot be placed in %d passes: offcore events share a pass "
				 "only through their two forms, TakenAlone events need passes of their own, and the "
				 "counters they may use are too few", MAX_PASSES);
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
			set->merged_of[ev] = m.pl[ev].pair;
		}
	if (td && !place_td(set, s, err, err_cap))
		return false;
	set->passes = passes;
	return true;
}

const char *count_sched_counter_name(const struct count_set *set, size_t i, char buf[16])
{
	if (set->fixed_of[i] >= 0)
		snprintf(buf, 16, "fixed%d", set->fixed_of[i]);
	else if (set->counter_of[i] >= 0 && set->merged_of[i])
		snprintf(buf, 16, "pmc%d+%d", set->counter_of[i], set->counter_of[i] + 1);
	else if (set->counter_of[i] >= 0)
		snprintf(buf, 16, "pmc%d", set->counter_of[i]);
	else
		snprintf(buf, 16, "-");
	return buf;
}
