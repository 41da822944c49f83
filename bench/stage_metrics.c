/*
 * bench/stage_metrics.c - the top-down metrics of every measured row (docs/topdown.md).
 *
 * Once per stage: the core's table (pmu/metrics/metrics.h) and the inputs its formulas need, each turned
 * into what counts it (an event of the core's catalogue with its modifiers, a PERF_METRICS field) and put
 * into count sets the scheduler accepts: the PERF_METRICS fields with TOPDOWN.SLOTS in a set of their own,
 * the other events in sets of at most GROUP_EVENTS (room beside them for the ledger's SMI event), one ring
 * (SUP/USER) a set.  An input nothing here can count keeps the reason.  Then after each variant's bench
 * record, every set is measured on the variant exactly as its own events were (bench_run_variant: the same
 * iterations, samples, ledger, differential of an N and a 2N run, the audit's verdict), each input's figure
 * is its median per iteration, the constants come from the run (HYPERTHREADING_ON from the topology and
 * whether the sibling is parked, pmu/metrics/metrics.h metrics_smt_form; the TSC ticks and milliseconds of
 * one iteration), every metric is evaluated, and one `metrics` record is emitted, with the constants and
 * why, and a readable line.  A metric whose inputs came from different passes says so (`split`).
 */
#include "bench/stage_int.h"
#include "platform/timing.h"
#include "lib/heap.h"
#include "lib/out.h"
#include "lib/strbuf.h"
#include "cpu/topo.h"
#include "pmu/metrics/metrics.h"

#define INPUTS_MAX 256		/* inputs of one table: the largest (Granite Rapids) has 228 */
#define GROUP_EVENTS 16		/* events a count set is given: the harness adds the ledger's SMI event beside them */
#define GROUPS_MAX 32
#define WHY_POOL 6144
#define NO_GROUP (-1)
#define PASS_ID(g, p) ((uint16_t)((unsigned)(g) * COUNT_MAX_EVENTS + (p)))
/* The readable line: at most this many level 1 nodes (AMD has five). */
#define LINE_NODES 6

struct input {
	uint16_t input;		/* the index in pmu/metrics' list */
	int8_t group;		/* the count set it is counted in, or NO_GROUP */
	enum count_priv priv;
	const char *why;	/* why it has no value of its own (not counted here, a constant not supplied) */
	/* The variant being measured. */
	bool have;
	int64_t milli;		/* per iteration, thousandths */
	uint16_t pass;		/* PASS_ID of the pass that counted it */
	const char *why_now;	/* why this variant has no figure for it */
};

static struct metrics_stage {
	const struct metrics_table *t;
	bool on;
	size_t n;
	struct input in[INPUTS_MAX];
	struct event_spec *spec;	/* heap: one per input */
	int16_t *local;			/* heap: pmu/metrics input index -> in[] index, or -1 */
	unsigned ngroups;
	enum count_priv gpriv[GROUPS_MAX];
	bool extra_slots;		/* group 0 is the PERF_METRICS set, with a TOPDOWN.SLOTS of its own */
	struct event_spec slots;
	struct count_set *cs;		/* heap: the set being measured */
	struct bench_figures *gf;	/* heap: its figures */
	struct metrics_smt smt;		/* HYPERTHREADING_ON and THREADS_PER_CORE, and why */
	unsigned passes;		/* passes of all the sets: what a variant's metrics cost */
	bool retire_latency;		/* the table has retire-latency inputs: supplied as -1 */
	bool smt_used, threads_used;	/* the table names HYPERTHREADING_ON, THREADS_PER_CORE */
	char key[METRIC_NAME_MAX], source[METRIC_NAME_MAX];
	char pool[WHY_POOL];
	size_t used;
} ms;

/* A reason kept for the stage (the pool is reset with it); a general one when the pool is full. */
static const char *keep(const char *s)
{
	size_t n = strlen(s) + 1;
	if (ms.used + n > sizeof(ms.pool))
		return "not counted here (the reasons outgrew their pool)";
	memcpy(ms.pool + ms.used, s, n);
	ms.used += n;
	return ms.pool + ms.used - n;
}

