/*
 * bench/src_variants.c - the table's variants (bench/kernels.c) as a source of rows; see stage_int.h.
 *
 * The rows the plan chose run in table order, a split kernel's arena by arena (its controls first
 * within each); the memory ladder's rows are src_ladder.c's.  A control's figures are kept (on the
 * heap) for the variants compared with it.
 */
#include "bench/stage_int.h"
#include "lib/heap.h"
#include "lib/out.h"

#define MEMO_MAX 12
/* Why a variant has no control figures although its control was chosen (the record's penalty_why). */
#define CONTROL_FAILED "it was not measured here (its error record says why)"

/* A control's figures (heap), kept for the variants compared with it. */
struct memo {
	const struct bench_def *d;
	int slot;
	const struct bench_figures *f;
};

/* Where next() is: row i of the table; inside a split kernel's rows [i, end), arena s at row k. */
static struct {
	size_t i, end, s, k;
	struct memo memo[MEMO_MAX];
	size_t nmemo;
} vs;

static bool is_variant(const struct bench_def *d)
{
	return d->ladder == BENCH_LADDER_NONE;
}

static size_t variants_choose(struct stage *st)
{
	size_t n = 0;
	for (size_t i = 0; i < bench_def_count(); i++)
		n += st->plan->table[i] && is_variant(bench_def_at(i));
	return n;
}

static void variants_prepare(struct stage *st, unsigned *variants, unsigned *rows)
{
	memset(&vs, 0, sizeof(vs));
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *d = bench_def_at(i);
		if (!st->plan->table[i] || !is_variant(d))
			continue;
		(*variants)++;
		*rows += d->per_arena ? (unsigned)st->nslots : 1;
	}
}

static const struct bench_figures *memo_find(const struct bench_def *d, int slot)
{
	for (size_t i = 0; i < vs.nmemo; i++)
		if (vs.memo[i].d == d && vs.memo[i].slot == slot)
			return vs.memo[i].f;
	return NULL;
}

static void row_at(struct stage *st, struct bench_row *row, size_t i, int slot)
{
	const struct bench_def *d = bench_def_at(i), *cd = bench_def_control(d);
	*row = (struct bench_row){
		.d = d,
		.sl = slot == NO_SLOT ? NULL : &st->slots[slot],
		.slot = slot,
		.checked = true,
		.ctl = cd ? memo_find(cd, slot) : NULL,
		.ctl_missing = CONTROL_FAILED,
	};
}

static bool variants_next(struct stage *st, struct bench_row *row)
{
	size_t n = bench_def_count();
	const bool *chosen = st->plan->table;

	for (;;) {
		/* A split kernel's rows, arena by arena. */
		for (; vs.end > vs.i && vs.s < st->nslots; vs.s++, vs.k = vs.i)
			while (vs.k < vs.end)
				if (chosen[vs.k++]) {
					row_at(st, row, vs.k - 1, (int)vs.s);
					return true;
				}
		if (vs.end > vs.i)
			vs.i = vs.end;
		if (vs.i >= n)
			return false;
		const struct bench_def *d = bench_def_at(vs.i);
		if (!is_variant(d)) {
			vs.i++;
			continue;
		}
		if (!d->per_arena) {
			size_t i = vs.i++;
			if (chosen[i]) {
				row_at(st, row, i, NO_SLOT);
				return true;
			}
			continue;
		}
		vs.end = vs.i;
		while (vs.end < n && bench_def_at(vs.end)->per_arena && !strcmp(bench_def_at(vs.end)->kernel, d->kernel))
			vs.end++;
		vs.s = 0;
		vs.k = vs.i;
	}
}

static void variants_done(struct stage *st, const struct bench_row *row, bool measured)
{
	struct bench_figures *copy;

	if (!measured || row->d->expect != BENCH_CONTROL)
		return;
	if (vs.nmemo == MEMO_MAX || !(copy = heap_alloc(sizeof(*copy), sizeof(int64_t))))
		return;	/* its variants' checks then say "control not measured" */
	*copy = *st->figs;
	vs.memo[vs.nmemo++] = (struct memo){ row->d, row->slot, copy };
}

static void variants_list(const struct cpu_info *ci)
{
	static const char *const expect[] = { "reference", "control", "slower than its control", "events only",
					      "sweep point" };
	(void)ci;
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *d = bench_def_at(i);
		char name[64], what[64];
		if (!is_variant(d))
			continue;
		snprintf(name, sizeof(name), "%s.%s", d->kernel, d->variant);
		snprintf(what, sizeof(what), "%s%s%s%s", expect[d->expect], d->control ? " (vs " : "",
			 d->control ? d->control : "", d->control ? ")" : "");
		out_text("%-33s %-38s %s", name, what, d->body);
	}
}

const struct bench_source bench_src_variants = {
	.kind = BENCH_SRC_VARIANTS,
	.choose = variants_choose,
	.prepare = variants_prepare,
	.next = variants_next,
	.done = variants_done,
	.list = variants_list,
};
