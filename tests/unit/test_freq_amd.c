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

/* CPPC: 2000 MHz asked; nominal 100 is P0's 3400 MHz, so level 58 (1972 MHz) is the highest at or below it. */
static void cppc_pins_and_restores(void **state)
{
	(void)state;
	uint64_t w[4];

	amd_machine(true, true);
	const struct freq_result *r = pin(ask(FREQ_ASK_MHZ, 2000, FREQ_BOOST_KEEP));
	assert_true(r->pinned);
	assert_string_equal(r->control, "amd_cppc");
	assert_int_equal(r->asked_mhz, 1972);
	must_contain(r->chosen, "2000 MHz asked: CPPC level 58 (1972 MHz), the highest at or below it; CPPC levels "
				"20..166, nominal 100 = P0 3400 MHz");
	assert_int_equal(writes_to(MSR_AMD_CPPC_REQ, w, 4), 1);
	assert_int_equal(w[0], cppc_req(58));
	assert_int_equal(fake_log_count(), 1);	/* neither HWCR (boost=keep) nor the write-once enable */
	assert_int_equal(r->measured_mhz, 1972);
	assert_true(r->held);
	must_contain(restore_now(), "\"what\":\"clock\",\"msrs\":1,\"exact\":true");
	assert_int_equal(fake_msr_get(MSR_AMD_CPPC_REQ), CPPC_REQ_FOUND);
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
		cmocka_unit_test_teardown(cppc_max_without_boost, teardown),
		cmocka_unit_test_teardown(pstate_pins_and_restores, teardown),
		cmocka_unit_test_teardown(pstate_base_and_boost, teardown),
		cmocka_unit_test_teardown(cppc_left_off_is_not_enabled, teardown),
		cmocka_unit_test_teardown(unverified_or_absent_says_why, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
