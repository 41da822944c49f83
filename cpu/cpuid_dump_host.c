/*
 * cpu/cpuid_dump_host.c - see cpuid_dump.h.
 *
 * Format facts: ../shared/cpuid-dumps/README.md, "Text format" (register
 * line grammar, subleaf tags, layout variants A-G).  Which leaves take a
 * subleaf in ECX: Intel SDM Vol. 2A, CPUID; AMD APM Vol. 3, Appendix E.
 *
 * The code is portable (lib/libc.h only, no allocation) but compiled only
 * into the hosted build (pmuboot-host, unit tests): nothing in the image
 * reads dumps yet, and the image has a 256 KiB budget.  Drop the guard to
 * use it there.
 */
#include "cpu/cpuid_dump_internal.h"
#include "lib/decimal.h"


#define LEAF_VENDOR 0x00000000u
#define LEAF_SIGNATURE 0x00000001u
#define LEAF_XSAVE 0x0000000Du		/* contiguous from 0 on Intel; AMD dumps skip subleaf 1 */

/* Untagged repeats of these leaves are subleaves 0, 1, 2... in order (README, "Subleaves"). */
static const uint32_t contiguous_leaves[] = {
	0x00000004u,	/* deterministic cache parameters */
	0x0000000Bu,	/* extended topology */
	0x0000001Fu,	/* V2 extended topology */
	0x8000001Du,	/* AMD cache topology */
};

/* Leaves whose output depends on ECX: a lone untagged line answers subleaf 0 only. */
static const uint32_t indexed_leaves[] = {
	0x04, 0x07, 0x0B, 0x0D, 0x0F, 0x10, 0x12, 0x14, 0x17, 0x18, 0x1B, 0x1D, 0x1E, 0x1F, 0x20, 0x23, 0x24,
	0x27, 0x28, 0x8000001Du, 0x80000020u, 0x80000026u,
};

/* "GenuineIntel" as CPUID.0 returns it in EBX, EDX, ECX. */
#define INTEL_EBX 0x756E6547u
#define INTEL_EDX 0x49656E69u
#define INTEL_ECX 0x6C65746Eu


/* Parser state between lines. */
struct state {
	bool open;		/* a CPU block is open */
	bool pending;		/* a header was seen, its block has no lines yet */
	uint32_t pend_label, pend_line;
	bool pend_labelled;
	char pend_note[CPUID_DUMP_NOTE_MAX];
};

