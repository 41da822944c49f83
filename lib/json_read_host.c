/* lib/json_read_host.c - see json_read.h.  Grammar references are RFC 8259 sections. */
#include "lib/json_read.h"
#include "lib/decimal.h"
#include "lib/strbuf.h"

#include <stdlib.h>

#define NODES_PER_BLOCK 256

struct block {
	struct block *next;
	size_t used;
	struct json_value v[NODES_PER_BLOCK];
};

struct parser {
	const unsigned char *s;
	size_t n, i;
	char *err;
	size_t err_cap;
	bool failed;
	struct block *blocks;
	char *strs;	/* decoded strings and number texts */
	size_t strs_used;
};

static bool fail(struct parser *p, const char *why)
{
	if (!p->failed && p->err_cap)
		str_appendf(p->err, p->err_cap, 0, "%s at byte %zu", why, p->i);
	p->failed = true;
	return false;
}

static struct json_value *node(struct parser *p)
{
	if (!p->blocks || p->blocks->used == NODES_PER_BLOCK) {
		struct block *b = malloc(sizeof(*b));
		if (!b)
			return NULL;
		b->next = p->blocks;
		b->used = 0;
		p->blocks = b;
	}
	struct json_value *v = &p->blocks->v[p->blocks->used++];
	memset(v, 0, sizeof(*v));
	return v;
}

