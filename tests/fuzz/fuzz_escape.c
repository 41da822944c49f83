/*
 * Fuzz target: strings from outside on their way out -- JSON escaping in
 * records (lib/json.c, lib/record.c) and text-line escaping (lib/out.c).
 * A record holding any bytes is one valid JSON line that reads back to
 * those bytes (as Latin-1); a text line holding them is one clean line.
 */
#include "tests/fuzz/fuzz.h"
#include "lib/json.h"
#include "lib/json_read.h"
#include "lib/record.h"

/* The UTF-8 of s[0..n) read as Latin-1, which is what json_escape promises to keep. */
static size_t latin1_to_utf8(const uint8_t *s, size_t n, char *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0x80) {
			out[k++] = (char)s[i];
		} else {
			out[k++] = (char)(0xc0 | (s[i] >> 6));
			out[k++] = (char)(0x80 | (s[i] & 0x3f));
		}
	}
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct capture cap;
	static struct rec r;
	const char *s = (const char *)data;

	if (size > 2048)
		return 0;
	/* json_escape alone: the size it reports is what it needs. */
	char *esc = malloc(6 * size + 1);
	size_t need = json_escape(esc, 6 * size + 1, s, size);
	FUZZ_CHECK(need <= 6 * size && strlen(esc) == need);
	for (size_t i = 0; i < need; i++)
		FUZZ_CHECK(esc[i] >= 0x20 && esc[i] < 0x7f);
	free(esc);

	capture_start(&cap);
	rec_start(&r, "fuzz");
	rec_strn(&r, "s", s, size);
	rec_emit(&r);
	char *text = fuzz_text(data, size);
	out_text("text: %s", text);
	rec_error(text, text, "%s", text);
	FUZZ_CHECK(capture_record_count(&cap) == 2);
	fuzz_check_text_lines(&cap);

	/* The record reads back, and its string is the input. */
	const char *js = capture_record(&cap, 0);
	struct json_doc doc;
	char err[120];
	FUZZ_CHECK(json_parse(&doc, js, strlen(js), err, sizeof(err)));
	const struct json_value *v = json_get(doc.root, "s");
	char *want = malloc(2 * size + 1);
	size_t wl = latin1_to_utf8(data, size, want);
	bool truncated = json_get(doc.root, "truncated") != NULL;
	FUZZ_CHECK(truncated || (v && v->type == JSON_STRING && v->len == wl && memcmp(v->str, want, wl) == 0));
	json_free(&doc);
	js = capture_record(&cap, 1);
	FUZZ_CHECK(json_parse(&doc, js, strlen(js), err, sizeof(err)));
	json_free(&doc);
	free(want);
	free(text);
	capture_free(&cap);
	return 0;
}
