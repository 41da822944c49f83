/* Records: JSON escaping, CRC-32, record building, truncation and the end record. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>

#include "lib/crc32.h"
#include "lib/json.h"
#include "lib/record.h"
#include "tests/fake/capture.h"

static void crc_check_value(void **state)
{
	(void)state;
	/* The standard CRC-32 check value (e.g. zlib, ITU-T V.42). */
	assert_int_equal(crc32_update(CRC32_INIT, "123456789", 9), 0xCBF43926u);
	assert_int_equal(crc32_update(CRC32_INIT, "", 0), 0);
	/* Incremental equals one-shot. */
	uint32_t c = crc32_update(CRC32_INIT, "1234", 4);
	assert_int_equal(crc32_update(c, "56789", 5), 0xCBF43926u);
}

static void json_escapes_everything(void **state)
{
	(void)state;
	char out[128];
	const char in[] = "a\"b\\c\n\x01\x7f\xe9z";
	size_t n = json_escape(out, sizeof(out), in, sizeof(in) - 1);
	assert_string_equal(out, "a\\\"b\\\\c\\n\\u0001\\u007f\\u00e9z");
	assert_int_equal(n, strlen(out));
}

static void json_escape_reports_needed_size(void **state)
{
	(void)state;
	char out[4];
	size_t n = json_escape(out, sizeof(out), "\"\"\"", 3);
	assert_int_equal(n, 6);
	assert_int_equal(strlen(out), 3); /* truncated but terminated */
}

static void record_fields(void **state)
{
	(void)state;
	struct capture cap;
	static struct rec r;
	capture_start(&cap);
	rec_start(&r, "cpu");
	rec_str(&r, "brand", "Odd \"CPU\"\x80");
	rec_u64(&r, "n", 18446744073709551615ull);
	rec_i64(&r, "neg", -5);
	rec_hex(&r, "sig", 0xa06a4);
	rec_bool(&r, "hv", true);
	rec_null(&r, "none");
	rec_milli(&r, "cpi", -1500);
	rec_obj(&r, "o");
	rec_arr(&r, "a");
	rec_u64(&r, NULL, 1);
	rec_u64(&r, NULL, 2);
	rec_arr_end(&r);
	rec_obj_end(&r);
	rec_emit(&r);
	assert_string_equal(capture_record(&cap, 0),
			    "{\"type\":\"cpu\",\"brand\":\"Odd \\\"CPU\\\"\\u0080\",\"n\":18446744073709551615,"
			    "\"neg\":-5,\"sig\":\"0xa06a4\",\"hv\":true,\"none\":null,\"cpi\":-1.500,"
			    "\"o\":{\"a\":[1,2]}}");
	capture_free(&cap);
}

static void unclosed_nesting_is_closed(void **state)
{
	(void)state;
	struct capture cap;
	static struct rec r;
	capture_start(&cap);
	rec_start(&r, "x");
	rec_obj(&r, "a");
	rec_arr(&r, "b");
	rec_emit(&r);
	assert_string_equal(capture_record(&cap, 0), "{\"type\":\"x\",\"a\":{\"b\":[]}}");
	capture_free(&cap);
}

/* 40 strings of 599 bytes under key k (NULL: array members): more text than a record holds. */
static void overflow_text(struct rec *r, const char *k)
{
	static char big[600];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	for (int i = 0; i < 40; i++)
		rec_str(r, k, big);
}

static void oversized_record_is_truncated_validly(void **state)
{
	(void)state;
	struct capture cap;
	static struct rec r;
	capture_start(&cap);
	rec_start(&r, "bench");
	rec_u64(&r, "first", 1);
	rec_obj(&r, "events");
	overflow_text(&r, "k");
	rec_obj_end(&r);
	rec_emit(&r);
	const char *s = capture_record(&cap, 0);
	assert_non_null(s);
	assert_true(strlen(s) < REC_MAX);
	assert_non_null(strstr(s, "\"first\":1,\"truncated\":true}"));
	assert_null(strstr(s, "\"events\""));
	capture_free(&cap);
}

