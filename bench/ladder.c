/* bench/ladder.c - see ladder.h. */
#include "bench/ladder.h"
#include "lib/units.h"


static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = LADDER_GRAIN;
	while (p < v && p < (1ull << 62))
		p <<= 1;
	return p;
}

static uint64_t down(uint64_t v) { return v / LADDER_GRAIN * LADDER_GRAIN; }
static uint64_t up(uint64_t v) { return (v + LADDER_GRAIN - 1) / LADDER_GRAIN * LADDER_GRAIN; }

/* Add v when it is a valid size not yet listed. */
static void add(uint64_t *out, size_t *n, size_t cap, uint64_t v, uint64_t limit)
{
	if (v < LADDER_GRAIN || v > limit || v % LADDER_GRAIN)
		return;
	for (size_t i = 0; i < *n; i++)
		if (out[i] == v)
			return;
	if (*n < cap)
		out[(*n)++] = v;
}

/* The 4 KiB reach of the data-side TLB at level (entries x 4 KiB), 0 when none is known. */
static uint64_t reach(const struct cache_info *c, unsigned level)
{
	return (uint64_t)cache_dtlb_entries(c, level, TLB_PAGE_4K) * LADDER_GRAIN;
}

uint64_t ladder_latency_top(const struct cache_info *c)
{
	const struct cache_level *llc = cache_last_level(c);
	return llc ? pow2_at_least(llc->size * LADDER_LLC_FACTOR) : LADDER_DEFAULT_TOP;
}

uint64_t ladder_tlb_top(const struct cache_info *c)
{
	uint64_t r = reach(c, 1) > reach(c, 2) ? reach(c, 1) : reach(c, 2);
	return r ? pow2_at_least(r * LADDER_TLB_FACTOR) : LADDER_TLB_DEFAULT_TOP;
}

size_t ladder_tlb_sizes(const struct cache_info *c, uint64_t limit, uint64_t *out, size_t cap)
{
	size_t n = 0;
	uint64_t top = ladder_tlb_top(c);
	for (uint64_t s = LADDER_TLB_FROM; s <= top; s <<= 1)
		add(out, &n, cap, s, limit);
	for (unsigned level = 1; level <= 2; level++) {
		uint64_t r = reach(c, level);
		add(out, &n, cap, down(r * 7 / 8), limit);
		add(out, &n, cap, up(r * 9 / 8), limit);
	}
	lc_sort_u64(out, n);
	return n;
}

size_t ladder_latency_sizes(const struct cache_info *c, uint64_t limit, uint64_t *out, size_t cap)
{
	size_t n = 0;
	uint64_t top = ladder_latency_top(c), tlb[LADDER_MAX_POINTS];
	for (uint64_t s = LADDER_GRAIN; s <= top; s <<= 1)
		add(out, &n, cap, s, limit);
	for (size_t i = 0; i < c->n; i++) {
		const struct cache_level *l = &c->lv[i];
		if (l->type != CACHE_DATA && l->type != CACHE_UNIFIED)
			continue;
		add(out, &n, cap, down(l->size / 4), limit);
		add(out, &n, cap, down(l->size * 7 / 8), limit);
		add(out, &n, cap, up(l->size * 9 / 8), limit);
	}
	/* The tlb ladder's sizes too, so that every tlb.<size> has its latency.<size> to compare with. */
	size_t nt = ladder_tlb_sizes(c, limit, tlb, ARRAY_SIZE(tlb));
	for (size_t i = 0; i < nt; i++)
		add(out, &n, cap, tlb[i], limit);
	lc_sort_u64(out, n);
	return n;
}

size_t ladder_bandwidth_sets(const struct cache_info *c, uint64_t limit, struct ladder_level *out, size_t cap)
{
	size_t n = 0;
	for (unsigned level = 1; level <= CACHE_MAX_LEVELS && n < cap; level++) {
		const struct cache_level *l = cache_data_level(c, level);
		uint64_t b = l ? down(l->size / 2) : 0;
		/* Each level's set must be larger than the level below's whole cache. */
		const struct cache_level *below = level > 1 ? cache_data_level(c, level - 1) : NULL;
		if (b >= LADDER_GRAIN && b <= limit && (!below || b > below->size))
			out[n++] = (struct ladder_level){ level, b };
	}
	uint64_t dram = ladder_latency_top(c) < limit ? ladder_latency_top(c) : down(limit);
	const struct cache_level *llc = cache_last_level(c);
	if (n < cap && dram >= LADDER_GRAIN && (!llc || dram > llc->size))
		out[n++] = (struct ladder_level){ 0, dram };
	return n;
}

const char *ladder_name(uint64_t b, char out[LADDER_NAME_MAX])
{
	return size_in_units(out, LADDER_NAME_MAX, b, units_short);
}

bool ladder_parse(const char *s, size_t len, uint64_t *bytes)
{
	static const struct {
		char suffix;
		uint64_t unit;
	} units[] = { { 'k', KIB }, { 'm', MIB }, { 'g', GIB } };
	uint64_t v = 0, unit = 1;
	size_t i = 0;
	while (i < len && lc_isdigit(s[i]))
		i++;
	if (i + 1 == len) {
		unit = 0;
		for (size_t k = 0; k < ARRAY_SIZE(units); k++)
			if ((s[i] | 0x20) == units[k].suffix)	/* either case */
				unit = units[k].unit;
	} else if (i != len) {
		return false;
	}
	/* Digits only (no 0x: a size is decimal), and no product past LADDER_BYTES_MAX (no wrap to a small size). */
	if (!i || s[0] == '0' || !unit || !lc_parse_u64(s, i, &v) || v > LADDER_BYTES_MAX / unit)
		return false;
	*bytes = v * unit;
	return *bytes % LADDER_GRAIN == 0;
}