static bool in_list(const uint32_t *list, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

static uint32_t hex32(const char *p)
{
	uint32_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 4 | (uint32_t)cpuid_dump_hexval(p[i]);
	return v;
}

static const char *find_char(const char *p, const char *e, char c)
{
	while (p < e && *p != c)
		p++;
	return p < e ? p : NULL;
}

static bool prefix(const struct cpuid_dump_line *l, const char *lit)
{
	size_t n = strlen(lit);
	return l->n >= n && memcmp(l->p, lit, n) == 0;
}

static bool alnum(char c)
{
	return lc_isdigit(c) || (lc_tolower(c) >= 'a' && lc_tolower(c) <= 'z');
}

#define CPU_NUMBER_MAX 0xffffffffull	/* the labels are uint32_t (cpuid_dump.h) */

/*
 * A CPU number in a header: true with *end past every digit.  Digits that
 * do not fit 32 bits set *range (the header is still one, and an error):
 * never a wrapped number, nor a header read as having none.
 */
static bool parse_dec(const char *p, const char *e, uint32_t *v, const char **end, bool *range)
{
	uint64_t x = 0;
	size_t n;
	enum dec_result r = dec_parse(p, (size_t)(e - p), CPU_NUMBER_MAX, &x, &n);
	if (r == DEC_NO_DIGIT)
		return false;
	*range = *range || r == DEC_TOO_BIG;
	for (p += n; p < e && lc_isdigit(*p); p++)
		;	/* the rest of a number too big */
	*v = (uint32_t)x;
	*end = p;
	return true;
}

static bool only_space(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p == e;
}

/*
 * A register line.  Returns 1 and fills *out, 0 when the line is not a
 * register line at all (a header such as "CPUID Revision : ..."), -1 on
 * a malformed one (error set).
 */
static int parse_register(struct cpuid_dump *d, const struct cpuid_dump_line *l, struct cpuid_dump_leaf *out, bool *tagged)
{
	static const char *const regname[4] = { "EAX", "EBX", "ECX", "EDX" };
	const char *p = l->p, *e = l->p + l->n;
	char ex[20];

	if (!prefix(l, "CPUID "))
		return 0;
	p += 5;
	while (p < e && *p == ' ')
		p++;
	/* "CPUID CPU Name", "CPUID Registers (CPU #1):" are headers: a word, no digits. */
	size_t run = 0;
	bool digit = false;
	while (p + run < e && alnum(p[run]))
		digit |= lc_isdigit(p[run++]);
	if (!digit && !(run >= 8 && cpuid_dump_hex_run(p, e) >= 8))
		return 0;
	if (cpuid_dump_hex_run(p, e) < 8) {
		cpuid_dump_fail(d, l->no, "the leaf %s is not 8 hex digits", cpuid_dump_excerpt(p, p + run, ex));
		return -1;
	}
	out->leaf = hex32(p);
	p += 8;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p < e && *p == ':')
		p++;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	uint32_t v[4];
	for (int i = 0; i < 4; i++) {
		if (i > 0) {
			if (p >= e) {
				cpuid_dump_fail(d, l->no, "truncated after %s (leaf %08X): %s is missing",
				     regname[i - 1], out->leaf, regname[i]);
				return -1;
			}
			if (*p != '-' && *p != ' ') {
				cpuid_dump_fail(d, l->no, "leaf %08X: expected '-' after %s, found %s", out->leaf,
				     regname[i - 1], cpuid_dump_excerpt(p, e, ex));
				return -1;
			}
			p++;
		}
		size_t k = cpuid_dump_hex_run(p, e);
		if (k != 8) {
			if (k < 8 && p + k == e)
				cpuid_dump_fail(d, l->no, "leaf %08X: %s is truncated (%s)", out->leaf, regname[i],
				     cpuid_dump_excerpt(p, e, ex));
			else
				cpuid_dump_fail(d, l->no, "leaf %08X: %s is not 8 hex digits: %s", out->leaf,
				     regname[i], cpuid_dump_excerpt(p, e, ex));
			return -1;
		}
		v[i] = hex32(p);
		p += 8;
	}
	out->r = (struct cpuid_regs){ v[0], v[1], v[2], v[3] };
	if (p < e && *p != ' ' && *p != '\t' && *p != '[') {
		cpuid_dump_fail(d, l->no, "leaf %08X: unexpected text after EDX: %s", out->leaf, cpuid_dump_excerpt(p, e, ex));
		return -1;
	}
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	*tagged = false;
	out->subleaf = 0;
	/* Only the first annotation can be the subleaf tag; the rest is the tool's commentary. */
	if (e - p >= 3 && memcmp(p, "[SL", 3) == 0) {
		if (e - p < 7 || p[3] != ' ' || cpuid_dump_hexval(p[4]) < 0 || cpuid_dump_hexval(p[5]) < 0 || p[6] != ']') {
			cpuid_dump_fail(d, l->no, "leaf %08X: malformed subleaf tag %s (expected [SL xx])", out->leaf,
			     cpuid_dump_excerpt(p, e, ex));
			return -1;
		}
		out->subleaf = (uint32_t)(cpuid_dump_hexval(p[4]) << 4 | cpuid_dump_hexval(p[5]));
		*tagged = true;
	}
	out->line = l->no;
	return 1;
}

