/* bench/plan.c - reading `bench=` into a plan; see plan.h. */
#include "bench/plan.h"
#include "bench/kernels.h"

static bool word_is(const char *w, size_t len, const char *s)
{
	return strlen(s) == len && !strncmp(w, s, len);
}

/* The kernel part of a word: up to its first dot. */
static size_t kernel_len(const char *w, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (w[i] == '.')
			return i;
	return len;
}

/* Mark the table rows w names; false when it names none.  The source is the rows' (a ladder's or the variants'). */
static bool table_word(struct bench_plan *pl, struct bench_plan_word *w)
{
	bool hit = false;
	const char *variant = w->text + w->klen + 1;
	size_t vlen = w->len > w->klen ? w->len - w->klen - 1 : 0;

	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *d = bench_def_at(i);
		if (!word_is(w->text, w->klen, d->kernel))
			continue;
		/* A ladder row stands for variants made at run time: bench/src_ladder.c checks the variant word. */
		if (w->len > w->klen && !word_is(variant, vlen, d->variant) && d->ladder == BENCH_LADDER_NONE)
			continue;
		pl->table[i] = true;
		w->source = d->ladder == BENCH_LADDER_NONE ? BENCH_SRC_VARIANTS : BENCH_SRC_LADDER;
		hit = true;
	}
	return hit;
}

static void keep(struct bench_plan *pl, const struct bench_plan_word *w)
{
	if (pl->nwords < BENCH_PLAN_WORDS)
		pl->word[pl->nwords++] = *w;
	else
		pl->dropped++;
}

static void bad(struct bench_plan *pl, const struct bench_plan_word *w, char *why, size_t cap)
{
	if (!pl->nbad && why)
		snprintf(why, cap, "unknown benchmark '%.*s' (a kernel, kernel.variant, all, none or list)",
			 (int)(w->len > 60 ? 60 : w->len), w->text);
	if (pl->nbad < BENCH_PLAN_BAD)
		pl->bad[pl->nbad] = *w;
	pl->nbad++;
}

/* A variant needs its control's figure; a broken set-up shows in the reference kernels first. */
static void add_controls(struct bench_plan *pl)
{
	size_t n = bench_def_count();

	for (size_t i = 0; i < n; i++)
		pl->table_chosen += pl->table[i];
	if (!pl->table_chosen)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct bench_def *d = bench_def_at(i), *c = bench_def_control(d);
		if (!strcmp(d->kernel, "ref"))
			pl->table[i] = true;
		if (pl->table[i] && c)
			pl->table[c - bench_def_at(0)] = true;
	}
	pl->table_chosen = 0;
	for (size_t i = 0; i < n; i++)
		pl->table_chosen += pl->table[i];
}

bool bench_plan_parse(struct bench_plan *pl, const char *bench, char *why, size_t cap)
{
	const char *p = bench, *text;
	size_t len;

	memset(pl, 0, sizeof(*pl));
	if (why && cap)
		why[0] = 0;
	if (bench_def_count() > BENCH_PLAN_TABLE) {
		if (why)
			snprintf(why, cap, "%zu variants but room for %u", bench_def_count(), BENCH_PLAN_TABLE);
		return false;
	}
	if (!strcmp(bench, BENCH_PLAN_LIST)) {
		pl->list = true;
		return true;
	}
	while (lc_next_item(&p, ',', &text, &len)) {
		struct bench_plan_word w = { .text = text, .len = len, .klen = kernel_len(text, len) };
		if (word_is(text, len, "all")) {
			pl->all = true;
			for (size_t i = 0; i < bench_def_count(); i++)
				pl->table[i] = true;
		} else if (word_is(text, len, "none")) {
			/* What came before is undone, whichever source it named. */
			pl->all = false;
			for (size_t i = 0; i < pl->nwords; i++)
				pl->word[i].undone = true;
			memset(pl->table, 0, sizeof(pl->table));
		} else if (word_is(text, w.klen, BENCH_USER_KERNEL)) {
			w.source = BENCH_SRC_USER;
			keep(pl, &w);
		} else if (table_word(pl, &w)) {
			keep(pl, &w);
		} else {
			bad(pl, &w, why, cap);
		}
	}
	add_controls(pl);
	return !pl->nbad;
}

bool bench_plan_add_words(struct bench_plan *pl, enum bench_source_kind k, const char *value, char *why, size_t cap)
{
	const char *p = value, *text;
	size_t len, dropped = pl->dropped;

	while (lc_next_item(&p, ',', &text, &len)) {
		struct bench_plan_word w = { .text = text, .len = len, .klen = kernel_len(text, len), .source = k };
		keep(pl, &w);
	}
	if (pl->dropped == dropped)
		return true;
	if (why)
		snprintf(why, cap, "more than %u words in all: %zu left out", BENCH_PLAN_WORDS, pl->dropped - dropped);
	return false;
}

bool bench_plan_word_is(const struct bench_plan_word *w, enum bench_source_kind k, const char *kernel)
{
	return w->source == k && (!kernel || word_is(w->text, w->klen, kernel));
}

const char *bench_plan_variant(const struct bench_plan_word *w, size_t *len)
{
	*len = w->len > w->klen ? w->len - w->klen - 1 : 0;
	return w->text + (w->len > w->klen ? w->klen + 1 : w->len);
}
