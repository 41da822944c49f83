/*
 * Records read by their fields (lib/record.h): the index a record is built with, as a sink that takes
 * records (struct out_sink.write_record) gets it.  Every kind of value by path; walking objects and
 * arrays; text cut to the caller's buffer; paths that name nothing; numbers that are not what was asked;
 * the index cut with the text of a record too large, full, or nested too deep; a record read again from
 * a copy of its line and index (rec_view, as output/spool.c replays); and every value of every record of
 * the real captures, compared with the strict JSON reader's parse of the very line the sink was given.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_read.h"
#include "lib/out.h"
#include "lib/record.h"
#include "tests/unit/rec_rebuild.h"
#include "tests/unit/screen_lines.h"
#include "tests/unit/screen_records.h"

/* ---- a sink that checks each record as it comes ---- */

static void (*check)(const struct rec *r);
static size_t records_seen;
static char line_seen[REC_MAX + 16];
static size_t line_len;

static void text_sink(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	(void)kind;
	(void)line;
	(void)len;
}

static void record_sink(void *ctx, const struct rec *r)
{
	const char *line = rec_line(r, &line_len);
	(void)ctx;
	assert_true(line_len < sizeof(line_seen));
	memcpy(line_seen, line, line_len);
	line_seen[line_len] = 0;
	records_seen++;
	if (check)
		check(r);
}

/* The same records as lines, beside: the text sinks get what they always got. */
static char line_text[REC_MAX + 16];
static size_t line_text_len;

static void line_sink(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	if (kind != OUT_RECORD)
		return;
	assert_true(len < sizeof(line_text));
	memcpy(line_text, line, len);
	line_text_len = len;
}

static int setup(void **state)
{
	static const struct out_sink fields = { .name = "fields", .write_line = text_sink, .write_record = record_sink };
	static const struct out_sink lines = { .name = "lines", .write_line = line_sink };
	(void)state;
	out_reset();
	assert_true(out_add_sink(&fields));
	assert_true(out_add_sink(&lines));
	check = NULL;
	records_seen = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	out_reset();
	rec_set_cpu(false, 0, 0);
	return 0;
}

static const char *text(const struct rec *r, const char *path)
{
	static char buf[256];
	return rec_get_str(r, path, buf, sizeof(buf));
}

/* ---- every kind of value ---- */

