/*
 * The readable screen's layout (output/screen_layout.c): a screen_state laid out in frames of the sizes
 * firmware offers.  The header block's rows, the progress line with the stage, the table's columns and
 * which rows it shows while running and at the end (failed and unstable ones first, the rest counted),
 * the summary, the last row; every row cut one short of the width so the last column never wraps; the
 * top-down column only where there is room for it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/screen_layout.h"

/* A run's stages, as run/run.c names them. */
static const char *const stage_names[] = { "identify", "topology", "timing", "pmu", "bench", "restore" };
static const char *stage_name(size_t i) { return i < ARRAY_SIZE(stage_names) ? stage_names[i] : NULL; }
static const struct sl_stages stages = { stage_name, ARRAY_SIZE(stage_names) };

static struct screen_state *st;
static struct screen_frame *fr;
static struct config cfg;

static int fresh(void **state)
{
	(void)state;
	st = calloc(1, sizeof(*st));
	fr = calloc(1, sizeof(*fr));
	assert_non_null(st);
	assert_non_null(fr);
	config_defaults(&cfg);
	st->cfg = &cfg;
	return 0;
}

static int done(void **state)
{
	(void)state;
	free(st);
	free(fr);
	return 0;
}

static void add_row(const char *name, const char *cycles, enum ss_check check)
{
	assert_true(st->nrows < SS_ROWS);
	struct ss_row *r = &st->rows[st->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->cycles, sizeof(r->cycles), "%s", cycles);
	r->check = check;
}

/* A run on one processor as test_screen_state.c's records leave it. */
static void one_processor(void)
{
	snprintf(st->title, sizeof(st->title), "pmuboot 0.1.0 (build af0605f817b9)");
	snprintf(st->machine, sizeof(st->machine), "QEMU Standard PC (Q35 + ICH9, 2009), 511 MiB, 1 CPU");
	snprintf(st->cpu, sizeof(st->cpu), "AuthenticAMD family 0xf model 0x6b stepping 1, QEMU TCG CPU version 2.5+");
	snprintf(st->cpu2, sizeof(st->cpu2), "K8 (Family 0Fh), microcode 0x1000065, under QEMU TCG, TSC 2599 MHz");
	snprintf(st->pmu, sizeof(st->pmu), "none: no working PMU");
	snprintf(st->cache, sizeof(st->cache), "L1d 64K 2-way, L1i 64K 2-way, L2 512K 16-way, L3 16M 16-way");
	snprintf(st->ibs, sizeof(st->ibs), "not used: CPUID 8000_0001h:ECX[10] (IBS) is clear");
	snprintf(st->activity, sizeof(st->activity), "bench store_forward");
	snprintf(st->bench_last, sizeof(st->bench_last), "store_forward.size_mismatch");
	snprintf(st->kernels, sizeof(st->kernels), "ref, store_forward");
	snprintf(st->message, sizeof(st->message), "bench: store_forward");
	st->variants = st->bench_total = 17;
	st->bench_done = 4;
	add_row("ref.add_chain", "0.987", SS_SKIP);
	add_row("ref.load_chain", "2.032~", SS_SKIP);
	add_row("store_forward.forward", "5.083", SS_NONE);
	add_row("store_forward.size_mismatch", "15.692", SS_SKIP);
	snprintf(st->rows[3].penalty, sizeof(st->rows[3].penalty), "+10.609");
}

static void lay_out(unsigned cols, unsigned rows)
{
	memset(fr, 0x55, sizeof(*fr));	/* whatever was there before */
	fr->cols = cols;
	fr->rows = rows;
	screen_compose(fr, st, &stages);
	for (unsigned r = 0; r < rows && r < SL_ROWS_MAX; r++) {
		assert_true(strlen(fr->text[r]) <= cols - 1);	/* the last column never wraps */
		assert_true(fr->attr[r] < SL_ATTRS);
	}
}

static void starts_with(unsigned row, const char *text)
{
	if (strncmp(fr->text[row], text, strlen(text)))
		fail_msg("row %u is \"%s\", not \"%s...\"", row, fr->text[row], text);
}

