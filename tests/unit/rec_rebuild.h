/*
 * Record lines made again through the builder (lib/record.h), for the tests of what reads records by their
 * fields (the screen, the spool, the index itself): a line of a capture or of tests/unit/screen_records.h
 * is parsed (lib/json_read.h), each value written with the call that writes it (rec_str, rec_u64,
 * rec_milli ...), and the record emitted to the sinks as the program emits its own.  A line the builder
 * could not have made (not an object led by "type", a number no rec_* call writes) is refused.
 */
#ifndef PMUBOOT_TESTS_UNIT_REC_REBUILD_H
#define PMUBOOT_TESTS_UNIT_REC_REBUILD_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_read.h"
#include "lib/out.h"
#include "lib/record.h"

/*
 * The number's text as one rec_* call writes it: -?digits (rec_u64, rec_i64) or -?digits.ddd (rec_milli).
 * With r NULL only checked.
 */
static bool rebuild_number(struct rec *r, const char *key, const struct json_value *v)
{
	const char *s = v->str, *dot = strchr(s, '.');
	char *end;
	errno = 0;
	if (!dot) {
		if (s[0] == '-') {
			long long n = strtoll(s, &end, 10);
			if (errno || *end)
				return false;
			if (r)
				rec_i64(r, key, n);
		} else {
			unsigned long long n = strtoull(s, &end, 10);
			if (errno || *end)
				return false;
			if (r)
				rec_u64(r, key, n);
		}
		return true;
	}
	if (strlen(dot + 1) != 3 || strspn(dot + 1, "0123456789") != 3)
		return false;
	long long whole = strtoll(s, &end, 10);
	if (errno || end != dot || whole > INT64_MAX / 1000 || whole < -(INT64_MAX / 1000))
		return false;
	long long frac = atoll(dot + 1);
	if (r)
		rec_milli(r, key, whole * 1000 + (s[0] == '-' ? -frac : frac));
	return true;
}

/* Every number in v is one the builder writes. */
static bool makeable(const struct json_value *v)
{
	if (v->type == JSON_NUMBER)
		return rebuild_number(NULL, NULL, v);
	for (const struct json_value *c = v->child; c; c = c->next)
		if (!makeable(c))
			return false;
	return true;
}

/* Write v (checked by makeable). */
static void rebuild_value(struct rec *r, const char *key, const struct json_value *v)
{
	const struct json_value *c;
	switch (v->type) {
	case JSON_NULL: rec_null(r, key); break;
	case JSON_TRUE: rec_bool(r, key, true); break;
	case JSON_FALSE: rec_bool(r, key, false); break;
	case JSON_NUMBER: rebuild_number(r, key, v); break;
	case JSON_STRING: rec_strn(r, key, v->str, v->len); break;
	case JSON_OBJECT:
	case JSON_ARRAY:
		(v->type == JSON_OBJECT ? rec_obj : rec_arr)(r, key);
		for (c = v->child; c; c = c->next)
			rebuild_value(r, v->type == JSON_OBJECT ? c->key : NULL, c);
		(v->type == JSON_OBJECT ? rec_obj_end : rec_arr_end)(r);
		break;
	}
}

/*
 * Start the record of line[0..len) ("@pmuboot {...}") in r and write its fields: the caller emits it.
 * False, nothing started, when the builder could not have made it.
 */
static bool rebuild(struct rec *r, const char *line, size_t len)
{
	struct json_doc doc;
	char err[128];
	size_t plen = strlen(REC_PREFIX);
	bool ok = false;

	if (len < plen || memcmp(line, REC_PREFIX, plen) || !json_parse(&doc, line + plen, len - plen, err, sizeof(err)))
		return false;
	const struct json_value *root = doc.root, *type = root->type == JSON_OBJECT ? root->child : NULL;
	if (type && type->type == JSON_STRING && !strcmp(type->key, "type") && !memchr(type->str, 0, type->len) &&
	    makeable(root)) {
		rec_start(r, type->str);
		for (const struct json_value *c = type->next; c; c = c->next)
			rebuild_value(r, c->key, c);
		ok = true;
	}
	json_free(&doc);
	return ok;
}

/* Build and emit the record of a line; false (nothing emitted) when the builder could not have made it. */
static bool rebuild_emit(const char *line, size_t len)
{
	struct rec r = { 0 };
	if (!rebuild(&r, line, len))
		return false;
	rec_emit(&r);
	return true;
}

#endif
