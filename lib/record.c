/* lib/record.c - see record.h. */
#include "lib/record.h"
#include "lib/crc32.h"
#include "lib/decimal.h"
#include "lib/heap.h"
#include "lib/json.h"
#include "lib/out.h"

/* Room kept free so a record can always be closed and marked truncated. */
#define REC_RESERVE 48
#define PREFIX_LEN (sizeof(REC_PREFIX) - 1)
/* An object or array that could not be indexed: nothing inside it is. */
#define NOT_INDEXED 0xffff

_Static_assert(REC_MAX <= NOT_INDEXED && REC_FIELDS < NOT_INDEXED, "struct rec_field's offsets are 16 bits");

static struct {
	bool open;
	uint32_t count;
	uint32_t crc;
	uint32_t errors;
} stream;

/*
 * Record buffers: the text, then its index.  A buffer is in use from
 * rec_start to rec_emit; a struct rec started again without being emitted
 * keeps its buffer.
 */
#define POOL_BYTES (REC_MAX + REC_FIELDS * sizeof(struct rec_field))
static char *pool[REC_POOL];
static bool pool_busy[REC_POOL];

static char *pool_get(void)
{
	for (int i = 0; i < REC_POOL; i++) {
		if (pool_busy[i])
			continue;
		if (!pool[i])
			pool[i] = heap_alloc(POOL_BYTES, 64);
		if (!pool[i])
			return NULL;
		pool_busy[i] = true;
		return pool[i];
	}
	return NULL;
}

static void pool_put(char *buf)
{
	for (int i = 0; i < REC_POOL; i++)
		if (pool[i] == buf)
			pool_busy[i] = false;
}

static bool pool_owns(const char *buf)
{
	for (int i = 0; i < REC_POOL; i++)
		if (buf && pool[i] == buf && pool_busy[i])
			return true;
	return false;
}

/* Used when the pool is exhausted or the heap is empty: the record is reduced to its type. */
static char fallback_buf[256];
static struct rec_field fallback_fields[16];

static void raw(struct rec *r, const char *s, size_t n)
{
	if (r->overflow)
		return;
	if (r->len + n + REC_RESERVE > r->cap) {
		r->overflow = true;
		return;
	}
	memcpy(r->buf + r->len, s, n);
	r->len += n;
}

static void quoted(struct rec *r, const char *s, size_t n)
{
	char tmp[1024];
	size_t need = json_escape(tmp, sizeof(tmp), s, n);

	raw(r, "\"", 1);
	if (need < sizeof(tmp)) {
		raw(r, tmp, need);
	} else {
		/* Long strings are escaped in pieces. */
		for (size_t i = 0; i < n; i += 128) {
			size_t k = n - i < 128 ? n - i : 128;
			size_t m = json_escape(tmp, sizeof(tmp), s + i, k);
			raw(r, tmp, m);
		}
	}
	raw(r, "\"", 1);
}

/* Where the key of the value being written sits in the text. */
struct key_at {
	size_t at, len;
};

static struct key_at key(struct rec *r, const char *k)
{
	struct key_at ka = { 0, 0 };
	if (r->comma[r->depth])
		raw(r, ",", 1);
	r->comma[r->depth] = true;
	if (k) {
		ka.at = r->len + 1;
		quoted(r, k, strlen(k));
		ka.len = r->len - 1 - ka.at;
		raw(r, ":", 1);
	}
	return ka;
}

/*
 * Index the value just written at text [at, at + len).  Nothing is indexed
 * once the text overflowed (it is cut back at rec_emit) or inside a
 * container that was not indexed.  Returns the field, or NOT_INDEXED.
 */
static uint16_t index_value(struct rec *r, struct key_at ka, enum rec_type t, size_t at, size_t len)
{
	uint16_t parent = r->open[r->depth];
	if (r->overflow || parent == NOT_INDEXED)
		return NOT_INDEXED;
	if (r->nfields == r->field_cap) {
		r->index_short = true;
		return NOT_INDEXED;
	}
	struct rec_field *f = &r->field[r->nfields];
	f->parent = parent;
	f->key = (uint16_t)ka.at;
	f->key_len = (uint16_t)ka.len;
	f->at = (uint16_t)at;
	f->len = (uint16_t)len;
	f->type = (uint8_t)t;
	return r->nfields++;
}

