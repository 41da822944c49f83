/*
 * tests/unit/suite_test.h - what the benchmark-stage tests share (include
 * once, after cmocka.h): a scripted counting backend, a Skylake client core
 * with fake arenas and timing, the captured records, and the teardown.
 */
#ifndef PMUBOOT_TESTS_UNIT_SUITE_TEST_H
#define PMUBOOT_TESTS_UNIT_SUITE_TEST_H

#include <stdio.h>
#include <string.h>

#include "bench/stage.h"
#include "events/events.h"
#include "lib/x86/msr_intel.h"
#include "pmu/count/count.h"
#include "tests/fake/arena_fake.h"
#include "tests/fake/capture.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/timing_fake.h"

#define ITERATIONS 256

/*
 * Counts per iteration by role: cycles 1, instructions 2, any other role 1,
 * raw events 0; each read is one run (N or 2N iterations, alternately) plus
 * 777 of overhead the differential must cancel.  No MSR lists: nothing is
 * written, so the kernels run as they would under perf.
 */
static struct {
	bool init_ok;
	bool backwards;		/* every 2N run reads less than its N run: impossible */
	bool smi_each_read;	/* MSR_SMI_COUNT moves during every counted run: every window disturbed */
	unsigned reads;
} fk;

static bool fk_init(const struct cpu_info *ci, const struct pmu_caps *caps, const struct count_opts *opts, char *why,
		    size_t cap)
{
	(void)ci, (void)caps, (void)opts;
	if (!fk.init_ok)
		snprintf(why, cap, "fake: no counters");
	return fk.init_ok;
}

static bool fk_schedule(struct count_set *set, char *err, size_t cap)
{
	(void)err, (void)cap;
	/* Four counters: more events than that take more passes. */
	set->passes = (unsigned)((set->n + 3) / 4);
	for (size_t i = 0; i < set->n; i++) {
		set->pass_of[i] = (uint8_t)(i / 4);
		set->counter_of[i] = (int8_t)(i % 4);
		set->fixed_of[i] = -1;
	}
	return true;
}

static bool fk_pass_begin(struct count_set *set, unsigned pass, char *err, size_t cap)
{
	(void)pass, (void)err, (void)cap;
	set->start.n = set->stop.n = 0;
	return true;
}

static uint64_t rate(const struct event_spec *sp)
{
	uint32_t roles = sp->roles;
	return (roles & EV_ROLE_INSTRUCTIONS) ? 2 : roles ? 1 : 0;
}

static bool fk_read(struct count_set *set, unsigned pass, uint64_t *v, char *err, size_t cap)
{
	(void)err, (void)cap;
	uint64_t runs = (fk.reads++ % 2) ? 2 : 1;
	if (fk.smi_each_read)
		fake_msr_set(MSR_SMI_COUNT, fake_msr_get(MSR_SMI_COUNT) + 1);
	for (size_t i = 0; i < set->n; i++)
		if (set->pass_of[i] == pass)
			v[i] = fk.backwards && runs == 2 ? 0 : 777 + rate(&set->ev[i]) * runs * ITERATIONS;
	return true;
}

static const struct count_backend fk_backend = {
	.name = "fake", .init = fk_init, .schedule = fk_schedule, .pass_begin = fk_pass_begin, .read = fk_read,
};

static struct cpu_info ci;
static struct capture cap;

/* A Skylake client core (its event set gives the roles' events), counting as init_ok says. */
static void machine(bool counting)
{
	struct pmu_caps caps;
	struct count_opts opts = { false, false };
	/* No TSC rate: no time budget, so the iterations stay at ITERATIONS, which the fake counts are built on
	 * (adaptive iterations: bench/harness.c, tests/unit/test_stats_harness.c). */
	struct timing_info t = { .invariant_tsc = true, .tsc_hz = 0, .tsc_source = "fake",
				 .core_per_tsc_milli = 1300, .core_source = "add_chain", .core_spread_milli = 4 };
	char why[96];

	fake_reset();
	/* The stage as pmuboot-host runs it: a process that does not own the machine (no thermal-log clearing). */
	fake_platform_set(false, false);
	fake_arena_reset(0);
	fake_timing_set(&t);
	memset(&ci, 0, sizeof(ci));
	ci.vendor = VENDOR_INTEL;
	ci.family = 6;
	ci.model = 0x5E;
	ci.event_set = "skylake";
	memset(&caps, 0, sizeof(caps));
	memset(&fk, 0, sizeof(fk));
	fk.init_ok = counting;
	count_use_backend(&fk_backend);
	assert_int_equal(count_init(&ci, &caps, &opts, why, sizeof(why)), counting);
	capture_start(&cap);
}

static int teardown(void **state)
{
	(void)state;
	capture_free(&cap);
	count_use_backend(&count_backend_msr);
	fake_platform_set(false, true);
	fake_arena_reset(0);
	return 0;
}

#endif
