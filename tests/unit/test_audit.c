/*
 * tests/unit/test_audit.c - the audit stage against the modelled PMU of the
 * fake CPU: a clean PMU passes every check it can do (the rest absent, with
 * a reason); each injected fault fails the check that must catch it, naming
 * the counter, and the verdict refuses the figures it spoils.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/fake/fake_pmu.h"
#include "tests/unit/record_asserts.h"
#include "pmu/audit/audit.h"
#include "pmu/audit/audit_model.h"
#include "pmu/count/msr_save.h"
#include "lib/record.h"
#include "lib/x86/msr_intel.h"
#include "tests/unit/identify_dump_load.h"

static struct cpu_info ci;
static struct pmu_caps caps;
static struct audit_model_runner mr;
static struct audit_verdict v;
static struct capture cap;
static char why[256];
/* The next machine()'s crystal clock as a fraction of its TSC (0: the dump's own, CPUID 15H). */
static uint32_t crystal_div;

static void model_up(const char *key, bool metrics, const char *faults);

/* A preset's PMU with the machine around it (APERF/MPERF), the faults given, counting initialised. */
static void machine(const char *key, bool metrics, const char *faults)
{
	const struct fake_cpu *fc = fake_cpu_find(key);
	assert_non_null(fc);
	ci = fake_cpu_identified(fc);
	caps = fc->caps;
	model_up(key, metrics, faults);
}

