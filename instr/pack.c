/* instr/pack.c - reading a kernel pack; see pack.h for the format. */
#include "instr/pack.h"
#include "lib/crc32.h"

/* A cursor over the pack: every read is checked against the end, the first failure is kept with its offset. */
struct cur {
	const uint8_t *buf;
	size_t at, end;
	char *why;
	size_t cap;
	bool bad;
};

static bool fail(struct cur *c, size_t at, const char *what)
{
	if (!c->bad)
		snprintf(c->why, c->cap, "%s at byte %zu", what, at);
	c->bad = true;
	return false;
}

static const uint8_t *take(struct cur *c, size_t n, const char *what)
{
	if (c->bad)
		return NULL;
	if (n > c->end - c->at) {
		fail(c, c->at, what);
		return NULL;
	}
	const uint8_t *p = c->buf + c->at;
	c->at += n;
	return p;
}

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static uint64_t num(struct cur *c, size_t n, const char *what)
{
	const uint8_t *p = take(c, n, what);
	return p ? le(p, n) : 0;
}

/* A string: NULL when absent (or on failure); required ones must be there. */
static const char *str(struct cur *c, const char *name, bool required)
{
	size_t at = c->at;
	size_t n = (size_t)num(c, 2, "truncated string length");
	const uint8_t *p = take(c, n, "truncated string");
	if (c->bad)
		return NULL;
	if (!n) {
		if (required)
			fail(c, at, name);
		return NULL;
	}
	if (n > INSTR_PACK_TEXT_MAX || p[n - 1] || strlen((const char *)p) != n - 1)
		fail(c, at, "string not NUL-terminated, or with a NUL inside, or too long");
	return c->bad ? NULL : (const char *)p;
}

/* IKM_LEAST_MAX in the reader's words (instr/kernel.h). */
#define TEXT_OF(x) #x
#define TEXT_OF_VALUE(x) TEXT_OF(x)
#define LEAST_MAX_TEXT TEXT_OF_VALUE(IKM_LEAST_MAX)

static void meas(struct cur *c, const struct instr_pack *pk, struct instr_pack_meas *m, size_t n_meas)
{
	size_t at = c->at;
	m->kind = (uint8_t)num(c, 1, "truncated measurement");
	m->bound = (uint8_t)num(c, 1, "truncated measurement");
	m->least = (uint8_t)num(c, 1, "truncated measurement");
	m->per_iter = (uint16_t)num(c, 2, "truncated measurement");
	m->unroll = (uint16_t)num(c, 2, "truncated measurement");
	for (size_t s = 0; s < IKM_SUB_MAX; s++)
		m->sub[s] = (int8_t)num(c, 1, "truncated measurement");
	m->fill = num(c, 8, "truncated measurement");
	if (c->bad)
		return;
	if (m->kind > IKM_TP_BROKEN)
		fail(c, at, "unknown measurement kind");
	else if (m->bound > IKM_UPPER)
		fail(c, at + 1, "unknown bound");
	else if (m->least > IKM_LEAST_MAX || (m->least && m->bound != IKM_UPPER))
		fail(c, at + 2, "least cycles outside 0.." LEAST_MAX_TEXT ", or without an upper bound");
	else if (!m->per_iter)
		fail(c, at + 3, "per_iter 0");
	else if (!m->unroll || m->unroll > INSTR_PACK_UNROLL_MAX)
		fail(c, at + 5, "unroll outside 1..256");
	for (size_t s = 0; s < IKM_SUB_MAX; s++)
		if (m->sub[s] != IKM_NO_SUB && (m->sub[s] < 0 || (size_t)m->sub[s] >= n_meas))
			fail(c, at + 7 + s, "subtracted measurement out of range");
	m->from = str(c, "measurement without from", true);
	m->to = str(c, "measurement without to", true);
	m->name = str(c, "measurement without a name", true);
	m->via = str(c, NULL, false);
	m->note = str(c, NULL, false);
	m->why = str(c, NULL, false);
	at = c->at;
	size_t init = (size_t)num(c, 2, "truncated init entry");
	m->body_len = (uint16_t)num(c, 2, "truncated body length");
	if (c->bad)
		return;
	if (init >= pk->inits)
		fail(c, at, "init entry past the init table");
	else if (m->body_len > INSTR_PACK_CODE_MAX)
		fail(c, at + 2, "body longer than 1024 bytes");
	else if (m->why ? m->body_len != 0 : !m->body_len)
		fail(c, at + 2, m->why ? "bytes for a kernel not assembled" : "empty body");
	if (c->bad)
		return;
	m->init = pk->buf + pk->init_at[init];
	m->init_len = m->why ? 0 : pk->init_len[init];
	m->body = take(c, m->body_len, "truncated body bytes");
}

