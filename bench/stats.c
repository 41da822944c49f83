/* bench/stats.c - see stats.h. */
#include "bench/stats.h"
#include "lib/muldiv.h"

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

/* The quantile k/4 of sorted s by linear interpolation between ranks ("type 7", numpy's default). */
static int64_t quartile(const int64_t *s, size_t n, unsigned k)
{
	size_t pos4 = (n - 1) * k, lo = pos4 / 4, rem = pos4 % 4;
	if (!rem)
		return s[lo];
	uint64_t d = (uint64_t)s[lo + 1] - (uint64_t)s[lo];
	return (int64_t)((uint64_t)s[lo] + d / 4 * rem + d % 4 * rem / 4);
}

/*
 * The k-th smallest (0-based) of |s[i] - m| over sorted s: the deviations
 * below m grow leftwards from the first element >= m and those above grow
 * rightwards, so merging the two runs gives them in order without storage.
 */
static int64_t kth_deviation(const int64_t *s, size_t n, int64_t m, size_t k)
{
	size_t right = 0;
	while (right < n && s[right] < m)
		right++;
	size_t left = right;	/* elements [0, left) lie below m, taken from left - 1 down */
	int64_t dev = 0;
	for (size_t taken = 0; taken <= k; taken++) {
		bool use_left = left > 0 && (right == n || m - s[left - 1] <= s[right] - m);
		dev = use_left ? m - s[--left] : s[right++] - m;
	}
	return dev;
}

/* |x - m| beyond STATS_OUTLIER_Z_MILLI modified z-scores of `scale` (a MAD). */
static bool is_outlier(int64_t x, int64_t m, int64_t scale)
{
	__int128 dev = (__int128)x - m;
	if (dev < 0)
		dev = -dev;
	return dev * STATS_MAD_NORMAL_1E4 > (__int128)scale * STATS_OUTLIER_Z_MILLI * 10;
}

void stats_summarise(int64_t *s, size_t n, struct bench_figure *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	sort_i64(s, n);
	out->n = (uint32_t)n;
	out->median = (n & 1) ? s[n / 2] : mean_floor(s[n / 2 - 1], s[n / 2]);
	out->q1 = quartile(s, n, 1);
	out->q3 = quartile(s, n, 3);
	out->mad = (n & 1) ? kth_deviation(s, n, out->median, n / 2)
			   : mean_floor(kth_deviation(s, n, out->median, n / 2 - 1),
					kth_deviation(s, n, out->median, n / 2));

	int64_t mag = out->median < 0 ? -out->median : out->median;
	/* The resolution: the smallest step between two distinct samples (a coarse TSC shows here). */
	int64_t step = 0;
	for (size_t i = 1; i < n; i++) {
		int64_t d = s[i] - s[i - 1];
		if (d > 0 && (!step || d < step))
			step = d;
	}
	int64_t scale = out->mad > step ? out->mad : step;
	if (scale < mag / 1000 * STATS_MAD_FLOOR_PERMILLE)
		scale = mag / 1000 * STATS_MAD_FLOOR_PERMILLE;
	if (scale < 1)
		scale = 1;
	/* Sorted, so the inliers are one run [a, b) around the median. */
	size_t a = 0, b = n;
	while (a < n && is_outlier(s[a], out->median, scale))
		a++;
	while (b > a && is_outlier(s[b - 1], out->median, scale))
		b--;
	out->min = s[a];
	out->max = s[b - 1];
	out->outliers = (uint32_t)(a + (n - b));
	if (out->outliers) {
		out->out_lo = a ? s[0] : s[b];
		out->out_hi = b < n ? s[n - 1] : s[a - 1];
	}
}

