/*
 * tests/fuzz/replay_main.c - run a harness over corpus files, without libFuzzer.
 *
 *   replay_<name> FILE|DIR...
 *
 * Each file is one input, given to LLVMFuzzerTestOneInput once, in name
 * order, so a replay is deterministic.  Prints "N inputs" on success; a
 * sanitizer report or a broken FUZZ_CHECK ends the process with an error.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", path);
		return 1;
	}
	/* An exact-size copy, so reading one byte past the input is caught. */
	uint8_t *exact = malloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int replay(const char *path, size_t *count)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return replay_file(path);
	}
	DIR *d = opendir(path);
	if (!d) {
		perror(path);
		return 1;
	}
	char **names = NULL;
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
		sprintf(names[n++], "%s/%s", path, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		rc |= replay(names[i], count);
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		rc |= replay(argv[i], &count);
	printf("%zu inputs\n", count);
	return rc;
}
