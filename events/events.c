/*
 * events/events.c - lookups over the generated event tables.
 *
 * The tables come from events/ through tools/gen_events.py in a packed form (events_table.h
 * says which and why); this file decodes a row into the caller's struct event_def when asked.
 * Sets hold a few hundred events and lookups are rare (configuration, listings), so every
 * lookup is a walk in table order; events_for_role follows the hand-written rows' order, so
 * the role files decide which event plays a role first.
 */
#include "events/events.h"
#include "events/events_table.h"
#include "lib/heap.h"
#include "lib/record.h"

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

/* The lists a set has (struct ev_set_rec). */
enum { LIST_EVENTS, LIST_RULES };

static struct {
	enum { CAT_UNTRIED, CAT_READY, CAT_NONE } state;
	struct event_set sets[EV_MAX_SETS];
	struct ibs_event_def ibs[EV_MAX_IBS];
} T;

static const char *str(uint16_t off)
{
	return &events_strs[off];
}

/* The sets' and IBS events' public structs, once the tables are in place. */
static void init(void)
{
	for (size_t i = 0; i < events_set_recs_n; i++) {
		const struct ev_set_rec *r = &events_set_recs[i];
		T.sets[i] = (struct event_set){ .key = str(r->key), .name = str(r->name), .n = r->events.n,
						 .amd = r->amd != 0, .perf = str(r->perf),
						 .vendor_name = str(r->vendor_name), .family = r->family };
	}
	for (size_t i = 0; i < events_ibs_recs_n; i++) {
		const struct ev_ibs_rec *r = &events_ibs_recs[i];
		T.ibs[i] = (struct ibs_event_def){ r->code, str(r->name), str(r->abbrev), TEXT(r->desc) };
	}
}

/*
 * Whether the tables can be read: the first call inflates the blob (events_table.h) into memory
 * that stays for the run.  Without the memory, or with a blob that does not inflate to the tables
 * the generator wrote (a damaged image), the catalogue is empty from then on: one error record
 * says why, and every lookup finds nothing, which callers already meet on a CPU with no event set.
 * Every public entry point that reads a table comes through here.
 */
static bool catalogue_ready(void)
{
	if (T.state == CAT_UNTRIED) {
		size_t room = unlz_tables_room(&events_blob);
		uint8_t *buf = heap_alloc(room, EV_TABLE_ALIGN);
		enum unlz_status st = buf ? unlz_tables(&events_blob, buf, room) : UNLZ_NO_MEMORY;
		if (st == UNLZ_OK) {
			events_tables_place(buf);
			init();
		} else {
			rec_error("events", "catalogue", "no event tables: %s (%u bytes stored, %zu needed to inflate)",
				  unlz_status_name(st), (unsigned)events_blob.stream_n, room);
		}
		T.state = st == UNLZ_OK ? CAT_READY : CAT_NONE;
	}
	return T.state == CAT_READY;
}

bool events_ready(void)
{
	return catalogue_ready();
}

/* The index of set in T.sets, or -1.  A set is one of T.sets only once the catalogue is ready, so
 * the entry points taking a set reach the tables only through catalogue_ready(). */
static long set_index(const struct event_set *set)
{
	if (!set || set < T.sets || set >= T.sets + events_set_recs_n)
		return -1;
	return (long)(set - T.sets);
}

static const struct ev_list *list_of(size_t set, unsigned which)
{
	const struct ev_set_rec *r = &events_set_recs[set];
	return which == LIST_RULES ? &r->rules : &r->events;
}

/* One op at events_ops[*at]: its kind, run length and (EV_OP_ROWS) first row; *at moves past it. */
static unsigned read_op(size_t *at, size_t *n, uint16_t *start)
{
	uint8_t b = events_ops[(*at)++];
	unsigned kind = b >> EV_OP_SHIFT;
	*n = (b & EV_OP_RUN_MASK) + 1u;
	*start = 0;
	if (kind == EV_OP_ROWS) {
		*start = (uint16_t)(events_ops[*at] | events_ops[*at + 1] << 8);
		*at += 2;
	}
	return kind;
}

