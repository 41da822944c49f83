/*
 * The run sequence (run/run.c) end to end against fakes: a modelled AMD
 * Zen 2 with IBS (tests/fake/hw_fake.h), the fake platform timing and
 * arenas, no counters.  Asserts on the records: the stages in order, the
 * IBS observer reaching the bench stage through the run environment (an
 * `ibs` record after each variant), its plain absence on another vendor,
 * and run_stage running exactly one stage.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "pmu/count/count.h"
#include "run/run.h"
#include "tests/fake/arena_fake.h"
#include "tests/fake/capture.h"
#include "tests/fake/timing_fake.h"
#include "tests/unit/test_ibs_fake.h"

/* CPUID leaves (AMD APM Vol. 3 Appendix E): vendor, signature, extended features, IBS capabilities. */
#define LEAF_VENDOR 0x0u
#define LEAF_SIGNATURE 0x1u
#define LEAF_EXT_MAX 0x80000000u
#define LEAF_EXT_FEATURES 0x80000001u
#define LEAF_IBS 0x8000001Bu
#define EXT_ECX_IBS (1u << 10)	/* CPUID 8000_0001h ECX[10] */
/* Family 17h (base 0Fh + extended 08h), model 31h (base 1h, extended 3h): Zen 2. */
#define ZEN2_SIGNATURE ((0x8u << 20) | (0x3u << 16) | (0xFu << 8) | (0x1u << 4))
#define ZEN2_IBS (IBS_CAP_FFV | IBS_CAP_FETCHSAM | IBS_CAP_OPSAM | IBS_CAP_RDWROPCNT | IBS_CAP_OPCNT | \
		  IBS_CAP_BRNTRGT | IBS_CAP_OPCNTEXT | IBS_CAP_RIPINVALIDCHK)

static bool no_counters(const struct cpu_info *ci, const struct pmu_caps *caps, const struct count_opts *opts,
			char *why, size_t cap)
{
	(void)ci, (void)caps, (void)opts;
	snprintf(why, cap, "fake: no counters");
	return false;
}
static const struct count_backend none_backend = { .name = "none", .init = no_counters };

static struct config cfg;
static struct run_env env;
static struct capture cap;

static void report(const struct config_error *e, void *ctx)
{
	(void)ctx;
	fail_msg("option %s: %s", e->key, e->message);
}

/* "AuthenticAMD" or "GenuineIntel" in leaf 0's EBX, EDX, ECX order. */
static void machine(const char *vendor, bool ibs)
{
	struct timing_info t = { .tsc_hz = 2000000000, .tsc_source = "fake", .core_per_tsc_milli = 1000,
				 .core_source = "add_chain" };
	uint32_t v[3];
	const char *opts = "bench=ref reps=3 iterations=64 warmup=0";

	ibs_fake_cpu(1, true);
	memcpy(v, vendor, 12);
	fake_cpuid_set(LEAF_VENDOR, 0, 0x10, v[0], v[2], v[1]);
	fake_cpuid_set(LEAF_SIGNATURE, 0, ZEN2_SIGNATURE, 0, 0, 0);
	fake_cpuid_set(LEAF_EXT_MAX, 0, LEAF_IBS, 0, 0, 0);
	fake_cpuid_set(LEAF_EXT_FEATURES, 0, 0, 0, ibs ? EXT_ECX_IBS : 0, 0);
	fake_cpuid_set(LEAF_IBS, 0, ibs ? ZEN2_IBS : 0, 0, 0, 0);
	fake_arena_reset(0);
	fake_timing_set(&t);
	count_use_backend(&none_backend);
	config_defaults(&cfg);
	config_apply_text(&cfg, "test", false, opts, strlen(opts), report, NULL);
	memset(&env, 0, sizeof(env));
	env.cfg = &cfg;
	fake_platform_set(false, true);	/* IBS needs a machine the run owns; the fake CPU has no counters */
	capture_start(&cap);
}

static int teardown(void **state)
{
	(void)state;
	capture_free(&cap);
	ibs_ctl_shutdown();
	count_use_backend(&count_backend_msr);
	fake_arena_reset(0);
	return 0;
}

