/* lib/record.c - see record.h. */
#include "lib/record.h"
#include "lib/crc32.h"
#include "lib/heap.h"
#include "lib/json.h"
#include "lib/out.h"

/* Room kept free so a record can always be closed and marked truncated. */
#define REC_RESERVE 48

static struct {
	bool open;
	uint32_t count;
	uint32_t crc;
	uint32_t errors;
} stream;

/*
 * Record text buffers.  A buffer is in use from rec_start to rec_emit; a
 * struct rec started again without being emitted keeps its buffer.
 */
static char *pool[REC_POOL];
static bool pool_busy[REC_POOL];

static char *pool_get(void)
{
	for (int i = 0; i < REC_POOL; i++) {
		if (pool_busy[i])
			continue;
		if (!pool[i])
			pool[i] = heap_alloc(REC_MAX, 64);
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

static void raws(struct rec *r, const char *s)
{
	raw(r, s, strlen(s));
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

static void key(struct rec *r, const char *k)
{
	if (r->comma[r->depth])
		raw(r, ",", 1);
	r->comma[r->depth] = true;
	if (k) {
		quoted(r, k, strlen(k));
		raw(r, ":", 1);
	}
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
	r->len = 0;
	r->depth = 0;
	r->overflow = false;
	memset(r->comma, 0, sizeof(r->comma));
	raw(r, "{", 1);
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
	key(r, k);
	quoted(r, val, len);
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
	key(r, k);
	raw(r, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v));
}

void rec_i64(struct rec *r, const char *k, int64_t v)
{
	char tmp[24];
	key(r, k);
	raw(r, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%lld", (long long)v));
}

void rec_hex(struct rec *r, const char *k, uint64_t v)
{
	char tmp[24];
	key(r, k);
	raw(r, tmp, (size_t)snprintf(tmp, sizeof(tmp), "\"0x%llx\"", (unsigned long long)v));
}

void rec_bool(struct rec *r, const char *k, bool v)
{
	key(r, k);
	raws(r, v ? "true" : "false");
}

void rec_null(struct rec *r, const char *k)
{
	key(r, k);
	raws(r, "null");
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
	key(r, k);
	raws(r, fmt_milli(tmp, milli));
}

static void open_nest(struct rec *r, const char *k, char open, char close)
{
	key(r, k);
	if (r->depth + 1 >= REC_MAX_DEPTH) {
		r->overflow = true;
		return;
	}
	raw(r, &open, 1);
	r->depth++;
	r->comma[r->depth] = false;
	r->closer[r->depth] = close;
}

static void close_nest(struct rec *r)
{
	if (r->depth == 0)
		return;
	/* Written even after an overflow: the reserve keeps room for closers. */
	r->buf[r->len++] = r->closer[r->depth];
	r->depth--;
}

void rec_obj(struct rec *r, const char *k) { open_nest(r, k, '{', '}'); }
void rec_obj_end(struct rec *r) { close_nest(r); }
void rec_arr(struct rec *r, const char *k) { open_nest(r, k, '[', ']'); }
void rec_arr_end(struct rec *r) { close_nest(r); }

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
		memcpy(r->buf + r->len, trunc_tail, sizeof(trunc_tail) - 1);
		r->len += sizeof(trunc_tail) - 1;
		r->depth = 0;
	}
	while (r->depth > 0)
		close_nest(r);
	r->buf[r->len++] = '}';

	stream.crc = crc32_update(stream.crc, r->buf, r->len);
	stream.crc = crc32_update(stream.crc, "\n", 1);
	stream.count++;

	/* The prefix goes in front of the text, in the slack the reserve guarantees. */
	memmove(r->buf + sizeof(REC_PREFIX) - 1, r->buf, r->len);
	memcpy(r->buf, REC_PREFIX, sizeof(REC_PREFIX) - 1);
	out_line(OUT_RECORD, r->buf, sizeof(REC_PREFIX) - 1 + r->len);
	pool_put(r->buf);
	r->buf = NULL;
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
