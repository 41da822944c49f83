/*
 * The pinned clock on Intel parts (pmu/freq/): HWP min = max, IA32_PERF_CTL's
 * ratio and turbo bit, boost off and on, keep writing nothing, an absent
 * control writing nothing and saying why, a write or a restore that does not
 * read back, and the APERF/MPERF proof, against the fake CPU and its clock
 * model (tests/unit/freq_test.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/freq_test.h"

/* HWP: 2050 MHz asked -> level 20, min = max = desired = 20, package control off, EPP kept; back as found. */
static void hwp_pins_min_max_and_restores(void **state)
{
	(void)state;
	uint64_t w[4];

	intel_machine(true, "skylake");
	const struct freq_result *r = pin(ask(FREQ_ASK_MHZ, 2050, FREQ_BOOST_KEEP));
	assert_true(r->pinned);
	assert_string_equal(r->control, "hwp");
	assert_int_equal(r->asked_mhz, 2000);
	must_contain(r->chosen, "2050 MHz asked: HWP level 20 (2000 MHz), the highest at or below it");
	assert_int_equal(writes_to(MSR_IA32_HWP_REQUEST, w, 4), 1);
	assert_int_equal(w[0], 20ull | (20ull << 8) | (20ull << 16) | (0x80ull << 24));
	assert_int_equal(writes_to(MSR_IA32_PM_ENABLE, w, 4), 0);
	assert_int_equal(fake_log_count(), 1);	/* nothing else was written */
	/* The clock model runs at what was written: the proof sees it. */
	assert_true(r->measured);
	assert_int_equal(r->measured_mhz, 2000);
	assert_true(r->judged);
	assert_true(r->held);
	assert_int_equal(r->mperf_per_tsc_milli, 1000);
	must_contain(line_with("clock: pinned"), "clock: pinned to 2000 MHz via hwp (measured 2000 MHz); boost unchanged");

	const char *rec = restore_now();
	must_contain(rec, "\"what\":\"clock\",\"msrs\":1,\"exact\":true");
	assert_int_equal(fake_msr_get(MSR_IA32_HWP_REQUEST), HWP_REQ_FOUND);
	assert_int_equal(writes_to(MSR_IA32_HWP_REQUEST, w, 4), 2);
	assert_int_equal(w[1], HWP_REQ_FOUND);
	/* Restored once: a second restore has nothing to do and says nothing. */
	assert_null(restore_now());
}

/* freq=max: the highest level with boost, the base level without; base from MSR_PLATFORM_INFO. */
static void hwp_max_follows_boost(void **state)
{
	(void)state;
	intel_machine(true, "skylake");
	const struct freq_result *r = pin(ask(FREQ_ASK_MAX, 0, FREQ_BOOST_ON));
	assert_int_equal(r->asked_mhz, I_TURBO * 100);
	assert_int_equal(r->measured_mhz, I_TURBO * 100);
	must_contain(r->boost_done, "on: the request allows up to level 42 (4200 MHz)");
	freq_restore();

	intel_machine(true, "skylake");
	r = pin(ask(FREQ_ASK_MAX, 0, FREQ_BOOST_OFF));
	assert_int_equal(r->asked_mhz, I_BASE * 100);
	assert_int_equal(fake_msr_get(MSR_IA32_HWP_REQUEST) & 0xffffff, I_BASE | (I_BASE << 8) | (I_BASE << 16));
	must_contain(r->boost_done, "off: the request's maximum is at or below the base level");
	freq_restore();

	intel_machine(true, "skylake");
	r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_KEEP));
	assert_int_equal(r->asked_mhz, I_BASE * 100);
	must_contain(r->chosen, "base: HWP level 30; HWP levels 8..42 x 100 MHz, guaranteed 30, base 30 from the "
				"MSR_PLATFORM_INFO max non-turbo ratio");
}