/* The header shapes of the AIDA64 variants (B-G); parse_cpu_header below. */
static bool header_shape(const struct cpuid_dump_line *l, uint32_t *label, bool *labelled, char *variant, bool *range)
{
	const char *p = l->p, *e = l->p + l->n, *q;
	uint64_t mask, group;

	*labelled = false;
	*range = false;
	if (prefix(l, "------[ CPUID Registers / Logical CPU #") || prefix(l, "------[ Logical CPU #")) {
		*variant = prefix(l, "------[ Logical") ? 'C' : 'B';
		p = find_char(p, e, '#');
		if (parse_dec(p + 1, e, label, &q, range) && e - q >= 8 && memcmp(q, " ]------", 8) == 0)
			return *labelled = true;
		return false;
	}
	if (prefix(l, "CPUID Registers (CPU #")) {		/* variant D: numbered from 1 */
		*variant = 'D';
		if (parse_dec(p + 22, e, label, &q, range) && e - q >= 2 && q[0] == ')' && q[1] == ':' &&
		    only_space(q + 2, e))
			return *labelled = true;
		return false;
	}
	if (prefix(l, "CPU#")) {				/* variant E: "CPU#000 AffMask: 0x..." */
		*variant = 'E';
		return parse_dec(p + 4, e, label, &q, range) && e - q >= 9 && memcmp(q, " AffMask:", 9) == 0 &&
		       (*labelled = true);
	}
	if (prefix(l, "Group: 0x")) {				/* variant F: the CPU is the mask's bit */
		*variant = 'F';
		q = p + 9;
		size_t k = cpuid_dump_hex_run(q, e);
		if (k == 0 || k > 4 || !lc_parse_u64(q - 2, k + 2, &group))
			return false;
		q += k;
		if (e - q < 18 || memcmp(q, " Affinity mask: 0x", 18) != 0)
			return false;
		q += 18;
		k = cpuid_dump_hex_run(q, e);
		if (k == 0 || k > 16 || !lc_parse_u64(q - 2, k + 2, &mask) || !only_space(q + k, e))
			return false;
		if (mask && !(mask & (mask - 1)) && group < 0x1000000) {
			unsigned bit = 0;
			while (!(mask & 1)) {
				mask >>= 1;
				bit++;
			}
			*label = (uint32_t)(group * 64 + bit);
			*labelled = true;
		}
		return true;
	}
	if (prefix(l, "CPU ") && l->n > 4 && lc_isdigit(p[4])) {	/* variant G: "CPU 0:" */
		*variant = 'G';
		return parse_dec(p + 4, e, label, &q, range) && q < e && *q == ':' && only_space(q + 1, e) &&
		       (*labelled = true);
	}
	return false;
}

/*
 * A line that opens a CPU block.  Returns true with the CPU number when the
 * header carries one (*labelled), and the variant letter it implies;
 * *range when its number is out of range (then it is not labelled).
 */
static bool parse_cpu_header(const struct cpuid_dump_line *l, uint32_t *label, bool *labelled, char *variant,
			     bool *range)
{
	bool is = header_shape(l, label, labelled, variant, range);
	if (*range)
		*labelled = false;
	return is;
}

/* "allcpu: Package 0 / Core 0 / Thread 0: Valid, Virtual, Intel Atom": keep the core type. */
static void parse_allcpu(const struct cpuid_dump_line *l, char note[CPUID_DUMP_NOTE_MAX])
{
	const char *e = l->p + l->n, *item = NULL;
	for (const char *p = l->p; p < e; p++)
		if (*p == ',')
			item = p + 1;
	note[0] = '\0';
	if (!item)
		return;
	while (item < e && *item == ' ')
		item++;
	size_t n = (size_t)(e - item);
	while (n && (item[n - 1] == ' ' || item[n - 1] == '\t'))
		n--;
	if (n == 0 || n >= CPUID_DUMP_NOTE_MAX || (n == 7 && memcmp(item, "Virtual", 7) == 0))
		return;
	memcpy(note, item, n);
	note[n] = '\0';
}

