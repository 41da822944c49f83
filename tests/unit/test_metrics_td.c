/*
 * PERF_METRICS fields as events (pmu/count/count.h count_td_field): decoding a register value into slots, the
 * scheduler putting each field with its set's TOPDOWN.SLOTS, and the MSR backend against the PMU model of an
 * Ice Lake whose IA32_PERF_CAPABILITIES reports PERF_METRICS: what it programs, what it reads, and that it
 * clears fixed counter 3 then IA32_PERF_METRICS after every read so the next run's fractions are its own.
 *
 * The decoding is the SDM's definition as Linux applies it (perf's topdown.txt and intel_update_topdown_event;
 * the SDM's own worked example was not at hand): byte i of IA32_PERF_METRICS is field i's share of the
 * TOPDOWN.SLOTS counted since both registers were cleared, in 255ths; field i's slots = SLOTS x byte / 0xFF.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "tests/fake/fake_pmu.h"
#include "tests/fake/hw_fake.h"
#include "pmu/count/count.h"
#include "pmu/count/msr_save.h"
#include "lib/x86/msr_intel.h"
#include "tests/unit/count_test.h"

typedef unsigned __int128 u128;

/* Bytes b0..b7 as an IA32_PERF_METRICS value. */
static uint64_t pm(const uint8_t b[8])
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static void decoding(void **state)
{
	(void)state;
	/* Retiring 0x40, bad speculation 0x20, frontend 0x60, backend 0x3F: the level-1 bytes sum to 0xFF.  With
	 * 2550 slots: 2550 x 64 / 255 = 640, x 32 = 320, x 96 = 960, x 63 = 630, and they sum to the slots. */
	const uint8_t b[8] = { 0x40, 0x20, 0x60, 0x3F, 0x10, 0x08, 0x30, 0x2A };
	uint64_t v = pm(b), sum = 0;
	static const uint64_t want[4] = { 640, 320, 960, 630 };
	for (unsigned f = 0; f < 4; f++) {
		assert_int_equal(count_td_slots(v, f, 2550), want[f]);
		sum += count_td_slots(v, f, 2550);
	}
	assert_int_equal(sum, 2550);
	/* Level 2 (Golden Cove on): heavy operations 0x10 of 2550 = 160; memory bound 0x2A = 420. */
	assert_int_equal(count_td_slots(v, 4, 2550), 160);
	assert_int_equal(count_td_slots(v, 7, 2550), 420);
	/* Rounded down, as Linux does: 1000 slots x 0x40 / 255 = 250.98 -> 250. */
	assert_int_equal(count_td_slots(v, 0, 1000), 250);
	/* No overflow for a huge count: against a 128-bit product. */
	uint64_t big = 0xFFFFFFFFFFFFull * 977;
	for (unsigned f = 0; f < 8; f++)
		assert_int_equal(count_td_slots(v, f, big), (uint64_t)((u128)big * b[f] / 255));
	assert_int_equal(count_td_slots(v, 8, 2550), 0);	/* no such field */
	assert_int_equal(count_td_slots(v, 0, 0), 0);
}

static void fields_as_specs(void **state)
{
	(void)state;
	struct event_spec e;
	for (unsigned f = 0; f < PERF_METRICS_FIELDS; f++) {
		count_td_spec(f, "PERF_METRICS.X", &e);
		assert_int_equal(count_td_field(&e), (int)f);
		assert_int_equal(e.umask, 0x80 + f);	/* perf's raw config 0x8000 + 0x100 x field */
		assert_int_equal(e.fixed, EV_NO_FIXED);
	}
	count_td_spec(2, "PERF_METRICS.FRONTEND_BOUND", &e);
	e.cmask = 1;	/* a qualifier makes it an ordinary (meaningless) encoding, not a field */
	assert_int_equal(count_td_field(&e), -1);
	e = fake_spec("TOPDOWN.SLOTS", 0x00, 0x04, 3, 0);
	assert_int_equal(count_td_field(&e), -1);
	e = fake_spec("raw", 0x00, 0x88, -1, 0);	/* past the eight fields */
	assert_int_equal(count_td_field(&e), -1);
}

/* An Ice Lake with PERF_METRICS (IA32_PERF_CAPABILITIES bit 15) behind the model, counting with the MSR backend. */
static void setup_icelake(void)
{
	static struct cpu_info ci;
	static struct pmu_caps caps;
	const struct fake_cpu *icl = fake_cpu_find("icelake");
	struct count_opts opts = { 0 };
	struct pmu_model_cfg cfg;
	ci = fake_cpu_identified(icl);
	caps = icl->caps;
	caps.perf_metrics = true;
	caps.perf_caps |= PERF_CAP_PERF_METRICS;
	pmu_model_cfg_from_caps(&cfg, &ci, &caps);
	pmu_model_cfg_machine(&cfg, &ci, &caps);
	fake_pmu_install_cfg(&cfg);
	msr_save_forget();
	count_use_backend(&count_backend_msr);
	if (!count_init(&ci, &caps, &opts, why, sizeof(why)))
		fail_msg("init: %s", why);
	memset(&set, 0, sizeof(set));
}

static struct event_spec td(unsigned field)
{
	static const char *const names[] = { "PERF_METRICS.RETIRING", "PERF_METRICS.BAD_SPECULATION",
					     "PERF_METRICS.FRONTEND_BOUND", "PERF_METRICS.BACKEND_BOUND",
					     "PERF_METRICS.HEAVY_OPERATIONS", "PERF_METRICS.BRANCH_MISPREDICTS",
					     "PERF_METRICS.FETCH_LATENCY", "PERF_METRICS.MEMORY_BOUND" };
	struct event_spec e;
	count_td_spec(field, names[field], &e);
	return e;
}

