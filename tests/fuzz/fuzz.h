/*
 * tests/fuzz/fuzz.h - shared by the fuzz harnesses.
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput for one parser of
 * outside bytes.  Built with clang -fsanitize=fuzzer it is a libFuzzer
 * target (make fuzz); linked with replay_main.c it replays a corpus under
 * ASan/UBSan with any compiler (make test).  FUZZ_CHECK states a property
 * the parser promises beyond not crashing; a broken one aborts, which both
 * drivers report as a finding.
 */
#ifndef PMUBOOT_TESTS_FUZZ_FUZZ_H
#define PMUBOOT_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out.h"
#include "tests/fake/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                        \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                \
		}                                                                               \
	} while (0)

/* The promise of lib/out.h: no text line holds a record marker, a control character or a high byte. */
static inline void fuzz_check_text_lines(const struct capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->kinds[i] == OUT_TEXT)
			FUZZ_CHECK(out_text_is_clean(c->lines[i], strlen(c->lines[i])));
}

/* A NUL-terminated copy of the input (parsers of text files get one). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);
	if (t) {
		memcpy(t, data, size);
		t[size] = '\0';
	}
	return t;
}

#endif
