/*
 * events/events.c - lookups over the generated event tables.
 *
 * The tables come from events/ through tools/gen_events.py in a compact form
 * (events_table.h says why); this file turns them into the structs of events.h and finds
 * things in them.  Sets hold a few hundred events and lookups are rare (configuration,
 * listings), so every lookup is a linear scan in table order; events_for_role follows the
 * hand-written rows' order, so the role files decide which event plays a role first.
 */
#include "events/events.h"
#include "events/events_table.h"

/* The words for enum event_role bits 0, 1, ... in order (events/roles.csv).
 * One string rather than an array of pointers: no relocations in the image. */
static const char role_words[] = EV_ROLE_WORDS;

/* The word for role bit i, or NULL past the last. */
static const char *role_word(unsigned i)
{
	const char *w = role_words;
	for (; *w && i; i--)
		w += strlen(w) + 1;
	return *w ? w : NULL;
}

#ifdef PMUBOOT_HOSTED
#define TEXT(off) (&events_text[off])
#else
/* The image carries names, codes and constraints only; sources, descriptions and errata are
 * in the host program and docs/events.md. */
#define TEXT(off) ((void)(off), "")
#endif

static struct {
	bool ready;
	struct event_set sets[EV_MAX_SETS];
	bool built[EV_MAX_SETS];
	size_t pool_used, names_used;	/* events_pool / events_namebuf handed out, never reused */
	struct ibs_event_def ibs[EV_MAX_IBS];
} T;

static const char *str(uint16_t off)
{
	return &events_strs[off];
}

static void init(void)
{
	if (T.ready)
		return;
	for (size_t i = 0; i < events_set_recs_n; i++) {
		const struct ev_set_rec *r = &events_set_recs[i];
		T.sets[i] = (struct event_set){ .key = str(r->key), .name = str(r->name), .amd = r->amd != 0,
						 .perf = str(r->perf), .vendor_name = str(r->vendor_name),
						 .family = r->family };
	}
	for (size_t i = 0; i < events_ibs_recs_n; i++) {
		const struct ev_ibs_rec *r = &events_ibs_recs[i];
		T.ibs[i] = (struct ibs_event_def){ r->code, str(r->name), str(r->abbrev), TEXT(r->desc) };
	}
	T.ready = true;
}

/* "PREFIX.LAST" (or "LAST") into the name buffer; NULL when it is full. */
static const char *join_name(const struct ev_rec *e)
{
	const char *pre = &events_name_pre[e->name_pre], *last = &events_name_last[e->name_last];
	size_t np = strlen(pre), nl = strlen(last), need = np + (np ? 1 : 0) + nl + 1;
	if (T.names_used + need > events_namebuf_cap)
		return NULL;
	char *d = &events_namebuf[T.names_used];
	memcpy(d, pre, np);
	if (np)
		d[np] = '.';
	memcpy(d + np + (np ? 1 : 0), last, nl + 1);
	T.names_used += need;
	return d;
}

static void fill(struct event_def *d, const struct ev_rec *e, const char *name, const struct ev_set_rec *set)
{
	const struct ev_extra *x = &events_extra[e->extra];
	*d = (struct event_def){
		.name = name,
		.event = e->event,
		.umask = e->umask,
		.cmask = e->cmask,
		.inv = (e->flags & EVF_INV) != 0,
		.edge = (e->flags & EVF_EDGE) != 0,
		.any = (e->flags & EVF_ANY) != 0,
		.counters = e->counters,
		.fixed = e->fixed,
		.precise = (e->flags & EVF_PRECISE) != 0,
		.roles = 0,
		.source = TEXT(set->doc),
		.desc = "",
		.fixed_only = (e->flags & EVF_FIXED_ONLY) != 0,
		.counters_htoff = e->htoff,
		.umask_ext = e->umask_ext,
		.pebs2 = (e->flags & EVF_PEBS2) != 0,
		.taken_alone = (e->flags & EVF_TAKEN_ALONE) != 0,
		.pair = (e->flags & EVF_PAIR) != 0,
		.deprecated = (e->flags & EVF_DEPRECATED) != 0,
		.msr = x->msr,
		.msr_alt = x->msr_alt,
		.msr_value = x->value,
		.has_alt = x->has_alt != 0,
		.alt_event = x->alt_event,
		.alt_umask = x->alt_umask,
		.errata = TEXT(e->errata),
	};
}

/*
 * Give set i its events the first time anyone asks for the set.  The pool holds every set on
 * the host and the largest set plus a little in the image, which only uses the set of the CPU
 * it runs on (and perhaps a fallback); a set that no longer fits is returned with no events.
 */
static const struct event_set *build(size_t i)
{
	const struct ev_set_rec *r = &events_set_recs[i];
	struct event_set *s = &T.sets[i];
	size_t names_mark = T.names_used;

	if (T.built[i] || T.pool_used + r->n > events_pool_cap)
		return s;
	struct event_def *d = &events_pool[T.pool_used];
	for (size_t k = 0; k < r->n; k++) {
		const struct ev_rec *e = &events_recs[events_idx[r->first + k]];
		const char *name = join_name(e);
		if (!name) {
			T.names_used = names_mark;	/* give back what this set took */
			return s;
		}
		fill(&d[k], e, name, r);
	}
	for (size_t k = 0; k < r->notes_n; k++) {
		const struct ev_note *nt = &events_notes[r->notes_first + k];
		d[nt->index].roles = nt->roles;
		d[nt->index].source = TEXT(nt->source);
		d[nt->index].desc = TEXT(nt->desc);
	}
	T.pool_used += r->n;
	s->events = d;
	s->n = r->n;
	T.built[i] = true;
	return s;
}

