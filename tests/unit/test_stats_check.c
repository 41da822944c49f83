/* bench/check: the self-check records - reference ranges, events per iteration, the penalty's sign, skips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bench/check.h"
#include "bench/kernels.h"
#include "events/events.h"
#include "tests/fake/capture.h"

static struct capture cap;
static struct rec rec;
static struct check_tally tally;

static struct check_input base(const char *kernel, const char *variant, int64_t cycles, int64_t control_cycles)
{
	struct check_input in;
	memset(&in, 0, sizeof(in));
	in.r = &rec;
	in.d = bench_def_find(kernel, variant);
	in.variant.measured = true;
	in.variant.cycles = (struct bench_figure){ cycles, cycles, cycles, 5 };
	if (control_cycles >= 0) {
		in.control.measured = true;
		in.control.cycles = (struct bench_figure){ control_cycles, control_cycles, control_cycles, 5 };
	}
	return in;
}

static int setup(void **state)
{
	(void)state;
	capture_start(&cap);
	memset(&tally, 0, sizeof(tally));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	capture_free(&cap);
	return 0;
}

/* The i-th record must contain every fragment given. */
static void expect_record(size_t i, const char *const *frags, size_t n)
{
	const char *r = capture_record(&cap, i);
	assert_non_null(r);
	for (size_t k = 0; k < n; k++)
		if (!strstr(r, frags[k]))
			fail_msg("record %zu lacks %s: %s", i, frags[k], r);
}
#define EXPECT(i, ...)                                                        \
	do {                                                                  \
		static const char *const f_[] = { __VA_ARGS__ };               \
		expect_record((i), f_, sizeof(f_) / sizeof(f_[0]));           \
	} while (0)

static void reference_in_range_passes_and_out_fails(void **state)
{
	(void)state;
	struct check_input in = base("ref", "add_chain", 1003, -1);
	bench_checks(&in, &tally);
	in = base("ref", "load_chain", 9000, -1);
	bench_checks(&in, &tally);
	assert_int_equal(tally.pass, 1);
	assert_int_equal(tally.fail, 1);
	EXPECT(0, "\"type\":\"check\"", "\"what\":\"reference\"", "\"value\":1.003", "\"expected_min\":0.950",
	       "\"status\":\"pass\"");
	EXPECT(1, "\"variant\":\"load_chain\"", "\"value\":9.000", "\"status\":\"fail\"");
}

static void reference_skipped_without_real_cycles(void **state)
{
	(void)state;
	struct check_input in = base("ref", "add_chain", 40000, -1);
	in.emulator = true;
	bench_checks(&in, &tally);
	in = base("ref", "add_chain", 40000, -1);
	in.cycles_uncalibrated = true;
	bench_checks(&in, &tally);
	assert_int_equal(tally.skip, 2);
	EXPECT(0, "\"status\":\"skip\"", "emulator");
	EXPECT(1, "\"status\":\"skip\"", "raw TSC");
}

static void timing_penalty_sign(void **state)
{
	(void)state;
	struct check_input in = base("store_forward", "size_mismatch", 20000, 500);
	bench_checks(&in, &tally);
	in = base("store_forward", "size_mismatch", 400, 500);
	bench_checks(&in, &tally);
	in = base("store_forward", "size_mismatch", 400, 500);
	in.emulator = true;
	bench_checks(&in, &tally);
	in = base("store_forward", "size_mismatch", 400, -1);
	bench_checks(&in, &tally);
	assert_int_equal(tally.pass, 1);
	assert_int_equal(tally.fail, 1);
	assert_int_equal(tally.skip, 2);
	EXPECT(0, "\"what\":\"timing\"", "\"penalty\":19.500", "\"expected\":\"penalty > 0\"", "\"status\":\"pass\"");
	EXPECT(1, "\"penalty\":-0.100", "\"status\":\"fail\"");
	EXPECT(2, "\"status\":\"skip\"", "emulator");
	EXPECT(3, "\"status\":\"skip\"", "control not measured");
}