static const char *block_name(const struct cpuid_dump_cpu *c, size_t idx, char buf[32])
{
	if (c->labelled)
		snprintf(buf, 32, "CPU #%u", c->label);
	else
		snprintf(buf, 32, "block %u", (unsigned)idx);
	return buf;
}

static const struct cpuid_dump_leaf *block_find(const struct cpuid_dump *d, const struct cpuid_dump_cpu *c,
					       uint32_t leaf)
{
	for (size_t i = c->first; i < c->first + c->count; i++)
		if (d->leaves[i].leaf == leaf)
			return &d->leaves[i];
	return NULL;
}

/* Check the finished block and decide how each untagged line's subleaf is known. */
static bool close_block(struct cpuid_dump *d, struct state *s)
{
	struct cpuid_dump_cpu *c = &d->cpus[d->ncpus - 1];
	struct cpuid_dump_leaf *L = d->leaves + c->first;
	char name[32];

	s->open = false;
	if (!block_find(d, c, LEAF_SIGNATURE))
		return cpuid_dump_fail(d, c->line, "%s (lines %u-%u) has no leaf 00000001 line",
			    block_name(c, d->ncpus - 1, name), c->line, L[c->count - 1].line);
	const struct cpuid_dump_leaf *v = block_find(d, c, LEAF_VENDOR);
	bool intel = v && v->r.ebx == INTEL_EBX && v->r.edx == INTEL_EDX && v->r.ecx == INTEL_ECX;

	for (size_t i = 0; i < c->count; i++) {
		if (L[i].sl == DUMP_SL_TAGGED)
			continue;
		size_t idx = 0, n = 0;
		bool has_tag = false;
		for (size_t j = 0; j < c->count; j++) {
			if (L[j].leaf != L[i].leaf)
				continue;
			if (L[j].sl == DUMP_SL_TAGGED) {
				has_tag = true;
				continue;
			}
			if (j < i)
				idx++;
			n++;
		}
		bool contiguous = in_list(contiguous_leaves, ARRAY_SIZE(contiguous_leaves), L[i].leaf) ||
				  (intel && L[i].leaf == LEAF_XSAVE);
		bool indexed = in_list(indexed_leaves, ARRAY_SIZE(indexed_leaves), L[i].leaf);
		L[i].subleaf = (uint32_t)idx;
		if (has_tag)
			L[i].sl = DUMP_SL_UNKNOWN;	/* untagged among tagged lines: no index to trust */
		else if (contiguous)
			L[i].sl = DUMP_SL_ORDER;
		else if (n == 1 && !indexed)
			L[i].sl = DUMP_SL_ANY;
		else
			L[i].sl = idx == 0 ? DUMP_SL_ORDER : DUMP_SL_UNKNOWN;
	}
	return true;
}

static bool open_block(struct cpuid_dump *d, struct state *s, uint32_t line)
{
	if (d->ncpus >= d->cpus_cap)
		return cpuid_dump_fail(d, line, "more CPU blocks than the %u this reader has room for",
			    (unsigned)d->cpus_cap);
	struct cpuid_dump_cpu *c = &d->cpus[d->ncpus];
	memset(c, 0, sizeof(*c));
	c->first = d->nleaves;
	if (s->pending) {
		c->label = s->pend_label;
		c->labelled = s->pend_labelled;
		c->line = s->pend_line;
		memcpy(c->core_note, s->pend_note, sizeof(c->core_note));
	} else {
		c->label = (uint32_t)d->ncpus;
		c->line = line;
	}
	if (!c->labelled)
		c->label = (uint32_t)d->ncpus;
	d->ncpus++;
	s->pending = false;
	s->open = true;
	return true;
}

