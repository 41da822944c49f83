/*
 * Leaving the machine as found: counters in use by firmware are reported
 * and left alone (or taken over with force_counters), every MSR written is
 * restored on each exit path (normal end, an error while programming, a
 * fault in the middle of a pass), overflow-safe deltas, and the no-PMU cases.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tests/fake/capture.h"
#include "tests/fake/fake_pmu.h"
#include "pmu/count/count.h"
#include "pmu/count/msr_save.h"

#include "tests/unit/count_test.h"

/* Firmware on Skylake: PMC3 counting cycles, fixed counter 0 on, both enabled globally. */
static void skylake_with_firmware(bool force)
{
	if (!fake_count_prepare("skylake", force, false))
		fail_msg("no skylake preset");
	fake_pmu_poke(0x189, 0x43003C);
	fake_pmu_poke(0x4C4, 12345);
	fake_pmu_poke(0x38D, 0x3);
	fake_pmu_poke(0x38F, 0x1000000FFull);
	fake_pmu_poke(0x309, 777);
	if (!fake_count_init(why, sizeof(why)))
		fail_msg("init: %s", why);
	memset(&set, 0, sizeof(set));
}

static bool wrote(uint32_t msr, size_t from)
{
	for (size_t i = from; i < fake_log_count(); i++)
		if (fake_log_at(i)->msr == msr)
			return true;
	return false;
}

static void in_use_left_alone(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	struct capture cap;
	static struct rec r;
	skylake_with_firmware(false);
	/* Record: both counters named, not forced. */
	capture_start(&cap);
	rec_start(&r, "pmu");
	count_state_fields(&r);
	rec_emit(&r);
	const char *rec = capture_find(&cap, "pmu");
	assert_non_null(strstr(rec, "{\"counter\":\"pmc3\",\"msr\":\"0x189\",\"value\":\"0x43003c\",\"forced\":false}"));
	assert_non_null(strstr(rec, "{\"counter\":\"fixed0\",\"msr\":\"0x38d\",\"value\":\"0x3\",\"forced\":false}"));
	assert_non_null(strstr(rec, "\"global_ctrl\":\"0x1000000ff\""));
	assert_non_null(strstr(rec, "\"counters_general\":7"));
	assert_non_null(strstr(rec, "\"counters_fixed\":2"));
	capture_free(&cap);

	/* Eight general-capable events: PMC3 is skipped, so two passes. */
	add(fake_spec("INST_RETIRED.ANY_P", 0xC0, 0, 0, 0));	/* fixed 0 busy: general counter */
	for (int i = 0; i < 7; i++)
		add(fake_spec("gp", (uint16_t)(0x10 + i), 0, EV_NO_FIXED, 0));
	schedule();
	assert_int_equal(set.passes, 2);
	for (size_t i = 0; i < set.n; i++) {
		assert_int_not_equal(set.counter_of[i], 3);
		assert_int_equal(set.fixed_of[i], -1);
	}
	size_t mark = fake_log_count();
	assert_true(count_backend()->pass_begin(&set, 0, err, sizeof(err)));
	/* GLOBAL_CTRL keeps the firmware's bits (PMC3, fixed 0) and drops the rest. */
	assert_int_equal(fake_log_at(mark)->msr, 0x38F);
	assert_int_equal(fake_log_at(mark)->value, 0x100000008ull);
	assert_int_equal(set.start.w[0].value, 0x100000008ull | 0xF7);	/* PMCs 0-2 and 4-7 */
	assert_int_equal(set.stop.w[0].value, 0x100000008ull);
	count_backend()->pass_end(&set, 0);
	assert_true(fake_count_pass(&set, 1, 3, v, err, sizeof(err)));
	/* Nothing of theirs was written: their select, counters and FIXED_CTR_CTRL field. */
	assert_false(wrote(0x189, 0));
	assert_false(wrote(0x4C4, 0));
	assert_false(wrote(0xC4, 0));
	assert_false(wrote(0x309, 0));
	assert_false(wrote(0x38D, 0));	/* no fixed counter of ours: the register is not touched */
	count_restore();
	assert_int_equal(fake_pmu_peek(0x38F), 0x1000000FFull);
	assert_int_equal(fake_pmu_peek(0x189), 0x43003C);
	assert_int_equal(fake_pmu_peek(0x38D), 0x3);
}

