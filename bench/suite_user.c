/*
 * bench/suite_user.c - user kernels in the benchmark stage (docs/kernels.md).
 *
 * Each chosen kernel (`bench=user.NAME`, `user`, `all`) is placed in
 * executable memory with the harness's frame (bench/ukernel_code.c), tried
 * once under the guard (platform/guard.h) with the trip counts the
 * measurement will use, and only then measured like a built-in: same
 * harness, window, differential, counters, statistics and record.  A
 * kernel that faults in the trial gets a `fault` record, one that runs past
 * the bound a `timeout` record; the window is restored and the stage goes
 * on with the next kernel.
 */
#include "bench/suite_int.h"
#include "bench/ukernel_code.h"
#include "platform/guard.h"
#include "platform/hw.h"
#include "lib/heap.h"
#include "lib/out.h"
#include "lib/strbuf.h"

#define USER_KERNEL "user"
#define US_PER_MS 1000u
#define DISASM_MAX 512

struct uk_row {
	const struct ukernel *k;
	const char *where;
	struct bench_def def;
	uint8_t *code;
	size_t code_len, loop_off, loop_len;
	char control[2 * UK_NAME_MAX + 2];
	char hex[2 * UK_BODY_MAX + 1];
	char body[DISASM_MAX];
	bool chosen, done, failed;
	const struct bench_figures *figs;	/* kept when it is some kernel's control (heap) */
};

static struct {
	struct ukernel_set *setp;	/* heap */
	struct uk_row *rows;		/* set.n of them (heap) */
	const char *watchdog;
	char watchdog_why[128];
	uint64_t bound_us;
} us;

static void bad_file(const char *where, const char *why, void *ctx)
{
	(void)ctx;
	rec_error("kernels", where, "%s", why);
}

static bool word_is(const char *w, size_t len, const char *s)
{
	return strlen(s) == len && !strncmp(w, s, len);
}

/* Mark the user kernels bench= chooses; unknown user.NAME words are errors naming what is loaded. */
static size_t choose(const char *spec)
{
	const char *p = spec, *w;
	size_t len, prefix = sizeof(USER_KERNEL), n = 0;

	while (lc_next_item(&p, ',', &w, &len)) {
		bool all = word_is(w, len, "all") || word_is(w, len, USER_KERNEL);
		if (word_is(w, len, "none")) {
			for (size_t i = 0; i < us.setp->n; i++)
				us.rows[i].chosen = false;
			continue;
		}
		if (!all && (len <= prefix || strncmp(w, USER_KERNEL ".", prefix)))
			continue;
		if (all) {
			for (size_t i = 0; i < us.setp->n; i++)
				us.rows[i].chosen = true;
			continue;
		}
		const struct ukernel *k = ukernel_set_find(us.setp, w + prefix, len - prefix);
		if (!k) {
			char known[160];
			size_t kk = 0;
			known[0] = 0;
			for (size_t i = 0; i < us.setp->n; i++)
				kk = str_appendf(known, sizeof(known), kk, "%s%s", i ? ", " : "", us.setp->k[i]->name);
			rec_error("bench", "bench", "no user kernel '%.*s' (loaded: %s)", (int)(len > 60 ? 60 : len), w,
				  us.setp->n ? known : "none; kernel files go in \\pmuboot\\kernels\\ or kernels=DIR");
			continue;
		}
		for (size_t i = 0; i < us.setp->n; i++)
			if (us.setp->k[i] == k)
				us.rows[i].chosen = true;
	}
	/* A chosen kernel's user control is measured too (first). */
	for (size_t i = 0; i < us.setp->n; i++) {
		const char *c = us.setp->k[i]->control;
		if (!us.rows[i].chosen || !c[0] || strchr(c, '.'))
			continue;
		const struct ukernel *ck = ukernel_set_find(us.setp, c, strlen(c));
		for (size_t j = 0; ck && j < us.setp->n; j++)
			if (us.setp->k[j] == ck)
				us.rows[j].chosen = true;
	}
	for (size_t i = 0; i < us.setp->n; i++)
		n += us.rows[i].chosen;
	return n;
}

static unsigned unroll_for(const struct ukernel *k)
{
	return suite.p->kernel_unroll ? suite.p->kernel_unroll : ukernel_unroll(k);
}