static void check_every_kind(const struct rec *r)
{
	char buf[16];
	uint64_t u = 0;
	int64_t m = 0;

	assert_true(rec_is(r, "type", "cpu"));
	assert_false(rec_is(r, "type", "cp"));
	assert_false(rec_is(r, "type", "cpus"));
	assert_string_equal(text(r, "cpu.n"), "3");	/* rec_set_cpu's object, first after the type */
	assert_true(rec_get_u64(r, "cpu.apic_id", &u) && u == 6);
	assert_string_equal(text(r, "brand"), "Odd \"CPU\"? tab");	/* unescaped; \u0080 as '?', \t as a space */
	assert_int_equal(rec_type_of(r, rec_find(r, REC_ROOT, "brand")), REC_STRING);
	assert_true(rec_get_u64(r, "n", &u) && u == UINT64_MAX);
	assert_string_equal(text(r, "n"), "18446744073709551615");
	assert_false(rec_get_u64(r, "neg", &u));	/* not an unsigned integer */
	assert_true(rec_milli_of(r, rec_find(r, REC_ROOT, "neg"), &m) && m == -5000);
	assert_string_equal(text(r, "sig"), "0xa06a4");	/* rec_hex writes a string */
	assert_int_equal(rec_type_of(r, rec_find(r, REC_ROOT, "sig")), REC_STRING);
	assert_true(rec_is_true(r, "hv"));
	assert_false(rec_is_true(r, "off"));
	assert_int_equal(rec_type_of(r, rec_find(r, REC_ROOT, "off")), REC_BOOL);
	assert_string_equal(text(r, "off"), "false");
	assert_true(rec_is_null(r, "none"));
	assert_true(rec_has(r, "none"));
	assert_string_equal(text(r, "none"), "");
	assert_false(rec_is_null(r, "missing"));	/* absent is not null */
	assert_false(rec_has(r, "missing"));
	assert_true(rec_milli_of(r, rec_find(r, REC_ROOT, "cpi"), &m) && m == -1500);
	assert_string_equal(text(r, "cpi"), "-1.500");
	assert_false(rec_get_u64(r, "cpi", &u));
	assert_true(rec_milli_of(r, rec_find(r, REC_ROOT, "big"), &m) && m == INT64_MAX);

	/* Objects and arrays: members in order, elements by index. */
	int o = rec_find(r, REC_ROOT, "o"), a = rec_find(r, REC_ROOT, "o.a"), e;
	assert_int_equal(rec_type_of(r, o), REC_OBJECT);
	assert_int_equal(rec_type_of(r, a), REC_ARRAY);
	assert_int_equal(rec_count(r, o), 2);
	assert_int_equal(rec_count(r, a), 3);
	assert_string_equal(rec_key(r, rec_child(r, o, 0), buf, sizeof(buf)), "a");
	assert_string_equal(rec_key(r, rec_child(r, o, 1), buf, sizeof(buf)), "after");
	assert_int_equal(rec_child(r, o, 2), -1);
	e = rec_child(r, a, 1);
	assert_string_equal(rec_text(r, e, buf, sizeof(buf)), "two");
	assert_string_equal(rec_key(r, e, buf, sizeof(buf)), "");	/* an element has no key */
	e = rec_child(r, a, 2);
	assert_int_equal(rec_type_of(r, e), REC_OBJECT);
	assert_string_equal(rec_text(r, rec_find(r, e, "deep"), buf, sizeof(buf)), "7");
	assert_string_equal(text(r, "o.after"), "x");
	assert_string_equal(text(r, "o"), "");	/* an object is not text */
	assert_int_equal(rec_count(r, rec_find(r, REC_ROOT, "empty")), 0);
	assert_int_equal(rec_child(r, rec_find(r, REC_ROOT, "empty"), 0), -1);
	assert_string_equal(text(r, "last"), "end");	/* the member after the nesting is found */
	assert_int_equal(rec_count(r, REC_ROOT), 14);

	/* Paths that name nothing. */
	assert_int_equal(rec_find(r, REC_ROOT, "o.a.0"), -1);	/* arrays have no members: rec_child */
	assert_int_equal(rec_find(r, REC_ROOT, "brand.x"), -1);	/* through a string */
	assert_int_equal(rec_find(r, REC_ROOT, "none.x"), -1);	/* through null */
	assert_int_equal(rec_find(r, REC_ROOT, "o."), -1);
	assert_int_equal(rec_find(r, REC_ROOT, ".o"), -1);
	assert_int_equal(rec_find(r, REC_ROOT, "o..a"), -1);
	assert_int_equal(rec_find(r, REC_ROOT, "af"), -1);	/* "after" is not "af" */
	assert_int_equal(rec_find(r, REC_ROOT, "a"), -1);	/* "a" is o's, not the record's */
	assert_int_equal(rec_find(r, REC_ROOT, ""), REC_ROOT);
	assert_int_equal(rec_find(r, o, ""), o);
	assert_int_equal(rec_find(r, -1, "o"), -1);
	assert_int_equal(rec_find(r, 100000, "o"), -1);
	assert_int_equal(rec_find(r, REC_ROOT, NULL), -1);

	/* Readers given nothing answer "absent". */
	buf[0] = 'X';
	assert_string_equal(rec_text(r, -1, buf, sizeof(buf)), "");
	assert_string_equal(rec_key(r, -1, buf, sizeof(buf)), "");
	assert_int_equal(rec_type_of(r, -1), REC_ABSENT);
	assert_int_equal(rec_count(r, -1), 0);
	assert_int_equal(rec_child(r, -1, 0), -1);
	assert_false(rec_u64_of(r, -1, &u));
	assert_false(rec_milli_of(r, -1, &m));

	/* Text is cut to the buffer, always terminated; no room, nothing written. */
	assert_string_equal(rec_get_str(r, "brand", buf, 5), "Odd ");
	assert_string_equal(rec_get_str(r, "n", buf, 4), "184");
	assert_string_equal(rec_get_str(r, "brand", buf, 1), "");
	buf[0] = 'X';
	assert_ptr_equal(rec_get_str(r, "brand", buf, 0), buf);
	assert_int_equal(buf[0], 'X');
}

