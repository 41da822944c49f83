/*
 * output/screen_json.h - reading fields back out of a record's JSON text.
 *
 * The screen is fed the same `@pmuboot {json}` lines as the serial port and
 * the results file, so it needs to look a few fields up again.  The reader
 * is strict about structure (a malformed text yields "not found", never a
 * read past the end) and does no allocation.
 */
#ifndef PMUBOOT_OUTPUT_SCREEN_JSON_H
#define PMUBOOT_OUTPUT_SCREEN_JSON_H

#include "lib/libc.h"

/* One JSON value inside the record text: [p, p + len). */
struct sj {
	const char *p;
	size_t len;
};

/* The whole object of a record line ("@pmuboot {...}"), or false. */
bool sj_record(const char *line, size_t len, struct sj *obj);
/* The member at a dotted path ("cycles.median") of an object; false when absent. */
bool sj_get(const struct sj *obj, const char *path, struct sj *out);
/* The value as text: strings unquoted and unescaped (non-ASCII as '?'), others as written.  "" if absent. */
const char *sj_text(const struct sj *obj, const char *path, char *buf, size_t cap);
bool sj_is(const struct sj *obj, const char *path, const char *literal);	/* e.g. "true", "null" */
/* Members of an object or elements of an array, or 0. */
size_t sj_count(const struct sj *v);
/* The i-th element of an array; false when there is none. */
bool sj_element(const struct sj *arr, size_t i, struct sj *val);
/* The i-th member of an object: its key (unquoted) and value. */
bool sj_member(const struct sj *obj, size_t i, char *key, size_t key_cap, struct sj *val);

#endif