/* Block `block` of a CPUID fixture as identified, its PMU modelled like machine()'s. */
static void machine_dump(const char *file, size_t block, bool metrics, uint32_t ext_fixed_mask, const char *faults)
{
	struct loaded_dump ld;
	char err[600];
	if (!dump_load(file, &ld, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(block < ld.d.ncpus);
	dump_to_fake(&ld, block);
	cpu_identify(&ci);
	pmu_caps_detect(&ci, &caps);
	dump_free(&ld);
	if (ext_fixed_mask) {
		/* What leaf 23H enumerates on the E-cores of Lunar Lake and later (fixed 0-2 and 4-6). */
		caps.arch_ext = true;
		caps.ext_fixed_mask = ext_fixed_mask;
	}
	model_up(file, metrics, faults);
}

static void model_up(const char *key, bool metrics, const char *faults)
{
	caps.aperf_mperf = caps.kind != PMU_NONE;
	if (metrics) {
		caps.perf_caps_read = true;
		caps.perf_caps |= PERF_CAP_PERF_METRICS;
		caps.perf_metrics = true;
	}
	struct pmu_model_cfg cfg;
	pmu_model_cfg_from_caps(&cfg, &ci, &caps);
	pmu_model_cfg_machine(&cfg, &ci, &caps);
	if (crystal_div && cfg.tsc_hz)
		cfg.crystal_hz = cfg.tsc_hz / crystal_div;
	struct pmu_model *m = fake_pmu_install_cfg(&cfg);
	for (const char *f = faults; f && *f;) {
		char word[32];
		size_t n = strcspn(f, ",");
		snprintf(word, sizeof(word), "%.*s", (int)n, f);
		if (!pmu_model_fault_parse(word, &m->faults, why, sizeof(why)))
			fail_msg("%s", why);
		f += n + (f[n] == ',');
	}
	fake_pmi_allow_route(true);
	msr_save_forget();
	count_use_backend(&count_backend_msr);
	struct count_opts opts = { 0 };
	bool ok = count_init(&ci, &caps, &opts, why, sizeof(why));
	if (caps.kind != PMU_NONE && !ok)
		fail_msg("count_init on %s: %s", key, why);
	audit_model_runner_init(&mr, m, &ci);
}

static void audit(void)
{
	struct audit_params p = { .ci = &ci, .caps = &caps, .runner = &mr.runner };
	capture_start(&cap);
	audit_run(&p, &v);
	count_restore();
}

static const char *check(const char *name)
{
	const char *recs[16];
	char frag[48];
	size_t n = records_of_type(&cap, "audit", recs, 16);
	snprintf(frag, sizeof(frag), "\"check\":\"%s\"", name);
	for (size_t i = 0; i < n; i++)
		if (strstr(recs[i], frag))
			return recs[i];
	fail_msg("no audit record for %s", name);
	return NULL;
}

static void expect(const char *name, const char *status)
{
	char frag[48];
	snprintf(frag, sizeof(frag), "\"status\":\"%s\"", status);
	record_has(check(name), frag);
}

static void teardown_capture(void) { capture_free(&cap); }

static void intel_clean_passes(void **state)
{
	(void)state;
	machine("skylake", false, NULL);
	audit();
	expect("instructions", "pass");
	expect("branches", "pass");
	expect("counters-agree", "pass");
	expect("fixed", "pass");
	expect("full-width", "pass");
	expect("overflow", "pass");
	expect("clock", "pass");
	/* No PERF_METRICS on Skylake: absent, and why. */
	expect("topdown", "absent");
	record_has(check("topdown"), "PERF_METRICS");
	record_has(check("instructions"), "\"counter\":\"pmc0-7,fixed0\"");
	record_has(check("instructions"), "\"got\":40000");
	record_has(check("branches"), "BR_INST_RETIRED.COND");
	assert_int_equal(v.failed, 0);
	assert_int_equal(v.passed, 7);
	const char *w;
	assert_true(audit_counter_ok(&v, false, 3, 0x01, &w));
	assert_true(audit_clock_ok(&v, &w));
	teardown_capture();
}

static void icelake_topdown_passes(void **state)
{
	(void)state;
	machine("icelake", true, NULL);
	audit();
	expect("topdown", "pass");
	record_has(check("topdown"), "\"expected\":255");
	expect("fixed", "pass");
	record_has(check("fixed"), "fixed3=");
	/* Full-width writes (FW_WRITE): the value above bit 31 goes in whole. */
	expect("full-width", "pass");
	record_has(check("full-width"), "IA32_A_PMCx");
	assert_int_equal(v.failed, 0);
	teardown_capture();
}

static void amd_clean_passes(void **state)
{
	(void)state;
	machine("zen4", false, NULL);
	audit();
	expect("instructions", "pass");
	record_has(check("instructions"), "SSE");
	expect("branches", "pass");
	expect("counters-agree", "pass");
	expect("full-width", "pass");
	expect("overflow", "pass");
	expect("clock", "pass");
	expect("fixed", "absent");
	expect("topdown", "absent");
	assert_int_equal(v.failed, 0);
	teardown_capture();
}

/* K8: no global status register; the overflow shows as the wrap, the PMI still arrives. */
static void k8_overflow_without_status(void **state)
{
	(void)state;
	machine("k8", false, NULL);
	audit();
	expect("overflow", "pass");
	record_has(check("overflow"), "no status register");
	expect("instructions", "pass");
	assert_int_equal(v.failed, 0);
	teardown_capture();
}

static void no_pmu_is_absent(void **state)
{
	(void)state;
	machine("tcg", false, NULL);
	audit();
	const char *names[] = { "instructions", "branches", "counters-agree", "fixed", "full-width", "overflow",
				"topdown", "clock" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		expect(names[i], "absent");
	record_has(check("clock"), "emulated");
	assert_int_equal(v.failed, 0);
	assert_int_equal(v.absent, 8);
	teardown_capture();
}

static void stuck_counter_named(void **state)
{
	(void)state;
	const char *keys[] = { "skylake", "zen4" };
	for (size_t k = 0; k < 2; k++) {
		machine(keys[k], false, "stuck:2");
		audit();
		expect("instructions", "fail");
		record_has(check("instructions"), "\"counter\":\"pmc2\"");
		record_has(check("instructions"), "\"got\":0");
		expect("counters-agree", "fail");
		record_has(check("counters-agree"), "\"counter\":\"pmc2\"");
		assert_int_equal(v.bad_gp, 1u << 2);
		const char *w;
		assert_false(audit_counter_ok(&v, false, 2, 0, &w));
		assert_non_null(strstr(w, "pmc2"));
		assert_true(audit_counter_ok(&v, false, 1, 0, &w));
		teardown_capture();
	}
}

static void narrow_counter_named(void **state)
{
	(void)state;
	const char *keys[] = { "skylake", "icelake", "zen4" };
	for (size_t k = 0; k < 3; k++) {
		machine(keys[k], false, "narrow:3");
		audit();
		expect("full-width", "fail");
		record_has(check("full-width"), "\"counter\":\"pmc3\"");
		expect("instructions", "pass");
		assert_true(v.bad_gp & (1u << 3));
		teardown_capture();
	}
}

static void ignored_umask_caught(void **state)
{
	(void)state;
	machine("skylake", false, "ignore-umask");
	audit();
	expect("branches", "fail");
	record_has(check("branches"), "unit mask");
	expect("instructions", "pass");
	assert_true(v.umask_bad);
	const char *w;
	assert_false(audit_counter_ok(&v, false, 0, 0x01, &w));
	assert_true(audit_counter_ok(&v, false, 0, 0x00, &w));
	teardown_capture();
	/* AMD: the SSE class of PMCx0CB. */
	machine("zen4", false, "ignore-umask");
	audit();
	expect("instructions", "fail");
	record_has(check("instructions"), "SSE");
	assert_true(v.umask_bad);
	teardown_capture();
}

static void missing_pmi_caught(void **state)
{
	(void)state;
	const char *keys[] = { "skylake", "zen4" };
	for (size_t k = 0; k < 2; k++) {
		machine(keys[k], false, "no-pmi");
		audit();
		expect("overflow", "fail");
		record_has(check("overflow"), "no PMI");
		teardown_capture();
	}
}

/* Where the PMI cannot be routed (a process), overflow is absent, never a pass. */
static void unroutable_pmi_absent(void **state)
{
	(void)state;
	machine("skylake", false, NULL);
	fake_pmi_allow_route(false);
	audit();
	expect("overflow", "absent");
	record_has(check("overflow"), "PMI could not be checked");
	teardown_capture();
}

static void fixed_off_named(void **state)
{
	(void)state;
	machine("skylake", false, "fixed-off:1");
	audit();
	expect("fixed", "fail");
	record_has(check("fixed"), "\"counter\":\"fixed1\"");
	assert_int_equal(v.bad_fixed, 1u << 1);
	const char *w;
	assert_false(audit_counter_ok(&v, true, 1, 0, &w));
	teardown_capture();
}

static void drifting_clock_caught(void **state)
{
	(void)state;
	const char *keys[] = { "skylake", "zen4" };
	for (size_t k = 0; k < 2; k++) {
		machine(keys[k], false, "freq-drift:5");
		audit();
		expect("clock", "fail");
		record_has(check("clock"), "clock moved");
		assert_true(v.clock_bad);
		const char *w;
		assert_false(audit_clock_ok(&v, &w));
		teardown_capture();
	}
	/* A clock that holds within 1% is not an alarm. */
	machine("skylake", false, "freq-drift:1");
	audit();
	expect("clock", "pass");
	teardown_capture();
}

/* A failed check is a run error; absent ones are not. */
static void failure_counts_as_error(void **state)
{
	(void)state;
	machine("skylake", false, "stuck:0");
	uint32_t before = rec_stream_errors();
	audit();
	assert_true(rec_stream_errors() > before);
	teardown_capture();
	machine("tcg", false, NULL);
	before = rec_stream_errors();
	audit();
	assert_int_equal(rec_stream_errors(), before);
	teardown_capture();
}

/* Firmware left FREEZE_PERFMON_ON_PMI set: the overflow check's PMI would freeze every later count. The
 * audit clears it first (its write in the log) and the run's restore puts it back. */
static void freeze_on_pmi_cleared_and_restored(void **state)
{
	(void)state;
	machine("skylake", false, NULL);
	fake_msr_define(MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI, ~0ull);
	size_t mark = fake_log_count();
	audit();
	expect("overflow", "pass");
	bool cleared = false;
	for (size_t i = mark; i < fake_log_count(); i++)
		if (fake_log_at(i)->msr == MSR_IA32_DEBUGCTL && !(fake_log_at(i)->value & DEBUGCTL_FREEZE_PERFMON_ON_PMI))
			cleared = true;
	assert_true(cleared);
	assert_int_equal(fake_msr_get(MSR_IA32_DEBUGCTL), DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	teardown_capture();
}

/* Every write the audit made is put back. */
static void audit_restores_everything(void **state)
{
	(void)state;
	machine("skylake", false, NULL);
	uint64_t before = fake_pmu_peek(MSR_IA32_PERF_GLOBAL_CTRL);
	audit();
	assert_int_equal(msr_save_count(), 0);
	assert_int_equal(fake_pmu_peek(MSR_IA32_PERF_GLOBAL_CTRL), before);
	assert_int_equal(fake_pmu_peek(MSR_IA32_PERFEVTSEL0 + 2), 0);
	teardown_capture();
}


/* ---- issue 30 ---- */

#define ARROWLAKE "tests/fixtures/cpuid/intel_arrowlake_h_three_core_types.txt"
#define SAPPHIRE "tests/fixtures/cpuid-real/GenuineIntel00806F8_SapphireRapids_05_CPUID.txt"

/* Whether a captured line holds every fragment given (up to three). */
static bool line_has(const char *a, const char *b, const char *c)
{
	for (size_t i = 0; i < cap.n; i++)
		if (cap.lines[i] && strstr(cap.lines[i], a) && (!b || strstr(cap.lines[i], b)) &&
		    (!c || strstr(cap.lines[i], c)))
			return true;
	return false;
}

/* The loop's own rate (audit_model_host.c), for the wrappers below that change one event of it. */
static pmu_model_rate_fn loop_rate;

/* A loop that mispredicts: fixed counter 4 (bad speculation, pseudo-encoding 00H/05H) counts a slot a trip. */
static uint64_t speculating_loop(void *ctx, uint16_t event, uint8_t umask)
{
	const uint8_t fixed4_umask = 4 + 1;
	if (event == PMU_MODEL_FIXED_EVENT && umask == fixed4_umask)
		return 1;
	return loop_rate(ctx, event, umask);
}

/* Skylake's 3CH/01H is REF_XCLK at the crystal clock, about 1/90 of the TSC: fixed counter 2 (REF_TSC) is
 * compared with the TSC itself, and passes. */
static void ref_tsc_against_the_tsc(void **state)
{
	(void)state;
	crystal_div = 90;
	machine("skylake", false, NULL);
	crystal_div = 0;
	audit();
	expect("fixed", "pass");
	record_has(check("fixed"), "\"counter\":\"fixed0-2\"");
	record_has(check("fixed"), "fixed2=");
	record_has(check("fixed"), "TSC");
	assert_int_equal(v.bad_fixed, 0);
	teardown_capture();
}

/* Where the core's table has REF_TSC_P (Golden Cove on) it is fixed counter 2's reference: a fixed2 that
 * does not count is caught against it (the oracle counts REF_TSC_P at the TSC's rate there). */
static void ref_tsc_p_is_the_pair_where_named(void **state)
{
	(void)state;
	machine_dump(SAPPHIRE, 0, false, 0, "fixed-off:2");
	audit();
	expect("fixed", "fail");
	record_has(check("fixed"), "\"counter\":\"fixed2\"");
	record_has(check("fixed"), "CPU_CLK_UNHALTED.REF_TSC_P");
	teardown_capture();
	machine_dump(SAPPHIRE, 0, false, 0, NULL);
	audit();
	expect("fixed", "pass");
	teardown_capture();
}

/* An E-core with fixed counters 4-6 (leaf 23H 0x77): fixed4 counts bad speculation, 0 on the loop. It is
 * held to a bound in `fixed`, and full-width and overflow leave it out, saying so, instead of failing it. */
static void ecore_fixed4_is_bounded_not_wrapped(void **state)
{
	(void)state;
	machine_dump(ARROWLAKE, 1, false, 0x77, NULL);
	assert_string_equal(ci.event_set, "skymont");
	audit();
	expect("fixed", "pass");
	record_has(check("fixed"), "fixed4=0");
	record_has(check("fixed"), "fixed0-2,fixed4-6");
	expect("full-width", "pass");
	record_has(check("full-width"), "fixed4 not checked");
	record_has(check("full-width"), "TOPDOWN_BAD_SPECULATION");
	expect("overflow", "pass");
	record_has(check("overflow"), "fixed4 not checked");
	record_has(check("overflow"), "fixed0-2,fixed5-6");
	assert_true(line_has("full-width", "fixed4 not checked", NULL));
	assert_int_equal(v.failed, 0);
	teardown_capture();
	/* The bound is a check: a fixed4 that counts is caught. */
	machine_dump(ARROWLAKE, 1, false, 0x77, NULL);
	loop_rate = mr.m->rate;
	mr.m->rate = speculating_loop;
	audit();
	expect("fixed", "fail");
	record_has(check("fixed"), "\"counter\":\"fixed4\"");
	teardown_capture();
	/* Unit masks ignored: the references with a unit mask prove nothing, and do not blame fixed5-6. */
	machine_dump(ARROWLAKE, 1, false, 0x77, "ignore-umask");
	audit();
	expect("fixed", "pass");
	record_has(check("fixed"), "fixed5-6 not checked");
	assert_false(v.bad_fixed & (3u << 5));
	teardown_capture();
}

/* An NMI with no overflow behind it is not the PMI: alone it changes nothing; with the PMI missing it
 * no longer stands in for it. */
static void stray_nmi_is_not_a_pmi(void **state)
{
	(void)state;
	const char *keys[] = { "skylake", "zen4", "k8" };
	for (size_t k = 0; k < 3; k++) {
		machine(keys[k], false, "stray-nmi");
		audit();
		expect("overflow", "pass");
		record_has(check("overflow"), "exactly one PMI");
		teardown_capture();
		machine(keys[k], false, "stray-nmi,no-pmi");
		audit();
		expect("overflow", "fail");
		record_has(check("overflow"), "\"counter\":\"pmc0\"");
		record_has(check("overflow"), "\"expected\":1,\"got\":0");
		record_has(check("overflow"), "no PMI of its own");
		assert_true(v.bad_gp & 1u);
		teardown_capture();
	}
}

/* A clock that stands still while instructions retire: no agreement check passes on it. */
static void frozen_clock_passes_nothing(void **state)
{
	(void)state;
	const char *keys[] = { "skylake", "zen4" };
	for (size_t k = 0; k < 2; k++) {
		machine(keys[k], false, "frozen-clock");
		audit();
		expect("instructions", "pass");
		expect("clock", "fail");
		record_has(check("clock"), "did not move");
		expect("counters-agree", "fail");
		record_has(check("counters-agree"), "does not move");
		if (k == 0) {
			expect("fixed", "fail");
			record_has(check("fixed"), "\"counter\":\"fixed1\"");
		}
		assert_true(v.clock_bad);
		teardown_capture();
	}
}

/* Lion Cove names COND with an extended unit mask the driver does not program: the proof uses the
 * taken-backward half instead, so a PMU that ignores unit masks is caught there too. */
static void lion_cove_umask_proof(void **state)
{
	(void)state;
	machine_dump(ARROWLAKE, 0, false, 0, NULL);
	assert_string_equal(ci.event_set, "lioncove");
	audit();
	expect("branches", "pass");
	record_has(check("branches"), "BR_INST_RETIRED.COND_TAKEN_BWD exact");
	teardown_capture();
	machine_dump(ARROWLAKE, 0, false, 0, "ignore-umask");
	audit();
	expect("branches", "fail");
	record_has(check("branches"), "unit mask");
	assert_true(v.umask_bad);
	teardown_capture();
}

/* Where no known-answer event with a unit mask exists, the line and the record say the proof is absent. */
static void absent_umask_proof_said(void **state)
{
	(void)state;
	machine("core2", false, NULL);
	audit();
	expect("branches", "pass");
	record_has(check("branches"), "unit-mask proof absent");
	assert_true(line_has("branches", "unit-mask proof absent", NULL));
	teardown_capture();
}

/* FREEZE_LBRS_ON_PMI left set by firmware is cleared for the check and put back, like FREEZE_PERFMON_ON_PMI. */
static void freeze_lbrs_on_pmi_cleared_and_restored(void **state)
{
	(void)state;
	const uint64_t lbr_on = 1u;	/* IA32_DEBUGCTL.LBR: firmware's LBRs stay on throughout */
	machine("skylake", false, NULL);
	fake_msr_define(MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_LBRS_ON_PMI | lbr_on, ~0ull);
	size_t mark = fake_log_count();
	audit();
	expect("overflow", "pass");
	bool cleared = false;
	for (size_t i = mark; i < fake_log_count(); i++)
		if (fake_log_at(i)->msr == MSR_IA32_DEBUGCTL && fake_log_at(i)->value == lbr_on)
			cleared = true;
	assert_true(cleared);
	assert_int_equal(fake_msr_get(MSR_IA32_DEBUGCTL), DEBUGCTL_FREEZE_LBRS_ON_PMI | lbr_on);
	teardown_capture();
}

/* A rate for the loop with a memory-bound share larger than the backend-bound one: PERF_METRICS' byte 7
 * then exceeds byte 3, which no core can report. */
static uint64_t oversized_memory_bound(void *ctx, uint16_t event, uint8_t umask)
{
	const uint8_t mem_bound_event = 0xA4, mem_bound_umask = 0x10;	/* TOPDOWN.MEMORY_BOUND_SLOTS */
	if (event == mem_bound_event && umask == mem_bound_umask)
		return 7;
	return loop_rate(ctx, event, umask);
}

static void topdown_level2_within_level1(void **state)
{
	(void)state;
	machine_dump(SAPPHIRE, 0, true, 0, NULL);
	audit();
	expect("topdown", "pass");
	record_has(check("topdown"), "4 level-2 bytes");
	teardown_capture();
	/* Ice Lake has level 1 only: the record says level 2 was not checked. */
	machine("icelake", true, NULL);
	audit();
	expect("topdown", "pass");
	record_has(check("topdown"), "level-2 bytes not checked");
	teardown_capture();
	machine_dump(SAPPHIRE, 0, true, 0, NULL);
	loop_rate = mr.m->rate;
	mr.m->rate = oversized_memory_bound;
	audit();
	expect("topdown", "fail");
	record_has(check("topdown"), "memory bound");
	teardown_capture();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_clean_passes),
		cmocka_unit_test(icelake_topdown_passes),
		cmocka_unit_test(amd_clean_passes),
		cmocka_unit_test(k8_overflow_without_status),
		cmocka_unit_test(no_pmu_is_absent),
		cmocka_unit_test(stuck_counter_named),
		cmocka_unit_test(narrow_counter_named),
		cmocka_unit_test(ignored_umask_caught),
		cmocka_unit_test(missing_pmi_caught),
		cmocka_unit_test(unroutable_pmi_absent),
		cmocka_unit_test(fixed_off_named),
		cmocka_unit_test(drifting_clock_caught),
		cmocka_unit_test(failure_counts_as_error),
		cmocka_unit_test(audit_restores_everything),
		cmocka_unit_test(freeze_on_pmi_cleared_and_restored),
		cmocka_unit_test(ref_tsc_against_the_tsc),
		cmocka_unit_test(ref_tsc_p_is_the_pair_where_named),
		cmocka_unit_test(ecore_fixed4_is_bounded_not_wrapped),
		cmocka_unit_test(stray_nmi_is_not_a_pmi),
		cmocka_unit_test(frozen_clock_passes_nothing),
		cmocka_unit_test(lion_cove_umask_proof),
		cmocka_unit_test(absent_umask_proof_said),
		cmocka_unit_test(freeze_lbrs_on_pmi_cleared_and_restored),
		cmocka_unit_test(topdown_level2_within_level1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