static void scheduled_with_their_slots(void **state)
{
	(void)state;
	setup_icelake();
	/* More general events than counters, so two passes; the fields go where TOPDOWN.SLOTS went. */
	add(td(0));
	for (int i = 0; i < 9; i++)
		add(fake_spec("LD_BLOCKS.STORE_FORWARD", 0x03, 0x02, -1, 0));
	add(fake_spec("TOPDOWN.SLOTS", 0x00, 0x04, 3, 0));
	add(td(3));
	schedule();
	assert_true(set.passes >= 2);	/* at most 8 general counters a pass, fewer where the event's rule says */
	size_t slots = 10;
	assert_int_equal(set.fixed_of[slots], FIXED_TOPDOWN_SLOTS);
	for (size_t i = 0; i < set.n; i++)
		if (count_td_field(&set.ev[i]) >= 0) {
			assert_int_equal(set.pass_of[i], set.pass_of[slots]);
			assert_int_equal(set.counter_of[i], -1);
			assert_int_equal(set.fixed_of[i], -1);
		}
	count_restore();

	/* Fields without TOPDOWN.SLOTS in the set: refused, naming the field. */
	setup_icelake();
	add(fake_spec("LD_BLOCKS.STORE_FORWARD", 0x03, 0x02, -1, 0));
	add(td(2));
	assert_false(count_backend()->schedule(&set, err, sizeof(err)));
	assert_non_null(strstr(err, "PERF_METRICS.FRONTEND_BOUND"));
	assert_non_null(strstr(err, "fixed counter 3"));
	count_restore();
}

/*
 * The model's workload: per unit, 100 slots (fixed counter 3) split as the architectural top-down events
 * count: retiring (C2H/02H) 40, bad speculation (73H) 10, frontend (9CH/01H) 20, backend (A4H/02H) 30;
 * memory bound (A4H/10H) 12; and 5 store-forward blocks.  The model turns those into PERF_METRICS bytes.
 */
static uint64_t rate(void *ctx, uint16_t event, uint8_t umask)
{
	(void)ctx;
	static const struct { uint16_t e; uint8_t u; uint64_t r; } rates[] = {
		{ 0x00, 0x04, 100 }, { 0xC2, 0x02, 40 }, { 0x73, 0x00, 10 }, { 0x9C, 0x01, 20 },
		{ 0xA4, 0x02, 30 }, { 0xA4, 0x10, 12 }, { 0x03, 0x02, 5 },
	};
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].e == event && rates[i].u == umask)
			return rates[i].r;
	return 0;
}

static void run_and_read(uint64_t units, uint64_t *v)
{
	count_toggle_apply(&set.start);
	fake_pmu_run(units);
	count_toggle_apply(&set.stop);
	if (!count_backend()->read(&set, 0, v, err, sizeof(err)))
		fail_msg("read: %s", err);
}

static long first_write_of(size_t from, uint32_t msr)
{
	for (size_t i = from; i < fake_log_count(); i++)
		if (fake_log_at(i)->msr == msr)
			return (long)i;
	return -1;
}

static void read_as_slots_and_cleared_after_each_read(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup_icelake();
	fake_pmu_set_rate(rate, NULL);
	add(fake_spec("TOPDOWN.SLOTS", 0x00, 0x04, 3, 0));
	add(td(0));	/* retiring */
	add(td(2));	/* frontend bound */
	add(td(3));	/* backend bound */
	add(td(7));	/* memory bound */
	add(fake_spec("LD_BLOCKS.STORE_FORWARD", 0x03, 0x02, -1, 0));
	schedule();
	assert_int_equal(set.passes, 1);
	begin(0);
	/* PERF_METRICS on with the pass: GLOBAL_CTRL bit 48 in the start list. */
	assert_true(set.start.w[0].value & GLOBAL_CTRL_EN_PERF_METRICS);

	size_t mark = fake_log_count();
	run_and_read(1000, v);
	/* 100000 slots; bytes round(255 x share): retiring 102 (0.4), frontend 51, backend 77 (0.3 -> 76.5 -> 77),
	 * memory bound 0.12 x 255 = 30.6 -> 31.  Each field: 100000 x byte / 255, rounded down. */
	assert_int_equal(v[0], 100000);
	assert_int_equal(v[1], 100000ull * 102 / 255);
	assert_int_equal(v[2], 100000ull * 51 / 255);
	assert_int_equal(v[3], 100000ull * 77 / 255);
	assert_int_equal(v[4], 100000ull * 31 / 255);
	assert_int_equal(v[5], 5000);
	/* Cleared after the read: fixed counter 3 first, then IA32_PERF_METRICS. */
	long fc3 = first_write_of(mark, MSR_IA32_FIXED_CTR0 + FIXED_TOPDOWN_SLOTS), pmw = first_write_of(mark, MSR_IA32_PERF_METRICS);
	assert_true(fc3 >= 0 && pmw > fc3);
	assert_int_equal(fake_pmu_peek(MSR_IA32_PERF_METRICS), 0);

	/* A second run of twice the work reads as its own, not as the sum since the pass began. */
	run_and_read(2000, v);
	assert_int_equal(v[0], 200000);
	assert_int_equal(v[1], 200000ull * 102 / 255);
	assert_int_equal(v[4], 200000ull * 31 / 255);
	assert_int_equal(v[5], 10000);
	count_backend()->pass_end(&set, 0);
	count_restore();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decoding),
		cmocka_unit_test(fields_as_specs),
		cmocka_unit_test(scheduled_with_their_slots),
		cmocka_unit_test(read_as_slots_and_cleared_after_each_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
