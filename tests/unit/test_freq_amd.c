/*
 * The pinned clock on AMD parts (pmu/freq/): the CPPC request's max = min =
 * desired, P-state control, core performance boost through HWCR[25], CPPC
 * left alone when firmware did not enable it, and the families whose
 * PStateDef layout is not verified refused, against the fake CPU and its
 * clock model (tests/unit/freq_test.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/freq_test.h"

#define CPB_DIS (1ull << 25)	/* HWCR[25] CpbDis */

/* The CPPC request for level l: max [7:0], min [15:8], desired [23:16], the EPP as found. */
static uint64_t cppc_req(uint32_t l) { return l | ((uint64_t)l << 8) | ((uint64_t)l << 16) | (0x80ull << 24); }

/*
 * CPPC with ACPI _CPC's frequencies given: 2000 MHz asked; level l runs at
 * 550 + (l - 20) x (3400 - 550) / (100 - 20) MHz, so level 60 (1975 MHz) is
 * the highest at or below it.
 */
static void cppc_pins_and_restores(void **state)
{
	(void)state;
	uint64_t w[4];

	amd_machine(true, true);
	freq_set_cpc_mhz(CPPC_LOWEST_MHZ, A_P0_MHZ);
	const struct freq_result *r = pin(ask(FREQ_ASK_MHZ, 2000, FREQ_BOOST_KEEP));
	assert_true(r->pinned);
	assert_string_equal(r->control, "amd_cppc");
	assert_int_equal(r->asked_mhz, 1975);
	must_contain(r->chosen, "2000 MHz asked: CPPC level 60 (1975 MHz), the highest at or below it; CPPC levels "
				"20..166, nominal 100 = 3400 MHz (ACPI _CPC), lowest 20 = 550 MHz (ACPI _CPC)");
	assert_int_equal(writes_to(MSR_AMD_CPPC_REQ, w, 4), 1);
	assert_int_equal(w[0], cppc_req(60));
	assert_int_equal(fake_log_count(), 1);	/* neither HWCR (boost=keep) nor the write-once enable */
	assert_int_equal(r->measured_mhz, 1975);
	assert_true(r->held);
	must_contain(restore_now(), "\"what\":\"clock\",\"msrs\":1,\"exact\":true");
	assert_int_equal(fake_msr_get(MSR_AMD_CPPC_REQ), CPPC_REQ_FOUND);
}

/*
 * A preferred-core part (highest 196, nominal 120, lowest 18): 2000 MHz is
 * level 57 on its own line through (18, 400 MHz) and (120, 4500 MHz), 1967
 * MHz.  A line through zero (4500 x l / 120) names level 53 "1987 MHz",
 * which runs at 1806: a wrong request, then reported as not held.
 */
static void cppc_preferred_core_levels(void **state)
{
	(void)state;
	uint64_t w[4];

	amd_prefcore_machine();
	freq_set_cpc_mhz(PREF_LOWEST_MHZ, PREF_NOMINAL_MHZ);
	const struct freq_result *r = pin(ask(FREQ_ASK_MHZ, 2000, FREQ_BOOST_KEEP));
	assert_true(r->pinned);
	assert_int_equal(writes_to(MSR_AMD_CPPC_REQ, w, 4), 1);
	assert_int_equal(w[0], cppc_req(57));
	assert_int_equal(r->asked_mhz, 1967);
	assert_int_equal(r->measured_mhz, 1967);
	assert_true(r->judged && r->held);
	must_contain(r->chosen, "CPPC levels 18..196, nominal 120 = 4500 MHz (ACPI _CPC), lowest 18 = 400 MHz");
	restore_now();

	/*
	 * Above nominal (boost on as found): 4500 MHz per 120 levels, level 133
	 * = 4987 MHz, pinned and measured; not judged, since ACPI promises no
	 * level above nominal is sustained (the fake's core does hold it).
	 */
	amd_prefcore_machine();
	freq_set_cpc_mhz(PREF_LOWEST_MHZ, PREF_NOMINAL_MHZ);
	r = pin(ask(FREQ_ASK_MHZ, 5000, FREQ_BOOST_KEEP));
	assert_int_equal(fake_msr_get(MSR_AMD_CPPC_REQ), cppc_req(133));
	assert_int_equal(r->asked_mhz, 4987);
	assert_int_equal(r->measured_mhz, 4987);
	assert_false(r->judged);
	must_contain(r->chosen, "above nominal, where the hardware runs only as conditions allow: measured, not judged");
	must_contain(line_with("clock: pinned"), "clock: pinned to 4987 MHz via amd_cppc (measured 4987 MHz)");
	restore_now();

	/* The lowest level is the lowest frequency, not 18 x 4500 / 120 = 675 MHz. */
	amd_prefcore_machine();
	freq_set_cpc_mhz(PREF_LOWEST_MHZ, PREF_NOMINAL_MHZ);
	r = pin(ask(FREQ_ASK_MHZ, 450, FREQ_BOOST_KEEP));
	assert_int_equal(fake_msr_get(MSR_AMD_CPPC_REQ), cppc_req(PREF_LOWEST + 1));
	assert_int_equal(r->asked_mhz, 440);
	assert_true(r->held);
}