static void events_about_one_per_iteration(void **state)
{
	(void)state;
	const struct check_event v_ok[] = { { "LD_BLOCKS.STORE_FORWARD", EV_ROLE_STLF_BLOCK, { 990, 1000, 1010, 5 } } };
	const struct check_event v_low[] = { { "LD_BLOCKS.STORE_FORWARD", EV_ROLE_STLF_BLOCK, { 100, 200, 300, 5 } } };
	const struct check_event c_zero[] = { { "LD_BLOCKS.STORE_FORWARD", EV_ROLE_STLF_BLOCK, { 0, 0, 1, 5 } } };
	const struct check_event c_busy[] = { { "LD_BLOCKS.STORE_FORWARD", EV_ROLE_STLF_BLOCK, { 400, 500, 600, 5 } } };
	static const struct event_set dummy = { .key = "dummy", .name = "dummy" };

	struct check_input in = base("store_forward", "size_mismatch", 20000, 500);
	in.counting = true;
	in.set = &dummy;
	in.variant.ev = v_ok, in.variant.nev = 1;
	in.control.ev = c_zero, in.control.nev = 1;
	bench_checks(&in, &tally);	/* events pass, timing pass */
	in.variant.ev = v_low;
	bench_checks(&in, &tally);	/* events fail */
	in.variant.ev = v_ok;
	in.control.ev = c_busy;
	bench_checks(&in, &tally);	/* control counts too: fail */
	assert_int_equal(tally.pass, 4);
	assert_int_equal(tally.fail, 2);
	EXPECT(0, "\"what\":\"events\"", "\"role\":\"stlf_block\"", "\"event\":\"LD_BLOCKS.STORE_FORWARD\"",
	       "\"value\":1.000", "\"control_value\":0.000", "\"status\":\"pass\"");
	EXPECT(2, "\"value\":0.200", "\"status\":\"fail\"");
	EXPECT(4, "\"control_value\":0.500", "\"status\":\"fail\"");
}

static void role_without_event_is_skipped(void **state)
{
	(void)state;
	static const struct event_set dummy = { .key = "dummy", .name = "dummy" };
	struct check_input in = base("split", "load_page", 12000, 5000);
	in.arena = "4k";
	in.counting = true;
	in.set = &dummy;
	const struct check_event v[] = { { "MEM_INST_RETIRED.SPLIT_LOADS", EV_ROLE_SPLIT_LOAD, { 1000, 1000, 1000, 5 } } };
	const struct check_event c[] = { { "MEM_INST_RETIRED.SPLIT_LOADS", EV_ROLE_SPLIT_LOAD, { 0, 0, 0, 5 } } };
	in.variant.ev = v, in.variant.nev = 1;
	in.control.ev = c, in.control.nev = 1;
	bench_checks(&in, &tally);
	/* split_load passes; page_split_load has no event on this core: skip; then timing passes. */
	assert_int_equal(tally.pass, 2);
	assert_int_equal(tally.skip, 1);
	EXPECT(0, "\"arena\":\"4k\"", "\"role\":\"split_load\"", "\"status\":\"pass\"");
	EXPECT(1, "\"role\":\"page_split_load\"", "\"event\":null", "\"status\":\"skip\"", "no event for this role");
}

static void events_only_variant_has_no_timing_verdict(void **state)
{
	(void)state;
	struct check_input in = base("store_forward", "sta_unknown", 3000, 2000);
	bench_checks(&in, &tally);
	assert_int_equal(tally.skip, 1);
	assert_int_equal(tally.pass + tally.fail, 0);
	EXPECT(0, "\"what\":\"timing\"", "\"status\":\"skip\"", "\"expected\":null");
}

static void controls_and_sweeps_are_not_checked(void **state)
{
	(void)state;
	struct check_input in = base("store_forward", "forward", 500, -1);
	bench_checks(&in, &tally);
	in = base("alias_4k", "offset_8", 5000, 5000);
	bench_checks(&in, &tally);
	assert_int_equal(capture_record_count(&cap), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(reference_in_range_passes_and_out_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(reference_skipped_without_real_cycles, setup, teardown),
		cmocka_unit_test_setup_teardown(timing_penalty_sign, setup, teardown),
		cmocka_unit_test_setup_teardown(events_about_one_per_iteration, setup, teardown),
		cmocka_unit_test_setup_teardown(role_without_event_is_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(events_only_variant_has_no_timing_verdict, setup, teardown),
		cmocka_unit_test_setup_teardown(controls_and_sweeps_are_not_checked, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
