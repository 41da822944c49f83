/* bench/harness.c - measuring one variant; see harness.h. */
#include "bench/harness.h"
#include "bench/observer.h"
#include "kernel/hw.h"

/* bench/measure.asm reads these offsets. */
_Static_assert(offsetof(struct bench_call, kernel) == 0, "bench_call layout");
_Static_assert(offsetof(struct bench_call, trips) == 8, "bench_call layout");
_Static_assert(offsetof(struct bench_call, p) == 16, "bench_call layout");
_Static_assert(offsetof(struct bench_call, q) == 24, "bench_call layout");
_Static_assert(offsetof(struct bench_call, start) == 32, "bench_call layout");
_Static_assert(offsetof(struct bench_call, stop) == 40, "bench_call layout");
_Static_assert(offsetof(struct bench_call, tsc_start) == 48, "bench_call layout");
_Static_assert(offsetof(struct bench_call, tsc_end) == 56, "bench_call layout");
_Static_assert(offsetof(struct bench_call, cycles_msr) == 64, "bench_call layout");
_Static_assert(offsetof(struct bench_call, cyc_start) == 72, "bench_call layout");
_Static_assert(offsetof(struct bench_call, cyc_end) == 80, "bench_call layout");
_Static_assert(offsetof(struct count_toggle, n) == 0 && offsetof(struct count_toggle, w) == 8, "count_toggle layout");
_Static_assert(offsetof(struct msr_write, msr) == 0 && offsetof(struct msr_write, value) == 8 &&
		       sizeof(struct msr_write) == 16, "msr_write layout");

/* One run's raw readings. */
struct run_values {
	uint64_t tsc;
	uint64_t cyc;		/* cycles MSR delta */
	uint64_t ev[COUNT_MAX_EVENTS];
};

struct pass_ctx {
	const struct bench_setup *s;
	struct count_set *set;		/* NULL: timing only */
	unsigned pass;
	struct bench_call call;
	char *problem;
	size_t problem_cap;
};

/* One run of `trips` trips, counted when a set is given.  False on a counting error. */
static bool run_once(struct pass_ctx *c, uint64_t trips, struct run_values *v)
{
	const struct count_backend *cb = c->s->cb;
	struct count_set *set = c->set;

	c->call.trips = trips;
	c->call.start = c->call.stop = NULL;
	if (set) {
		/* Programmed once per pass (pass_begin); each read gives the counts since the previous one. */
		c->call.start = &set->start;
		c->call.stop = &set->stop;
		if (cb->enable)
			cb->enable(set);
	}
	if (set && c->s->model_work) {
		count_toggle_apply(c->call.start);
		c->call.start = c->call.stop = NULL;
		bench_measure(&c->call);
		c->s->model_work(c->s->model_ctx, trips * BENCH_UNROLL);
		count_toggle_apply(&set->stop);
	} else {
		bench_measure(&c->call);
	}
	v->tsc = c->call.tsc_end - c->call.tsc_start;
	v->cyc = c->call.cyc_end - c->call.cyc_start;
	if (set) {
		bool ok;
		if (cb->disable)
			cb->disable(set);
		ok = cb->read(set, c->pass, v->ev, c->problem, c->problem_cap);
		if (!ok)
			return false;
	}
	return true;
}

/*
 * One sample: the N run and the 2N run inside one window.  *polluted says
 * whether the window saw an SMI/NMI; *windowed whether there was a window.
 */
static bool sample(struct pass_ctx *c, uint64_t trips, struct run_values *base, struct run_values *main,
		   bool *polluted, bool *windowed)
{
	struct hw_window w;
	bool ok;

	memset(&w, 0, sizeof(w));
	*windowed = hw_window_enter(&w);
	/*
	 * An unmeasured run first: entering the window (on the host a system
	 * call) can leave caches, TLB and predictors cold, and only the first
	 * run would pay for that, which the differential would not cancel.
	 */
	c->call.start = c->call.stop = NULL;
	c->call.trips = trips;
	bench_measure(&c->call);
	ok = run_once(c, trips, base) && run_once(c, 2 * trips, main);
	if (*windowed)
		hw_window_leave(&w);
	*polluted = *windowed && hw_window_polluted(&w);
	return ok;
}

static bool in_pass(const struct count_set *set, size_t i, unsigned pass)
{
	return set->pass_of[i] == pass;
}

/* Events counted in pass p: their indexes into set->ev. */
static size_t pass_events(const struct count_set *set, unsigned pass, size_t *idx)
{
	size_t n = 0;
	for (size_t i = 0; i < set->n; i++)
		if (in_pass(set, i, pass))
			idx[n++] = i;
	return n;
}

/* Counting failed (problem says why): end the pass and go on measuring time only. */
static void drop_counting(struct pass_ctx *c, struct count_set **set, size_t *nev, struct bench_result *r,
			  unsigned pass, bool begun)
{
	if (begun && c->s->cb->pass_end)
		c->s->cb->pass_end(c->set, pass);
	c->set = *set = NULL;
	*nev = 0;
	r->passes = pass + 1;
}

bool bench_run_variant(const struct bench_setup *s, const struct bench_def *d, uint8_t *window,
		       struct count_set *set, struct bench_result *r)
{
	const uint64_t trips = s->iterations / BENCH_UNROLL;
	struct pass_ctx c;
	size_t idx[COUNT_MAX_EVENTS];

	memset(r, 0, sizeof(*r));
	r->iterations = s->iterations;
	r->windowed = true;
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.problem = r->problem;
	c.problem_cap = sizeof(r->problem);
	c.call.kernel = d->fn;
	c.call.p = window + d->p_off;
	c.call.q = window + d->q_off;
	c.call.cycles_msr = s->cycles_msr;