/* A value that is written as it reads: a number, true, false, null. */
static void plain_value(struct rec *r, const char *k, enum rec_type t, const char *text, size_t n)
{
	struct key_at ka = key(r, k);
	size_t at = r->len;
	raw(r, text, n);
	index_value(r, ka, t, at, n);
}

static struct {
	bool on;
	uint32_t n, apic_id;
} rec_cpu;

void rec_set_cpu(bool on, uint32_t n, uint32_t apic_id)
{
	rec_cpu.on = on;
	rec_cpu.n = n;
	rec_cpu.apic_id = apic_id;
}

void rec_start(struct rec *r, const char *type)
{
	if (!pool_owns(r->buf)) {
		r->buf = pool_get();
		r->cap = REC_MAX;
		if (!r->buf) {
			r->buf = fallback_buf;
			r->cap = sizeof(fallback_buf);
		}
	}
	r->field = r->buf == fallback_buf ? fallback_fields : (struct rec_field *)(void *)(r->buf + REC_MAX);
	r->field_cap = r->buf == fallback_buf ? ARRAY_SIZE(fallback_fields) : REC_FIELDS;
	r->len = 0;
	r->depth = 0;
	r->overflow = false;
	r->lost = 0;
	r->index_short = false;
	r->json = NULL;
	memset(r->comma, 0, sizeof(r->comma));
	raw(r, "{", 1);
	/* Field 0: the record's own object, its own parent. */
	r->nfields = 0;
	r->open[0] = 0;
	index_value(r, (struct key_at){ 0, 0 }, REC_OBJECT, 0, 0);
	rec_str(r, "type", type);
	if (rec_cpu.on) {
		rec_obj(r, "cpu");
		rec_u64(r, "n", rec_cpu.n);
		rec_u64(r, "apic_id", rec_cpu.apic_id);
		rec_obj_end(r);
	}
}

void rec_strn(struct rec *r, const char *k, const char *val, size_t len)
{
	struct key_at ka = key(r, k);
	size_t at = r->len + 1;
	quoted(r, val, len);
	index_value(r, ka, REC_STRING, at, r->len - 1 - at);
}

void rec_str(struct rec *r, const char *k, const char *val)
{
	if (!val) {
		rec_null(r, k);
		return;
	}
	rec_strn(r, k, val, strlen(val));
}

void rec_u64(struct rec *r, const char *k, uint64_t v)
{
	char tmp[24];
	plain_value(r, k, REC_NUMBER, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v));
}

void rec_i64(struct rec *r, const char *k, int64_t v)
{
	char tmp[24];
	plain_value(r, k, REC_NUMBER, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%lld", (long long)v));
}

void rec_hex(struct rec *r, const char *k, uint64_t v)
{
	char tmp[24];
	snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)v);
	rec_str(r, k, tmp);
}

void rec_bool(struct rec *r, const char *k, bool v)
{
	plain_value(r, k, REC_BOOL, v ? "true" : "false", v ? 4 : 5);
}

void rec_null(struct rec *r, const char *k)
{
	plain_value(r, k, REC_NULL, "null", 4);
}

const char *fmt_milli(char buf[32], int64_t milli)
{
	uint64_t mag = milli < 0 ? 0 - (uint64_t)milli : (uint64_t)milli;
	snprintf(buf, 32, "%s%llu.%03llu", milli < 0 ? "-" : "",
		 (unsigned long long)(mag / 1000), (unsigned long long)(mag % 1000));
	return buf;
}

void rec_milli(struct rec *r, const char *k, int64_t milli)
{
	char tmp[32];
	fmt_milli(tmp, milli);
	plain_value(r, k, REC_NUMBER, tmp, strlen(tmp));
}

static void open_nest(struct rec *r, const char *k, char open, char close)
{
	struct key_at ka = key(r, k);
	if (r->overflow || r->depth + 1 >= REC_MAX_DEPTH) {
		/* Its opener is not written, so neither is its closer: the reserve holds only the closers of what
		 * was open when the text overflowed, and a closer each for the rest ran past the buffer. */
		r->overflow = true;
		r->lost++;
		return;
	}
	size_t at = r->len;
	raw(r, &open, 1);
	uint16_t f = index_value(r, ka, open == '{' ? REC_OBJECT : REC_ARRAY, at, 0);
	r->depth++;
	r->comma[r->depth] = false;
	r->closer[r->depth] = close;
	r->open[r->depth] = f;
}

