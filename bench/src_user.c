/*
 * bench/src_user.c - user kernels as a source of rows of the benchmark stage
 * (docs/kernels.md, bench/stage_int.h).
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
#include "bench/stage_int.h"
#include "bench/ukernel_code.h"
#include "platform/guard.h"
#include "platform/hw.h"
#include "lib/heap.h"
#include "lib/out.h"
#include "lib/strbuf.h"

#define USER_KERNEL BENCH_USER_KERNEL
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
	char ctl_why[160];		/* why its control has no figures, for the record */
	bool chosen, done, failed;
	const struct bench_figures *figs;	/* kept when it is some kernel's control (heap) */
};

static struct {
	struct ukernel_set *setp;	/* heap */
	struct uk_row *rows;		/* set.n of them (heap) */
	const char *watchdog;
	char watchdog_why[128];
	uint64_t bound_us;
	size_t chosen;
	/* Where user_next is: started (the user_kernels record is out), the pass (controls first), the kernel. */
	bool started;
	int pass;
	size_t i;
} us;

static void bad_file(const char *where, const char *why, void *ctx)
{
	(void)ctx;
	rec_error("kernels", where, "%s", why);
}

/* Mark the user kernels the plan chooses; unknown user.NAME words are errors naming what is loaded. */
static size_t choose(const struct bench_plan *pl)
{
	size_t n = 0;

	for (size_t i = 0; i < us.setp->n; i++)
		us.rows[i].chosen = pl->all;
	for (size_t w = 0; w < pl->nwords; w++) {
		const struct bench_plan_word *pw = &pl->word[w];
		size_t len;
		const char *name = bench_plan_variant(pw, &len);
		if (!bench_plan_word_is(pw, BENCH_SRC_USER, NULL))
			continue;
		if (pw->len == pw->klen && !pw->undone) {	/* `user`: every one */
			for (size_t i = 0; i < us.setp->n; i++)
				us.rows[i].chosen = true;
			continue;
		}
		if (!len)
			continue;
		const struct ukernel *k = ukernel_set_find(us.setp, name, len);
		if (!k) {
			char known[160];
			size_t kk = 0;
			known[0] = 0;
			for (size_t i = 0; i < us.setp->n; i++)
				kk = str_appendf(known, sizeof(known), kk, "%s%s", i ? ", " : "", us.setp->k[i]->name);
			rec_error("bench", "bench", "no user kernel '%.*s' (loaded: %s)", (int)(pw->len > 60 ? 60 : pw->len),
				  pw->text, us.setp->n ? known : "none; kernel files go in \\pmuboot\\kernels\\ or kernels=DIR");
			continue;
		}
		for (size_t i = 0; i < us.setp->n && !pw->undone; i++)
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

static unsigned unroll_for(const struct stage *st, const struct ukernel *k)
{
	return st->p->kernel_unroll ? st->p->kernel_unroll : ukernel_unroll(k);
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

static void emit_stopped(struct stage *st, const struct uk_row *u, const struct hw_guard_result *g)
{
	struct rec *r = &st->rec;
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
static void emit_setup(struct stage *st, size_t chosen)
{
	struct rec *r = &st->rec;
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
static bool try_kernel(struct stage *st, struct uk_row *u, uint32_t iterations)
{
	const uint64_t trips[] = { 1, iterations / u->def.unroll, 2ull * iterations / u->def.unroll };
	struct trial t;
	struct hw_guard_result g;

	memset(&t, 0, sizeof(t));
	t.call.kernel = u->def.fn;
	t.call.p = st->scratch + u->def.p_off;
	t.call.q = st->scratch + u->def.q_off;
	for (size_t i = 0; i < ARRAY_SIZE(trips); i++) {
		struct hw_window w;
		memset(&w, 0, sizeof(w));
		bool windowed = hw_window_enter(&w);
		t.call.trips = trips[i];
		hw_guarded_call(trial_fn, &t, us.watchdog ? us.bound_us : 0, &g);
		if (windowed)
			hw_window_leave(&w);
		if (g.outcome != HW_GUARD_OK) {
			emit_stopped(st, u, &g);
			return false;
		}
	}
	return true;
}

/* Put k's code in executable memory and describe it as a row of the table. */
static bool place(const struct stage *st, struct uk_row *u)
{
	char why[128];
	unsigned unroll = unroll_for(st, u->k);

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
	if (!st->p->disasm || !st->p->disasm(u->k->body, u->k->body_len, u->body, sizeof(u->body)))
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
static const struct bench_figures *control_figs(struct stage *st, const struct uk_row *u, char *why, size_t cap)
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
	if (st->hs.cb) {
		stage_build_set(st, st->cs, stage_roles_for(st, d));
		csp = st->cs->n ? st->cs : NULL;
	}
	if (bench_measure_variant(&st->hs, d, st->scratch, csp, f))
		return f;
	str_appendf(why, cap, 0, "%s was not measured: %s", c, f->problem);
	return NULL;
}

static size_t user_choose(struct stage *st)
{
	const struct bench_params *p = st->p;

	memset(&us, 0, sizeof(us));
	if (!(us.setp = heap_alloc(sizeof(*us.setp), sizeof(int64_t)))) {
		rec_error("kernels", "memory", "no room on the heap for the user kernels");
		return 0;
	}
	ukernel_set_build(us.setp, p->kernel_files, p->nkernel_files, p->kernel_hex, p->nkernel_hex, bad_file, NULL);
	if (!us.setp->n)
		return us.chosen = choose(st->plan);	/* none loaded: user.NAME words are still errors */
	if (!(us.rows = heap_alloc(us.setp->n * sizeof(*us.rows), sizeof(int64_t)))) {
		rec_error("kernels", "memory", "no room for %zu user kernels", us.setp->n);
		us.setp->n = 0;
		return 0;
	}
	for (size_t i = 0; i < us.setp->n; i++) {
		us.rows[i].k = us.setp->k[i];
		us.rows[i].where = us.setp->where[i];
	}
	return us.chosen = choose(st->plan);
}

static void user_prepare(struct stage *st, unsigned *variants, unsigned *rows)
{
	(void)st;
	*variants += (unsigned)us.chosen;
	*rows += (unsigned)us.chosen;
}

/*
 * Kernel u as a row: placed in executable memory, tried once under the guard with the trip counts
 * the measurement will use (the iterations a whole number of trips of its unroll), its control's
 * figures found.  False when it cannot run (its fault, timeout or error record says why).
 */
static bool user_row(struct stage *st, struct uk_row *u, struct bench_row *row)
{
	uint32_t saved = st->hs.iterations;
	const struct bench_figures *ctl;

	if (!place(st, u)) {
		u->done = u->failed = true;
		return false;
	}
	uint32_t unroll = u->def.unroll, iterations = (st->p->iterations + unroll - 1) / unroll * unroll;
	/* A built-in control is measured with this kernel's iterations, as the kernel is. */
	st->hs.iterations = iterations;
	if (!try_kernel(st, u, iterations)) {
		u->done = u->failed = true;
		st->hs.iterations = saved;
		return false;
	}
	u->ctl_why[0] = 0;
	ctl = control_figs(st, u, u->ctl_why, sizeof(u->ctl_why));
	st->hs.iterations = saved;
	u->done = true;
	*row = (struct bench_row){
		.d = &u->def,
		.slot = NO_SLOT,
		.iterations = iterations,
		.checked = false,	/* nothing is expected of a user kernel */
		.ctl = ctl,
		.ctl_missing = u->ctl_why[0] ? u->ctl_why : NULL,
		.body_hex = u->hex,
		.point = u,
	};
	return true;
}

/* Is u the control of a chosen kernel? */
static bool is_control(const struct uk_row *u)
{
	for (size_t j = 0; j < us.setp->n; j++)
		if (us.rows[j].chosen && !strcmp(us.setp->k[j]->control, u->k->name))
			return true;
	return false;
}

/* The chosen kernels, controls first: a kernel's penalty needs its control's figures. */
static bool user_next(struct stage *st, struct bench_row *row)
{
	if (!us.chosen)
		return false;
	if (!us.started) {
		us.started = true;
		us.bound_us = (uint64_t)st->p->kernel_timeout_ms * US_PER_MS;
		us.watchdog = hw_guard_watchdog(us.watchdog_why, sizeof(us.watchdog_why));
		emit_setup(st, us.chosen);
	}
	for (; us.pass < 2; us.pass++, us.i = 0)
		while (us.i < us.setp->n) {
			struct uk_row *u = &us.rows[us.i++];
			if (!u->chosen || u->done || (us.pass == 0 && !is_control(u)))
				continue;
			if (user_row(st, u, row))
				return true;
		}
	for (size_t i = 0; i < us.setp->n; i++)
		if (us.rows[i].code)
			hw_xmem_free(us.rows[i].code, us.rows[i].code_len);
	us.chosen = 0;	/* freed once */
	return false;
}

static void user_done(struct stage *st, const struct bench_row *row, bool measured)
{
	struct uk_row *u = (struct uk_row *)(uintptr_t)row->point;	/* ours: user_row made it */
	struct bench_figures *keep;

	if (measured && (keep = heap_alloc(sizeof(*keep), sizeof(int64_t)))) {
		*keep = *st->figs;
		u->figs = keep;
	}
}

const struct bench_source bench_src_user = {
	.kind = BENCH_SRC_USER,
	.choose = user_choose,
	.prepare = user_prepare,
	.next = user_next,
	.done = user_done,
};
