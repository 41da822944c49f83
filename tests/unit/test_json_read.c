/* The strict JSON reader and the capture reader (runs, records, problems) of pmuboot-host's readers. */
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

static struct capture_file read_text(const char *text, size_t len)
{
	struct capture_file c;
	assert_true(capture_file_read(&c, text, len));
	return c;
}

static void runs_are_checked(void **state)
{
	(void)state;
	size_t len;
	char *text = write_run(&len, 3);
	struct capture_file c = read_text(text, len);
	/* The prefix after noise on line 1 is text, not an end record; lines end at CR LF. */
	assert_true(c.serial);
	assert_int_equal(c.nruns, 1);
	assert_true(c.runs[0].complete);
	assert_string_equal(c.runs[0].problem, "");
	assert_int_equal(c.runs[0].first_line, 2);
	assert_int_equal(c.runs[0].last_line, 6);
	assert_int_equal(c.runs[0].end_line, 6);
	assert_int_equal(c.runs[0].count, 4);	/* begin and three records; the end is not counted */
	assert_int_equal(c.nrecords, 5);
	assert_int_equal(c.nproblems, 0);
	const struct capture_record_line *r = capture_file_record_at(&c, 3);
	assert_non_null(r);
	assert_true(r->valid && !r->end && r->run == 1);
	assert_memory_equal(r->json, "{\"type\":\"x\"", 11);
	assert_null(capture_file_record_at(&c, 1));
	assert_ptr_equal(capture_file_run_of(&c, r), &c.runs[0]);
	capture_file_free(&c);

	/* One digit changed: the CRC says so, naming the run. */
	char *p = strstr(text, "\"i\":1");
	p[4] = '7';
	c = read_text(text, len);
	assert_int_equal(c.nruns, 1);
	assert_false(c.runs[0].complete);
	assert_int_equal(c.nproblems, 1);
	assert_int_equal(c.problems[0].kind, CAPTURE_CRC_MISMATCH);
	assert_int_equal(c.problems[0].run, 1);
	assert_non_null(strstr(c.runs[0].problem, "CRC mismatch"));
	capture_file_free(&c);

	/* Cut off before the end record. */
	c = read_text(text, (size_t)(strrchr(text, '@') - text));
	assert_int_equal(c.nruns, 1);
	assert_int_equal(c.problems[0].kind, CAPTURE_NO_END);
	assert_non_null(strstr(c.runs[0].problem, "no end record"));
	capture_file_free(&c);
	free(text);
}

static void runs_records_and_problems(void **state)
{
	(void)state;
	const char text[] = "@pmuboot {\"type\":\"x\"}\n"		/* 1: a record before any begin */
			    "text\n"
			    "@pmuboot {\"type\":\"begin\"}\n"	/* 3: run 1, cut short by the next begin */
			    "@pmuboot {\"type\":\"begin\"}\r"	/* 4: run 2; a lone CR ends a line */
			    "x @pmuboot {}\n"			/* 5: damaged record line */
			    "@pmuboot {\"type\":NaN}\n"		/* 6: not JSON: counted, a problem */
			    "{\"type\":\"y\"}\n"			/* 7: a serial log: not a record */
			    "@pmuboot {\"type\":\"end\"}\n";	/* 8 */
	struct capture_file c = read_text(text, sizeof(text) - 1);
	assert_int_equal(c.lines, 9);
	assert_int_equal(c.nruns, 2);
	assert_int_equal(c.runs[0].first_line, 3);
	assert_int_equal(c.runs[0].end_line, 0);
	assert_int_equal(c.runs[1].first_line, 4);
	assert_int_equal(c.runs[1].end_line, 8);
	assert_int_equal(c.runs[1].count, 2);
	static const struct { enum capture_problem_kind kind; unsigned run, line; } want[] = {
		{ CAPTURE_BEFORE_BEGIN, 0, 1 }, { CAPTURE_NO_END, 1, 0 }, { CAPTURE_DAMAGED_LINE, 2, 5 },
		{ CAPTURE_BAD_RECORD, 2, 6 }, { CAPTURE_BAD_COUNT, 2, 0 }, { CAPTURE_BAD_CRC, 2, 0 },
	};
	assert_int_equal(c.nproblems, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < c.nproblems; i++) {
		assert_int_equal(c.problems[i].kind, want[i].kind);
		assert_int_equal(c.problems[i].run, want[i].run);
		assert_int_equal(c.problems[i].line, want[i].line);
	}
	assert_null(capture_file_record_at(&c, 7));
	assert_false(capture_file_record_at(&c, 6)->valid);
	assert_int_equal(capture_file_record_at(&c, 6)->run, 2);
	assert_null(capture_file_run_of(&c, capture_file_record_at(&c, 1)));
	assert_non_null(strstr(c.runs[1].problem, "line 5: damaged record line; line 6: record is not valid JSON"));
	assert_non_null(strstr(c.runs[1].problem, "; and 1 more problem(s)"));
	capture_file_free(&c);
}

