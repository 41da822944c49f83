/* The strict JSON reader and the capture run checker used by pmuboot-host's readers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/capture.h"
#include "lib/json_read.h"
#include "lib/record.h"
#include "tests/fake/capture.h"

static bool parses(const char *s, size_t n)
{
	struct json_doc d;
	char err[120];
	bool ok = json_parse(&d, s, n, err, sizeof(err));
	json_free(&d);
	return ok;
}

static void accepts_every_json_form(void **state)
{
	(void)state;
	static const char *const good[] = {
		"0", "-0", "1.5e+10", "-12.25E-3", "1E5", "\"\"", "true", "false", "null", " [ ] ", "{}",
		"\t\r\n{\"a\" : [1 , 2, {\"b\":null}], \"c\": \"\\u00e9\\\"\\\\\\/\\b\\f\\n\\r\\t\"}\n",
		"\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",	/* 2-, 3- and 4-byte UTF-8 */
		"\"\\ud83d\\ude00\"", "\"\\ud800\"",		/* a pair, and a lone surrogate (grammar-valid) */
		"{\"type\": \"ibs_sample\", \"regs\": {\"IbsOpCtl\": \"0x60000\"}}",
		"123456789012345678901234567890",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!parses(good[i], strlen(good[i])))
			fail_msg("refused valid JSON %zu: %s", i, good[i]);
	assert_true(parses("\"a\\u0000b\"", 10));
}

static void refuses_everything_else(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", " ", "tttt", "tru", "nul", "True", "NaN", "Infinity", "-", "01", "1.", ".5", "1e", "+1", "0x10",
		"[1,]", "[,1]", "{\"a\":1,}", "{a:1}", "{'a':1}", "{\"a\" 1}", "[1 2]", "\"abc", "\"\\x41\"",
		"\"\\u12G4\"", "\"a\tb\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf5\x80\x80\x80\"", "\"\xe2\x82\"",
		"[1]]", "{} {}", "1 2", "[", "{", "{\"a\":}", "\xef\xbb\xbf{}", "\x0c{}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parses(bad[i], strlen(bad[i])))
			fail_msg("accepted invalid JSON %zu: %s", i, bad[i]);
	/* A NUL byte is not whitespace and cannot stand for a value. */
	assert_false(parses("{\"a\":\0}", 7));
	assert_false(parses("1\0", 2));
	assert_false(parses("\"a\0b\"", 5));
}

static void nesting_is_bounded(void **state)
{
	(void)state;
	char deep[2 * JSON_READ_MAX_DEPTH + 2];
	size_t n = 0;
	for (int i = 0; i < JSON_READ_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i < JSON_READ_MAX_DEPTH; i++)
		deep[n++] = ']';
	assert_true(parses(deep, n));
	char *deeper = malloc(200001);
	memset(deeper, '[', 100000);
	memset(deeper + 100000, ']', 100000);
	struct json_doc d;
	char err[120];
	assert_false(json_parse(&d, deeper, 200000, err, sizeof(err)));
	assert_non_null(strstr(err, "nesting too deep"));
	free(deeper);
}

static void values_and_errors(void **state)
{
	(void)state;
	struct json_doc d;
	char err[120];
	const char s[] = "{\"n\": 18446744073709551615, \"big\": 18446744073709551616, \"neg\": -1, \"f\": 1.5,"
			 " \"s\": \"x\\u0000y\", \"t\": \"ok\", \"k\": 1, \"k\": 2}";
	uint64_t v;
	assert_true(json_parse(&d, s, strlen(s), err, sizeof(err)));
	assert_true(json_u64(json_get(d.root, "n"), &v));
	assert_true(v == UINT64_MAX);
	assert_false(json_u64(json_get(d.root, "big"), &v));
	assert_false(json_u64(json_get(d.root, "neg"), &v));
	assert_false(json_u64(json_get(d.root, "f"), &v));
	assert_null(json_text(json_get(d.root, "s")));	/* holds a NUL */
	assert_string_equal(json_text(json_get(d.root, "t")), "ok");
	assert_true(json_u64(json_get(d.root, "k"), &v) && v == 2);	/* the last of a repeated key */
	assert_null(json_get(d.root, "missing"));
	json_free(&d);
	assert_false(json_parse(&d, "[1,,2]", 6, err, sizeof(err)));
	assert_string_equal(err, "value expected at byte 3");
}

