/*
 * IBS on real AMD CPUID data: every AMD dump of ../shared/cpuid-dumps (K8 to
 * Zen 5), as its committed reduction in tests/fixtures/cpuid-real/ (made by
 * tools/cpuid_fixture.py, re-derived by tests/host/test_cpuid_fixtures.py),
 * is loaded into the fake CPU, identified, and given to the run's IBS step with IBS MSRs present.  IBS must be used exactly where the dump's
 * CPUID says it exists on a family that has it, every such family must have
 * a documented decoding profile (none may fall through to a guess), the
 * profile must follow the dump's capability bits (Zen 4 data sources, Zen 5
 * DTLB page sizes), and a sampled variant must give a complete ibs record.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <string.h>
#include <stdio.h>

#include "bench/observer.h"
#include "tests/fake/capture.h"
#include "tests/unit/identify_dump_load.h"
#include "run/config.h"
#include "run/ibs_stage.h"
#include "cpu/cpu.h"
#include "pmu/caps/pmu_caps.h"
#include "tests/unit/test_ibs_fake.h"

#define FIXTURE_DIR "tests/fixtures/cpuid-real"	/* unit tests run from the repository root */

static unsigned checked, used;

static void one_dump(const char *path)
{
	static struct config cfg;
	struct loaded_dump ld;
	struct cpu_info ci;
	struct pmu_caps caps;
	struct cpuid_regs r;
	struct capture cap;
	char err[300];

	if (!dump_load(path, &ld, err, sizeof(err)))
		fail_msg("%s", err);
	dump_to_fake(&ld, 0);
	ibs_fake_add_msrs(1, true);
	cpu_identify(&ci);
	pmu_caps_detect(&ci, &caps);
	hw_cpuid(IBS_CPUID_EXT_FEATURES, 0, &r);
	bool bit = (r.ecx & CPUID_AMD1_ECX_IBS) != 0;
	bool want = ci.vendor == VENDOR_AMD && bit && ci.family >= 0x10 && ci.family != 0x11;

	config_defaults(&cfg);
	capture_start(&cap);
	struct bench_observer obs;
	memset(&obs, 0, sizeof(obs));
	bool observing = ibs_setup(&ci, &caps, &cfg, &obs);
	struct ibs_target t = { ci.family, ci.model, caps.ibs_flags_valid ? caps.ibs_flags : IBS_CAP_DEFAULT };
	struct ibs_profile p;
	bool have_profile = ibs_profile_get(&t, &p);
	print_message("%-52s family %2xh model %2xh IBS %-3s 8000_001Bh %-8s -> %s\n", strrchr(path, '/') + 1,
		      (unsigned)ci.family, (unsigned)ci.model, bit ? "yes" : "no",
		      caps.ibs_flags_valid ? "valid" : "invalid", want ? p.name : "not used");
	checked++;
	if (!want) {
		assert_false(observing);
		assert_non_null(strstr(capture_record(&cap, 0), "\"available\":false"));
		capture_free(&cap);
		dump_free(&ld);
		return;
	}
	used++;
	assert_true(observing);
	assert_true(have_profile);
	assert_null(strstr(p.name, "without a documented"));
	if (ci.family <= 0x1A)
		assert_null(strstr(p.name, "decoded as"));
	assert_int_equal(p.nb == IBS_NB_ZEN4, ci.family >= 0x17 && (t.caps & IBS_CAP_ZEN4));
	assert_int_equal(p.dtlb_pgsz, ci.family >= 0x17 && (t.caps & IBS_CAP_OPDTLBPGSIZE) != 0);
	assert_int_equal(p.nb == IBS_NB_LEGACY, ci.family < 0x17);

	/* One variant with one op and one fetch sample: a complete record. */
	const struct bench_observer *o = &obs;
	struct bench_variant_id id = { "ref", "load_chain", 0 };
	o->variant_begin(o->ctx, &id);
	o->slice_begin(o->ctx);
	bool op = ibs_hw_op_sample(0x1000, 0, 0, IBS_OPD3_LD_OP | IBS_OPD3_LIN_VALID);
	bool fetch = ibs_hw_fetch_sample(0x1000, IBS_FETCH_COMP | IBS_FETCH_PHY_VALID);
	fake_nmi_fire();
	o->slice_end(o->ctx);
	o->variant_end(o->ctx, &id);
	assert_true(op && fetch);
	const char *j = capture_record(&cap, capture_record_count(&cap) - 1);
	assert_non_null(strstr(j, "\"type\":\"ibs\",\"available\":true"));
	assert_non_null(strstr(j, "\"samples\":{\"fetch\":1,\"op\":1}"));
	assert_non_null(strstr(j, "\"0xF100\":1,"));
	assert_non_null(strstr(j, "\"0xF002\":1,"));
	assert_non_null(strstr(j, "\"0xF24C\":"));
	capture_free(&cap);
	ibs_ctl_shutdown();
	dump_free(&ld);
}

static void every_amd_dump(void **state)
{
	(void)state;
	const char *dir = FIXTURE_DIR;
	char path[512];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		fail_msg("%s: cannot open (run from the repository root)", dir);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "AuthenticAMD", 12) != 0 || !strstr(e->d_name, ".txt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		one_dump(path);
	}
	closedir(d);
	assert_true(checked >= 10);
	assert_true(used >= 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_amd_dump),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