static void every_kind_of_value(void **state)
{
	(void)state;
	struct rec r = { 0 };
	check = check_every_kind;
	rec_set_cpu(true, 3, 6);
	rec_start(&r, "cpu");
	rec_str(&r, "brand", "Odd \"CPU\"\x80\ttab");
	rec_u64(&r, "n", UINT64_MAX);
	rec_i64(&r, "neg", -5);
	rec_hex(&r, "sig", 0xa06a4);
	rec_bool(&r, "hv", true);
	rec_bool(&r, "off", false);
	rec_null(&r, "none");
	rec_milli(&r, "cpi", -1500);
	rec_milli(&r, "big", INT64_MAX);
	rec_obj(&r, "o");
	rec_arr(&r, "a");
	rec_u64(&r, NULL, 1);
	rec_str(&r, NULL, "two");
	rec_obj(&r, NULL);
	rec_u64(&r, "deep", 7);
	rec_obj_end(&r);
	rec_arr_end(&r);
	rec_str(&r, "after", "x");
	rec_obj_end(&r);
	rec_obj(&r, "empty");
	rec_obj_end(&r);
	rec_str(&r, "last", "end");
	rec_emit(&r);
	assert_int_equal(records_seen, 1);
	/* The line a text sink gets is the record's own: the same bytes the structured sink was shown. */
	assert_int_equal(line_text_len, line_len);
	assert_memory_equal(line_text, line_seen, line_len);
	assert_string_equal(line_seen, "@pmuboot {\"type\":\"cpu\",\"cpu\":{\"n\":3,\"apic_id\":6},\"brand\":\"Odd "
				       "\\\"CPU\\\"\\u0080\\ttab\",\"n\":18446744073709551615,\"neg\":-5,\"sig\":\"0xa06a4\","
				       "\"hv\":true,\"off\":false,\"none\":null,\"cpi\":-1.500,\"big\":9223372036854775.807,"
				       "\"o\":{\"a\":[1,\"two\",{\"deep\":7}],\"after\":\"x\"},\"empty\":{},\"last\":\"end\"}");
}

/* ---- the index cut with the text ---- */

static void check_cut(const struct rec *r)
{
	int64_t m;
	assert_true(rec_is(r, "type", "bench"));
	assert_true(rec_milli_of(r, rec_find(r, REC_ROOT, "cycles.median"), &m) && m == 15692);
	assert_true(rec_is_true(r, "truncated"));
	assert_false(rec_has(r, "body"));	/* the member that did not fit */
	assert_false(rec_has(r, "after"));	/* nor anything written after it */
	assert_false(rec_has(r, "cycles.after"));
	assert_int_equal(rec_count(r, REC_ROOT), 4);	/* type, kernel, cycles, truncated */
	assert_int_equal(rec_count(r, rec_find(r, REC_ROOT, "cycles")), 1);
}

/* Cut inside an object that was indexed when it opened: it goes, with what it held. */
static void check_cut_inside(const struct rec *r)
{
	assert_false(rec_has(r, "ledger"));
	assert_int_equal(rec_count(r, REC_ROOT), 4);
	for (int f = 0; rec_type_of(r, f) != REC_ABSENT; f++)
		assert_true(rec_type_of(r, f) != REC_ARRAY);	/* not "list" either, by any path */
}

static void a_cut_record_keeps_what_its_text_keeps(void **state)
{
	(void)state;
	static char body[REC_MAX];
	struct rec r = { 0 };
	memset(body, 'x', sizeof(body) - 1);
	check = check_cut;

	rec_start(&r, "bench");
	rec_str(&r, "kernel", "ref");
	rec_obj(&r, "cycles");
	rec_milli(&r, "median", 15692);
	rec_obj_end(&r);
	rec_str(&r, "body", body);
	rec_u64(&r, "after", 1);
	rec_emit(&r);
	assert_string_equal(line_seen, "@pmuboot {\"type\":\"bench\",\"kernel\":\"ref\",\"cycles\":{\"median\":15.692},"
				       "\"truncated\":true}");

	/* Cut inside a nested object: the object goes whole. */
	rec_start(&r, "bench");
	rec_str(&r, "kernel", "ref");
	rec_obj(&r, "cycles");
	rec_milli(&r, "median", 15692);
	rec_obj_end(&r);
	rec_obj(&r, "ledger");
	rec_arr(&r, "list");
	for (int i = 0; i < 3; i++)
		rec_str(&r, NULL, body);
	rec_arr_end(&r);
	rec_obj_end(&r);
	check = check_cut_inside;
	rec_emit(&r);
	assert_null(strstr(line_seen, "ledger"));
	assert_non_null(strstr(line_seen, "\"cycles\":{\"median\":15.692},\"truncated\":true}"));
}

