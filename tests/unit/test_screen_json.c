/*
 * The screen's JSON field reader (output/screen_json.c, image-only, compiled in here): every accessor on
 * real records, and on malformed and hostile text.  Each text is held in a heap block of exactly its
 * length (tests/unit/screen_lines.h), so the ASan build of this test (build/asan/tests, run by
 * tests/host/test_sanitizers.py) reports any read past the length the reader was given; a malformed
 * text must come back "absent" (false, "" or 0), never as a value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/screen_json.c"
#include "tests/unit/screen_lines.h"
#include "tests/unit/screen_records.h"

#define SJ_TEST_TEXT 256	/* longer than any field the tests read whole */

/* Texts made by a test, freed after it. */
#define HELD_MAX 64
static char *held[HELD_MAX];
static size_t nheld;

static int free_held(void **state)
{
	(void)state;
	for (size_t i = 0; i < nheld; i++)
		free(held[i]);
	nheld = 0;
	return 0;
}

static const char *hold(const char *s, size_t len)
{
	assert_true(nheld < HELD_MAX);
	return held[nheld++] = exact_copy(s, len);
}

/* A record line as the screen gets it: its bytes and length, nothing after them. */
static bool record(const char *line, struct sj *o)
{
	size_t len = strlen(line);
	return sj_record(hold(line, len), len, o);
}

static struct sj must_record(const char *line)
{
	struct sj o;
	assert_true(record(line, &o));
	return o;
}

/* A value made by hand (not checked by sj_record first), as an accessor may be given one. */
static struct sj value(const char *text)
{
	struct sj v = { hold(text, strlen(text)), strlen(text) };
	return v;
}

static const char *text(const struct sj *o, const char *path)
{
	static char buf[SJ_TEST_TEXT];
	return sj_text(o, path, buf, sizeof(buf));
}

static void fields_of_a_real_bench_record(void **state)
{
	(void)state;
	const char *line = QEMU_BENCH_SIZE_MISMATCH;
	struct sj o = must_record(line), v, w;
	char key[16];

	/* The object is the whole line after the prefix. */
	assert_int_equal(o.len, strlen(line) - strlen(REC_PREFIX));
	assert_int_equal(o.p[0], '{');
	assert_int_equal(o.p[o.len - 1], '}');

	assert_string_equal(text(&o, "type"), "bench");
	assert_string_equal(text(&o, "kernel"), "store_forward");
	assert_string_equal(text(&o, "control"), "forward");
	assert_string_equal(text(&o, "cpu.n"), "0");
	assert_string_equal(text(&o, "cycles.median"), "15.692");	/* numbers as written */
	assert_string_equal(text(&o, "penalty.median"), "10.609");
	assert_string_equal(text(&o, "arena"), "null");
	assert_string_equal(text(&o, "body"), "mov [rsi], eax / mov rax, [rsi]");
	assert_string_equal(text(&o, "ledger.absent.smi_event"), "event set k8 has no `smi` event");
	assert_true(sj_is(&o, "type", "\"bench\""));
	assert_true(sj_is(&o, "interrupts_off", "true"));
	assert_true(sj_is(&o, "exhausted", "false"));
	assert_true(sj_is(&o, "arena", "null"));
	assert_false(sj_is(&o, "arena", "nul"));
	assert_false(sj_is(&o, "type", "bench"));	/* a string is compared with its quotes */

	/* Objects: members in order, counted; an empty one has none. */
	assert_true(sj_get(&o, "cycles", &v));
	assert_int_equal(sj_count(&v), 12);
	assert_true(sj_member(&v, 1, key, sizeof(key), &w));
	assert_string_equal(key, "median");
	assert_int_equal(w.len, 6);
	assert_memory_equal(w.p, "15.692", 6);
	assert_true(sj_member(&v, 11, key, sizeof(key), &w));
	assert_string_equal(key, "unstable");
	assert_false(sj_member(&v, 12, key, sizeof(key), &w));
	assert_true(sj_get(&o, "events", &v));
	assert_int_equal(sj_count(&v), 0);
	assert_false(sj_member(&v, 0, key, sizeof(key), &w));

	/* Arrays: one element, then none; an empty array. */
	assert_true(sj_get(&o, "ledger.sources", &v));
	assert_int_equal(sj_count(&v), 1);
	assert_true(sj_element(&v, 0, &w));
	assert_int_equal(w.len, 5);
	assert_memory_equal(w.p, "\"nmi\"", 5);
	assert_false(sj_element(&v, 1, &w));
	assert_true(sj_get(&o, "ledger.thermal_blind", &v));
	assert_int_equal(sj_count(&v), 0);
	assert_false(sj_element(&v, 0, &w));

	/* The element and member readers refuse the other kind. */
	assert_false(sj_element(&o, 0, &w));
	assert_true(sj_get(&o, "ledger.sources", &v));
	assert_false(sj_member(&v, 0, key, sizeof(key), &w));
	assert_int_equal(sj_count(&(struct sj){ "5", 1 }), 0);
}

