/* bench/ukernel_set.c - the user kernels of a run; see ukernel.h. */
#include "bench/ukernel.h"
#include "lib/heap.h"

const struct ukernel *ukernel_set_find(const struct ukernel_set *s, const char *name, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->k[i]->name) == len && !strncmp(s->k[i]->name, name, len))
			return s->k[i];
	return NULL;
}

/* Keep k (parsed into *slot) unless its name is taken or the set is full. */
static void add(struct ukernel_set *s, struct ukernel *k, const char *where,
		void (*bad)(const char *where, const char *why, void *ctx), void *ctx)
{
	char why[160];
	for (size_t i = 0; i < s->n; i++) {
		if (!strcmp(s->k[i]->name, k->name)) {
			snprintf(why, sizeof(why), "a kernel named %s was already loaded from %s; this one is ignored", k->name,
				 s->where[i]);
			bad(where, why, ctx);
			return;
		}
	}
	if (s->n == UK_SET_MAX) {
		snprintf(why, sizeof(why), "more than %d user kernels; %s is ignored", UK_SET_MAX, k->name);
		bad(where, why, ctx);
		return;
	}
	s->k[s->n] = k;
	snprintf(s->where[s->n], UK_WHERE_MAX, "%s", where);
	s->n++;
}

void ukernel_set_build(struct ukernel_set *s, const struct ukernel_file *files, size_t nfiles,
		       const struct ukernel_hex *hex, size_t nhex,
		       void (*bad)(const char *where, const char *why, void *ctx), void *ctx)
{
	char why[192];
	struct ukernel *k = NULL;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < nfiles + nhex; i++) {
		if (!k && !(k = heap_alloc(sizeof(*k), 16))) {
			bad(i < nfiles ? files[i].where : "options", "no memory for user kernels", ctx);
			return;
		}
		if (i < nfiles) {
			const struct ukernel_file *f = &files[i];
			if (!f->data) {
				bad(f->where, f->problem ? f->problem : "could not be read", ctx);
				continue;
			}
			if (!ukernel_parse(f->data, f->len, k, why, sizeof(why))) {
				bad(f->where, why, ctx);
				continue;
			}
			add(s, k, f->where, bad, ctx);
		} else {
			const struct ukernel_hex *h = &hex[i - nfiles];
			char where[UK_WHERE_MAX];
			snprintf(where, sizeof(where), "kernel.%s", h->name);
			if (!ukernel_from_hex(h->name, strlen(h->name), h->hex, strlen(h->hex), k, why, sizeof(why))) {
				bad(where, why, ctx);
				continue;
			}
			add(s, k, where, bad, ctx);
		}
		if (s->n && s->k[s->n - 1] == k)
			k = NULL;	/* kept: the next one needs new storage */
	}
}
