/*
 * The benchmark stage (bench/suite*.c) end to end against fakes: the
 * platform's arenas and timing (tests/fake/arena_fake.h, timing_fake.h), a
 * scripted counting backend whose counts per iteration follow each event's
 * role, and the real kernels on this CPU.  Asserts on the records emitted:
 * what is measured in which order and where, the figures that follow from
 * the counts, the checks and their tally, fallbacks, observers, bench=list.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "bench/stage.h"
#include "bench/kernels.h"
#include "events/events.h"
#include "pmu/count/count.h"
#include "tests/fake/arena_fake.h"
#include "tests/fake/capture.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/timing_fake.h"
#include "tests/unit/record_asserts.h"
#include "tests/unit/suite_test.h"

static struct bench_params params(const char *bench)
{
	return (struct bench_params){ .bench = bench, .events = "", .iterations = ITERATIONS, .reps = 5, .warmup = 1,
				      .pages = BENCH_PAGES_4K | BENCH_PAGES_2M, .cpu = &ci };
}

/* A text line containing frag, or NULL. */
static const char *text_line(const char *frag)
{
	for (size_t i = 0; i < cap.n; i++)
		if (cap.kinds[i] != OUT_RECORD && strstr(cap.lines[i], frag))
			return cap.lines[i];
	return NULL;
}

static void counted_run_gives_figures_and_checks(void **state)
{
	(void)state;
	const char *b[8], *c[8], *s[2];
	machine(true);
	struct bench_params p = params("store_forward.size_mismatch");
	bench_stage(&p);

	assert_int_equal(records_of_type(&cap, "bench_setup", s, 2), 1);
	record_has(s[0], "\"variants\":4");
	record_has(s[0], "\"counting\":{\"available\":true,\"backend\":\"fake\",\"reason\":null}");
	record_has(s[0], "\"event_set\":\"skylake\"");
	record_has(s[0], "\"timing_source\":\"add_chain\",\"timing_core_per_tsc\":1.300");
	record_has(s[0], "\"rules\":{\"outlier_z\":3.500,\"mad_floor\":0.010,\"n_2n_slack\":0.100");
	/* The ledger on this bare fake CPU: no MSRs, no CPUID leaves; the window's NMIs are all it has. */
	record_has(s[0], "\"ledger\":{\"sources\":[\"nmi\"],\"absent\":{\"smi_count\":\"MSR 34H not readable: #GP\","
			 "\"smi_event\":\"event set skylake has no `smi` event\",\"frequency\":\"CPUID leaf 06H absent\",");
	record_has(s[0], "\"thermal_at_init\":null,\"package_thermal_at_init\":null,\"clears_logs\":false,"
			 "\"frequency_tolerance\":0.010,\"smi_event_counted\":null,\"smi_event_reason\":null}");
	assert_non_null(text_line("bench: ledger reads nmi (not: smi, frequency, thermal, package_thermal)"));

	/* The references, then the control before its variant. */
	assert_int_equal(records_of_type(&cap, "bench", b, 8), 4);
	record_has(b[0], "\"kernel\":\"ref\",\"variant\":\"add_chain\"");
	record_has(b[1], "\"variant\":\"load_chain\"");
	record_has(b[2], "\"variant\":\"forward\"");
	record_has(b[3], "\"variant\":\"size_mismatch\",\"control\":\"forward\"");
	for (size_t i = 0; i < 4; i++) {
		/* Cycles from the counted cycles event, exactly 1 per iteration: the 777 of overhead cancelled. */
		/* (The clock is the fake CPU's, tests/fake/measure_fake.h: nothing is rejected.) */
		record_has(b[i], "\"cycles\":{\"min\":1.000,\"median\":1.000,\"max\":1.000,\"n\":5,\"q1\":1.000,\"q3\":1.000,"
			  "\"mad\":0.000,\"outliers\":0,\"outlier_min\":null,\"outlier_max\":null,\"rejected\":0,");
		record_has(b[i], "\"rejected\":{\"negative\":0,\"n_2n\":0,\"below_chain\":0,\"clock\":0}");
		record_has(b[i], "\"cycles_source\":\"pmc\",\"unstable\":null,\"calibration\":null");
		record_has(b[i], "\"instructions\":{\"min\":2.000,\"median\":2.000");
		record_has(b[i], "\"CPU_CLK_UNHALTED.THREAD_P\":{\"min\":1.000");
		record_has(b[i], "\"below_chain\":0,\"clock\":0}");
		record_has(b[i], "\"dropped\":0,\"disturbed\":{\"smi_count\":0,\"smi_event\":0,\"frequency\":0,\"thermal\":0,"
			  "\"package_thermal\":0,\"nmi\":0},\"contended\":0,\"retaken\":0,");
		record_has(b[i], "\"ledger\":{\"sources\":[\"nmi\"],");
		record_has(b[i], "\"nmi_counts\":\"unclaimed NMIs\"");
		record_has(b[i], "\"smi_event\":null,\"method\"");
	}
	assert_null(text_line("disturbed:"));
	record_has(b[0], "\"chain_min\":1.000");
	record_has(b[2], "\"chain_min\":null");
	record_has(b[3], "\"LD_BLOCKS.STORE_FORWARD\":{\"min\":1.000");
	record_has(b[3], "\"penalty\":{\"median\":0.000,\"low\":0.000,\"high\":0.000}");

	/* Checks follow from those figures: 1.0 is the add chain's figure but no load's latency; the control
	 * counts the blocked-forward event as often as the variant, and takes as long. */
	assert_int_equal(records_of_type(&cap, "check", c, 8), 4);
	record_has(c[0], "\"what\":\"reference\",\"value\":1.000");
	record_has(c[0], "\"reason\":null,\"status\":\"pass\"");	/* counted cycles: no calibration caveat */
	record_has(c[1], "\"variant\":\"load_chain\"");
	record_has(c[1], "\"status\":\"fail\"");
	record_has(c[2], "\"what\":\"events\"");
	record_has(c[2], "\"control_value\":1.000");
	record_has(c[2], "\"status\":\"fail\"");
	record_has(c[3], "\"what\":\"timing\"");
	record_has(c[3], "\"penalty\":0.000");
	record_has(c[3], "\"status\":\"fail\"");
	assert_non_null(text_line("bench: checks 1 passed, 3 failed, 0 skipped, 0 unstable"));
	assert_int_equal(fake_arena_releases(), 1);
	assert_int_equal(fake_arena_live(), 0);
}

