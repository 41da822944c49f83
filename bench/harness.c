/* bench/harness.c - measuring one variant; see harness.h. */
#include "bench/harness.h"
#include "events/events.h"
#include "platform/calib.h"
#include "platform/hw.h"
#include "lib/record.h"
#include "lib/strbuf.h"

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

const char *bench_cycles_source_name(enum bench_cycles_source s)
{
	static const char *const names[] = { "tsc", "tsc_calibrated", "aperf", "pmc", "fixed_counter" };
	return s < ARRAY_SIZE(names) ? names[s] : "?";
}

const char *bench_calib_source_name(enum bench_calib_source s)
{
	static const char *const names[] = { NULL, "harness_add_chain", "timing" };
	return s < ARRAY_SIZE(names) ? names[s] : "?";
}

static uint32_t unroll_of(const struct bench_def *d)
{
	return d->unroll ? d->unroll : BENCH_UNROLL;
}

/* One run's raw readings. */
struct run_values {
	uint64_t tsc;
	uint64_t cyc;		/* cycles MSR delta */
	uint64_t ev[COUNT_MAX_EVENTS];
};

struct pass_ctx {
	const struct bench_setup *s;
	const struct bench_def *d;
	struct count_set *set;		/* NULL: timing only */
	unsigned pass;
	struct bench_call call;
	char *problem;
	size_t problem_cap;
	int8_t smi_of[COUNT_MAX_EVENTS];	/* per pass: the index of its SMI event in set->ev, or -1 */
	bool per_sample;			/* a calibration inside every sample (bench_setup.calib_per_sample) */
	struct bench_contention *probe;		/* the contention probe (per_sample only), or NULL */
	bool tight;				/* the N and 2N runs held tightly (tight_runs, per_sample, no count set) */
	int64_t slack;				/* the chain floor's slack for TSC-derived cycles, thousandths */
};

/* What the ledger (or, without one, the window) said about one sample. */
struct sample_verdict {
	bool windowed;			/* inside an established interrupts-off window */
	bool disturbed;
	struct ledger_verdict v;
	uint64_t cal_n, cal_2n;		/* calib_per_sample: ticks of the calibration's N and 2N runs */
	uint64_t probe;			/* the contention probe's slower run, TSC ticks (0: not probed) */
	bool cut;			/* the probe before the kernel's runs was already contended: none were run */
};

/*
 * The calibration kernel is platform/calib.asm's add chain, the one platform/
 * timing calibrates with: called as a benchmark kernel (trips in RDI; it
 * ignores p and q and touches only caller-saved registers).
 */
#define CALIB_TRIPS (BENCH_CALIB_ADDS / CALIB_ADDS_PER_ITER)
#define SAMPLE_CALIB_TRIPS (BENCH_SAMPLE_CALIB_ADDS / CALIB_ADDS_PER_ITER)
/* N and 2N pairs a sample may run where they are held tightly (sample()). */
#define TIGHT_PAIRS 4

/* One run of the calibration chain of `trips` trips: its TSC ticks. */
static uint64_t calib_run(uint64_t trips)
{
	struct bench_call cal = { .kernel = (bench_kernel_fn)(void (*)(void))calib_add_chain, .trips = trips };
	bench_measure(&cal);
	return cal.tsc_end - cal.tsc_start;
}

int64_t bench_contention_reference(const struct bench_contention *p)
{
	return p->nlow ? p->low[p->nlow - 1] : 0;
}

/* Probe ticks in cycles per 1000 adds at ppm cycles per million ticks. */
static int64_t probe_milli(uint64_t ticks, int64_t ppm)
{
	return stats_scale((int64_t)ticks, (uint64_t)ppm, (uint64_t)BENCH_PROBE_ADDS * 1000);
}

/* Whether a probe of `ticks` at ppm is slower than p's reference by more than tolerance_permille. */
static bool probe_over(const struct bench_contention *p, uint64_t ticks, int64_t ppm, int64_t tolerance_permille)
{
	int64_t milli = probe_milli(ticks, ppm), ref = bench_contention_reference(p);
	return milli > 0 && ref && (__int128)milli * 1000 > (__int128)ref * (1000 + tolerance_permille);
}

/* Keep milli among the n fastest (ranks ascending) or, with slowest, the n slowest (descending) of r[]. */
static void rank_note(int64_t *r, unsigned *n, int64_t milli, bool slowest)
{
	unsigned i = *n < BENCH_PROBE_LOW_RANK ? (*n)++ : BENCH_PROBE_LOW_RANK;
	if (i == BENCH_PROBE_LOW_RANK) {
		int64_t last = r[BENCH_PROBE_LOW_RANK - 1];
		if (slowest ? milli <= last : milli >= last)
			return;
		i = BENCH_PROBE_LOW_RANK - 1;
	}
	for (; i > 0 && (slowest ? r[i - 1] < milli : r[i - 1] > milli); i--)
		r[i] = r[i - 1];
	r[i] = milli;
}

/* A probe within the reference's tolerance: no streak of probes over it any more. */
static void contention_met(struct bench_contention *p)
{
	p->over_in_a_row = p->streak_nlow = p->streak_nhigh = 0;
}

/*
 * A probe of milli over the reference: whether the reference is one no probe meets any more.  After
 * BENCH_PROBE_RELEARN probes in a row over it, if those probes agree among themselves (their 8th slowest
 * within the tolerance of their 8th fastest), the core runs steadily slower than the reference: either the
 * reference was wrong (runs converted with a clock that had moved taught it), or the core is shared for
 * good, and figures slowed alike are the most this core gives; the reference becomes theirs.  If they do
 * not agree, it is an episode of another thread coming and going (on the development host such probes
 * spread from 15% to 80% over the quiet figure), and the reference stands: a reference learned inside an
 * episode let figures 10-20% slow through for as long as the episode lasted (a full table relearned 263
 * times, a second run of it agreed with the first on 86.5% of its figures).
 */
