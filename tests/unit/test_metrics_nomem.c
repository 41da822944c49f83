/*
 * The top-down metric tables when they cannot be inflated (pmu/metrics/metrics.c tables_ready): with no
 * heap room there are no tables, not broken ones.  Every entry point finds nothing, one error record
 * says why (once, however often it is asked), a core whose vendor publishes formulas is told why it has
 * none, and nothing is taken from the heap.  A program of its own: the first table access of the process
 * must be the one that fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cpu/uarch.h"
#include "pmu/metrics/metrics.h"
#include "tests/unit/nomem_test.h"

static bool no_input(void *ctx, unsigned input, struct mnum *value)
{
	(void)ctx, (void)input, (void)value;
	fail_msg("an input was asked for with no tables");
	return false;
}

static void no_memory_means_no_tables(void **state)
{
	(void)state;
	struct capture cap;
	struct metric_info mi;
	struct metric_input in;
	struct metric_result res;
	struct cpu_info ci;
	const char *why = NULL;
	char buf[METRIC_NAME_MAX];
	uint16_t ins[8];

	nomem_start(&cap);
	assert_false(metrics_ready());
	assert_int_equal(metrics_table_count(), 0);
	assert_null(metrics_table_at(0));
	assert_null(metrics_table_find("skylake"));
	assert_int_equal(metrics_input_total(), 0);
	metrics_input_at(0, &in);
	assert_string_equal(in.name, "");
	/* A table pointer that is not one of the tables (here none) reaches nothing. */
	const struct metrics_table *bogus = (const struct metrics_table *)(const void *)nomem_heap;
	assert_int_equal(metrics_count(bogus), 0);
	assert_int_equal(metrics_count(NULL), 0);
	assert_string_equal(metrics_table_key(bogus, buf), "");
	assert_string_equal(metrics_table_source(NULL, buf), "");
	metrics_at(bogus, 0, &mi);
	assert_string_equal(mi.name, "");
	assert_string_equal(mi.unit, "");
	assert_int_equal(metrics_index(bogus, "Frontend_Bound"), -1);
	assert_int_equal(metrics_inputs(bogus, METRICS_ALL, ins, 8), 0);
	metrics_eval(bogus, 0, no_input, NULL, &res);
	assert_int_equal(res.why, METRIC_RANGE);

	/* A Skylake, whose vendor publishes formulas, is told the tables are missing, not that it has none. */
	memset(&ci, 0, sizeof(ci));
	ci.event_set = "skylake";
	ci.event_set_basis = uarch_basis_name(BASIS_VENDOR);
	assert_null(metrics_for_cpu(&ci, &why));
	assert_non_null(why);
	assert_non_null(strstr(why, "could not be inflated"));

	assert_false(metrics_ready());
	nomem_check_one_error(&cap, "metrics", "no top-down metric tables: no memory for the tables");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_memory_means_no_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