	if (set && (!s->cb || set->n == 0))
		set = NULL;
	if (set && !s->cb->schedule(set, r->problem, sizeof(r->problem)))
		set = NULL;	/* measured for time only; problem says why */
	c.set = set;
	r->passes = set ? (set->passes ? set->passes : 1) : 1;

	/* Storage: a series for the TSC, one for the cycles MSR, and one per event. */
	size_t series = 2 + (set ? set->n : 0);
	size_t fit = s->pool_cap / series;
	r->reps = s->reps < fit ? s->reps : (uint32_t)fit;
	if (r->reps == 0) {
		snprintf(r->problem, sizeof(r->problem), "no room for samples");
		return false;
	}

	bool any = false;
	for (unsigned pass = 0; pass < r->passes; pass++) {
		size_t nev = set ? pass_events(set, pass, idx) : 0;
		int64_t *tsc_s = s->pool, *cyc_s = s->pool + r->reps;
		struct stats_take take;
		uint32_t warm = s->warmup;
		bool more = true;

		c.pass = pass;
		if (c.set && !s->cb->pass_begin(c.set, pass, r->problem, sizeof(r->problem)))
			drop_counting(&c, &set, &nev, r, pass, false);
		stats_take_init(&take, r->reps, s->drop_budget);
		while (more) {
			struct run_values base, main;
			bool polluted, windowed;

			if (!sample(&c, trips, &base, &main, &polluted, &windowed)) {
				/* Counting failed: finish this variant on time alone. */
				if (!c.set)
					return any;
				drop_counting(&c, &set, &nev, r, pass, true);
				continue;
			}
			if (!windowed)
				r->windowed = false;
			if (warm) {
				warm--;
				continue;
			}
			if (!polluted) {
				uint32_t k = take.good;
				tsc_s[k] = stats_differential_milli(base.tsc, main.tsc, s->iterations);
				cyc_s[k] = stats_differential_milli(base.cyc, main.cyc, s->iterations);
				for (size_t e = 0; e < nev; e++)
					s->pool[(2 + e) * r->reps + k] =
						stats_differential_milli(base.ev[idx[e]], main.ev[idx[e]], s->iterations);
			}
			more = stats_take_note(&take, polluted);
		}
		if (c.set && s->cb->pass_end)
			s->cb->pass_end(c.set, pass);
		r->dropped += take.dropped;
		if (stats_take_exhausted(&take))
			r->exhausted = true;
		if (pass == 0) {
			stats_summarise(tsc_s, take.good, &r->tsc);
			if (s->cycles_msr)
				stats_summarise(cyc_s, take.good, &r->aperf);
		}
		for (size_t e = 0; e < nev; e++) {
			stats_summarise(s->pool + (2 + e) * r->reps, take.good, &r->ev[idx[e]].fig);
			r->ev[idx[e]].ok = take.good > 0;
		}
		any = any || take.good > 0;
	}
	if (!any && !r->problem[0])
		snprintf(r->problem, sizeof(r->problem), "every sample was disturbed (SMI/NMI/preemption): %u dropped",
			 r->dropped);
	return any;
}

bool bench_calibrate(const struct bench_setup *s, uint8_t *window, int64_t *core_per_tsc_ppm,
		     int64_t *spread_milli)
{
	/* 2^17 adds (about 0.1 ms on a modern core) per N run: long enough that the TSC's granularity and the
	 * timer reads are far below 0.1%, short enough that interrupts rarely land inside on the host. */
	const uint32_t adds = 1u << 17;
	struct bench_setup cs = *s;
	struct bench_def d = { .kernel = "calibration", .variant = "add_chain", .fn = bk_add_chain };
	struct bench_result r;

	cs.iterations = adds;
	cs.reps = s->reps < 15 ? 15 : s->reps;
	cs.warmup = 2;
	cs.drop_budget = cs.reps;
	cs.cb = NULL;
	cs.cycles_msr = 0;
	if (!bench_run_variant(&cs, &d, window, NULL, &r) || r.tsc.median <= 0)
		return false;
	/* r.tsc is ticks per add in thousandths: cycles per tick = 1000 / that, here in millionths. */
	*core_per_tsc_ppm = stats_scale(1000000000, 1, (uint64_t)r.tsc.median);
	*spread_milli = stats_spread_milli(&r.tsc);
	return true;
}

void bench_observe(const struct bench_setup *s, const struct bench_def *d, uint8_t *window, uint32_t arena_page)
{
	struct bench_variant_id id = { d->kernel, d->variant, arena_page };
	struct bench_call call = { .kernel = d->fn, .trips = s->iterations / BENCH_UNROLL, .p = window + d->p_off,
				   .q = window + d->q_off };

	for (size_t i = 0; i < bench_observer_count(); i++) {
		const struct bench_observer *o = bench_observer_at(i);
		if (o->variant_begin)
			o->variant_begin(o->ctx, &id);
		for (unsigned k = 0; k < o->slices; k++) {
			struct hw_window w;
			bool windowed;

			memset(&w, 0, sizeof(w));
			windowed = hw_window_enter(&w);
			if (o->slice_begin)
				o->slice_begin(o->ctx);
			bench_measure(&call);
			if (o->slice_end)
				o->slice_end(o->ctx);
			if (windowed)
				hw_window_leave(&w);
		}
		if (o->variant_end)
			o->variant_end(o->ctx, &id);
	}
}