static struct {
	unsigned begins;
	uint32_t pages[8];
} ob;
static void ob_begin(void *ctx, const struct bench_variant_id *id)
{
	(void)ctx;
	if (ob.begins < 8)
		ob.pages[ob.begins] = id->arena_page;
	ob.begins++;
}

static void split_rows_run_arena_by_arena_with_observers(void **state)
{
	(void)state;
	const char *b[8], *s[2];
	struct bench_observer o = { .name = "test", .slices = 1, .variant_begin = ob_begin };
	machine(false);
	memset(&ob, 0, sizeof(ob));
	struct bench_params p = params("split.load_page");
	p.reps = 3;
	p.observers = &o;
	p.nobservers = 1;
	bench_stage(&p);

	assert_int_equal(records_of_type(&cap, "bench_setup", s, 2), 1);
	/* The plan's count: split variants once, but their rows once per arena (the screen's progress counts rows). */
	record_has(s[0], "\"variants\":4,\"rows\":6,");
	record_has(s[0], "\"counting\":{\"available\":false,\"backend\":\"fake\",\"reason\":\"fake: no counters\"}");
	record_has(s[0], "\"arenas\":[{\"name\":\"4k\",\"page\":4096,\"how\":\"fake\"},{\"name\":\"2m\",\"page\":2097152");
	record_has(s[0], "\"samples_in\":\"arena\"");
	assert_int_equal(records_of_type(&cap, "bench", b, 8), 6);
	record_has(b[2], "\"variant\":\"load_aligned\",\"control\":null,\"arena\":\"4k\",\"arena_page\":4096,\"page_crossed\":false");
	record_has(b[3], "\"variant\":\"load_page\",\"control\":\"load_aligned\",\"arena\":\"4k\",\"arena_page\":4096,"
		  "\"page_crossed\":true,\"page_offset\":\"0xffc\"");
	record_has(b[4], "\"variant\":\"load_aligned\",\"control\":null,\"arena\":\"2m\"");
	record_has(b[5], "\"arena\":\"2m\",\"arena_page\":2097152,\"page_crossed\":false,\"page_offset\":\"0xffc\"");
	for (size_t i = 0; i < 6; i++) {
		/* No counter: TSC ticks turned into cycles by the harness's calibration right around the variant. */
		record_has(b[i], "\"cycles_source\":\"tsc_calibrated\"");
		record_has(b[i], "\"calibration\":{\"source\":\"harness_add_chain\"");
		record_has(b[i], "\"events\":{}");
	}
	/* The observer passed in watched every variant, in each arena. */
	assert_int_equal(ob.begins, 6);
	const uint32_t want[] = { 0, 0, 4096, 4096, ARENA_PAGE_2M, ARENA_PAGE_2M };
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(ob.pages[i], want[i]);
}

