/* tests/fake/capture.h - an output sink that keeps every line, for asserting on output. */
#ifndef PMUBOOT_TESTS_FAKE_CAPTURE_H
#define PMUBOOT_TESTS_FAKE_CAPTURE_H

#include <stddef.h>
#include "lib/out.h"

#define CAPTURE_MAX_LINES 4096

struct capture {
	char *lines[CAPTURE_MAX_LINES];
	enum out_kind kinds[CAPTURE_MAX_LINES];
	size_t n;
};

/* Reset the sinks and capture everything from now on. */
void capture_start(struct capture *c);
void capture_free(struct capture *c);
/* The i-th record line's JSON text (without the prefix), or NULL. */
const char *capture_record(const struct capture *c, size_t i);
size_t capture_record_count(const struct capture *c);
/* The first record whose JSON contains "type":"<type>", or NULL. */
const char *capture_find(const struct capture *c, const char *type);

#endif