/* IA32_PERF_CTL: base with boost off sets the ratio and bit 32; max with boost on, the turbo ratio, bit 32 clear. */
static void perf_ctl_ratio_and_turbo_bit(void **state)
{
	(void)state;
	uint64_t w[4];

	intel_machine(false, "skylake");
	const struct freq_result *r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_OFF));
	assert_string_equal(r->control, "perf_ctl");
	assert_int_equal(writes_to(MSR_IA32_PERF_CTL, w, 4), 1);
	assert_int_equal(w[0], (1ull << 32) | ((uint64_t)I_BASE << 8));
	assert_int_equal(r->measured_mhz, 3000);
	assert_true(r->held);
	must_contain(r->boost_done, "IA32_PERF_CTL[32] set");
	must_contain(restore_now(), "\"msrs\":1,\"exact\":true");
	assert_int_equal(fake_msr_get(MSR_IA32_PERF_CTL), PERF_CTL_FOUND);

	intel_machine(false, "skylake");
	fake_msr_set(MSR_IA32_PERF_CTL, PERF_CTL_FOUND | (1ull << 32));	/* turbo disengaged as found */
	r = pin(ask(FREQ_ASK_MAX, 0, FREQ_BOOST_ON));
	assert_int_equal(writes_to(MSR_IA32_PERF_CTL, w, 4), 1);
	assert_int_equal(w[0], (uint64_t)I_TURBO << 8);
	assert_int_equal(r->asked_mhz, 4200);
	assert_int_equal(r->measured_mhz, 4200);
	must_contain(r->chosen, "1-core turbo ratio from MSR_TURBO_RATIO_LIMIT");
	must_contain(restore_now(), "\"exact\":true");
	assert_int_equal(fake_msr_get(MSR_IA32_PERF_CTL), PERF_CTL_FOUND | (1ull << 32));
}

/* boost=off alone (freq=keep): only bit 32, the ratio as found; not a pin, so not judged, but measured. */
static void boost_alone_writes_only_the_switch(void **state)
{
	(void)state;
	uint64_t w[4];

	intel_machine(false, "skylake");
	const struct freq_result *r = pin(ask(FREQ_ASK_KEEP, 0, FREQ_BOOST_OFF));
	assert_false(r->pinned);
	assert_true(r->wrote);
	assert_int_equal(r->asked_mhz, 0);
	assert_int_equal(writes_to(MSR_IA32_PERF_CTL, w, 4), 1);
	assert_int_equal(w[0], PERF_CTL_FOUND | (1ull << 32));
	assert_true(r->measured);
	assert_int_equal(r->measured_mhz, 2800);
	assert_false(r->judged);
	must_contain(line_with("clock: boost"), "via perf_ctl (measured 2800 MHz)");
	must_contain(restore_now(), "\"exact\":true");

	/* Asked again with the switch already off: nothing to write, and it says so. */
	intel_machine(false, "skylake");
	fake_msr_set(MSR_IA32_PERF_CTL, PERF_CTL_FOUND | (1ull << 32));
	r = pin(ask(FREQ_ASK_KEEP, 0, FREQ_BOOST_OFF));
	assert_false(r->wrote);
	assert_int_equal(fake_log_count(), 0);
	must_contain(r->why, "nothing needed writing");
	assert_null(restore_now());
}

/* freq=keep boost=keep: no MSR written, nothing measured, no line, no restore record. */
static void keep_writes_nothing(void **state)
{
	(void)state;
	intel_machine(true, "skylake");
	const struct freq_result *r = pin(ask(FREQ_ASK_KEEP, 0, FREQ_BOOST_KEEP));
	assert_int_equal(fake_log_count(), 0);
	assert_false(r->pinned || r->wrote || r->measured);
	assert_null(r->control);
	must_contain(r->why, "freq=keep and boost=keep");
	assert_null(line_with("clock:"));
	assert_null(restore_now());
	assert_int_equal(fake_msr_get(MSR_IA32_HWP_REQUEST), HWP_REQ_FOUND);
}

