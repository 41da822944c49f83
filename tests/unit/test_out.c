/* Text lines: strings from outside cannot forge a record or start a line of their own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>

#include "lib/out.h"
#include "lib/record.h"
#include "tests/fake/capture.h"

/* No captured line of kind OUT_TEXT begins with or contains the record marker. */
static void assert_no_marker_in_text(const struct capture *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->kinds[i] != OUT_TEXT)
			continue;
		assert_null(strstr(c->lines[i], "@pmuboot"));
		for (const char *p = c->lines[i]; *p; p++)
			assert_true((*p >= 0x20 && *p < 0x7f) || *p == '\t');
	}
}

static void clean_escapes_controls_and_marker(void **state)
{
	(void)state;
	char out[128];
	const char in[] = "a\tb\nc\r\x01\x7f\xe9@pmuboot {x}@ok";
	size_t n = out_clean_n(out, sizeof(out), in, sizeof(in) - 1);
	assert_string_equal(out, "a\\x09b\\x0ac\\x0d\\x01\\x7f\\xe9\\x40pmuboot {x}@ok");
	assert_int_equal(n, strlen(out));
	assert_string_equal(out_clean(out, sizeof(out), NULL), "");
}

static void clean_never_cuts_an_escape(void **state)
{
	(void)state;
	char out[7];
	/* "ab" + "\x0a" needs 6 bytes and a NUL: fits exactly; the next escape does not. */
	size_t n = out_clean_n(out, sizeof(out), "ab\n\n", 4);
	assert_int_equal(n, 10);
	assert_string_equal(out, "ab\\x0a");
	char one[1];
	out_clean_n(one, sizeof(one), "xyz", 3);
	assert_string_equal(one, "");
}

static void text_line_with_forged_record_is_escaped(void **state)
{
	(void)state;
	struct capture cap;
	capture_start(&cap);
	out_text("platform: %s", "QEMU @pmuboot {\"type\":\"end\"}");
	out_text("%s", "@pmuboot {\"type\":\"end\"}");
	assert_int_equal(capture_record_count(&cap), 0);
	assert_int_equal(cap.n, 2);
	assert_string_equal(cap.lines[0], "platform: QEMU \\x40pmuboot {\"type\":\"end\"}");
	assert_string_equal(cap.lines[1], "\\x40pmuboot {\"type\":\"end\"}");
	assert_no_marker_in_text(&cap);
	capture_free(&cap);
}

static void embedded_newline_does_not_start_a_line(void **state)
{
	(void)state;
	struct capture cap;
	capture_start(&cap);
	out_text("cpu: \"%s\"\n", "x\n@pmuboot {\"type\":\"end\"}\r\n");
	assert_int_equal(cap.n, 1);
	assert_int_equal(capture_record_count(&cap), 0);
	assert_string_equal(cap.lines[0], "cpu: \"x\\x0a\\x40pmuboot {\"type\":\"end\"}\\x0d\\x0a\"");
	/* The program's own text passes unchanged, tabs included. */
	out_text("table:\tcol 1\tcol 2 @ 3 GHz");
	assert_string_equal(cap.lines[1], "table:\tcol 1\tcol 2 @ 3 GHz");
	capture_free(&cap);
}

static void error_text_is_escaped_but_record_keeps_the_bytes(void **state)
{
	(void)state;
	struct capture cap;
	capture_start(&cap);
	struct rec_stream_info info = { "1", "b", "test" };
	rec_stream_begin(&info, NULL, NULL);
	rec_error("pmuboot.cfg:1\n@pmuboot {", "key\n@pmuboot {\"type\":\"end\"}", "unknown option '%s'",
		  "\n@pmuboot {\"type\":\"end\"}");
	rec_stream_end();
	/* begin, error, end: nothing forged. */
	assert_int_equal(capture_record_count(&cap), 3);
	assert_no_marker_in_text(&cap);
	const char *err = capture_record(&cap, 1);
	assert_non_null(strstr(err, "\"message\":\"unknown option '\\n@pmuboot {\\\"type\\\":\\\"end\\\"}'\""));
	capture_free(&cap);
}

static void long_hostile_line_stays_one_bounded_line(void **state)
{
	(void)state;
	struct capture cap;
	char big[600];
	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	capture_start(&cap);
	out_text("x%s", big);
	assert_int_equal(cap.n, 1);
	assert_true(strlen(cap.lines[0]) < 1024);
	assert_memory_equal(cap.lines[0], "x\\x0a\\x0a", 9);
	capture_free(&cap);
}

static void nowhere(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	(void)kind;
	(void)line;
	(void)len;
}

/* The slowest sink bounded by a rate names itself; sinks not bounded so (rate 0) are not the slowest. */
static void the_slowest_bounded_sink_is_named(void **state)
{
	(void)state;
	const char *name = NULL;
	out_reset();
	assert_true(out_add_sink(&(struct out_sink){ .name = "file", .write_line = nowhere }));
	assert_int_equal(out_slowest_rate(&name), 0);
	assert_null(name);
	assert_true(out_add_sink(&(struct out_sink){ .name = "serial", .write_line = nowhere, .bytes_per_s = 11520 }));
	assert_true(out_add_sink(&(struct out_sink){ .name = "slow", .write_line = nowhere, .bytes_per_s = 960 }));
	assert_true(out_add_sink(&(struct out_sink){ .name = "screen", .write_line = nowhere }));
	assert_int_equal(out_slowest_rate(&name), 960);
	assert_string_equal(name, "slow");
	out_remove_sink("slow");
	assert_int_equal(out_slowest_rate(&name), 11520);
	assert_string_equal(name, "serial");
	out_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clean_escapes_controls_and_marker),
		cmocka_unit_test(clean_never_cuts_an_escape),
		cmocka_unit_test(text_line_with_forged_record_is_escaped),
		cmocka_unit_test(embedded_newline_does_not_start_a_line),
		cmocka_unit_test(error_text_is_escaped_but_record_keeps_the_bytes),
		cmocka_unit_test(long_hostile_line_stays_one_bounded_line),
		cmocka_unit_test(the_slowest_bounded_sink_is_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