static void close_nest(struct rec *r)
{
	if (r->lost) {
		r->lost--;
		return;
	}
	if (r->depth == 0)
		return;
	/* Written even after an overflow: the reserve keeps room for closers. */
	r->buf[r->len++] = r->closer[r->depth];
	uint16_t f = r->open[r->depth];
	if (f != NOT_INDEXED)
		r->field[f].len = (uint16_t)(r->len - r->field[f].at);
	r->depth--;
}

void rec_obj(struct rec *r, const char *k) { open_nest(r, k, '{', '}'); }
void rec_obj_end(struct rec *r) { close_nest(r); }
void rec_arr(struct rec *r, const char *k) { open_nest(r, k, '[', ']'); }
void rec_arr_end(struct rec *r) { close_nest(r); }

/* Where a field's text starts: its key's opening quote, or its value in an array. */
static size_t field_start(const struct rec_field *f)
{
	return f->key_len ? (size_t)f->key - 1 : f->at;
}

void rec_emit(struct rec *r)
{
	static const char trunc_tail[] = ",\"truncated\":true";

	if (r->overflow) {
		/*
		 * Cut back to the last complete member at the top level so the
		 * JSON stays valid, then say it was cut.
		 */
		size_t cut = r->len;
		int depth = 0;
		bool in_str = false;
		for (size_t i = 0; i < r->len; i++) {
			char c = r->buf[i];
			if (in_str) {
				if (c == '\\')
					i++;
				else if (c == '"')
					in_str = false;
				continue;
			}
			if (c == '"')
				in_str = true;
			else if (c == '{' || c == '[')
				depth++;
			else if (c == '}' || c == ']')
				depth--;
			else if (c == ',' && depth == 1)
				cut = i;
		}
		r->len = cut;
		/* The index keeps what the text keeps (it is in text order), then the mark. */
		while (r->nfields > 1 && field_start(&r->field[r->nfields - 1]) >= cut)
			r->nfields--;
		r->overflow = false;
		r->lost = 0;
		r->depth = 0;
		struct key_at ka = { r->len + 2, strlen("truncated") };
		memcpy(r->buf + r->len, trunc_tail, sizeof(trunc_tail) - 1);
		r->len += sizeof(trunc_tail) - 1;
		index_value(r, ka, REC_BOOL, r->len - strlen("true"), strlen("true"));
	}
	while (r->depth > 0)
		close_nest(r);
	r->buf[r->len++] = '}';
	r->field[0].len = (uint16_t)r->len;

	stream.crc = crc32_update(stream.crc, r->buf, r->len);
	stream.crc = crc32_update(stream.crc, "\n", 1);
	stream.count++;

	/* The prefix goes in front of the text, in the slack the reserve guarantees. */
	memmove(r->buf + PREFIX_LEN, r->buf, r->len);
	memcpy(r->buf, REC_PREFIX, PREFIX_LEN);
	r->json = r->buf + PREFIX_LEN;
	out_record(r, r->buf, PREFIX_LEN + r->len);
	pool_put(r->buf);
	r->buf = NULL;
	r->json = NULL;
	r->nfields = 0;
}

/* ---- reading ---- */

static const char *text_of(const struct rec *r)
{
	return r->json ? r->json : r->buf;
}

static const struct rec_field *field_of(const struct rec *r, int f)
{
	return f >= 0 && f < (int)r->nfields && text_of(r) ? &r->field[f] : NULL;
}

static bool key_is(const struct rec *r, const struct rec_field *f, const char *name, size_t n)
{
	return f->key_len == n && !memcmp(text_of(r) + f->key, name, n);
}

int rec_find(const struct rec *r, int in, const char *path)
{
	const struct rec_field *cur = field_of(r, in);
	if (!cur || !path)
		return -1;
	while (*path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		int found = -1;
		if (cur->type == REC_OBJECT && n)
			for (int i = in + 1; i < (int)r->nfields; i++)
				if (r->field[i].parent == in && key_is(r, &r->field[i], path, n)) {
					found = i;
					break;
				}
		if (found < 0)
			return -1;
		in = found;
		cur = &r->field[in];
		path = dot ? dot + 1 : path + n;
		if (dot && !*path)
			return -1;	/* "cycles." names no key */
	}
	return in;
}

enum rec_type rec_type_of(const struct rec *r, int f)
{
	const struct rec_field *fl = field_of(r, f);
	return fl ? (enum rec_type)fl->type : REC_ABSENT;
}