static void refused_arenas_fall_back_to_a_buffer(void **state)
{
	(void)state;
	const char *b[8], *s[2];
	machine(false);
	fake_arena_refuse(ARENA_PAGE_4K, "fake refusal");
	fake_arena_refuse(ARENA_PAGE_2M, "no huge page");
	struct bench_params p = params("split.store_line");
	p.reps = 3;
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "bench_setup", s, 2), 1);
	record_has(s[0], "\"arenas\":[{\"name\":\"fallback\",\"page\":null,\"how\":\"heap or stack\"}]");
	record_has(s[0], "\"arena_problems\":\"4k: fake refusal; 2m: no huge page\"");
	record_has(s[0], "\"samples_in\":\"heap\"");
	assert_int_equal(records_of_type(&cap, "bench", b, 8), 4);
	/* No page size known for the buffer; the aligned store crosses nothing anyway. */
	record_has(b[2], "\"variant\":\"store_aligned\",\"control\":null,\"arena\":\"fallback\",\"arena_page\":null,"
		  "\"page_crossed\":false");
	record_has(b[3], "\"variant\":\"store_line\"");
	assert_non_null(text_line("(split kernels run in a plain buffer)"));
}

/* Under QEMU's TCG time means nothing: one calibration, no chain floor, timing checks skipped. */
static void emulator_skips_timing(void **state)
{
	(void)state;
	const char *b[8], *c[8], *s[2];
	machine(true);
	ci.hypervisor = true;
	strcpy(ci.hv_vendor, "TCGTCGTCGTCG");
	ci.exec = EXEC_EMULATED;	/* what identification decides for that signature */
	struct bench_params p = params("store_forward.size_mismatch");
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "bench_setup", s, 2), 1);
	record_has(s[0], "\"per_variant\":false,\"settle_runs\":1");
	record_has(s[0], "\"emulated\":true,\"emulator\":true");
	assert_int_equal(records_of_type(&cap, "bench", b, 8), 4);
	record_has(b[0], "\"chain_min\":null");
	assert_int_equal(records_of_type(&cap, "check", c, 8), 4);
	record_has(c[0], "\"status\":\"skip\"");
	record_has(c[1], "\"status\":\"skip\"");
	record_has(c[3], "\"what\":\"timing\"");
	record_has(c[3], "\"status\":\"skip\"");
	assert_non_null(text_line("bench: checks 0 passed, 1 failed, 3 skipped, 0 unstable"));
}

/* When no sample can be kept the variant is still reported - unstable, with why - and never judged. */
static void nothing_kept_is_unstable_not_an_error(void **state)
{
	(void)state;
	const char *b[8], *c[8], *e[2];
	machine(true);
	fk.backwards = true;
	struct bench_params p = params("store_forward.size_mismatch");
	p.reps = 3;
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "error", e, 2), 0);
	assert_int_equal(records_of_type(&cap, "bench", b, 8), 4);
	for (size_t i = 0; i < 4; i++) {
		/* The budget (16 for 3 reps) spent on impossible samples: every one a negative count. */
		record_has(b[i], "\"rejected\":{\"negative\":16,\"n_2n\":0,");
		record_has(b[i], "\"reps\":3,\"dropped\":0,");
		record_has(b[i], "\"below_chain\":0,\"clock\":0},\"exhausted\":true");
		/* No sample kept: no figure printed as one (null, never zeros), and the record says why. */
		record_has(b[i], "\"sample_ticks\":null,");
		record_has(b[i], "\"cycles\":null,\"cycles_invalid\":\"no sample was kept\",\"cycles_source\":\"tsc_calibrated\",\"unstable\":\"budget\"");
		record_has(b[i], "\"tsc\":null,");
		assert_null(strstr(b[i], "\"median\":0.000"));
		record_has(b[i], "\"problem\":\"no sample could be kept: 0 disturbed (none), 0 contended, 16 rejected as impossible\"");
	}
	assert_int_equal(records_of_type(&cap, "check", c, 8), 4);
	for (size_t i = 0; i < 4; i++)
		record_has(c[i], "\"status\":\"unstable\"");
	record_has(c[2], "\"what\":\"events\"");
	record_has(c[2], "variant LD_BLOCKS.STORE_FORWARD unstable (budget)");
	record_has(c[3], "variant cycles unstable (budget)");
	record_has(c[3], "\"value\":null,\"control_value\":null,\"penalty\":null");
	record_has(b[3], "\"penalty\":null,\"penalty_why\":\"control forward: no sample was kept\"");
	record_has(b[3], "\"events\":{},\"invalid\":{\"CPU_CLK_UNHALTED.THREAD_P\":\"no sample was kept\",");
	record_has(b[3], "\"LD_BLOCKS.STORE_FORWARD\":\"no sample was kept\"}");
	assert_non_null(text_line("bench: checks 0 passed, 0 failed, 0 skipped, 4 unstable"));
}