/* What pmucap counts as a record: an object with a string type, finite numbers, integers of at most
 * 24 digits, nothing more than 16 levels down; the bytes read as Latin-1. */
static void records_are_what_pmucap_reads(void **state)
{
	(void)state;
	static const struct { const char *line; bool valid; } t[] = {
		{ "{\"type\":\"x\",\"v\":1e308}", true },
		{ "{\"type\":\"x\",\"v\":1e309}", false },
		{ "{\"type\":\"x\",\"v\":123456789012345678901234}", true },
		{ "{\"type\":\"x\",\"v\":-1234567890123456789012345}", false },
		{ "{\"type\":\"x\",\"v\":[Infinity]}", false },
		{ "{\"type\":\"\"}", false },
		{ "{\"type\":7}", false },
		{ "{\"t\":\"x\"}", false },
		{ "{\"type\":\"x\",\"s\":\"caf\xe9\"}", true },		/* Latin-1 e-acute */
		{ "{\"type\":\"x\",\"a\":[[[[[[[[[[[[[[1]]]]]]]]]]]]]]}", true },	/* 1 at level 16 */
		{ "{\"type\":\"x\",\"a\":[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]],\"b\":\"\"}", true },	/* 16 brackets only */
		{ "{\"type\":\"x\",\"a\":[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]],\"b\":\"[\"}", false },	/* 17: walked */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct capture_file c = read_text(t[i].line, strlen(t[i].line));
		assert_false(c.serial);
		assert_int_equal(c.nrecords, 1);
		if (c.records[0].valid != t[i].valid)
			fail_msg("%s: valid %d", t[i].line, c.records[0].valid);
		capture_file_free(&c);
	}
}

/* Serial noise is removed as pmucap removes it, before lines are split. */
static void noise_is_removed_first(void **state)
{
	(void)state;
	const char text[] = "\x1b[0m@pmu\x1b[1mboot {\"type\":\"begin\"}\r\r\n"	/* escapes anywhere */
			    "\x1b]0;title\x07@pmuboot {\"ty\0pe\":\"x\"}\n"		/* OSC; NUL bytes */
			    "\x1b]9\x1b" "x\n"						/* ESC ] alone goes */
			    "\x1b[12\n";						/* no final byte: stays */
	struct capture_file c = read_text(text, sizeof(text) - 1);
	assert_true(c.serial);
	assert_string_equal(c.text, "@pmuboot {\"type\":\"begin\"}\n\n@pmuboot {\"type\":\"x\"}\n9\x1bx\n\x1b[12\n");
	assert_int_equal(c.nrecords, 2);
	assert_int_equal(c.records[1].line, 3);
	assert_true(c.records[1].valid);
	capture_file_free(&c);
}

static void record_lines_only_at_line_start(void **state)
{
	(void)state;
	const char *js;
	size_t jl;
	assert_true(capture_record_text("\x1b[0m\x1b]0;t\x07@pmuboot {\"type\":\"x\"}\r\x0c ", 34, &js, &jl));
	assert_int_equal(jl, 12);
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
		cmocka_unit_test(runs_records_and_problems),
		cmocka_unit_test(records_are_what_pmucap_reads),
		cmocka_unit_test(noise_is_removed_first),
		cmocka_unit_test(record_lines_only_at_line_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