int rec_child(const struct rec *r, int f, size_t i)
{
	const struct rec_field *fl = field_of(r, f);
	if (!fl || (fl->type != REC_OBJECT && fl->type != REC_ARRAY))
		return -1;
	for (int k = f + 1; k < (int)r->nfields; k++)
		if (r->field[k].parent == f && i-- == 0)
			return k;
	return -1;
}

size_t rec_count(const struct rec *r, int f)
{
	size_t n = 0;
	while (rec_child(r, f, n) >= 0)
		n++;
	return n;
}

/*
 * Unescape [s, end), as lib/json.c escaped it, into buf, cut to cap: a
 * byte written as \u00XX (a control character, or one past ASCII) is shown
 * as '?', and \n, \r, \t as a space, so the text stays on its line.
 */
static const char *unescape(const char *s, const char *end, char *buf, size_t cap)
{
	size_t k = 0;
	if (!cap)
		return buf;
	while (s < end && k + 1 < cap) {
		char c = *s++;
		if (c == '\\' && s < end) {
			c = *s++;
			if (c == 'u') {
				c = '?';
				s += end - s < 4 ? end - s : 4;
			} else if (c != '"' && c != '\\' && c != '/') {
				c = ' ';
			}
		}
		buf[k++] = c;
	}
	buf[k] = 0;
	return buf;
}

const char *rec_key(const struct rec *r, int f, char *buf, size_t cap)
{
	const struct rec_field *fl = field_of(r, f);
	const char *t = text_of(r);
	if (!fl || !fl->key_len)
		return unescape(t, t, buf, cap);
	return unescape(t + fl->key, t + fl->key + fl->key_len, buf, cap);
}

const char *rec_text(const struct rec *r, int f, char *buf, size_t cap)
{
	const struct rec_field *fl = field_of(r, f);
	const char *t = text_of(r);
	if (!fl || fl->type == REC_NULL || fl->type == REC_OBJECT || fl->type == REC_ARRAY)
		return unescape(t, t, buf, cap);
	if (fl->type == REC_STRING)
		return unescape(t + fl->at, t + fl->at + fl->len, buf, cap);
	if (cap) {
		size_t n = fl->len < cap - 1 ? fl->len : cap - 1;
		memcpy(buf, t + fl->at, n);
		buf[n] = 0;
	}
	return buf;
}

/* A number's text, or NULL. */
static const char *number_of(const struct rec *r, int f, size_t *len)
{
	const struct rec_field *fl = field_of(r, f);
	if (!fl || fl->type != REC_NUMBER)
		return NULL;
	*len = fl->len;
	return text_of(r) + fl->at;
}

bool rec_u64_of(const struct rec *r, int f, uint64_t *v)
{
	size_t len;
	const char *s = number_of(r, f, &len);
	/* Numbers are written in decimal (rec_u64 ...): one with a sign, point or exponent is not a u64. */
	return s && lc_isdigit((unsigned char)s[len - 1]) && s[0] != '-' && lc_parse_u64(s, len, v);
}

#define MILLI_DIGITS 3		/* rec_milli writes at most three decimals */
#define MILLI_PER_UNIT 1000u