/* An SMI in every counted window: every sample retaken until the budget ran out, and no figure shown as clean. */
static void smis_everywhere_leave_no_clean_figure(void **state)
{
	(void)state;
	const char *b[2], *s[2], *c[4];
	machine(true);
	fake_msr_define(MSR_SMI_COUNT, 100, 0);
	fk.smi_each_read = true;
	struct bench_params p = params("ref.add_chain");
	p.reps = 3;
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "bench_setup", s, 2), 1);
	record_has(s[0], "\"ledger\":{\"sources\":[\"smi_count\",\"nmi\"],");
	assert_int_equal(records_of_type(&cap, "bench", b, 2), 2);
	/* The budget for 3 reps is 16 samples thrown away; each was disturbed, the last one not retaken. */
	record_has(b[0], "\"reps\":3,\"dropped\":16,\"disturbed\":{\"smi_count\":16,\"smi_event\":0,\"frequency\":0,"
			 "\"thermal\":0,\"package_thermal\":0,\"nmi\":0},\"contended\":0,\"retaken\":15,");
	record_has(b[0], "\"exhausted\":true");
	record_has(b[0], "\"unstable\":\"disturbed\"");
	record_has(b[0], "\"problem\":\"no sample could be kept: 16 disturbed (smi_count 16), 0 contended, 0 rejected as impossible\"");
	record_has(b[0], "\"cycles\":null,\"cycles_invalid\":\"no sample was kept\"");
	assert_non_null(text_line("disturbed: 16 samples thrown away (smi_count 16), 15 taken again; the first disturbance: 2 SMIs"));
	assert_non_null(text_line("UNSTABLE (disturbed)"));
	assert_int_equal(records_of_type(&cap, "check", c, 4), 2);
	record_has(c[0], "\"status\":\"unstable\"");
	record_has(c[0], "unstable (disturbed)");
}

/*
 * The audit's verdict reaches the figures: an event with a unit mask after the unit-mask check
 * failed, everything counted on a blamed counter, every cycles figure after a failed clock check,
 * are not printed as measurements (null or left out, with why), and their checks say why they skip.
 */
static void audit_verdict_refuses_figures(void **state)
{
	(void)state;
	const char *b[8], *c[8];
	static struct audit_verdict v;

	/* Unit masks ignored: LD_BLOCKS.STORE_FORWARD (03H/02H) refused; cycles (3CH/00H) kept. */
	machine(true);
	memset(&v, 0, sizeof(v));
	v.ran = true;
	v.umask_bad = true;
	snprintf(v.why, sizeof(v.why), "audit: unit masks are not applied");
	struct bench_params p = params("store_forward.size_mismatch");
	p.audit = &v;
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "bench", b, 8), 4);
	assert_null(strstr(b[3], "\"LD_BLOCKS.STORE_FORWARD\":{"));
	record_has(b[3], "\"invalid\":{\"LD_BLOCKS.STORE_FORWARD\":\"audit: unit masks are not applied\"");
	record_has(b[3], "\"cycles\":{\"min\":1.000");
	record_has(b[3], "\"cycles_invalid\":null");
	assert_int_equal(records_of_type(&cap, "check", c, 8), 4);
	record_has(c[2], "\"what\":\"events\"");
	record_has(c[2], "\"reason\":\"audit: unit masks are not applied\",\"status\":\"skip\"");
	assert_non_null(text_line("LD_BLOCKS.STORE_FORWARD: not a measurement: audit: unit masks are not applied"));
	teardown(NULL);

	/* The clock failed: no cycles figure anywhere, timing and reference checks skip saying why. */
	machine(true);
	memset(&v, 0, sizeof(v));
	v.ran = true;
	v.clock_bad = true;
	snprintf(v.clock_why, sizeof(v.clock_why), "audit: clock failed: the clock moved");
	p = params("store_forward.size_mismatch");
	p.audit = &v;
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "bench", b, 8), 4);
	for (size_t i = 0; i < 4; i++) {
		record_has(b[i], "\"cycles\":null,\"cycles_invalid\":\"audit: clock failed: the clock moved\"");
		record_has(b[i], "\"penalty\":null");
	}
	records_of_type(&cap, "check", c, 8);
	record_has(c[0], "\"what\":\"reference\",\"value\":null");
	record_has(c[0], "\"reason\":\"audit: clock failed: the clock moved\",\"status\":\"skip\"");
	record_has(c[3], "\"what\":\"timing\"");
	record_has(c[3], "\"penalty\":null");
	record_has(c[3], "\"status\":\"skip\"");
	assert_non_null(text_line("INVALID cycles/it"));
	teardown(NULL);

	/* Every counter blamed: no event figure, and the counted cycles with them. */
	machine(true);
	memset(&v, 0, sizeof(v));
	v.ran = true;
	v.bad_gp = 0xF;
	snprintf(v.why, sizeof(v.why), "audit: instructions failed on pmc0");
	p = params("ref.add_chain");
	p.audit = &v;
	bench_stage(&p);
	assert_true(records_of_type(&cap, "bench", b, 8) >= 1);
	record_has(b[0], "\"cycles\":null,\"cycles_invalid\":\"audit: instructions failed on pmc0\"");
	record_has(b[0], "\"instructions\":null");
	record_has(b[0], "\"events\":{}");
	/* An audit that did not run (no verdict) refuses nothing. */
	teardown(NULL);
	machine(true);
	v.ran = false;
	bench_stage(&p);
	records_of_type(&cap, "bench", b, 8);
	record_has(b[0], "\"cycles\":{\"min\":1.000");
}