static void a_run_while_it_runs(void **state)
{
	(void)state;
	one_processor();
	lay_out(160, 42);
	/* The title bar: the title at the left, the state at the right edge. */
	starts_with(0, " pmuboot 0.1.0 (build af0605f817b9) ");
	assert_int_equal(strlen(fr->text[0]), 159);
	assert_string_equal(fr->text[0] + 159 - strlen("running "), "running ");
	assert_int_equal(fr->attr[0], SL_TITLE);
	assert_string_equal(fr->text[1], "Machine   QEMU Standard PC (Q35 + ICH9, 2009), 511 MiB, 1 CPU");
	starts_with(2, "CPU       AuthenticAMD family 0xf");
	starts_with(3, "          K8 (Family 0Fh)");
	starts_with(4, "PMU       none");
	starts_with(5, "Cache     L1d 64K");
	starts_with(6, "IBS       not used");
	/* Progress names the stage by its place in the run. */
	assert_string_equal(fr->text[7], "Progress: stage 5 of 6, bench store_forward; benchmark 4 of 17 done, last "
					 "store_forward.size_mismatch");
	assert_int_equal(fr->attr[7], SL_HEAD);
	/* The table: its head counts rows; a row's columns at fixed places. */
	starts_with(8, "  variant (4 rows)");
	assert_int_equal(fr->attr[8], SL_TABLE);
	assert_non_null(strstr(fr->text[8], "cycles/it"));
	starts_with(9, "  ref.add_chain");
	starts_with(12, "  store_forward.size_mismatch");
	const char *cycles = strstr(fr->text[12], "15.692"), *head = strstr(fr->text[8], "cycles/it");
	assert_non_null(cycles);
	assert_int_equal(cycles + strlen("15.692") - fr->text[12], head + strlen("cycles/it") - fr->text[8]);
	assert_non_null(strstr(fr->text[12], "+10.609"));
	assert_string_equal(fr->text[12] + strlen(fr->text[12]) - 4, "skip");
	assert_string_equal(fr->text[11] + strlen(fr->text[11]) - 1, "-");	/* a control: no check */
	assert_string_equal(fr->text[13], "");
	/* The last row: the latest message. */
	assert_string_equal(fr->text[41], "bench: store_forward");
	/* An activity that is no stage's is shown as it is; nothing yet, as starting. */
	snprintf(st->activity, sizeof(st->activity), "benchmarks");	/* "bench" is a stage; "benchmarks" is not */
	lay_out(160, 42);
	starts_with(7, "Progress: benchmarks; benchmark 4 of 17");
	st->activity[0] = 0;
	lay_out(160, 42);
	starts_with(7, "Progress: starting; benchmark 4 of 17");
	/* A screen with nothing to count shows the stage alone. */
	st->bench_total = 0;
	lay_out(160, 42);
	assert_string_equal(fr->text[7], "Progress: starting");
}

/* 80 columns, the narrowest laid out: everything cut to 79, no room for the top-down column. */
static void a_narrow_screen(void **state)
{
	(void)state;
	one_processor();
	st->topdown = true;
	snprintf(st->rows[0].topdown, sizeof(st->rows[0].topdown), "25/18/27/30 Memory_Bound 60");
	memset(st->machine, 'm', sizeof(st->machine) - 1);
	lay_out(SL_COLS_MIN, SL_ROWS_MIN);
	assert_int_equal(strlen(fr->text[1]), SL_COLS_MIN - 1);
	assert_null(strstr(fr->text[8], "top-down"));
	assert_null(strstr(fr->text[9], "Memory_Bound"));
	/* Wide enough: the column is there, in its place in the head and the row. */
	lay_out(128, 40);
	assert_non_null(strstr(fr->text[8], "top-down % L1, top L2"));
	assert_non_null(strstr(fr->text[9], "25/18/27/30 Memory_Bound 60"));
	/* A frame asked larger than the layout's room is laid out at its largest. */
	lay_out(SL_COLS_MAX + 40, SL_ROWS_MAX + 10);
	assert_int_equal(strlen(fr->text[1]), SL_COLS_MAX - 1);
	/* No rows: nothing is written. */
	memset(fr, 0x55, sizeof(*fr));
	fr->cols = 80;
	fr->rows = 0;
	screen_compose(fr, st, &stages);
	assert_int_equal((unsigned char)fr->text[0][0], 0x55);
}

/* While running, the latest rows are shown when not all fit. */
static void many_rows_while_running(void **state)
{
	(void)state;
	char name[SS_NAME];
	one_processor();
	st->nrows = 0;
	for (unsigned i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "k.v%u", i);
		add_row(name, "1.000", SS_PASS);
	}
	lay_out(100, 31);
	starts_with(8, "  variant (100 rows)");
	/* Rows 9..29 hold the table (row 30 is the message): the last 21 rows. */
	starts_with(9, "  k.v79 ");
	starts_with(29, "  k.v99 ");
}