static void force_takes_over_and_restores(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	skylake_with_firmware(true);
	add(fake_spec("INST_RETIRED.ANY", 0x00, 0x01, 0, 0));
	for (int i = 0; i < 8; i++)
		add(fake_spec("gp", (uint16_t)(0x10 + i), 0, EV_NO_FIXED, 0));
	schedule();
	assert_int_equal(set.passes, 1);
	assert_int_equal(set.fixed_of[0], 0);
	assert_int_equal(set.counter_of[4], 3);
	assert_true(fake_count_pass(&set, 0, 4, v, err, sizeof(err)));
	assert_int_equal(v[0], 4);
	assert_int_equal(v[4], 4);
	assert_true(wrote(0x189, 0));
	count_restore();
	/* Their configuration and counts are back as found. */
	assert_int_equal(fake_pmu_peek(0x189), 0x43003C);
	assert_int_equal(fake_pmu_peek(0x4C4), 12345);
	assert_int_equal(fake_pmu_peek(0x309), 777);
	assert_int_equal(fake_pmu_peek(0x38D), 0x3);
	assert_int_equal(fake_pmu_peek(0x38F), 0x1000000FFull);
}

static void every_counter_in_use(void **state)
{
	(void)state;
	if (!fake_count_prepare("p6", false, false))
		fail_msg("no p6 preset");
	fake_pmu_poke(0x186, 0x430079);	/* EN in PerfEvtSel0: both counters run */
	assert_false(fake_count_init(why, sizeof(why)));
	assert_non_null(strstr(why, "every counter is in use"));
	assert_int_equal(fake_log_count(), 0);
	assert_false(count_available());
	assert_non_null(count_unavailable_reason());
}

/* Snapshot of the modelled PMU, to compare before and after. */
static struct pmu_model before;

static void snapshot(void) { before = *fake_pmu(); }

static void assert_as_found(void)
{
	const struct pmu_model *m = fake_pmu();
	assert_memory_equal(m->sel, before.sel, sizeof(before.sel));
	assert_memory_equal(m->ctr, before.ctr, sizeof(before.ctr));
	assert_memory_equal(m->fixed_ctr, before.fixed_ctr, sizeof(before.fixed_ctr));
	assert_int_equal(m->fixed_ctrl, before.fixed_ctrl);
	assert_int_equal(m->global_ctrl, before.global_ctrl);
	assert_int_equal(msr_save_count(), 0);
}

static void prepare_dirty(const char *key)
{
	if (!fake_count_prepare(key, false, false))
		fail_msg("no preset %s", key);
	/* Values an earlier user left behind in free counters (EN clear). */
	fake_pmu_poke(0xC1, 0x1234);
	fake_pmu_poke(0x187, 0x1300C4);
	fake_pmu_poke(0xC0010201, 0xABCDEF);
	snapshot();
	if (!fake_count_init(why, sizeof(why)))
		fail_msg("init: %s", why);
	memset(&set, 0, sizeof(set));
}

static void restore_after_normal_end(void **state)
{
	(void)state;
	static const char *const keys[] = { "p6", "intel-v1", "core2", "silvermont", "goldmont", "skylake",
					    "icelake", "fam10h", "zen", "zen4", "hygon" };
	uint64_t v[COUNT_MAX_EVENTS];
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		prepare_dirty(keys[k]);
		bool intel = keys[k][0] != 'f' && keys[k][0] != 'z' && keys[k][0] != 'h';
		/* Codes no vendor table restricts: the fake PMU counts a restricted event (P6's and Core 2's
		 * 10H-13H are counter 0 or 1 only) on a forbidden counter as nothing. */
		add(fake_spec("a", 0x50, 0, EV_NO_FIXED, 0));
		add(fake_spec("b", 0x51, 0, EV_NO_FIXED, 0));
		add(fake_spec("c", 0x52, 0, EV_NO_FIXED, 0));
		if (intel && strcmp(keys[k], "p6") && strcmp(keys[k], "intel-v1"))
			add(fake_spec("INST_RETIRED.ANY", 0x00, 0x01, 0, 0));
		schedule();
		for (unsigned p = 0; p < set.passes; p++)
			if (!fake_count_pass(&set, p, 11, v, err, sizeof(err)))
				fail_msg("%s pass %u: %s", keys[k], p, err);
		for (size_t i = 0; i < set.n; i++)
			assert_int_equal(v[i], 11);
		count_restore();
		assert_as_found();
		/* Twice is harmless and writes nothing more. */
		size_t n = fake_log_count();
		count_restore();
		assert_int_equal(fake_log_count(), n);
	}
}

/* A write that faults half-way through programming: the error path restores too. */
static bool fault_on_fixed0(void *ctx, uint32_t msr, uint64_t val, int *result)
{
	(void)ctx;
	if (msr == 0x309) {
		*result = HW_FAULT_GP;
		return true;
	}
	return pmu_model_wrmsr(fake_pmu(), msr, val, result);
}

