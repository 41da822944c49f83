/* bench/instr_record.c - the instr record of one form and its line; see instr_record.h. */
#include "bench/instr_record.h"
#include "lib/out.h"
#include "lib/record.h"
#include "lib/strbuf.h"

#define MILLI 1000
/*
 * A chain link under this (thousandths of a cycle) went through no execution unit, the fastest of which takes
 * one cycle: the core resolved it at rename (Raptor Cove does so for a chain of `add r64, imm8`: 0.19 cycles
 * measured, where `add r32, imm8` reads 1.00).  The record says so, so that the figure is read as what the core
 * does.  Nine tenths: the noise of a one-cycle figure stays well above it.
 */
#define RENAMED_LINK_MILLI 900
#define RENAMED_LINK_NOTE "under a cycle: no execution unit is that fast, the core resolved the chain at rename"
/*
 * A direct chain whose every sample ran under half a cycle a link: the renamer took most links, and a link it
 * takes adds no latency at all (the next instruction reads the renamed register at once), so the latency is 0,
 * as uops.info and Agner Fog's tables give an eliminated move.  The rate the chain ran at is the renamer's
 * width, not a latency: the record keeps it as `chain_rate`.  A one-cycle link has not read under 0.8 in any
 * full table on the development host, however busy its sibling.
 */
#define RENAMED_ZERO_MILLI 500
#define RENAMED_ZERO_NOTE \
	"resolved at rename: no execution unit on the chain, so no latency; chain_rate is the " \
	"renamer's rate"

/* Thousandths as text with two decimals, rounded ("1.00", "-0.25"): the image formats no floating point. */
static const char *cents(char buf[24], int64_t milli)
{
	bool neg = milli < 0;
	uint64_t a = (uint64_t)(neg ? -milli : milli), c = (a + 5) / 10;
	snprintf(buf, 24, "%s%llu.%02llu", neg ? "-" : "", (unsigned long long)(c / 100),
		 (unsigned long long)(c % 100));
	return buf;
}

static const char *vector_name(unsigned v)
{
	static const char names[][5] = { "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "CSO",
					 "#TS", "#NP", "#SS", "#GP", "#PF", "?",   "#MF", "#AC", "#MC", "#XM" };
	return v < ARRAY_SIZE(names) ? names[v] : "?";
}

static void figure_values(struct rec *rec, int64_t cycles, int64_t lo, int64_t hi, const char *unstable)
{
	rec_milli(rec, "cycles", cycles);
	rec_obj(rec, "spread");
	rec_milli(rec, "min", lo);
	rec_milli(rec, "max", hi);
	rec_obj_end(rec);
	rec_str(rec, "unstable", unstable);
}

static void figure_fields(struct rec *rec, const struct instr_result *r)
{
	figure_values(rec, r->per_instance, r->lo, r->hi, r->unstable);
}

/* Thousandths rounded to hundredths, the precision µop counts are given in. */
static int64_t hundredths(int64_t milli) { return (milli < 0 ? milli - 5 : milli + 5) / 10 * 10; }

/*
 * The slots of one side ("uops": retired, issued, dispatched; "ports": each port group) as an object,
 * and on the line the figures (ports that took no µop left out), or null with why.  Returns the line's
 * length.
 */
static size_t uop_side(struct rec *rec, bool ports, const struct instr_events *ie, const struct instr_result *tp,
		       char *line, size_t cap, size_t k)
{
	const char *key = ports ? "ports" : "uops";
	char num[24];
	bool any = false;

	for (size_t s = 0; ie && tp && tp->uops.counted && s < ie->nslot; s++) {
		const struct instr_uop_slot *sl = &ie->slot[s];
		int64_t v = tp->uops.v[s];
		if ((sl->kind == EV_UOP_PORT) != ports)
			continue;
		if (!any) {
			rec_obj(rec, key);
			k = str_appendf(line, cap, k, ports ? "  ports" : "  uops");
			any = true;
		}
		const char *name = ports ? sl->port : events_uop_kind_name((enum event_uop_kind)sl->kind);
		if (v == INSTR_UOP_NONE) {
			rec_null(rec, name);
			continue;
		}
		rec_milli(rec, name, hundredths(v));
		if (!ports || hundredths(v))
			k = str_appendf(line, cap, k, ports ? " %s:%s" : " %.1s%s", name, cents(num, v));
	}
	if (any)
		rec_obj_end(rec);
	else
		rec_null(rec, key);
	return k;
}

/* Why one side is null ("" when it is not). */
static const char *uop_why(bool ports, const struct instr_events *ie, const struct instr_result *tp)
{
	if (!ie)
		return "no counters: the measurement was not given the core's events";
	if ((ports ? ie->ports_why : ie->uops_why)[0])
		return ports ? ie->ports_why : ie->uops_why;
	if (!tp)
		return "not counted: the unrolled throughput kernel, on which they are counted, was not measured";
	return tp->uops.counted ? "" : tp->uops.why;
}

