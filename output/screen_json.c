/* output/screen_json.c - see screen_json.h. */
#include "output/screen_json.h"
#include "lib/record.h"

#define SJ_MAX_DEPTH 16

static const char *ws(const char *p, const char *end)
{
	while (p < end && lc_isspace((unsigned char)*p))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *end)
{
	if (p >= end || *p != '"')
		return NULL;
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* The end of the value starting at p, or NULL when it is not well formed. */
static const char *skip_value(const char *p, const char *end, int depth)
{
	if (p >= end || depth > SJ_MAX_DEPTH)
		return NULL;
	if (*p == '"')
		return skip_string(p, end);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		p = ws(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = skip_string(p, end);
				if (!p)
					return NULL;
				p = ws(p, end);
				if (p >= end || *p != ':')
					return NULL;
				p = ws(p + 1, end);
			}
			p = skip_value(p, end, depth + 1);
			if (!p)
				return NULL;
			p = ws(p, end);
			if (p < end && *p == ',') {
				p = ws(p + 1, end);
				continue;
			}
			return (p < end && *p == close) ? p + 1 : NULL;
		}
	}
	/* number, true, false, null */
	const char *s = p;
	while (p < end && (lc_isdigit((unsigned char)*p) || *p == '-' || *p == '+' || *p == '.' || *p == 'e' ||
			   *p == 'E' || (*p >= 'a' && *p <= 'z')))
		p++;
	return p > s ? p : NULL;
}

bool sj_record(const char *line, size_t len, struct sj *obj)
{
	size_t plen = strlen(REC_PREFIX);
	if (len < plen || memcmp(line, REC_PREFIX, plen) != 0)
		return false;
	const char *p = line + plen, *end = line + len;
	const char *e = skip_value(p, end, 0);
	if (!e || *p != '{')
		return false;
	obj->p = p;
	obj->len = (size_t)(e - p);
	return true;
}

/* The i-th member of an object: its key as written (between the quotes) and its value. */
static bool member_at(const struct sj *obj, size_t i, const char **key, size_t *key_len, struct sj *val)
{
	const char *end = obj->p + obj->len;
	const char *p = obj->p;
	if (obj->len < 2 || *p != '{')
		return false;
	p = ws(p + 1, end);
	for (size_t k = 0; p < end && *p == '"'; k++) {
		const char *ks = p + 1, *ke = skip_string(p, end);
		if (!ke)
			return false;
		p = ws(ke, end);
		if (p >= end || *p != ':')
			return false;
		p = ws(p + 1, end);
		const char *ve = skip_value(p, end, 1);
		if (!ve)
			return false;
		if (k == i) {
			*key = ks;
			*key_len = (size_t)(ke - 1 - ks);
			val->p = p;
			val->len = (size_t)(ve - p);
			return true;
		}
		p = ws(ve, end);
		if (p < end && *p == ',')
			p = ws(p + 1, end);
	}
	return false;
}

bool sj_member(const struct sj *obj, size_t i, char *key, size_t key_cap, struct sj *val)
{
	const char *ks;
	size_t kl;
	if (!member_at(obj, i, &ks, &kl, val))
		return false;
	if (key_cap) {
		if (kl >= key_cap)
			kl = key_cap - 1;
		memcpy(key, ks, kl);
		key[kl] = 0;
	}
	return true;
}

/* Keys are compared whole, as written: a copy cut to a buffer would let "name..." stand for "name". */
static bool get_one(const struct sj *obj, const char *name, size_t nlen, struct sj *out)
{
	const char *key;
	size_t klen;
	struct sj val;
	for (size_t i = 0; member_at(obj, i, &key, &klen, &val); i++)
		if (klen == nlen && !memcmp(key, name, nlen)) {
			*out = val;	/* out may be obj itself */
			return true;
		}
	return false;
}

bool sj_get(const struct sj *obj, const char *path, struct sj *out)
{
	struct sj cur = *obj;
	while (*path) {
		const char *dot = path;
		while (*dot && *dot != '.')
			dot++;
		if (!get_one(&cur, path, (size_t)(dot - path), &cur))
			return false;
		path = *dot ? dot + 1 : dot;
	}
	*out = cur;
	return true;
}

const char *sj_text(const struct sj *obj, const char *path, char *buf, size_t cap)
{
	struct sj v;
	size_t k = 0;

	if (!cap)
		return buf;
	buf[0] = 0;
	if (!sj_get(obj, path, &v))
		return buf;
	if (v.len >= 2 && v.p[0] == '"') {
		for (size_t i = 1; i + 1 < v.len && k + 1 < cap; i++) {
			char c = v.p[i];
			if (c == '\\' && i + 2 < v.len) {
				c = v.p[++i];
				if (c == 'u') {
					c = '?';
					i += 4;
				} else if (c == 'n' || c == 't' || c == 'r') {
					c = ' ';
				}
			}
			buf[k++] = (c >= 0x20 && c < 0x7f) ? c : '?';
		}
	} else {
		for (size_t i = 0; i < v.len && k + 1 < cap; i++)
			buf[k++] = v.p[i];
	}
	buf[k] = 0;
	return buf;
}

bool sj_is(const struct sj *obj, const char *path, const char *literal)
{
	struct sj v;
	return sj_get(obj, path, &v) && v.len == strlen(literal) && !memcmp(v.p, literal, v.len);
}

bool sj_element(const struct sj *arr, size_t i, struct sj *val)
{
	const char *end = arr->p + arr->len, *p = arr->p;
	if (arr->len < 2 || *p != '[')
		return false;
	p = ws(p + 1, end);
	for (size_t k = 0; p < end && *p != ']'; k++) {
		const char *e = skip_value(p, end, 1);
		if (!e)
			return false;
		if (k == i) {
			val->p = p;
			val->len = (size_t)(e - p);
			return true;
		}
		p = ws(e, end);
		if (p < end && *p == ',')
			p = ws(p + 1, end);
	}
	return false;
}

size_t sj_count(const struct sj *v)
{
	const char *end = v->p + v->len, *p = v->p;
	size_t n = 0;
	if (v->len < 2 || (*p != '{' && *p != '['))
		return 0;
	bool obj = *p == '{';
	p = ws(p + 1, end);
	while (p < end && *p != '}' && *p != ']') {
		if (obj) {
			p = skip_string(p, end);
			if (!p)
				return n;
			p = ws(p, end);
			if (p >= end || *p != ':')
				return n;
			p = ws(p + 1, end);
		}
		p = skip_value(p, end, 1);
		if (!p)
			return n;
		n++;
		p = ws(p, end);
		if (p < end && *p == ',')
			p = ws(p + 1, end);
	}
	return n;
}
