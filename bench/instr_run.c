/* bench/instr_run.c - measuring one instruction form's kernels; see instr_run.h. */
#include "bench/instr_run.h"
#include "bench/ukernel.h"
#include "bench/ukernel_code.h"
#include "platform/hw.h"
#include "lib/record.h"
#include "lib/strbuf.h"

#define MEASURE_RETAKES 3 /* measurements again when not one sample was kept */
#define MEASURE_RETAKES_CONTENDED 1 /* the same, when most of its samples were thrown away as contended */

static void fill(uint8_t *window, uint64_t v)
{
	uint64_t *w = (uint64_t *)(void *)window;
	for (size_t i = 0; i < BENCH_WINDOW_BYTES / sizeof(*w); i++)
		w[i] = v;
}

struct trial {
	struct bench_call call;
};

static void trial_fn(void *p) { bench_measure(&((struct trial *)p)->call); }

/* The runs the measurement will make (1 trip, N, 2N), under the guard, in a window: false on a fault. */
static bool try_kernel(const struct instr_runner *rn, const struct bench_def *d, uint32_t iterations,
		       struct hw_guard_result *g)
{
	const uint64_t trips[] = { 1, iterations / d->unroll, 2ull * iterations / d->unroll };
	struct trial t;

	memset(&t, 0, sizeof(t));
	t.call.kernel = d->fn;
	t.call.p = rn->window + d->p_off;
	t.call.q = rn->window + d->q_off;
	for (size_t i = 0; i < ARRAY_SIZE(trips); i++) {
		struct hw_window w;
		memset(&w, 0, sizeof(w));
		bool windowed = hw_window_enter(&w);
		t.call.trips = trips[i];
		hw_guarded_call(trial_fn, &t, rn->watchdog ? INSTR_TRIAL_BOUND_US : 0, g);
		if (windowed)
			hw_window_leave(&w);
		if (g->outcome != HW_GUARD_OK)
			return false;
	}
	return true;
}

/* Why no sample was kept, with the rejections by fate. */
static void not_kept(struct instr_result *r, const struct bench_figures *figs)
{
	size_t k = str_appendf(r->why, sizeof(r->why), 0, "not measured: %s",
			       figs->problem[0] ? figs->problem : "no samples");
	const char *sep = " (rejected: ";
	for (unsigned fate = STATS_REJECT_NEGATIVE; fate < STATS_REJECT_DISTURBED; fate++)
		if (figs->rejected[fate]) {
			k = str_appendf(r->why, sizeof(r->why), k, "%s%s %u", sep, stats_fate_name((enum stats_fate)fate),
					figs->rejected[fate]);
			sep = ", ";
		}
	if (sep[0] == ',')
		str_appendf(r->why, sizeof(r->why), k, ")");
}

/* The µop events are counted on the unrolled throughput kernel only (docs/instr.md "µops and ports"). */
static struct count_set *count_set_for(struct instr_runner *rn, const struct instr_pack_meas *m)
{
	return m->kind == IKM_TP_UNROLLED ? instr_events_set(rn->events) : NULL;
}

/* Whether most samples thrown away were contended (another thread on the core). */
static bool mostly_contended(const struct bench_figures *f)
{
	uint32_t thrown = f->dropped + f->contended;
	for (unsigned fate = STATS_REJECT_NEGATIVE; fate < STATS_REJECT_DISTURBED; fate++)
		thrown += f->rejected[fate];
	return 2 * f->contended > thrown;
}

/* One measurement of d from a freshly filled window: true when a sample was kept. */
static bool take(struct instr_runner *rn, const struct bench_def *d, const struct instr_pack_meas *m,
		 struct bench_figures *figs)
{
	fill(rn->window, m->fill);
	memset(figs, 0, sizeof(*figs));
	return bench_measure_variant(rn->hs, d, rn->window, count_set_for(rn, m), figs) && figs->cycles.n > 0;
}

/* Measure one kernel: cycles per body copy (thousandths) into *fig. */
static bool measure(struct instr_runner *rn, const struct instr_pack_meas *m, struct instr_result *r,
		    struct bench_figure *fig)
{
	static struct ukernel k;
	static struct bench_figures figs;
	char why[128];