/* Nesting past REC_MAX_DEPTH is a cut as well; the record stays readable. */
static void check_deep(const struct rec *r)
{
	assert_true(rec_is_true(r, "truncated"));
	assert_true(rec_is(r, "before", "yes"));
	assert_false(rec_has(r, "x"));
}

static void nesting_too_deep(void **state)
{
	(void)state;
	struct rec r = { 0 };
	check = check_deep;
	rec_start(&r, "deep");
	rec_str(&r, "before", "yes");
	for (int i = 0; i < REC_MAX_DEPTH + 2; i++)
		rec_obj(&r, "x");
	rec_u64(&r, "v", 1);
	for (int i = 0; i < REC_MAX_DEPTH + 2; i++)
		rec_obj_end(&r);
	rec_emit(&r);
	assert_int_equal(records_seen, 1);
	assert_string_equal(line_seen, "@pmuboot {\"type\":\"deep\",\"before\":\"yes\",\"truncated\":true}");
}

/* More values than the index holds: the text is whole, the values past the index are absent. */
#define MANY (REC_FIELDS + 100)
static void check_full(const struct rec *r)
{
	assert_true(r->index_short);
	assert_true(rec_is(r, "type", "many"));
	int a = rec_find(r, REC_ROOT, "a");
	assert_int_equal(rec_count(r, a), REC_FIELDS - 3);	/* the record, its type, the array */
	assert_false(rec_has(r, "after"));
	assert_false(rec_has(r, "truncated"));
}

static void more_values_than_the_index_holds(void **state)
{
	(void)state;
	struct rec r = { 0 };
	check = check_full;
	rec_start(&r, "many");
	rec_arr(&r, "a");
	for (int i = 0; i < MANY; i++)
		rec_u64(&r, NULL, (uint64_t)(i % 10));
	rec_arr_end(&r);
	rec_str(&r, "after", "here");
	rec_emit(&r);
	assert_int_equal(records_seen, 1);
	assert_non_null(strstr(line_seen, "],\"after\":\"here\"}"));	/* the text has every value */
}

/* Records under construction past the pool: the last one is cut to its type, and read so. */
static void check_fallback(const struct rec *r)
{
	if (rec_is(r, "type", "extra")) {
		assert_int_equal(rec_count(r, REC_ROOT), 2);	/* type, truncated */
		assert_true(rec_is_true(r, "truncated"));
	}
}

static void more_records_at_once_than_the_pool(void **state)
{
	(void)state;
	static struct rec held[REC_POOL + 1];
	static char long_text[400];
	memset(long_text, 'y', sizeof(long_text) - 1);
	check = check_fallback;
	for (int i = 0; i < REC_POOL; i++)
		rec_start(&held[i], "held");
	rec_start(&held[REC_POOL], "extra");
	rec_str(&held[REC_POOL], "text", long_text);	/* larger than the fallback buffer */
	rec_emit(&held[REC_POOL]);
	assert_string_equal(line_seen, "@pmuboot {\"type\":\"extra\",\"truncated\":true}");
	for (int i = 0; i < REC_POOL; i++)
		rec_emit(&held[i]);
	assert_int_equal(records_seen, REC_POOL + 1);
}

/* ---- a record read again from a copy (output/spool.c) ---- */

static struct rec_field copy_fields[REC_FIELDS];
static char copy_line[REC_MAX + 16];
static size_t copy_n, copy_len;

static void keep_copy(const struct rec *r)
{
	const struct rec_field *f;
	const char *line = rec_line(r, &copy_len);
	copy_n = rec_fields(r, &f);
	memcpy(copy_fields, f, copy_n * sizeof(*f));
	memcpy(copy_line, line, copy_len);
}