/* Where in the generated code rip lies, for the records. */
static void code_place(struct rec *r, const struct uk_row *u, uint64_t rip)
{
	uint64_t base = (uint64_t)(uintptr_t)u->code;
	if (rip < base || rip >= base + u->code_len) {
		rec_null(r, "code_offset");
		rec_str(r, "in", "outside the kernel's code");
		return;
	}
	uint64_t off = rip - base;
	rec_hex(r, "code_offset", off);
	if (off >= u->loop_off && off < u->loop_off + u->loop_len) {
		rec_str(r, "in", "body");
		rec_u64(r, "copy", (off - u->loop_off) / u->k->body_len);
		rec_hex(r, "body_offset", (off - u->loop_off) % u->k->body_len);
	} else if (off < u->loop_off) {
		/* The frame's prologue, then the init, then padding up to the loop. */
		rec_str(r, "in", "init");
	} else {
		rec_str(r, "in", "loop control");
	}
}

static const char *vector_name(unsigned v)
{
	static const char names[][5] = { "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "CSO",
					 "#TS", "#NP", "#SS", "#GP", "#PF", "?",   "#MF", "#AC", "#MC", "#XM" };
	return v < ARRAY_SIZE(names) ? names[v] : "?";
}

static void emit_stopped(const struct uk_row *u, const struct hw_guard_result *g)
{
	struct rec *r = &suite.rec;
	char name[UK_NAME_MAX + 8];

	snprintf(name, sizeof(name), USER_KERNEL ".%s", u->k->name);
	if (g->outcome == HW_GUARD_FAULT) {
		rec_start(r, "fault");
		rec_str(r, "kernel", name);
		rec_str(r, "source", u->where);
		rec_u64(r, "vector", g->vector);
		rec_str(r, "name", vector_name(g->vector));
		if (g->what)
			rec_str(r, "signal", g->what);
		rec_hex(r, "error_code", g->error_code);
		rec_hex(r, "addr", g->addr);
		code_place(r, u, g->rip);
		rec_str(r, "body_hex", u->hex);
		rec_str(r, "outcome", "kernel not measured; the window was restored and the run goes on");
		rec_emit(r);
		out_text("  user %-24s FAULT %s in its trial run: not measured", u->k->name, vector_name(g->vector));
		return;
	}
	rec_start(r, "timeout");
	rec_str(r, "kernel", name);
	rec_str(r, "source", u->where);
	rec_u64(r, "bound_ms", us.bound_us / US_PER_MS);
	rec_str(r, "watchdog", us.watchdog);
	code_place(r, u, g->rip);
	rec_str(r, "body_hex", u->hex);
	rec_str(r, "outcome", "kernel stopped by the watchdog and not measured; the run goes on");
	rec_emit(r);
	out_text("  user %-24s TIMEOUT: still running after %llu ms, stopped (%s)", u->k->name,
		 (unsigned long long)(us.bound_us / US_PER_MS), us.watchdog);
}