/* The enabled threads of this core (processors in the same package and core), or -1 when not known. */
static int threads_of_this_core(const struct topology *t)
{
	struct topo_cpu me;
	const struct topo_cpu *e = NULL;
	if (!t || !t->n)
		return -1;
	memset(&me, 0, sizeof(me));
	topo_probe(&me);
	for (size_t i = 0; i < t->n && !e; i++)
		if (t->cpu[i].probed && t->cpu[i].cpuid_apic_id == me.cpuid_apic_id)
			e = &t->cpu[i];
	if (!e || e->package == TOPO_NONE || e->core == TOPO_NONE)
		return -1;
	unsigned threads = 0;
	for (size_t i = 0; i < t->n; i++)
		threads += t->cpu[i].enabled && t->cpu[i].package == e->package && t->cpu[i].core == e->core;
	return (int)threads;
}

static void build_set(unsigned g)
{
	struct count_set *cs = ms.cs;
	memset(cs, 0, sizeof(*cs));
	cs->priv = ms.gpriv[g];
	if (g == 0 && ms.extra_slots)
		cs->ev[cs->n++] = ms.slots;
	for (size_t i = 0; i < ms.n && cs->n < COUNT_MAX_EVENTS; i++)
		if (ms.in[i].group == (int8_t)g)
			cs->ev[cs->n++] = ms.spec[i];
}

/* Does group g with input i added still schedule?  (The schedulers only plan: nothing is written.) */
static bool fits(const struct stage *st, unsigned g, size_t i, char *err, size_t cap)
{
	ms.in[i].group = (int8_t)g;
	build_set(g);
	if (st->hs.cb->schedule(ms.cs, err, cap))
		return true;
	ms.in[i].group = NO_GROUP;
	return false;
}

static unsigned group_size(unsigned g)
{
	unsigned n = 0;
	for (size_t i = 0; i < ms.n; i++)
		n += ms.in[i].group == (int8_t)g;
	return n;
}

/* The PERF_METRICS fields and the TOPDOWN.SLOTS they derive from: group 0, counted on their own. */
static void group_perf_metrics(const struct stage *st)
{
	char err[192];
	bool any = false;
	size_t slots = ms.n;
	for (size_t i = 0; i < ms.n; i++) {
		any |= count_td_field(&ms.spec[i]) >= 0 && !ms.in[i].why;
		if (!ms.in[i].why && ms.spec[i].fixed == FIXED_TOPDOWN_SLOTS && ms.in[i].priv == COUNT_PRIV_ALL &&
		    slots == ms.n)
			slots = i;
	}
	if (!any)
		return;
	ms.ngroups = 1;
	ms.gpriv[0] = COUNT_PRIV_ALL;
	if (slots < ms.n) {
		ms.in[slots].group = 0;
	} else {
		struct event_def d;
		const struct event_set *set = stage_core_event_set(st->ci);
		ms.extra_slots = set && events_find(set, "TOPDOWN.SLOTS", &d);
		if (ms.extra_slots)
			event_spec_parse(set, false, "TOPDOWN.SLOTS", 13, &ms.slots, err, sizeof(err));
	}
	for (size_t i = 0; i < ms.n; i++) {
		if (count_td_field(&ms.spec[i]) < 0 || ms.in[i].why)
			continue;
		if (!fits(st, 0, i, err, sizeof(err)))
			ms.in[i].why = keep(err);
	}
	if (!group_size(0) || (slots < ms.n && group_size(0) == 1)) {
		/* Nothing of PERF_METRICS could be counted: the SLOTS go with the other events. */
		if (slots < ms.n)
			ms.in[slots].group = NO_GROUP;
		ms.ngroups = 0;
		ms.extra_slots = false;
		return;
	}
	/* The general events the tree's nodes need beside the fields (INT_MISC.UOP_DROPPING, Ice Lake's level 2)
	 * in the fields' own pass where counters are free: those nodes are then counted over the same runs. */
	static uint16_t ins[INPUTS_MAX];
	static struct metric_info mi;
	for (size_t m = 0; m < metrics_count(ms.t); m++) {
		metrics_at(ms.t, m, &mi);
		size_t n = mi.tree ? metrics_inputs(ms.t, m, ins, INPUTS_MAX) : 0;
		for (size_t j = 0; j < n && j < INPUTS_MAX; j++) {
			int16_t i = ms.local[ins[j]];
			if (i < 0 || ms.in[i].why || ms.in[i].group != NO_GROUP || !ms.spec[i].name[0] ||
			    ms.in[i].priv != COUNT_PRIV_ALL || group_size(0) >= GROUP_EVENTS)
				continue;
			if (fits(st, 0, (size_t)i, err, sizeof(err)) && ms.cs->passes > 1)
				ms.in[i].group = NO_GROUP;	/* it would need a second pass: it goes with the others */
		}
	}
}