static void arrays_of_objects_in_the_cache_record(void **state)
{
	(void)state;
	struct sj o = must_record(QEMU_CACHE), levels, lv, tlb, t, pages, pg;
	char buf[16];

	assert_true(sj_get(&o, "levels", &levels));
	assert_int_equal(sj_count(&levels), 4);
	assert_true(sj_element(&levels, 2, &lv));
	assert_string_equal(sj_text(&lv, "type", buf, sizeof(buf)), "unified");
	assert_string_equal(sj_text(&lv, "size", buf, sizeof(buf)), "524288");
	assert_string_equal(sj_text(&lv, "shared_by", buf, sizeof(buf)), "null");
	assert_true(sj_element(&levels, 3, &lv));
	assert_string_equal(sj_text(&lv, "level", buf, sizeof(buf)), "3");
	assert_false(sj_element(&levels, 4, &lv));
	/* An array inside an object inside an array. */
	assert_true(sj_get(&o, "tlb", &tlb));
	assert_int_equal(sj_count(&tlb), 6);
	assert_true(sj_element(&tlb, 1, &t));
	assert_true(sj_get(&t, "pages", &pages));
	assert_int_equal(sj_count(&pages), 2);
	assert_true(sj_element(&pages, 1, &pg));
	assert_int_equal(pg.len, 4);
	assert_memory_equal(pg.p, "\"4m\"", 4);
	assert_string_equal(text(&o, "cpu.apic_id"), "0");
	assert_string_equal(text(&o, "cpu.n"), "null");
}

static void strings_are_unescaped_and_cut_to_the_buffer(void **state)
{
	(void)state;
	struct sj o = must_record(QEMU_BEGIN);
	char buf[32];

	/* The results file's backslashes are written escaped. */
	assert_string_equal(text(&o, "results.file"), "\\pmuboot\\results-0001.jsonl");
	assert_string_equal(text(&o, "screen.mode"), "readable");
	assert_string_equal(sj_text(&o, "results.file", buf, 5), "\\pmu");
	assert_string_equal(sj_text(&o, "results.file", buf, 1), "");
	buf[0] = 'X';
	assert_ptr_equal(sj_text(&o, "results.file", buf, 0), buf);	/* no room: nothing written */
	assert_int_equal(buf[0], 'X');

	o = must_record("@pmuboot {\"s\":\"tab\\there\\nnew \\\"q\\\" \\\\ \\/ \\u00e9 end\",\"c\":\"a\x01" "b\xc3\xa9\","
			"\"short_u\":\"\\u12\",\"u_last\":\"x\\u\",\"bs_last\":\"x\\\\\"}");
	/* \t and \n as a space, \uXXXX as '?', the rest as the character escaped. */
	assert_string_equal(text(&o, "s"), "tab here new \"q\" \\ / ? end");
	/* Raw control bytes and bytes past ASCII (UTF-8) are shown as '?'. */
	assert_string_equal(text(&o, "c"), "a?b??");
	/* A \u escape with fewer than four digits before the closing quote ends the text there. */
	assert_string_equal(text(&o, "short_u"), "?");
	assert_string_equal(text(&o, "u_last"), "x?");
	assert_string_equal(text(&o, "bs_last"), "x\\");
}