/* §2: ws = *( %x20 / %x09 / %x0A / %x0D ) */
static void ws(struct parser *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static void put_utf8(struct parser *p, uint32_t cp)
{
	char *o = p->strs + p->strs_used;
	size_t k;
	if (cp < 0x80) {
		o[0] = (char)cp;
		k = 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		o[0] = (char)(0xf0 | (cp >> 18));
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	p->strs_used += k;
}

/* Length of the valid UTF-8 sequence at s[0..n) (RFC 3629 §4), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t k;
	uint32_t cp, min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		k = 2; cp = c & 0x1f; min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		k = 3; cp = c & 0x0f; min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		k = 4; cp = c & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	if (n < k)
		return 0;
	for (size_t j = 1; j < k; j++) {
		if ((s[j] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[j] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

static bool hex4(struct parser *p, uint32_t *out)
{
	uint32_t v = 0;
	if (p->n - p->i < 4)
		return fail(p, "\\u needs four hex digits");
	for (int d = 0; d < 4; d++) {
		unsigned char c = p->s[p->i++];
		int x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (x < 0)
			return fail(p, "\\u needs four hex digits");
		v = v * 16 + (uint32_t)x;
	}
	*out = v;
	return true;
}

/* §7: a string; its decoded bytes go to p->strs. */
static bool string(struct parser *p, const char **out, size_t *len)
{
	p->i++;	/* the opening quote */
	size_t start = p->strs_used;
	for (;;) {
		if (p->i >= p->n)
			return fail(p, "unterminated string");
		unsigned char c = p->s[p->i];
		if (c == '"') {
			p->i++;
			break;
		}
		if (c < 0x20)
			return fail(p, "control character in a string");
		if (c != '\\') {
			size_t k = utf8_len(p->s + p->i, p->n - p->i);
			if (!k)
				return fail(p, "invalid UTF-8 in a string");
			memcpy(p->strs + p->strs_used, p->s + p->i, k);
			p->strs_used += k;
			p->i += k;
			continue;
		}
		if (++p->i >= p->n)
			return fail(p, "unterminated string");
		c = p->s[p->i++];
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		const char *e = c ? memchr(from, c, sizeof(from) - 1) : NULL;
		if (e) {
			p->strs[p->strs_used++] = to[e - from];
			continue;
		}
		if (c != 'u') {
			p->i--;
			return fail(p, "invalid escape in a string");
		}
		uint32_t cp;
		if (!hex4(p, &cp))
			return false;
		/* A surrogate pair is one code point; a lone surrogate is valid JSON but no character. */
		if (cp >= 0xd800 && cp <= 0xdbff && p->n - p->i >= 6 && p->s[p->i] == '\\' && p->s[p->i + 1] == 'u') {
			size_t save = p->i;
			uint32_t lo;
			p->i += 2;
			if (!hex4(p, &lo))
				return false;
			if (lo >= 0xdc00 && lo <= 0xdfff)
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			else
				p->i = save;
		}
		if (cp >= 0xd800 && cp <= 0xdfff)
			cp = 0xfffd;	/* U+FFFD REPLACEMENT CHARACTER */
		put_utf8(p, cp);
	}
	p->strs[p->strs_used++] = '\0';
	*out = p->strs + start;
	*len = p->strs_used - start - 1;
	return true;
}

static bool digits(struct parser *p)
{
	size_t start = p->i;
	while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
		p->i++;
	return p->i > start;
}

/* §6: number = [ minus ] int [ frac ] [ exp ] */
static bool number(struct parser *p, struct json_value *v)
{
	size_t start = p->i;
	if (p->s[p->i] == '-')
		p->i++;
	if (p->i < p->n && p->s[p->i] == '0')
		p->i++;
	else if (!digits(p))
		return fail(p, "digit expected");
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		if (!digits(p))
			return fail(p, "digit expected after '.'");
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (!digits(p))
			return fail(p, "digit expected in the exponent");
	}
	v->type = JSON_NUMBER;
	v->len = p->i - start;
	memcpy(p->strs + p->strs_used, p->s + start, v->len);
	v->str = p->strs + p->strs_used;
	p->strs_used += v->len;
	p->strs[p->strs_used++] = '\0';
	return true;
}

static bool literal(struct parser *p, const char *word, enum json_type t, struct json_value *v)
{
	size_t k = strlen(word);
	if (p->n - p->i < k || memcmp(p->s + p->i, word, k) != 0)
		return fail(p, "value expected");
	p->i += k;
	v->type = t;
	return true;
}

static bool value(struct parser *p, struct json_value *v, int depth);

/* §4 and §5: an object or an array. */
static bool container(struct parser *p, struct json_value *v, int depth)
{
	bool obj = p->s[p->i] == '{';
	char close = obj ? '}' : ']';
	struct json_value **link = &v->child;

	if (depth >= JSON_READ_MAX_DEPTH)
		return fail(p, "nesting too deep");
	v->type = obj ? JSON_OBJECT : JSON_ARRAY;
	p->i++;
	ws(p);
	if (p->i < p->n && p->s[p->i] == (unsigned char)close) {
		p->i++;
		return true;
	}
	for (;;) {
		struct json_value *m = node(p);
		if (!m)
			return fail(p, "out of memory");
		if (obj) {
			ws(p);
			if (p->i >= p->n || p->s[p->i] != '"')
				return fail(p, "member name expected");
			if (!string(p, &m->key, &m->key_len))
				return false;
			ws(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return fail(p, "':' expected");
			p->i++;
		}
		if (!value(p, m, depth + 1))
			return false;
		*link = m;
		link = &m->next;
		ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == (unsigned char)close) {
			p->i++;
			return true;
		}
		return fail(p, obj ? "',' or '}' expected" : "',' or ']' expected");
	}
}

static bool value(struct parser *p, struct json_value *v, int depth)
{
	ws(p);
	if (p->i >= p->n)
		return fail(p, "value expected");
	switch (p->s[p->i]) {
	case '{':
	case '[':
		return container(p, v, depth);
	case '"':
		v->type = JSON_STRING;
		return string(p, &v->str, &v->len);
	case 't':
		return literal(p, "true", JSON_TRUE, v);
	case 'f':
		return literal(p, "false", JSON_FALSE, v);
	case 'n':
		return literal(p, "null", JSON_NULL, v);
	default:
		if (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9'))
			return number(p, v);
		return fail(p, "value expected");
	}
}

static void free_blocks(struct block *b)
{
	while (b) {
		struct block *next = b->next;
		free(b);
		b = next;
	}
}

/* The tree's memory: the string buffer, then the node blocks hang off the first word. */
struct mem {
	struct block *blocks;
	char strs[];
};

bool json_parse(struct json_doc *doc, const char *s, size_t n, char *err, size_t err_cap)
{
	struct parser p = { (const unsigned char *)s, n, 0, err, err_cap, false, NULL, NULL, 0 };
	/* Decoded text never outgrows the input; each number also gets a NUL. */
	struct mem *m = malloc(sizeof(*m) + 2 * n + 2);

	doc->root = NULL;
	doc->mem = NULL;
	if (err_cap)
		err[0] = '\0';
	if (!m)
		return fail(&p, "out of memory");
	p.strs = m->strs;
	struct json_value *root = node(&p);
	bool ok = root && value(&p, root, 0);
	if (ok) {
		ws(&p);
		if (p.i != n)
			ok = fail(&p, "text after the value");
	} else if (!root) {
		fail(&p, "out of memory");
	}
	m->blocks = p.blocks;
	if (!ok) {
		free_blocks(p.blocks);
		free(m);
		return false;
	}
	doc->root = root;
	doc->mem = m;
	return true;
}

void json_free(struct json_doc *doc)
{
	struct mem *m = doc->mem;
	if (m) {
		free_blocks(m->blocks);
		free(m);
	}
	doc->root = NULL;
	doc->mem = NULL;
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
	const struct json_value *found = NULL;
	size_t k = strlen(key);
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (const struct json_value *m = obj->child; m; m = m->next)
		if (m->key_len == k && memcmp(m->key, key, k) == 0)
			found = m;
	return found;
}

const char *json_text(const struct json_value *v)
{
	if (!v || v->type != JSON_STRING || strlen(v->str) != v->len)
		return NULL;
	return v->str;
}

bool json_u64(const struct json_value *v, uint64_t *out)
{
	/* Digits only: a sign, a fraction or an exponent is not a u64 (the grammar was checked by the parser). */
	return v && v->type == JSON_NUMBER && dec_whole(v->str, v->len, UINT64_MAX, out);
}

const char *json_type_name(enum json_type t)
{
	static const char *const names[] = { "null", "false", "true", "a number", "a string", "an array",
					     "an object" };
	return (unsigned)t < ARRAY_SIZE(names) ? names[t] : "?";
}