static bool model_read(void *ctx, uint32_t msr, uint64_t *val, int *result)
{
	(void)ctx;
	return pmu_model_rdmsr(fake_pmu(), msr, val, result);
}

static void restore_after_error(void **state)
{
	(void)state;
	struct capture cap;
	prepare_dirty("goldmont");
	add(fake_spec("gp", 0x10, 0, EV_NO_FIXED, 0));
	add(fake_spec("INST_RETIRED.ANY", 0x00, 0x01, 0, 0));
	schedule();
	static const struct fake_msr_hook faulty = { model_read, fault_on_fixed0, NULL, NULL };
	fake_set_hook(&faulty);
	assert_false(count_backend()->pass_begin(&set, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "0x309"));
	assert_non_null(strstr(err, "#GP"));
	assert_true(msr_save_count() > 0);
	capture_start(&cap);
	count_restore();
	const char *rec = capture_find(&cap, "restore");
	assert_non_null(rec);
	assert_non_null(strstr(rec, "\"exact\":true"));
	capture_free(&cap);
	assert_as_found();
}

/* Without a full-width alias (Nehalem) a counter found with bits above 31 cannot be put back
 * exactly: the restore says so for that counter and restores bits 31:0. */
static void legacy_counter_restore_named(void **state)
{
	(void)state;
	struct capture cap;
	uint64_t v[COUNT_MAX_EVENTS];
	if (!fake_count_prepare("nehalem", false, false))
		fail_msg("no nehalem preset");
	fake_pmu_poke(0xC1, 0x1287654321ull);		/* IA32_PMC0: bits 39:32 and 31 set */
	fake_pmu_poke(0xC2, 0x7FFF0000ull);		/* IA32_PMC1: representable */
	if (!fake_count_init(why, sizeof(why)))
		fail_msg("%s", why);
	memset(&set, 0, sizeof(set));
	add(fake_spec("a", 0x50, 0, EV_NO_FIXED, 0));
	add(fake_spec("b", 0x51, 0, EV_NO_FIXED, 0));
	schedule();
	if (!fake_count_pass(&set, 0, 3, v, err, sizeof(err)))
		fail_msg("%s", err);
	capture_start(&cap);
	count_restore();
	const char *rec = capture_find(&cap, "restore");
	assert_non_null(rec);
	assert_non_null(strstr(rec, "\"inexact_counters\":[{\"counter\":\"pmc0\",\"msr\":\"0xc1\","
				    "\"found\":\"0x1287654321\",\"restorable\":\"0xffff87654321\""));
	assert_null(strstr(rec, "\"pmc1\""));
	assert_non_null(strstr(rec, "\"exact\":false"));
	capture_free(&cap);
	/* What could go back did: bits 31:0 of pmc0, all of pmc1. */
	assert_int_equal(fake_pmu_peek(0xC1) & 0xFFFFFFFFull, 0x87654321ull);
	assert_int_equal(fake_pmu_peek(0xC2), 0x7FFF0000ull);
}

/* Time passes between writes: whatever counts while restore runs shows up. */
static bool ticking_write(void *ctx, uint32_t msr, uint64_t val, int *result)
{
	(void)ctx;
	bool mine = pmu_model_wrmsr(fake_pmu(), msr, val, result);
	pmu_model_run(fake_pmu(), 1);
	return mine;
}

/* A fault in the middle of the kernel: counting is on when restore runs. */
static void restore_after_fault_mid_pass(void **state)
{
	(void)state;
	static const char *const keys[] = { "p6", "intel-v1", "skylake", "fam10h", "zen4" };
	static const struct fake_msr_hook ticking = { model_read, ticking_write, NULL, NULL };
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		prepare_dirty(keys[k]);
		add(fake_spec("a", 0x10, 0, EV_NO_FIXED, 0));
		add(fake_spec("b", 0x11, 0, EV_NO_FIXED, 0));
		schedule();
		assert_true(count_backend()->pass_begin(&set, 0, err, sizeof(err)));
		count_toggle_apply(&set.start);
		fake_pmu_run(100);
		fake_set_hook(&ticking);
		assert_true(pmu_model_gp_counting(fake_pmu(), (unsigned)set.counter_of[0]));
		count_restore();	/* what the fatal-fault path calls */
		assert_false(pmu_model_gp_counting(fake_pmu(), (unsigned)set.counter_of[0]));
		fake_pmu_run(100);
		assert_as_found();
	}
}

