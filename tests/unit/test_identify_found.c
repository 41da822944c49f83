/*
 * Issue 22: CPUs seen in dumps that are not in the repository, each identified from a synthetic
 * fixture in tests/fixtures/cpuid/ (its README says where every register value comes from).
 * Each must be named, with its vendor's event set - or, where the vendor data has no entry for
 * the model, the related core's set with a note saying so - and never with a generic fallback;
 * the pre-PMU parts are named with no event set and a PMU absent for a stated reason.  Arrow
 * Lake-H's low-power E-core is Crestmont, chosen by its native model ID (defect 5c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/topo.h"
#include "pmu/caps/pmu_caps.h"
#include "tests/unit/identify_dump_load.h"

struct found {
	const char *file;
	uint32_t family, model;
	const char *uarch_key, *uarch, *event_set;	/* event_set NULL: none */
	const char *basis;				/* event_set_basis */
	const char *note_words;				/* in event_set_note, or NULL for no note */
	const char *pmu_kind;
	const char *absent_words;			/* in the pmu's absent_reason, or NULL */
};

static const struct found found[] = {
	{ "intel_knights_landing.txt", 0x6, 0x57, "knl", "Knights Landing (Xeon Phi x200)", "knl", "vendor", NULL,
	  "intel_arch", NULL },
	{ "intel_knights_mill.txt", 0x6, 0x85, "knm", "Knights Mill (Xeon Phi 72x5)", "knl", "vendor", NULL,
	  "intel_arch", NULL },
	{ "intel_cannon_lake.txt", 0x6, 0x66, "cannonlake", "Palm Cove (Cannon Lake)", "skylake", "related_core",
	  "no file for model 66H", "intel_arch", NULL },
	{ "intel_bartlett_lake_pcores_only.txt", 0x6, 0xD7, "raptorcove", "Raptor Cove (Bartlett Lake, P-cores only)",
	  "goldencove", "related_core", "model D7H", "intel_arch", NULL },
	{ "intel_tolapai_ep80579.txt", 0x6, 0x15, "pentium_m", "P6 (Pentium M core, Tolapai EP80579)", "pentium_m",
	  "related_core", "model 15H", "intel_p6", NULL },
	{ "amd_family16h_model26h.txt", 0x16, 0x26, "fam16h", "Jaguar-family core (Family 16h)", "fam16h", "vendor",
	  NULL, "amd_legacy", NULL },
	{ "amd_family17h_model50h.txt", 0x17, 0x50, "zen", "Zen (Family 17h models 50h-5Fh)", "zen1", "related_core",
	  "50h-5Fh as Zen 1", "amd_core_ext", NULL },
	{ "hygon_family18h_model10h.txt", 0x18, 0x10, "hygon", "Zen-derived (Hygon Family 18h models 1xh)", "zen1",
	  "related_core", "AuthenticAMD only", "amd_core_ext", NULL },
	{ "intel_p5_pentium_mmx.txt", 0x5, 0x4, "p5", "P5 (Pentium MMX)", NULL, NULL, "CESR, CTR0 and CTR1", "none",
	  "which pmuboot does not drive" },
	{ "amd_k6_2.txt", 0x5, 0x8, "k6", "K6 (AMD-K6-2)", NULL, NULL, "no performance counters at all", "none",
	  "no performance counters at all" },
};

#define DIR "tests/fixtures/cpuid"	/* unit tests run from the repository root */

static void load(const char *file, struct loaded_dump *ld)
{
	char path[256], err[600];
	snprintf(path, sizeof(path), "%s/%s", DIR, file);
	if (!dump_load(path, ld, err, sizeof(err)))
		fail_msg("%s", err);
}

