/* net/upload_spec.c (the upload= option) and net/retry.c (when an upload is tried again). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "net/retry.h"
#include "net/upload_spec.h"

static bool parse(const char *v, struct upload_spec *s, char *why)
{
	return upload_spec_parse(v, strlen(v), s, why, 160);
}

static void specs(void **state)
{
	(void)state;
	struct upload_spec s;
	char why[160];
	assert_true(parse("", &s, why));
	assert_false(s.on);
	assert_true(parse("OFF", &s, why));
	assert_false(s.on);
	assert_true(parse("http://10.0.2.2:8080/api/runs", &s, why));
	assert_true(s.on);
	assert_false(s.live);
	assert_int_equal(s.via, HTTP_VIA_AUTO);
	assert_int_equal(s.timeout_s, UPLOAD_TIMEOUT_DEFAULT_S);
	assert_int_equal(s.url.port, 8080);
	assert_true(parse("live,TCP4,http://c.lab/r,timeout=5", &s, why));
	assert_true(s.on && s.live);
	assert_int_equal(s.via, HTTP_VIA_TCP4);
	assert_int_equal(s.timeout_s, 5);
	assert_string_equal(s.url.host, "c.lab");
	assert_true(parse("http://c.lab/r,http", &s, why));
	assert_int_equal(s.via, HTTP_VIA_FIRMWARE);
	assert_string_equal(http_via_name(s.via), "http");

	const struct {
		const char *v, *why;
	} bad[] = {
		{ "live", "no URL" },
		{ "https://c.lab/r", "TLS" },
		{ "http://a/x,http://b/y", "two URLs" },
		{ "http://a/x,,live", "empty word" },
		{ "http://a/x,", "empty word" },
		{ "http://a/x,fast", "'fast' is not" },
		{ "http://a/x,timeout=0", "1..600" },
		{ "http://a/x,timeout=601", "1..600" },
		{ "http://a/x,timeout=5s", "1..600" },
		{ "http://a:99999/x", "bad URL" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		assert_false(parse(bad[i].v, &s, why));
		assert_false(s.on);
		if (!strstr(why, bad[i].why))
			fail_msg("%s: why '%s' lacks '%s'", bad[i].v, why, bad[i].why);
	}
}

static const struct retry_policy policy = { 4, 1000, 4000, 30000, 2000 };

static void waits_double_then_hold(void **state)
{
	(void)state;
	assert_int_equal(retry_wait_ms(&policy, 1), 1000);
	assert_int_equal(retry_wait_ms(&policy, 2), 2000);
	assert_int_equal(retry_wait_ms(&policy, 3), 4000);
	assert_int_equal(retry_wait_ms(&policy, 4), 4000);	/* capped */
	assert_int_equal(retry_wait_ms(&policy, 200), 4000);	/* no shift overflow */
}

/* The whole schedule against a collector that never answers quickly: every attempt takes 5 s. */
static void schedule_stays_inside_the_budget(void **state)
{
	(void)state;
	uint64_t t = 0, attempt_ms = policy.budget_ms;
	unsigned done = 0;
	int64_t waits[8];
	for (;;) {
		uint64_t took = attempt_ms < 5000 ? attempt_ms : 5000;
		t += took;
		done++;
		int64_t w = retry_next(&policy, done, t, &attempt_ms);
		if (w == RETRY_STOP)
			break;
		waits[done - 1] = w;
		assert_true(attempt_ms >= policy.min_attempt_ms);
		t += (uint64_t)w;
		assert_true(t + attempt_ms <= policy.budget_ms);
	}
	assert_int_equal(done, 4);	/* the attempts ran out first: 5 + 1 + 5 + 2 + 5 + 4 + 5 = 27 s */
	assert_int_equal(waits[0], 1000);
	assert_int_equal(waits[1], 2000);
	assert_int_equal(waits[2], 4000);
	assert_int_equal(t, 27000);
	assert_true(t <= policy.budget_ms);
}

static void budget_stops_before_attempts_do(void **state)
{
	(void)state;
	uint64_t attempt_ms;
	/* 8 s budget, a first attempt that took 5 s: a 1 s wait leaves 2 s, just enough. */
	struct retry_policy p = policy;
	p.budget_ms = 8000;
	assert_int_equal(retry_next(&p, 1, 5000, &attempt_ms), 1000);
	assert_int_equal(attempt_ms, 2000);
	/* 5.1 s spent: the attempt would get 1.9 s, under the minimum: stop. */
	assert_int_equal(retry_next(&p, 1, 5100, &attempt_ms), RETRY_STOP);
	assert_int_equal(attempt_ms, 0);
	/* The budget spent, or the attempts used up. */
	assert_int_equal(retry_next(&p, 1, 8000, &attempt_ms), RETRY_STOP);
	assert_int_equal(retry_next(&policy, 4, 0, &attempt_ms), RETRY_STOP);
	/* One attempt allowed: never a second. */
	p.max_attempts = 1;
	assert_int_equal(retry_next(&p, 1, 0, &attempt_ms), RETRY_STOP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(specs),
		cmocka_unit_test(waits_double_then_hold),
		cmocka_unit_test(schedule_stays_inside_the_budget),
		cmocka_unit_test(budget_stops_before_attempts_do),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