static bool contention_stuck(struct bench_contention *p, int64_t milli)
{
	rank_note(p->streak_low, &p->streak_nlow, milli, false);
	rank_note(p->streak_high, &p->streak_nhigh, milli, true);
	if (++p->over_in_a_row < BENCH_PROBE_RELEARN)
		return false;
	int64_t lo = p->streak_low[p->streak_nlow - 1], hi = p->streak_high[p->streak_nhigh - 1];
	bool steady = (__int128)hi * 1000 <= (__int128)lo * (1000 + BENCH_PROBE_TOLERANCE_PERMILLE);
	if (steady) {
		memcpy(p->low, p->streak_low, sizeof(p->low));
		p->nlow = p->streak_nlow;
		p->relearned++;
	} else {
		p->episodes++;
	}
	contention_met(p);
	return steady;
}

/* One run of the contention probe (struct bench_contention): its TSC ticks. */
static uint64_t probe_run(void)
{
	struct bench_call pr = { .kernel = (bench_kernel_fn)(void (*)(void))calib_add_block,
				 .trips = BENCH_PROBE_ADDS / CALIB_ADDS_PER_ITER };
	bench_measure(&pr);
	return pr.tsc_end - pr.tsc_start;
}

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
		c->s->model_work(c->s->model_ctx, trips * unroll_of(c->d));
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

/* The SMI event's count over the sample's two counted runs, or LEDGER_NO_SMI_EVENT when this pass has none. */
static uint64_t smi_count(const struct pass_ctx *c, const struct run_values *base, const struct run_values *main)
{
	if (!c->set || c->pass >= COUNT_MAX_EVENTS || c->smi_of[c->pass] < 0)
		return LEDGER_NO_SMI_EVENT;
	return base->ev[c->smi_of[c->pass]] + main->ev[c->smi_of[c->pass]];
}

/* The sample's window closed and judged: by the ledger right before it is left, else by its own counts. */
static void sample_close(struct ledger *l, struct ledger_mark *m, struct hw_window *w, uint64_t smi,
			 struct sample_verdict *sv)
{
	if (l)
		sv->disturbed = ledger_close(l, m, sv->windowed ? w : NULL, smi, &sv->v);
	if (sv->windowed)
		hw_window_leave(w);
	if (!l)
		sv->disturbed = ledger_window_left(&sv->v, sv->windowed ? w : NULL);
}

/*
 * One sample: the N run and the 2N run inside one window, which the
 * ledger reads right after it opens and judges right before it closes
 * (without a ledger, the window's own counts judge once it is left).
 */
static bool sample(struct pass_ctx *c, uint64_t trips, struct run_values *base, struct run_values *main,
		   struct sample_verdict *sv)
{
	struct ledger *l = c->s->ledger;
	struct hw_window w;
	struct ledger_mark m;
	bool ok;

	memset(&w, 0, sizeof(w));
	memset(sv, 0, sizeof(*sv));
	sv->windowed = hw_window_enter(&w);
	if (l)
		ledger_open(l, &m);
	/*
	 * An unmeasured run first: entering the window (on the host a system call) can leave caches, TLB and
	 * predictors cold, and only the first run would pay for that, which the differential would not
	 * cancel.  It comes before the calibration, so that both the calibration's runs follow the kernel:
	 * code that moves the core clock itself (512-bit vector code on the development host's Xeon, whose
	 * add chain runs about 6% slower for some microseconds after it) otherwise had its N run at the clock
	 * before the kernel and its 2N run at the one after, and was thrown away as a moved clock in every
	 * sample (a user kernel of `vaddps zmm`: none of 63 held, against 30 of 53 this way).  The chain and
	 * the probe between this run and the kernel's touch no data and run a few dozen bytes of code.
	 */
	c->call.start = c->call.stop = NULL;
	c->call.trips = trips;
	bench_measure(&c->call);
	/* The calibration's N run before the kernel's runs and its 2N run after: one clock figure around them. */
	if (c->per_sample)
		sv->cal_n = calib_run(SAMPLE_CALIB_TRIPS);
	uint64_t probe_before = c->probe ? probe_run() : 0;
	/*
	 * A probe already slow before the kernel's runs ends the sample here: it would be thrown away as
	 * contended, and in an episode of contention its runs and calibration were most of the time the
	 * episode cost.  Judged with the clock in force (the sample's own is not known yet) and so at twice
	 * the tolerance: after wide vector code the clock can be slower than the bracket's calibration said,
	 * and a full table cut three times as many AVX-512 forms' samples as others' at the tolerance.
	 */
	if (c->probe && probe_over(c->probe, probe_before, c->s->clock.ppm, BENCH_PROBE_CUT_PERMILLE) &&
	    !contention_stuck(c->probe, probe_milli(probe_before, c->s->clock.ppm))) {
		sv->cut = true;
		sv->probe = probe_before;
		sample_close(l, &m, &w, LEDGER_NO_SMI_EVENT, sv);
		return true;
	}
	/*
	 * Where the runs are held tightly (judge: stats_judge_runs_tight), a pair that fails is run again
	 * inside the same window, up to TIGHT_PAIRS times: the calibration around it costs three times the
	 * kernel's runs, and a stall that lands in one run of half the pairs (bench/stats.h) would
	 * otherwise throw the whole sample away.  The last pair is the sample's, judged as any.
	 */
	for (unsigned pair = 0; pair < TIGHT_PAIRS; pair++) {
		ok = run_once(c, trips, base) && run_once(c, 2 * trips, main);
		if (!ok || !c->tight || stats_judge_runs_tight(base->tsc, main->tsc) == STATS_KEPT)
			break;
	}
	if (c->probe) {
		uint64_t after = probe_run();
		sv->probe = after > probe_before ? after : probe_before;
	}
	if (c->per_sample)
		sv->cal_2n = calib_run(2 * SAMPLE_CALIB_TRIPS);
	/* The runs' values are read: what happens after the ledger closes cannot touch them. */
	sample_close(l, &m, &w, ok ? smi_count(c, base, main) : LEDGER_NO_SMI_EVENT, sv);
	return ok;
}