/* One form at c->at into f; the cursor ends past it. */
static bool form(struct cur *c, const struct instr_pack *pk, struct instr_pack_form *f)
{
	size_t start = c->at;
	size_t len = (size_t)num(c, 4, "truncated form length");
	if (c->bad)
		return false;
	if (len < 4 || len > c->end - start)
		return fail(c, start, "form length past the end of the pack");
	size_t end = c->end;
	c->end = start + len; /* the form's fields stay inside its length */
	f->idiom = (uint8_t)num(c, 1, "truncated form");
	f->n_cpuid = (uint8_t)num(c, 1, "truncated form");
	f->n = (size_t)num(c, 1, "truncated form");
	uint64_t reserved = num(c, 1, "truncated form");
	f->attrs = (uint16_t)num(c, 2, "truncated form");
	reserved |= num(c, 2, "truncated form");
	f->xcr0 = num(c, 8, "truncated form");
	if (!c->bad && reserved)
		fail(c, start + 4, "reserved bytes not 0");
	if (!c->bad && f->idiom > IKM_IDIOM_MOVE)
		fail(c, start + 4, "unknown idiom");
	if (!c->bad && f->n_cpuid > INSTR_PACK_CPUID_MAX)
		fail(c, start + 5, "more than 8 CPUID bits");
	if (!c->bad && f->n > IKM_MAX)
		fail(c, start + 6, "more than 24 measurements");
	f->asm_name = str(c, "form without an asm name", true);
	f->iform = str(c, "form without an iform", true);
	f->extension = str(c, "form without an extension", true);
	f->isa_set = str(c, "form without an ISA set", true);
	f->values = str(c, NULL, false);
	f->chain = str(c, NULL, false);
	f->skipped = str(c, NULL, false);
	f->why = str(c, NULL, false);
	for (size_t i = 0; !c->bad && i < f->n_cpuid; i++) {
		size_t at = c->at;
		f->cpuid[i].leaf = (uint32_t)num(c, 4, "truncated CPUID bit");
		f->cpuid[i].subleaf = (uint32_t)num(c, 4, "truncated CPUID bit");
		f->cpuid[i].reg = (uint8_t)num(c, 1, "truncated CPUID bit");
		f->cpuid[i].bit = (uint8_t)num(c, 1, "truncated CPUID bit");
		f->cpuid[i].width = (uint8_t)num(c, 1, "truncated CPUID bit");
		f->cpuid[i].least = (uint8_t)num(c, 1, "truncated CPUID bit");
		const struct instr_cpuid_bit *b = &f->cpuid[i];
		if (!c->bad && !instr_cpu_bit_fits(b))
			fail(c, at + 8, "CPUID register or bit out of range");
		else if (!c->bad && (!b->least || (b->width < 8 && b->least >> b->width)))
			fail(c, at + 11, "CPUID field's least value 0 or wider than the field");
	}
	for (size_t j = 0; !c->bad && j < f->n; j++)
		meas(c, pk, &f->m[j], f->n);
	if (!c->bad && c->at != c->end)
		fail(c, c->at, "bytes left over in the form");
	c->end = end;
	return !c->bad;
}