/* Entry i of a set's list (a row of events_rows or a rule of events_code_rules), or -1: the ops
 * are walked until i falls in a run; a COPY run sends the walk to the same place in the base. */
static long list_at(size_t set, unsigned which, size_t i)
{
	for (unsigned depth = 0; depth < EV_LIST_MAX_DEPTH; depth++) {
		const struct ev_list *l = list_of(set, which);
		size_t pos = 0, bpos = 0, at = l->ops, end = (size_t)l->ops + l->ops_n, n;
		uint16_t fresh = l->fresh, start;
		bool to_base = false;

		if (i >= l->n)
			return -1;
		while (at < end && !to_base) {
			unsigned kind = read_op(&at, &n, &start);
			if (kind == EV_OP_SKIP) {
				bpos += n;
				continue;
			}
			if (i < pos + n) {
				if (kind != EV_OP_COPY)
					return (long)(kind == EV_OP_FRESH ? fresh : start) + (long)(i - pos);
				i = bpos + (i - pos);
				to_base = true;
				continue;
			}
			pos += n;
			if (kind == EV_OP_COPY)
				bpos += n;
			else if (kind == EV_OP_FRESH)
				fresh = (uint16_t)(fresh + n);
		}
		if (!to_base || l->base == EV_NO_BASE)
			return -1;
		set = l->base;
	}
	return -1;
}

/* The list iterator (struct events_iter, used for rules too): level k walks the list of
 * level[k].set, and level k + 1 that of its base, in step. */
static void iter_start(struct events_iter *it, size_t set, unsigned which)
{
	memset(it, 0, sizeof(*it));
	it->list = (uint8_t)which;
	for (size_t s = set; it->depth < EVENTS_ITER_DEPTH; it->depth++) {
		struct events_iter_level *L = &it->level[it->depth];
		L->set = (uint8_t)s;
		L->fresh = list_of(s, which)->fresh;
		s = list_of(s, which)->base;
		if (s == EV_NO_BASE) {
			it->depth++;
			break;
		}
	}
}

/* The next entry of level k's list, or -1 at its end. */
static long iter_level_next(struct events_iter *it, unsigned k)
{
	if (k >= it->depth)
		return -1;
	struct events_iter_level *L = &it->level[k];
	const struct ev_list *l = list_of(L->set, it->list);
	while (!L->left) {
		size_t at = (size_t)l->ops + L->op, n;
		uint16_t start;
		if (L->op >= l->ops_n)
			return -1;
		L->kind = (uint8_t)read_op(&at, &n, &start);
		L->op = (uint16_t)(at - l->ops);
		L->row = start;
		if (L->kind == EV_OP_SKIP) {
			for (; n; n--)
				if (iter_level_next(it, k + 1) < 0)
					return -1;
			continue;
		}
		L->left = (uint8_t)n;
	}
	L->left--;
	if (L->kind == EV_OP_COPY)
		return iter_level_next(it, k + 1);
	return L->kind == EV_OP_FRESH ? L->fresh++ : L->row++;
}

/* Appends name part p (token codes, tools/events_pack.py) to out[*w ..]; names fit EVENT_NAME_MAX. */
static void part_text(uint16_t p, char *out, size_t *w)
{
	const uint8_t *c = &events_part_codes[events_part_at[p]];
	while (*c) {
		unsigned rank;
		if (*c >= EV_TOKEN_TWO_BYTE_LEAD) {
			rank = EV_TOKEN_ONE_BYTE + ((unsigned)(c[0] - EV_TOKEN_TWO_BYTE_LEAD) << 8 | c[1]);
			c += 2;
		} else {
			rank = *c++ - 1u;
		}
		for (uint16_t k = events_token_at[rank]; k < events_token_at[rank + 1] && *w < EVENT_NAME_MAX - 1; k++)
			out[(*w)++] = events_token_text[k];
	}
	out[*w] = 0;
}

