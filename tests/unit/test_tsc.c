/*
 * TSC arithmetic (platform/tsc_math.c): CPUID 15h/16h figures, a
 * measurement against a fake reference clock (with wrap and a dead clock),
 * combining samples, choosing between figures, the add-chain ratio, and
 * the `timing` record.  muldiv64 itself is test_decimal's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tests/fake/capture.h"
#include "tests/fake/hw_fake.h"
#include "platform/tsc_math.h"
#include "lib/record.h"
#include "lib/muldiv.h"	/* the oracle of the measured figure */

static void ppm_and_median(void **state)
{
	(void)state;
	assert_int_equal(ppm_diff(1000100, 1000000), 100);
	assert_int_equal(ppm_diff(999900, 1000000), 100);
	assert_int_equal(ppm_diff(5, 0), UINT32_MAX);
	uint64_t v[] = { 9, 1, 5, 3, 7 };
	assert_int_equal(u64_median(v, 5), 5);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[4], 9);
	uint64_t w[] = { 4, 2 };
	assert_int_equal(u64_median(w, 2), 2);
	assert_int_equal(u64_median(w, 0), 0);
	uint64_t s[] = { 990, 1000, 1010 };
	assert_int_equal(spread_milli(s, 3), 20);
	assert_int_equal(core_per_tsc_milli(3000000, 2000000), 1500);
	assert_int_equal(core_per_tsc_milli(1, 0), 0);
}

static void cpuid_15h_figures(void **state)
{
	(void)state;
	struct tsc_figure f;
	/* Crystal given: 25 MHz x 168/2 = 2.1 GHz. */
	assert_true(tsc_from_cpuid15(2, 168, 25000000, 6, 0x8F, 0, &f));
	assert_int_equal(f.hz, 2100000000ull);
	assert_string_equal(f.source, "cpuid_15h");
	assert_non_null(strstr(f.how, "ECX"));
	/* Crystal 0 on a Skylake client: the SDM's table says 24 MHz; 24 MHz x 216/2 = 2.592 GHz. */
	assert_true(tsc_from_cpuid15(2, 216, 0, 6, 0x5E, 2600, &f));
	assert_int_equal(f.hz, 2592000000ull);
	assert_non_null(strstr(f.how, "table"));
	/* Crystal 0, model not in the table: derived from 16h's base (TSC = base). */
	assert_true(tsc_from_cpuid15(2, 188, 0, 6, 0x9A, 2300, &f));
	assert_int_equal(f.hz, 2300000000ull);
	assert_non_null(strstr(f.how, "16H"));
	assert_true(f.error_ppm > 100);
	/* Neither: no figure.  No ratio: no figure. */
	assert_false(tsc_from_cpuid15(2, 188, 0, 6, 0x9A, 0, &f));
	assert_false(tsc_from_cpuid15(0, 0, 25000000, 6, 0x8F, 0, &f));
	assert_true(tsc_from_cpuid16(3000, &f));
	assert_int_equal(f.hz, 3000000000ull);
	assert_false(tsc_from_cpuid16(0, &f));
}

/* A reference counter advancing one tick every `every` reads; `start` near the mask tests the wrap. */
struct fake_ref {
	uint64_t value, reads, every;
};

static uint64_t ref_read(void *ctx)
{
	struct fake_ref *r = ctx;
	if (r->every && ++r->reads % r->every == 0)
		r->value++;
	return r->value;
}

static void measure_against_a_fake_clock(void **state)
{
	(void)state;
	/* Each loop of the measurement reads the TSC (step 10 per read) around each reference read. */
	struct fake_ref fr = { 0xFFFFF0, 0, 4 };
	struct ref_clock c = { "fake", ref_read, &fr, 0xFFFFFF, 1000000, 50 };
	struct tsc_sample s;

	fake_reset();
	fake_tsc_set(1000, 10);
	assert_true(tsc_measure(&c, 1000, 1ull << 40, &s));
	/* The 24-bit counter wrapped during the sample; dref is still the true count. */
	assert_true(s.dref >= 1000 && s.dref <= 1002);
	assert_true(s.dtsc > 0);
	assert_int_equal(s.hz, muldiv64(s.dtsc, 1000000, s.dref));
	assert_true(s.uncertainty > 0);
	assert_int_equal(s.error_ppm, tsc_sample_error_ppm(s.dtsc, s.uncertainty));

	/* A reference that never moves: give up, do not hang. */
	struct fake_ref dead = { 5, 0, 0 };
	struct ref_clock d = { "dead", ref_read, &dead, 0xFFFFFF, 1000000, 50 };
	fake_tsc_set(0, 1000);
	assert_false(tsc_measure(&d, 1000, 1000000, &s));
}

static void combine_takes_median_and_states_error(void **state)
{
	(void)state;
	struct tsc_sample s[3] = {
		{ .hz = 2000000000, .error_ppm = 30 },
		{ .hz = 2000400000, .error_ppm = 10 },	/* 200 ppm high */
		{ .hz = 2000100000, .error_ppm = 20 },
	};
	struct tsc_figure f;
	uint32_t spread;
	assert_true(tsc_combine(s, 3, 100, "acpi_pm_timer", &f, &spread));
	assert_int_equal(f.hz, 2000100000);
	assert_int_equal(spread, 199);	/* (max - min) / median */
	/* Half the spread (99) beats the median sample's bound (20); plus the reference's 100 ppm. */
	assert_int_equal(f.error_ppm, 99 + 100);
	assert_string_equal(f.source, "acpi_pm_timer");
	struct tsc_sample none[1] = { { .hz = 0 } };
	assert_false(tsc_combine(none, 1, 100, "x", &f, &spread));
}

