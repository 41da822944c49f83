/* lib/regex.c - parse a pattern into a tree, compile it to an NFA program, run it (Thompson). */
#include "lib/regex.h"

/* Program instructions. */
enum { RX_CHAR, RX_ANY, RX_CLASS, RX_BOL, RX_EOL, RX_SPLIT, RX_JMP, RX_MATCH };

/* The parse tree: at most one node per pattern byte, plus the concatenations joining them. */
enum { N_EMPTY, N_CHAR, N_ANY, N_CLASS, N_BOL, N_EOL, N_CAT, N_ALT, N_STAR, N_PLUS, N_QUEST };
#define RX_MAX_NODES (2 * REGEX_MAX_INSNS)
/* Groups may nest this deep (the parser recurses once per level). */
#define RX_MAX_DEPTH 32

struct rx_node {
	uint8_t type, arg;
	uint16_t a, b;
};

struct rx_parser {
	const char *s;
	size_t pos;
	unsigned depth;
	struct regex *re;
	struct rx_node node[RX_MAX_NODES];
	uint16_t nnode;
	struct regex_error *err;
};

static bool fail(struct rx_parser *p, size_t pos, const char *what)
{
	if (p->err && !p->err->what) {
		p->err->pos = pos;
		p->err->what = what;
	}
	return false;
}

static bool new_node(struct rx_parser *p, uint8_t type, uint8_t arg, uint16_t a, uint16_t b, uint16_t *out)
{
	if (p->nnode >= RX_MAX_NODES)
		return fail(p, p->pos, "pattern too long");
	p->node[p->nnode] = (struct rx_node){ type, arg, a, b };
	*out = p->nnode++;
	return true;
}

static void set_bit(uint8_t *set, unsigned c) { set[c >> 3] |= (uint8_t)(1u << (c & 7)); }
static bool has_bit(const uint8_t *set, unsigned c) { return set[c >> 3] & (1u << (c & 7)); }