int64_t stats_scale(int64_t a, uint64_t mul, uint64_t div)
{
	if (div == 0)
		return 0;
	uint64_t mag = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
	uint64_t r = muldiv64_round(mag, mul, div);
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

const char *stats_fate_name(enum stats_fate f)
{
	static const char *const names[STATS_FATES] = { "kept", "negative", "n_2n", "below_chain", "clock", "disturbed",
							       "contended" };
	return f < STATS_FATES ? names[f] : "?";
}

const char *stats_unstable_name(enum stats_unstable u)
{
	static const char *const names[] = { NULL, "budget", "outliers", "spread", "disturbed", "contended" };
	return u < ARRAY_SIZE(names) ? names[u] : "?";
}

enum stats_fate stats_judge_count(uint64_t base_v, uint64_t main_v)
{
	return (int64_t)(main_v - base_v) < 0 ? STATS_REJECT_NEGATIVE : STATS_KEPT;
}

enum stats_fate stats_judge_time(uint64_t base_v, uint64_t main_v)
{
	if (stats_judge_count(base_v, main_v) != STATS_KEPT)
		return STATS_REJECT_NEGATIVE;
	/* main - base <= base x (1 + slack): compared in 128 bits, the values are raw 64-bit readings. */
	unsigned __int128 lhs = (unsigned __int128)(main_v - base_v) * 100;
	unsigned __int128 rhs = (unsigned __int128)base_v * (100 + STATS_N2N_SLACK_PERCENT);
	return lhs > rhs ? STATS_REJECT_N_2N : STATS_KEPT;
}

enum stats_fate stats_judge_runs_tight(uint64_t base_v, uint64_t main_v)
{
	if (base_v < STATS_N2N_TIGHT_MIN_TICKS || main_v <= base_v)
		return STATS_KEPT;	/* too short to judge this finely (or NEGATIVE: stats_judge_time's) */
	__int128 o = 2 * (__int128)base_v - (__int128)main_v;
	if (o * 1000 < -(__int128)base_v * STATS_N2N_TIGHT_UNDER_PERMILLE ||
	    o * 1000 > (__int128)base_v * STATS_N2N_TIGHT_OVER_PERMILLE)
		return STATS_REJECT_N_2N;
	return STATS_KEPT;
}

enum stats_fate stats_judge_chain(int64_t cycles_milli, int64_t chain_milli, int64_t slack_permille)
{
	if (chain_milli <= 0)
		return STATS_KEPT;
	return (__int128)cycles_milli * 1000 < (__int128)chain_milli * (1000 - slack_permille) ? STATS_REJECT_BELOW_CHAIN
												: STATS_KEPT;
}

int64_t stats_chain_slack_permille(int64_t calib_spread_milli)
{
	int64_t s = calib_spread_milli > 0 ? STATS_CHAIN_SLACK_SPREADS * calib_spread_milli : 0;
	if (s < STATS_CHAIN_SLACK_MIN_PERMILLE)
		s = STATS_CHAIN_SLACK_MIN_PERMILLE;
	if (s > STATS_CHAIN_SLACK_PERCENT * 10)
		s = STATS_CHAIN_SLACK_PERCENT * 10;
	return s;
}

enum stats_fate stats_judge_clock(uint64_t cal_n, uint64_t cal_2n, int64_t ref_spread_milli)
{
	if (!cal_n || cal_2n <= cal_n)
		return STATS_REJECT_CLOCK;
	int64_t allowed = ref_spread_milli > STATS_CLOCK_FLOOR_PERMILLE ? ref_spread_milli : STATS_CLOCK_FLOOR_PERMILLE;
	if (allowed > STATS_CLOCK_CEIL_PERMILLE)
		allowed = STATS_CLOCK_CEIL_PERMILLE;
	/* At one clock the 2N run is twice the N run less their shared overhead: the difference is the move. */
	__int128 moved = (__int128)cal_2n - 2 * (__int128)cal_n;
	if (moved < 0)
		moved = -moved;
	return moved * 1000 > (__int128)cal_2n * allowed ? STATS_REJECT_CLOCK : STATS_KEPT;
}

uint64_t stats_pilot_ticks(uint64_t n, uint64_t n2)
{
	uint64_t d = n2 > n ? n2 - n : 0;
	return d < n / 2 ? n / 2 : d;
}

uint32_t stats_fit_window(uint32_t iters, uint32_t unroll, uint64_t ticks, uint64_t max_ticks)
{
	if (!unroll)
		unroll = 1;
	if (!max_ticks || ticks <= max_ticks)
		return iters;
	uint64_t fit = muldiv64(iters, max_ticks, ticks) / unroll * unroll;
	return (uint32_t)(fit < unroll ? unroll : fit);
}

uint32_t stats_choose_iterations(uint32_t min_iters, uint32_t unroll, uint64_t pilot_iters, uint64_t pilot_ticks,
				 uint64_t target_ticks, uint64_t max_ticks, uint32_t max_iters, bool *capped)
{
	if (!unroll)
		unroll = 1;
	uint64_t lo = (uint64_t)min_iters, hi = max_iters / unroll * unroll;
	if (hi < lo)
		hi = lo;
	if (pilot_ticks && max_ticks) {
		uint64_t by_budget = muldiv64(pilot_iters, max_ticks, pilot_ticks) / unroll * unroll;
		if (by_budget < hi)
			hi = by_budget < lo ? lo : by_budget;
	}
	uint64_t want = pilot_ticks ? muldiv64(pilot_iters, target_ticks, pilot_ticks) : UINT64_MAX;
	if (want != UINT64_MAX && pilot_ticks && (unsigned __int128)want * pilot_ticks < (unsigned __int128)pilot_iters * target_ticks)
		want++;	/* rounded up: at least the target */
	if (want < UINT64_MAX - unroll)
		want = (want + unroll - 1) / unroll * unroll;
	if (want < lo)
		want = lo;
	*capped = want > hi;
	return (uint32_t)(*capped ? hi : want);
}

int64_t stats_spread_milli(const struct bench_figure *f)
{
	if (f->median <= 0)
		return 0;
	return stats_scale(f->max - f->min, 1000, (uint64_t)f->median);
}

int64_t stats_iqr_milli(const struct bench_figure *f)
{
	if (f->median <= 0)
		return 0;
	return stats_scale(f->q3 - f->q1, 1000, (uint64_t)f->median);
}

void stats_figure_scale(struct bench_figure *f, uint64_t mul, uint64_t div)
{
	int64_t *v[] = { &f->min, &f->median, &f->max, &f->q1, &f->q3, &f->mad, &f->out_lo, &f->out_hi };
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		*v[i] = stats_scale(*v[i], mul, div);
}

void stats_take_init(struct stats_take *t, uint32_t wanted, uint32_t budget)
{
	memset(t, 0, sizeof(*t));
	t->wanted = wanted;
	t->budget = budget;
}

bool stats_take_note(struct stats_take *t, enum stats_fate fate)
{
	if (fate >= STATS_FATES)
		fate = STATS_REJECT_DISTURBED;
	t->by[fate]++;
	if (fate == STATS_KEPT)
		t->good++;
	else
		t->thrown++;
	return t->good < t->wanted && t->thrown < t->budget;
}

void stats_take_extend(struct stats_take *t)
{
	t->budget++;
}

bool stats_take_exhausted(const struct stats_take *t)
{
	return t->good < t->wanted;
}

uint32_t stats_take_rejected(const struct stats_take *t)
{
	return t->thrown - t->by[STATS_REJECT_DISTURBED] - t->by[STATS_REJECT_CONTENDED];
}

void stats_judge_figure(struct bench_figure *f, const struct stats_take *t, bool time)
{
	f->rejected = stats_take_rejected(t);
	f->unstable = STATS_STABLE;
	int64_t iqr = f->q3 - f->q1;
	if (t->good < t->wanted)
		f->unstable = (uint64_t)t->by[STATS_REJECT_DISTURBED] * 2 > t->thrown	  ? STATS_UNSTABLE_DISTURBED
			      : (uint64_t)t->by[STATS_REJECT_CONTENDED] * 2 > t->thrown ? STATS_UNSTABLE_CONTENDED
											  : STATS_UNSTABLE_BUDGET;
	else if ((uint64_t)f->outliers * STATS_UNSTABLE_OUTLIER_DIV > f->n)
		f->unstable = STATS_UNSTABLE_OUTLIERS;
	else if (time && f->median > 0 && iqr > STATS_UNSTABLE_IQR_FLOOR &&
		 (__int128)iqr * 1000 > (__int128)f->median * STATS_UNSTABLE_IQR_PERMILLE)
		f->unstable = STATS_UNSTABLE_SPREAD;
}