/* The variant's own events counted in pass p (not the SMI events added beside them): indexes into set->ev. */
static size_t pass_events(const struct count_set *set, size_t n_user, unsigned pass, size_t *idx)
{
	size_t n = 0;
	for (size_t i = 0; i < n_user; i++)
		if (set->pass_of[i] == pass)
			idx[n++] = i;
	return n;
}

/*
 * The setup's SMI event beside each pass's events, where a counter is
 * spare: the pass's events and the SMI event are scheduled again as one
 * pass, and when they fit that assignment is the pass's.  The copies go
 * after the variant's events (set->n grows; the caller puts it back).
 */
static void add_smi_events(const struct bench_setup *s, struct pass_ctx *c, struct count_set *set,
			   struct bench_figures *f)
{
	struct count_set mini;	/* on the stack: the image's static storage is file bytes */
	size_t n_user = set->n, map[COUNT_MAX_EVENTS];
	char err[160];
	unsigned missing = 0, first_missing = 0;

	for (unsigned p = 0; p < set->passes && p < COUNT_MAX_EVENTS; p++) {
		size_t k = 0;
		memset(&mini, 0, sizeof(mini));
		mini.priv = set->priv;
		mini.preset = set->preset;
		for (size_t i = 0; i < n_user; i++)
			if (set->pass_of[i] == p) {
				map[k] = i;
				mini.ev[k++] = set->ev[i];
			}
		if (set->n < COUNT_MAX_EVENTS && k < COUNT_MAX_EVENTS) {
			mini.ev[k] = *s->smi_event;
			mini.n = k + 1;
		}
		if (!mini.n || !s->cb->schedule(&mini, err, sizeof(err)) || mini.passes != 1) {
			if (!missing++)
				first_missing = p;
			continue;
		}
		for (size_t j = 0; j < k; j++) {
			set->counter_of[map[j]] = mini.counter_of[j];
			set->fixed_of[map[j]] = mini.fixed_of[j];
			set->form_of[map[j]] = mini.form_of[j];
		}
		size_t x = set->n++;
		set->ev[x] = mini.ev[k];
		set->pass_of[x] = (uint8_t)p;
		set->counter_of[x] = mini.counter_of[k];
		set->fixed_of[x] = mini.fixed_of[k];
		set->form_of[x] = mini.form_of[k];
		c->smi_of[p] = (int8_t)x;
		f->smi_event_passes++;
	}
	if (missing)
		str_appendf(f->smi_event_missing, sizeof(f->smi_event_missing), 0, "no spare counter in %u of %u passes (pass %u)",
			    missing, set->passes, first_missing + 1);
}

bool bench_clock_away(const struct bench_calibration *k, char *buf, size_t cap)
{
	char at[32], ref[32];
	if (cap)
		buf[0] = 0;
	if (!k->per_sample || !k->samples.n || k->ppm <= 0)
		return false;
	int64_t d = k->samples.median - k->ppm, mag = d < 0 ? -d : d;
	if ((__int128)mag * 1000 <= (__int128)k->ppm * BENCH_CLOCK_AWAY_PERMILLE)
		return false;
	int64_t tenths = stats_scale(mag, 1000, (uint64_t)k->ppm); /* tenths of a percent */
	snprintf(buf, cap,
		 "clock: the samples ran at %s cycles a tick, %lld.%lld%% %s the %s measured right before the variant "
		 "(a step of the clock, or the kernel moving it: 512-bit vector code does on some cores); its cycles "
		 "take the clock right after the kernel as the kernel's own",
		 fmt_milli(at, k->samples.median / 1000), (long long)(tenths / 10), (long long)(tenths % 10),
		 d < 0 ? "below" : "above", fmt_milli(ref, k->ppm / 1000));
	return true;
}

const char *bench_disturbed_by_source(const struct bench_figures *f, char *buf, size_t cap)
{
	size_t k = 0;
	buf[0] = 0;
	for (unsigned src = 0; src < LEDGER_SOURCES && k < cap; src++)
		if (f->disturbed[src])
			k = str_appendf(buf, cap, k, "%s%s %u", k ? ", " : "", ledger_source_name(src), f->disturbed[src]);
	return buf;
}

static uint32_t roles_of(const struct count_set *set, size_t i)
{
	return set->ev[i].roles;
}

/* The counted cycles event, or -1. */
static int cycles_event(const struct count_set *set)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (roles_of(set, i) & EV_ROLE_CYCLES)
			return (int)i;
	return -1;
}

/* Counting failed (problem says why): end the pass and go on measuring time only. */
static void drop_counting(struct pass_ctx *c, struct count_set **set, size_t *nev, struct bench_figures *f,
			  unsigned pass, bool begun)
{
	if (begun && c->s->cb->pass_end)
		c->s->cb->pass_end(c->set, pass);
	c->set = *set = NULL;
	*nev = 0;
	f->passes = pass + 1;
}


/* Whether a sample's own calibration is one to convert with (judge's first rules, for an unjudged sample). */
static bool sample_clock_held(const struct pass_ctx *c, const struct sample_verdict *sv)
{
	return c->per_sample && stats_judge_time(sv->cal_n, sv->cal_2n) == STATS_KEPT &&
	       stats_judge_clock(sv->cal_n, sv->cal_2n, c->s->clock.spread_milli) == STATS_KEPT;
}

/* A probe of an unjudged sample (a warm-up) joins the reference's ranks unless it is over the tolerance. */
static void contention_learn(struct bench_contention *p, uint64_t ticks, int64_t ppm)
{
	int64_t milli = probe_milli(ticks, ppm);
	if (milli > 0 && !probe_over(p, ticks, ppm, BENCH_PROBE_TOLERANCE_PERMILLE))
		rank_note(p->low, &p->nlow, milli, false);
}

/*
 * The probe's ticks in cycles per 1000 adds, with the sample's own calibration, against the probe's
 * reference: CONTENDED when slower by more than the tolerance; a run kept joins the reference's ranks, so a
 * run that starts contended learns the quiet figure as soon as samples see it.  The first run has no
 * reference and is kept.
 */
