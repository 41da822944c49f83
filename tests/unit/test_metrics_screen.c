/*
 * The readable screen's top-down column (output/screen_state.c): fed, through the builder, a bench
 * record and the metrics record after it, the variant's row shows the level 1 nodes in whole percent, in the
 * record's order, and the level 2 node with the most; a null node shows as "-"; without a metrics record
 * there is no column.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/screen_state.h"
#include "tests/unit/rec_rebuild.h"

static void screen_record(void *ctx, const struct rec *r)
{
	(void)ctx;
	ss_record(r);
}

static void feed(const char *line)
{
	static const struct out_sink sink = { .name = "screen", .write_line = NULL, .write_record = screen_record };
	out_reset();
	assert_true(out_add_sink(&sink));
	assert_true(rebuild_emit(line, strlen(line)));
	out_reset();
}

static struct ss_row *row(const char *name)
{
	for (unsigned i = 0; i < ssp->nrows; i++)
		if (!strcmp(ssp->rows[i].name, name))
			return &ssp->rows[i];
	return NULL;
}

static void level_one_and_the_largest_level_two(void **state)
{
	(void)state;
	ssp = calloc(1, sizeof(*ssp));
	assert_non_null(ssp);
	feed("@pmuboot {\"type\":\"bench\",\"kernel\":\"store_forward\",\"variant\":\"size_mismatch\",\"arena\":null,"
	     "\"cycles\":{\"median\":14.000},\"unstable\":null,\"cycles_invalid\":null,\"penalty\":{\"median\":9.500}}");
	assert_false(ssp->topdown);
	feed("@pmuboot {\"type\":\"metrics\",\"kernel\":\"store_forward\",\"variant\":\"size_mismatch\",\"arena\":null,"
	     "\"values\":{\"Frontend_Bound\":12.345,\"Fetch_Latency\":10.500,\"Bad_Speculation\":1.499,"
	     "\"Backend_Bound\":70.600,\"Memory_Bound\":60.200,\"Core_Bound\":10.400,\"Retiring\":null,"
	     "\"Info_Thread_IPC\":0.812},"
	     "\"levels\":{\"Frontend_Bound\":1,\"Fetch_Latency\":2,\"Bad_Speculation\":1,\"Backend_Bound\":1,"
	     "\"Memory_Bound\":2,\"Core_Bound\":2,\"Retiring\":1},\"parents\":{}}");
	struct ss_row *r = row("store_forward.size_mismatch");
	assert_non_null(r);
	assert_true(ssp->topdown);
	assert_string_equal(r->topdown, "12/1/71/- Memory_Bound 60");
	assert_string_equal(r->cycles, "14.000");	/* the bench record's figures stay as they were */
	/* AMD's five level 1 nodes, perf's names; a split variant's row is per arena. */
	feed("@pmuboot {\"type\":\"metrics\",\"kernel\":\"split\",\"variant\":\"load_page\",\"arena\":\"4k\","
	     "\"values\":{\"frontend_bound\":5.000,\"bad_speculation\":0.000,\"backend_bound\":80.000,"
	     "\"smt_contention\":0.000,\"retiring\":15.000,\"backend_bound_memory\":72.000,\"backend_bound_cpu\":8.000},"
	     "\"levels\":{\"frontend_bound\":1,\"bad_speculation\":1,\"backend_bound\":1,\"smt_contention\":1,"
	     "\"retiring\":1,\"backend_bound_memory\":2,\"backend_bound_cpu\":2}}");
	r = row("split.load_page @4k");
	assert_non_null(r);
	assert_string_equal(r->topdown, "5/0/80/0/15 backend_bound_memory 72");
	free(ssp);
	ssp = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(level_one_and_the_largest_level_two),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
