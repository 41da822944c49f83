/*
 * cpu/cpuid_dump_tagged_host.c - the two dump formats in which every
 * register line names its CPU block and its subleaf (see cpuid_dump.h):
 *
 *   'X'  pmuboot's compact fixture (docs/cpuid-dumps.md, written by
 *        tools/cpuid_fixture.py):
 *          # pmuboot cpuid fixture 1
 *          # any comment
 *          CPU 0: core Intel Core
 *          CPU 0: 00000000.00: 00000020 756E6547 6C65746E 49656E69
 *        Blocks are numbered 0, 1, 2... in order; a (leaf, subleaf) once per block.
 *
 *   'R'  Debian's `cpuid -r` (raw) output, one block per "CPU:" (with -1) or
 *        "CPU n:" header:
 *          CPU:
 *             0x00000000 0x00: eax=0x0000001c ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65
 *        The tool prints some probe leaves (80860000h, C0000000h) twice;
 *        a repeat with the same values is dropped, a different one is an error.
 *
 * Every block must hold leaf 0 and leaf 1, as in the AIDA64 reader.  Anything
 * else is an error naming its line.
 */
#include "cpu/cpuid_dump_internal.h"
#include "lib/decimal.h"

#define LEAF_VENDOR 0x00000000u
#define LEAF_SIGNATURE 0x00000001u
#define SUBLEAF_DIGITS_MAX 8	/* ECX is 32 bits */

struct cursor {
	const char *p, *e;
};

static bool lit(struct cursor *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->e - c->p) < n || memcmp(c->p, s, n) != 0)
		return false;
	c->p += n;
	return true;
}

