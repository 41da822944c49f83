/* run/cpus.c - see cpus.h. */
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

size_t cpus_bsp(const struct topology *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->cpu[i].bsp)
			return i;
	return t->n;
}

static bool usable(const struct topo_cpu *c)
{
	return c->enabled && c->healthy;
}

static void note(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(char *why, size_t cap, const char *fmt, ...)
{
	size_t k = strlen(why);
	va_list ap;
	if (k + 3 >= cap)
		return;
	if (k)
		k += (size_t)snprintf(why + k, cap - k, "; ");
	va_start(ap, fmt);
	vsnprintf(why + k, cap - k, fmt, ap);
	va_end(ap);
}

/* The same core (package/die/core) as a, another thread: an SMT sibling. */
static bool siblings(const struct topo_cpu *a, const struct topo_cpu *b)
{
	return a != b && a->core != TOPO_NONE && a->package == b->package && a->die == b->die && a->core == b->core;
}

static bool sibling_is_bsp(const struct topology *t, const struct topo_cpu *c)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->cpu[i].bsp && siblings(&t->cpu[i], c))
			return true;
	return false;
}

static bool same_type(const struct topo_cpu *a, const struct topo_cpu *b)
{
	return a->core_type == b->core_type && a->uarch_key == b->uarch_key;
}

static void pick_types(const struct topology *t, bool *sel)
{
	size_t first[16], ntypes = topo_types(t, first, ARRAY_SIZE(first)), b = cpus_bsp(t);

	for (size_t k = 0; k < ntypes; k++) {
		const struct topo_cpu *proto = &t->cpu[first[k]];
		size_t best = t->n;
		int best_score = -1;
		for (size_t i = 0; i < t->n; i++) {
			const struct topo_cpu *c = &t->cpu[i];
			if (!c->probed || !usable(c) || !same_type(c, proto))
				continue;
			/* The boot CPU measures its own type; elsewhere a core whose siblings can be parked. */
			int score = c->bsp ? 2 : sibling_is_bsp(t, c) ? 0 : 1;
			if (score > best_score) {
				best = i;
				best_score = score;
			}
		}
		if (best < t->n)
			sel[best] = true;
	}
	if (ntypes == 0 && b < t->n)
		sel[b] = true;	/* nothing identified: today's behaviour, the boot CPU */
}

size_t cpus_select(const struct cpus_spec *s, const struct topology *t, size_t *out, size_t cap, char *why,
		   size_t why_cap)
{
	static bool sel[TOPO_MAX_CPUS];
	size_t n = 0, b = cpus_bsp(t);

	why[0] = 0;
	memset(sel, 0, sizeof(sel));
	switch (s->mode) {
	case CPUS_BSP:
		if (b < t->n)
			sel[b] = true;
		break;
	case CPUS_ALL:
		for (size_t i = 0; i < t->n; i++) {
			sel[i] = usable(&t->cpu[i]);
			if (!sel[i])
				note(why, why_cap, "processor %u (APIC ID %u) is %s", t->cpu[i].n, t->cpu[i].apic_id,
				     t->cpu[i].enabled ? "not healthy" : "disabled");
		}
		break;
	case CPUS_TYPES:
		pick_types(t, sel);
		break;
	case CPUS_LIST:
		for (size_t k = 0; k < s->n; k++) {
			const struct cpus_item *it = &s->item[k];
			for (uint64_t v = it->lo; v <= it->hi; v++) {
				size_t i = 0;
				while (i < t->n && (it->apic ? t->cpu[i].apic_id : t->cpu[i].n) != v)
					i++;
				if (i == t->n)
					note(why, why_cap, "no processor %s%u", it->apic ? "with APIC ID " : "", (unsigned)v);
				else if (!usable(&t->cpu[i]))
					note(why, why_cap, "processor %u (APIC ID %u) is %s", t->cpu[i].n, t->cpu[i].apic_id,
					     t->cpu[i].enabled ? "not healthy" : "disabled");
				else
					sel[i] = true;
				if (v - it->lo >= TOPO_MAX_CPUS)
					break;	/* a range wider than any table: the rest cannot exist either */
			}
		}
		break;
	}
	for (size_t i = 0; i < t->n && n < cap; i++)
		if (sel[i])
			out[n++] = i;
	return n;
}