static enum stats_fate judge_contention(struct bench_contention *p, uint64_t ticks, int64_t ppm)
{
	int64_t milli = probe_milli(ticks, ppm);
	p->probed++;
	if (milli <= 0)
		return STATS_KEPT;
	if (probe_over(p, ticks, ppm, BENCH_PROBE_TOLERANCE_PERMILLE) && !contention_stuck(p, milli)) {
		p->contended++;
		return STATS_REJECT_CONTENDED;
	}
	contention_met(p);
	rank_note(p->low, &p->nlow, milli, false);
	return STATS_KEPT;
}

/*
 * The fate of one sample (bench/stats.h): every series must be possible; with
 * a calibration in the sample, its runs too, and its figure (*ppm) must not
 * have moved from the variant's reference by more than that reference's
 * spread; and the cycles per iteration - from the counted cycles event when
 * this pass has it, else APERF, else TSC ticks times the sample's own
 * calibration or the one in force - must not beat the kernel's chain by more
 * than the slack those cycles' error allows.
 */
static enum stats_fate judge(const struct pass_ctx *c, const struct sample_verdict *sv, const struct run_values *b,
			     const struct run_values *m, const size_t *idx, size_t nev, int cyc_ev, int64_t chain,
			     int64_t *ppm)
{
	const struct bench_setup *s = c->s;
	enum stats_fate fate = stats_judge_time(b->tsc, m->tsc);
	int64_t cycles = -1, slack = STATS_CHAIN_SLACK_MIN_PERMILLE;

	/* Where the ticks alone make the cycles and nothing else is in the runs, they must agree tightly. */
	if (fate == STATS_KEPT && c->tight)
		fate = stats_judge_runs_tight(b->tsc, m->tsc);

	*ppm = 0;
	if (fate == STATS_KEPT && c->per_sample) {
		fate = stats_judge_time(sv->cal_n, sv->cal_2n);
		if (fate == STATS_KEPT) {
			*ppm = stats_scale(BENCH_SAMPLE_CALIB_ADDS, 1000000, sv->cal_2n - sv->cal_n);
			fate = stats_judge_clock(sv->cal_n, sv->cal_2n, s->clock.spread_milli);
		}
		if (fate == STATS_KEPT && c->probe && sv->probe)
			fate = judge_contention(c->probe, sv->probe, *ppm);
	}
	if (fate == STATS_KEPT && s->cycles_msr) {
		fate = stats_judge_time(b->cyc, m->cyc);
		cycles = stats_differential_milli(b->cyc, m->cyc, s->iterations);
	}
	for (size_t e = 0; e < nev && fate == STATS_KEPT; e++) {
		size_t i = idx[e];
		if ((int)i == cyc_ev) {
			fate = stats_judge_time(b->ev[i], m->ev[i]);
			cycles = stats_differential_milli(b->ev[i], m->ev[i], s->iterations);
		} else {
			fate = stats_judge_count(b->ev[i], m->ev[i]);
		}
	}
	if (fate != STATS_KEPT || !chain)
		return fate;
	if (cycles < 0) {
		int64_t k = *ppm > 0 ? *ppm : s->clock.ppm;
		if (k > 0)
			cycles = stats_scale(stats_differential_milli(b->tsc, m->tsc, s->iterations), (uint64_t)k, 1000000);
		slack = c->slack;
	}
	return cycles < 0 ? STATS_KEPT : stats_judge_chain(cycles, chain, slack);
}

/* Cycles: a counted cycles event where there is one, else APERF (aperf: its figure, or NULL), else TSC ticks
 * converted by s->clock. */
static void choose_cycles(const struct bench_setup *s, const struct count_set *set, const struct bench_figure *aperf,
			  struct bench_figures *f)
{
	int ce = cycles_event(set);

	f->cycles = f->tsc;
	f->cycles_source = BENCH_CYCLES_TSC;
	memset(&f->calibration, 0, sizeof(f->calibration));
	if (ce >= 0 && f->ev[ce].measured) {
		f->cycles = f->ev[ce].fig;
		f->cycles_source = set->fixed_of[ce] >= 0 ? BENCH_CYCLES_FIXED : BENCH_CYCLES_PMC;
	} else if (aperf && aperf->n) {
		f->cycles = *aperf;
		f->cycles_source = BENCH_CYCLES_APERF;
	} else if (s->clock.ppm > 0) {
		stats_figure_scale(&f->cycles, (uint64_t)s->clock.ppm, 1000000);
		f->cycles_source = BENCH_CYCLES_TSC_CALIBRATED;
		f->calibration = s->clock;
	}
}

bool bench_run_variant(const struct bench_setup *s, const struct bench_def *d, uint8_t *window,
		       struct count_set *set, struct bench_figures *f)
{
	const uint64_t trips = s->iterations / unroll_of(d);
	const int64_t chain = s->emulated_time ? 0 : d->chain_min;
	struct pass_ctx c;
	struct bench_figure aperf, per_sample;	/* aperf: the cycles MSR's series, or the per-sample calibrated one */
	size_t idx[COUNT_MAX_EVENTS];

	memset(f, 0, sizeof(*f));
	memset(&aperf, 0, sizeof(aperf));
	memset(&per_sample, 0, sizeof(per_sample));
	f->iterations = s->iterations;
	f->windowed = true;
	f->instructions = -1;
	f->chain_min = (int32_t)chain;
	memset(&c, 0, sizeof(c));
	memset(c.smi_of, -1, sizeof(c.smi_of));
	c.s = s;
	c.d = d;
	c.problem = f->problem;
	c.problem_cap = sizeof(f->problem);
	c.call.kernel = d->fn;
	c.call.p = window + d->p_off;
	c.call.q = window + d->q_off;
	c.call.cycles_msr = s->cycles_msr;
	c.per_sample = s->calib_per_sample && !s->cycles_msr && !s->emulated_time && s->clock.ppm > 0;
	/* The probe, like the tight rule, for kernels that live in the core only (bench/harness.h). */
	c.probe = c.per_sample && s->tight_runs ? s->contention : NULL;
	c.slack = stats_chain_slack_permille(s->clock.spread_milli);
	f->iterations_min = s->iterations;