/* Without full-width writes a 40-bit value cannot be written back exactly: say so. */
static void inexact_restore_is_reported(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	struct capture cap;
	if (!fake_count_prepare("core2", false, false))
		fail_msg("no core2 preset");
	fake_pmu_poke(0xC1, 0x1280000000ull);
	if (!fake_count_init(why, sizeof(why)))
		fail_msg("init: %s", why);
	memset(&set, 0, sizeof(set));
	add(fake_spec("gp", 0x10, 0, EV_NO_FIXED, 0));
	schedule();
	assert_true(fake_count_pass(&set, 0, 1, v, err, sizeof(err)));
	capture_start(&cap);
	count_restore();
	const char *rec = capture_find(&cap, "restore");
	assert_non_null(rec);
	assert_non_null(strstr(rec, "\"exact\":false"));
	assert_non_null(strstr(rec, "{\"msr\":\"0xc1\",\"wrote\":\"0x1280000000\",\"read\":\"0xff80000000\"}"));
	capture_free(&cap);
}

static void overflow_safe_deltas(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	assert_int_equal(count_delta(10, 25, 48), 15);
	assert_int_equal(count_delta((1ull << 48) - 5, 3, 48), 8);
	assert_int_equal(count_delta((1ull << 40) - 1, 0, 40), 1);
	assert_int_equal(count_delta(0, ~0ull, 64), ~0ull);

	/* Wraps through the counter, on a PMU with overflow status and on ones without. */
	static const char *const keys[] = { "goldmont", "core2", "p6", "fam10h", "zen4" };
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		if (!fake_count_setup(keys[k], false, false, why, sizeof(why)))
			fail_msg("%s: %s", keys[k], why);
		memset(&set, 0, sizeof(set));
		add(fake_spec("gp", 0x10, 0, EV_NO_FIXED, 0));
		unsigned width = keys[k][0] == 'g' || keys[k][0] == 'f' || keys[k][0] == 'z' ? 48 : 40;
		set.preset = (1ull << width) - 10;
		schedule();
		if (!fake_count_pass(&set, 0, 25, v, err, sizeof(err)))
			fail_msg("%s: %s", keys[k], err);
		assert_int_equal(v[0], 25);
		count_restore();
	}

	/* More than a whole wrap is an error where the overflow flag shows it. */
	if (!fake_count_setup("core2", false, false, why, sizeof(why)))
		fail_msg("%s", why);
	memset(&set, 0, sizeof(set));
	add(fake_spec("gp", 0x10, 0, EV_NO_FIXED, 0));
	schedule();
	assert_false(fake_count_pass(&set, 0, (1ull << 40) + 5, v, err, sizeof(err)));
	assert_non_null(strstr(err, "overflowed"));
	count_restore();
}

static void no_pmu(void **state)
{
	(void)state;
	assert_false(fake_count_setup("tcg", false, false, why, sizeof(why)));
	assert_string_equal(why, "CPUID.0AH reports no architectural PMU (version 0)");
	assert_int_equal(fake_log_count(), 0);
	memset(&set, 0, sizeof(set));
	add(fake_spec("gp", 0x10, 0, EV_NO_FIXED, 0));
	assert_false(count_backend()->schedule(&set, err, sizeof(err)));
	assert_non_null(strstr(err, "not available"));
	count_restore();
	assert_int_equal(fake_log_count(), 0);
}

/* An emulator that lists AMD's legacy counters but drops the writes (QEMU TCG). */
static bool drop_read(void *ctx, uint32_t msr, uint64_t *val, int *result)
{
	(void)ctx;
	(void)msr;
	*val = 0;
	*result = HW_OK;
	return true;
}

static bool drop_write(void *ctx, uint32_t msr, uint64_t val, int *result)
{
	(void)ctx;
	(void)msr;
	(void)val;
	*result = HW_OK;
	return true;
}

static void writes_that_do_not_stick(void **state)
{
	(void)state;
	static const struct fake_msr_hook tcg = { drop_read, drop_write, NULL, NULL };
	if (!fake_count_prepare("fam10h", false, false))
		fail_msg("no fam10h preset");
	fake_set_hook(&tcg);
	assert_false(fake_count_init(why, sizeof(why)));
	assert_non_null(strstr(why, "do not stick"));
	assert_non_null(strstr(why, "0xc0010000"));
	assert_int_equal(msr_save_count(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_use_left_alone),
		cmocka_unit_test(force_takes_over_and_restores),
		cmocka_unit_test(every_counter_in_use),
		cmocka_unit_test(restore_after_normal_end),
		cmocka_unit_test(restore_after_error),
		cmocka_unit_test(legacy_counter_restore_named),
		cmocka_unit_test(restore_after_fault_mid_pass),
		cmocka_unit_test(inexact_restore_is_reported),
		cmocka_unit_test(overflow_safe_deltas),
		cmocka_unit_test(no_pmu),
		cmocka_unit_test(writes_that_do_not_stick),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
