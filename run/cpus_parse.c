/*
 * run/cpus_parse.c - cpus= text to a struct cpus_spec (see cpus.h).  Apart
 * from cpus.c so the option table (run/config_opts.c) does not pull the topology
 * code, and with it CPUID, into everything that reads options.
 */
#include "run/cpus.h"

static bool word_is(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(w, lit, n) == 0;
}

static bool parse_num(const char *p, size_t n, uint32_t *v)
{
	uint64_t x;
	if (n == 0 || !lc_parse_u64(p, n, &x) || x > 0xffffffffu)
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool parse_item(const char *w, size_t n, struct cpus_item *it)
{
	memset(it, 0, sizeof(*it));
	if (n > 5 && memcmp(w, "apic:", 5) == 0) {
		it->apic = true;
		if (!parse_num(w + 5, n - 5, &it->lo))
			return false;
		it->hi = it->lo;
		return true;
	}
	size_t dash = 0;
	while (dash < n && w[dash] != '-')
		dash++;
	for (size_t i = 0; i < n; i++)
		if (i != dash && !lc_isdigit(w[i]))
			return false;	/* processor numbers are decimal, as the topology record prints them */
	if (!parse_num(w, dash, &it->lo))
		return false;
	if (dash == n) {
		it->hi = it->lo;
		return true;
	}
	return parse_num(w + dash + 1, n - dash - 1, &it->hi) && it->hi >= it->lo;
}

bool cpus_parse(const char *v, size_t len, struct cpus_spec *s, char *why, size_t cap)
{
	char buf[256];
	const char *p, *w;
	size_t wl;

	memset(s, 0, sizeof(*s));
	if (len == 0 || len >= sizeof(buf)) {
		snprintf(why, cap, "'%.*s' is not a cpus= value (expected bsp, all, types, or processor numbers, "
			 "N-M ranges and apic:ID, comma-separated)", (int)(len > 60 ? 60 : len), v);
		return false;
	}
	static const struct {
		const char *word;
		enum cpus_mode mode;
	} words[] = { { "bsp", CPUS_BSP }, { "all", CPUS_ALL }, { "types", CPUS_TYPES } };
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (word_is(v, len, words[i].word)) {
			s->mode = words[i].mode;
			return true;
		}
	memcpy(buf, v, len);
	buf[len] = 0;
	p = buf;
	s->mode = CPUS_LIST;
	while (lc_next_item(&p, ',', &w, &wl)) {
		if (s->n == CPUS_LIST_MAX) {
			snprintf(why, cap, "more than %d items in cpus=", CPUS_LIST_MAX);
			return false;
		}
		if (!parse_item(w, wl, &s->item[s->n])) {
			snprintf(why, cap, "'%.*s' in cpus= is not a processor number, N-M range or apic:ID "
				 "(the whole value may be bsp, all or types)", (int)(wl > 40 ? 40 : wl), w);
			return false;
		}
		s->n++;
	}
	if (s->n == 0) {
		snprintf(why, cap, "'%.*s' names no processor", (int)(len > 60 ? 60 : len), v);
		return false;
	}
	return true;
}

