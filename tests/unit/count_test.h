/*
 * tests/unit/count_test.h - the steps the counter-driver tests share:
 * set up a modelled CPU, add events, schedule, begin a pass; each fails
 * the test with the driver's own message.  Header-only (include once,
 * after cmocka.h).
 */
#ifndef PMUBOOT_TESTS_UNIT_COUNT_TEST_H
#define PMUBOOT_TESTS_UNIT_COUNT_TEST_H

#include <string.h>

#include "tests/fake/fake_pmu.h"
#include "pmu/count/count.h"

static char why[256], err[256];
static struct count_set set;

/* A preset of tests/fake/fake_pmu.c (e.g. "skylake"), initialised, with an empty set. */
static inline void setup(const char *key)
{
	if (!fake_count_setup(key, false, false, why, sizeof(why)))
		fail_msg("init on %s: %s", key, why);
	memset(&set, 0, sizeof(set));
}

static inline void add(struct event_spec e) { set.ev[set.n++] = e; }

static inline void schedule(void)
{
	if (!count_backend()->schedule(&set, err, sizeof(err)))
		fail_msg("schedule: %s", err);
}

static inline void begin(unsigned pass)
{
	if (!count_backend()->pass_begin(&set, pass, err, sizeof(err)))
		fail_msg("pass_begin: %s", err);
}

#endif
