/*
 * Lines for the tests of the screen and of the record index (test_screen_state.c, test_record_fields.c):
 * each held in a heap block of exactly its length with no NUL after it, so under the ASan build
 * (build/asan) a read one byte past the length the caller gave is reported; and the lines of a capture
 * file, CR and LF removed.
 */
#ifndef PMUBOOT_TESTS_UNIT_SCREEN_LINES_H
#define PMUBOOT_TESTS_UNIT_SCREEN_LINES_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unit tests run from the repository root (tests/run.py, tests/host/test_sanitizers.py). */
#define CAPTURES "tests/fixtures/captures"

/* A copy of s[0..len) in a block of exactly len bytes (one byte for an empty line, never read). */
static char *exact_copy(const char *s, size_t len)
{
	char *p = malloc(len ? len : 1);
	if (!p)
		abort();
	memcpy(p, s, len);
	return p;
}

struct lines {
	char **line;	/* exact copies */
	size_t *len;
	size_t n;
};

/* Every line of a file (binary-safe: a NUL inside a line is kept); false when it cannot be read. */
static bool read_lines(const char *path, struct lines *out)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, k = 0;
	int c;

	memset(out, 0, sizeof(*out));
	if (!f)
		return false;
	for (;;) {
		c = fgetc(f);
		if (c == '\n' || (c == EOF && k)) {
			while (k && buf[k - 1] == '\r')
				k--;
			out->line = realloc(out->line, (out->n + 1) * sizeof(*out->line));
			out->len = realloc(out->len, (out->n + 1) * sizeof(*out->len));
			if (!out->line || !out->len)
				abort();
			out->line[out->n] = exact_copy(buf, k);
			out->len[out->n++] = k;
			k = 0;
		}
		if (c == EOF)
			break;
		if (c == '\n')
			continue;
		if (k + 1 > cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		buf[k++] = (char)c;
	}
	free(buf);
	fclose(f);
	return true;
}

static void free_lines(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->line[i]);
	free(l->line);
	free(l->len);
	memset(l, 0, sizeof(*l));
}

/*
 * fn(path, ctx) for every hostile capture (tests/fixtures/captures/hostile, the generator script left
 * out); how many there were, or 0 when the folder cannot be read.
 */
static size_t each_hostile_capture(void (*fn)(const char *path, void *ctx), void *ctx)
{
	DIR *d = opendir(CAPTURES "/hostile");
	struct dirent *e;
	size_t files = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[512];
		if (e->d_name[0] == '.' || strstr(e->d_name, ".py"))
			continue;
		snprintf(path, sizeof(path), "%s/hostile/%s", CAPTURES, e->d_name);
		fn(path, ctx);
		files++;
	}
	closedir(d);
	return files;
}

#endif