bool instr_pack_open(struct instr_pack *pk, const uint8_t *buf, size_t len, char *why, size_t cap)
{
	static struct instr_pack_form f;
	struct cur c = { buf, 0, len, why, cap, false };

	memset(pk, 0, sizeof(*pk));
	if (len < INSTR_PACK_HEADER)
		return fail(&c, len, "shorter than the 28-byte header");
	if (memcmp(buf, INSTR_PACK_MAGIC, INSTR_PACK_MAGIC_LEN))
		return fail(&c, 0, "not a kernel pack (no PMUI magic)");
	if (buf[4] != INSTR_PACK_VERSION) {
		char what[64];
		snprintf(what, sizeof(what), "format version %u; this pmuboot reads version %u", buf[4],
			 INSTR_PACK_VERSION);
		return fail(&c, 4, what);
	}
	if (buf[5])
		return fail(&c, 5, "reserved byte not 0");
	uint32_t forms = (uint32_t)le(buf + 8, 4), total = (uint32_t)le(buf + 12, 4);
	size_t inits = (size_t)le(buf + 6, 2), table = (size_t)le(buf + 24, 4);
	if (le(buf + 16, 4) != len)
		return fail(&c, 16, "total length is not the file's length");
	uint32_t crc = crc32_update(CRC32_INIT, buf, INSTR_PACK_CRC_AT);
	crc = crc32_update(crc, buf + INSTR_PACK_CRC_END, len - INSTR_PACK_CRC_END);
	if (le(buf + INSTR_PACK_CRC_AT, 4) != crc)
		return fail(&c, INSTR_PACK_CRC_AT, "CRC-32 does not match (the file is damaged)");
	if (inits > INSTR_PACK_INITS_MAX)
		return fail(&c, 6, "more than 256 inits");
	if (table < INSTR_PACK_HEADER || table > len)
		return fail(&c, 24, "init table offset outside the file");
	/* The init table first: the forms name its entries. */
	pk->buf = buf;
	c.at = table;
	for (size_t i = 0; i < inits; i++) {
		size_t at = c.at;
		size_t n = (size_t)num(&c, 2, "truncated init table");
		if (!c.bad && n > INSTR_PACK_CODE_MAX)
			return fail(&c, at, "init longer than 1024 bytes");
		pk->init_len[i] = (uint16_t)n;
		pk->init_at[i] = (uint32_t)c.at;
		if (!take(&c, n, "truncated init table"))
			return false;
	}
	if (c.bad)
		return false;
	if (c.at != len)
		return fail(&c, c.at, "bytes left over after the init table");
	pk->inits = (uint16_t)inits;
	c.at = INSTR_PACK_HEADER;
	c.end = table;
	uint64_t seen = 0, meas = 0;
	while (c.at < table) {
		if (!form(&c, pk, &f))
			return false;
		seen++;
		meas += f.n;
	}
	if (seen != forms)
		return fail(&c, 8, "form count does not match the forms");
	if (meas != total)
		return fail(&c, 12, "measurement count does not match the measurements");
	pk->len = len;
	pk->end = table;
	pk->forms = forms;
	pk->measurements = total;
	pk->at = INSTR_PACK_HEADER;
	return true;
}

bool instr_pack_next(struct instr_pack *pk, struct instr_pack_form *f)
{
	char why[8];
	struct cur c = { pk->buf, pk->at, pk->end, why, sizeof(why), false };

	if (!pk->buf || pk->at >= pk->end || !form(&c, pk, f))
		return false;
	pk->at = c.at;
	return true;
}

enum instr_avail instr_pack_form_avail(struct instr_cpu *c, const struct instr_pack_form *f)
{
	for (size_t i = 0; i < f->n_cpuid; i++)
		if (!instr_cpu_bit(c, &f->cpuid[i]))
			return INSTR_ABSENT;
	if (f->xcr0 && (!c->osxsave || (c->xcr0 & f->xcr0) != f->xcr0))
		return INSTR_NO_STATE;
	return INSTR_PRESENT;
}

bool instr_pack_form_matches(const struct instr_pack_form *f, const struct instr_filter *flt)
{
	struct instr_form as_form = { .asm_name = f->asm_name, .extension = f->extension };
	return instr_form_matches(&as_form, flt);
}

/* instr/kernel.h's, here because the image names a form's idiom too (kernel_host.c is host-only). */
const char *ikm_idiom_name(enum ikm_idiom i)
{
	static const char *const NAMES[] = { NULL, "zero idiom", "ones idiom", "move elimination" };
	return (unsigned)i < ARRAY_SIZE(NAMES) ? NAMES[i] : NULL;
}