	if (set && (!s->cb || set->n == 0))
		set = NULL;
	if (set && !s->cb->schedule(set, f->problem, sizeof(f->problem)))
		set = NULL;	/* measured for time only; problem says why */
	struct count_set *const caller_set = set;
	const size_t n_user = set ? set->n : 0;
	if (set && s->smi_event)
		add_smi_events(s, &c, set, f);
	else if (s->smi_event)
		str_appendf(f->smi_event_missing, sizeof(f->smi_event_missing), 0, "the variant was not counted");
	if (s->ledger)
		ledger_rebase(s->ledger);	/* a new variant: its own first clean window is the clock's reference */
	c.set = set;
	c.tight = s->tight_runs && c.per_sample && !set;
	f->passes = set ? (set->passes ? set->passes : 1) : 1;
	f->nev = n_user;
	for (size_t i = 0; i < f->nev; i++) {
		f->ev[i].name = set->ev[i].name;
		f->ev[i].roles = roles_of(set, i);
		if ((f->ev[i].roles & EV_ROLE_INSTRUCTIONS) && f->instructions < 0)
			f->instructions = (int)i;
	}
	const int cyc_ev = cycles_event(set);
	f->chain_slack = chain ? (s->cycles_msr || cyc_ev >= 0 ? STATS_CHAIN_SLACK_MIN_PERMILLE : c.slack) : 0;

	/* Storage: a series for the TSC, one for cycles (the MSR's, or calibrated per sample), one for the
	 * samples' calibrations, and one per event. */
	size_t series = 3 + n_user;
	size_t fit = s->pool_cap / series;
	f->reps = s->reps < fit ? s->reps : (uint32_t)fit;
	if (f->reps == 0) {
		snprintf(f->problem, sizeof(f->problem), "no room for samples");
		if (caller_set)
			caller_set->n = n_user;
		return false;
	}

	bool any = false;
	const uint64_t started = s->contended_patience_ticks ? hw_tsc() : 0;
	uint32_t patience = 0;	/* contended samples retaken past the budget */
	for (unsigned pass = 0; pass < f->passes; pass++) {
		size_t nev = set ? pass_events(set, n_user, pass, idx) : 0;
		int64_t *tsc_s = s->pool, *cyc_s = s->pool + f->reps, *ppm_s = s->pool + 2 * f->reps;
		struct stats_take take;
		uint32_t warm = s->warmup;
		bool more = true;

		c.pass = pass;
		if (c.set && !s->cb->pass_begin(c.set, pass, f->problem, sizeof(f->problem)))
			drop_counting(&c, &set, &nev, f, pass, false);
		stats_take_init(&take, f->reps, s->drop_budget);
		while (more) {
			struct run_values base, main;
			struct sample_verdict sv;

			if (!sample(&c, trips, &base, &main, &sv)) {
				/* Counting failed (only a counted run can fail): finish this variant on time alone. */
				drop_counting(&c, &set, &nev, f, pass, true);
				continue;
			}
			if (!sv.windowed)
				f->windowed = false;
			if (warm) {
				/* Not judged, but the probe's reference learns from them before the first that is. */
				if (c.probe && !sv.cut && sv.probe && !sv.disturbed && sample_clock_held(&c, &sv))
					contention_learn(c.probe, sv.probe,
							 stats_scale(BENCH_SAMPLE_CALIB_ADDS, 1000000, sv.cal_2n - sv.cal_n));
				warm--;
				continue;
			}
			int64_t ppm = 0;
			if (sv.cut) {
				c.probe->probed++;
				c.probe->contended++;
			}
			enum stats_fate fate = sv.disturbed ? STATS_REJECT_DISTURBED
					       : sv.cut	   ? STATS_REJECT_CONTENDED
							    : judge(&c, &sv, &base, &main, idx, nev, c.set ? cyc_ev : -1,
								    chain, &ppm);
			if (fate == STATS_REJECT_DISTURBED) {
				for (unsigned src = 0; src < LEDGER_SOURCES; src++)
					f->disturbed[src] += (sv.v.sources >> src) & 1;
				if (!f->disturbance[0])
					ledger_verdict_text(&sv.v, f->disturbance, sizeof(f->disturbance));
			}
			if (fate == STATS_KEPT) {
				uint32_t k = take.good;
				tsc_s[k] = stats_differential_milli(base.tsc, main.tsc, s->iterations);
				cyc_s[k] = c.per_sample ? stats_scale(tsc_s[k], (uint64_t)ppm, 1000000)
							: stats_differential_milli(base.cyc, main.cyc, s->iterations);
				ppm_s[k] = ppm;
				for (size_t e = 0; e < nev; e++)
					s->pool[(3 + e) * f->reps + k] =
						stats_differential_milli(base.ev[idx[e]], main.ev[idx[e]], s->iterations);
			}
			more = stats_take_note(&take, fate);
			/*
			 * An episode of another thread on the core outlasts the budget: wait it out, within patience,
			 * while contention is at least half of what the budget went on (the sample that spends it may
			 * be any other: an interrupt or a run a stall made impossible, inside the episode).
			 */
			if (!more && stats_take_exhausted(&take) && 2 * take.by[STATS_REJECT_CONTENDED] >= take.thrown &&
			    patience < BENCH_CONTENDED_PATIENCE_SAMPLES &&
			    hw_tsc() - started < s->contended_patience_ticks) {
				stats_take_extend(&take);
				patience++;
				more = true;
			}
			if ((fate == STATS_REJECT_DISTURBED || fate == STATS_REJECT_CONTENDED) && more)
				f->retaken++;
		}
		if (c.set && s->cb->pass_end)
			s->cb->pass_end(c.set, pass);
		f->dropped += take.by[STATS_REJECT_DISTURBED];
		f->contended += take.by[STATS_REJECT_CONTENDED];
		for (unsigned k = STATS_REJECT_NEGATIVE; k < STATS_REJECT_DISTURBED; k++)
			f->rejected[k] += take.by[k];
		if (stats_take_exhausted(&take))
			f->exhausted = true;
		if (pass == 0) {
			stats_summarise(tsc_s, take.good, &f->tsc);
			stats_judge_figure(&f->tsc, &take, true);
			if (s->cycles_msr || c.per_sample) {
				stats_summarise(cyc_s, take.good, &aperf);
				stats_judge_figure(&aperf, &take, true);
			}
			if (c.per_sample) {
				stats_summarise(ppm_s, take.good, &per_sample);
				stats_judge_figure(&per_sample, &take, false);
			}
		}
		for (size_t e = 0; e < nev; e++) {
			struct bench_event_figure *ef = &f->ev[idx[e]];
			stats_summarise(s->pool + (3 + e) * f->reps, take.good, &ef->fig);
			stats_judge_figure(&ef->fig, &take, (int)idx[e] == cyc_ev);
			ef->measured = take.good > 0;
		}
		any = any || take.good > 0;
	}
	if (f->instructions >= 0 && !f->ev[f->instructions].measured)
		f->instructions = -1;
	choose_cycles(s, set, c.per_sample ? NULL : &aperf, f);
	if (c.per_sample && f->cycles_source == BENCH_CYCLES_TSC_CALIBRATED) {
		/* Each sample converted with its own calibration: the series itself, no conversion after the fact. */
		f->cycles = aperf;
		f->calibration.per_sample = true;
		f->calibration.samples = per_sample;
	}
	if (caller_set)
		caller_set->n = n_user;	/* the SMI events added beside the variant's go again */
	/* Nothing kept is a result too: figures with n = 0, unstable, and the problem says why. */
	if (!any && !f->problem[0]) {
		char srcs[96];
		snprintf(f->problem, sizeof(f->problem),
			 "no sample could be kept: %u disturbed (%s), %u contended, %u rejected as impossible", f->dropped,
			 f->dropped ? bench_disturbed_by_source(f, srcs, sizeof(srcs)) : "none", f->contended,
			 f->rejected[STATS_REJECT_NEGATIVE] + f->rejected[STATS_REJECT_N_2N] +
				 f->rejected[STATS_REJECT_BELOW_CHAIN] + f->rejected[STATS_REJECT_CLOCK]);
	}
	return true;
}

