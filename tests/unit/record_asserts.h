/*
 * tests/unit/record_asserts.h - looking at captured records in cmocka tests
 * (include after <cmocka.h>).
 */
#ifndef PMUBOOT_TESTS_UNIT_RECORD_ASSERTS_H
#define PMUBOOT_TESTS_UNIT_RECORD_ASSERTS_H

#include <stdio.h>
#include <string.h>

#include "tests/fake/capture.h"

/* The captured records of one type, in order: up to cap_n of them in out; returns how many. */
static inline size_t records_of_type(const struct capture *c, const char *type, const char **out, size_t cap_n)
{
	char needle[64];
	size_t n = 0;
	snprintf(needle, sizeof(needle), "{\"type\":\"%s\"", type);
	for (size_t i = 0; i < capture_record_count(c); i++) {
		const char *r = capture_record(c, i);
		if (!strncmp(r, needle, strlen(needle)) && n < cap_n)
			out[n++] = r;
	}
	return n;
}

/* Fails the test, showing the record, when it lacks the fragment. */
static inline void record_has(const char *rec, const char *frag)
{
	assert_non_null(rec);
	if (!strstr(rec, frag))
		fail_msg("lacks %s: %s", frag, rec);
}

#endif
