/*
 * tests/fuzz/replay.c - run a libFuzzer-style target without libFuzzer.
 *
 *   replay [--mutate] FILE...
 *
 * Calls LLVMFuzzerTestOneInput on each file and, with --mutate, on
 * deterministic variants of it: every prefix, every single-bit flip, every
 * byte set to 0x00 and 0xff, and one extra trailing byte.  Built with
 * sanitizers, a crash or a trap in the target fails the run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILE_MAX (1u << 20)

static unsigned long calls;

static void one(const uint8_t *d, size_t n)
{
	/* A fresh copy each time, exactly n bytes long, so ASan sees any read past the end. */
	uint8_t *c = malloc(n ? n : 1);
	if (!c)
		abort();
	memcpy(c, d, n);
	LLVMFuzzerTestOneInput(c, n);
	free(c);
	calls++;
}

static void mutations(uint8_t *d, size_t n)
{
	for (size_t k = 0; k < n; k++)
		one(d, k);
	for (size_t i = 0; i < n; i++) {
		uint8_t was = d[i];
		for (int b = 0; b < 8; b++) {
			d[i] = (uint8_t)(was ^ (1u << b));
			one(d, n);
		}
		d[i] = 0x00;
		one(d, n);
		d[i] = 0xff;
		one(d, n);
		d[i] = was;
	}
	uint8_t *e = malloc(n + 1);
	if (!e)
		abort();
	memcpy(e, d, n);
	e[n] = 0;
	one(e, n + 1);
	free(e);
}

int main(int argc, char **argv)
{
	int mutate = 0, files = 0;
	static uint8_t buf[FILE_MAX];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mutate")) {
			mutate = 1;
			continue;
		}
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		one(buf, n);
		if (mutate)
			mutations(buf, n);
		files++;
	}
	printf("replay: %d files, %lu inputs\n", files, calls);
	return files ? 0 : 2;
}
