/* bench/check: the self-check records - reference ranges, events per iteration, the penalty's sign, skips, unstable figures. */
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

static struct bench_figure fig(int64_t min, int64_t median, int64_t max, uint32_t n)
{
	struct bench_figure f;
	memset(&f, 0, sizeof(f));
	f.min = min, f.median = median, f.max = max, f.n = n;
	return f;
}

/* The figures checked: the variant's and its control's, as the harness fills them (cycles from a counter). */
static struct bench_figures vf, cf;

static struct check_input base(const char *kernel, const char *variant, int64_t cycles, int64_t control_cycles)
{
	struct check_input in;
	memset(&in, 0, sizeof(in));
	memset(&vf, 0, sizeof(vf));
	memset(&cf, 0, sizeof(cf));
	in.r = &rec;
	in.d = bench_def_find(kernel, variant);
	in.variant = &vf;
	vf.cycles = fig(cycles, cycles, cycles, 5);
	vf.cycles_source = BENCH_CYCLES_FIXED;
	if (control_cycles >= 0) {
		in.control = &cf;
		cf.cycles = fig(control_cycles, control_cycles, control_cycles, 5);
		cf.cycles_source = BENCH_CYCLES_FIXED;
	}
	return in;
}

static void one_event(struct bench_figures *f, const char *name, uint32_t roles, struct bench_figure fig)
{
	f->ev[0] = (struct bench_event_figure){ .name = name, .roles = roles, .measured = true, .fig = fig };
	f->nev = 1;
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
	vf.cycles_source = BENCH_CYCLES_TSC;
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
	static const struct event_set dummy = { .key = "dummy", .name = "dummy" };
	const char *ev = "LD_BLOCKS.STORE_FORWARD";

	struct check_input in = base("store_forward", "size_mismatch", 20000, 500);
	in.counting = true;
	in.set = &dummy;
	one_event(&vf, ev, EV_ROLE_STLF_BLOCK, fig(990, 1000, 1010, 5));
	one_event(&cf, ev, EV_ROLE_STLF_BLOCK, fig(0, 0, 1, 5));
	bench_checks(&in, &tally);	/* events pass, timing pass */
	one_event(&vf, ev, EV_ROLE_STLF_BLOCK, fig(100, 200, 300, 5));
	bench_checks(&in, &tally);	/* events fail */
	one_event(&vf, ev, EV_ROLE_STLF_BLOCK, fig(990, 1000, 1010, 5));
	one_event(&cf, ev, EV_ROLE_STLF_BLOCK, fig(400, 500, 600, 5));
	bench_checks(&in, &tally);	/* control counts too: fail */
	/* An event that was scheduled but never measured (counting failed) gives no verdict. */
	vf.ev[0].measured = false;
	bench_checks(&in, &tally);	/* events skip, timing pass */
	assert_int_equal(tally.pass, 5);
	assert_int_equal(tally.fail, 2);
	assert_int_equal(tally.skip, 1);
	EXPECT(0, "\"what\":\"events\"", "\"role\":\"stlf_block\"", "\"event\":\"LD_BLOCKS.STORE_FORWARD\"",
	       "\"value\":1.000", "\"control_value\":0.000", "\"status\":\"pass\"");
	EXPECT(2, "\"value\":0.200", "\"status\":\"fail\"");
	EXPECT(4, "\"control_value\":0.500", "\"status\":\"fail\"");
	EXPECT(6, "\"event\":\"LD_BLOCKS.STORE_FORWARD\"", "\"status\":\"skip\"", "not measured (counting failed");
}

static void role_without_event_is_skipped(void **state)
{
	(void)state;
	static const struct event_set dummy = { .key = "dummy", .name = "dummy" };
	struct check_input in = base("split", "load_page", 12000, 5000);
	in.arena = "4k";
	in.counting = true;
	in.set = &dummy;
	one_event(&vf, "MEM_INST_RETIRED.SPLIT_LOADS", EV_ROLE_SPLIT_LOAD, fig(1000, 1000, 1000, 5));
	one_event(&cf, "MEM_INST_RETIRED.SPLIT_LOADS", EV_ROLE_SPLIT_LOAD, fig(0, 0, 0, 5));
	bench_checks(&in, &tally);
	/* split_load passes; page_split_load has no event on this core: skip; then timing passes. */
	assert_int_equal(tally.pass, 2);
	assert_int_equal(tally.skip, 1);
	EXPECT(0, "\"arena\":\"4k\"", "\"role\":\"split_load\"", "\"status\":\"pass\"");
	EXPECT(1, "\"role\":\"page_split_load\"", "\"event\":null", "\"status\":\"skip\"", "no event for this role");
}

/* An unstable figure gives no verdict: the check says `unstable` and which figure and why. */
static void unstable_figures_are_neither_pass_nor_fail(void **state)
{
	(void)state;
	static const struct event_set dummy = { .key = "dummy", .name = "dummy" };

	struct check_input in = base("ref", "load_chain", 9000, -1);	/* out of range, but unstable */
	vf.cycles.unstable = STATS_UNSTABLE_SPREAD;
	bench_checks(&in, &tally);
	in = base("store_forward", "size_mismatch", 20000, 500);
	cf.cycles.unstable = STATS_UNSTABLE_BUDGET;
	bench_checks(&in, &tally);
	in = base("store_forward", "size_mismatch", 20000, 500);
	in.counting = true;
	in.set = &dummy;
	one_event(&vf, "LD_BLOCKS.STORE_FORWARD", EV_ROLE_STLF_BLOCK, fig(100, 200, 300, 5));
	vf.ev[0].fig.unstable = STATS_UNSTABLE_OUTLIERS;
	bench_checks(&in, &tally);	/* events unstable, timing pass */
	/* Under an emulator timing is skipped whatever its stability. */
	in = base("store_forward", "size_mismatch", 20000, 500);
	in.emulator = true;
	vf.cycles.unstable = STATS_UNSTABLE_SPREAD;
	bench_checks(&in, &tally);
	assert_int_equal(tally.unstable, 3);
	assert_int_equal(tally.pass, 1);
	assert_int_equal(tally.skip, 1);
	assert_int_equal(tally.fail, 0);
	EXPECT(0, "\"what\":\"reference\"", "\"status\":\"unstable\"", "variant cycles unstable (spread)");
	EXPECT(1, "\"what\":\"timing\"", "\"status\":\"unstable\"", "control cycles unstable (budget)");
	EXPECT(2, "\"what\":\"events\"", "\"status\":\"unstable\"",
	       "variant LD_BLOCKS.STORE_FORWARD unstable (outliers)");
	EXPECT(4, "\"what\":\"timing\"", "\"status\":\"skip\"", "emulator");
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
		cmocka_unit_test_setup_teardown(unstable_figures_are_neither_pass_nor_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(events_only_variant_has_no_timing_verdict, setup, teardown),
		cmocka_unit_test_setup_teardown(controls_and_sweeps_are_not_checked, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