/*
 * Without _CPC's frequencies (what the image knows today): nominal is P0's
 * 4500 MHz, levels above it follow from it, and the levels below it are not
 * offered - a request there is refused with the reason, nothing written.
 */
static void cppc_without_cpc_frequencies_says_so(void **state)
{
	(void)state;
	amd_prefcore_machine();
	const struct freq_result *r = pin(ask(FREQ_ASK_MHZ, 2000, FREQ_BOOST_KEEP));
	assert_false(r->pinned);
	assert_int_equal(fake_log_count(), 0);
	must_contain(r->why, "2000 MHz is below the lowest level amd_cppc offers (4500 MHz); nothing was written; "
			     "CPPC levels 18..196, nominal 120 = 4500 MHz (P0), levels 18..119 not offered: their MHz "
			     "needs ACPI _CPC's LowestFrequency");

	amd_prefcore_machine();
	r = pin(ask(FREQ_ASK_MHZ, 5000, FREQ_BOOST_KEEP));
	assert_true(r->pinned);
	assert_int_equal(r->measured_mhz, 4987);
	assert_int_equal(fake_msr_get(MSR_AMD_CPPC_REQ), cppc_req(133));
	restore_now();

	amd_prefcore_machine();
	r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_OFF));
	assert_int_equal(r->asked_mhz, PREF_NOMINAL_MHZ);
	assert_true(r->held);
}

/* CPPC, freq=max boost=off: HWCR[25] set first, the request at nominal; restored newest first. */
static void cppc_max_without_boost(void **state)
{
	(void)state;
	amd_machine(true, true);
	const struct freq_result *r = pin(ask(FREQ_ASK_MAX, 0, FREQ_BOOST_OFF));
	assert_int_equal(fake_log_count(), 2);
	assert_int_equal(fake_log_at(0)->msr, MSR_AMD_HWCR);
	assert_int_equal(fake_log_at(0)->value, HWCR_FOUND | CPB_DIS);
	assert_int_equal(fake_log_at(1)->msr, MSR_AMD_CPPC_REQ);
	assert_int_equal(fake_log_at(1)->value, cppc_req(CPPC_NOMINAL));
	assert_int_equal(r->asked_mhz, A_P0_MHZ);
	assert_int_equal(r->measured_mhz, A_P0_MHZ);
	must_contain(r->boost_done, "off: HWCR[25] CpbDis set");
	must_contain(restore_now(), "\"msrs\":2,\"exact\":true");
	assert_int_equal(fake_log_at(2)->msr, MSR_AMD_CPPC_REQ);
	assert_int_equal(fake_log_at(3)->msr, MSR_AMD_HWCR);
	assert_int_equal(fake_msr_get(MSR_AMD_HWCR), HWCR_FOUND);
	assert_int_equal(fake_msr_get(MSR_AMD_CPPC_REQ), CPPC_REQ_FOUND);

	/* With boost, max is the highest level: 166 x 34 MHz. */
	amd_machine(true, true);
	r = pin(ask(FREQ_ASK_MAX, 0, FREQ_BOOST_KEEP));
	assert_int_equal(r->asked_mhz, A_P0_MHZ * CPPC_HIGHEST / CPPC_NOMINAL);
	assert_int_equal(fake_msr_get(MSR_AMD_CPPC_REQ), cppc_req(CPPC_HIGHEST));
}

/* P-state control: 2500 MHz asked, P2 (2200 MHz) chosen and written; back to P0 at the restore. */
static void pstate_pins_and_restores(void **state)
{
	(void)state;
	uint64_t w[4];

	amd_machine(false, false);
	const struct freq_result *r = pin(ask(FREQ_ASK_MHZ, 2500, FREQ_BOOST_KEEP));
	assert_string_equal(r->control, "amd_pstate");
	assert_int_equal(r->asked_mhz, 2200);
	must_contain(r->chosen, "2500 MHz asked: P-state 2 (2200 MHz), the highest at or below it; P-states P0..P2");
	assert_int_equal(writes_to(MSR_AMD_PSTATE_CTL, w, 4), 1);
	assert_int_equal(w[0], 2);
	assert_int_equal(r->measured_mhz, 2200);
	assert_true(r->judged && r->held);
	must_contain(restore_now(), "\"msrs\":1,\"exact\":true");
	assert_int_equal(fake_msr_get(MSR_AMD_PSTATE_CTL), 0);
}