/* The index of set in T.sets, or -1. */
static long set_index(const struct event_set *set)
{
	if (set < T.sets || set >= T.sets + events_set_recs_n)
		return -1;
	return (long)(set - T.sets);
}

size_t events_set_count(void)
{
	return events_set_recs_n;
}

const struct event_set *events_set_at(size_t i)
{
	if (i >= events_set_recs_n)
		return NULL;
	init();
	return build(i);
}

const struct event_set *events_set_find(const char *key)
{
	if (!key)
		return NULL;
	for (size_t i = 0; i < events_set_recs_n; i++)
		if (!lc_strcasecmp(str(events_set_recs[i].key), key))
			return events_set_at(i);
	return NULL;
}

const struct event_def *events_find(const struct event_set *set, const char *name)
{
	if (!set || !name)
		return NULL;
	for (size_t i = 0; i < set->n; i++)
		if (!lc_strcasecmp(set->events[i].name, name))
			return &set->events[i];
	return NULL;
}

long events_role_row(const struct event_set *set, size_t i)
{
	long si = set ? set_index(set) : -1;
	if (si < 0 || !set->events || i >= events_set_recs[si].notes_n)
		return -1;
	return events_notes[events_set_recs[si].notes_first + i].index;
}

/* In the hand-written rows' order, so the role file decides which event plays a role first. */
const struct event_def *events_for_role(const struct event_set *set, uint32_t role)
{
	long idx;
	if (!set || !role)
		return NULL;
	for (size_t i = 0; (idx = events_role_row(set, i)) >= 0; i++)
		if ((set->events[idx].roles & role) == role)
			return &set->events[idx];
	return NULL;
}

bool events_code_rule(const struct event_set *set, uint16_t event, uint8_t umask, struct event_rule *out)
{
	long si = set ? set_index(set) : -1;
	const struct ev_code_rule *code = NULL, *both = NULL;

	memset(out, 0, sizeof(*out));
	if (si < 0)
		return false;
	const struct ev_set_rec *r = &events_set_recs[si];
	for (size_t i = 0; i < r->rules_n && !both; i++) {
		const struct ev_code_rule *c = &events_code_rules[events_code_rule_idx[r->rules_first + i]];
		if (c->event != event)
			continue;
		if (c->flags & EVR_CODE_ONLY)
			code = c;
		else if (c->umask == umask)
			both = c;
	}
	const struct ev_code_rule *c = both ? both : code;
	if (!c)
		return false;
	out->counters = c->counters;
	out->counters_htoff = c->htoff;
	out->none = (c->flags & EVR_NONE) != 0;
	out->taken_alone = (c->flags & EVR_TAKEN_ALONE) != 0;
	out->by_umask = c == both;
	return true;
}

/* Population count of a unit mask. */
static unsigned umask_bits(uint8_t u)
{
	unsigned n = 0;
	for (; u; u &= (uint8_t)(u - 1))
		n++;
	return n;
}

static bool umask_passes(uint8_t test, uint8_t umask)
{
	switch (test) {
	case EV_UMASK_ONE_BIT: return umask_bits(umask) <= 1;
	case EV_UMASK_MANY_BITS: return umask_bits(umask) > 1;
	case EV_UMASK_BOTH_NIBBLES: return (umask & 0xF0) && (umask & 0x0F);
	default: return true;
	}
}

bool events_amd_rule(unsigned family, uint16_t event, uint8_t umask, struct event_rule *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < events_amd_rules_n; i++) {
		const struct ev_amd_rule *r = &events_amd_rules[i];
		if (family < r->family || family > r->last_family || (event & r->mask) != r->event ||
		    !umask_passes(r->umask_test, umask))
			continue;
		out->counters = r->counters;
		out->none = (r->flags & EVR_NONE) != 0;
		out->pair = (r->flags & EVR_PAIR) != 0;
		out->by_umask = r->umask_test != EV_UMASK_ANY;
		return true;
	}
	return false;
}

size_t ibs_events_count(void)
{
	return events_ibs_recs_n;
}

const struct ibs_event_def *ibs_event_at(size_t i)
{
	if (i >= events_ibs_recs_n)
		return NULL;
	init();
	return &T.ibs[i];
}

const struct ibs_event_def *ibs_event_find(uint16_t code)
{
	for (size_t i = 0; i < events_ibs_recs_n; i++)
		if (events_ibs_recs[i].code == code)
			return ibs_event_at(i);
	return NULL;
}

const char *events_role_name(uint32_t role_bit)
{
	for (unsigned i = 0; i < 32; i++)
		if (role_bit == (1u << i))
			return role_word(i);
	return NULL;
}

uint32_t events_role_parse(const char *word)
{
	const char *w;
	for (unsigned i = 0; word && (w = role_word(i)); i++)
		if (!lc_strcasecmp(w, word))
			return 1u << i;
	return 0;
}