static void one(void **state)
{
	const struct found *f = *state;
	struct loaded_dump ld;
	struct cpu_info ci;
	struct pmu_caps caps;

	load(f->file, &ld);
	assert_int_equal(ld.d.ncpus, 1);
	dump_to_fake(&ld, 0);
	cpu_identify(&ci);
	pmu_caps_detect(&ci, &caps);
	dump_free(&ld);

	assert_int_equal(ci.family, f->family);
	assert_int_equal(ci.model, f->model);
	if (ci.fallback)
		fail_msg("%s: a %s fallback: %s", f->file, ci.fallback_kind, ci.fallback_reason);
	assert_null(ci.fallback_kind);
	assert_string_equal(ci.uarch_key, f->uarch_key);
	assert_string_equal(ci.uarch, f->uarch);
	if (f->event_set)
		assert_string_equal(ci.event_set, f->event_set);
	else
		assert_null(ci.event_set);
	if (f->basis)
		assert_string_equal(ci.event_set_basis, f->basis);
	else
		assert_null(ci.event_set_basis);
	if (f->note_words) {
		assert_non_null(ci.event_set_note);
		if (!strstr(ci.event_set_note, f->note_words))
			fail_msg("%s: note '%s' lacks '%s'", f->file, ci.event_set_note, f->note_words);
	} else {
		assert_null(ci.event_set_note);
	}
	assert_string_equal(pmu_kind_name(caps.kind), f->pmu_kind);
	if (f->absent_words) {
		assert_non_null(caps.absent_reason);
		assert_non_null(strstr(caps.absent_reason, f->absent_words));
	}
}

/*
 * Arrow Lake-H: three blocks, a P-core (leaf 1AH 40000003H), an E-core (20000003H) and a
 * low-power E-core (20000002H).  Before the native model ID counted, the LP E-core was Skymont.
 */
static void arrow_lake_h_three_core_types(void **state)
{
	(void)state;
	static const struct {
		const char *note, *key, *uarch, *set;
		uint8_t core_type;
		uint32_t native;
	} want[] = {
		{ "Intel Core", "lioncove", "Lion Cove (Arrow Lake P-core)", "lioncove", 0x40, 0x000003 },
		{ "Intel Atom", "skymont", "Skymont (Arrow Lake E-core)", "skymont", 0x20, 0x000003 },
		{ "Intel Atom LP", "crestmont", "Crestmont (Arrow Lake-H low-power E-core)", "crestmont_arl", 0x20, 0x000002 },
	};
	static struct topology t;
	struct loaded_dump ld;
	struct cpu_info ci;

	load("intel_arrowlake_h_three_core_types.txt", &ld);
	assert_int_equal(ld.d.ncpus, 3);
	memset(&t, 0, sizeof(t));
	for (size_t b = 0; b < 3; b++) {
		assert_string_equal(ld.d.cpus[b].core_note, want[b].note);
		dump_to_fake(&ld, b);
		cpu_identify(&ci);
		assert_int_equal(ci.model, 0xC5);
		assert_true(ci.hybrid);
		assert_int_equal(ci.core_type, want[b].core_type);
		assert_int_equal(ci.native_model, want[b].native);
		assert_false(ci.fallback);
		assert_string_equal(ci.uarch_key, want[b].key);
		assert_string_equal(ci.uarch, want[b].uarch);
		assert_string_equal(ci.event_set, want[b].set);
		assert_string_equal(ci.event_set_basis, "vendor");
		/* The topology probe reads leaf 1AH on each processor too, and names the same core. */
		t.cpu[b].n = (uint32_t)b;
		t.cpu[b].package = t.cpu[b].die = t.cpu[b].core = t.cpu[b].thread = TOPO_NONE;
		topo_probe(&t.cpu[b]);
		assert_int_equal(t.cpu[b].native_model, want[b].native);
	}
	dump_free(&ld);
	t.n = t.total = 3;
	topo_classify(&t);
	size_t first[8];
	assert_int_equal(topo_types(&t, first, 8), 3);
	for (size_t b = 0; b < 3; b++) {
		assert_string_equal(t.cpu[b].event_set, want[b].set);
		assert_false(t.cpu[b].fallback);
		topo_locate_from_cpuid(&t.cpu[b]);
	}
	char summary[160];
	topo_summary(&t, summary, sizeof(summary));
	assert_string_equal(summary, "1 P-core, 1 E-core (skymont), 1 E-core (crestmont)");
}

int main(void)
{
	enum { N = sizeof(found) / sizeof(found[0]) };
	struct CMUnitTest tests[N + 1];
	for (size_t i = 0; i < N; i++)
		tests[i] = (struct CMUnitTest){ found[i].file, one, NULL, NULL, (void *)&found[i] };
	tests[N] = (struct CMUnitTest){ "arrow_lake_h_three_core_types", arrow_lake_h_three_core_types, NULL, NULL, NULL };
	return _cmocka_run_group_tests("test_identify_found", tests, N + 1, NULL, NULL);
}
