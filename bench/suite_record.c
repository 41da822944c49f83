/* bench/suite_record.c - the `bench` record and its readable line; see suite_int.h. */
#include "bench/suite_int.h"
#include "kernel/arena.h"
#include "lib/out.h"

static void rec_figure(struct rec *r, const char *key, const struct bench_figure *f)
{
	rec_obj(r, key);
	rec_milli(r, "min", f->min);
	rec_milli(r, "median", f->median);
	rec_milli(r, "max", f->max);
	rec_u64(r, "n", f->n);
	rec_obj_end(r);
}

static const char *expect_name(enum bench_expect e)
{
	static const char *const names[] = { "reference", "control", "slower", "events", "sweep" };
	return names[e];
}

void suite_emit_bench(const struct bench_def *d, const struct slot *sl, const struct count_set *cs,
		       const struct bench_result *res, const struct measured *m, const struct memo *ctl)
{
	struct rec *r = &suite.rec;
	char a[32], b[32], c[32], pen[64];

	rec_start(r, "bench");
	rec_str(r, "kernel", d->kernel);
	rec_str(r, "variant", d->variant);
	rec_str(r, "control", d->control);
	rec_str(r, "arena", sl ? sl->name : NULL);
	if (sl && sl->page)
		rec_u64(r, "arena_page", sl->page);
	else
		rec_null(r, "arena_page");
	if (!sl)
		rec_null(r, "page_crossed");
	else if (!d->crosses_4k)
		rec_bool(r, "page_crossed", false);
	else if (sl->page)
		rec_bool(r, "page_crossed", sl->page == ARENA_PAGE_4K);
	else
		rec_null(r, "page_crossed");
	rec_hex(r, "page_offset", ((uintptr_t)(sl ? sl->window : suite.scratch) + d->p_off) & 0xfff);
	rec_u64(r, "iterations", res->iterations);
	rec_u64(r, "reps", res->reps);
	rec_u64(r, "dropped", res->dropped);
	rec_bool(r, "exhausted", res->exhausted);
	rec_bool(r, "interrupts_off", res->windowed);
	rec_str(r, "method", BENCH_METHOD);
	rec_figure(r, "cycles", &m->cycles);
	rec_str(r, "cycles_source", m->cycles_source);
	if (!strcmp(m->cycles_source, "tsc_calibrated")) {
		rec_obj(r, "calibration");
		rec_str(r, "source", suite.calibration);
		rec_milli(r, "core_per_tsc", suite.ppm / 1000);
		if (suite.ppm_before && suite.ppm_after) {
			rec_milli(r, "before", suite.ppm_before / 1000);
			rec_milli(r, "after", suite.ppm_after / 1000);
		}
		rec_u64(r, "remeasured", suite.remeasured);
		rec_obj_end(r);
	} else {
		rec_null(r, "calibration");
	}
	rec_figure(r, "tsc", &res->tsc);
	if (m->have_instructions)
		rec_figure(r, "instructions", &m->instructions);
	else
		rec_null(r, "instructions");
	rec_obj(r, "events");
	for (size_t i = 0; cs && i < cs->n; i++)
		if (res->ev[i].ok)
			rec_figure(r, cs->ev[i].name, &res->ev[i].fig);
	rec_obj_end(r);
	rec_u64(r, "passes", res->passes);
	if (ctl) {
		rec_obj(r, "penalty");
		rec_milli(r, "median", m->cycles.median - ctl->cycles.median);
		rec_milli(r, "low", m->cycles.min - ctl->cycles.max);
		rec_milli(r, "high", m->cycles.max - ctl->cycles.min);
		rec_obj_end(r);
	} else {
		rec_null(r, "penalty");
	}
	rec_str(r, "expect", expect_name(d->expect));
	rec_bool(r, "emulated", suite.ci->exec == EXEC_EMULATED);
	rec_str(r, "body", d->body);
	rec_str(r, "problem", res->problem[0] ? res->problem : NULL);
	rec_emit(r);

	pen[0] = 0;
	if (ctl) {
		int64_t p = m->cycles.median - ctl->cycles.median;
		snprintf(pen, sizeof(pen), "  %s%s vs %s", p >= 0 ? "+" : "", fmt_milli(c, p), d->control);
	}
	out_text("  %-14s %-19s %-8s %9s cycles/it  [%s..%s] n=%u drop=%u%s", d->kernel, d->variant, sl ? sl->name : "",
		 fmt_milli(a, m->cycles.median), fmt_milli(b, m->cycles.min), fmt_milli(c, m->cycles.max), m->cycles.n,
		 res->dropped, pen);
	if (res->problem[0])
		out_text("    note: %s", res->problem);
}