/* "PREFIX.LAST" (or "LAST") of a row. */
static void row_name(const struct ev_row *r, char *out)
{
	size_t w = 0;
	out[0] = 0;
	if (r->pre) {
		part_text((uint16_t)r->pre, out, &w);
		if (w < EVENT_NAME_MAX - 1)
			out[w++] = '.';
	}
	part_text((uint16_t)r->last, out, &w);
}

/* Row `row`, event `index` of set `set`, into *d. */
static void decode(size_t set, size_t index, long row, struct event_def *d)
{
	const struct ev_set_rec *s = &events_set_recs[set];
	const struct ev_row *r = &events_rows[row];
	const struct ev_side *x = &events_side[r->side];
	const struct ev_limits *lim = &events_limits[r->limits];
	const struct ev_offcore *oc = &events_offcore[x->offcore];

	memset(d, 0, sizeof(*d));
	row_name(r, d->name);
	d->index = (uint16_t)index;
	d->event = (uint16_t)(r->event | x->event_hi << 8);
	d->umask = (uint8_t)r->umask;
	d->cmask = (uint8_t)x->cmask;
	d->inv = (x->enc & EVS_INV) != 0;
	d->edge = (x->enc & EVS_EDGE) != 0;
	d->any = (x->enc & EVS_ANY) != 0;
	d->counters = lim->counters;
	d->fixed = x->fixed ? (int8_t)(x->fixed - 1) : EV_NO_FIXED;
	d->precise = (r->flags & EVF_PRECISE) != 0;
	d->source = TEXT(s->doc);
	d->desc = "";
	d->fixed_only = (r->flags & EVF_FIXED_ONLY) != 0;
	d->counters_htoff = lim->htoff;
	d->umask_ext = (uint8_t)x->umask_ext;
	d->pebs2 = (r->flags & EVF_PEBS2) != 0;
	d->taken_alone = (r->flags & EVF_TAKEN_ALONE) != 0;
	d->pair = (r->flags & EVF_PAIR) != 0;
	d->deprecated = (r->flags & EVF_DEPRECATED) != 0;
	d->msr = oc->msr;
	d->msr_alt = oc->msr_alt;
	d->msr_value = (uint64_t)events_msr_hi[x->value_hi] << 32 | events_msr_lo[x->value_lo];
	d->has_alt = oc->has_alt != 0;
	if (d->has_alt) {
		d->alt_event = (uint8_t)(r->event + oc->alt_event);
		d->alt_umask = (uint8_t)(r->umask + oc->alt_umask);
	}
#ifdef PMUBOOT_HOSTED
	d->errata = TEXT(events_side_errata[r->side]);
#else
	d->errata = "";
#endif
	for (size_t k = 0; k < s->notes_n; k++) {
		const struct ev_note *nt = &events_notes[s->notes_first + k];
		if (nt->index != index)
			continue;
		d->roles = nt->roles;
#ifdef PMUBOOT_HOSTED
		d->source = TEXT(events_note_text[s->notes_first + k].source);
		d->desc = TEXT(events_note_text[s->notes_first + k].desc);
#endif
		break;
	}
}

size_t events_set_count(void)
{
	return catalogue_ready() ? events_set_recs_n : 0;
}

const struct event_set *events_set_at(size_t i)
{
	if (!catalogue_ready() || i >= events_set_recs_n)
		return NULL;
	return &T.sets[i];
}

const struct event_set *events_set_find(const char *key)
{
	if (!key || !catalogue_ready())
		return NULL;
	for (size_t i = 0; i < events_set_recs_n; i++)
		if (!lc_strcasecmp(str(events_set_recs[i].key), key))
			return events_set_at(i);
	return NULL;
}

bool events_at(const struct event_set *set, size_t i, struct event_def *out)
{
	long si = set_index(set), row = si < 0 ? -1 : list_at((size_t)si, LIST_EVENTS, i);
	if (row < 0)
		return false;
	decode((size_t)si, i, row, out);
	return true;
}

