/*
 * lib/capture_host.c - see capture.h.  Each step follows tools/pmucap/capture.py,
 * the authoritative reader; the comments name the Python each one mirrors.
 */
#include "lib/capture.h"

#include <math.h>
#include <stdlib.h>
#include "lib/crc32.h"
#include "lib/json_read.h"
#include "lib/record.h"
#include "lib/strbuf.h"

#define ESC 0x1b
#define BEL 0x07
#define CRC_HEX_DIGITS 8
#define DAMAGE_WORD "@pmuboot"	/* PREFIX.strip(): a line holding it but not starting with the prefix is damaged */
#define SUMMARY_SHOWN 3		/* capture.py MAX_PROBLEMS_SHOWN */

/* Python's str.isspace() on the Latin-1 characters: what rstrip() and strip() drop. */
static bool py_space(unsigned char c)
{
	return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0;
}

/*
 * How far the escape sequence at s[0] reaches, or 0 when none starts there:
 * capture.py's ANSI_RE, alternative by alternative - CSI (ESC [ parameters
 * 0x30-0x3F, intermediates 0x20-0x2F, final 0x40-0x7E), OSC (ESC ] up to BEL
 * or ESC \), then ESC with one character of 0x40-0x5A or 0x5C-0x5F (which is
 * how an unterminated OSC's "ESC ]" still goes).
 */
static size_t escape_len(const unsigned char *s, size_t n)
{
	if (n < 2 || s[0] != ESC)
		return 0;
	if (s[1] == '[') {
		size_t i = 2;
		while (i < n && s[i] >= 0x30 && s[i] <= 0x3f)
			i++;
		while (i < n && s[i] >= 0x20 && s[i] <= 0x2f)
			i++;
		return i < n && s[i] >= 0x40 && s[i] <= 0x7e ? i + 1 : 0;
	}
	if (s[1] == ']') {
		size_t i = 2;
		while (i < n && s[i] != BEL && s[i] != ESC)
			i++;
		if (i < n && s[i] == BEL)
			return i + 1;
		if (i + 1 < n && s[i] == ESC && s[i + 1] == '\\')
			return i + 2;
	}
	return (s[1] >= 0x40 && s[1] <= 0x5a) || (s[1] >= 0x5c && s[1] <= 0x5f) ? 2 : 0;
}

/* clean_lines(): escapes removed (one left-to-right pass), then NUL bytes, then CR LF and CR made LF. */
static char *clean(const char *raw, size_t len, size_t *out_len)
{
	const unsigned char *s = (const unsigned char *)raw;
	char *a = malloc(len + 1), *b;
	size_t n = 0, m = 0;

	if (!a)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t k = escape_len(s + i, len - i);
		if (k) {
			i += k;
			continue;
		}
		a[n++] = (char)s[i++];
	}
	b = malloc(n + 1);
	if (!b) {
		free(a);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (a[i] == '\0')
			continue;
		if (a[i] == '\r') {
			b[m++] = '\n';
			/* CR LF is one line end; the NUL bytes between are gone already in capture.py's order. */
			size_t j = i + 1;
			while (j < n && a[j] == '\0')
				j++;
			if (j < n && a[j] == '\n')
				i = j;
			continue;
		}
		b[m++] = a[i];
	}
	free(a);
	b[m] = '\0';
	*out_len = m;
	return b;
}

static bool starts_with(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && memcmp(s, w, k) == 0;
}

static bool contains(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, w, k))
			return true;
	return false;
}

bool capture_record_text(const char *line, size_t len, const char **json, size_t *jlen)
{
	static const char prefix[] = REC_PREFIX;
	const unsigned char *s = (const unsigned char *)line;
	size_t i = 0, k;

	while (i < len && ((k = escape_len(s + i, len - i)) > 0 || s[i] == '\r'))
		i += k ? k : 1;
	if (starts_with(line + i, len - i, prefix))
		i += sizeof(prefix) - 1;
	else if (!(i < len && line[i] == '{'))
		return false;
	while (len > i && py_space((unsigned char)line[len - 1]))
		len--;
	*json = line + i;
	*jlen = len - i;
	return true;
}

/* ---- a record's JSON: load_record() ---- */

/* The bytes as Latin-1 characters, written as UTF-8 (pmucap decodes a capture as Latin-1). */
static char *latin1_to_utf8(const char *s, size_t n, size_t *out)
{
	char *u = malloc(2 * n + 1);
	size_t k = 0;
	if (!u)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			u[k++] = (char)c;
		} else {
			u[k++] = (char)(0xc0 | (c >> 6));
			u[k++] = (char)(0x80 | (c & 0x3f));
		}
	}
	*out = k;
	return u;
}