	if (m->init_len > UK_INIT_MAX || m->body_len > UK_BODY_MAX || !m->body_len) {
		snprintf(r->why, sizeof(r->why), "init %u or body %u bytes: outside the harness's limits (%u, %u)",
			 m->init_len, m->body_len, UK_INIT_MAX, UK_BODY_MAX);
		return false;
	}
	memset(&k, 0, sizeof(k));
	snprintf(k.name, sizeof(k.name), "%.31s", m->name);
	unsigned unroll = m->unroll ? m->unroll : UK_UNROLL_DEFAULT;
	if (unroll > UK_UNROLL_MAX)
		unroll = UK_UNROLL_MAX;
	while (unroll > 1 && unroll * m->body_len > UK_UNROLLED_MAX)
		unroll--;
	k.unroll = (uint16_t)unroll;
	k.init_len = m->init_len;
	k.body_len = m->body_len;
	if (m->init_len) /* a kernel with no init may have no pointer to one */
		memcpy(k.init, m->init, m->init_len);
	memcpy(k.body, m->body, m->body_len);
	size_t len = ukernel_code_size(&k, unroll);
	uint8_t *code = hw_xmem_alloc(len, why, sizeof(why));
	if (!code) {
		snprintf(r->why, sizeof(r->why), "no executable memory: %s", why);
		return false;
	}
	ukernel_code_write(&k, unroll, code, len, NULL, NULL);
	bool ok = hw_xmem_seal(code, len, why, sizeof(why));
	if (!ok)
		snprintf(r->why, sizeof(r->why), "code not executable: %s", why);
	struct bench_def d = {
		.kernel = "instr",
		.variant = k.name,
		.fn = (bench_kernel_fn)(void *)code,
		.fn_end = code + len,
		.p_off = 0,
		.q_off = BENCH_PAGE,
		.expect = BENCH_SWEEP,
		.body = m->name,
		.unroll = unroll,
	};
	uint32_t saved = rn->hs->iterations, it = (saved + unroll - 1) / unroll * unroll;
	rn->hs->iterations = it;
	fill(rn->window, m->fill);
	if (ok && !try_kernel(rn, &d, it, &r->guard)) {
		r->faulted = true;
		snprintf(r->why, sizeof(r->why), "%s in its trial run (%s)",
			 r->guard.outcome == HW_GUARD_TIMEOUT ? "timed out" : "faulted",
			 r->guard.what ? r->guard.what : "?");
		ok = false;
	}
	/*
	 * Again, up to MEASURE_RETAKES times, when no sample could be kept: what spent the budget (a moving
	 * clock, interrupts, another thread on the core) is often over a moment later; on the shared
	 * development host one retake was not enough for 17 to 34 forms of a 2,572-form table.  Once only
	 * when most samples were thrown away as contended: an episode of contention can last minutes (99%
	 * of a full table's samples for two minutes once), and retakes inside it only made the run slower.
	 */
	bool tried = ok;	/* measured at least once (a kernel that did not seal or faulted in its trial is not) */
	for (unsigned attempt = 0; ok && attempt <= MEASURE_RETAKES; attempt++) {
		bool kept = take(rn, &d, m, &figs);
		*fig = figs.cycles;
		if (kept) {
			r->why[0] = 0;
			break;
		}
		not_kept(r, &figs);
		ok = attempt < (mostly_contended(&figs) ? MEASURE_RETAKES_CONTENDED : MEASURE_RETAKES);
	}
	/*
	 * Still nothing kept and contention spent the budget: measured once more without the probe, and the
	 * figure marked unstable "contended": a measurement beside another thread on the core, said so, is
	 * worth more to a table than a gap (on a busy host every sample of a form could go that way).
	 */
	if (!ok && tried && rn->hs->contention && mostly_contended(&figs)) {
		struct bench_contention *probe = rn->hs->contention;
		rn->hs->contention = NULL;
		ok = take(rn, &d, m, &figs);
		rn->hs->contention = probe;
		*fig = figs.cycles;
		if (ok) {
			fig->unstable = STATS_UNSTABLE_CONTENDED;
			r->why[0] = 0;
		}
	}
	r->unkept = tried && !ok;
	if (ok && count_set_for(rn, m))
		instr_events_take(rn->events, &figs, m->per_iter, &r->uops);
	rn->hs->iterations = saved;
	hw_xmem_free(code, len);
	return ok;
}

