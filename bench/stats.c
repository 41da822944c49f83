/* bench/stats.c - see stats.h. */
#include "bench/stats.h"

/* Shell sort (Ciura's gaps): no recursion, no allocation, fine for the few thousand samples a figure holds. */
static void sort_i64(int64_t *s, size_t n)
{
	static const size_t gaps[] = { 1750, 701, 301, 132, 57, 23, 10, 4, 1 };
	for (size_t g = 0; g < ARRAY_SIZE(gaps); g++) {
		size_t gap = gaps[g];
		for (size_t i = gap; i < n; i++) {
			int64_t v = s[i];
			size_t j = i;
			for (; j >= gap && s[j - gap] > v; j -= gap)
				s[j] = s[j - gap];
			s[j] = v;
		}
	}
}

/* Floor of the mean of two int64 without overflow. */
static int64_t mean_floor(int64_t a, int64_t b)
{
	return (a >> 1) + (b >> 1) + (a & b & 1);
}

void stats_summarise(int64_t *s, size_t n, struct bench_figure *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	sort_i64(s, n);
	out->n = (uint32_t)n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = (n & 1) ? s[n / 2] : mean_floor(s[n / 2 - 1], s[n / 2]);
}

/*
 * 128-bit product divided by a 64-bit divisor.  The image has no libgcc
 * (__udivti3), so the division is the CPU's own 128/64 div, made safe by
 * reducing the high half first (quotient = q1 * 2^64 + q0 is kept only when
 * it fits, otherwise saturated).
 */
static uint64_t mul_div_u64(uint64_t a, uint64_t mul, uint64_t div, bool round)
{
	unsigned __int128 p = (unsigned __int128)a * mul;
	if (round)
		p += div / 2;
	uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
	if (hi >= div)
		return UINT64_MAX;
	uint64_t q, r;
	__asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"(div));
	(void)r;
	return q;
}

int64_t stats_scale(int64_t a, uint64_t mul, uint64_t div)
{
	if (div == 0)
		return 0;
	uint64_t mag = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
	uint64_t r = mul_div_u64(mag, mul, div, true);
	if (r > (uint64_t)INT64_MAX)
		r = (uint64_t)INT64_MAX;
	return a < 0 ? -(int64_t)r : (int64_t)r;
}

int64_t stats_differential_milli(uint64_t base_v, uint64_t main_v, uint64_t base)
{
	/* Unsigned difference taken modulo 2^64, then read as signed: a negative differential stays negative. */
	int64_t d = (int64_t)(main_v - base_v);
	return stats_scale(d, 1000, base);
}

int64_t stats_spread_milli(const struct bench_figure *f)
{
	if (f->median <= 0)
		return 0;
	return stats_scale(f->max - f->min, 1000, (uint64_t)f->median);
}

void stats_figure_scale(struct bench_figure *f, uint64_t mul, uint64_t div)
{
	f->min = stats_scale(f->min, mul, div);
	f->median = stats_scale(f->median, mul, div);
	f->max = stats_scale(f->max, mul, div);
}

void stats_take_init(struct stats_take *t, uint32_t wanted, uint32_t budget)
{
	t->wanted = wanted;
	t->good = 0;
	t->dropped = 0;
	t->budget = budget;
}

bool stats_take_note(struct stats_take *t, bool polluted)
{
	if (polluted)
		t->dropped++;
	else
		t->good++;
	return t->good < t->wanted && t->dropped < t->budget;
}

bool stats_take_exhausted(const struct stats_take *t)
{
	return t->good < t->wanted;
}