/* The other events, ring by ring, GROUP_EVENTS to a set, each set one the scheduler accepts. */
static void group_events(const struct stage *st)
{
	static const enum count_priv rings[] = { COUNT_PRIV_ALL, COUNT_PRIV_KERNEL, COUNT_PRIV_USER };
	char err[192];
	for (size_t r = 0; r < ARRAY_SIZE(rings); r++) {
		int g = -1;
		for (size_t i = 0; i < ms.n; i++) {
			struct input *x = &ms.in[i];
			if (x->why || x->group != NO_GROUP || x->priv != rings[r] || count_td_field(&ms.spec[i]) >= 0 ||
			    !ms.spec[i].name[0])
				continue;
			if (g >= 0 && group_size((unsigned)g) < GROUP_EVENTS && fits(st, (unsigned)g, i, err, sizeof(err)))
				continue;
			if (ms.ngroups == GROUPS_MAX) {
				x->why = "not counted: more count sets than the stage keeps";
				continue;
			}
			unsigned ng = ms.ngroups;
			ms.gpriv[ng] = rings[r];
			if (fits(st, ng, i, err, sizeof(err))) {
				ms.ngroups++;
				g = (int)ng;
			} else {
				x->why = keep(err);	/* not even in a set of its own */
			}
		}
	}
}

/* What the run supplies for a constant, or why it cannot (a reason). */
static const char *constant_why(unsigned arg)
{
	switch (arg) {
	case METRIC_CONST_SMT:
		return ms.smt.known ? NULL : keep(ms.smt.why);
	case METRIC_CONST_THREADS:
		return ms.smt.threads < 0 ? "how many threads this core has enabled is not known (no topology)" : NULL;
	case METRIC_CONST_TSC:
	case METRIC_CONST_DURATION_MS:
		return NULL;	/* per variant: its TSC ticks per iteration */
	default:
		return "a system size the run does not supply";
	}
}

