/* run/cpus.c - see cpus.h. */
#include "run/cpus.h"
#include "lib/strbuf.h"

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
		k = str_appendf(why, cap, k, "; ");
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
				note(why, why_cap, "processor %u is %s", t->cpu[i].n,
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
					note(why, why_cap, "processor %u is %s", t->cpu[i].n,
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
