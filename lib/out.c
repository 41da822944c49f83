/* lib/out.c - line fan-out to the registered sinks. */
#include "lib/out.h"

static struct out_sink sinks[OUT_MAX_SINKS];
static size_t nsinks;

/* Room for a text line after escaping: out_text's 512 bytes, most of them printable. */
#define OUT_CLEAN_LINE 1024

bool out_add_sink(const struct out_sink *sink)
{
	if (nsinks == OUT_MAX_SINKS)
		return false;
	sinks[nsinks++] = *sink;
	return true;
}

uint32_t out_slowest_rate(const char **name)
{
	uint32_t slowest = 0;
	for (size_t i = 0; i < nsinks; i++)
		if (sinks[i].bytes_per_s && (!slowest || sinks[i].bytes_per_s < slowest)) {
			slowest = sinks[i].bytes_per_s;
			if (name)
				*name = sinks[i].name;
		}
	return slowest;
}

void out_remove_sink(const char *name)
{
	for (size_t i = 0; i < nsinks; i++) {
		if (strcmp(sinks[i].name, name) == 0) {
			memmove(&sinks[i], &sinks[i + 1], (nsinks - i - 1) * sizeof(sinks[0]));
			nsinks--;
			return;
		}
	}
}

void out_reset(void)
{
	nsinks = 0;
}

void out_save_sinks(struct out_sink_table *t)
{
	memcpy(t->sink, sinks, sizeof(sinks));
	t->n = nsinks;
}

void out_restore_sinks(const struct out_sink_table *t)
{
	memcpy(sinks, t->sink, sizeof(sinks));
	nsinks = t->n <= OUT_MAX_SINKS ? t->n : OUT_MAX_SINKS;
}

/*
 * The record marker without its space: "@pmuboot{" or "@pmuboot\t" would not
 * be a record, but a reader that is lax about the blank should not be
 * offered one either.
 */
static const char marker[] = "@pmuboot";
#define MARKER_LEN (sizeof(marker) - 1)

static bool at_marker(const char *s, size_t len, size_t i)
{
	return len - i >= MARKER_LEN && memcmp(s + i, marker, MARKER_LEN) == 0;
}

/* Bytes a text line shows as they are; tab is the program's own (tables). */
static bool plain(unsigned char c, bool keep_tab)
{
	return (c >= 0x20 && c < 0x7f) || (keep_tab && c == '\t');
}

static size_t escape(char *dst, size_t cap, const char *s, size_t len, bool keep_tab)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0, written = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char tmp[4];
		size_t k = 0;
		if (plain(c, keep_tab) && !(c == '@' && at_marker(s, len, i))) {
			tmp[k++] = (char)c;
		} else {
			tmp[k++] = '\\';
			tmp[k++] = 'x';
			tmp[k++] = hex[c >> 4];
			tmp[k++] = hex[c & 15];
		}
		/* Whole escapes only: a cut never leaves half of one behind. */
		if (written == n && n + k < cap) {
			memcpy(dst + n, tmp, k);
			written += k;
		}
		n += k;
	}
	if (cap)
		dst[written] = '\0';
	return n;
}

size_t out_clean_n(char *dst, size_t cap, const char *s, size_t len)
{
	return escape(dst, cap, s ? s : "", s ? len : 0, false);
}

const char *out_clean(char *dst, size_t cap, const char *s)
{
	out_clean_n(dst, cap, s, s ? strlen(s) : 0);
	return dst;
}

bool out_text_is_clean(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (!plain(c, true) || (c == '@' && at_marker(line, len, i)))
			return false;
	}
	return true;
}

static void fan_out(const char *line, size_t len)
{
	for (size_t i = 0; i < nsinks; i++)
		if (!sinks[i].records_only)
			sinks[i].write_line(sinks[i].ctx, OUT_TEXT, line, len);
}

void out_line(const char *line, size_t len)
{
	if (!out_text_is_clean(line, len)) {
		/*
		 * A text line never carries a record or a line break: whatever
		 * reached it from outside (firmware strings, file names, option
		 * values) is shown escaped.
		 */
		char clean[OUT_CLEAN_LINE];
		escape(clean, sizeof(clean), line, len, true);
		fan_out(clean, strlen(clean));
		return;
	}
	fan_out(line, len);
}

void out_sink_record(const struct out_sink *s, const struct rec *r, const char *line, size_t len)
{
	if (s->write_record) {
		s->write_record(s->ctx, r);
		return;
	}
	s->write_line(s->ctx, OUT_RECORD, line, len);
}

void out_record(const struct rec *r, const char *line, size_t len)
{
	for (size_t i = 0; i < nsinks; i++)
		out_sink_record(&sinks[i], r, line, len);
}

void out_text(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	size_t len = n < 0 ? 0 : (size_t)n;
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	/*
	 * One call is one line.  A newline the format ends with is dropped;
	 * any other came in through an argument and is escaped by out_line,
	 * so a string from outside cannot start a line of its own.
	 */
	if (len && buf[len - 1] == '\n')
		len--;
	if (len)
		out_line(buf, len);
}
