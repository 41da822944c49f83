/*
 * pmu/ibs/ibs_capture_host.c - reading `ibs_sample` and `ibs` records back from a
 * capture; see ibs.h.
 *
 * A capture is a serial log (firmware noise, ANSI escapes, CR/LF) or saved
 * .jsonl records.  Only lines holding "@pmuboot " are records; the JSON
 * after the prefix is parsed by a small reader that knows this project's
 * records: flat objects whose values are strings, numbers, literals, arrays
 * and nested objects (only "regs" and "sampled" are kept, the rest
 * skipped).  A damaged IBS record is an error naming what is wrong; any
 * other line is not our business.  The image never reads a capture, so the
 * reader is host-only (the _host.c suffix keeps it out of the image).
 */
#include "pmu/ibs/ibs.h"
#include "lib/record.h"


#define MAX_REGS 16
#define STR_MAX 64

struct reader {
	const char *s;
	size_t n, i;
	char *err;
	size_t err_cap;
	bool failed;
};

struct parsed {
	char type[16], kind[8];
	char kernel[STR_MAX], variant[STR_MAX];
	bool have_family, have_model, have_kernel, have_variant, have_kind, have_caps, have_sampled;
	uint64_t family, model, caps, arena_page;
	bool available_false;
	bool sampled[IBS_KINDS];
	size_t nregs;
	struct {
		char name[24];
		uint64_t value;
	} regs[MAX_REGS];
};

static bool fail(struct reader *r, const char *what)
{
	if (!r->failed)
		snprintf(r->err, r->err_cap, "%s at column %u", what, (unsigned)r->i + 1);
	r->failed = true;
	return false;
}

static void skip_ws(struct reader *r)
{
	while (r->i < r->n && lc_isspace(r->s[r->i]))
		r->i++;
}

static bool expect(struct reader *r, char c)
{
	skip_ws(r);
	if (r->i >= r->n || r->s[r->i] != c) {
		char what[40];
		snprintf(what, sizeof(what), "expected '%c'", c);
		return fail(r, what);
	}
	r->i++;
	return true;
}

static int hexval(char c)
{
	return lc_isdigit(c) ? c - '0' : (lc_tolower(c) - 'a' + 10);
}

/* A JSON string into out (ASCII; other code points become '?'); too long is an error. */
static bool read_string(struct reader *r, char *out, size_t cap)
{
	size_t k = 0;

	if (!expect(r, '"'))
		return false;
	while (r->i < r->n && r->s[r->i] != '"') {
		char c = r->s[r->i++];
		if (c == '\\') {
			if (r->i >= r->n)
				break;
			c = r->s[r->i++];
			if (c == 'u') {
				unsigned cp = 0;
				for (int d = 0; d < 4; d++, r->i++) {
					if (r->i >= r->n || !lc_isxdigit(r->s[r->i]))
						return fail(r, "bad \\u escape");
					cp = cp * 16 + (unsigned)hexval(r->s[r->i]);
				}
				c = cp < 0x80 ? (char)cp : '?';
			} else {
				static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
				const char *p = strchr(from, c);
				if (!p || !c)
					return fail(r, "bad escape");
				c = to[p - from];
			}
		}
		if (k + 1 >= cap)
			return fail(r, "string too long");
		out[k++] = c;
	}
	if (r->i >= r->n)
		return fail(r, "unterminated string");
	r->i++;
	out[k] = '\0';
	return true;
}

static bool skip_value(struct reader *r, int depth);

static bool skip_container(struct reader *r, char open, char close, int depth)
{
	if (depth > 16)
		return fail(r, "nesting too deep");
	r->i++;	/* open */
	skip_ws(r);
	if (r->i < r->n && r->s[r->i] == close) {
		r->i++;
		return true;
	}
	for (;;) {
		if (open == '{') {
			char key[STR_MAX * 2];
			if (!read_string(r, key, sizeof(key)) || !expect(r, ':'))
				return false;
		}
		if (!skip_value(r, depth + 1))
			return false;
		skip_ws(r);
		if (r->i < r->n && r->s[r->i] == ',') {
			r->i++;
			continue;
		}
		return expect(r, close);
	}
}

static bool skip_value(struct reader *r, int depth)
{
	char tmp[1024];

	skip_ws(r);
	if (r->i >= r->n)
		return fail(r, "value expected");
	char c = r->s[r->i];
	if (c == '"')
		return read_string(r, tmp, sizeof(tmp));
	if (c == '{')
		return skip_container(r, '{', '}', depth);
	if (c == '[')
		return skip_container(r, '[', ']', depth);
	size_t start = r->i;
	while (r->i < r->n && (lc_isdigit(r->s[r->i]) || strchr("+-.eEtruefalsn", r->s[r->i])))
		r->i++;
	return r->i > start ? true : fail(r, "value expected");
}