/* At the end: the summary replaces the progress line; failed and unstable rows first, the others counted. */
static void the_summary_at_the_end(void **state)
{
	(void)state;
	char name[SS_NAME];
	one_processor();
	st->nrows = 0;
	for (unsigned i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "k.v%u", i);
		add_row(name, "1.000", i == 40 ? SS_FAIL : i == 50 ? SS_UNSTABLE : SS_PASS);
	}
	st->rows_dropped = 5;
	st->checks[SS_PASS] = 58;
	st->checks[SS_FAIL] = 1;
	st->checks[SS_UNSTABLE] = 1;
	snprintf(st->failed, sizeof(st->failed), "k.v40");
	snprintf(st->unstable, sizeof(st->unstable), "k.v50");
	snprintf(st->saved, sizeof(st->saved), "\\pmuboot\\results-0001.jsonl on the boot medium");
	snprintf(st->end_status, sizeof(st->end_status), "ok");
	snprintf(st->next, sizeof(st->next), "rebooting in 10 s");
	st->finished = true;
	lay_out(100, 31);

	assert_string_equal(fr->text[0] + strlen(fr->text[0]) - strlen("finished: clean "), "finished: clean ");
	/* The summary sits above the last row, ending with Saved. */
	assert_string_equal(fr->text[29], "Saved     \\pmuboot\\results-0001.jsonl on the boot medium");
	assert_string_equal(fr->text[28], "Errors    none");
	unsigned first = 0;
	for (unsigned r = 7; r < 30; r++)
		if (!strncmp(fr->text[r], "Measured", 8))
			first = r;
	assert_true(first > 8);
	assert_string_equal(fr->text[first], "Measured  4 figures of 17 variants (ref, store_forward); 11 reps x 1000 "
					     "iterations each");
	assert_string_equal(fr->text[first + 1], "Checks    58 passed, 1 failed, 1 unstable, 0 skipped");
	assert_int_equal(fr->attr[first + 1], SL_FAIL);
	assert_string_equal(fr->text[first + 2], "Failed    k.v40");
	assert_string_equal(fr->text[first + 3], "Unstable  k.v50");
	/*
	 * The table between, in run order: the failed and unstable rows are kept whatever their place, the
	 * room left goes to the first others, and a line says how many are left out (those dropped too).
	 */
	starts_with(7, "  variant (60 rows)");
	unsigned shown = first - 8 - 1;	/* rows 8 .. first - 2, then the line saying how many are left out */
	assert_true(shown > 2 && shown < 40);
	starts_with(8, "  k.v0 ");
	snprintf(name, sizeof(name), "  k.v%u ", shown - 3);
	starts_with(8 + shown - 3, name);
	starts_with(8 + shown - 2, "  k.v40 ");
	assert_int_equal(fr->attr[8 + shown - 2], SL_FAIL);
	starts_with(8 + shown - 1, "  k.v50 ");
	assert_int_equal(fr->attr[8 + shown - 1], SL_UNSTABLE);
	char more[120];
	snprintf(more, sizeof(more), "  ... %u more rows in the results file and on serial", 60 - shown + 5);
	starts_with(first - 1, more);
	/* The last row says what happens next; a line written after the summary takes its place. */
	assert_string_equal(fr->text[30], "Next: rebooting in 10 s");
	st->message_after_summary = true;
	snprintf(st->message, sizeof(st->message), "rebooting in 9 s");
	lay_out(100, 31);
	assert_string_equal(fr->text[30], "rebooting in 9 s");
	/* Errors make the title say so, and are listed. */
	st->nerrors = 6;
	for (unsigned i = 0; i < SS_ERRORS; i++)
		snprintf(st->errors[i], sizeof(st->errors[i]), "argument %u: bogus", i + 1);
	lay_out(100, 31);
	assert_string_equal(fr->text[0] + strlen(fr->text[0]) - strlen("finished: 6 errors "), "finished: 6 errors ");
	assert_string_equal(fr->text[29], "Saved     \\pmuboot\\results-0001.jsonl on the boot medium");
	assert_string_equal(fr->text[28], "          ... 2 more (see the error records)");
	assert_string_equal(fr->text[24], "Errors    argument 1: bogus");
}

/* Instruction forms only (bench=none instr=...): the summary counts the forms, not "no benchmarks ran". */
static void forms_counted_in_the_summary(void **state)
{
	(void)state;
	one_processor();
	st->bench_done = 0;
	st->instr_done = 5;
	snprintf(cfg.bench, sizeof(cfg.bench), "none");
	snprintf(cfg.instr, sizeof(cfg.instr), "^ADD r64");
	st->finished = true;
	lay_out(120, 40);
	bool forms = false;
	for (unsigned r = 0; r < 40; r++) {
		assert_null(strstr(fr->text[r], "no benchmarks ran"));
		forms = forms || !strcmp(fr->text[r], "Forms     5 instruction forms (instr=^ADD r64): latency as cycles/it, "
							 "pair and tp beside it");
	}
	assert_true(forms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_run_while_it_runs, fresh, done),
		cmocka_unit_test_setup_teardown(a_narrow_screen, fresh, done),
		cmocka_unit_test_setup_teardown(many_rows_while_running, fresh, done),
		cmocka_unit_test_setup_teardown(the_summary_at_the_end, fresh, done),
		cmocka_unit_test_setup_teardown(forms_counted_in_the_summary, fresh, done),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