static bool blanks(struct cursor *c)
{
	const char *s = c->p;
	while (c->p < c->e && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
	return c->p > s;
}

/* Between min and max hex digits, not followed by another hex digit. */
static bool hex(struct cursor *c, size_t min, size_t max, uint32_t *v)
{
	size_t k = cpuid_dump_hex_run(c->p, c->e);
	if (k < min || k > max)
		return false;
	*v = 0;
	for (size_t i = 0; i < k; i++)
		*v = *v << 4 | (uint32_t)cpuid_dump_hexval(c->p[i]);
	c->p += k;
	return true;
}

/*
 * A CPU number: decimal digits, all of them consumed.  DEC_TOO_BIG when
 * they do not fit 32 bits: an error for the caller to report, never a
 * wrapped number or a header read as having none.
 */
#define CPU_NUMBER_MAX 0xffffffffull	/* the labels are uint32_t (cpuid_dump.h) */

static enum dec_result dec(struct cursor *c, uint32_t *v)
{
	uint64_t x = 0;
	size_t n;
	enum dec_result r = dec_parse(c->p, (size_t)(c->e - c->p), CPU_NUMBER_MAX, &x, &n);
	for (c->p += n; c->p < c->e && lc_isdigit(*c->p); c->p++)
		;	/* the rest of a number too big */
	*v = (uint32_t)x;
	return r;
}

static bool range_error(struct cpuid_dump *d, const struct cpuid_dump_line *l)
{
	char ex[20];
	return cpuid_dump_fail(d, l->no, "the CPU number in %s is out of range (0..%llu)",
			       cpuid_dump_excerpt(l->p, l->p + l->n, ex), CPU_NUMBER_MAX);
}

static bool at_end(struct cursor *c)
{
	blanks(c);
	return c->p == c->e;
}

static bool is_blank(const struct cpuid_dump_line *l)
{
	struct cursor c = { l->p, l->p + l->n };
	return at_end(&c);
}

/* "CPU:" or "CPU n:" with nothing after it; HDR_RANGE: "CPU n:" with n out of range. */
enum header { HDR_NO, HDR_OK, HDR_RANGE };

static enum header raw_header(const struct cpuid_dump_line *l, uint32_t *label, bool *labelled)
{
	struct cursor c = { l->p, l->p + l->n };
	if (!lit(&c, "CPU"))
		return HDR_NO;
	enum dec_result r = blanks(&c) ? dec(&c, label) : DEC_NO_DIGIT;
	*labelled = r == DEC_OK;
	if (!lit(&c, ":") || !at_end(&c))
		return HDR_NO;
	return r == DEC_TOO_BIG ? HDR_RANGE : HDR_OK;
}

static bool raw_register_start(const char *p, const char *e)
{
	struct cursor c = { p, e };
	return blanks(&c) && lit(&c, "0x");
}

char cpuid_dump_tagged_variant(const struct cpuid_dump_line *l, const char *rest, const char *end)
{
	struct cursor c = { l->p, l->p + l->n };
	uint32_t label, no = 0;
	bool labelled;
	struct cpuid_dump_line next;

	if (lit(&c, CPUID_FIXTURE_MAGIC) && at_end(&c))
		return 'X';
	enum header h = raw_header(l, &label, &labelled);
	if (h == HDR_NO)
		return 0;
	if (h == HDR_RANGE || !labelled)
		return 'R';	/* a number out of range is reported by the reader, on this line */
	/* "CPU 0:" also heads variant G of the AIDA64 text: `cpuid -r` is told by its next line. */
	while (cpuid_dump_next_line(&rest, end, &no, &next))
		if (!is_blank(&next))
			return raw_register_start(next.p, next.p + next.n) ? 'R' : 0;
	return 0;
}

struct block_state {
	bool open;
	uint32_t label;		/* of the open block */
	uint32_t first_line, last_line;
};

static struct cpuid_dump_cpu *cur(struct cpuid_dump *d)
{
	return &d->cpus[d->ncpus - 1];
}

static bool close_block(struct cpuid_dump *d, struct block_state *b)
{
	struct cpuid_regs r;
	if (!b->open)
		return true;
	b->open = false;
	const char *missing = !cpuid_dump_query(d, d->ncpus - 1, LEAF_VENDOR, 0, &r)	    ? "00000000"
			      : !cpuid_dump_query(d, d->ncpus - 1, LEAF_SIGNATURE, 0, &r) ? "00000001"
											  : NULL;
	if (!missing)
		return true;
	if (cur(d)->count == 0)
		return cpuid_dump_fail(d, cur(d)->line, "CPU block header with no register lines after it");
	return cpuid_dump_fail(d, cur(d)->line, "CPU %u (lines %u-%u) has no leaf %s line", cur(d)->label,
			       cur(d)->line, b->last_line, missing);
}

static bool open_block(struct cpuid_dump *d, struct block_state *b, uint32_t line, uint32_t label, bool labelled)
{
	if (!close_block(d, b))
		return false;
	if (d->ncpus >= d->cpus_cap)
		return cpuid_dump_fail(d, line, "more CPU blocks than the %u this reader has room for",
				       (unsigned)d->cpus_cap);
	struct cpuid_dump_cpu *c = &d->cpus[d->ncpus];
	memset(c, 0, sizeof(*c));
	c->label = labelled ? label : (uint32_t)d->ncpus;
	c->labelled = labelled;
	c->line = line;
	c->first = d->nleaves;
	d->ncpus++;
	b->open = true;
	b->label = c->label;
	b->first_line = b->last_line = line;
	return true;
}

/*
 * Add a register line to the open block.  A repeated (leaf, subleaf) with other values is an
 * error naming both lines; an identical repeat is dropped where the format allows it (`cpuid -r`
 * prints some leaves twice) and an error in a fixture, which the tool writes once per question.
 */
static bool add(struct cpuid_dump *d, struct block_state *b, uint32_t line, uint32_t leaf, uint32_t subleaf,
		const uint32_t v[4], bool same_repeat_ok)
{
	struct cpuid_dump_cpu *c = cur(d);
	for (size_t i = c->first; i < c->first + c->count; i++) {
		const struct cpuid_dump_leaf *o = &d->leaves[i];
		if (o->leaf != leaf || o->subleaf != subleaf)
			continue;
		bool same = o->r.eax == v[0] && o->r.ebx == v[1] && o->r.ecx == v[2] && o->r.edx == v[3];
		if (same && same_repeat_ok)
			return true;
		return cpuid_dump_fail(d, line, "leaf %08X subleaf %X on line %u was already given on line %u (CPU %u)%s",
				       leaf, subleaf, line, o->line, c->label,
				       same ? " (a pmuboot fixture gives each question once)" : " with other values");
	}
	if (d->nleaves >= d->leaves_cap)
		return cpuid_dump_fail(d, line, "more register lines than the %u this reader has room for",
				       (unsigned)d->leaves_cap);
	d->leaves[d->nleaves++] = (struct cpuid_dump_leaf){
		.leaf = leaf,
		.subleaf = subleaf,
		.r = { v[0], v[1], v[2], v[3] },
		.line = line,
		.sl = DUMP_SL_TAGGED,
	};
	c->count++;
	b->last_line = line;
	return true;
}

/* "LLLLLLLL.SS: EAX EBX ECX EDX" after "CPU n: " in a fixture. */
static bool fixture_register(struct cpuid_dump *d, struct block_state *b, const struct cpuid_dump_line *l,
			     struct cursor *c)
{
	static const char *const regname[4] = { "EAX", "EBX", "ECX", "EDX" };
	uint32_t leaf, subleaf, v[4];
	char ex[20];

	if (!hex(c, 8, 8, &leaf))
		return cpuid_dump_fail(d, l->no, "expected an 8-digit hex leaf or \"core\", found %s",
				       cpuid_dump_excerpt(c->p, c->e, ex));
	if (!lit(c, ".") || !hex(c, 1, SUBLEAF_DIGITS_MAX, &subleaf) || !lit(c, ":"))
		return cpuid_dump_fail(d, l->no, "leaf %08X: expected \".SUBLEAF:\" (1-8 hex digits), found %s", leaf,
				       cpuid_dump_excerpt(c->p, c->e, ex));
	for (int i = 0; i < 4; i++) {
		bool sep = blanks(c);
		if (c->p == c->e)
			return cpuid_dump_fail(d, l->no, "leaf %08X.%X: truncated, %s is missing", leaf, subleaf,
					       regname[i]);
		if (!sep || !hex(c, 8, 8, &v[i]))
			return cpuid_dump_fail(d, l->no, "leaf %08X.%X: %s is not 8 hex digits: %s", leaf, subleaf,
					       regname[i], cpuid_dump_excerpt(c->p, c->e, ex));
	}
	if (!at_end(c))
		return cpuid_dump_fail(d, l->no, "leaf %08X.%X: unexpected text after EDX: %s", leaf, subleaf,
				       cpuid_dump_excerpt(c->p, c->e, ex));
	return add(d, b, l->no, leaf, subleaf, v, false);
}

static bool fixture_line(struct cpuid_dump *d, struct block_state *b, const struct cpuid_dump_line *l)
{
	struct cursor c = { l->p, l->p + l->n };
	uint32_t n;
	char ex[20];

	if (l->n && l->p[0] == '#')
		return true;
	enum dec_result r = lit(&c, "CPU ") ? dec(&c, &n) : DEC_NO_DIGIT;
	if (r == DEC_TOO_BIG)
		return range_error(d, l);
	if (r == DEC_NO_DIGIT || !lit(&c, ": "))
		return cpuid_dump_fail(d, l->no, "expected \"CPU n: ...\" or a '#' comment, found %s",
				       cpuid_dump_excerpt(l->p, l->p + l->n, ex));
	if (!b->open || n != b->label) {
		uint32_t want = b->open ? b->label + 1 : 0;
		if (n != want)
			return cpuid_dump_fail(d, l->no, "CPU %u where CPU %u was expected (blocks are numbered "
					       "0, 1, 2... and each block's lines are together)", n, want);
		if (!open_block(d, b, l->no, n, true))
			return false;
	}
	if (lit(&c, "core ")) {
		struct cpuid_dump_cpu *cpu = cur(d);
		size_t len = (size_t)(c.e - c.p);
		while (len && (c.p[len - 1] == ' ' || c.p[len - 1] == '\t'))
			len--;
		if (len == 0 || len >= CPUID_DUMP_NOTE_MAX)
			return cpuid_dump_fail(d, l->no, "the core note must be 1-%d characters",
					       CPUID_DUMP_NOTE_MAX - 1);
		if (cpu->core_note[0])
			return cpuid_dump_fail(d, l->no, "a second core note for CPU %u", n);
		memcpy(cpu->core_note, c.p, len);
		cpu->core_note[len] = '\0';
		return true;
	}
	return fixture_register(d, b, l, &c);
}

/* "   0x00000000 0x00: eax=0x... ebx=0x... ecx=0x... edx=0x..." */
static bool raw_line(struct cpuid_dump *d, struct block_state *b, const struct cpuid_dump_line *l)
{
	static const char *const regname[4] = { "eax=0x", "ebx=0x", "ecx=0x", "edx=0x" };
	struct cursor c = { l->p, l->p + l->n };
	uint32_t label, leaf, subleaf, v[4];
	bool labelled;
	char ex[20];

	enum header h = raw_header(l, &label, &labelled);
	if (h == HDR_RANGE)
		return range_error(d, l);
	if (h == HDR_OK)
		return open_block(d, b, l->no, label, labelled);
	if (!raw_register_start(l->p, l->p + l->n))
		return cpuid_dump_fail(d, l->no, "expected \"CPU:\", \"CPU n:\" or a `cpuid -r` register line, found %s",
				       cpuid_dump_excerpt(l->p, l->p + l->n, ex));
	if (!b->open)
		return cpuid_dump_fail(d, l->no, "register line before any \"CPU:\" header");
	blanks(&c);
	lit(&c, "0x");
	if (!hex(&c, 8, 8, &leaf) || !lit(&c, " 0x") || !hex(&c, 1, SUBLEAF_DIGITS_MAX, &subleaf) || !lit(&c, ":"))
		return cpuid_dump_fail(d, l->no, "expected \"0xLEAF 0xSUBLEAF:\" (8 and 1-8 hex digits) at %s",
				       cpuid_dump_excerpt(l->p, l->p + l->n, ex));
	for (int i = 0; i < 4; i++) {
		bool sep = blanks(&c);
		if (c.p == c.e)
			return cpuid_dump_fail(d, l->no, "leaf %08X.%X: truncated, %.3s is missing", leaf, subleaf,
					       regname[i]);
		if (!sep || !lit(&c, regname[i]) || !hex(&c, 8, 8, &v[i]))
			return cpuid_dump_fail(d, l->no, "leaf %08X.%X: expected %s and 8 hex digits, found %s", leaf,
					       subleaf, regname[i], cpuid_dump_excerpt(c.p, c.e, ex));
	}
	if (!at_end(&c))
		return cpuid_dump_fail(d, l->no, "leaf %08X.%X: unexpected text after edx: %s", leaf, subleaf,
				       cpuid_dump_excerpt(c.p, c.e, ex));
	return add(d, b, l->no, leaf, subleaf, v, true);
}

bool cpuid_dump_parse_tagged(struct cpuid_dump *d, char variant, const char *text, const char *end)
{
	struct block_state b = { 0 };
	struct cpuid_dump_line l;
	uint32_t no = 0;

	while (cpuid_dump_next_line(&text, end, &no, &l)) {
		if (is_blank(&l))
			continue;
		if (!(variant == 'X' ? fixture_line(d, &b, &l) : raw_line(d, &b, &l)))
			return false;
	}
	if (!close_block(d, &b))
		return false;
	if (d->ncpus == 0)
		return cpuid_dump_fail(d, 0, "no CPU blocks in %u lines", no);
	return true;
}