/* The set-up record: which user kernels there are, the watchdog, the bound. */
static void emit_setup(size_t chosen)
{
	struct rec *r = &suite.rec;
	rec_start(r, "user_kernels");
	rec_arr(r, "loaded");
	for (size_t i = 0; i < us.setp->n; i++) {
		rec_obj(r, NULL);
		rec_str(r, "name", us.setp->k[i]->name);
		rec_str(r, "source", us.setp->where[i]);
		rec_bool(r, "chosen", us.rows[i].chosen);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_u64(r, "chosen", chosen);
	rec_u64(r, "bound_ms", us.bound_us / US_PER_MS);
	rec_str(r, "watchdog", us.watchdog);
	rec_str(r, "watchdog_why", us.watchdog ? NULL : us.watchdog_why);
	rec_emit(r);
	if (!us.watchdog)
		out_text("bench: no watchdog here (%s): a user kernel that never finishes cannot be stopped",
			 us.watchdog_why);
}

struct trial {
	struct bench_call call;
};

static void trial_fn(void *p)
{
	struct trial *t = p;
	bench_measure(&t->call);
}

/* The runs the measurement will make (1 trip, N, 2N), under the guard, in a window. */
static bool try_kernel(struct uk_row *u, uint32_t iterations)
{
	const uint64_t trips[] = { 1, iterations / u->def.unroll, 2ull * iterations / u->def.unroll };
	struct trial t;
	struct hw_guard_result g;

	memset(&t, 0, sizeof(t));
	t.call.kernel = u->def.fn;
	t.call.p = suite.scratch + u->def.p_off;
	t.call.q = suite.scratch + u->def.q_off;
	for (size_t i = 0; i < ARRAY_SIZE(trips); i++) {
		struct hw_window w;
		memset(&w, 0, sizeof(w));
		bool windowed = hw_window_enter(&w);
		t.call.trips = trips[i];
		hw_guarded_call(trial_fn, &t, us.watchdog ? us.bound_us : 0, &g);
		if (windowed)
			hw_window_leave(&w);
		if (g.outcome != HW_GUARD_OK) {
			emit_stopped(u, &g);
			return false;
		}
	}
	return true;
}

/* Put k's code in executable memory and describe it as a row of the table. */
static bool place(struct uk_row *u)
{
	char why[128];
	unsigned unroll = unroll_for(u->k);

	if ((uint32_t)unroll * u->k->body_len > UK_UNROLLED_MAX) {
		rec_error("kernels", u->where, "%u copies of %s's %u-byte body exceed %u bytes", unroll, u->k->name,
			  u->k->body_len, UK_UNROLLED_MAX);
		return false;
	}
	u->code_len = ukernel_code_size(u->k, unroll);
	if (!(u->code = hw_xmem_alloc(u->code_len, why, sizeof(why)))) {
		rec_error("kernels", u->where, "no executable memory for %s: %s", u->k->name, why);
		return false;
	}
	ukernel_code_write(u->k, unroll, u->code, u->code_len, &u->loop_off, &u->loop_len);
	if (!hw_xmem_seal(u->code, u->code_len, why, sizeof(why))) {
		rec_error("kernels", u->where, "%s's code cannot be made executable: %s", u->k->name, why);
		return false;
	}
	ukernel_hex(u->k->body, u->k->body_len, u->hex, sizeof(u->hex));
	if (!suite.p->disasm || !suite.p->disasm(u->k->body, u->k->body_len, u->body, sizeof(u->body)))
		snprintf(u->body, sizeof(u->body), "bytes %.*s", (int)(sizeof(u->body) - 16), u->hex);
	if (u->k->control[0])
		snprintf(u->control, sizeof(u->control), "%s", u->k->control);
	u->def = (struct bench_def){
		.kernel = USER_KERNEL,
		.variant = u->k->name,
		.control = u->k->control[0] ? u->control : NULL,
		.fn = (bench_kernel_fn)(void *)u->code,
		.fn_end = u->code + u->code_len,
		.p_off = 0,
		.q_off = BENCH_PAGE,
		.expect = BENCH_SWEEP,	/* figures only: what a user kernel should show is not known */
		.body = u->body,
		.unroll = unroll,
	};
	return true;
}

/*
 * The figures of u's control: a user kernel measured earlier, or a built-in
 * measured here for the purpose.  NULL with why (for the record's
 * penalty_why) when there are none.
 */
static const struct bench_figures *control_figs(const struct uk_row *u, char *why, size_t cap)
{
	const char *c = u->k->control;
	if (!c[0])
		return NULL;
	const char *dot = strchr(c, '.');
	if (!dot) {
		for (size_t i = 0; i < us.setp->n; i++) {
			const struct uk_row *cu = &us.rows[i];
			if (strcmp(us.setp->k[i]->name, c))
				continue;
			if (cu->figs)
				return cu->figs;
			if (!cu->chosen)
				snprintf(why, cap, "user.%s was not chosen (a control's own control is not measured "
					 "unless bench= names it)", c);
			else if (cu->failed)
				snprintf(why, cap, "user.%s was not measured (its fault, timeout or error record says why)",
					 c);
			else if (!cu->done)
				snprintf(why, cap, "user.%s is measured after this kernel", c);
			else
				snprintf(why, cap, "no memory to keep user.%s's figures", c);
			return NULL;
		}
		snprintf(why, cap, "no kernel '%s' is loaded (a control is a user kernel's name or a built-in "
			 "kernel.variant)", c);
		return NULL;
	}
	char kn[UK_NAME_MAX + 1];
	snprintf(kn, sizeof(kn), "%.*s", (int)(dot - c), c);
	const struct bench_def *d = bench_def_find(kn, dot + 1);
	struct bench_figures *f;
	if (!d) {
		snprintf(why, cap, "no built-in variant %s (bench=list lists them)", c);
		return NULL;
	}
	if (d->per_arena) {
		snprintf(why, cap, "%s is measured per arena page size and cannot be a user kernel's control", c);
		return NULL;
	}
	if (!(f = heap_alloc(sizeof(*f), sizeof(int64_t)))) {
		snprintf(why, cap, "no memory to measure %s", c);
		return NULL;
	}
	struct count_set *csp = NULL;
	if (suite.hs.cb) {
		suite_build_set(suite.cs, suite_roles_for(d));
		csp = suite.cs->n ? suite.cs : NULL;
	}
	if (bench_measure_variant(&suite.hs, d, suite.scratch, csp, f))
		return f;
	str_appendf(why, cap, 0, "%s was not measured: %s", c, f->problem);
	return NULL;
}

static void run_user(struct uk_row *u)
{
	struct bench_figures *f = suite.figs;
	struct count_set *csp = NULL;
	uint32_t saved = suite.hs.iterations, unroll = u->def.unroll;

	/* Iterations: a whole number of trips of this kernel's unroll. */
	suite.hs.iterations = (suite.p->iterations + unroll - 1) / unroll * unroll;
	if (try_kernel(u, suite.hs.iterations)) {
		char ctl_why[160] = "";
		const struct bench_figures *ctl = control_figs(u, ctl_why, sizeof(ctl_why));
		if (suite.hs.cb) {
			suite_build_set(suite.cs, 0);
			csp = suite.cs->n ? suite.cs : NULL;
		}
		if (!bench_measure_variant(&suite.hs, &u->def, suite.scratch, csp, f)) {
			rec_error("bench", USER_KERNEL, "user.%s not measured: %s", u->k->name, f->problem);
		} else {
			for (size_t i = 0; i < f->nev; i++)
				f->ev[i].name = suite_static_name(&suite.cs->ev[i]);
			suite_apply_audit(csp, f);
			/* No checks (nothing is expected of a user kernel). */
			suite_emit_bench(&u->def, NULL, f, ctl, ctl_why[0] ? ctl_why : NULL);
			suite_metrics_variant(&u->def, NULL, suite.scratch, f);
			suite.row++;
			struct bench_figures *keep = heap_alloc(sizeof(*keep), sizeof(int64_t));
			if (keep) {
				*keep = *f;
				u->figs = keep;
			}
			if (suite.p->nobservers)
				bench_observe(&suite.hs, &u->def, suite.scratch, 0, suite.p->observers, suite.p->nobservers);
		}
	} else {
		u->failed = true;
	}
	u->done = true;
	suite.hs.iterations = saved;
}

const char *suite_user_body_hex(const struct bench_def *d)
{
	for (size_t i = 0; us.rows && i < us.setp->n; i++)
		if (d == &us.rows[i].def)
			return us.rows[i].hex;
	return NULL;
}

size_t suite_user_prepare(void)
{
	const struct bench_params *p = suite.p;

	memset(&us, 0, sizeof(us));
	if (!(us.setp = heap_alloc(sizeof(*us.setp), sizeof(int64_t)))) {
		rec_error("kernels", "memory", "no room on the heap for the user kernels");
		return 0;
	}
	ukernel_set_build(us.setp, p->kernel_files, p->nkernel_files, p->kernel_hex, p->nkernel_hex, bad_file, NULL);
	if (!us.setp->n)
		return choose(p->bench);	/* none loaded: user.NAME words are still errors */
	if (!(us.rows = heap_alloc(us.setp->n * sizeof(*us.rows), sizeof(int64_t)))) {
		rec_error("kernels", "memory", "no room for %zu user kernels", us.setp->n);
		us.setp->n = 0;
		return 0;
	}
	for (size_t i = 0; i < us.setp->n; i++) {
		us.rows[i].k = us.setp->k[i];
		us.rows[i].where = us.setp->where[i];
	}
	return choose(p->bench);
}

void suite_user_run(size_t chosen)
{
	if (!chosen)
		return;
	us.bound_us = (uint64_t)suite.p->kernel_timeout_ms * US_PER_MS;
	us.watchdog = hw_guard_watchdog(us.watchdog_why, sizeof(us.watchdog_why));
	emit_setup(chosen);
	/* Controls first: a kernel's penalty needs its control's figures. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < us.setp->n; i++) {
			struct uk_row *u = &us.rows[i];
			bool is_control = false;
			for (size_t j = 0; j < us.setp->n; j++)
				if (us.rows[j].chosen && !strcmp(us.setp->k[j]->control, u->k->name))
					is_control = true;
			if (!u->chosen || u->done || (pass == 0 && !is_control))
				continue;
			if (!place(u)) {
				u->done = u->failed = true;
				continue;
			}
			run_user(u);
		}
	}
	for (size_t i = 0; i < us.setp->n; i++)
		if (us.rows[i].code)
			hw_xmem_free(us.rows[i].code, us.rows[i].code_len);
}
