/*
 * The spool (output/spool.c): while another processor runs a measuring pass, the sinks that call firmware
 * (screen, results file) are swapped for a buffer and the UART (any_cpu) stays live; spool_end replays
 * every held line, in order, to the sinks that did not see it -- a record to a sink that reads fields as
 * the record with its index, to the others as its line -- and says how many did not fit.  The real output
 * table (lib/out.c) and builder (lib/record.c) are used; the firmware's page allocator is this file's
 * fw_alloc_pages, which can refuse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out.h"
#include "lib/record.h"
#include "output/spool.h"
#include "output/spool_internal.h"
#include "platform/firmware.h"
#include "tests/unit/rec_rebuild.h"

/* ---- the firmware's page allocator ---- */

static bool refuse_pages;
static size_t pages_asked;

void *fw_alloc_pages(size_t bytes, size_t align)
{
	pages_asked++;
	if (refuse_pages)
		return NULL;
	assert_int_equal(bytes % align, 0);
	return aligned_alloc(align, bytes);
}

/* ---- sinks that keep what they are given ---- */

struct got_line {
	enum out_kind kind;
	char *bytes;
	size_t len;
	/* A record given as a record: read by its fields. */
	bool structured;
	char outcome[16];
	uint64_t apic_id;
	size_t members;
};

struct sink_log {
	struct got_line *line;
	size_t n;
};

static struct sink_log serial_log, screen_log, file_log;

static struct got_line *keep_line(struct sink_log *log, enum out_kind kind, const char *line, size_t len)
{
	log->line = realloc(log->line, (log->n + 1) * sizeof(*log->line));
	assert_non_null(log->line);
	struct got_line *g = &log->line[log->n++];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->len = len;
	g->bytes = malloc(len ? len : 1);
	assert_non_null(g->bytes);
	memcpy(g->bytes, line, len);
	return g;
}

static void keep(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	keep_line(ctx, kind, line, len);
}

/* As the screen takes records: by their fields. */
static void keep_record(void *ctx, const struct rec *r)
{
	size_t len;
	const char *line = rec_line(r, &len);
	struct got_line *g = keep_line(ctx, OUT_RECORD, line, len);
	g->structured = true;
	rec_get_str(r, "outcome", g->outcome, sizeof(g->outcome));
	rec_get_u64(r, "cpu.apic_id", &g->apic_id);
	g->members = rec_count(r, REC_ROOT);
}

static void forget(struct sink_log *log)
{
	for (size_t i = 0; i < log->n; i++)
		free(log->line[i].bytes);
	free(log->line);
	memset(log, 0, sizeof(*log));
}

/* As boot/ sets them up: our UART may be written from any processor; the screen and results file may not. */
static const struct out_sink serial = { .name = "serial", .write_line = keep, .ctx = &serial_log, .any_cpu = true };
static const struct out_sink screen = { .name = "screen", .write_line = keep, .write_record = keep_record,
				       .ctx = &screen_log };
static const struct out_sink file = { .name = "file", .write_line = keep, .ctx = &file_log, .records_only = true };

static int setup(void **state)
{
	(void)state;
	refuse_pages = false;
	pages_asked = 0;
	out_reset();
	assert_true(out_add_sink(&serial));
	assert_true(out_add_sink(&screen));
	assert_true(out_add_sink(&file));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	out_reset();
	forget(&serial_log);
	forget(&screen_log);
	forget(&file_log);
	return 0;
}

static void assert_line(const struct sink_log *log, size_t i, enum out_kind kind, const char *text)
{
	assert_true(i < log->n);
	assert_int_equal(log->line[i].kind, kind);
	assert_int_equal(log->line[i].len, strlen(text));
	assert_memory_equal(log->line[i].bytes, text, strlen(text));
}

static void assert_sinks_are(const char *a, const char *b, const char *c)
{
	struct out_sink_table t;
	out_save_sinks(&t);
	assert_int_equal(t.n, 3);
	assert_string_equal(t.sink[0].name, a);
	assert_string_equal(t.sink[1].name, b);
	assert_string_equal(t.sink[2].name, c);
}

