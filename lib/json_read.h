/*
 * lib/json_read.h - a strict JSON reader (RFC 8259), for the host tools.
 *
 * The image only writes JSON; pmuboot-host reads captures back.  The reader
 * takes exactly the JSON texts: any value at the top, surrounded by the four
 * whitespace characters only; strings of valid UTF-8 without raw control
 * characters; numbers in the RFC's grammar; nothing after the value.  Every
 * other input is refused with the reason and the byte offset.  Nesting
 * deeper than JSON_READ_MAX_DEPTH is refused too (RFC 8259 §9 lets a parser
 * set such a limit), so hostile input cannot exhaust the stack.
 *
 * The parsed tree lives in one malloc'd block freed by json_free.
 * Hosted builds only.
 */
#ifndef PMUBOOT_LIB_JSON_READ_H
#define PMUBOOT_LIB_JSON_READ_H

#include "lib/libc.h"

#define JSON_READ_MAX_DEPTH 64

enum json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_value {
	enum json_type type;
	/* JSON_STRING: the decoded bytes (UTF-8, NUL-terminated; may hold a NUL from \u0000).
	 * JSON_NUMBER: the number's text as written. */
	const char *str;
	size_t len;
	/* Members of an object or elements of an array, in order; key for object members. */
	struct json_value *child, *next;
	const char *key;
	size_t key_len;
};

struct json_doc {
	struct json_value *root;
	void *mem;
};

/* Parse s[0..n).  On failure returns false and writes the reason ("... at byte N") to err. */
bool json_parse(struct json_doc *doc, const char *s, size_t n, char *err, size_t err_cap);
void json_free(struct json_doc *doc);

/* An object's member by key (the last one when a key repeats, as most readers do), or NULL. */
const struct json_value *json_get(const struct json_value *obj, const char *key);
/* A string value without NUL bytes, or NULL. */
const char *json_text(const struct json_value *v);
/* A non-negative integer that fits 64 bits: a JSON number without fraction or exponent. */
bool json_u64(const struct json_value *v, uint64_t *out);
const char *json_type_name(enum json_type t);

#endif
