/* lib/out.c - line fan-out to the registered sinks. */
#include "lib/out.h"

static struct out_sink sinks[OUT_MAX_SINKS];
static size_t nsinks;

bool out_add_sink(const struct out_sink *sink)
{
	if (nsinks == OUT_MAX_SINKS)
		return false;
	sinks[nsinks++] = *sink;
	return true;
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

void out_line(enum out_kind kind, const char *line, size_t len)
{
	for (size_t i = 0; i < nsinks; i++) {
		if (kind == OUT_TEXT && sinks[i].records_only)
			continue;
		sinks[i].write_line(sinks[i].ctx, kind, line, len);
	}
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
	/* Split embedded newlines so every sink sees whole lines. */
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || buf[i] == '\n') {
			if (i > start || i < len)
				out_line(OUT_TEXT, buf + start, i - start);
			start = i + 1;
		}
	}
}