static void a_view_reads_as_the_record(void **state)
{
	(void)state;
	struct rec v;
	uint64_t u;
	check = keep_copy;
	assert_true(rebuild_emit(QEMU_CACHE, strlen(QEMU_CACHE)));
	assert_true(copy_n > 10);
	rec_view(&v, copy_line, copy_len, copy_fields, copy_n);
	size_t len;
	const char *line = rec_line(&v, &len);
	assert_int_equal(len, strlen(QEMU_CACHE));
	assert_memory_equal(line, QEMU_CACHE, len);
	int levels = rec_find(&v, REC_ROOT, "levels");
	assert_int_equal(rec_count(&v, levels), 4);
	assert_true(rec_u64_of(&v, rec_find(&v, rec_child(&v, levels, 2), "size"), &u) && u == 524288);
	assert_true(rec_is(&v, "type", "cache"));
	/* A line too short to be a record, or an index larger than any: a view with nothing in it. */
	rec_view(&v, "@pm", 3, copy_fields, copy_n);
	assert_int_equal(rec_type_of(&v, REC_ROOT), REC_ABSENT);
	rec_view(&v, copy_line, copy_len, copy_fields, REC_FIELDS + 1);
	assert_false(rec_is(&v, "type", "cache"));
}

/* ---- milli values read back ---- */

static int64_t milli(const struct rec *r, const char *key, bool *ok)
{
	int64_t m = 0;
	*ok = rec_milli_of(r, rec_find(r, REC_ROOT, key), &m);
	return m;
}

/* In the kept copy, the number after "key": becomes text (as long as the old, so the index still fits). */
static void replace_number(const char *key_colon, const char *text)
{
	char *at = strstr(copy_line, key_colon);
	assert_non_null(at);
	memcpy(at + strlen(key_colon), text, strlen(text));
}

/*
 * Numbers rec_milli would not write (a fourth decimal, an exponent, one
 * past INT64_MAX milli) come from other writers through a view: refused,
 * never wrapped or cut.
 */
static void milli_values_read_back_or_refuse(void **state)
{
	struct rec r = { 0 }, v;
	bool ok;
	(void)state;
	check = keep_copy;
	rec_start(&r, "t");
	rec_milli(&r, "max", INT64_MAX);
	rec_milli(&r, "min", -INT64_MAX);
	rec_i64(&r, "quarter", -1234);
	rec_milli(&r, "past", INT64_MAX);
	rec_u64(&r, "huge", UINT64_MAX);
	rec_milli(&r, "fine", 10000);
	rec_milli(&r, "exp", 1500);
	rec_emit(&r);
	copy_line[copy_len] = '\0';	/* for strstr */
	replace_number("\"quarter\":", "-0.25");
	replace_number("\"past\":", "9223372036854775.808");
	replace_number("\"huge\":", "99999999999999999999");
	replace_number("\"fine\":", "1.0001");
	replace_number("\"exp\":", "2.5e3");
	rec_view(&v, copy_line, copy_len, copy_fields, copy_n);
	assert_true(milli(&v, "max", &ok) == INT64_MAX && ok);
	assert_true(milli(&v, "min", &ok) == -INT64_MAX && ok);
	assert_true(milli(&v, "quarter", &ok) == -250 && ok);
	milli(&v, "past", &ok);
	assert_false(ok);
	milli(&v, "huge", &ok);
	assert_false(ok);
	milli(&v, "fine", &ok);
	assert_false(ok);
	milli(&v, "exp", &ok);
	assert_false(ok);
	milli(&v, "type", &ok);
	assert_false(ok);	/* a string */
}

/* ---- every value of the real records ---- */

static size_t values_compared;