static void list_and_unknown_words(void **state)
{
	(void)state;
	const char *b[8], *e[2];
	machine(false);
	struct bench_params p = params("list");
	bench_stage(&p);
	assert_int_equal(capture_record_count(&cap), 0);
	/* One line per row, but the memory ladder's rows list the variants this CPU's geometry makes. */
	size_t ladder_rows = 0, ladder_lines = 0;
	for (size_t i = 0; i < bench_def_count(); i++)
		ladder_rows += bench_def_at(i)->ladder != BENCH_LADDER_NONE;
	for (size_t i = 0; i < cap.n; i++)
		ladder_lines += !strncmp(cap.lines[i], "latency.", 8) || !strncmp(cap.lines[i], "tlb.", 4) ||
				!strncmp(cap.lines[i], "bandwidth.", 10);
	assert_int_equal(ladder_rows, 3);
	assert_int_equal(cap.n - ladder_lines, bench_def_count() - ladder_rows);
	/* No cache leaves on this fake CPU: the default tops, 4 KiB .. 256 MiB and 64 KiB .. 64 MiB. */
	assert_non_null(text_line("latency.4k "));
	assert_non_null(text_line("latency.256m "));
	assert_null(text_line("latency.512m "));
	assert_non_null(text_line("tlb.64m "));
	assert_non_null(text_line("bandwidth.write_nt_dram "));
	assert_non_null(text_line("store_forward.size_mismatch"));
	assert_non_null(text_line("slower than its control (vs forward)"));
	capture_free(&cap);

	capture_start(&cap);
	p = params("warp,ref");
	p.reps = 3;
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "error", e, 2), 1);
	record_has(e[0], "unknown benchmark 'warp'");
	record_has(e[0], "all, none, list");
	assert_int_equal(records_of_type(&cap, "bench", b, 8), 2);
	record_has(b[0], "\"variant\":\"add_chain\"");
	record_has(b[1], "\"variant\":\"load_chain\"");

	capture_free(&cap);
	capture_start(&cap);
	p = params("none");
	bench_stage(&p);
	assert_int_equal(capture_record_count(&cap), 0);
	assert_non_null(text_line("bench: nothing chosen (bench=none)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(counted_run_gives_figures_and_checks, teardown),
		cmocka_unit_test_teardown(split_rows_run_arena_by_arena_with_observers, teardown),
		cmocka_unit_test_teardown(refused_arenas_fall_back_to_a_buffer, teardown),
		cmocka_unit_test_teardown(emulator_skips_timing, teardown),
		cmocka_unit_test_teardown(nothing_kept_is_unstable_not_an_error, teardown),
		cmocka_unit_test_teardown(smis_everywhere_leave_no_clean_figure, teardown),
		cmocka_unit_test_teardown(list_and_unknown_words, teardown),
		cmocka_unit_test_teardown(audit_verdict_refuses_figures, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
