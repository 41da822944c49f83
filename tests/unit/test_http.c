/* net/http.c: upload URLs, the request head byte for byte, and the response parser on canned bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "net/http.h"

static bool url(const char *s, struct http_url *u, char *why)
{
	return http_url_parse(s, strlen(s), u, why, 160);
}

static void urls(void **state)
{
	(void)state;
	struct http_url u;
	char why[160], text[400];

	assert_true(url("http://10.0.2.2:8080/api/runs", &u, why));
	assert_string_equal(u.host, "10.0.2.2");
	assert_true(u.is_ipv4);
	assert_memory_equal(u.ipv4, "\x0a\x00\x02\x02", 4);
	assert_int_equal(u.port, 8080);
	assert_string_equal(u.path, "/api/runs");
	http_url_text(&u, text, sizeof(text));
	assert_string_equal(text, "http://10.0.2.2:8080/api/runs");

	/* A name, the default port, no path; the scheme in any case. */
	assert_true(url("HTTP://collector.lab", &u, why));
	assert_string_equal(u.host, "collector.lab");
	assert_false(u.is_ipv4);
	assert_int_equal(u.port, 80);
	assert_string_equal(u.path, "/");
	http_url_text(&u, text, sizeof(text));
	assert_string_equal(text, "http://collector.lab/");
	assert_true(url("http://h/runs?machine=7", &u, why));
	assert_string_equal(u.path, "/runs?machine=7");
	/* Four numbers that are not an address are a name. */
	assert_true(url("http://10.0.2.300/x", &u, why));
	assert_false(u.is_ipv4);

	const struct {
		const char *text, *why;
	} bad[] = {
		{ "https://h/x", "TLS" },
		{ "ftp://h/x", "not an http:// URL" },
		{ "http:///x", "no host" },
		{ "http://user@h/x", "user@" },
		{ "http://[::1]/x", "IPv6" },
		{ "http://h:0/x", "bad port" },
		{ "http://h:65536/x", "bad port" },
		{ "http://h:80x/x", "bad port" },
		{ "http://h:/x", "bad port" },
		{ "http://h/a b", "space" },
		{ "http://h/a#frag", "'#'" },
		{ "http://h?x", "start with '/'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		assert_false(url(bad[i].text, &u, why));
		if (!strstr(why, bad[i].why))
			fail_msg("%s: why '%s' lacks '%s'", bad[i].text, why, bad[i].why);
	}
}

static void sibling_urls(void **state)
{
	(void)state;
	struct http_url u, s;
	char why[160], text[400];
	assert_true(url("http://10.0.0.5/boot/pmuboot/BOOTX64.EFI", &u, why));
	assert_true(http_url_sibling(&u, "pmuboot-525400123456.cfg", &s));
	http_url_text(&s, text, sizeof(text));
	assert_string_equal(text, "http://10.0.0.5/boot/pmuboot/pmuboot-525400123456.cfg");
	assert_true(url("http://10.0.0.5:81/BOOTX64.EFI?x=/y", &u, why));
	assert_true(http_url_sibling(&u, "pmuboot.cfg", &s));
	assert_string_equal(s.path, "/pmuboot.cfg");
}

