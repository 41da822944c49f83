/* instr/pack_write_host.c - writing a kernel pack (host-only: pmuboot-host instr pack); see pack.h. */
#include <stdlib.h>

#include "instr/pack.h"
#include "lib/crc32.h"

/* The pack's room grows by doubling from this. */
#define PACK_GROW_MIN (1u << 20)

static bool room(struct instr_pack_writer *w, size_t n)
{
	if (w->why[0])
		return false;
	if (w->len + n <= w->cap)
		return true;
	size_t cap = w->cap ? w->cap : PACK_GROW_MIN;
	while (cap < w->len + n)
		cap *= 2;
	uint8_t *b = realloc(w->buf, cap);
	if (!b) {
		snprintf(w->why, sizeof(w->why), "out of memory at %zu bytes", w->len);
		return false;
	}
	w->buf = b;
	w->cap = cap;
	return true;
}

static void put(struct instr_pack_writer *w, uint64_t v, size_t n)
{
	if (!room(w, n))
		return;
	for (size_t i = 0; i < n; i++)
		w->buf[w->len++] = (uint8_t)(v >> (8 * i));
}

static void put_at(struct instr_pack_writer *w, size_t at, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		w->buf[at + i] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(struct instr_pack_writer *w, const void *p, size_t n)
{
	if (n && room(w, n)) {
		memcpy(w->buf + w->len, p, n);
		w->len += n;
	}
}

/* A string, NUL included; NULL or "" as an absent one (the reader gives NULL back). */
static void put_str(struct instr_pack_writer *w, const char *s, const char *field)
{
	size_t n = s && *s ? strlen(s) + 1 : 0;
	if (n > INSTR_PACK_TEXT_MAX) {
		if (!w->why[0])
			snprintf(w->why, sizeof(w->why), "%s: %zu bytes, more than %u", field, n, INSTR_PACK_TEXT_MAX);
		return;
	}
	put(w, n, 2);
	put_bytes(w, s, n);
}

/* The unroll the pack holds: 1..INSTR_PACK_UNROLL_MAX (the builder gives every measurement one). */
static uint16_t pack_unroll(const struct ikm *m)
{
	return !m->unroll ? 1 : m->unroll > INSTR_PACK_UNROLL_MAX ? INSTR_PACK_UNROLL_MAX : m->unroll;
}

/* A measurement's via; a connector has none of its own, and its first line of assembly stands for it. */
static const char *via_of(const struct ikm *m, char *buf, size_t cap)
{
	if (m->via || m->kind != IKM_CONNECTOR)
		return m->via;
	size_t n = strcspn(m->body, "\n");
	if (n >= cap) /* the line as far as it fits */
		n = cap - 1;
	snprintf(buf, cap, "%.*s", (int)n, m->body);
	return buf;
}

/* The init table's entry holding these bytes, added when new (0 after a failure, which w->why says). */
static size_t init_entry(struct instr_pack_writer *w, const uint8_t *bytes, size_t len)
{
	for (size_t i = 0; i < w->inits; i++)
		if (w->init[i].len == len && (!len || !memcmp(w->init[i].bytes, bytes, len)))
			return i;
	uint8_t *copy = malloc(len ? len : 1);
	if (w->inits == INSTR_PACK_INITS_MAX || !copy) {
		free(copy);
		if (!w->why[0])
			snprintf(w->why, sizeof(w->why), "more than %u different inits, or out of memory",
				 INSTR_PACK_INITS_MAX);
		return 0;
	}
	if (len)
		memcpy(copy, bytes, len);
	w->init[w->inits].bytes = copy;
	w->init[w->inits].len = len;
	return w->inits++;
}

void instr_pack_write_begin(struct instr_pack_writer *w)
{
	memset(w, 0, sizeof(*w));
	static const uint8_t zero[INSTR_PACK_HEADER];
	put_bytes(w, INSTR_PACK_MAGIC, INSTR_PACK_MAGIC_LEN);
	put(w, INSTR_PACK_VERSION, 1);
	/* reserved, counts, length, CRC: written at the end */
	put_bytes(w, zero, INSTR_PACK_HEADER - INSTR_PACK_MAGIC_LEN - 1);
}

bool instr_pack_write_form(struct instr_pack_writer *w, const struct instr_plan *p, const struct instr_pack_code *code)
{
	const struct instr_form *f = p->f;
	size_t start = w->len;

	if (f->n_cpuid > INSTR_PACK_CPUID_MAX || p->n > IKM_MAX) {
		snprintf(w->why, sizeof(w->why), "%s: %u CPUID bits, %zu measurements: more than the format holds",
			 f->asm_name, f->n_cpuid, p->n);
		return false;
	}
	put(w, 0, 4); /* its length, below */
	put(w, p->idiom, 1);
	put(w, f->n_cpuid, 1);
	put(w, p->n, 1);
	put(w, 0, 1);
	put(w, f->attrs, 2);
	put(w, 0, 2);
	put(w, instr_form_xcr0(f), 8);
	put_str(w, f->asm_name, "asm");
	put_str(w, f->iform, "iform");
	put_str(w, f->extension, "extension");
	put_str(w, f->isa_set, "isa_set");
	put_str(w, p->values, "values");
	put_str(w, p->chain, "chain");
	put_str(w, p->skipped, "skipped");
	put_str(w, p->why, "why");
	for (size_t i = 0; i < f->n_cpuid; i++) {
		put(w, f->cpuid[i].leaf, 4);
		put(w, f->cpuid[i].subleaf, 4);
		put(w, f->cpuid[i].reg, 1);
		put(w, f->cpuid[i].bit, 1);
		put(w, f->cpuid[i].width, 1);
		put(w, f->cpuid[i].least, 1);
	}
	for (size_t j = 0; j < p->n; j++) {
		const struct ikm *m = &p->m[j];
		const struct instr_pack_code *k = &code[j];
		char via[IKM_BODY_MAX];
		bool bytes = !k->why;
		if (bytes && (k->init_len > INSTR_PACK_CODE_MAX || k->body_len > INSTR_PACK_CODE_MAX || !k->body_len)) {
			snprintf(w->why, sizeof(w->why), "%s %s: init %zu, body %zu bytes: outside 0..%u, 1..%u",
				 f->asm_name, m->name, k->init_len, k->body_len, INSTR_PACK_CODE_MAX, INSTR_PACK_CODE_MAX);
			return false;
		}
		put(w, m->kind, 1);
		put(w, m->bound, 1);
		put(w, m->least, 1);
		put(w, m->per_iter ? m->per_iter : 1, 2);
		put(w, pack_unroll(m), 2);
		for (size_t s = 0; s < IKM_SUB_MAX; s++)
			put(w, (uint8_t)m->sub[s], 1);
		put(w, m->fill, 8);
		/* from and to are "" outside latencies: "-" stands for them, since the reader needs both. */
		put_str(w, m->from[0] ? m->from : "-", "from");
		put_str(w, m->to[0] ? m->to : "-", "to");
		put_str(w, m->name, "name");
		put_str(w, via_of(m, via, sizeof(via)), "via");
		put_str(w, m->note, "note");
		put_str(w, k->why, "why");
		put(w, init_entry(w, bytes ? k->init : NULL, bytes ? k->init_len : 0), 2);
		put(w, bytes ? k->body_len : 0, 2);
		if (bytes)
			put_bytes(w, k->body, k->body_len);
	}
	if (w->why[0])
		return false;
	put_at(w, start, w->len - start, 4);
	w->forms++;
	w->measurements += (uint32_t)p->n;
	return true;
}

void instr_pack_form_from_plan(const struct instr_plan *p, const struct instr_pack_code *code,
			       struct instr_pack_form *f, char (*via)[IKM_BODY_MAX])
{
	const struct instr_form *src = p->f;
	memset(f, 0, sizeof(*f));
	f->asm_name = src->asm_name;
	f->iform = src->iform;
	f->extension = src->extension;
	f->isa_set = src->isa_set;
	f->values = p->values[0] ? p->values : NULL;
	f->chain = p->chain[0] ? p->chain : NULL;
	f->skipped = p->skipped[0] ? p->skipped : NULL;
	f->why = p->why[0] ? p->why : NULL;
	f->attrs = src->attrs;
	f->idiom = p->idiom;
	f->xcr0 = instr_form_xcr0(src);
	f->n_cpuid = src->n_cpuid < INSTR_PACK_CPUID_MAX ? src->n_cpuid : INSTR_PACK_CPUID_MAX;
	memcpy(f->cpuid, src->cpuid, f->n_cpuid * sizeof(f->cpuid[0]));
	f->n = p->n;
	for (size_t j = 0; j < p->n; j++) {
		const struct ikm *m = &p->m[j];
		struct instr_pack_meas *q = &f->m[j];
		q->kind = m->kind;
		q->bound = m->bound;
		q->least = m->least;
		q->per_iter = m->per_iter ? m->per_iter : 1;
		q->unroll = pack_unroll(m);
		memcpy(q->sub, m->sub, sizeof(q->sub));
		q->fill = m->fill;
		q->from = m->from;
		q->to = m->to;
		q->name = m->name;
		q->via = via_of(m, via[j], sizeof(via[j]));
		q->note = m->note;
		q->why = code[j].why;
		q->init = code[j].init;
		q->body = code[j].body;
		q->init_len = (uint16_t)code[j].init_len;
		q->body_len = (uint16_t)code[j].body_len;
	}
}

bool instr_pack_write_end(struct instr_pack_writer *w)
{
	if (w->why[0])
		return false;
	size_t table = w->len;
	for (size_t i = 0; i < w->inits; i++) {
		put(w, w->init[i].len, 2);
		put_bytes(w, w->init[i].bytes, w->init[i].len);
	}
	if (w->why[0])
		return false;
	if (w->len > UINT32_MAX) {
		snprintf(w->why, sizeof(w->why), "%zu bytes: more than a 32-bit length", w->len);
		return false;
	}
	put_at(w, 6, w->inits, 2);
	put_at(w, 24, table, 4);
	put_at(w, 8, w->forms, 4);
	put_at(w, 12, w->measurements, 4);
	put_at(w, 16, w->len, 4);
	uint32_t crc = crc32_update(CRC32_INIT, w->buf, INSTR_PACK_CRC_AT);
	crc = crc32_update(crc, w->buf + INSTR_PACK_CRC_END, w->len - INSTR_PACK_CRC_END);
	put_at(w, INSTR_PACK_CRC_AT, crc, 4);
	return true;
}

void instr_pack_write_free(struct instr_pack_writer *w)
{
	for (size_t i = 0; i < w->inits; i++)
		free(w->init[i].bytes);
	free(w->buf);
	memset(w, 0, sizeof(*w));
}