/* The type of record i. */
static const char *type_of(size_t i, char *buf, size_t cap_n)
{
	const char *r = capture_record(&cap, i);
	const char *t = r ? strstr(r, "\"type\":\"") : NULL;
	if (!t)
		return "";
	t += 8;
	snprintf(buf, cap_n, "%.*s", (int)(strchr(t, '"') - t), t);
	return buf;
}

static void ibs_observes_every_variant_through_the_run(void **state)
{
	(void)state;
	char types[64][24], want_variant[48];
	size_t n;

	machine("AuthenticAMD", true);
	run_stages(&env);
	n = capture_record_count(&cap);
	assert_true(n < 64);
	for (size_t i = 0; i < n; i++)
		type_of(i, types[i], sizeof(types[i]));
	assert_int_equal(fake_timing_inits(), 1);
	assert_int_equal(fake_timing_reports(), 1);
	assert_int_equal(env.nobservers, 1);
	assert_string_equal(env.observers[0].name, "ibs");

	/* identify (cpu, cache), topology, pmu, the audit's eight checks, then the bench stage: setup, and per
	 * variant bench, its check, IBS's record. */
	const char *want[] = { "cpu", "cache", "topology", "pmu", "audit", "audit", "audit", "audit", "audit", "audit",
			       "audit", "audit", "bench_setup", "bench", "check", "ibs", "bench", "check", "ibs" };
	const size_t setup = 12;
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		if (strcmp(types[i], want[i]))
			fail_msg("record %zu is %s, expected %s: %s", i, types[i], want[i], capture_record(&cap, i));
	const char *variants[] = { "add_chain", "load_chain" };
	for (size_t k = 0; k < 2; k++) {
		snprintf(want_variant, sizeof(want_variant), "\"kernel\":\"ref\",\"variant\":\"%s\"", variants[k]);
		assert_non_null(strstr(capture_record(&cap, setup + 1 + 3 * k), want_variant));
		const char *ibs = capture_record(&cap, setup + 3 + 3 * k);
		assert_non_null(strstr(ibs, "\"available\":true,\"source\":\"image\""));
		assert_non_null(strstr(ibs, want_variant));
	}
	/* The pmu stage's verdict on counting reaches the bench stage. */
	/* No counters: every audit check says so, absent. */
	for (size_t i = 4; i < setup; i++)
		assert_non_null(strstr(capture_record(&cap, i), "\"status\":\"absent\",\"counter\":null"));
	assert_non_null(strstr(capture_record(&cap, setup), "\"counting\":{\"available\":false,\"backend\":\"none\","
						  "\"reason\":\"fake: no counters\"}"));
	assert_int_equal(fake_arena_live(), 0);	/* the bench stage gave its arenas back */
}

static void ibs_absent_leaves_no_observer(void **state)
{
	(void)state;
	char t[24];

	machine("GenuineIntel", false);
	run_stages(&env);
	assert_int_equal(env.nobservers, 0);
	/* One plain `ibs` record before the benchmarks, none after any variant. */
	size_t n = capture_record_count(&cap), ibs = 0, setup = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(type_of(i, t, sizeof(t)), "ibs")) {
			ibs++;
			assert_non_null(strstr(capture_record(&cap, i), "\"available\":false"));
			assert_non_null(strstr(capture_record(&cap, i), "IBS is an AMD feature"));
			assert_int_equal(setup, 0);
		}
		setup += !strcmp(t, "bench_setup");
	}
	assert_int_equal(ibs, 1);
	assert_int_equal(setup, 1);
}

static void run_stage_runs_one_stage(void **state)
{
	(void)state;
	char t[24];

	machine("AuthenticAMD", true);
	assert_true(run_stage(&env, "identify"));
	assert_int_equal(capture_record_count(&cap), 2);
	assert_string_equal(type_of(0, t, sizeof(t)), "cpu");
	assert_string_equal(type_of(1, t, sizeof(t)), "cache");
	assert_true(run_stage(&env, "timing"));
	assert_int_equal(fake_timing_reports(), 1);
	assert_false(run_stage(&env, "no_such_stage"));
	assert_int_equal(capture_record_count(&cap), 2);
	assert_int_equal(env.nobservers, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(ibs_observes_every_variant_through_the_run, teardown),
		cmocka_unit_test_teardown(ibs_absent_leaves_no_observer, teardown),
		cmocka_unit_test_teardown(run_stage_runs_one_stage, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
