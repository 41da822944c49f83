/* tests/fake/capture.c - see capture.h. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "tests/fake/capture.h"
#include "lib/record.h"

static void keep(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	struct capture *c = ctx;
	if (c->n == CAPTURE_MAX_LINES)
		return;
	c->lines[c->n] = strndup(line, len);
	c->kinds[c->n] = kind;
	c->n++;
}

void capture_start(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	out_reset();
	struct out_sink s = { .name = "capture", .write_line = keep, .ctx = c };
	out_add_sink(&s);
}

void capture_free(struct capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->lines[i]);
	c->n = 0;
	out_reset();
}

const char *capture_record(const struct capture *c, size_t i)
{
	for (size_t k = 0; k < c->n; k++) {
		if (c->kinds[k] != OUT_RECORD)
			continue;
		if (i-- == 0)
			return c->lines[k] + strlen(REC_PREFIX);
	}
	return NULL;
}

size_t capture_record_count(const struct capture *c)
{
	size_t n = 0;
	for (size_t k = 0; k < c->n; k++)
		n += c->kinds[k] == OUT_RECORD;
	return n;
}

const char *capture_find(const struct capture *c, const char *type)
{
	char needle[96];
	snprintf(needle, sizeof(needle), "\"type\":\"%s\"", type);
	for (size_t i = 0; i < capture_record_count(c); i++) {
		const char *r = capture_record(c, i);
		if (strstr(r, needle))
			return r;
	}
	return NULL;
}