bool rec_milli_of(const struct rec *r, int f, int64_t *milli)
{
	size_t len = 0, n, k = 0;
	const char *s = number_of(r, f, &len);
	uint64_t whole, frac = 0;
	if (!s)
		return false;
	bool neg = *s == '-';
	s += neg;
	len -= neg;
	/* The milli value's own limit is checked below, once the fraction is known. */
	if (dec_parse(s, len, (uint64_t)INT64_MAX / MILLI_PER_UNIT, &whole, &n) != DEC_OK)
		return false;
	if (n < len && s[n] == '.' && (dec_parse(s + n + 1, len - n - 1, UINT64_MAX, &frac, &k) != DEC_OK ||
				       k > MILLI_DIGITS))
		return false;
	if (n + (k ? k + 1 : 0) != len)
		return false;	/* an exponent after the digits */
	for (size_t i = k; i < MILLI_DIGITS; i++)
		frac *= 10;
	if (frac > (uint64_t)INT64_MAX - whole * MILLI_PER_UNIT)
		return false;
	uint64_t v = whole * MILLI_PER_UNIT + frac;
	*milli = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

const char *rec_get_str(const struct rec *r, const char *path, char *buf, size_t cap)
{
	return rec_text(r, rec_find(r, REC_ROOT, path), buf, cap);
}

bool rec_get_u64(const struct rec *r, const char *path, uint64_t *v)
{
	return rec_u64_of(r, rec_find(r, REC_ROOT, path), v);
}

bool rec_is(const struct rec *r, const char *path, const char *word)
{
	const struct rec_field *fl = field_of(r, rec_find(r, REC_ROOT, path));
	return fl && fl->type == REC_STRING && fl->len == strlen(word) && !memcmp(text_of(r) + fl->at, word, fl->len);
}

bool rec_is_true(const struct rec *r, const char *path)
{
	const struct rec_field *fl = field_of(r, rec_find(r, REC_ROOT, path));
	return fl && fl->type == REC_BOOL && fl->len == strlen("true");
}

bool rec_is_null(const struct rec *r, const char *path)
{
	return rec_type_of(r, rec_find(r, REC_ROOT, path)) == REC_NULL;
}

bool rec_has(const struct rec *r, const char *path)
{
	return rec_find(r, REC_ROOT, path) >= 0;
}

const char *rec_line(const struct rec *r, size_t *len)
{
	*len = r->json ? PREFIX_LEN + r->len : 0;
	return r->json ? r->json - PREFIX_LEN : "";
}

size_t rec_fields(const struct rec *r, const struct rec_field **f)
{
	*f = r->field;
	return r->json ? r->nfields : 0;
}

void rec_view(struct rec *v, const char *line, size_t len, const struct rec_field *f, size_t n)
{
	memset(v, 0, sizeof(*v));
	if (len < PREFIX_LEN || n > REC_FIELDS)
		return;
	v->json = line + PREFIX_LEN;
	v->len = len - PREFIX_LEN;
	v->cap = v->len;
	v->field = (struct rec_field *)f;	/* read only: a view is never built on */
	v->nfields = (uint16_t)n;
	v->field_cap = (uint16_t)n;
}

void rec_stream_begin(const struct rec_stream_info *info, void (*extra)(struct rec *r, void *ctx), void *ctx)
{
	static struct rec r;

	stream.open = true;
	stream.count = 0;
	stream.crc = CRC32_INIT;
	stream.errors = 0;
	rec_start(&r, "begin");
	rec_u64(&r, "format", REC_FORMAT_VERSION);
	rec_str(&r, "program", info->program);
	rec_str(&r, "version", info->version);
	rec_str(&r, "build", info->build);
	if (extra)
		extra(&r, ctx);
	rec_emit(&r);
}

void rec_stream_end(void)
{
	static struct rec r;
	char crc[16];

	if (!stream.open)
		return;
	/* The end record itself is not counted or covered by the CRC. */
	uint32_t count = stream.count, sum = stream.crc;
	rec_start(&r, "end");
	rec_str(&r, "status", stream.errors ? "error" : "ok");
	rec_u64(&r, "errors", stream.errors);
	rec_u64(&r, "records", count);
	snprintf(crc, sizeof(crc), "%08x", sum);
	rec_str(&r, "crc32", crc);
	rec_emit(&r);
	stream.open = false;
}

bool rec_stream_open(void) { return stream.open; }
uint32_t rec_stream_count(void) { return stream.count; }
uint32_t rec_stream_errors(void) { return stream.errors; }
void rec_stream_note_error(void) { stream.errors++; }

void rec_error(const char *source, const char *what, const char *fmt, ...)
{
	static struct rec r;
	static char clean_source[96], clean_what[96], clean_msg[512];
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	stream.errors++;
	/* The parts often quote what was read (a key, a file name): shown escaped, on one line.  A
	 * stage that is both where and what ("bench", "bench") is named once on the line. */
	out_clean(clean_msg, sizeof(clean_msg), msg);
	if (!strcmp(source, what))
		out_text("error: %s: %s", out_clean(clean_source, sizeof(clean_source), source), clean_msg);
	else
		out_text("error: %s: %s: %s", out_clean(clean_source, sizeof(clean_source), source),
			 out_clean(clean_what, sizeof(clean_what), what), clean_msg);
	rec_start(&r, "error");
	rec_str(&r, "source", source);
	rec_str(&r, "what", what);
	rec_str(&r, "message", msg);
	rec_emit(&r);
}