static void what_is_not_a_record(void **state)
{
	(void)state;
	struct sj o;
	static const char *const not_records[] = {
		"",
		"@pmuboot",
		"@pmuboot ",
		"@pmuboot {",
		"@pmuboot }",
		"@pmuboot [1,2,3]",		/* a record is an object */
		"@pmuboot \"type\"",
		"@pmuboot 5",
		"@pmuboot null",
		"@pmuboot  {}",			/* the image writes one space */
		"@PMUBOOT {}",
		"junk @pmuboot {\"type\":\"cpu\"}",
		"pmuboot: run finished (clean); on_finish=halt",
		"@pmuboot {\"type\":\"bench\",}",	/* a trailing comma */
		"@pmuboot {\"type\" \"bench\"}",	/* no colon */
		"@pmuboot {\"type\":}",
		"@pmuboot {type:\"bench\"}",	/* an unquoted key */
		"@pmuboot {\"a\":1 \"b\":2}",	/* no comma */
		"@pmuboot {\"a\":[1,]}",
		"@pmuboot {\"a\":[1 2]}",
		"@pmuboot {\"a\":{\"b\":1]}",	/* mismatched close */
		"@pmuboot {\"n\":NaN}",		/* not JSON */
	};
	for (size_t i = 0; i < ARRAY_SIZE(not_records); i++)
		if (record(not_records[i], &o))
			fail_msg("taken as a record: %s", not_records[i]);

	/* The smallest record; text after the object is not part of it. */
	o = must_record("@pmuboot {}");
	assert_int_equal(o.len, 2);
	assert_int_equal(sj_count(&o), 0);
	assert_string_equal(text(&o, "type"), "");
	o = must_record("@pmuboot {\"type\":\"end\"} trailing");
	assert_int_equal(o.len, strlen("{\"type\":\"end\"}"));
	assert_string_equal(text(&o, "type"), "end");
}

/* A record cut anywhere (a line lost mid-way, a capture truncated) is not a record. */
static void every_cut_of_a_real_record_is_refused(void **state)
{
	(void)state;
	static const char *const lines[] = { QEMU_BENCH_SIZE_MISMATCH, QEMU_CACHE, QEMU_BEGIN, HOST_PMU_SKX };
	struct sj o;
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		size_t len = strlen(lines[i]);
		for (size_t k = 0; k < len; k++) {
			char *cut = exact_copy(lines[i], k);
			bool taken = sj_record(cut, k, &o);
			free(cut);
			if (taken)
				fail_msg("line %zu cut to %zu of %zu bytes was taken as a record", i, k, len);
		}
		char *whole = exact_copy(lines[i], len);
		assert_true(sj_record(whole, len, &o));
		free(whole);
	}
}

static void strings_cut_or_broken_inside_a_record(void **state)
{
	(void)state;
	struct sj o;
	assert_false(record("@pmuboot {\"a\":\"abc", &o));
	assert_false(record("@pmuboot {\"a\":\"abc\\", &o));	/* cut right after a backslash */
	assert_false(record("@pmuboot {\"a\":\"abc\\\"}", &o));	/* the quote is escaped: never closed */
	assert_false(record("@pmuboot {\"a\\", &o));		/* inside a key */
	o = must_record("@pmuboot {\"a\":\"x\\\\\"}");		/* an escaped backslash, then the quote */
	assert_string_equal(text(&o, "a"), "x\\");
}

/* "[[[...1...]]]" nested depth deep, as the value of "x". */
static char *nested(size_t depth, char open, char close)
{
	const char *key = open == '{' ? "\"a\":" : "";
	size_t klen = strlen(key), len = strlen("@pmuboot {\"x\":") + depth * (1 + klen) + 1 + depth + 1;
	char *s = malloc(len + 1), *p = s;
	assert_non_null(s);
	p += sprintf(p, "@pmuboot {\"x\":");
	for (size_t i = 0; i < depth; i++)
		p += sprintf(p, "%c%s", open, key);
	*p++ = '1';
	for (size_t i = 0; i < depth; i++)
		*p++ = close;
	*p++ = '}';
	*p = 0;
	assert_int_equal((size_t)(p - s), len);
	return s;
}

