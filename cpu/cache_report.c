/* cpu/cache_report.c - the `cache` record and its text lines; see cache.h. */
#include "cpu/cache.h"
#include "lib/out.h"
#include "lib/units.h"


/* "48 KiB", "2 MiB", "38400 KiB": the largest binary unit that divides the size. */
static const char *size_text(char *buf, size_t cap, uint64_t b)
{
	return size_in_units(buf, cap, b, units_long);
}

static const char *const page_names[] = { "4k", "2m", "4m", "1g" };

static void pages_text(char *buf, size_t cap, uint8_t pages)
{
	size_t k = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(page_names); i++)
		if (pages & (1u << i))
			k += (size_t)snprintf(buf + k, k < cap ? cap - k : 0, "%s%s", k ? "/" : "", page_names[i]);
}

static void text_lines(const struct cache_info *c)
{
	char sz[32], ways[24], share[40], pg[24];

	if (!c->n)
		out_text("cache: no cache geometry: %s", c->why ? c->why : "unknown");
	for (size_t i = 0; i < c->n; i++) {
		const struct cache_level *l = &c->lv[i];
		if (l->fully_associative)
			snprintf(ways, sizeof(ways), "fully associative");
		else
			snprintf(ways, sizeof(ways), "%u-way", l->ways);
		share[0] = 0;
		if (l->shared_by)
			snprintf(share, sizeof(share), ", shared by up to %u", l->shared_by);
		out_text("cache: L%u %s %s, %s, %u sets of %u B lines%s%s (%s)", l->level, cache_type_name(l->type),
			 size_text(sz, sizeof(sz), l->size), ways, l->sets, l->line, share,
			 l->inclusive == 1 ? ", inclusive" : "", c->caches_from);
	}
	for (size_t i = 0; i < c->ntlb; i++) {
		const struct cache_tlb *t = &c->tlb[i];
		pages_text(pg, sizeof(pg), t->pages);
		if (t->fully_associative)
			snprintf(ways, sizeof(ways), ", fully associative");
		else if (t->ways)
			snprintf(ways, sizeof(ways), ", %u-way", t->ways);
		else
			ways[0] = 0;
		out_text("cache: TLB L%u %s %s: %u entries%s (%s)", t->level, tlb_type_name(t->type), pg, t->entries, ways,
			 c->tlbs_from);
	}
	if (c->notes[0])
		out_text("cache: note: %s", c->notes);
}

void cache_report(const struct cache_info *c, struct rec *r, bool with_cpu, int64_t n)
{
	text_lines(c);
	rec_start(r, "cache");
	if (with_cpu) {
		rec_obj(r, "cpu");
		if (n >= 0)
			rec_u64(r, "n", (uint64_t)n);
		else
			rec_null(r, "n");
		rec_u64(r, "apic_id", c->apic_id);
		rec_obj_end(r);
	}
	rec_str(r, "caches_from", c->caches_from);
	rec_str(r, "tlbs_from", c->tlbs_from);
	rec_str(r, "why", c->n ? NULL : c->why);
	rec_arr(r, "levels");
	for (size_t i = 0; i < c->n; i++) {
		const struct cache_level *l = &c->lv[i];
		rec_obj(r, NULL);
		rec_u64(r, "level", l->level);
		rec_str(r, "type", cache_type_name(l->type));
		rec_u64(r, "size", l->size);
		rec_u64(r, "ways", l->ways);
		rec_u64(r, "partitions", l->partitions);
		rec_u64(r, "line", l->line);
		rec_u64(r, "sets", l->sets);
		if (l->shared_by)
			rec_u64(r, "shared_by", l->shared_by);
		else
			rec_null(r, "shared_by");
		rec_bool(r, "fully_associative", l->fully_associative);
		if (l->inclusive < 0)
			rec_null(r, "inclusive");
		else
			rec_bool(r, "inclusive", l->inclusive == 1);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_arr(r, "tlb");
	for (size_t i = 0; i < c->ntlb; i++) {
		const struct cache_tlb *t = &c->tlb[i];
		rec_obj(r, NULL);
		rec_u64(r, "level", t->level);
		rec_str(r, "type", tlb_type_name(t->type));
		rec_arr(r, "pages");
		for (unsigned k = 0; k < ARRAY_SIZE(page_names); k++)
			if (t->pages & (1u << k))
				rec_str(r, NULL, page_names[k]);
		rec_arr_end(r);
		rec_u64(r, "entries", t->entries);
		if (t->ways)
			rec_u64(r, "ways", t->ways);
		else
			rec_null(r, "ways");
		rec_bool(r, "fully_associative", t->fully_associative);
		if (t->shared_by)
			rec_u64(r, "shared_by", t->shared_by);
		else
			rec_null(r, "shared_by");
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_bool(r, "page_1g", c->page_1g);
	rec_str(r, "notes", c->notes[0] ? c->notes : NULL);
	rec_emit(r);
}