/* The request head: exactly these bytes (RFC 9112 §3, §5; RFC 9110 §7.2 Host with a non-default port). */
static void request_head(void **state)
{
	(void)state;
	struct http_url u;
	struct http_request rq;
	char why[160], head[1024];
	assert_true(url("http://10.0.2.2:8080/api/runs", &u, why));
	memset(&rq, 0, sizeof(rq));
	rq.method = HTTP_POST;
	rq.url = &u;
	rq.user_agent = "pmuboot/0.1.0";
	rq.content_type = "application/x-ndjson";
	rq.token = "tok-123";
	rq.extra_name = "X-Pmuboot-Upload";
	rq.extra_value = "final";
	rq.body_len = 15114;
	assert_true(http_request_prepare(&rq, why, sizeof(why)));
	size_t n = http_request_head(&rq, head, sizeof(head));
	static const char want[] = "POST /api/runs HTTP/1.1\r\n"
				   "Host: 10.0.2.2:8080\r\n"
				   "User-Agent: pmuboot/0.1.0\r\n"
				   "Content-Type: application/x-ndjson\r\n"
				   "Content-Length: 15114\r\n"
				   "Authorization: Bearer tok-123\r\n"
				   "X-Pmuboot-Upload: final\r\n"
				   "Connection: close\r\n"
				   "\r\n";
	assert_string_equal(head, want);
	assert_int_equal(n, strlen(want));
	/* The same headers go to EFI_HTTP_PROTOCOL as pairs. */
	assert_int_equal(rq.nheaders, 7);
	assert_string_equal(rq.headers[0].name, "Host");
	assert_string_equal(rq.headers[3].value, "15114");

	/* GET: no body headers; port 80 is left out of Host; no token, no Authorization. */
	assert_true(url("http://boot.lab/pmuboot/pmuboot.cfg", &u, why));
	memset(&rq, 0, sizeof(rq));
	rq.method = HTTP_GET;
	rq.url = &u;
	rq.token = "";
	assert_true(http_request_prepare(&rq, why, sizeof(why)));
	http_request_head(&rq, head, sizeof(head));
	assert_string_equal(head, "GET /pmuboot/pmuboot.cfg HTTP/1.1\r\nHost: boot.lab\r\nConnection: close\r\n\r\n");
	/* Too small a buffer: 0, never half a head. */
	assert_int_equal(http_request_head(&rq, head, 20), 0);
}

static void request_refuses_header_injection(void **state)
{
	(void)state;
	struct http_url u;
	struct http_request rq;
	char why[160];
	assert_true(url("http://10.0.2.2/x", &u, why));
	const char *tokens[] = { "a b", "a\r\nX-Evil: 1", "a\tb" };
	for (size_t i = 0; i < 3; i++) {
		memset(&rq, 0, sizeof(rq));
		rq.method = HTTP_POST;
		rq.url = &u;
		rq.token = tokens[i];
		why[0] = 0;
		assert_false(http_request_prepare(&rq, why, sizeof(why)));
		assert_non_null(strstr(why, "token"));
	}
	memset(&rq, 0, sizeof(rq));
	rq.method = HTTP_POST;
	rq.url = &u;
	rq.extra_name = "X-Kind";
	rq.extra_value = "live\r\nHost: elsewhere";
	assert_false(http_request_prepare(&rq, why, sizeof(why)));
}

/* Feed a whole response split every `step` bytes; returns the parser's final state. */
static void feed(struct http_response *r, const char *text, size_t step, bool eof)
{
	size_t n = strlen(text), at = 0;
	while (at < n) {
		size_t k = n - at < step ? n - at : step;
		size_t used = http_response_feed(r, (const uint8_t *)text + at, k);
		assert_true(used <= k);
		if (used < k)
			break;	/* the response ended (or failed) inside this piece */
		at += k;
	}
	if (eof)
		http_response_eof(r);
}

static const char created[] = "HTTP/1.1 201 Created\r\n"
			      "Content-Type: application/json\r\n"
			      "content-length: 16\r\n"
			      "\r\n"
			      "{\"stored\": true}";

static void response_with_length_at_any_split(void **state)
{
	(void)state;
	for (size_t step = 1; step <= sizeof(created); step++) {
		struct http_response r;
		http_response_init(&r, NULL, 0);
		feed(&r, created, step, false);
		assert_true(http_response_done(&r));	/* no close needed: the length says where it ends */
		assert_int_equal(r.status, 201);
		assert_int_equal(r.minor_version, 1);
		assert_int_equal(r.body_len, 16);
		assert_memory_equal(r.body, "{\"stored\": true}", 16);
		assert_false(r.body_cut);
	}
	/* Bytes after the response are not its own. */
	struct http_response r;
	char two[sizeof(created) + 8];
	snprintf(two, sizeof(two), "%sEXTRA", created);
	http_response_init(&r, NULL, 0);
	assert_int_equal(http_response_feed(&r, (const uint8_t *)two, strlen(two)), strlen(created));
}