/*
 * Objects opened and closed after the text overflowed write nothing, closers included: each used to add its
 * closer past the reserve (an instr record's latency pairs are an object each), into the field index beside
 * the text and, from the small fallback buffer, past it.
 */
static void nests_after_an_overflow_write_nothing(void **state)
{
	(void)state;
	struct capture cap;
	static struct rec r;
	capture_start(&cap);
	rec_start(&r, "instr");
	rec_u64(&r, "first", 1);
	rec_arr(&r, "latency");
	overflow_text(&r, NULL);
	assert_true(r.overflow);
	size_t at = r.len;
	for (int i = 0; i < 500; i++) {
		rec_obj(&r, NULL);
		rec_arr(&r, "spread");
		rec_arr_end(&r);
		rec_obj_end(&r);
	}
	assert_int_equal(r.len, at);
	rec_arr_end(&r);
	assert_true(r.len <= r.cap);
	rec_u64(&r, "after", 2);
	rec_emit(&r);
	const char *s = capture_record(&cap, 0);
	assert_non_null(s);
	assert_string_equal(s, "{\"type\":\"instr\",\"first\":1,\"truncated\":true}");
	capture_free(&cap);
}

static void stream_end_counts_and_crcs(void **state)
{
	(void)state;
	struct capture cap;
	static struct rec r;
	capture_start(&cap);
	struct rec_stream_info info = { "1.2.3", "abc", "test" };
	rec_stream_begin(&info, NULL, NULL);
	rec_start(&r, "cpu");
	rec_emit(&r);
	rec_error("pmuboot.cfg:3", "reps", "bad value");
	rec_stream_end();
	assert_int_equal(capture_record_count(&cap), 4);

	uint32_t crc = CRC32_INIT;
	for (int i = 0; i < 3; i++) {
		const char *t = capture_record(&cap, (size_t)i);
		crc = crc32_update(crc, t, strlen(t));
		crc = crc32_update(crc, "\n", 1);
	}
	char want[160];
	snprintf(want, sizeof(want), "{\"type\":\"end\",\"status\":\"error\",\"errors\":1,\"records\":3,\"crc32\":\"%08x\"}",
		 crc);
	assert_string_equal(capture_record(&cap, 3), want);
	assert_non_null(strstr(capture_record(&cap, 2), "\"source\":\"pmuboot.cfg:3\""));
	/* A second end is ignored: the stream is closed. */
	rec_stream_end();
	assert_int_equal(capture_record_count(&cap), 4);
	capture_free(&cap);
}

/* The readable line of an error names its place and its subject once each: never "bench: bench:". */
static void error_line_names_each_part_once(void **state)
{
	(void)state;
	struct capture cap;
	capture_start(&cap);
	rec_error("bench", "bench", "no user kernel '%s'", "user.imul");
	rec_error("pmuboot.cfg:3", "reps", "bad value");
	const char *lines[2] = { NULL, NULL };
	for (size_t i = 0, k = 0; i < cap.n && k < 2; i++)
		if (cap.kinds[i] == OUT_TEXT)
			lines[k++] = cap.lines[i];
	assert_non_null(lines[0]);
	assert_non_null(lines[1]);
	assert_non_null(strstr(lines[0], "error: bench: no user kernel 'user.imul'"));
	assert_null(strstr(lines[0], "bench: bench:"));
	assert_non_null(strstr(lines[1], "error: pmuboot.cfg:3: reps: bad value"));
	capture_free(&cap);
}

static void fixed_point_text(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fmt_milli(b, 14023), "14.023");
	assert_string_equal(fmt_milli(b, -7), "-0.007");
	assert_string_equal(fmt_milli(b, 0), "0.000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crc_check_value),
		cmocka_unit_test(json_escapes_everything),
		cmocka_unit_test(json_escape_reports_needed_size),
		cmocka_unit_test(record_fields),
		cmocka_unit_test(unclosed_nesting_is_closed),
		cmocka_unit_test(oversized_record_is_truncated_validly),
		cmocka_unit_test(nests_after_an_overflow_write_nothing),
		cmocka_unit_test(stream_end_counts_and_crcs),
		cmocka_unit_test(error_line_names_each_part_once),
		cmocka_unit_test(fixed_point_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