/* uops, ports, uops_why, ports_why; returns the line's length. */
static size_t uops_fields(struct rec *rec, const struct instr_events *ie, const struct instr_result *tp, char *line,
			  size_t cap, size_t k)
{
	for (int ports = 0; ports < 2; ports++)
		k = uop_side(rec, ports, ie, tp, line, cap, k);
	for (int ports = 0; ports < 2; ports++) {
		const char *why = uop_why(ports, ie, tp);
		rec_str(rec, ports ? "ports_why" : "uops_why", why[0] ? why : NULL);
	}
	return k;
}

/*
 * The throughput kernels, in the order the record names them; the lowest figure is reported, an earlier
 * kind on a tie (the broken run only when it is lower: it includes its resets).
 */
static const struct {
	enum ikm_kind kind;
	const char *how;
} TP_KINDS[] = { { IKM_TP_UNROLLED, "unrolled" }, { IKM_TP_LOOP, "loop" }, { IKM_TP_BROKEN, "broken" } };

/* The figures of one form, its record and its line. */
bool instr_record_emit(const struct instr_pack_form *p, const struct instr_result *res,
		       const struct instr_record_ctx *c, int64_t seconds_milli)
{
	static struct rec rec;
	const struct instr_result *fault = NULL, *tp[ARRAY_SIZE(TP_KINDS)] = { NULL }, *id_l = NULL, *id_t = NULL;
	char line[512], why[IKP_TEXT_MAX], num[24];
	size_t k = 0, figures = 0;
	const char *unstable = NULL;

	why[0] = 0;
	for (size_t j = 0; j < p->n; j++)
		if (res[j].faulted && !fault)
			fault = &res[j];
	rec_start(&rec, "instr");
	rec_str(&rec, "asm", p->asm_name);
	rec_str(&rec, "iform", p->iform);
	rec_str(&rec, "extension", p->extension);
	rec_str(&rec, "isa_set", p->isa_set);
	k = str_appendf(line, sizeof(line), k, "instr %-28s", p->asm_name);
	rec_arr(&rec, "latency");
	for (size_t j = 0; j < p->n; j++) {
		const struct instr_pack_meas *m = &p->m[j];
		const struct instr_result *r = &res[j];
		for (size_t t = 0; t < ARRAY_SIZE(TP_KINDS); t++)
			if (m->kind == TP_KINDS[t].kind && r->measured)
				tp[t] = r;
		if (m->kind == IKM_IDIOM_LATENCY)
			id_l = r;
		if (m->kind == IKM_IDIOM_TP)
			id_t = r;
		if (m->kind != IKM_LATENCY)
			continue;
		rec_obj(&rec, NULL);
		rec_str(&rec, "from", m->from);
		rec_str(&rec, "to", m->to);
		/* An emulator's time says nothing of a renamer: its figures stay as measured, with no such note. */
		const bool renamed =
			!c->emulated && r->measured && m->bound == IKM_EXACT && !m->via && r->hi < RENAMED_ZERO_MILLI;
		if (renamed) {
			figure_values(&rec, 0, 0, 0, r->unstable);
			rec_milli(&rec, "chain_rate", r->per_instance);
		} else if (r->measured) {
			figure_fields(&rec, r);
			rec_null(&rec, "chain_rate");
		} else {
			rec_null(&rec, "cycles");
			rec_str(&rec, "why", r->why[0] ? r->why : "not measured");
			rec_null(&rec, "chain_rate");
		}
		if (r->measured) {
			figures++;
			unstable = unstable ? unstable : r->unstable;
			k = str_appendf(line, sizeof(line), k, " %s->%s %s%s%s", m->from, m->to,
					m->bound == IKM_UPPER ? "<=" : "", cents(num, renamed ? 0 : r->per_instance),
					renamed ? " (renamed)" : "");
		}
		rec_str(&rec, "bound", m->bound == IKM_UPPER ? "upper" : "exact");
		rec_str(&rec, "via", m->via);
		const char *note = m->note;
		if (!note && !m->via && !c->emulated && r->measured && r->per_instance < RENAMED_LINK_MILLI)
			note = renamed ? RENAMED_ZERO_NOTE : RENAMED_LINK_NOTE;
		rec_str(&rec, "note", note);
		rec_obj_end(&rec);
	}
	rec_arr_end(&rec);
	rec_str(&rec, "latency_skipped", p->skipped);
	/* The connectors subtracted above, with their own figures (measured once per run). */
	rec_arr(&rec, "connectors");
	for (size_t j = 0; j < p->n; j++) {
		if (p->m[j].kind != IKM_CONNECTOR)
			continue;
		rec_obj(&rec, NULL);
		rec_str(&rec, "name", p->m[j].name);
		rec_str(&rec, "asm", p->m[j].via); /* the pack keeps a connector's first line as its via */
		if (res[j].measured) {
			rec_milli(&rec, "cycles", res[j].per_instance);
		} else {
			rec_null(&rec, "cycles");
			rec_str(&rec, "why", res[j].why[0] ? res[j].why : "not measured");
		}
		rec_obj_end(&rec);
	}
	rec_arr_end(&rec);
	/* The lowest of the unrolled run, the loop and, where a chain could not be avoided, the run breaking it. */
	size_t b = ARRAY_SIZE(TP_KINDS);
	for (size_t t = 0; t < ARRAY_SIZE(TP_KINDS); t++)
		if (tp[t] && (b == ARRAY_SIZE(TP_KINDS) || tp[t]->per_instance < tp[b]->per_instance))
			b = t;
	if (b < ARRAY_SIZE(TP_KINDS)) {
		const struct instr_result *best = tp[b];
		const char *how = TP_KINDS[b].how;
		rec_obj(&rec, "throughput");
		figure_fields(&rec, best);
		rec_str(&rec, "how", how);
		for (size_t t = 0; t < ARRAY_SIZE(TP_KINDS); t++)
			if (tp[t])
				rec_milli(&rec, TP_KINDS[t].how, tp[t]->per_instance);
			else
				rec_null(&rec, TP_KINDS[t].how);
		rec_str(&rec, "chain", p->chain);
		rec_obj_end(&rec);
		figures++;
		unstable = unstable ? unstable : best->unstable;
		k = str_appendf(line, sizeof(line), k, "  tp %s (%s)", cents(num, best->per_instance), how);
		rec_null(&rec, "throughput_why");
	} else {
		rec_null(&rec, "throughput");
		const char *tw = "no throughput kernel could be built";
		for (size_t j = 0; j < p->n; j++)
			for (size_t t = 0; t < ARRAY_SIZE(TP_KINDS); t++)
				if (p->m[j].kind == TP_KINDS[t].kind)
					tw = res[j].why[0] ? res[j].why : "not measured";
		rec_str(&rec, "throughput_why", tw);
	}
	const char *idiom = ikm_idiom_name((enum ikm_idiom)p->idiom);
	if (idiom) {
		rec_obj(&rec, "idiom");
		rec_str(&rec, "kind", idiom);
		if (id_l && id_l->measured)
			rec_milli(&rec, "latency", id_l->per_instance);
		else
			rec_null(&rec, "latency");
		if (id_t && id_t->measured)
			rec_milli(&rec, "throughput", id_t->per_instance);
		else
			rec_null(&rec, "throughput");
		rec_obj_end(&rec);
		if (id_l && id_l->measured)
			k = str_appendf(line, sizeof(line), k, "  [%s: same register %s]", idiom,
					cents(num, id_l->per_instance));
		else
			k = str_appendf(line, sizeof(line), k, "  [%s]", idiom);
	} else {
		rec_null(&rec, "idiom");
	}
	rec_str(&rec, "values", p->values);
	k = uops_fields(&rec, c->events, tp[0], line, sizeof(line), k); /* counted on the unrolled kernel */
	/* The harness converts ticks whenever it has a calibration, under an emulator too. */
	rec_str(&rec, "cycles_source", c->core_per_tsc_ppm > 0 ? "tsc_calibrated" : "tsc");
	rec_milli(&rec, "core_per_tsc", c->core_per_tsc_ppm / MILLI);
	if (fault) {
		bool timeout = fault->guard.outcome == HW_GUARD_TIMEOUT;
		const char *name = timeout ? "timeout" : vector_name(fault->guard.vector);
		rec_obj(&rec, "fault");
		if (timeout)
			rec_null(&rec, "vector");
		else
			rec_u64(&rec, "vector", fault->guard.vector);
		rec_str(&rec, "name", name);
		rec_str(&rec, "signal", timeout ? NULL : fault->guard.what);
		rec_hex(&rec, "rip", fault->guard.rip);
		rec_obj_end(&rec);
		if (timeout)
			snprintf(why, sizeof(why),
				 "still running after %u ms in its trial run, stopped (%s): not measured",
				 c->trial_bound_ms, c->watchdog ? c->watchdog : "?");
		else
			snprintf(why, sizeof(why), "faulted: %s (%s): not measured", name,
				 fault->guard.what ? fault->guard.what : "?");
		k = str_appendf(line, sizeof(line), k, "  %s %s", timeout ? "TIMEOUT" : "FAULT", name);
	} else {
		rec_null(&rec, "fault");
		if (p->why)
			snprintf(why, sizeof(why), "%s", p->why);
		else if (!figures)
			for (size_t j = 0; j < p->n && !why[0]; j++)
				if (res[j].why[0])
					snprintf(why, sizeof(why), "%s", res[j].why);
	}
	rec_str(&rec, "why", why[0] ? why : NULL);
	rec_str(&rec, "unstable", unstable);
	rec_bool(&rec, "emulated", c->emulated);
	rec_milli(&rec, "seconds", seconds_milli);
	rec_emit(&rec);
	if (why[0] && !fault)
		k = str_appendf(line, sizeof(line), k, "  not measured: %s", why);
	if (unstable)
		k = str_appendf(line, sizeof(line), k, "  (unstable: %s)", unstable);
	out_text("%s", line);
	return figures > 0;
}

bool instr_figure_thin(const struct bench_figure *fig, uint32_t asked)
{
	return fig->n < asked;
}