static bool prepare_inputs(const struct stage *st)
{
	static uint16_t ins[INPUTS_MAX];
	char buf[192];
	const struct event_set *set = stage_core_event_set(st->ci);
	size_t n = metrics_inputs(ms.t, METRICS_ALL, ins, INPUTS_MAX);
	size_t total = metrics_input_total();

	if (n > INPUTS_MAX) {
		rec_error("metrics", "table", "%s's formulas need %zu inputs; the stage keeps %d", ms.key, n, INPUTS_MAX);
		return false;
	}
	ms.spec = heap_alloc(n * sizeof(*ms.spec) + 1, sizeof(int64_t));
	ms.local = heap_alloc(total * sizeof(*ms.local) + 1, sizeof(int64_t));
	ms.cs = heap_alloc(sizeof(*ms.cs), sizeof(int64_t));
	ms.gf = heap_alloc(sizeof(*ms.gf), sizeof(int64_t));
	if (!ms.spec || !ms.local || !ms.cs || !ms.gf) {
		rec_error("metrics", "memory", "no room on the heap for the top-down inputs");
		return false;
	}
	for (size_t k = 0; k < total; k++)
		ms.local[k] = -1;
	ms.n = n;
	for (size_t i = 0; i < n; i++) {
		struct metric_input mi;
		struct input *x = &ms.in[i];
		metrics_input_at(ins[i], &mi);
		x->input = ins[i];
		x->group = NO_GROUP;
		ms.local[ins[i]] = (int16_t)i;
		if (mi.kind == METRIC_IN_CONST) {
			ms.smt_used |= mi.arg == METRIC_CONST_SMT;
			ms.threads_used |= mi.arg == METRIC_CONST_THREADS;
			x->why = constant_why(mi.arg);
			continue;
		}
		if (mi.kind == METRIC_IN_RETIRE_LATENCY) {
			ms.retire_latency = true;	/* -1: not measured, the formulas' fallback cost applies */
			continue;
		}
		const char *why;
		if (!metrics_input_spec(set, &mi, &ms.spec[i], &x->priv, buf, sizeof(buf), &why))
			x->why = keep(why);
	}
	group_perf_metrics(st);
	group_events(st);
	return true;
}

void stage_metrics_setup(struct stage *st)
{
	const char *why;
	memset(&ms, 0, sizeof(ms));
	ms.t = metrics_for_cpu(st->ci, &why);
	if (!ms.t) {
		out_text("metrics: no top-down formulas for %s: %s", st->ci->uarch ? st->ci->uarch : "this core", why);
		return;
	}
	metrics_table_key(ms.t, ms.key);
	metrics_table_source(ms.t, ms.source);
	if (!st->hs.cb) {
		out_text("metrics: top-down analysis needs counters, and there are none here (%s): no metrics records",
			 st->count_why[0] ? st->count_why : "counting is not available");
		return;
	}
	metrics_smt_form(threads_of_this_core(st->p->topology), st->p->siblings_busy, &ms.smt);
	if (!prepare_inputs(st))
		return;
	unsigned counted = 0;
	char err[160];
	for (size_t i = 0; i < ms.n; i++)
		counted += ms.in[i].group != NO_GROUP;
	for (unsigned g = 0; g < ms.ngroups; g++) {
		build_set(g);
		if (st->hs.cb->schedule(ms.cs, err, sizeof(err)))
			ms.passes += ms.cs->passes;
	}
	ms.on = true;
	out_text("metrics: %s (%s): %zu inputs, %u counted in %u sets (%u passes) beside each variant", ms.key,
		 ms.source, ms.n, counted, ms.ngroups, ms.passes);
	if (ms.smt_used)
		out_text("metrics: HYPERTHREADING_ON %s: %s", ms.smt.known ? ms.smt.on ? "1" : "0" : "not given",
			 ms.smt.why);
}

/* ---- one variant ---- */

static bool value_of(void *ctx, unsigned input, struct mnum *v)
{
	const struct bench_figures *f = ctx;
	int16_t i = input < metrics_input_total() ? ms.local[input] : -1;
	struct metric_input mi;
	if (i < 0)
		return false;
	metrics_input_at(input, &mi);
	if (mi.kind == METRIC_IN_RETIRE_LATENCY) {
		*v = mnum_from_i64(-1);
		return true;
	}
	if (mi.kind == METRIC_IN_CONST) {
		const struct timing_info *t = timing_get();
		struct mnum ticks = mnum_from_milli(f->tsc.median);
		switch (mi.arg) {
		case METRIC_CONST_SMT:
			*v = mnum_from_u64(ms.smt.on);
			return ms.smt.known;
		case METRIC_CONST_THREADS:
			*v = mnum_from_u64((uint64_t)ms.smt.threads);
			return ms.smt.threads > 0;
		case METRIC_CONST_TSC:
			*v = ticks;
			return f->tsc.n > 0;
		case METRIC_CONST_DURATION_MS:
			/* ticks / (Hz / 1000) */
			return f->tsc.n > 0 && t && t->tsc_hz && mnum_mul(ticks, mnum_from_u64(1000), v) == MNUM_OK &&
			       mnum_div(*v, mnum_from_u64(t->tsc_hz), v) == MNUM_OK;
		default:
			return false;
		}
	}
	if (!ms.in[i].have)
		return false;
	*v = mnum_from_milli(ms.in[i].milli);
	return true;
}