void events_iter_start(struct events_iter *it, const struct event_set *set)
{
	long si = set_index(set);
	if (si < 0) {
		memset(it, 0, sizeof(*it));
		return;
	}
	iter_start(it, (size_t)si, LIST_EVENTS);
	it->set = set;
}

bool events_next(struct events_iter *it, struct event_def *out)
{
	long si = set_index(it->set), row;
	if (si < 0 || it->next >= it->set->n || (row = iter_level_next(it, 0)) < 0)
		return false;
	decode((size_t)si, it->next++, row, out);
	return true;
}

bool events_find(const struct event_set *set, const char *name, struct event_def *out)
{
	struct events_iter it;
	long si = set_index(set), row;
	char cand[EVENT_NAME_MAX];

	if (si < 0 || !name)
		return false;
	iter_start(&it, (size_t)si, LIST_EVENTS);
	for (size_t i = 0; i < set->n && (row = iter_level_next(&it, 0)) >= 0; i++) {
		row_name(&events_rows[row], cand);
		if (lc_strcasecmp(cand, name))
			continue;
		if (out)
			decode((size_t)si, i, row, out);
		return true;
	}
	return false;
}

long events_role_row(const struct event_set *set, size_t i)
{
	long si = set_index(set);
	if (si < 0 || i >= events_set_recs[si].notes_n)
		return -1;
	return events_notes[events_set_recs[si].notes_first + i].index;
}

/* In the hand-written rows' order, so the role file decides which event plays a role first. */
bool events_for_role(const struct event_set *set, uint32_t role, struct event_def *out)
{
	long si = set_index(set);
	if (si < 0 || !role)
		return false;
	for (size_t k = 0; k < events_set_recs[si].notes_n; k++) {
		const struct ev_note *nt = &events_notes[events_set_recs[si].notes_first + k];
		if ((nt->roles & role) == role)
			return events_at(set, nt->index, out);
	}
	return false;
}

bool events_uop_at(const struct event_set *set, size_t i, struct event_uop *out)
{
	long si = set_index(set);
	if (si < 0)
		return false;
	for (size_t k = 0; k < events_uops_n; k++) {
		const struct ev_uop *u = &events_uops[k];
		if (u->set != si || i--)
			continue;
		out->kind = (enum event_uop_kind)u->kind;
		snprintf(out->port, sizeof(out->port), "%s", events_strs + u->port);
		return events_at(set, u->index, &out->def);
	}
	return false;
}

const char *events_uop_kind_name(enum event_uop_kind kind)
{
	static const char names[][11] = { "retired", "issued", "dispatched", "port" };
	return (unsigned)kind < ARRAY_SIZE(names) ? names[kind] : NULL;
}

void events_row_limits(const struct event_def *d, struct event_row_limits *out)
{
	*out = (struct event_row_limits){ .found = true, .counters = d->counters,
					   .counters_htoff = d->counters_htoff, .taken_alone = d->taken_alone,
					   .pair = d->pair };
}

bool events_code_rule(const struct event_set *set, uint16_t event, uint8_t umask, struct event_rule *out)
{
	long si = set_index(set), k;
	const struct ev_code_rule *code = NULL, *both = NULL;
	struct events_iter it;

	memset(out, 0, sizeof(*out));
	if (si < 0)
		return false;
	iter_start(&it, (size_t)si, LIST_RULES);
	for (size_t i = 0; i < events_set_recs[si].rules.n && !both && (k = iter_level_next(&it, 0)) >= 0; i++) {
		const struct ev_code_rule *c = &events_code_rules[k];
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
	if (!catalogue_ready())
		return false;
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
	return catalogue_ready() ? events_ibs_recs_n : 0;
}

const struct ibs_event_def *ibs_event_at(size_t i)
{
	if (!catalogue_ready() || i >= events_ibs_recs_n)
		return NULL;
	return &T.ibs[i];
}

const struct ibs_event_def *ibs_event_find(uint16_t code)
{
	if (!catalogue_ready())
		return NULL;
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
