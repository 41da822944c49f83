/*
 * events/events.c - lookups over the generated event tables.
 *
 * The tables come from the CSV files in events/ through tools/gen_events.py in a compact
 * form (events_table.h says why); this file turns them into the structs of events.h and
 * finds things in them.  Sets are small (tens of events), so every lookup is a linear scan
 * in table order, which is also what makes events_for_role deterministic: the CSV order
 * decides which event plays a role first.
 */
#include "events/events.h"
#include "events/events_table.h"

/* The words for enum event_role bits 0, 1, ... in order, as in tools/gen_events.py ROLES.
 * One string rather than an array of pointers: no relocations in the image. */
static const char role_words[] =
	"cycles\0instructions\0ref_cycles\0stlf_block\0stlf_ok\0sta_block\0std_block\0"
	"overlap_store\0alias_4k\0split_load\0split_store\0page_split_load\0page_split_store\0"
	"misalign\0loads\0stores\0smi\0hw_int\0";

/* The word for role bit i, or NULL past the last. */
static const char *role_word(unsigned i)
{
	const char *w = role_words;
	for (; *w && i; i--)
		w += strlen(w) + 1;
	return *w ? w : NULL;
}

#ifdef PMUBOOT_HOSTED
#define EV_POOL EV_POOL_HOSTED
#define TEXT(off) (&events_text[off])
#else
/* The image carries names and codes only; sources and descriptions are in the host program
 * and docs/events.md. */
#define EV_POOL EV_POOL_IMAGE
#define TEXT(off) ((void)(off), "")
#endif

static struct {
	bool ready;
	struct event_set sets[EV_MAX_SETS];
	bool built[EV_MAX_SETS];		/* sets[i].events holds its events */
	struct event_def pool[EV_POOL];		/* handed out once, never reused: pointers stay valid */
	size_t pool_used;
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
		T.sets[i] = (struct event_set){ .key = str(r->key), .name = str(r->name), .amd = r->amd != 0 };
	}
	for (size_t i = 0; i < events_ibs_recs_n; i++) {
		const struct ev_ibs_rec *r = &events_ibs_recs[i];
		T.ibs[i] = (struct ibs_event_def){ r->code, str(r->name), str(r->abbrev), TEXT(r->desc) };
	}
	T.ready = true;
}

/*
 * Give set i its events the first time anyone asks for the set.  The pool is sized for
 * every set on the host and for a few in the image, which only ever uses the set of the CPU
 * it runs on (and perhaps a fallback); a set that no longer fits is returned with no events.
 */
static const struct event_set *build(size_t i)
{
	const struct ev_set_rec *r = &events_set_recs[i];
	struct event_set *s = &T.sets[i];

	if (T.built[i] || T.pool_used + r->n > EV_POOL)
		return s;
	struct event_def *d = &T.pool[T.pool_used];
	for (size_t k = 0; k < r->n; k++) {
		const struct ev_rec *e = &events_recs[events_idx[r->first + k]];
		d[k] = (struct event_def){
			.name = str(e->name),
			.event = e->event,
			.umask = e->umask,
			.cmask = e->cmask,
			.inv = (e->flags & EVF_INV) != 0,
			.edge = (e->flags & EVF_EDGE) != 0,
			.any = (e->flags & EVF_ANY) != 0,
			.counters = e->counters,
			.fixed = e->fixed,
			.precise = (e->flags & EVF_PRECISE) != 0,
			.roles = e->roles,
			.source = TEXT(e->source),
			.desc = TEXT(e->desc),
			.fixed_only = (e->flags & EVF_FIXED_ONLY) != 0,
		};
	}
	T.pool_used += r->n;
	s->events = d;
	s->n = r->n;
	T.built[i] = true;
	return s;
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

const struct event_def *events_for_role(const struct event_set *set, uint32_t role)
{
	if (!set || !role)
		return NULL;
	for (size_t i = 0; i < set->n; i++)
		if ((set->events[i].roles & role) == role)
			return &set->events[i];
	return NULL;
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
