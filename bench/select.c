/* bench/select.c - the `bench=` option; see select.h. */
#include "bench/select.h"
#include "bench/kernels.h"

#define USER_PREFIX "user."

static bool word_is(const char *w, size_t len, const char *s)
{
	return strlen(s) == len && !strncmp(w, s, len);
}

static bool select_word(const char *w, size_t len, bool *sel)
{
	const char *dot = NULL;
	bool hit = false;
	for (size_t i = 0; i < len && !dot; i++)
		if (w[i] == '.')
			dot = w + i;
	size_t klen = dot ? (size_t)(dot - w) : len;
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *d = bench_def_at(i);
		if (!word_is(w, klen, d->kernel))
			continue;
		/* A ladder row stands for variants made at run time: bench/suite_sweep.c checks the variant word. */
		if (dot && !word_is(dot + 1, len - klen - 1, d->variant) && d->ladder == BENCH_LADDER_NONE)
			continue;
		sel[i] = true;
		hit = true;
	}
	return hit;
}

size_t bench_select(const char *spec, bool *sel, void (*bad)(const char *word, size_t len, void *ctx), void *ctx)
{
	size_t n = bench_def_count(), chosen = 0;
	const char *p = spec;

	memset(sel, 0, n * sizeof(*sel));
	const char *w;
	size_t len;
	while (lc_next_item(&p, ',', &w, &len)) {
		if (word_is(w, len, "all"))
			for (size_t i = 0; i < n; i++)
				sel[i] = true;
		else if (word_is(w, len, "none"))
			memset(sel, 0, n * sizeof(*sel));
		else if (len >= sizeof(USER_PREFIX) - 1 && !strncmp(w, USER_PREFIX, sizeof(USER_PREFIX) - 1))
			continue;	/* user kernels: bench/suite_user.c chooses those */
		else if (word_is(w, len, "user"))
			continue;
		else if (!select_word(w, len, sel) && bad)
			bad(w, len, ctx);
	}
	for (size_t i = 0; i < n; i++)
		if (sel[i])
			chosen++;
	if (!chosen)
		return 0;
	/* A variant needs its control's figure; a broken set-up shows in the reference kernels first. */
	for (size_t i = 0; i < n; i++) {
		const struct bench_def *d = bench_def_at(i), *c = bench_def_control(d);
		if (!strcmp(d->kernel, "ref"))
			sel[i] = true;
		if (sel[i] && c)
			sel[c - bench_def_at(0)] = true;
	}
	for (size_t i = chosen = 0; i < n; i++)
		chosen += sel[i];
	return chosen;
}