static void nesting_is_bounded(void **state)
{
	(void)state;
	struct sj o, v;
	/* The record is depth 0, "x" depth 1: the deepest value allowed is at SJ_MAX_DEPTH. */
	char *ok = nested(SJ_MAX_DEPTH - 1, '[', ']'), *deep = nested(SJ_MAX_DEPTH, '[', ']');
	assert_true(record(ok, &o));
	assert_true(sj_get(&o, "x", &v));
	assert_int_equal(sj_count(&v), 1);
	assert_false(record(deep, &o));
	free(ok);
	free(deep);
	ok = nested(SJ_MAX_DEPTH - 1, '{', '}');
	deep = nested(SJ_MAX_DEPTH, '{', '}');
	assert_true(record(ok, &o));
	char path[2 * SJ_MAX_DEPTH + 2] = "x";
	for (int i = 0; i < SJ_MAX_DEPTH - 1; i++)
		strcat(path, ".a");
	assert_string_equal(text(&o, path), "1");	/* followed to the bottom */
	assert_false(record(deep, &o));
	free(ok);
	free(deep);
	/* Far deeper than the stack could recurse: refused after SJ_MAX_DEPTH levels. */
	deep = nested(100000, '[', ']');
	assert_false(record(deep, &o));
	free(deep);
}

static void missing_keys_and_paths_through_other_kinds(void **state)
{
	(void)state;
	struct sj o = must_record(QEMU_BENCH_SIZE_MISMATCH), v;
	char buf[8] = "X";

	assert_false(sj_get(&o, "no_such_field", &v));
	assert_string_equal(sj_text(&o, "no_such_field", buf, sizeof(buf)), "");
	assert_false(sj_is(&o, "no_such_field", "null"));	/* absent is not null */
	assert_false(sj_get(&o, "cycles.no_such", &v));
	assert_false(sj_get(&o, "penalty_why.x", &v));		/* through null */
	assert_false(sj_get(&o, "iterations.x", &v));		/* through a number */
	assert_false(sj_get(&o, "body.x", &v));			/* through a string */
	assert_false(sj_get(&o, "ledger.sources.0", &v));	/* arrays have no members */
	assert_false(sj_get(&o, ".cycles", &v));		/* an empty part names no key */
	assert_true(sj_get(&o, "", &v));			/* no path: the object itself */
	assert_int_equal(v.len, o.len);
}

static void numbers_out_of_range_are_text(void **state)
{
	(void)state;
	char big[5100], buf[32];
	int n = snprintf(big, sizeof(big), "@pmuboot {\"n\":");
	for (int i = 0; i < 5000; i++)
		big[n++] = '9';
	snprintf(big + n, sizeof(big) - (size_t)n, ",\"inf\":1e999,\"neg\":-0,\"type\":\"bench\"}");
	struct sj o = must_record(big), v;

	assert_true(sj_get(&o, "n", &v));
	assert_int_equal(v.len, 5000);
	assert_string_equal(sj_text(&o, "n", buf, sizeof(buf)), "9999999999999999999999999999999");
	assert_string_equal(text(&o, "inf"), "1e999");
	assert_string_equal(text(&o, "neg"), "-0");
	assert_string_equal(text(&o, "type"), "bench");	/* the member after the long one is found */
}

