/* Fuzz target: the strict JSON reader (lib/json_read_host.c) on any bytes. */
#include "tests/fuzz/fuzz.h"
#include "lib/json_read.h"

static size_t walk(const struct json_value *v, int depth)
{
	size_t n = 1;
	FUZZ_CHECK(depth <= JSON_READ_MAX_DEPTH + 1);
	if (v->type == JSON_STRING || v->type == JSON_NUMBER)
		FUZZ_CHECK(v->str && v->str[v->len] == '\0');
	for (const struct json_value *c = v->child; c; c = c->next) {
		if (v->type == JSON_OBJECT)
			FUZZ_CHECK(c->key && c->key[c->key_len] == '\0');
		n += walk(c, depth + 1);
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_doc doc;
	char err[120];

	if (json_parse(&doc, (const char *)data, size, err, sizeof(err))) {
		/* Every value takes at least one byte of input. */
		FUZZ_CHECK(walk(doc.root, 0) <= size);
		uint64_t v;
		(void)json_u64(doc.root, &v);
		(void)json_get(doc.root, "type");
		json_free(&doc);
	} else {
		FUZZ_CHECK(err[0] != '\0');
		FUZZ_CHECK(doc.root == NULL && doc.mem == NULL);
	}
	return 0;
}