/* Why input i has no value for this variant. */
static const char *input_why(size_t i)
{
	struct metric_input mi;
	metrics_input_at(ms.in[i].input, &mi);
	if (mi.kind == METRIC_IN_CONST && !ms.in[i].why) {
		if (mi.arg == METRIC_CONST_DURATION_MS && (!timing_get() || !timing_get()->tsc_hz))
			return "the TSC rate is not known";
		return "the variant's TSC ticks were not measured";
	}
	return ms.in[i].why ? ms.in[i].why : ms.in[i].why_now ? ms.in[i].why_now : "not measured";
}

/* Measure group g on the variant: each of its inputs' figure, or why there is none. */
static void measure_group(struct stage *st, unsigned g, const struct bench_def *d, uint8_t *window, const struct bench_figures *f)
{
	struct bench_setup s = st->hs;
	const struct audit_verdict *v = st->p->audit;
	const char *audit_why = NULL;

	/* The variant as measured, but judged without its chain floor: the floor guards the cycles figure, which
	 * the bench record gives; a set that counts no cycles event would judge TSC-derived cycles against it and
	 * throw away samples whose counts are sound.  The ledger and the counts' own checks still judge each. */
	struct bench_def dd = *d;
	dd.chain_min = 0;
	s.iterations = f->iterations ? f->iterations : st->hs.iterations;
	s.target_ticks = 0;	/* the variant's own iterations: no second pilot */
	s.calib_per_sample = false;
	build_set(g);
	bool ran = bench_run_variant(&s, &dd, window, ms.cs, ms.gf);
	stage_apply_audit(st, ms.cs, ms.gf);
	/* PERF_METRICS fields derive from fixed counter 3: the audit's verdict on it is theirs. */
	bool td_ok = !v || !v->ran || audit_counter_ok(v, true, FIXED_TOPDOWN_SLOTS, 0, &audit_why);
	size_t k = g == 0 && ms.extra_slots ? 1 : 0;
	for (size_t i = 0; i < ms.n; i++) {
		struct input *x = &ms.in[i];
		if (x->group != (int8_t)g)
			continue;
		const struct bench_event_figure *e = &ms.gf->ev[k];
		bool td = count_td_field(&ms.cs->ev[k]) >= 0;
		if (ran && e->measured && (!td || td_ok)) {
			x->have = true;
			x->milli = e->fig.median;
			x->pass = PASS_ID(g, ms.cs->pass_of[k]);
		} else {
			x->why_now = !ran || ms.gf->problem[0] ? "its count set was not measured (the problem is in the record)" :
				     td && !td_ok ? audit_why : e->invalid ? e->invalid : "no sample of it was kept";
		}
		k++;
	}
}

/* The passes metric m's counted inputs came from: more than one is `split`. */
static bool split(size_t m)
{
	uint16_t ins[INPUTS_MAX];
	size_t n = metrics_inputs(ms.t, m, ins, INPUTS_MAX);
	int first = -1;
	for (size_t j = 0; j < n && j < INPUTS_MAX; j++) {
		int16_t i = ms.local[ins[j]];
		if (i < 0 || !ms.in[i].have)
			continue;
		if (first < 0)
			first = ms.in[i].pass;
		else if (first != ms.in[i].pass)
			return true;
	}
	return false;
}

/* Room the record keeps for closing what is open: past it, the reasons are counted, not written. */
#define TAIL_ROOM 96
#define REASON_MAX 100

static bool room(const struct rec *r, size_t want)
{
	return r->buf && r->len + want + TAIL_ROOM < r->cap;
}