static int64_t per_instance(int64_t v, const struct instr_pack_meas *m) { return m->per_iter ? v / m->per_iter : v; }

/*
 * A connector's cycles per instance (measured once per run, by name): false when it could not be measured,
 * r->why saying why.  Only a figure that is not thin is kept for the run: a connector whose samples were
 * all thrown away (a moment of interrupts or a moving clock; CI saw MOVSB's once) is measured again for
 * the next form that needs it rather than leaving every later form of the run without the figures it
 * subtracts.
 */
static bool connector(struct instr_runner *rn, const struct instr_pack_meas *m, struct instr_result *r,
		      int64_t *cycles)
{
	struct bench_figure fig;
	for (size_t i = 0; i < rn->nconn; i++)
		if (!strcmp(rn->conn[i].name, m->name)) {
			*cycles = rn->conn[i].cycles;
			return true;
		}
	bool ok = r->assembled && measure(rn, m, r, &fig);
	*cycles = ok ? per_instance(fig.median, m) : 0;
	r->thin = ok && instr_figure_thin(&fig, rn->hs->reps);
	/* A thin figure would be subtracted from every later form's latencies: it serves this form only. */
	if (ok && !r->thin && rn->nconn < INSTR_CONN_MAX && strlen(m->name) < sizeof(rn->conn[0].name)) {
		snprintf(rn->conn[rn->nconn].name, sizeof(rn->conn[0].name), "%s", m->name);
		rn->conn[rn->nconn++].cycles = *cycles;
	}
	return ok;
}

void instr_run_form(struct instr_runner *rn, const struct instr_pack_form *f, struct instr_result *res)
{
	int64_t conn[IKM_MAX] = { 0 };
	bool conn_ok[IKM_MAX] = { false };

	memset(res, 0, f->n * sizeof(*res));
	for (size_t j = 0; j < f->n; j++) {
		res[j].assembled = !f->m[j].why;
		if (f->m[j].why)
			snprintf(res[j].why, sizeof(res[j].why), "%s", f->m[j].why);
	}
	/* Connectors first: latencies subtract them. */
	for (size_t j = 0; j < f->n; j++)
		if (f->m[j].kind == IKM_CONNECTOR) {
			conn_ok[j] = res[j].measured = connector(rn, &f->m[j], &res[j], &conn[j]);
			res[j].per_instance = conn[j];
		}
	for (size_t j = 0; j < f->n; j++) {
		const struct instr_pack_meas *m = &f->m[j];
		struct instr_result *r = &res[j];
		struct bench_figure fig;
		if (m->kind == IKM_CONNECTOR || !r->assembled)
			continue;
		if (rn->before)
			rn->before(rn->ctx, f, j);
		if (!measure(rn, m, r, &fig)) {
			if (r->faulted)
				return; /* the form faults: its other kernels would too */
			continue;
		}
		int64_t sub = 0;
		bool sub_ok = true;
		for (size_t s = 0; s < IKM_SUB_MAX; s++)
			if (m->sub[s] != IKM_NO_SUB) {
				sub += conn[(size_t)m->sub[s]];
				sub_ok = sub_ok && conn_ok[(size_t)m->sub[s]];
			}
		sub += (int64_t)m->least * IKM_LEAST_MILLI; /* instr/kernel.h: each at least a cycle */
		if (!sub_ok) {
			snprintf(r->why, sizeof(r->why), "its connector could not be measured");
			r->unkept = true;
			continue;
		}
		int64_t trip = per_instance(fig.median, m);
		if (trip < sub) {
			/*
			 * The round trip took less than its connectors are counted at (measured alone, or a cycle at
			 * their least): no latency is left to be this pair's, and a negative one is no figure.
			 */
			char t[32], c[32];
			snprintf(r->why, sizeof(r->why), "round trip %s cycles < its connectors' %s: no latency left",
				 fmt_milli(t, trip), fmt_milli(c, sub));
			continue;
		}
		r->measured = true;
		r->per_instance = trip - sub;
		r->lo = per_instance(fig.min, m) - sub;
		r->hi = per_instance(fig.max, m) - sub;
		r->unstable = fig.unstable == STATS_STABLE ? NULL : stats_unstable_name(fig.unstable);
		r->thin = instr_figure_thin(&fig, rn->hs->reps);
	}
}
