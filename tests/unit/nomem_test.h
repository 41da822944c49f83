/*
 * tests/unit/nomem_test.h - what the tests of tables that cannot be inflated share
 * (test_events_nomem.c, test_metrics_nomem.c): a heap far too small for any table, records
 * captured from the first access on, and the checks at the end: exactly one record, an error
 * naming the source and why, and nothing taken from the heap.  Header-only (include once,
 * after cmocka.h).
 */
#ifndef PMUBOOT_TESTS_UNIT_NOMEM_TEST_H
#define PMUBOOT_TESTS_UNIT_NOMEM_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/heap.h"
#include "tests/fake/capture.h"

static uint8_t nomem_heap[256];	/* far less than any table needs */

/* The heap with no room; the records from here on captured in cap. */
static void nomem_start(struct capture *cap)
{
	heap_init(nomem_heap, sizeof(nomem_heap));
	capture_start(cap);
}

/* One record only, an error from `source` saying `message`; the heap untouched.  Frees cap. */
static void nomem_check_one_error(struct capture *cap, const char *source, const char *message)
{
	char quoted[64];
	snprintf(quoted, sizeof(quoted), "\"%s\"", source);
	assert_int_equal(capture_record_count(cap), 1);
	const char *e = capture_find(cap, "error");
	assert_non_null(e);
	assert_non_null(strstr(e, message));
	assert_non_null(strstr(e, quoted));
	/* Nothing was taken from the heap that the run could use for something else. */
	assert_int_equal(heap_used(), 0);
	capture_free(cap);
}

#endif