/*
 * A line repeating an earlier one of its block: identical values are the dumping tool saying the
 * same thing twice (dropped, *dup set); other values for the same question are refused, naming
 * both lines.  The same question is the same tagged subleaf, or an untagged leaf that takes no
 * subleaf (untagged repeats of the others are its next subleaves, decided in close_block).
 */
static bool check_repeat(struct cpuid_dump *d, const struct cpuid_dump_line *l, const struct cpuid_dump_leaf *in,
			 bool tagged, bool *dup)
{
	struct cpuid_dump_cpu *c = &d->cpus[d->ncpus - 1];
	bool takes_subleaf = in_list(indexed_leaves, ARRAY_SIZE(indexed_leaves), in->leaf) ||
			     in_list(contiguous_leaves, ARRAY_SIZE(contiguous_leaves), in->leaf);
	char name[32];

	*dup = false;
	for (size_t i = c->first; i < d->nleaves; i++) {
		const struct cpuid_dump_leaf *o = &d->leaves[i];
		if (o->leaf != in->leaf)
			continue;
		bool same_question = tagged ? o->sl == DUMP_SL_TAGGED && o->subleaf == in->subleaf
					    : o->sl != DUMP_SL_TAGGED && !takes_subleaf;
		if (!same_question)
			continue;
		if (o->r.eax == in->r.eax && o->r.ebx == in->r.ebx && o->r.ecx == in->r.ecx && o->r.edx == in->r.edx) {
			*dup = true;
			return true;
		}
		if (tagged)
			return cpuid_dump_fail(d, l->no, "leaf %08X subleaf %02X on line %u was already given on line %u (%s) "
				    "with other values", in->leaf, in->subleaf, l->no, o->line, block_name(c, d->ncpus - 1, name));
		return cpuid_dump_fail(d, l->no, "leaf %08X on line %u was already given on line %u (%s) with other values; "
			    "it takes no subleaf%s", in->leaf, l->no, o->line, block_name(c, d->ncpus - 1, name),
			    in->leaf == LEAF_SIGNATURE ? ": is a leaf 00000000 line missing?" : "");
	}
	return true;
}

static bool add_register(struct cpuid_dump *d, struct state *s, const struct cpuid_dump_line *l, struct cpuid_dump_leaf *in,
			 bool tagged)
{
	bool dup;

	if (in->leaf == LEAF_VENDOR) {
		if (s->open && !close_block(d, s))
			return false;
		if (!open_block(d, s, l->no))
			return false;
	} else if (s->pending) {
		return cpuid_dump_fail(d, l->no, "the CPU block headed on line %u starts with leaf %08X; "
			    "leaf 00000000 must come first", s->pend_line, in->leaf);
	} else if (!s->open) {
		return cpuid_dump_fail(d, l->no, "leaf %08X comes before any leaf 00000000 line "
			    "(every CPU block starts with leaf 0)", in->leaf);
	}
	struct cpuid_dump_cpu *c = &d->cpus[d->ncpus - 1];
	if (!check_repeat(d, l, in, tagged, &dup))
		return false;
	if (dup)
		return true;
	if (d->nleaves >= d->leaves_cap)
		return cpuid_dump_fail(d, l->no, "more register lines than the %u this reader has room for",
			    (unsigned)d->leaves_cap);
	in->sl = tagged ? DUMP_SL_TAGGED : DUMP_SL_ORDER;
	d->leaves[d->nleaves++] = *in;
	c->count++;
	return true;
}

void cpuid_dump_init(struct cpuid_dump *d, struct cpuid_dump_leaf *leaves, size_t leaves_cap,
		     struct cpuid_dump_cpu *cpus, size_t cpus_cap)
{
	memset(d, 0, sizeof(*d));
	d->leaves = leaves;
	d->leaves_cap = leaves_cap;
	d->cpus = cpus;
	d->cpus_cap = cpus_cap;
}

size_t cpuid_dump_line_count(const char *text, size_t len)
{
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	return n;
}