static const struct bench_def calib_def = {
	.kernel = "calibration",
	.variant = "add_chain",
	.fn = (bench_kernel_fn)(void (*)(void))calib_add_chain,
	.body = "add rax, rdx",
	.unroll = CALIB_ADDS_PER_ITER,
};

/* A calibration's samples: at least CALIB_REPS_MIN kept, after CALIB_WARMUP unmeasured. */
#define CALIB_REPS_MIN 15
#define CALIB_WARMUP 2
/* N runs of the add chain inside a sample that carries its own calibration: its N run and its 2N run. */
#define CALIB_RUNS_IN_SAMPLE 3

bool bench_calibrate(const struct bench_setup *s, uint8_t *window, struct bench_calibration *out)
{
	/* BENCH_CALIB_ADDS adds (about 50,000 TSC ticks on a modern core) per N run: the timer's granularity
	 * and reads are far below 0.1%, and interrupts rarely land inside on the host. */
	struct bench_figures f;	/* on the stack: the image carries static storage in its file */
	struct bench_setup cs = *s;

	memset(out, 0, sizeof(*out));
	cs.iterations = BENCH_CALIB_ADDS;
	cs.reps = s->reps < CALIB_REPS_MIN ? CALIB_REPS_MIN : s->reps;
	cs.warmup = CALIB_WARMUP;
	cs.drop_budget = cs.reps;
	cs.cb = NULL;
	cs.cycles_msr = 0;
	cs.calib_per_sample = false;
	cs.target_ticks = 0;
	memset(&cs.clock, 0, sizeof(cs.clock));
	if (bench_run_variant(&cs, &calib_def, window, NULL, &f) && f.tsc.median > 0) {
		/* f.tsc is ticks per add in thousandths: cycles per tick = 1000 / that, here in millionths. */
		out->source = BENCH_CALIB_HARNESS;
		out->ppm = stats_scale(1000000000, 1, (uint64_t)f.tsc.median);
		out->spread_milli = stats_spread_milli(&f.tsc);
		return true;
	}
	if (s->fallback.ppm > 0) {
		*out = s->fallback;
		out->source = BENCH_CALIB_TIMING;
		return true;
	}
	return false;
}

/*
 * A core coming out of idle ramps its clock up over a few milliseconds
 * (1.08 to 1.30 cycles per TSC tick on the development machine): calibrate
 * until two figures in a row agree within CLOCK_DRIFT_MILLI, at most
 * SETTLE_MAX times, so the first variants are not measured on a moving
 * clock.  Under an emulator once is enough.
 */
#define CLOCK_DRIFT_MILLI 5
#define SETTLE_MAX 20

static bool clock_held(int64_t a, int64_t b)
{
	int64_t drift = a - b;
	if (drift < 0)
		drift = -drift;
	return drift * 1000 <= CLOCK_DRIFT_MILLI * (a > b ? a : b);
}

unsigned bench_settle(struct bench_setup *s, uint8_t *window)
{
	int64_t last = 0;

	for (unsigned runs = 1;; runs++) {
		bench_calibrate(s, window, &s->clock);
		s->clock_at = s->clock.source == BENCH_CALIB_HARNESS ? hw_tsc() : 0;
		if (s->emulated_time || !s->clock.ppm || runs == SETTLE_MAX || (last && clock_held(s->clock.ppm, last)))
			return runs;
		last = s->clock.ppm;
	}
}

/* The pilot's runs per choice, the least taken (a disturbed pilot only looks slower), and rounds at most. */
#define PILOT_RUNS 3
#define CHOOSE_ROUNDS 4
/* Kept samples short of the target by more than 1/SHORT_SAMPLE_DIV of it: the iterations are chosen again. */
#define SHORT_SAMPLE_DIV 10
/* N runs a sample makes (an unmeasured one, N, 2N), for the budget. */
#define RUNS_PER_SAMPLE 4

