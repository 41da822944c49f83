/*
 * The event catalogue when its tables cannot be inflated (events/events.c catalogue_ready): with
 * no heap room the catalogue is empty, not broken.  Every entry point finds nothing, one error
 * record says why (once, however often it is asked), and a named event spec is refused with a
 * message while a raw one still parses, as on a CPU without an event set.  A program of its own:
 * the first catalogue access of the process must be the one that fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "events/events.h"
#include "tests/unit/nomem_test.h"

static void no_memory_means_no_tables(void **state)
{
	(void)state;
	struct capture cap;
	struct event_def d;
	struct event_rule r;
	struct events_iter it;
	struct event_spec spec;
	char err[160];

	nomem_start(&cap);
	assert_int_equal(events_set_count(), 0);
	assert_null(events_set_at(0));
	assert_null(events_set_find("skylake"));
	assert_null(events_set_find("zen3"));
	assert_int_equal(ibs_events_count(), 0);
	assert_null(ibs_event_at(0));
	assert_null(ibs_event_find(0xF000));
	assert_false(events_amd_rule(0x19, 0x76, 0, &r));
	assert_false(events_code_rule(NULL, 0xC0, 0, &r));
	assert_false(events_at(NULL, 0, &d));
	events_iter_start(&it, NULL);
	assert_false(events_next(&it, &d));
	/* Callers meet a NULL set as on a CPU without one: raw specs parse, names are refused. */
	assert_true(event_spec_parse(NULL, false, "r01c0", 5, &spec, err, sizeof(err)));
	assert_int_equal(spec.event, 0xC0);
	assert_false(event_spec_parse(NULL, false, "INST_RETIRED.ANY_P", 18, &spec, err, sizeof(err)));
	assert_true(err[0] != 0);

	nomem_check_one_error(&cap, "events", "no event tables: no memory for the tables");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_memory_means_no_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
