/* net/upload_attempt.c: the upload's request, retry policy, verdicts and shown response; net/http.c's route. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "net/upload_attempt.h"

static struct upload_spec spec(const char *v)
{
	struct upload_spec s;
	char why[160];
	assert_true(upload_spec_parse(v, strlen(v), &s, why, sizeof(why)));
	return s;
}

static void request_is_the_records_post(void **state)
{
	(void)state;
	struct upload_spec s = spec("http://10.0.2.2:8080/runs");
	struct http_request rq;
	char why[160], head[1024];
	upload_request(&rq, &s, "abc", true, 1234, "pmuboot/test");
	assert_true(http_request_prepare(&rq, why, sizeof(why)));
	assert_true(http_request_head(&rq, head, sizeof(head)) > 0);
	assert_string_equal(head, "POST /runs HTTP/1.1\r\n"
				  "Host: 10.0.2.2:8080\r\n"
				  "User-Agent: pmuboot/test\r\n"
				  "Content-Type: application/x-ndjson\r\n"
				  "Content-Length: 1234\r\n"
				  "Authorization: Bearer abc\r\n"
				  "X-Pmuboot-Upload: final\r\n"
				  "Connection: close\r\n\r\n");
	upload_request(&rq, &s, NULL, false, 0, "pmuboot/test");
	assert_true(http_request_prepare(&rq, why, sizeof(why)));
	assert_string_equal(rq.extra_value, "live");
	assert_null(rq.token);
}

static void policy_follows_the_way(void **state)
{
	(void)state;
	struct upload_spec s = spec("http://c/r,tcp4");
	struct retry_policy p = upload_policy(&s, 30000, 4);
	assert_int_equal(p.max_attempts, 4);
	assert_int_equal(p.budget_ms, 30000);
	assert_int_equal(p.min_attempt_ms, UPLOAD_MIN_ATTEMPT_MS);
	/* The firmware's HTTP waits 5 s inside Response(): an attempt through it wants more left. */
	s = spec("http://c/r");
	p = upload_policy(&s, 30000, 4);
	assert_true(p.min_attempt_ms > 5000);
	assert_true(p.first_wait_ms > 0 && p.first_wait_ms <= p.max_wait_ms);
}

static void verdicts(void **state)
{
	(void)state;
	char why[160];
	assert_int_equal(upload_judge(true, 201, false, "", why, sizeof(why)), UPLOAD_STORED);
	assert_string_equal(why, "");
	assert_int_equal(upload_judge(true, 503, false, "", why, sizeof(why)), UPLOAD_TRY_AGAIN);
	assert_string_equal(why, "the collector answered HTTP 503");
	assert_int_equal(upload_judge(true, 429, false, "", why, sizeof(why)), UPLOAD_TRY_AGAIN);
	assert_int_equal(upload_judge(true, 403, true, "", why, sizeof(why)), UPLOAD_GIVE_UP);
	assert_string_equal(why, "the collector answered HTTP 403");
	/* No answer: the client's own judgement of whether another try may fare better. */
	assert_int_equal(upload_judge(false, 0, true, "tcp4: could not connect", why, sizeof(why)), UPLOAD_TRY_AGAIN);
	assert_string_equal(why, "tcp4: could not connect");
	assert_int_equal(upload_judge(false, 0, false, "tcp4: no TCP4", why, sizeof(why)), UPLOAD_GIVE_UP);
}

static void shown_response_is_printable(void **state)
{
	(void)state;
	char out[8];
	upload_shown_response((const uint8_t *)"ok\r\n\x01z  ", 9, out, sizeof(out));
	assert_string_equal(out, "ok   z");
	upload_shown_response((const uint8_t *)"stored as run 42", 16, out, sizeof(out));
	assert_string_equal(out, "stored");	/* cut to fit, the trailing space dropped */
	upload_shown_response((const uint8_t *)"x", 1, out, 1);
	assert_string_equal(out, "");
	upload_shown_response(NULL, 0, out, sizeof(out));
	assert_string_equal(out, "");
	assert_string_equal(upload_protocol_name("tcp4"), "EFI_TCP4_PROTOCOL");
	assert_string_equal(upload_protocol_name("http"), "EFI_HTTP_PROTOCOL");
	assert_null(upload_protocol_name(NULL));
}

static void route_after_the_firmware(void **state)
{
	(void)state;
	/* A whole response is the answer, except an unsized GET where our client can read it whole. */
	assert_int_equal(http_route_after_firmware(HTTP_VIA_AUTO, true, false, false), HTTP_ROUTE_DONE);
	assert_int_equal(http_route_after_firmware(HTTP_VIA_AUTO, true, false, true), HTTP_ROUTE_TCP4);
	assert_int_equal(http_route_after_firmware(HTTP_VIA_FIRMWARE, true, false, true), HTTP_ROUTE_DONE);
	/* Refused before anything was sent: tcp4 tries, unless the firmware's was asked for alone. */
	assert_int_equal(http_route_after_firmware(HTTP_VIA_AUTO, false, true, false), HTTP_ROUTE_TCP4);
	assert_int_equal(http_route_after_firmware(HTTP_VIA_FIRMWARE, false, true, false), HTTP_ROUTE_FAILED);
	/* A failure part-way is not tried again here (the retry schedule decides). */
	assert_int_equal(http_route_after_firmware(HTTP_VIA_AUTO, false, false, false), HTTP_ROUTE_FAILED);
	assert_string_equal(http_via_name(HTTP_VIA_AUTO), "auto");
	assert_string_equal(http_via_name(HTTP_VIA_FIRMWARE), "http");
	assert_string_equal(http_via_name(HTTP_VIA_TCP4), "tcp4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(request_is_the_records_post),
		cmocka_unit_test(policy_follows_the_way),
		cmocka_unit_test(verdicts),
		cmocka_unit_test(shown_response_is_printable),
		cmocka_unit_test(route_after_the_firmware),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