/* No control: each case writes nothing and names its reason. */
static void absent_control_says_why(void **state)
{
	(void)state;
	enum { NO_EIST, NO_PERF_CTL, UNKNOWN_LAYOUT, EMULATED, HOST, HYBRID, VIRTUALISED, NO_INVARIANT_TSC };
	static const char *const why[] = {
		[NO_EIST] = "no Enhanced SpeedStep (CPUID.01H:ECX[7] clear), so no IA32_PERF_CTL",
		[NO_PERF_CTL] = "IA32_PERF_CTL cannot be read (#GP)",
		[UNKNOWN_LAYOUT] = "IA32_PERF_CTL on merom is not known to take a bare ratio",
		[EMULATED] = "emulated (QEMU TCG): the clock is the emulator's, there is none to pin",
		[HOST] = "pmuboot-host leaves the clock to Linux",
		[HYBRID] = "HWP on a hybrid part: its performance levels are not 100 MHz steps",
		[VIRTUALISED] = "IA32_PERF_CTL cannot be read (#GP) (virtualised: the hypervisor decides which of these "
				"MSRs exist)",
		[NO_INVARIANT_TSC] = "no invariant TSC (CPUID 8000_0007h EDX[8] clear)",
	};
	for (int c = NO_EIST; c <= NO_INVARIANT_TSC; c++) {
		struct freq_opts o = ask(FREQ_ASK_BASE, 0, FREQ_BOOST_OFF);
		intel_machine(c == HYBRID, c == UNKNOWN_LAYOUT ? "merom" : "skylake");
		if (c == NO_EIST)
			fake_cpuid_set(CPUID_LEAF_SIGNATURE, 0, 0x000506E3u, 0, 0, 0);
		if (c == NO_INVARIANT_TSC)
			fake_cpuid_set(CPUID_LEAF_EXT_POWER, 0, 0, 0, 0, 0);
		if (c == NO_PERF_CTL || c == VIRTUALISED) {
			/* The same part without IA32_PERF_CTL: every other MSR as before. */
			uint64_t keep[][2] = { { MSR_PLATFORM_INFO, I_PLATFORM_INFO }, { MSR_IA32_MPERF, 0 },
					       { MSR_IA32_APERF, 0 } };
			fake_reset();
			fake_tsc_set(0, TSC_STEP);
			fake_set_hook(&clock_hook);
			fake_cpuid_set(CPUID_LEAF_VENDOR, 0, ci.max_leaf, 0, 0, 0);
			fake_cpuid_set(CPUID_LEAF_SIGNATURE, 0, 0x000506E3u, 0, CPUID1_ECX_EIST, 0);
			fake_cpuid_set(CPUID_LEAF_POWER, 0, CPUID6_EAX_TURBO, 0, CPUID6_ECX_APERFMPERF, 0);
			fake_cpuid_set(CPUID_LEAF_EXT_MAX, 0, CPUID_LEAF_EXT_CAPACITY, 0, 0, 0);
			fake_cpuid_set(CPUID_LEAF_EXT_POWER, 0, 0, 0, 0, CPUID_EXT_POWER_EDX_INVARIANT_TSC);
			for (size_t k = 0; k < ARRAY_SIZE(keep); k++)
				fake_msr_define((uint32_t)keep[k][0], keep[k][1], 0);
		}
		ci.exec = c == EMULATED ? EXEC_EMULATED : c == VIRTUALISED ? EXEC_VIRTUALISED : EXEC_BARE_METAL;
		ci.hv_name = c == EMULATED ? "QEMU TCG" : NULL;
		ci.hybrid = c == HYBRID;
		if (c == HOST)
			o.not_here = "pmuboot-host leaves the clock to Linux's cpufreq driver";
		const struct freq_result *r = pin(o);
		if (!strstr(r->why, why[c]))
			fail_msg("case %d: expected \"%s\" in \"%s\"", c, why[c], r->why);
		assert_int_equal(fake_log_count(), 0);
		assert_false(r->pinned || r->wrote || r->measured);
		assert_null(r->control);
		must_contain(r->measured_why, "nothing was pinned");
		must_contain(line_with("clock: not pinned (freq=base boost=off)"), why[c]);
		assert_null(restore_now());
	}
}