static void choose_between_figures(void **state)
{
	(void)state;
	struct tsc_figure c15 = { 2100000000, 100, "cpuid_15h", "crystal" };
	struct tsc_figure c16 = { 2100000000, 740, "cpuid_16h", "base" };
	struct tsc_figure m = { 2100150000, 200, "acpi_pm_timer", "median" };	/* 71 ppm from c15 */
	struct tsc_figure far = { 2300000000, 200, "acpi_pm_timer", "median" };	/* 9.5% off */
	struct tsc_figure chosen;
	char note[192];

	tsc_choose(&c15, &c16, &m, &chosen, note, sizeof(note));
	assert_string_equal(chosen.source, "cpuid_15h");
	assert_non_null(strstr(note, "confirmed"));

	/* A hypervisor's invented leaf: the measurement wins, and the note says so. */
	tsc_choose(&c15, &c16, &far, &chosen, note, sizeof(note));
	assert_string_equal(chosen.source, "acpi_pm_timer");
	assert_int_equal(chosen.hz, 2300000000ull);
	assert_non_null(strstr(note, "using the measurement"));

	/* No 15h: 16h is nominal; the more precise agreeing figure is used. */
	tsc_choose(NULL, &c16, &m, &chosen, note, sizeof(note));
	assert_string_equal(chosen.source, "acpi_pm_timer");
	struct tsc_figure m_poor = { 2100150000, 20000, "firmware_stall", "stall" };
	tsc_choose(NULL, &c16, &m_poor, &chosen, note, sizeof(note));
	assert_string_equal(chosen.source, "cpuid_16h");
	tsc_choose(NULL, &c16, &far, &chosen, note, sizeof(note));
	assert_string_equal(chosen.source, "acpi_pm_timer");
	assert_non_null(strstr(note, "disagrees"));

	/* Only a measurement; nothing at all. */
	tsc_choose(NULL, NULL, &m, &chosen, note, sizeof(note));
	assert_int_equal(chosen.hz, m.hz);
	tsc_choose(NULL, NULL, NULL, &chosen, note, sizeof(note));
	assert_int_equal(chosen.hz, 0);
	assert_non_null(strstr(note, "unknown"));
	/* 15h alone is used, but said to be unchecked. */
	tsc_choose(&c15, NULL, NULL, &chosen, note, sizeof(note));
	assert_string_equal(chosen.source, "cpuid_15h");
	assert_non_null(strstr(note, "not cross-checked"));
}

static void timing_record_fields(void **state)
{
	(void)state;
	struct capture cap;
	struct timing_info t = { true, 2100000000, "cpuid_15h", 100, 1250, "add_chain", 12, EXEC_BARE_METAL };
	struct timing_detail d;
	memset(&d, 0, sizeof(d));
	d.have_c15 = true;
	d.c15_eax = 2;
	d.c15_ebx = 168;
	d.c15_ecx = 25000000;
	d.c15 = (struct tsc_figure){ 2100000000, 100, "cpuid_15h", "crystal from CPUID.15H:ECX" };
	d.measured = (struct tsc_figure){ 2100150000, 200, "acpi_pm_timer", "median of measurements" };
	d.ref_hz = 3579545;
	d.measured_runs = 3;
	d.core_runs = 7;
	strcpy(d.note, "CPUID 15h, confirmed");

	capture_start(&cap);
	timing_emit(&t, &d);
	const char *r = capture_record(&cap, 0);
	assert_non_null(r);
	assert_non_null(strstr(r, "\"type\":\"timing\""));
	assert_non_null(strstr(r, "\"tsc_hz\":2100000000"));
	assert_non_null(strstr(r, "\"source\":\"cpuid_15h\""));
	assert_non_null(strstr(r, "\"error_ppm\":100"));
	assert_non_null(strstr(r, "\"core_per_tsc\":1.250"));
	assert_non_null(strstr(r, "\"crystal_hz\":25000000"));
	assert_non_null(strstr(r, "\"against\":\"acpi_pm_timer\""));
	assert_non_null(strstr(r, "\"emulated\":false"));
	assert_non_null(strstr(r, "\"execution\":\"bare_metal\""));
	capture_free(&cap);

	/* Under KVM the core is real: virtualised, not emulated. */
	t.exec = EXEC_VIRTUALISED;
	capture_start(&cap);
	timing_emit(&t, &d);
	r = capture_record(&cap, 0);
	assert_non_null(r);
	assert_non_null(strstr(r, "\"emulated\":false"));
	assert_non_null(strstr(r, "\"execution\":\"virtualised\""));
	capture_free(&cap);

	t.exec = EXEC_EMULATED;
	capture_start(&cap);
	timing_emit(&t, &d);
	r = capture_record(&cap, 0);
	assert_non_null(r);
	assert_non_null(strstr(r, "\"emulated\":true"));
	assert_non_null(strstr(r, "\"execution\":\"emulated\""));
	capture_free(&cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ppm_and_median),
		cmocka_unit_test(cpuid_15h_figures),
		cmocka_unit_test(measure_against_a_fake_clock),
		cmocka_unit_test(combine_takes_median_and_states_error),
		cmocka_unit_test(choose_between_figures),
		cmocka_unit_test(timing_record_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