/* TSC ticks of one N run of d at `iters`: the differential of an N and a 2N run (stats_pilot_ticks), the least of
 * PILOT_RUNS windows. */
static uint64_t pilot(const struct bench_def *d, uint8_t *window, uint32_t iters)
{
	struct bench_call call = { .kernel = d->fn, .p = window + d->p_off, .q = window + d->q_off };
	uint64_t best = UINT64_MAX;

	for (unsigned i = 0; i < PILOT_RUNS; i++) {
		struct hw_window w;
		memset(&w, 0, sizeof(w));
		bool windowed = hw_window_enter(&w);
		call.trips = iters / unroll_of(d);
		bench_measure(&call);	/* unmeasured, as in a sample */
		bench_measure(&call);
		uint64_t n = call.tsc_end - call.tsc_start;
		call.trips *= 2;
		bench_measure(&call);
		uint64_t n2 = call.tsc_end - call.tsc_start;
		if (windowed)
			hw_window_leave(&w);
		uint64_t est = stats_pilot_ticks(n, n2);
		if (est && est < best)
			best = est;
	}
	return best == UINT64_MAX ? 0 : best;
}

/*
 * Adaptive iterations: from s->iterations (the floor) up until one N run spans
 * s->target_ticks, aiming an eighth above it so one step lands past it;
 * within the budget (every sample the pass may take, RUNS_PER_SAMPLE runs
 * each) and BENCH_ITERATIONS_MAX.
 */
/* The most ticks one N run may take so that every sample of the pass fits the budget (0: no budget). */
static uint64_t run_ticks_max(const struct bench_setup *s)
{
	uint64_t samples = (uint64_t)s->warmup + s->reps + s->drop_budget;
	return s->budget_ticks && samples ? s->budget_ticks / (samples * RUNS_PER_SAMPLE) : 0;
}

static uint32_t choose_iterations(const struct bench_setup *s, const struct bench_def *d, uint8_t *window,
				  bool *capped, uint64_t *ticks)
{
	uint64_t max_ticks = run_ticks_max(s);
	uint32_t it = s->iterations;

	*capped = false;
	for (unsigned round = 0;; round++) {
		*ticks = pilot(d, window, it);
		if (*ticks >= s->target_ticks || round == CHOOSE_ROUNDS)
			return it;
		uint32_t next = stats_choose_iterations(s->iterations, unroll_of(d), it, *ticks,
							s->target_ticks + s->target_ticks / 8, max_ticks,
							BENCH_ITERATIONS_MAX, capped);
		if (next <= it)
			return it;
		it = next;
	}
}

/*
 * Where the window cannot hold interrupts off, a run longer than
 * s->window_ticks_max is cut to fit (*window says so), below the floor if
 * need be, and piloted again at the new count.
 */
static uint32_t fit_window(const struct bench_setup *s, const struct bench_def *d, uint8_t *window_mem, uint32_t it,
			   uint64_t *ticks, bool *window)
{
	*window = false;
	for (unsigned round = 0; round < CHOOSE_ROUNDS && s->window_ticks_max && *ticks > s->window_ticks_max; round++) {
		uint32_t fit = stats_fit_window(it, unroll_of(d), *ticks, s->window_ticks_max);
		if (fit >= it)
			break;
		it = fit;
		*window = true;
		*ticks = pilot(d, window_mem, it);
	}
	return it;
}

/*
 * When d's cycles will come from the TSC, it is measured between two
 * calibrations, and each sample carries its own (bench_setup.calib_per_sample):
 * its ticks become cycles with the clock of its own window, and a sample
 * whose clock moved inside that window by more than the calibration before's
 * spread is rejected.  If too few samples survived the variant is measured
 * again (at most MAX_REMEASURE times; the figures say how often and carry both
 * calibrations).  Without per-sample calibrations (the harness's failed, the
 * fallback is platform/timing's) the figure converts with the mean of the two,
 * and is measured again also when they differ by more than CLOCK_DRIFT_MILLI.
 * With bench_setup.clock_reuse_ticks a recent calibration stands as the one
 * before, and none is taken after.
 */
#define MAX_REMEASURE 2

/* The harness's calibration in force may stand as this variant's before (bench_setup.clock_reuse_ticks). */
static bool clock_reusable(const struct bench_setup *s)
{
	return s->clock_reuse_ticks && s->clock.source == BENCH_CALIB_HARNESS && s->clock.ppm > 0 && s->clock_at &&
	       hw_tsc() - s->clock_at < s->clock_reuse_ticks;
}

/* Too few samples survived (thrown away as disturbed, contended or impossible): measured again. */
static bool starved(const struct bench_figures *f)
{
	return f->cycles.unstable == STATS_UNSTABLE_BUDGET || f->cycles.unstable == STATS_UNSTABLE_DISTURBED;
}

static bool measure_bracketed(struct bench_setup *s, const struct bench_def *d, uint8_t *window,
			      struct count_set *set, struct bench_figures *f)
{
	bool bracket = !s->emulated_time && cycles_event(set) < 0 && !s->cycles_msr;