/* A number written as "0x.." (our registers, family, model) or as a JSON integer. */
static bool read_u64(struct reader *r, uint64_t *v, const char *what)
{
	char tmp[32];
	size_t start;

	skip_ws(r);
	if (r->i < r->n && r->s[r->i] == '"') {
		if (!read_string(r, tmp, sizeof(tmp)))
			return false;
		if (!lc_parse_u64(tmp, strlen(tmp), v)) {
			char m[96];
			snprintf(m, sizeof(m), "%s '%s' is not a number", what, tmp);
			return fail(r, m);
		}
		return true;
	}
	start = r->i;
	while (r->i < r->n && lc_isdigit(r->s[r->i]))
		r->i++;
	if (r->i == start || !lc_parse_u64(r->s + start, r->i - start, v)) {
		char m[96];
		snprintf(m, sizeof(m), "%s is not a number", what);
		return fail(r, m);
	}
	return true;
}

static bool read_regs(struct reader *r, struct parsed *p)
{
	if (!expect(r, '{'))
		return false;
	skip_ws(r);
	if (r->i < r->n && r->s[r->i] == '}') {
		r->i++;
		return true;
	}
	for (;;) {
		if (p->nregs == MAX_REGS)
			return fail(r, "too many registers");
		if (!read_string(r, p->regs[p->nregs].name, sizeof(p->regs[0].name)) || !expect(r, ':') ||
		    !read_u64(r, &p->regs[p->nregs].value, p->regs[p->nregs].name))
			return false;
		p->nregs++;
		skip_ws(r);
		if (r->i < r->n && r->s[r->i] == ',') {
			r->i++;
			continue;
		}
		return expect(r, '}');
	}
}

static bool read_sampled(struct reader *r, struct parsed *p)
{
	char name[16];

	if (!expect(r, '['))
		return false;
	p->have_sampled = true;
	skip_ws(r);
	if (r->i < r->n && r->s[r->i] == ']') {
		r->i++;
		return true;
	}
	for (;;) {
		if (!read_string(r, name, sizeof(name)))
			return false;
		for (int k = 0; k < IBS_KINDS; k++)
			if (!strcmp(name, ibs_kind_name((enum ibs_kind)k)))
				p->sampled[k] = true;
		skip_ws(r);
		if (r->i < r->n && r->s[r->i] == ',') {
			r->i++;
			continue;
		}
		return expect(r, ']');
	}
}

static bool read_field(struct reader *r, struct parsed *p, const char *key)
{
	/* Keys whose values are kept; everything else is skipped. */
	static const struct {
		const char *key;
		size_t str_off, str_cap;	/* a string field of struct parsed, or str_cap 0 */
		size_t num_off;			/* a number field, when str_cap is 0 */
		size_t have_off;
	} kept[] = {
		{ "kind", offsetof(struct parsed, kind), sizeof(((struct parsed *)0)->kind), 0,
		  offsetof(struct parsed, have_kind) },
		{ "kernel", offsetof(struct parsed, kernel), STR_MAX, 0, offsetof(struct parsed, have_kernel) },
		{ "variant", offsetof(struct parsed, variant), STR_MAX, 0, offsetof(struct parsed, have_variant) },
		{ "family", 0, 0, offsetof(struct parsed, family), offsetof(struct parsed, have_family) },
		{ "model", 0, 0, offsetof(struct parsed, model), offsetof(struct parsed, have_model) },
		{ "ibs_caps", 0, 0, offsetof(struct parsed, caps), offsetof(struct parsed, have_caps) },
	};
	char *base = (char *)p;

	skip_ws(r);
	if (!strcmp(key, "type"))
		return read_string(r, p->type, sizeof(p->type));
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		if (strcmp(key, kept[i].key))
			continue;
		*(bool *)(base + kept[i].have_off) = true;
		if (kept[i].str_cap)
			return read_string(r, base + kept[i].str_off, kept[i].str_cap);
		return read_u64(r, (uint64_t *)(base + kept[i].num_off), key);
	}
	if (!strcmp(key, "regs"))
		return read_regs(r, p);
	if (!strcmp(key, "sampled"))
		return read_sampled(r, p);
	if (!strcmp(key, "arena_page") && r->i < r->n && lc_isdigit(r->s[r->i]))
		return read_u64(r, &p->arena_page, "arena_page");
	if (!strcmp(key, "available") && r->i + 5 <= r->n && !strncmp(r->s + r->i, "false", 5)) {
		p->available_false = true;
		r->i += 5;
		return true;
	}
	return skip_value(r, 0);
}

