/*
 * Fuzz target: the HTTP response parser (net/http.c), fed as boot/http_tcp4.c
 * feeds it what the network brings: the first byte chooses how the bytes
 * are cut into pieces, whether the peer then closes, and whether the body
 * goes to a small caller's buffer; the rest is the response.  The same
 * bytes are also read as an upload URL and an upload= value.
 *
 * Properties beyond not crashing: the parser never takes more than it is
 * given, never stores more body than its room, ends in one state, and
 * gives the same answer however the bytes are cut; a URL it accepts is
 * written back as text that parses to the same URL.
 */
#include "tests/fuzz/fuzz.h"
#include "net/http.h"
#include "net/upload_spec.h"

#define STEP_MASK 0x3f
#define EOF_BIT 0x40
#define SMALL_BIT 0x80
#define SMALL_BODY 32

static void run(struct http_response *r, uint8_t *body, const uint8_t *p, size_t n, size_t step, bool eof)
{
	http_response_init(r, body, body ? SMALL_BODY : 0);
	for (size_t at = 0; at < n;) {
		size_t k = n - at < step ? n - at : step;
		size_t used = http_response_feed(r, p + at, k);
		FUZZ_CHECK(used <= k);
		if (used < k) {
			FUZZ_CHECK(http_response_done(r) || http_response_failed(r));
			break;
		}
		at += k;
	}
	if (eof)
		http_response_eof(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct http_response a, b;
	static uint8_t body_a[SMALL_BODY], body_b[SMALL_BODY];
	if (size < 1)
		return 0;
	size_t step = (size_t)(data[0] & STEP_MASK) + 1;
	bool eof = data[0] & EOF_BIT, small = data[0] & SMALL_BIT;
	const uint8_t *p = data + 1;
	size_t n = size - 1;

	run(&a, small ? body_a : NULL, p, n, step, eof);
	FUZZ_CHECK(!(http_response_done(&a) && http_response_failed(&a)));
	FUZZ_CHECK(a.body_len <= a.body_cap && a.body_len <= a.body_seen);
	if (http_response_failed(&a))
		FUZZ_CHECK(a.error != NULL);
	if (http_response_done(&a)) {
		FUZZ_CHECK(a.status >= 200 && a.status <= 599);
		if (a.have_length && !a.chunked && !a.no_body)
			FUZZ_CHECK(a.body_seen == a.content_length);
	}
	/* All at once: the same answer. */
	run(&b, small ? body_b : NULL, p, n, n ? n : 1, eof);
	FUZZ_CHECK(a.state == b.state && a.status == b.status && a.body_len == b.body_len &&
		   a.body_seen == b.body_seen && a.body_cut == b.body_cut);
	FUZZ_CHECK(memcmp(a.body, b.body, a.body_len) == 0);

	struct http_url u, again;
	char why[160], text[HTTP_HOST_MAX + HTTP_PATH_MAX + 16];
	why[0] = 0;
	if (http_url_parse((const char *)p, n, &u, why, sizeof(why))) {
		FUZZ_CHECK(u.path[0] == '/' && u.port != 0 && u.host[0]);
		size_t len = http_url_text(&u, text, sizeof(text));
		FUZZ_CHECK(len < sizeof(text));
		FUZZ_CHECK(http_url_parse(text, len, &again, why, sizeof(why)));
		FUZZ_CHECK(!strcmp(u.host, again.host) && u.port == again.port && !strcmp(u.path, again.path));
	} else {
		FUZZ_CHECK(why[0] != 0);
	}
	struct upload_spec s;
	why[0] = 0;
	if (!upload_spec_parse((const char *)p, n, &s, why, sizeof(why)))
		FUZZ_CHECK(!s.on && why[0] != 0);
	return 0;
}