static void keys_that_contain_other_keys(void **state)
{
	(void)state;
	struct sj o = must_record("@pmuboot {\"typex\":\"a\",\"xtype\":\"b\",\"ty\":\"c\",\"t\\\"ype\":\"e\","
				  "\"type\":\"d\",\"cycles_source\":\"tsc\",\"c\":{\"median_x\":1,\"median\":2},"
				  "\"a.b\":3,\"a\":{\"b\":4}}");
	struct sj v;
	assert_string_equal(text(&o, "type"), "d");
	assert_false(sj_get(&o, "cycles", &v));		/* "cycles_source" is not "cycles" */
	assert_false(sj_get(&o, "typ", &v));
	assert_string_equal(text(&o, "c.median"), "2");
	assert_false(sj_get(&o, "c.med", &v));
	assert_string_equal(text(&o, "a.b"), "4");	/* a path's dots separate keys */

	/* A key longer than the reader's key buffer is compared whole, not cut to its start. */
	char line[400], name[80];
	memset(name, 'k', 63);
	name[63] = 0;
	snprintf(line, sizeof(line), "@pmuboot {\"%sLONGER\":1,\"type\":\"x\"}", name);
	o = must_record(line);
	assert_false(sj_get(&o, name, &v));
	snprintf(line, sizeof(line), "@pmuboot {\"%sLONGER\":1,\"%s\":2}", name, name);
	o = must_record(line);
	assert_string_equal(text(&o, name), "2");
	memset(name, 'k', 70);
	name[70] = 0;
	snprintf(line, sizeof(line), "@pmuboot {\"%s\":7}", name);
	o = must_record(line);
	assert_string_equal(text(&o, name), "7");
}

/* The screen reads "kernel" as text: an object or number there is shown as written, never followed. */
static void a_value_of_another_kind_where_a_string_is_expected(void **state)
{
	(void)state;
	struct sj o = must_record("@pmuboot {\"type\":\"bench\",\"kernel\":{\"name\":\"ref\"},\"variant\":[\"a\"],"
				  "\"status\":5}");
	char buf[8];
	assert_string_equal(text(&o, "kernel"), "{\"name\":\"ref\"}");
	assert_string_equal(sj_text(&o, "kernel", buf, sizeof(buf)), "{\"name\"");
	assert_false(sj_is(&o, "kernel", "\"ref\""));
	assert_string_equal(text(&o, "variant"), "[\"a\"]");
	assert_string_equal(text(&o, "status"), "5");
	assert_false(sj_is(&o, "status", "\"pass\""));
}

/* Values made by hand, not checked by sj_record: the accessors stop at their length. */
static void accessors_on_unchecked_values(void **state)
{
	(void)state;
	struct sj v = value("[1,2"), e;
	char key[4] = "X";

	assert_int_equal(sj_count(&v), 2);
	assert_true(sj_element(&v, 1, &e));
	assert_int_equal(e.len, 1);
	assert_int_equal(e.p[0], '2');
	assert_false(sj_element(&v, 2, &e));
	v = value("{\"a\":1,\"b\":");
	assert_int_equal(sj_count(&v), 1);
	assert_false(sj_member(&v, 1, key, sizeof(key), &e));
	v = value("{\"a");
	assert_int_equal(sj_count(&v), 0);
	assert_false(sj_member(&v, 0, key, sizeof(key), &e));
	v = value("[");
	assert_int_equal(sj_count(&v), 0);
	assert_false(sj_element(&v, 0, &e));
	v = value("[\"abc");
	assert_int_equal(sj_count(&v), 0);
	assert_false(sj_element(&v, 0, &e));
	v = value("\"abc");
	assert_int_equal(sj_count(&v), 0);
	char buf[8];
	v = value("{\"s\":\"abc");
	assert_string_equal(sj_text(&v, "s", buf, sizeof(buf)), "");

	/* A key is cut to the buffer; with no buffer only the value is given. */
	v = value("{\"longkey\":1}");
	assert_true(sj_member(&v, 0, key, sizeof(key), &e));
	assert_string_equal(key, "lon");
	key[0] = 'X';
	assert_true(sj_member(&v, 0, key, 0, &e));
	assert_int_equal(key[0], 'X');
	assert_int_equal(e.p[0], '1');
}