/* _bounded_int and _finite_float: every number of the record, wherever it is. */
static bool numbers_ok(const struct json_value *v, char *why, size_t cap)
{
	for (; v; v = v->next) {
		if (v->type == JSON_NUMBER) {
			bool is_int = !memchr(v->str, '.', v->len) && !memchr(v->str, 'e', v->len) &&
				      !memchr(v->str, 'E', v->len);
			size_t digits = v->len - (v->str[0] == '-');
			if (is_int && digits > CAPTURE_INT_DIGITS) {
				snprintf(why, cap, "record is not valid JSON (an integer of %zu digits)", digits);
				return false;
			}
			if (!is_int && isinf(strtod(v->str, NULL))) {
				snprintf(why, cap, "record is not valid JSON (number %.20s is out of range)", v->str);
				return false;
			}
		}
		if (!numbers_ok(v->child, why, cap))
			return false;
	}
	return true;
}

/* _too_deep: a value (of any type) more than CAPTURE_MAX_DEPTH levels down, the record itself level 1. */
static bool too_deep(const struct json_value *v, unsigned depth)
{
	for (; v; v = v->next)
		if (depth > CAPTURE_MAX_DEPTH || too_deep(v->child, depth + 1))
			return true;
	return false;
}

static size_t count_char(const char *s, size_t n, char c)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == c;
	return k;
}

static const char *type_name(enum json_type t)
{
	static const char *const names[] = {
		[JSON_NULL] = "null", [JSON_FALSE] = "a boolean", [JSON_TRUE] = "a boolean", [JSON_NUMBER] = "a number",
		[JSON_STRING] = "a string", [JSON_ARRAY] = "a list", [JSON_OBJECT] = "an object",
	};
	return names[t];
}

/* A record's JSON: true and the parsed doc, or false and why it is not a record. */
static bool load_record(const char *js, size_t jl, struct json_doc *doc, char *why, size_t cap)
{
	char err[100] = "out of memory";
	size_t ul;
	char *u = latin1_to_utf8(js, jl, &ul);
	bool ok = u && json_parse(doc, u, ul, err, sizeof(err));

	free(u);
	if (!ok) {
		snprintf(why, cap, "record is not valid JSON (%.100s)", err);
		return false;
	}
	const struct json_value *root = doc->root;
	if (!numbers_ok(root, why, cap))
		goto bad;
	if (root->type != JSON_OBJECT) {
		snprintf(why, cap, "record is a JSON %s, not an object", type_name(root->type));
		goto bad;
	}
	/* capture.py walks the tree only when the text holds more brackets than levels allowed. */
	if (count_char(js, jl, '{') + count_char(js, jl, '[') > CAPTURE_MAX_DEPTH && too_deep(root->child, 2)) {
		snprintf(why, cap, "record nests deeper than %d levels", CAPTURE_MAX_DEPTH);
		goto bad;
	}
	const struct json_value *type = json_get(root, "type");
	if (!type || type->type != JSON_STRING || type->len == 0) {
		snprintf(why, cap, !type ? "record has no type" : "record type is %s, not a string",
			 type ? type_name(type->type) : "");
		goto bad;
	}
	return true;
bad:
	json_free(doc);
	return false;
}

static bool is_type(const struct json_doc *doc, const char *t)
{
	const struct json_value *v = json_get(doc->root, "type");
	return v->len == strlen(t) && !memcmp(v->str, t, v->len);
}

/* ---- runs: parse() and Run.check() ---- */

struct end_fields {
	bool records_int, crc_ok, status_str;
	bool records_neg;
	uint64_t records;		/* when records_int, !records_neg and it fits */
	bool records_fits;
	char records_text[32];
	char crc[CRC_HEX_DIGITS + 1];
};

struct reader {
	struct capture_file *c;
	struct capture_run *cur;	/* open run, or NULL */
	uint32_t crc;
	size_t first_problem;		/* the open run's first problem */
	bool failed;			/* out of memory */
	size_t cap_rec, cap_run, cap_prob;
};

static void *grow(void *p, size_t *cap, size_t n, size_t size, bool *failed)
{
	if (n < *cap)
		return p;
	size_t want = *cap ? *cap * 2 : 16;
	void *q = realloc(p, want * size);
	if (!q) {
		*failed = true;
		return NULL;
	}
	*cap = want;
	return q;
}

