/* bench/instr_events.c - the µop events of an instruction form's kernel; see instr_events.h. */
#include "bench/instr_events.h"
#include "lib/strbuf.h"

/* The slot of u's kind and port, made the first time; INSTR_UOP_SLOTS when full. */
static size_t slot_for(struct instr_events *ie, const struct event_uop *u)
{
	size_t s = 0;
	while (s < ie->nslot && (ie->slot[s].kind != u->kind || strcmp(ie->slot[s].port, u->port)))
		s++;
	if (s == ie->nslot && s < INSTR_UOP_SLOTS) {
		ie->slot[s].kind = (uint8_t)u->kind;
		memcpy(ie->slot[s].port, u->port, sizeof(u->port));
		ie->nslot++;
	}
	return s;
}

void instr_events_init(struct instr_events *ie, const struct event_set *set, const struct count_backend *cb,
		       const char *no_count_why)
{
	struct event_uop u;
	bool kinds = false, ports = false;

	memset(ie, 0, sizeof(*ie));
	if (!cb || !set) {
		snprintf(ie->uops_why, sizeof(ie->uops_why), "no counters: %s",
			 !cb ? (no_count_why && no_count_why[0] ? no_count_why : "counting is not available")
			     : "identification names no event set for this CPU");
		memcpy(ie->ports_why, ie->uops_why, sizeof(ie->ports_why));
		return;
	}
	for (size_t i = 0; events_uop_at(set, i, &u); i++) {
		struct event_spec *sp = &ie->set.ev[ie->set.n];
		char err[64];
		/* By name, so the spec carries the catalogue row's counter limits like every named event. */
		if (ie->set.n == COUNT_MAX_EVENTS ||
		    !event_spec_parse(set, set->amd, u.def.name, strlen(u.def.name), sp, err, sizeof(err)))
			continue;
		size_t s = slot_for(ie, &u);
		if (s == INSTR_UOP_SLOTS)
			continue;
		ie->slot_of[ie->set.n++] = (uint8_t)s;
		*(u.kind == EV_UOP_PORT ? &ports : &kinds) = true;
	}
	if (!kinds)
		snprintf(ie->uops_why, sizeof(ie->uops_why),
			 "no uop events: the event catalogue names none for %s (%s; events/uops.csv)", set->key,
			 set->name);
	if (!ports)
		snprintf(ie->ports_why, sizeof(ie->ports_why),
			 "no port events: the vendor data of %s (%s) has no per-port or per-pipe dispatch events",
			 set->key, set->name);
}

struct count_set *instr_events_set(struct instr_events *ie) { return ie && ie->set.n ? &ie->set : NULL; }

void instr_events_take(const struct instr_events *ie, struct bench_figures *f, unsigned per_iter,
		       struct instr_uops *out)
{
	bool some = false;

	memset(out, 0, sizeof(*out));
	if (ie->judge)
		ie->judge(ie->judge_ctx, &ie->set, f);
	for (size_t s = 0; s < INSTR_UOP_SLOTS; s++)
		out->v[s] = s < ie->nslot ? 0 : INSTR_UOP_NONE;
	if (f->nev != ie->set.n) {
		snprintf(out->why, sizeof(out->why), "not counted: %.100s",
			 f->problem[0] ? f->problem : "counting failed");
		return;
	}
	/* A slot with one event not measured (the audit refused its counter, counting stopped) has no figure. */
	for (size_t i = 0; i < f->nev; i++) {
		int64_t *v = &out->v[ie->slot_of[i]];
		if (!f->ev[i].measured || !f->ev[i].fig.n)
			*v = INSTR_UOP_NONE;
		else if (*v != INSTR_UOP_NONE)
			*v += f->ev[i].fig.median / (per_iter ? per_iter : 1);
	}
	for (size_t s = 0; s < ie->nslot; s++)
		some = some || out->v[s] != INSTR_UOP_NONE;
	out->counted = some;
	if (!some)
		snprintf(out->why, sizeof(out->why), "not counted: %.100s",
			 f->problem[0]	    ? f->problem
			 : f->ev[0].invalid ? f->ev[0].invalid
					    : "no sample kept");
}