/* P0 is base; with boost on the core runs above it by itself, so the level is not judged; with boost off it is. */
static void pstate_base_and_boost(void **state)
{
	(void)state;
	amd_machine(false, false);
	const struct freq_result *r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_KEEP));
	assert_true(r->pinned);
	assert_false(r->wrote);			/* P-state control already asks for P0 */
	assert_false(r->judged);
	assert_int_equal(r->measured_mhz, A_BOOST_MHZ);
	must_contain(r->chosen, "boost is on, so the hardware may run above it");
	assert_null(restore_now());

	amd_machine(false, false);
	r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_OFF));
	assert_true(r->judged && r->held);
	assert_int_equal(r->measured_mhz, A_P0_MHZ);
	assert_int_equal(fake_msr_get(MSR_AMD_HWCR), HWCR_FOUND | CPB_DIS);
	must_contain(restore_now(), "\"msrs\":1,\"exact\":true");
	assert_int_equal(fake_msr_get(MSR_AMD_HWCR), HWCR_FOUND);

	/* boost=on where firmware had it off: CpbDis cleared, set again at the restore. */
	amd_machine(false, false);
	fake_msr_set(MSR_AMD_HWCR, HWCR_FOUND | CPB_DIS);
	r = pin(ask(FREQ_ASK_KEEP, 0, FREQ_BOOST_ON));
	assert_int_equal(fake_log_count(), 1);
	assert_int_equal(fake_log_at(0)->value, HWCR_FOUND);
	must_contain(r->boost_done, "on: HWCR[25] CpbDis clear");
	must_contain(restore_now(), "\"exact\":true");
	assert_int_equal(fake_msr_get(MSR_AMD_HWCR), HWCR_FOUND | CPB_DIS);
}

/* CPPC that firmware left off is not enabled (write-once): P-state control is used, and the note says why. */
static void cppc_left_off_is_not_enabled(void **state)
{
	(void)state;
	uint64_t w[2];
	amd_machine(true, false);
	const struct freq_result *r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_OFF));
	assert_string_equal(r->control, "amd_pstate");
	must_contain(r->chosen, "CPPC left off by firmware (its enable is write-once: not set here)");
	assert_int_equal(writes_to(MSR_AMD_CPPC_ENABLE, w, 2), 0);
	assert_int_equal(writes_to(MSR_AMD_CPPC_REQ, w, 2), 0);
}

/* What is not verified is refused, and nothing is written. */
static void unverified_or_absent_says_why(void **state)
{
	(void)state;
	amd_machine(false, false);
	ci.family = 0x1a;
	const struct freq_result *r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_OFF));
	must_contain(r->why, "PStateDef's frequency fields on Family 1ah are not verified here");
	assert_int_equal(fake_log_count(), 0);

	amd_machine(false, false);
	fake_cpuid_set(CPUID_LEAF_EXT_POWER, 0, 0, 0, 0, CPUID_EXT_POWER_EDX_INVARIANT_TSC);
	r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_KEEP));
	must_contain(r->why, "no hardware P-state control (CPUID Fn8000_0007_EDX[7] clear)");
	assert_int_equal(fake_log_count(), 0);

	/* No CPB: boost=off has nothing to switch and says so; the P-state is still pinned. */
	amd_machine(false, false);
	fake_cpuid_set(CPUID_LEAF_EXT_POWER, 0, 0, 0, 0, CPUID_EXT_POWER_EDX_HW_PSTATE | CPUID_EXT_POWER_EDX_INVARIANT_TSC);
	r = pin(ask(FREQ_ASK_MHZ, 2800, FREQ_BOOST_OFF));
	assert_int_equal(r->asked_mhz, 2800);
	must_contain(r->boost_done, "off already: no core performance boost");
	uint64_t w[2];
	assert_int_equal(writes_to(MSR_AMD_HWCR, w, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(cppc_pins_and_restores, teardown),
		cmocka_unit_test_teardown(cppc_preferred_core_levels, teardown),
		cmocka_unit_test_teardown(cppc_without_cpc_frequencies_says_so, teardown),
		cmocka_unit_test_teardown(cppc_max_without_boost, teardown),
		cmocka_unit_test_teardown(pstate_pins_and_restores, teardown),
		cmocka_unit_test_teardown(pstate_base_and_boost, teardown),
		cmocka_unit_test_teardown(cppc_left_off_is_not_enabled, teardown),
		cmocka_unit_test_teardown(unverified_or_absent_says_why, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