/* Walks every value below v, reading each as the screen does; returns the values seen. */
static size_t walk(const struct sj *v, int depth)
{
	char key[64], buf[SJ_TEST_TEXT];
	struct sj c;
	size_t seen = 1, n = sj_count(v);
	assert_true(depth <= SJ_MAX_DEPTH + 1);
	for (size_t i = 0; sj_member(v, i, key, sizeof(key), &c); i++) {
		assert_true(i < n);
		assert_true(c.p >= v->p && c.p + c.len <= v->p + v->len);
		sj_text(v, key, buf, sizeof(buf));
		assert_true(strlen(buf) < sizeof(buf));
		seen += walk(&c, depth + 1);
	}
	for (size_t i = 0; sj_element(v, i, &c); i++) {
		assert_true(i < n);
		assert_true(c.p >= v->p && c.p + c.len <= v->p + v->len);
		seen += walk(&c, depth + 1);
	}
	return seen;
}

/* Reads every line of a capture; returns the lines taken as records and counts the "@pmuboot {" lines. */
static size_t read_capture(const char *path, size_t *record_lines)
{
	struct lines l;
	struct sj o;
	size_t taken = 0;
	if (!read_lines(path, &l))
		fail_msg("cannot read %s", path);
	*record_lines = 0;
	for (size_t i = 0; i < l.n; i++) {
		*record_lines += l.len[i] > strlen(REC_PREFIX) && !memcmp(l.line[i], REC_PREFIX "{", strlen(REC_PREFIX) + 1);
		if (!sj_record(l.line[i], l.len[i], &o))
			continue;
		taken++;
		assert_true(o.p >= l.line[i] && o.p + o.len <= l.line[i] + l.len[i]);
		assert_true(walk(&o, 0) >= 1);
	}
	free_lines(&l);
	return taken;
}

/* A hostile capture read whole: never more records taken than record lines. */
static void read_whole(const char *path, void *ctx)
{
	size_t lines;
	(void)ctx;
	assert_true(read_capture(path, &lines) <= lines);
}

/*
 * The real captures, and the hostile ones (tests/fixtures/captures/hostile: 5000-deep nesting, huge
 * numbers, NaN, fields of the wrong kind, cut runs, binary files): every value of every record read.
 */
static void real_and_hostile_captures(void **state)
{
	(void)state;
	size_t lines, taken;
	/* Every record line of a real capture is a record. */
	taken = read_capture(CAPTURES "/qemu-usb-serial.log", &lines);
	assert_int_equal(lines, 41);
	assert_int_equal(taken, 41);
	/* The 5000-deep value makes its record unreadable; the others are read. */
	taken = read_capture(CAPTURES "/hostile/deep-nesting.log", &lines);
	assert_int_equal(taken, lines - 1);
	taken = read_capture(CAPTURES "/hostile/deep-object.log", &lines);
	assert_int_equal(taken, lines - 1);
	taken = read_capture(CAPTURES "/hostile/huge-integer.log", &lines);
	assert_int_equal(taken, lines);

	assert_true(each_hostile_capture(read_whole, NULL) >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(fields_of_a_real_bench_record, free_held),
		cmocka_unit_test_teardown(arrays_of_objects_in_the_cache_record, free_held),
		cmocka_unit_test_teardown(strings_are_unescaped_and_cut_to_the_buffer, free_held),
		cmocka_unit_test_teardown(what_is_not_a_record, free_held),
		cmocka_unit_test_teardown(every_cut_of_a_real_record_is_refused, free_held),
		cmocka_unit_test_teardown(strings_cut_or_broken_inside_a_record, free_held),
		cmocka_unit_test_teardown(nesting_is_bounded, free_held),
		cmocka_unit_test_teardown(missing_keys_and_paths_through_other_kinds, free_held),
		cmocka_unit_test_teardown(numbers_out_of_range_are_text, free_held),
		cmocka_unit_test_teardown(keys_that_contain_other_keys, free_held),
		cmocka_unit_test_teardown(a_value_of_another_kind_where_a_string_is_expected, free_held),
		cmocka_unit_test_teardown(accessors_on_unchecked_values, free_held),
		cmocka_unit_test_teardown(real_and_hostile_captures, free_held),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