/* The variant from the first non-empty line, or 0 when it is none of the known ones. */
static char first_line_variant(struct cpuid_dump *d, const struct cpuid_dump_line *l)
{
	uint32_t label;
	bool labelled, tagged, range;
	char v;
	struct cpuid_dump_leaf tmp;

	if (parse_cpu_header(l, &label, &labelled, &v, &range))
		return v;	/* a number out of range is reported by the main loop */
	if (prefix(l, "------[ "))
		return 'A';
	if (parse_register(d, l, &tmp, &tagged) != 0)
		return 'P';	/* a malformed one is reported by the main loop */
	return 0;
}

bool cpuid_dump_parse(struct cpuid_dump *d, const char *text, size_t len)
{
	struct state s;
	const char *p = text, *end = text + len;
	uint32_t no = 0;

	memset(&s, 0, sizeof(s));
	d->nleaves = d->ncpus = 0;
	d->variant = 0;
	d->err[0] = '\0';
	d->err_line = 0;
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)	/* a UTF-8 byte-order mark */
		p += 3;
	const char *start = p;
	struct cpuid_dump_line l;
	while (cpuid_dump_next_line(&p, end, &no, &l)) {
		if (!d->variant) {
			if (only_space(l.p, l.p + l.n))
				continue;
			/* pmuboot's compact fixtures and `cpuid -r` output have a reader of their own. */
			char tagged_variant = cpuid_dump_tagged_variant(&l, p, end);
			if (tagged_variant) {
				d->variant = tagged_variant;
				return cpuid_dump_parse_tagged(d, tagged_variant, start, end);
			}
			d->variant = first_line_variant(d, &l);
			if (!d->variant) {
				char ex[20];
				return cpuid_dump_fail(d, l.no, "not a CPUID dump: %s is none of the known first lines "
					    "(\"------[ ... ]------\", \"CPUID Registers (CPU #1):\", \"CPU#000 AffMask:\", "
					    "\"Group: 0x00 Affinity mask:\", \"CPU 0:\", \"CPUID 00000000: ...\", "
					    "\"" CPUID_FIXTURE_MAGIC "\", `cpuid -r`'s \"CPU:\")",
					    cpuid_dump_excerpt(l.p, l.p + l.n, ex));
			}
		}

		struct cpuid_dump_leaf reg;
		bool tagged, labelled, range;
		uint32_t label;
		char variant;
		int r = parse_register(d, &l, &reg, &tagged);
		if (r < 0)
			return false;
		if (r > 0) {
			if (!add_register(d, &s, &l, &reg, tagged))
				return false;
			continue;
		}
		bool cpu_header = parse_cpu_header(&l, &label, &labelled, &variant, &range);
		if (cpu_header && range) {
			char ex[20];
			return cpuid_dump_fail(d, l.no, "the CPU number in %s is out of range (0..%llu)",
					       cpuid_dump_excerpt(l.p, l.p + l.n, ex), CPU_NUMBER_MAX);
		}
		if (cpu_header || prefix(&l, "------[ ")) {
			if (s.pending)
				return cpuid_dump_fail(d, s.pend_line, "CPU block header with no register lines after it");
			if (s.open && !close_block(d, &s))
				return false;
			if (cpu_header) {
				s.pending = true;
				s.pend_label = label;
				s.pend_labelled = labelled;
				s.pend_line = l.no;
				s.pend_note[0] = '\0';
			}
		} else if (prefix(&l, "allcpu:") && s.pending) {
			parse_allcpu(&l, s.pend_note);
		}
	}
	if (!d->variant)
		return cpuid_dump_fail(d, 0, "empty input: no CPUID register lines");
	if (s.pending)
		return cpuid_dump_fail(d, s.pend_line, "CPU block header with no register lines after it (truncated?)");
	if (s.open && !close_block(d, &s))
		return false;
	if (d->ncpus == 0)
		return cpuid_dump_fail(d, 0, "no CPUID register lines in %u lines", no);
	return true;
}