/* The value at f is v, as the strict reader read the line: kind, key, text, and every member or element. */
static void same_value(const struct rec *r, int f, const struct json_value *v)
{
	static const enum rec_type kinds[] = { [JSON_NULL] = REC_NULL, [JSON_FALSE] = REC_BOOL, [JSON_TRUE] = REC_BOOL,
					      [JSON_NUMBER] = REC_NUMBER, [JSON_STRING] = REC_STRING,
					      [JSON_ARRAY] = REC_ARRAY, [JSON_OBJECT] = REC_OBJECT };
	char buf[REC_MAX];
	size_t i = 0;
	assert_int_equal(rec_type_of(r, f), kinds[v->type]);
	values_compared++;
	rec_text(r, f, buf, sizeof(buf));
	if (v->type == JSON_NUMBER)
		assert_string_equal(buf, v->str);
	else if (v->type == JSON_TRUE || v->type == JSON_FALSE)
		assert_string_equal(buf, v->type == JSON_TRUE ? "true" : "false");
	else if (v->type == JSON_STRING && strspn(v->str, " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ"
						     "[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~") == v->len)
		assert_string_equal(buf, v->str);
	else if (v->type != JSON_STRING)
		assert_string_equal(buf, "");
	for (const struct json_value *c = v->child; c; c = c->next, i++) {
		int k = rec_child(r, f, i);
		assert_true(k > f);
		if (v->type == JSON_OBJECT) {
			assert_string_equal(rec_key(r, k, buf, sizeof(buf)), c->key);
			if (!strchr(c->key, '.'))	/* a path cannot name a key with a dot ("kernel.NAME") */
				assert_int_equal(rec_find(r, f, c->key), k);
		}
		same_value(r, k, c);
	}
	assert_int_equal(rec_child(r, f, i), -1);
	assert_int_equal(rec_count(r, f), i);
}

static void check_against_the_reader(const struct rec *r)
{
	struct json_doc doc;
	char err[128];
	size_t len;
	const char *line = rec_line(r, &len);
	if (!json_parse(&doc, line + strlen(REC_PREFIX), len - strlen(REC_PREFIX), err, sizeof(err)))
		fail_msg("the builder wrote a record the reader refuses: %s", err);
	same_value(r, REC_ROOT, doc.root);
	json_free(&doc);
}

static void every_value_of_the_real_records(void **state)
{
	(void)state;
	static const char *const lines[] = {
		QEMU_BEGIN, QEMU_PLATFORM, QEMU_CPU, QEMU_CACHE, QEMU_TOPOLOGY, QEMU_TIMING, QEMU_PMU, QEMU_BENCH_SETUP,
		QEMU_BENCH_SIZE_MISMATCH, QEMU_CHECK_SIZE_MISMATCH, QEMU_END, HOST_PMU_SKX, HOST_AUDIT_FAIL,
		HOST2_TOPOLOGY, HOST2_PASS1, HOST_USER_FAULT,
	};
	struct lines l;
	check = check_against_the_reader;
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		assert_true(rebuild_emit(lines[i], strlen(lines[i])));
		assert_string_equal(line_seen, lines[i]);
	}
	assert_true(read_lines(CAPTURES "/qemu-usb-serial.log", &l));
	size_t before = records_seen;
	for (size_t i = 0; i < l.n; i++)
		if (l.len[i] > strlen(REC_PREFIX) && !memcmp(l.line[i], REC_PREFIX, strlen(REC_PREFIX)))
			assert_true(rebuild_emit(l.line[i], l.len[i]));
	free_lines(&l);
	assert_int_equal(records_seen - before, 41);
	assert_true(values_compared > 1000);
}

/* What the builder makes of a hostile capture's records (cut, deep, odd bytes) is indexed as it is written. */
static void rebuild_whole(const char *path, void *ctx)
{
	struct lines l;
	(void)ctx;
	assert_true(read_lines(path, &l));
	for (size_t i = 0; i < l.n; i++)
		rebuild_emit(l.line[i], l.len[i]);
	free_lines(&l);
}

static void the_hostile_captures(void **state)
{
	(void)state;
	check = check_against_the_reader;
	assert_true(each_hostile_capture(rebuild_whole, NULL) >= 20);
	assert_true(records_seen > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(every_kind_of_value, setup, teardown),
		cmocka_unit_test_setup_teardown(a_cut_record_keeps_what_its_text_keeps, setup, teardown),
		cmocka_unit_test_setup_teardown(nesting_too_deep, setup, teardown),
		cmocka_unit_test_setup_teardown(more_values_than_the_index_holds, setup, teardown),
		cmocka_unit_test_setup_teardown(more_records_at_once_than_the_pool, setup, teardown),
		cmocka_unit_test_setup_teardown(milli_values_read_back_or_refuse, setup, teardown),
		cmocka_unit_test_setup_teardown(a_view_reads_as_the_record, setup, teardown),
		cmocka_unit_test_setup_teardown(every_value_of_the_real_records, setup, teardown),
		cmocka_unit_test_setup_teardown(the_hostile_captures, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