/* A write that does not read back: nothing pinned, said, and put back at once. */
static void pin_that_does_not_hold(void **state)
{
	(void)state;
	intel_machine(false, "skylake");
	clk.drop_msr = MSR_IA32_PERF_CTL;
	clk.drop_any = true;
	const struct freq_result *r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_KEEP));
	assert_false(r->pinned);
	assert_null(r->control);
	must_contain(r->why, "perf_ctl: MSR 0x199 (IA32_PERF_CTL) did not hold the value written (wrote 0x1e00, read "
			     "0x1c00); what was written is put back now");
	/* The restore ran there: it found the value as it was and wrote nothing. */
	must_contain(capture_find(&cap, "restore"), "\"what\":\"clock\",\"msrs\":1,\"exact\":true");
	assert_int_equal(fake_msr_get(MSR_IA32_PERF_CTL), PERF_CTL_FOUND);
	assert_null(restore_now());
}

/* A restore that does not read back is in the record, with what was wanted and read, and is an error. */
static void restore_that_does_not_read_back(void **state)
{
	(void)state;
	intel_machine(false, "skylake");
	const struct freq_result *r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_KEEP));
	assert_true(r->pinned);
	clk.drop_msr = MSR_IA32_PERF_CTL;	/* from now on, writing the original back is ignored */
	clk.drop_val = PERF_CTL_FOUND;
	const char *rec = restore_now();
	must_contain(rec, "\"what\":\"clock\",\"msrs\":1,\"exact\":false,\"mismatches\":[{\"msr\":\"0x199\","
			  "\"wrote\":\"0x1c00\",\"read\":\"0x1e00\"}]");
	const char *err = capture_find(&cap, "error");
	must_contain(err, "\"source\":\"clock\",\"what\":\"restore\"");
	must_contain(err, "1 of 1 clock MSRs did not read back as found");
	clk.drop_msr = 0;
}

/* The proof: a clock that does not reach the level, no APERF/MPERF, an MPERF not at the TSC's rate. */
static void proof_reports_what_it_sees(void **state)
{
	(void)state;
	intel_machine(false, "skylake");
	clk.cap_mhz = 3500;
	const struct freq_result *r = pin(ask(FREQ_ASK_MAX, 0, FREQ_BOOST_ON));
	assert_int_equal(r->asked_mhz, 4200);
	assert_int_equal(r->measured_mhz, 3500);
	assert_false(r->held);
	must_contain(line_with("clock: pinned"), "(measured 3500 MHz, NOT within 1% of it)");
	freq_restore();

	intel_machine(false, "skylake");
	fake_cpuid_set(CPUID_LEAF_POWER, 0, CPUID6_EAX_TURBO, 0, 0, 0);
	r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_KEEP));
	assert_true(r->pinned);
	assert_false(r->measured);
	must_contain(r->measured_why, "no APERF/MPERF (CPUID.06H:ECX[0] clear)");
	freq_restore();

	intel_machine(false, "skylake");
	clk.mperf_per_mhz_tsc = 500;
	r = pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_KEEP));
	assert_false(r->measured);
	must_contain(r->measured_why, "MPERF ticked 0.500 times per TSC tick");
	freq_restore();

	intel_machine(false, "skylake");
	recapture();
	struct freq_opts o = ask(FREQ_ASK_BASE, 0, FREQ_BOOST_KEEP);
	freq_pin(&ci, &o);
	freq_prove(0);
	must_contain(freq_result()->measured_why, "the TSC frequency is unknown");
}