/*
 * Why each null metric is null ("null_why": the missing input, or the arithmetic's reason) and why each
 * missing input is missing ("missing_inputs", once each); what does not fit the record is counted in
 * null_why_more / missing_inputs_more, so the record is never cut short.
 */
static void null_reasons(struct rec *r, const struct bench_figures *f, size_t nulls)
{
	static struct metric_info mi;
	static struct metric_input in;
	static bool listed[INPUTS_MAX];
	struct metric_result res;
	char why[REASON_MAX + METRIC_NAME_MAX];
	size_t more = 0;

	memset(listed, 0, sizeof(listed));
	rec_obj(r, "null_why");
	for (size_t m = 0; m < metrics_count(ms.t) && nulls; m++) {
		int64_t milli;
		metrics_eval(ms.t, m, value_of, (void *)f, &res);
		if (res.why == METRIC_OK && mnum_to_milli(res.value, &milli))
			continue;
		metrics_at(ms.t, m, &mi);
		if (res.why == METRIC_MISSING && res.input >= 0 && ms.local[res.input] >= 0) {
			metrics_input_at((unsigned)res.input, &in);
			snprintf(why, sizeof(why), "missing %s", in.name);
			listed[ms.local[res.input]] = true;
		} else {
			snprintf(why, sizeof(why), "%s", res.why != METRIC_OK ? metrics_null_text(res.why)
									     : "too large for three decimals");
		}
		if (room(r, strlen(mi.name) + strlen(why) + 8))
			rec_str(r, mi.name, why);
		else
			more++;
	}
	rec_obj_end(r);
	rec_u64(r, "null_why_more", more);
	more = 0;
	rec_obj(r, "missing_inputs");
	for (size_t i = 0; i < ms.n; i++) {
		if (!listed[i])
			continue;
		metrics_input_at(ms.in[i].input, &in);
		snprintf(why, sizeof(why), "%.*s", REASON_MAX, input_why(i));
		if (room(r, strlen(in.name) + strlen(why) + 8))
			rec_str(r, in.name, why);
		else
			more++;
	}
	rec_obj_end(r);
	rec_u64(r, "missing_inputs_more", more);
}

/*
 * The run's constants as the formulas got them (those the table names; null: not given, missing_inputs says
 * why), and the SMT form with its reason: the per-thread one unless the sibling runs beside the thread.
 */
static void smt_fields(struct rec *r)
{
	rec_obj(r, "constants");
	if (ms.smt_used) {
		if (ms.smt.known)
			rec_u64(r, "HYPERTHREADING_ON", ms.smt.on);
		else
			rec_null(r, "HYPERTHREADING_ON");
	}
	if (ms.threads_used) {
		if (ms.smt.threads > 0)
			rec_u64(r, "THREADS_PER_CORE", (uint64_t)ms.smt.threads);
		else
			rec_null(r, "THREADS_PER_CORE");
	}
	rec_obj_end(r);
	rec_u64(r, "pipeline_width", metrics_table_width(ms.t));
	if (!ms.smt_used) {
		rec_null(r, "smt");	/* the formulas have no SMT constant: they count per thread as they are */
		return;
	}
	rec_obj(r, "smt");
	if (ms.smt.threads > 0)
		rec_u64(r, "threads", (uint64_t)ms.smt.threads);
	else
		rec_null(r, "threads");
	rec_str(r, "siblings", ms.smt.siblings);
	rec_str(r, "form", ms.smt.form);
	rec_str(r, "why", ms.smt.why);
	rec_obj_end(r);
}

struct line {
	char text[200];
	size_t len;
	int64_t best;		/* the largest level 2 tree node, thousandths */
	char best_name[METRIC_NAME_MAX];
};

