/*
 * tests/fake/timing_fake.h - platform/timing.h for unit tests: the figures
 * the test sets, returned by timing_init and timing_get; timing_report
 * emits nothing and is counted; timing_recalibrate returns the same figures
 * and is counted.  (platform/timing_common.c, which measures, is then not
 * linked: a test that calls any fake_timing_* function gets this file's
 * timing_init/get/recalibrate/report.)
 */
#ifndef PMUBOOT_TESTS_FAKE_TIMING_FAKE_H
#define PMUBOOT_TESTS_FAKE_TIMING_FAKE_H

#include "platform/timing.h"

/* The figures timing_init/timing_get return from now on (copied). */
void fake_timing_set(const struct timing_info *t);
/* Calls of timing_init and timing_report since fake_timing_set. */
unsigned fake_timing_inits(void);
unsigned fake_timing_reports(void);
/* Calls of timing_recalibrate (a measuring pass on another processor) since fake_timing_set. */
unsigned fake_timing_recalibrations(void);

#endif