#define REC1 "@pmuboot {\"type\":\"bench\",\"kernel\":\"ref\",\"variant\":\"add_chain\"}"
#define REC2 "@pmuboot {\"type\":\"pass\",\"cpu\":{\"n\":1,\"apic_id\":2},\"outcome\":\"measured\"}"

/* A record written as the program writes it (tests/unit/rec_rebuild.h builds it from its line). */
static void emit(const char *line)
{
	assert_true(rebuild_emit(line, strlen(line)));
}

static void text_line(const char *line)
{
	out_line(line, strlen(line));
}

static void lines_are_held_and_replayed_in_order(void **state)
{
	(void)state;
	char why[160] = "";
	assert_true(spool_begin(why, sizeof(why)));
	assert_string_equal(why, "");
	text_line("bench: ref");
	emit(REC1);
	out_text("  ref add_chain 0.987");
	emit(REC2);

	/* Live: the UART saw every line as it came; the others nothing yet. */
	assert_int_equal(serial_log.n, 4);
	assert_int_equal(screen_log.n, 0);
	assert_int_equal(file_log.n, 0);

	assert_int_equal(spool_end(), 4);
	/* Replayed in the order written; the results file takes records only; the UART gets no second copy. */
	assert_int_equal(screen_log.n, 4);
	assert_line(&screen_log, 0, OUT_TEXT, "bench: ref");
	assert_line(&screen_log, 1, OUT_RECORD, REC1);
	assert_line(&screen_log, 2, OUT_TEXT, "  ref add_chain 0.987");
	assert_line(&screen_log, 3, OUT_RECORD, REC2);
	/* The screen read the replayed record by its fields, as it reads a live one. */
	assert_true(screen_log.line[3].structured);
	assert_string_equal(screen_log.line[3].outcome, "measured");
	assert_int_equal(screen_log.line[3].apic_id, 2);
	assert_int_equal(screen_log.line[3].members, 3);
	assert_int_equal(file_log.n, 2);
	assert_false(file_log.line[1].structured);	/* a sink that wants the line gets the line */
	assert_line(&file_log, 0, OUT_RECORD, REC1);
	assert_line(&file_log, 1, OUT_RECORD, REC2);
	assert_int_equal(serial_log.n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_memory_equal(serial_log.line[i].bytes, screen_log.line[i].bytes, screen_log.line[i].len);

	/* The real sinks are back, in their order: a line now goes to each directly. */
	assert_sinks_are("serial", "screen", "file");
	emit(REC2);
	assert_int_equal(serial_log.n, 5);
	assert_int_equal(screen_log.n, 5);
	assert_int_equal(file_log.n, 3);
	assert_string_equal(screen_log.line[4].outcome, "measured");
	assert_int_equal(screen_log.line[4].members, screen_log.line[3].members);

	/* A second pass uses the buffer again, from its start: it is taken once, and kept. */
	assert_true(spool_begin(why, sizeof(why)));
	out_text("second pass");
	assert_int_equal(spool_end(), 1);
	assert_line(&screen_log, 5, OUT_TEXT, "second pass");
	assert_int_equal(pages_asked, 1);
}

static void an_empty_flush(void **state)
{
	(void)state;
	char why[160];
	assert_int_equal(spool_end(), 0);	/* never begun: nothing to put back */
	assert_sinks_are("serial", "screen", "file");
	assert_true(spool_begin(why, sizeof(why)));
	assert_int_equal(spool_end(), 0);
	assert_int_equal(spool_end(), 0);	/* ended twice: the second does nothing */
	assert_int_equal(serial_log.n + screen_log.n + file_log.n, 0);	/* and says nothing */
	assert_sinks_are("serial", "screen", "file");
}

static void no_memory_for_the_spool(void **state)
{
	(void)state;
	char why[160] = "";
	refuse_pages = true;
	assert_false(spool_begin(why, sizeof(why)));
	assert_string_equal(why, "no memory to hold another processor's output (8192 KiB)");
	assert_sinks_are("serial", "screen", "file");	/* nothing swapped */
	assert_int_equal(spool_end(), 0);
	assert_sinks_are("serial", "screen", "file");
}

/* A line of len bytes, each the line's number: a held line damaged or out of order shows. */
static char *numbered(size_t n, size_t len)
{
	char *s = malloc(len);
	assert_non_null(s);
	memset(s, (int)('A' + n % 26), len);
	return s;
}

/* Full: what is held stays whole and in order; what did not fit is counted and said after the replay. */
static void a_full_spool_says_so(void **state)
{
	(void)state;
	char why[160];
	const size_t fit = 8, len = SPOOL_BYTES / fit - spool_entry_bytes(0, 0);
	assert_int_equal(spool_entry_bytes(len, 0), SPOOL_BYTES / fit);	/* 8 lines fill it exactly */
	assert_true(spool_begin(why, sizeof(why)));
	for (size_t i = 0; i < fit + 2; i++) {
		char *s = numbered(i, len);
		out_line(s, len);
		free(s);
	}
	emit(REC1);
	assert_int_equal(serial_log.n, fit + 3);	/* the UART lost nothing */

	assert_int_equal(spool_end(), fit);
	/* The held lines, whole and in order, then the error's text line and record (rec_error). */
	assert_int_equal(screen_log.n, fit + 2);
	for (size_t i = 0; i < fit; i++) {
		char *s = numbered(i, len);
		assert_int_equal(screen_log.line[i].kind, OUT_TEXT);
		assert_int_equal(screen_log.line[i].len, len);
		assert_memory_equal(screen_log.line[i].bytes, s, len);
		free(s);
	}
	assert_int_equal(screen_log.line[fit].kind, OUT_TEXT);
	const struct got_line *e = &screen_log.line[fit + 1];
	char rec[512];
	snprintf(rec, sizeof(rec), "%.*s", (int)e->len, e->bytes);
	assert_int_equal(e->kind, OUT_RECORD);
	assert_non_null(strstr(rec, "\"type\":\"error\""));
	assert_non_null(strstr(rec, "\"source\":\"cpus\""));
	assert_non_null(strstr(rec, "1 records and 2 text lines from the other processor did not fit in the 8192 KiB spool"));
	/* The results file got the error record only; every sink is told, the UART too. */
	assert_int_equal(file_log.n, 1);
	assert_memory_equal(file_log.line[0].bytes, e->bytes, e->len);
	assert_int_equal(serial_log.n, fit + 3 + 2);

	/* The next pass starts empty, with nothing counted lost. */
	assert_true(spool_begin(why, sizeof(why)));
	text_line("next pass");
	assert_int_equal(spool_end(), 1);
	assert_int_equal(screen_log.n, fit + 3);
}

/* A line too long for the room left is lost, and counted; a shorter one after it is still held. */
static void a_line_too_long_for_the_room_left(void **state)
{
	(void)state;
	char why[160];
	const size_t big = SPOOL_BYTES - 64;
	assert_true(spool_begin(why, sizeof(why)));
	emit(REC1);
	char *s = numbered(0, big);
	out_line(s, big);
	free(s);
	emit(REC2);
	assert_int_equal(spool_end(), 2);
	assert_int_equal(file_log.n, 3);
	assert_line(&file_log, 0, OUT_RECORD, REC1);
	assert_line(&file_log, 1, OUT_RECORD, REC2);
	char rec[512];
	snprintf(rec, sizeof(rec), "%.*s", (int)file_log.line[2].len, file_log.line[2].bytes);
	assert_non_null(strstr(rec, "0 records and 1 text lines from the other processor did not fit"));
	assert_int_equal(screen_log.n, 4);	/* the two records, the error's text line and record */
	assert_string_equal(screen_log.line[1].outcome, "measured");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: the buffer, once taken, is kept for the program's life, as the image keeps it. */
		cmocka_unit_test_setup_teardown(no_memory_for_the_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(lines_are_held_and_replayed_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(an_empty_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(a_full_spool_says_so, setup, teardown),
		cmocka_unit_test_setup_teardown(a_line_too_long_for_the_room_left, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