static bool read_object(struct reader *r, struct parsed *p)
{
	char key[STR_MAX];

	if (!expect(r, '{'))
		return false;
	skip_ws(r);
	if (r->i < r->n && r->s[r->i] == '}')
		return true;
	for (;;) {
		if (!read_string(r, key, sizeof(key)) || !expect(r, ':') || !read_field(r, p, key))
			return false;
		skip_ws(r);
		if (r->i < r->n && r->s[r->i] == ',') {
			r->i++;
			continue;
		}
		return expect(r, '}');
	}
}

static const char *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return s + i;
	return NULL;
}

static enum ibs_line_type error(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static enum ibs_line_type error(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
	return IBS_LINE_ERROR;
}

static enum ibs_line_type to_sample(const struct parsed *p, struct ibs_capture_item *it, char *err, size_t cap)
{
	enum ibs_kind kind;

	if (!p->have_kind)
		return error(err, cap, "ibs_sample: \"kind\" is missing");
	if (!strcmp(p->kind, "fetch"))
		kind = IBS_KIND_FETCH;
	else if (!strcmp(p->kind, "op"))
		kind = IBS_KIND_OP;
	else
		return error(err, cap, "ibs_sample: kind '%s' is neither fetch nor op", p->kind);
	if (!p->have_family || !p->have_model || !p->have_kernel || !p->have_variant)
		return error(err, cap, "ibs_sample: %s is missing",
			     !p->have_family ? "\"family\"" : !p->have_model ? "\"model\"" :
			     !p->have_kernel ? "\"kernel\"" : "\"variant\"");
	if (!p->nregs)
		return error(err, cap, "ibs_sample: no registers");
	it->sample.kind = (uint8_t)kind;
	for (size_t i = 0; i < p->nregs; i++) {
		int slot = ibs_reg_find(kind, p->regs[i].name, strlen(p->regs[i].name));
		if (slot < 0)
			return error(err, cap, "ibs_sample: '%s' is not an IBS %s register", p->regs[i].name,
				     ibs_kind_name(kind));
		it->sample.v[slot] = p->regs[i].value;
		it->sample.have |= (uint16_t)(1u << slot);
	}
	if (!(it->sample.have & 1u))
		return error(err, cap, "ibs_sample: the control register (%s) is missing",
			     ibs_reg_def(kind, 0)->name);
	return IBS_LINE_SAMPLE;
}

enum ibs_line_type ibs_capture_parse(const char *line, size_t len, struct ibs_capture_item *it, char *err,
				     size_t err_cap)
{
	static struct parsed p;
	const char *start = find(line, len, REC_PREFIX);
	struct reader r;

	memset(it, 0, sizeof(*it));
	if (err_cap)
		err[0] = '\0';
	if (!start)
		return IBS_LINE_OTHER;
	start += strlen(REC_PREFIX);
	r = (struct reader){ start, (size_t)(line + len - start), 0, err, err_cap, false };
	bool sample = find(r.s, r.n, "\"type\":\"ibs_sample\"") != NULL;
	bool variant = find(r.s, r.n, "\"type\":\"ibs\"") != NULL;
	if (!sample && !variant)
		return IBS_LINE_OTHER;

	memset(&p, 0, sizeof(p));
	if (!read_object(&r, &p)) {
		char why[160];
		snprintf(why, sizeof(why), "%s", err);
		return error(err, err_cap, "%s record is malformed: %s", sample ? "ibs_sample" : "ibs", why);
	}
	if (strcmp(p.type, "ibs_sample") && strcmp(p.type, "ibs"))
		return IBS_LINE_OTHER;
	snprintf(it->kernel, sizeof(it->kernel), "%s", p.kernel);
	snprintf(it->variant, sizeof(it->variant), "%s", p.variant);
	it->family = (uint32_t)p.family;
	it->model = (uint32_t)p.model;
	it->have_caps = p.have_caps;
	it->caps = (uint32_t)p.caps;
	it->have_sampled = p.have_sampled;
	memcpy(it->sampled, p.sampled, sizeof(it->sampled));
	it->arena_page = (uint32_t)p.arena_page;
	if (!strcmp(p.type, "ibs_sample"))
		return to_sample(&p, it, err, err_cap);
	if (p.available_false)
		return IBS_LINE_ABSENT;
	if (!p.have_kernel || !p.have_variant || !p.have_family || !p.have_model)
		return error(err, err_cap, "ibs record: %s is missing",
			     !p.have_kernel ? "\"kernel\"" : !p.have_variant ? "\"variant\"" :
			     !p.have_family ? "\"family\"" : "\"model\"");
	return IBS_LINE_VARIANT;
}