/* A pin never restored (its processor's pass did not return) is dropped, said, and not mixed into the next. */
static void unrestored_pin_is_not_mixed_in(void **state)
{
	(void)state;
	intel_machine(false, "skylake");
	pin(ask(FREQ_ASK_BASE, 0, FREQ_BOOST_KEEP));
	/* Another processor, whose IA32_PERF_CTL holds something else. */
	fake_msr_set(MSR_IA32_PERF_CTL, 0x1800);
	const struct freq_result *r = pin(ask(FREQ_ASK_MHZ, 2000, FREQ_BOOST_KEEP));
	assert_true(r->pinned);
	must_contain(line_with("clock: 1 MSR written on a processor whose pass did not return"), "could not be put back");
	must_contain(restore_now(), "\"msrs\":1,\"exact\":true");
	assert_int_equal(fake_msr_get(MSR_IA32_PERF_CTL), 0x1800);
}

/* MHz below the lowest level: nothing chosen, nothing written. */
static void below_the_lowest_level(void **state)
{
	(void)state;
	intel_machine(true, "skylake");
	const struct freq_result *r = pin(ask(FREQ_ASK_MHZ, 700, FREQ_BOOST_KEEP));
	must_contain(r->why, "700 MHz is below the lowest level hwp offers (800 MHz); nothing was written");
	assert_int_equal(fake_log_count(), 0);
	assert_int_equal(r->asked_mhz, 0);
}

/* The timing record's fields, as freq_fields writes them. */
static void fields_in_the_record(void **state)
{
	(void)state;
	static struct rec rec;

	intel_machine(true, "skylake");
	pin(ask(FREQ_ASK_MHZ, 2000, FREQ_BOOST_OFF));
	recapture();
	rec_start(&rec, "timing");
	freq_fields(&rec);
	rec_emit(&rec);
	const char *t = capture_find(&cap, "timing");
	must_contain(t, "\"freq_option\":\"2000\",\"freq_asked\":2000,\"freq_control\":\"hwp\",\"freq_why\":null,"
			"\"freq_chosen\":\"2000 MHz asked: HWP level 20 (2000 MHz)");
	must_contain(t, "\"freq_measured\":2000,\"freq_mperf_per_tsc\":1.000,\"freq_samples\":2,"
			"\"freq_measured_why\":null,\"freq_held\":true,\"boost\":{\"asked\":\"off\",\"done\":\"off: ");
	freq_restore();

	/* Nothing asked: nulls, and why. */
	intel_machine(true, "skylake");
	pin(ask(FREQ_ASK_KEEP, 0, FREQ_BOOST_KEEP));
	recapture();
	rec_start(&rec, "timing");
	freq_fields(&rec);
	rec_emit(&rec);
	must_contain(capture_find(&cap, "timing"),
		     "\"freq_option\":\"keep\",\"freq_asked\":null,\"freq_control\":null,\"freq_why\":\"freq=keep and "
		     "boost=keep: the clock is left as found\",\"freq_chosen\":null,\"freq_measured\":null,"
		     "\"freq_measured_why\":\"nothing was pinned\",\"freq_held\":null,\"boost\":{\"asked\":\"keep\","
		     "\"done\":\"unchanged\"}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(hwp_pins_min_max_and_restores, teardown),
		cmocka_unit_test_teardown(hwp_max_follows_boost, teardown),
		cmocka_unit_test_teardown(perf_ctl_ratio_and_turbo_bit, teardown),
		cmocka_unit_test_teardown(boost_alone_writes_only_the_switch, teardown),
		cmocka_unit_test_teardown(keep_writes_nothing, teardown),
		cmocka_unit_test_teardown(absent_control_says_why, teardown),
		cmocka_unit_test_teardown(pin_that_does_not_hold, teardown),
		cmocka_unit_test_teardown(restore_that_does_not_read_back, teardown),
		cmocka_unit_test_teardown(proof_reports_what_it_sees, teardown),
		cmocka_unit_test_teardown(unrestored_pin_is_not_mixed_in, teardown),
		cmocka_unit_test_teardown(below_the_lowest_level, teardown),
		cmocka_unit_test_teardown(fields_in_the_record, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