static bool is_word(int c) { return lc_isdigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

/* \d \w \s into a set; false for another letter (an escape this subset does not define). */
static bool shorthand(uint8_t *set, char c)
{
	for (unsigned ch = 1; ch < 256; ch++)
		if ((c == 'd' && lc_isdigit((int)ch)) || (c == 'w' && is_word((int)ch)) ||
		    (c == 's' && lc_isspace((int)ch)))
			set_bit(set, ch);
	return c == 'd' || c == 'w' || c == 's';
}

static bool new_class(struct rx_parser *p, size_t at, uint8_t **set, uint8_t *idx)
{
	if (p->re->nclass >= REGEX_MAX_CLASSES)
		return fail(p, at, "too many bracket classes");
	*idx = p->re->nclass++;
	*set = p->re->cls[*idx];
	memset(*set, 0, 32);
	return true;
}

/* After '[': members up to ']' with ranges and a leading '^'. */
static bool parse_class(struct rx_parser *p, uint16_t *out)
{
	size_t open = p->pos - 1;
	uint8_t *set = NULL, idx = 0;
	bool negate = false, first = true;

	if (!new_class(p, open, &set, &idx))
		return false;
	if (p->s[p->pos] == '^') {
		negate = true;
		p->pos++;
	}
	for (;;) {
		unsigned char c = (unsigned char)p->s[p->pos];
		if (!c)
			return fail(p, open, "'[' without its ']'");
		if (c == ']' && !first)
			break;
		first = false;
		size_t at = p->pos++;
		if (c == '\\') {
			c = (unsigned char)p->s[p->pos];
			if (!c)
				return fail(p, at, "'\\' at the end of the pattern");
			p->pos++;
			if (shorthand(set, (char)c))
				continue;
			if (is_word(c))
				return fail(p, at, "unknown escape (\\d, \\w, \\s or punctuation)");
		}
		unsigned hi = c;
		if (p->s[p->pos] == '-' && p->s[p->pos + 1] && p->s[p->pos + 1] != ']') {
			hi = (unsigned char)p->s[p->pos + 1];
			if (hi == '\\') {
				hi = (unsigned char)p->s[p->pos + 2];
				if (!hi || is_word((int)hi))
					return fail(p, p->pos + 1, "range ends in an escape that is not punctuation");
				p->pos++;
			}
			if (hi < c)
				return fail(p, at, "range is backwards (its end comes before its start)");
			p->pos += 2;
		}
		for (unsigned ch = c; ch <= hi; ch++) {
			set_bit(set, ch);
			if (p->re->icase && ch < 128 && is_word((int)ch)) {
				set_bit(set, (unsigned)lc_tolower((int)ch));
				if (ch >= 'a' && ch <= 'z')
					set_bit(set, ch - 32);
			}
		}
	}
	p->pos++;
	if (negate)
		for (unsigned i = 0; i < 32; i++)
			set[i] = (uint8_t)~set[i];
	set[0] &= (uint8_t)~1u;		/* never the terminating NUL */
	return new_node(p, N_CLASS, idx, 0, 0, out);
}

static bool parse_alt(struct rx_parser *p, uint16_t *out);

static bool parse_atom(struct rx_parser *p, uint16_t *out)
{
	size_t at = p->pos;
	char c = p->s[p->pos++];

	switch (c) {
	case '(': {
		if (++p->depth > RX_MAX_DEPTH)
			return fail(p, at, "groups nested too deep");
		if (!parse_alt(p, out))
			return false;
		if (p->s[p->pos] != ')')
			return fail(p, at, "'(' without its ')'");
		p->pos++;
		p->depth--;
		return true;
	}
	case '.':
		return new_node(p, N_ANY, 0, 0, 0, out);
	case '^':
		return new_node(p, N_BOL, 0, 0, 0, out);
	case '$':
		return new_node(p, N_EOL, 0, 0, 0, out);
	case '[':
		return parse_class(p, out);
	case '*':
	case '+':
	case '?':
		return fail(p, at, "repetition with nothing to repeat");
	case '{':
	case '}':
		return fail(p, at, "'{' '}' counts are not supported (escape them as \\{ \\})");
	case '\\': {
		char e = p->s[p->pos];
		if (!e)
			return fail(p, at, "'\\' at the end of the pattern");
		p->pos++;
		if (e == 'd' || e == 'w' || e == 's') {
			uint8_t *set = NULL, idx = 0;
			if (!new_class(p, at, &set, &idx))
				return false;
			memset(set, 0, 32);
			shorthand(set, e);
			return new_node(p, N_CLASS, idx, 0, 0, out);
		}
		if (is_word(e))
			return fail(p, at, "unknown escape (\\d, \\w, \\s or punctuation)");
		return new_node(p, N_CHAR, (uint8_t)e, 0, 0, out);
	}
	default:
		return new_node(p, N_CHAR, (uint8_t)c, 0, 0, out);
	}
}

static bool parse_repeat(struct rx_parser *p, uint16_t *out)
{
	if (!parse_atom(p, out))
		return false;
	for (;;) {
		char c = p->s[p->pos];
		uint8_t t = c == '*' ? N_STAR : c == '+' ? N_PLUS : c == '?' ? N_QUEST : N_EMPTY;
		if (t == N_EMPTY)
			return true;
		p->pos++;
		if (!new_node(p, t, 0, *out, 0, out))
			return false;
	}
}

static bool parse_concat(struct rx_parser *p, uint16_t *out)
{
	if (!new_node(p, N_EMPTY, 0, 0, 0, out))
		return false;
	while (p->s[p->pos] && p->s[p->pos] != '|' && p->s[p->pos] != ')') {
		uint16_t next;
		if (!parse_repeat(p, &next) || !new_node(p, N_CAT, 0, *out, next, out))
			return false;
	}
	return true;
}

static bool parse_alt(struct rx_parser *p, uint16_t *out)
{
	if (!parse_concat(p, out))
		return false;
	while (p->s[p->pos] == '|') {
		uint16_t next;
		p->pos++;
		if (!parse_concat(p, &next) || !new_node(p, N_ALT, 0, *out, next, out))
			return false;
	}
	return true;
}

static bool emit(struct rx_parser *p, uint8_t op, uint8_t arg, uint16_t x, uint16_t y, uint16_t *at)
{
	struct regex *re = p->re;
	if (re->n >= REGEX_MAX_INSNS)
		return fail(p, 0, "pattern too complex (its program is over 256 steps)");
	re->insn[re->n] = (struct regex_insn){ op, arg, x, y };
	if (at)
		*at = re->n;
	re->n++;
	return true;
}

/* Thompson's construction, node by node; jump targets are patched once known. */
static bool gen(struct rx_parser *p, uint16_t n)
{
	const struct rx_node *nd = &p->node[n];
	struct regex *re = p->re;
	uint16_t split, jmp;

	switch (nd->type) {
	case N_EMPTY:
		return true;
	case N_CHAR:
		return emit(p, RX_CHAR, nd->arg, 0, 0, NULL);
	case N_ANY:
		return emit(p, RX_ANY, 0, 0, 0, NULL);
	case N_CLASS:
		return emit(p, RX_CLASS, nd->arg, 0, 0, NULL);
	case N_BOL:
		return emit(p, RX_BOL, 0, 0, 0, NULL);
	case N_EOL:
		return emit(p, RX_EOL, 0, 0, 0, NULL);
	case N_CAT:
		return gen(p, nd->a) && gen(p, nd->b);
	case N_ALT:
		if (!emit(p, RX_SPLIT, 0, 0, 0, &split))
			return false;
		re->insn[split].x = re->n;
		if (!gen(p, nd->a) || !emit(p, RX_JMP, 0, 0, 0, &jmp))
			return false;
		re->insn[split].y = re->n;
		if (!gen(p, nd->b))
			return false;
		re->insn[jmp].x = re->n;
		return true;
	case N_PLUS: {
		uint16_t start = re->n;
		if (!gen(p, nd->a) || !emit(p, RX_SPLIT, 0, start, 0, &split))
			return false;
		re->insn[split].y = re->n;
		return true;
	}
	case N_STAR:
	case N_QUEST:
		/* x* loops back to its split; x? falls through past x. */
		if (!emit(p, RX_SPLIT, 0, 0, 0, &split))
			return false;
		re->insn[split].x = re->n;
		if (!gen(p, nd->a) || (nd->type == N_STAR && !emit(p, RX_JMP, 0, split, 0, NULL)))
			return false;
		re->insn[split].y = re->n;
		return true;
	}
	return fail(p, 0, "internal: unknown node");
}

bool regex_compile(struct regex *re, const char *pattern, unsigned flags, struct regex_error *err)
{
	static struct rx_parser p;	/* the tree is large for a stack: the image's is small */
	uint16_t root;

	memset(re, 0, sizeof(*re));
	re->icase = flags & REGEX_ICASE;
	memset(&p, 0, sizeof(p));
	p.s = pattern;
	p.re = re;
	p.err = err;
	if (err) {
		err->pos = 0;
		err->what = NULL;
	}
	if (!parse_alt(&p, &root))
		return false;
	if (p.s[p.pos] == ')')
		return fail(&p, p.pos, "')' without its '('");
	if (!gen(&p, root) || !emit(&p, RX_MATCH, 0, 0, 0, NULL)) {
		if (err)
			err->pos = 0;
		return false;
	}
	return true;
}

/* The threads of one step: program counters waiting to read the next character. */
struct rx_list {
	uint16_t n;
	uint16_t pc[REGEX_MAX_INSNS];
};

/*
 * Add pc and everything reachable from it without reading a character to l, each pc once per
 * generation (the marks); true when MATCH is reachable.  Every instruction pushes at most two
 * successors and is expanded once, so the stack holds at most 2 x REGEX_MAX_INSNS + 1.
 */
static bool add_thread(const struct regex *re, struct rx_list *l, uint16_t *mark, uint16_t gen, uint16_t pc,
		       const char *text, size_t pos)
{
	uint16_t stack[2 * REGEX_MAX_INSNS + 1];
	unsigned sp = 0;
	bool matched = false;

	stack[sp++] = pc;
	while (sp) {
		pc = stack[--sp];
		if (mark[pc] == gen)
			continue;
		mark[pc] = gen;
		const struct regex_insn *in = &re->insn[pc];
		switch (in->op) {
		case RX_JMP:
			stack[sp++] = in->x;
			break;
		case RX_SPLIT:
			stack[sp++] = in->y;
			stack[sp++] = in->x;
			break;
		case RX_BOL:
			if (pos == 0)
				stack[sp++] = (uint16_t)(pc + 1);
			break;
		case RX_EOL:
			if (!text[pos])
				stack[sp++] = (uint16_t)(pc + 1);
			break;
		case RX_MATCH:
			matched = true;
			break;
		default:
			l->pc[l->n++] = pc;
			break;
		}
	}
	return matched;
}

static bool step_ok(const struct regex *re, const struct regex_insn *in, unsigned char c)
{
	switch (in->op) {
	case RX_ANY:
		return true;
	case RX_CHAR:
		return in->arg == c || (re->icase && lc_tolower(in->arg) == lc_tolower(c));
	case RX_CLASS:
		return has_bit(re->cls[in->arg], c);
	}
	return false;
}

bool regex_search(const struct regex *re, const char *text)
{
	/* Static: about 2 KiB the image's small stack need not hold.  Not reentrant. */
	static struct rx_list cur, pending;
	static uint16_t mark[REGEX_MAX_INSNS];
	uint16_t gen = 0;

	memset(mark, 0, sizeof(mark));
	pending.n = 0;
	for (size_t pos = 0;; pos++) {
		if (++gen == 0) {
			memset(mark, 0, sizeof(mark));
			gen = 1;
		}
		cur.n = 0;
		for (uint16_t i = 0; i < pending.n; i++)
			if (add_thread(re, &cur, mark, gen, pending.pc[i], text, pos))
				return true;
		/* A new attempt starts at every position: the search is unanchored. */
		if (add_thread(re, &cur, mark, gen, 0, text, pos))
			return true;
		unsigned char c = (unsigned char)text[pos];
		if (!c)
			return false;
		pending.n = 0;
		for (uint16_t i = 0; i < cur.n; i++)
			if (step_ok(re, &re->insn[cur.pc[i]], c))
				pending.pc[pending.n++] = (uint16_t)(cur.pc[i] + 1);
	}
}