static const char chunked[] = "HTTP/1.1 200 OK\r\n"
			      "Transfer-Encoding: gzip, chunked\r\n"
			      "\r\n"
			      "5;ext=1\r\nhello\r\n"
			      "1\r\n \r\n"
			      "6\r\nworld!\r\n"
			      "0\r\n"
			      "X-Trailer: yes\r\n"
			      "\r\n";

static void chunked_response_at_any_split(void **state)
{
	(void)state;
	for (size_t step = 1; step <= sizeof(chunked); step++) {
		struct http_response r;
		uint8_t body[64];
		http_response_init(&r, body, sizeof(body));
		feed(&r, chunked, step, false);
		assert_true(http_response_done(&r));
		assert_int_equal(r.status, 200);
		assert_int_equal(r.body_len, 12);
		assert_memory_equal(body, "hello world!", 12);
	}
}

static void response_to_the_close_and_interim(void **state)
{
	(void)state;
	struct http_response r;
	/* HTTP/1.0 with no length: the body runs to the close (RFC 9112 §6.3). */
	http_response_init(&r, NULL, 0);
	feed(&r, "HTTP/1.0 200 OK\nServer: x\n\nall of it", 7, false);
	assert_false(http_response_done(&r));
	http_response_eof(&r);
	assert_true(http_response_done(&r));
	assert_int_equal(r.minor_version, 0);
	assert_int_equal(r.body_len, 9);
	/* 100 Continue first, then the answer. */
	http_response_init(&r, NULL, 0);
	feed(&r, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 409 Conflict\r\nContent-Length: 2\r\n\r\nno", 3, false);
	assert_true(http_response_done(&r));
	assert_int_equal(r.status, 409);
	assert_memory_equal(r.body, "no", 2);
	/* 204: never a body, whatever the headers say. */
	http_response_init(&r, NULL, 0);
	feed(&r, "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", 4, false);
	assert_true(http_response_done(&r));
	assert_int_equal(r.body_len, 0);
	/* A body longer than the room: the first bytes kept, the rest counted. */
	uint8_t small[4];
	http_response_init(&r, small, sizeof(small));
	feed(&r, created, 9, false);
	assert_true(http_response_done(&r));
	assert_true(r.body_cut);
	assert_int_equal(r.body_len, 4);
	assert_int_equal(r.body_seen, 16);
	assert_memory_equal(small, "{\"st", 4);
}

static void bad_responses_say_why(void **state)
{
	(void)state;
	static char longline[1200];
	memset(longline, 'a', sizeof(longline) - 1);
	memcpy(longline, "HTTP/1.1 200 OK\r\nX: ", 20);
	const struct {
		const char *text;
		bool eof;
		const char *why;
	} bad[] = {
		{ "SSH-2.0-OpenSSH\r\n", false, "HTTP/1.x status line" },
		{ "HTTP/1.1 2x1 OK\r\n", false, "three-digit" },
		{ "HTTP/1.1 999 Huh\r\n", false, "three-digit" },
		{ "HTTP/1.1 200OK\r\n", false, "three-digit" },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", false, "two different" },
		{ "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, "not a number" },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", false, "not a number" },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", false, "transfer coding" },
		{ "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n", false, "folds" },
		{ "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", false, "no name or no ':'" },
		{ "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", false, "header name" },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, "chunk size" },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", false, "longer than its size" },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true, "before the end of the response body" },
		{ "HTTP/1.1 200 OK\r\nContent-", true, "middle of the response head" },
		{ "", true, "without a response" },
		{ longline, false, "longer than 1024" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct http_response r;
		http_response_init(&r, NULL, 0);
		feed(&r, bad[i].text, 5, bad[i].eof);
		if (!http_response_failed(&r) || !strstr(r.error, bad[i].why))
			fail_msg("case %zu: state %d, error '%s', want '%s'", i, r.state, r.error ? r.error : "(none)",
				 bad[i].why);
	}
	/* A NUL in the head. */
	struct http_response r;
	http_response_init(&r, NULL, 0);
	http_response_feed(&r, (const uint8_t *)"HTTP/1.1 200\0 OK\r\n", 18);
	assert_true(http_response_failed(&r));
	assert_non_null(strstr(r.error, "NUL"));
}

static void statuses(void **state)
{
	(void)state;
	/* UEFI's EFI_HTTP_STATUS_CODE indexes: 201 arrives as 4 (../shared/reference/fleet.md, seen in OVMF). */
	assert_int_equal(http_status_from_efi(0), 0);
	assert_int_equal(http_status_from_efi(3), 200);
	assert_int_equal(http_status_from_efi(4), 201);
	assert_int_equal(http_status_from_efi(16), 307);	/* there is no 306 */
	assert_int_equal(http_status_from_efi(17), 400);
	assert_int_equal(http_status_from_efi(26), 409);
	assert_int_equal(http_status_from_efi(30), 413);
	assert_int_equal(http_status_from_efi(35), 500);
	assert_int_equal(http_status_from_efi(40), 505);
	assert_int_equal(http_status_from_efi(41), 308);	/* appended in UEFI 2.8 */
	assert_int_equal(http_status_from_efi(42), 0);
	assert_int_equal(http_status_from_efi(0xffffffffu), 0);
	assert_true(http_status_retryable(503) && http_status_retryable(500) && http_status_retryable(408) &&
		    http_status_retryable(429));
	assert_false(http_status_retryable(400) || http_status_retryable(401) || http_status_retryable(409) ||
		     http_status_retryable(413) || http_status_retryable(201));
	assert_true(http_status_ok(200) && http_status_ok(201) && !http_status_ok(199) && !http_status_ok(300));
	assert_true(http_status_absent(404) && http_status_absent(410) && !http_status_absent(403));
}

/* The numbers in URLs and headers (lib/decimal.h): bounded, never wrapped. */
static void numbers_in_urls_and_headers(void **state)
{
	(void)state;
	struct http_url u;
	char why[160];
	uint64_t n = 0;
	assert_true(url("http://255.0.10.1:65535/", &u, why));
	assert_true(u.is_ipv4);
	assert_memory_equal(u.ipv4, "\xff\x00\x0a\x01", 4);
	assert_int_equal(u.port, 65535);
	/* Not dotted quads: a name then, for the firmware's DNS. */
	const char *names[] = { "http://1.2.3.256/", "http://1.2.3/", "http://1.2.3.4.5/", "http://0001.2.3.4/",
				"http://1..3.4/", "http://1.2.3.4./" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_true(url(names[i], &u, why));
		if (u.is_ipv4)
			fail_msg("%s read as an IPv4 address", names[i]);
	}
	const char *bad_ports[] = { "http://h:0/", "http://h:65536/", "http://h:/", "http://h:18446744073709551697/",
				    "http://h:80x/" };
	for (size_t i = 0; i < sizeof(bad_ports) / sizeof(bad_ports[0]); i++) {
		assert_false(url(bad_ports[i], &u, why));
		assert_non_null(strstr(why, "bad port"));
	}
	assert_true(http_content_length("0", 1, &n));
	assert_int_equal(n, 0);
	assert_true(http_content_length("999999999999999", 15, &n));
	assert_false(http_content_length("1000000000000000", 16, &n));
	assert_false(http_content_length("18446744073709551617", 20, &n));
	assert_false(http_content_length("12 ", 3, &n));
	assert_false(http_content_length("", 0, &n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(urls),
		cmocka_unit_test(sibling_urls),
		cmocka_unit_test(request_head),
		cmocka_unit_test(request_refuses_header_injection),
		cmocka_unit_test(response_with_length_at_any_split),
		cmocka_unit_test(chunked_response_at_any_split),
		cmocka_unit_test(response_to_the_close_and_interim),
		cmocka_unit_test(bad_responses_say_why),
		cmocka_unit_test(statuses),
		cmocka_unit_test(numbers_in_urls_and_headers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