static void emit(struct stage *st, const struct bench_def *d, const struct slot *sl, const struct bench_figures *f)
{
	static struct metric_info mi;
	struct rec *r = &st->rec;
	struct line ln = { .best = INT64_MIN };
	struct metric_result res;
	char why[160];
	size_t nm = metrics_count(ms.t), splits = 0, nulls = 0;
	rec_start(r, "metrics");
	rec_str(r, "kernel", d->kernel);
	rec_str(r, "variant", d->variant);
	rec_str(r, "control", d->control);
	rec_str(r, "arena", sl ? sl->name : NULL);
	rec_str(r, "source", ms.source);
	rec_str(r, "event_set", ms.key);
	rec_u64(r, "iterations", f->iterations);
	smt_fields(r);
	rec_obj(r, "values");
	for (size_t m = 0; m < nm; m++) {
		int64_t milli;
		metrics_at(ms.t, m, &mi);
		metrics_eval(ms.t, m, value_of, (void *)f, &res);
		if (res.why == METRIC_OK && mnum_to_milli(res.value, &milli)) {
			rec_milli(r, mi.name, milli);
			if (mi.tree && mi.level == 2 && milli > ln.best) {
				ln.best = milli;
				snprintf(ln.best_name, sizeof(ln.best_name), "%s", mi.name);
			}
			if (mi.tree && mi.level == 1 && ln.len < sizeof(ln.text))
				ln.len = str_appendf(ln.text, sizeof(ln.text), ln.len, "%s%s %s", ln.len ? ", " : "", mi.name,
						     fmt_milli(why, milli));
		} else {
			rec_null(r, mi.name);
			nulls++;
			if (mi.tree && mi.level == 1 && ln.len < sizeof(ln.text))
				ln.len = str_appendf(ln.text, sizeof(ln.text), ln.len, "%s%s -", ln.len ? ", " : "", mi.name);
		}
	}
	rec_obj_end(r);
	/* The tree: its nodes' levels and the level 2 nodes' parents (Info_/Bottleneck_ metrics are not in it). */
	rec_obj(r, "levels");
	for (size_t m = 0; m < nm; m++) {
		metrics_at(ms.t, m, &mi);
		if (mi.tree)
			rec_u64(r, mi.name, mi.level);
	}
	rec_obj_end(r);
	rec_obj(r, "parents");
	for (size_t m = 0; m < nm; m++) {
		metrics_at(ms.t, m, &mi);
		if (mi.tree && mi.parent[0])
			rec_str(r, mi.name, mi.parent);
	}
	rec_obj_end(r);
	rec_u64(r, "passes", ms.passes);
	rec_arr(r, "split");
	for (size_t m = 0; m < nm; m++) {
		if (!split(m))
			continue;
		splits++;
		metrics_at(ms.t, m, &mi);
		if (mi.tree)
			rec_str(r, NULL, mi.name);
	}
	rec_arr_end(r);
	rec_u64(r, "split_count", splits);
	rec_str(r, "retire_latency", ms.retire_latency ? "not measured: -1, the formulas' fallback costs" : NULL);
	null_reasons(r, f, nulls);
	rec_emit(r);
	if (ln.best > INT64_MIN)
		out_text("metrics: %s.%s%s%s: %s; most of level 2: %s %s", d->kernel, d->variant, sl ? " @" : "",
			 sl ? sl->name : "", ln.len ? ln.text : "no level 1 node", ln.best_name, fmt_milli(why, ln.best));
	else
		out_text("metrics: %s.%s%s%s: %s", d->kernel, d->variant, sl ? " @" : "", sl ? sl->name : "",
			 ln.len ? ln.text : "no level 1 node");
}

void stage_metrics_row(struct stage *st, const struct bench_def *d, const struct slot *sl, uint8_t *window,
		       const struct bench_figures *f)
{
	if (!ms.on)
		return;
	for (size_t i = 0; i < ms.n; i++) {
		ms.in[i].have = false;
		ms.in[i].why_now = NULL;
	}
	for (unsigned g = 0; g < ms.ngroups; g++)
		measure_group(st, g, d, window, f);
	emit(st, d, sl, f);
}