/* A run as the program writes it, through the real record writer. */
static char *write_run(size_t *len, int extra_records)
{
	struct capture cap;
	static struct rec r;
	struct rec_stream_info info = { "1", "b", "test" };
	capture_start(&cap);
	rec_stream_begin(&info, NULL, NULL);
	for (int i = 0; i < extra_records; i++) {
		rec_start(&r, "x");
		rec_u64(&r, "i", (uint64_t)i);
		rec_emit(&r);
	}
	rec_stream_end();
	char *text = calloc(1, 65536);
	size_t n = 0;
	n += (size_t)snprintf(text + n, 65536 - n, "\x1b[0m\x1b[2JBdsDxe: noise @pmuboot {\"type\":\"end\"}\r\n");
	for (size_t i = 0; i < capture_record_count(&cap); i++)
		n += (size_t)snprintf(text + n, 65536 - n, "%s%s\r\n", REC_PREFIX, capture_record(&cap, i));
	capture_free(&cap);
	*len = n;
	return text;
}

static void runs_are_checked(void **state)
{
	(void)state;
	size_t len, n;
	char *text = write_run(&len, 3);
	struct capture_run *runs = capture_runs(text, len, &n);
	/* The prefix after noise on line 1 is text, not an end record. */
	assert_int_equal(n, 1);
	assert_true(runs[0].complete);
	assert_int_equal(runs[0].first_line, 2);
	assert_int_equal(runs[0].last_line, 6);
	free(runs);

	/* One digit changed: the CRC says so, naming the run. */
	char *p = strstr(text, "\"i\":1");
	p[4] = '7';
	runs = capture_runs(text, len, &n);
	assert_int_equal(n, 1);
	assert_false(runs[0].complete);
	assert_non_null(strstr(runs[0].problem, "CRC mismatch"));
	free(runs);

	/* Cut off before the end record. */
	runs = capture_runs(text, (size_t)(strrchr(text, '@') - text), &n);
	assert_int_equal(n, 1);
	assert_non_null(strstr(runs[0].problem, "no end record"));
	free(runs);
	free(text);
}

static void runs_are_found_by_line(void **state)
{
	(void)state;
	const char text[] = "{\"type\":\"x\"}\n"		/* 1: a stray record */
			    "text\n"
			    "@pmuboot {\"type\":\"begin\"}\n"	/* 3: run 2, cut short by the next begin */
			    "@pmuboot {\"type\":\"begin\"}\n"	/* 4: run 3 */
			    "text\n"
			    "@pmuboot {\"type\":\"end\"}\n";	/* 6 */
	size_t n;
	struct capture_run *runs = capture_runs(text, sizeof(text) - 1, &n);
	assert_int_equal(n, 3);
	assert_non_null(strstr(runs[0].problem, "before any begin"));
	assert_non_null(strstr(runs[1].problem, "no end record"));
	assert_non_null(strstr(runs[2].problem, "no record count or CRC"));
	assert_ptr_equal(capture_run_of_line(runs, n, 1), &runs[0]);
	assert_null(capture_run_of_line(runs, n, 2));
	assert_ptr_equal(capture_run_of_line(runs, n, 3), &runs[1]);
	assert_ptr_equal(capture_run_of_line(runs, n, 5), &runs[2]);
	assert_ptr_equal(capture_run_of_line(runs, n, 6), &runs[2]);
	assert_null(capture_run_of_line(runs, n, 7));
	free(runs);
}

static void record_lines_only_at_line_start(void **state)
{
	(void)state;
	const char *js;
	size_t jl;
	assert_true(capture_record_text("\x1b[0m\x1b]0;t\x07@pmuboot {\"type\":\"x\"}\r", 33, &js, &jl));
	assert_int_equal(jl, 14);
	assert_memory_equal(js, "{\"type\":\"x\"}", 12);
	assert_true(capture_record_text("{\"type\":\"x\"}", 12, &js, &jl));
	assert_false(capture_record_text("cpu: \"@pmuboot {\"", 17, &js, &jl));
	assert_false(capture_record_text(" @pmuboot {}", 12, &js, &jl));
	assert_false(capture_record_text("\x1b", 1, &js, &jl));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepts_every_json_form),
		cmocka_unit_test(refuses_everything_else),
		cmocka_unit_test(nesting_is_bounded),
		cmocka_unit_test(values_and_errors),
		cmocka_unit_test(runs_are_checked),
		cmocka_unit_test(runs_are_found_by_line),
		cmocka_unit_test(record_lines_only_at_line_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