static void problem(struct reader *rd, unsigned run, unsigned line, enum capture_problem_kind kind,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void problem(struct reader *rd, unsigned run, unsigned line, enum capture_problem_kind kind,
		    const char *fmt, ...)
{
	struct capture_file *c = rd->c;
	void *p = grow(c->problems, &rd->cap_prob, c->nproblems, sizeof(*c->problems), &rd->failed);
	if (!p)
		return;
	c->problems = p;
	struct capture_problem *pr = &c->problems[c->nproblems++];
	va_list ap;
	pr->kind = kind;
	pr->run = run;
	pr->line = line;
	va_start(ap, fmt);
	vsnprintf(pr->text, sizeof(pr->text), fmt, ap);
	va_end(ap);
}

static void read_end_fields(const struct json_doc *doc, struct end_fields *e)
{
	const struct json_value *rec = json_get(doc->root, "records"), *crc = json_get(doc->root, "crc32"),
				*status = json_get(doc->root, "status");
	memset(e, 0, sizeof(*e));
	if (rec && rec->type == JSON_NUMBER && !memchr(rec->str, '.', rec->len) && !memchr(rec->str, 'e', rec->len) &&
	    !memchr(rec->str, 'E', rec->len)) {
		e->records_int = true;
		e->records_neg = rec->str[0] == '-';
		e->records_fits = json_u64(rec, &e->records);
		snprintf(e->records_text, sizeof(e->records_text), "%.24s", rec->str);
	}
	if (crc && crc->type == JSON_STRING && crc->len == CRC_HEX_DIGITS) {
		e->crc_ok = true;
		for (size_t i = 0; i < CRC_HEX_DIGITS; i++)
			e->crc_ok &= (crc->str[i] >= '0' && crc->str[i] <= '9') || (crc->str[i] >= 'a' && crc->str[i] <= 'f');
		if (e->crc_ok)
			memcpy(e->crc, crc->str, CRC_HEX_DIGITS + 1);
	}
	e->status_str = status && status->type == JSON_STRING;
}

/* One line of the run's problems (c->problems[first..]), as capture.py's Run.summary() puts them;
 * cut short where the buffer ends. */
static void summarise(const struct capture_file *c, size_t first, struct capture_run *r)
{
	size_t n = 0, total = c->nproblems - first, shown = total < SUMMARY_SHOWN ? total : SUMMARY_SHOWN;
	r->problem[0] = '\0';
	for (size_t i = 0; i < shown; i++)
		n = str_appendf(r->problem, sizeof(r->problem), n, "%s%s", i ? "; " : "", c->problems[first + i].text);
	if (total > shown)
		str_appendf(r->problem, sizeof(r->problem), n, "; and %zu more problem(s)", total - shown);
}

/* Run.check(): the end record's count, CRC and status, in capture.py's order. */
static void close_run(struct reader *rd, const struct end_fields *e)
{
	struct capture_file *c = rd->c;
	struct capture_run *r = rd->cur;
	char have[CRC_HEX_DIGITS + 1];

	rd->cur = NULL;
	if (!e) {
		problem(rd, r->number, 0, CAPTURE_NO_END, "no end record (truncated capture)");
	} else {
		if (!e->records_int)
			problem(rd, r->number, 0, CAPTURE_BAD_COUNT,
				"end record field 'records' is not an integer");
		else if (e->records_neg || !e->records_fits || e->records != r->count)
			problem(rd, r->number, 0, CAPTURE_COUNT_MISMATCH,
				"end record counts %s records, the capture holds %u", e->records_text, r->count);
		snprintf(have, sizeof(have), "%08x", rd->crc);
		if (!e->crc_ok) {
			problem(rd, r->number, 0, CAPTURE_BAD_CRC, "end record field 'crc32' is not 8 hex digits");
		} else {
			if (strcmp(e->crc, have) != 0)
				problem(rd, r->number, 0, CAPTURE_CRC_MISMATCH,
					"CRC mismatch (end record says %s, records give %s): a record was damaged", e->crc,
					have);
			if (!e->status_str)
				problem(rd, r->number, 0, CAPTURE_BAD_STATUS, "end record field 'status' is not a string");
		}
	}
	/* A run's problems are contiguous: nothing outside every run happens while it is open. */
	r->complete = e && c->nproblems == rd->first_problem;
	summarise(c, rd->first_problem, r);
}

static struct capture_run *open_run(struct reader *rd, unsigned line)
{
	struct capture_file *c = rd->c;
	void *p = grow(c->runs, &rd->cap_run, c->nruns, sizeof(*c->runs), &rd->failed);
	if (!p)
		return NULL;
	c->runs = p;
	rd->cur = &c->runs[c->nruns++];
	memset(rd->cur, 0, sizeof(*rd->cur));
	rd->cur->number = (unsigned)c->nruns;
	rd->cur->first_line = rd->cur->last_line = line;
	rd->crc = CRC32_INIT;
	rd->first_problem = c->nproblems;
	return rd->cur;
}

static void count_text(struct reader *rd, const char *js, size_t jl)
{
	rd->cur->count++;
	rd->crc = crc32_update(rd->crc, js, jl);
	rd->crc = crc32_update(rd->crc, "\n", 1);
}

static struct capture_record_line *add_record(struct reader *rd, unsigned line, const char *text, size_t tl,
					 const char *js, size_t jl)
{
	struct capture_file *c = rd->c;
	void *p = grow(c->records, &rd->cap_rec, c->nrecords, sizeof(*c->records), &rd->failed);
	if (!p)
		return NULL;
	c->records = p;
	struct capture_record_line *r = &c->records[c->nrecords++];
	*r = (struct capture_record_line){ .line = line, .text = text, .text_len = tl, .json = js, .json_len = jl };
	return r;
}

/* A line that is not a record: damage inside a run (capture.py's parse, first branch). */
static void other_line(struct reader *rd, unsigned n, const char *s, size_t len)
{
	if (!rd->cur)
		return;
	if (rd->c->serial && contains(s, len, DAMAGE_WORD)) {
		problem(rd, rd->cur->number, n, CAPTURE_DAMAGED_LINE, "line %u: damaged record line", n);
		return;
	}
	if (rd->c->serial)
		return;
	for (size_t i = 0; i < len; i++)
		if (!py_space((unsigned char)s[i])) {
			problem(rd, rd->cur->number, n, CAPTURE_NOT_A_RECORD, "line %u: not a record", n);
			return;
		}
}

static void record_line(struct reader *rd, unsigned n, const char *s, size_t len, const char *js, size_t jl)
{
	struct json_doc doc;
	char why[140];
	struct capture_record_line *rec = add_record(rd, n, s, len, js, jl);

	if (!rec)
		return;
	if (!load_record(js, jl, &doc, why, sizeof(why))) {
		if (rd->cur) {
			problem(rd, rd->cur->number, n, CAPTURE_BAD_RECORD, "line %u: %s", n, why);
			rec->run = rd->cur->number;
			rd->cur->last_line = n;
			count_text(rd, js, jl);	/* it still counts towards the CRC, which will fail */
		} else {
			problem(rd, 0, n, CAPTURE_BAD_RECORD, "line %u: %s", n, why);
		}
		return;
	}
	rec->valid = true;
	if (is_type(&doc, "begin")) {
		if (rd->cur)
			close_run(rd, NULL);
		if (!open_run(rd, n))
			goto out;
	} else if (!rd->cur) {
		const struct json_value *t = json_get(doc.root, "type");
		problem(rd, 0, n, CAPTURE_BEFORE_BEGIN, "line %u: \"%.40s\" record before any begin record", n, t->str);
		goto out;
	}
	rec->run = rd->cur->number;
	rd->cur->last_line = n;
	if (is_type(&doc, "end")) {
		struct end_fields e;
		read_end_fields(&doc, &e);
		rec->end = true;
		rd->cur->end_line = n;
		close_run(rd, &e);
	} else {
		count_text(rd, js, jl);
	}
out:
	json_free(&doc);
}

bool capture_file_read(struct capture_file *c, const char *raw, size_t len)
{
	struct reader rd = { .c = c };

	memset(c, 0, sizeof(*c));
	c->text = clean(raw, len, &c->len);
	if (!c->text)
		return false;
	/* Serial when any line starts with the prefix. */
	for (size_t pos = 0; pos <= c->len && !c->serial;) {
		const char *e = memchr(c->text + pos, '\n', c->len - pos);
		size_t end = e ? (size_t)(e - c->text) : c->len;
		c->serial = starts_with(c->text + pos, end - pos, REC_PREFIX);
		pos = end + 1;
	}
	unsigned n = 0;
	for (size_t pos = 0; pos <= c->len && !rd.failed;) {
		const char *e = memchr(c->text + pos, '\n', c->len - pos);
		size_t end = e ? (size_t)(e - c->text) : c->len;
		const char *s = c->text + pos, *js;
		size_t sl = end - pos, jl;
		n++;
		bool rec = c->serial ? starts_with(s, sl, REC_PREFIX) : (sl > 0 && s[0] == '{');
		if (rec && capture_record_text(s, sl, &js, &jl))
			record_line(&rd, n, s, sl, js, jl);
		else
			other_line(&rd, n, s, sl);
		pos = end + 1;
	}
	c->lines = n;
	if (rd.cur && !rd.failed)
		close_run(&rd, NULL);
	if (rd.failed) {
		capture_file_free(c);
		return false;
	}
	return true;
}

void capture_file_free(struct capture_file *c)
{
	free(c->text);
	free(c->records);
	free(c->runs);
	free(c->problems);
	memset(c, 0, sizeof(*c));
}

const struct capture_record_line *capture_file_record_at(const struct capture_file *c, unsigned line)
{
	/* Records are in line order: a binary search, so a capture of many records stays linear. */
	size_t lo = 0, hi = c->nrecords;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->records[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nrecords && c->records[lo].line == line ? &c->records[lo] : NULL;
}

const struct capture_run *capture_file_run_of(const struct capture_file *c, const struct capture_record_line *r)
{
	return r && r->run && r->run <= c->nruns ? &c->runs[r->run - 1] : NULL;
}