	for (unsigned remeasured = 0;; remeasured++) {
		struct bench_calibration before, after;
		s->calib_per_sample = false;
		if (bracket) {
			if (clock_reusable(s)) {
				before = s->clock;
			} else {
				bench_calibrate(s, window, &before);
				s->clock_at = before.source == BENCH_CALIB_HARNESS ? hw_tsc() : 0;
			}
			s->clock = before;
			s->calib_per_sample = before.source == BENCH_CALIB_HARNESS;
		}
		if (!bench_run_variant(s, d, window, set, f))
			return false;
		/* Only the harness's own calibration can be repeated after the variant. */
		if (!bracket || before.source != BENCH_CALIB_HARNESS || f->cycles_source != BENCH_CYCLES_TSC_CALIBRATED)
			return true;
		/* Reused (clock_reuse_ticks): no calibration after, every sample converted with its own clock. */
		bool reused = s->clock_reuse_ticks && f->calibration.per_sample;
		if (reused) {
			f->calibration.before = before.ppm;
			f->calibration.remeasured = remeasured;
		} else if (!bench_calibrate(s, window, &after) || after.source != BENCH_CALIB_HARNESS) {
			f->calibration.before = before.ppm;	/* only the figure from before */
			f->calibration.remeasured = remeasured;
			return true;
		} else if (f->calibration.per_sample) {
			f->calibration.before = before.ppm;
			f->calibration.after = after.ppm;
			f->calibration.remeasured = remeasured;
			s->clock = after;	/* the clock in force now */
			s->clock_at = hw_tsc();
		} else {
			/* Convert again with the mean of the two: back to ticks with the before figure, then forward. */
			s->clock.ppm = (before.ppm + after.ppm) / 2;
			s->clock.spread_milli = before.spread_milli > after.spread_milli ? before.spread_milli
											 : after.spread_milli;
			s->clock.before = before.ppm;
			s->clock.after = after.ppm;
			s->clock.remeasured = remeasured;
			f->cycles = f->tsc;
			stats_figure_scale(&f->cycles, (uint64_t)s->clock.ppm, 1000000);
			f->calibration = s->clock;
		}
		/*
		 * Again when too few samples survived, and, where the figure was converted with the mean of the
		 * two calibrations, when the clock moved between them: a spread that is the kernel's own is kept.
		 * Samples that carried their own calibration were each converted with their own clock and judged
		 * by it, so a clock that moved between the variant's ends moved no figure (on the shared Xeon
		 * host, whose clock steps about 3% between two turbo bins, it remeasured every other variant).
		 */
		bool moved = !reused && !f->calibration.per_sample && !clock_held(after.ppm, before.ppm);
		if ((!moved && !starved(f)) || remeasured == MAX_REMEASURE)
			return true;
	}
}

bool bench_measure_variant(struct bench_setup *s, const struct bench_def *d, uint8_t *window,
			   struct count_set *set, struct bench_figures *f)
{
	const uint32_t floor = s->iterations;
	bool capped = false, cut = false;
	uint64_t ticks = 0;

	if (s->target_ticks) {
		s->iterations = choose_iterations(s, d, window, &capped, &ticks);
		s->iterations = fit_window(s, d, window, s->iterations, &ticks, &cut);
		capped = capped || cut;
	}
	bool ok = measure_bracketed(s, d, window, set, f);
	/*
	 * A pilot that was disturbed, or ran cold (a buffer's first touch), looks slower than the kernel is, and
	 * then the samples span less than the target.  Choose once more from what the kept samples took, and
	 * measure again.
	 */
	if (ok && s->target_ticks && !capped && f->tsc.n && f->tsc.median > 0) {
		uint64_t sample = (uint64_t)stats_scale(f->tsc.median, s->iterations, 1000);
		if (sample < s->target_ticks - s->target_ticks / SHORT_SAMPLE_DIV) {
			uint32_t next = stats_choose_iterations(floor, unroll_of(d), s->iterations, sample,
								s->target_ticks + s->target_ticks / 8, run_ticks_max(s),
								BENCH_ITERATIONS_MAX, &capped);
			if (next > s->iterations) {
				s->iterations = next;
				ticks = sample;
				ok = measure_bracketed(s, d, window, set, f);
			}
		}
	}
	s->iterations = floor;
	s->calib_per_sample = false;
	f->iterations_min = floor;
	f->iterations_capped = capped;
	f->iterations_window = cut;
	f->pilot_ticks = ticks;
	return ok;
}

void bench_observe(const struct bench_setup *s, const struct bench_def *d, uint8_t *window, uint32_t arena_page,
		   const struct bench_observer *obs, size_t nobs)
{
	struct bench_variant_id id = { d->kernel, d->variant, arena_page };
	struct bench_call call = { .kernel = d->fn, .trips = s->iterations / unroll_of(d), .p = window + d->p_off,
				   .q = window + d->q_off };

	for (size_t i = 0; i < nobs; i++) {
		const struct bench_observer *o = &obs[i];
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

uint64_t bench_variant_ticks(const struct bench_setup *s, uint64_t run_ticks)
{
	uint64_t samples = (uint64_t)s->warmup + s->reps;
	/* One add a cycle: the chain's N run in ticks is its adds over cycles per tick. */
	uint64_t cal_run = s->clock.ppm > 0 ? (uint64_t)BENCH_CALIB_ADDS * 1000000 / (uint64_t)s->clock.ppm : 0;

	uint64_t pilots = 0;
	if (s->target_ticks) {
		/* What choose_iterations aims at, within the budget, and its last pilot round. */
		uint64_t max = run_ticks_max(s);
		run_ticks = s->target_ticks + s->target_ticks / 8;
		if (max && run_ticks > max)
			run_ticks = max;
		pilots = PILOT_RUNS;
	}
	/* The pilots and the samples, RUNS_PER_SAMPLE N runs each. */
	uint64_t t = (pilots + samples) * RUNS_PER_SAMPLE * run_ticks;
	/* Cycles from the TSC (measure_bracketed): a calibration before and after, and one inside each sample. */
	if (!s->emulated_time && !s->cycles_msr && cal_run) {
		uint64_t cal_samples = (s->reps < CALIB_REPS_MIN ? CALIB_REPS_MIN : s->reps) + CALIB_WARMUP;
		uint64_t one_cal = cal_samples * RUNS_PER_SAMPLE * cal_run;
		t += samples * CALIB_RUNS_IN_SAMPLE * cal_run * BENCH_SAMPLE_CALIB_ADDS / BENCH_CALIB_ADDS;
		/* Reused (clock_reuse_ticks): one calibration per that many ticks, the variant's share of it. */
		t += s->clock_reuse_ticks ? one_cal * t / s->clock_reuse_ticks : 2 * one_cal;
	}
	return t;
}
