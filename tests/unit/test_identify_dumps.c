/*
 * Identification over the real CPUID dumps: the register values of the
 * InstLatx64 dumps described in ../shared/cpuid-dumps/README.md, reduced by
 * tools/cpuid_fixture.py to the leaves pmuboot reads and committed under
 * tests/fixtures/cpuid-real/ (same file names; tests/host/test_cpuid_fixtures.py
 * re-derives them from ../shared).  The expected values are that README's
 * table (vendor, family, model, stepping, leaf 0AH and leaf 8000_001BH of the
 * first CPU) plus the microarchitecture, event set and PMU each file must
 * yield.  Every CPU block of every file is identified, and on the hybrid parts
 * each block's core type (leaf 1AH) must select the P- or E-core as the
 * file's own "allcpu:" annotation (kept in the fixture as "core ...") says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "lib/record.h"
#include "pmu/caps/pmu_caps.h"
#include "tests/fake/capture.h"
#include "tests/unit/identify_dump_load.h"

struct expect {
	const char *file;
	uint32_t family, model, stepping;	/* README: display values, from the registers */
	const char *uarch_key, *event_set, *pmu_kind;
	unsigned n_gp, gp_width, n_fixed, version;
	const char *leaf_0a, *leaf_8000001b;	/* README: first CPU's registers, or NULL when absent */
};

static const struct expect dumps[] = {
	{ "GenuineIntel0000617_P6_CPUID.txt", 0x6, 0x1, 7, "pentium_pro", "pentium_pro", "intel_p6", 2, 40, 0, 0, NULL, NULL },
	{ "GenuineIntel0000651_P2_Descuthes_CPUID.txt", 0x6, 0x5, 1, "pentium2", "pentium2", "intel_p6", 2, 40, 0, 0, NULL, NULL },
	{ "GenuineIntel0000673_P3_Katmai_CPUID.txt", 0x6, 0x7, 3, "pentium3", "p6", "intel_p6", 2, 40, 0, 0, NULL, NULL },
	{ "GenuineIntel00006D8_PM_Dothan_CPUID.txt", 0x6, 0xD, 8, "pentium_m", "pentium_m", "intel_p6", 2, 40, 0, 0, NULL, NULL },
	{ "GenuineIntel00006F6_Merom_CPUID.txt", 0x6, 0xF, 6, "merom", "core", "intel_arch", 2, 40, 3, 2, "07280202-00000000-00000000-00000000", NULL },
	{ "GenuineIntel0010676_Penryn_CPUID.txt", 0x6, 0x17, 6, "penryn", "core", "intel_arch", 2, 40, 3, 2, "07280202-00000000-00000000-00000503", NULL },
	{ "GenuineIntel00106A4_Bloomfield_CPUID.txt", 0x6, 0x1A, 4, "nehalem", "nehalem", "intel_arch", 4, 48, 3, 3, "07300403-00000040-00000000-00000603", NULL },
	{ "GenuineIntel0020652_Clarkdale_CPUID.txt", 0x6, 0x25, 2, "westmere", "westmere", "intel_arch", 4, 48, 3, 3, "07300403-00000004-00000000-00000603", NULL },
	{ "GenuineIntel00206A7_SandyBridge_CPUID.txt", 0x6, 0x2A, 7, "sandybridge", "sandybridge", "intel_arch", 8, 48, 3, 3, "07300803-00000000-00000000-00000603", NULL },
	{ "GenuineIntel00306A9_IvyBridge_CPUID.txt", 0x6, 0x3A, 9, "ivybridge", "ivybridge", "intel_arch", 4, 48, 3, 3, "07300403-00000000-00000000-00000603", NULL },
	{ "GenuineIntel00306C3_Haswell_CPUID.txt", 0x6, 0x3C, 3, "haswell", "haswell", "intel_arch", 4, 48, 3, 3, "07300403-00000000-00000000-00000603", NULL },
	{ "GenuineIntel00306D4_Broadwell2_CPUID.txt", 0x6, 0x3D, 4, "broadwell", "broadwell", "intel_arch", 4, 48, 3, 3, "07300403-00000000-00000000-00000603", NULL },
	{ "GenuineIntel00506E3_Skylake_CPUID.txt", 0x6, 0x5E, 3, "skylake", "skylake", "intel_arch", 8, 48, 3, 4, "07300804-00000000-00000000-00000603", NULL },
	{ "GenuineIntel0050654_SkylakeXeon_CPUID9.txt", 0x6, 0x55, 4, "skylake_sp", "skylake_server", "intel_arch", 8, 48, 3, 4, "07300804-00000000-00000000-00000603", NULL },
	{ "GenuineIntel00906E9_KabyLake_01_CPUID.txt", 0x6, 0x9E, 9, "kabylake", "skylake", "intel_arch", 4, 48, 3, 4, "07300404-00000000-00000000-00000603", NULL },
	{ "GenuineIntel00706E5_IceLakeY_CPUID.txt", 0x6, 0x7E, 5, "icelake", "icelake", "intel_arch", 8, 48, 4, 5, "08300805-00000000-0000000F-00008604", NULL },
	{ "GenuineIntel00806C1_TigerLake_01_CPUID.txt", 0x6, 0x8C, 1, "tigerlake", "tigerlake", "intel_arch", 8, 48, 4, 5, "08300805-00000000-0000000F-00008604", NULL },
	{ "GenuineIntel00906A4_AlderLakeP_00_CPUID.txt", 0x6, 0x9A, 4, "goldencove", "goldencove", "intel_arch", 6, 48, 3, 5, "07300605-00000000-00000007-00008603", NULL },
	{ "GenuineIntel00B0671_RaptorLake_01_CPUID.txt", 0x6, 0xB7, 1, "raptorcove", "goldencove", "intel_arch", 6, 48, 3, 5, "07300605-00000000-00000007-00008603", NULL },
	{ "GenuineIntel00806F8_SapphireRapids_05_CPUID.txt", 0x6, 0x8F, 8, "sapphirerapids", "sapphirerapids", "intel_arch", 8, 48, 4, 5, "08300805-00000000-0000000F-00008604", NULL },
	{ "GenuineIntel00A06A4_MeteorLake_10_CPUID.txt", 0x6, 0xAA, 4, "redwoodcove", "redwoodcove", "intel_arch", 8, 48, 3, 5, "07300805-00000000-00000007-00008603", NULL },
	{ "GenuineIntel00106C2_Diamondville_CPUID.txt", 0x6, 0x1C, 2, "bonnell", "bonnell", "intel_arch", 2, 40, 1, 3, "07280203-00000000-00000000-00002501", NULL },
	{ "GenuineIntel0030673_Silvermont3_CPUID.txt", 0x6, 0x37, 3, "silvermont", "silvermont", "intel_arch", 2, 40, 3, 3, "07280203-00000000-00000000-00004503", NULL },
	{ "GenuineIntel00406C3_Braswell_CPUID.txt", 0x6, 0x4C, 3, "airmont", "silvermont", "intel_arch", 2, 40, 3, 3, "07280203-00000000-00000000-00000503", NULL },
	{ "GenuineIntel00506C9_Goldmont2_CPUID.txt", 0x6, 0x5C, 9, "goldmont", "goldmont", "intel_arch", 4, 48, 3, 4, "07300404-00000000-00000000-00000603", NULL },
	{ "GenuineIntel00706A1_GoldmontPlus_CPUID2.txt", 0x6, 0x7A, 1, "goldmont_plus", "goldmont_plus", "intel_arch", 4, 48, 3, 4, "07300404-00000000-00000000-00008603", NULL },
	{ "GenuineIntel00906C0_JasperLake_01_CPUID.txt", 0x6, 0x9C, 0, "tremont", "elkhartlake", "intel_arch", 4, 48, 3, 5, "07300405-00000000-00000007-00008603", NULL },
	{ "GenuineIntel00B06E0_AlderLakeN_02_CPUID.txt", 0x6, 0xBE, 0, "gracemont", "gracemont", "intel_arch", 6, 48, 3, 5, "07300605-00000000-00000007-00008603", NULL },
	{ "AuthenticAMD0020FB1_K8_Manchester_CPUID.txt", 0xF, 0x2B, 1, "k8", "k8", "amd_legacy", 4, 48, 0, 0, NULL, NULL },
	{ "AuthenticAMD0100F21_K10_Barcelona_CPUID.txt", 0x10, 0x2, 1, "k10", "fam10h", "amd_legacy", 4, 48, 0, 0, NULL, NULL },
	{ "AuthenticAMD0100F42_K10_Deneb_CPUID.txt", 0x10, 0x4, 2, "k10", "fam10h", "amd_legacy", 4, 48, 0, 0, NULL, "0000001F-00000000-00000000-00000000" },
	{ "AuthenticAMD0300F10_K12_Llano_CPUID.txt", 0x12, 0x1, 0, "llano", "fam12h", "amd_legacy", 4, 48, 0, 0, NULL, "000000FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0500F10_K14_Bobcat_CPUID.txt", 0x14, 0x1, 0, "bobcat", "fam14h", "amd_legacy", 4, 48, 0, 0, NULL, "000000FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0600F12_K15_Zambezi8C_CPUID.txt", 0x15, 0x1, 2, "bulldozer", "fam15h", "amd_core_ext", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "000000FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0600F20_K15_Vishera_CPUID.txt", 0x15, 0x2, 0, "piledriver", "fam15h", "amd_core_ext", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "000000FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0630F01_K15_Kaveri_CPUID.txt", 0x15, 0x30, 1, "steamroller", "fam15h", "amd_core_ext", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "000001FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0660F51_K15_BristolRidge_CPUID.txt", 0x15, 0x65, 1, "excavator", "fam15h", "amd_core_ext", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "000007FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0700F01_K16_Kabini_CPUID.txt", 0x16, 0x0, 1, "jaguar", "fam16h", "amd_legacy", 4, 48, 0, 0, "00000000-00000000-00000000-00000000", "000000FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0800F11_K17_Zen_CPUID4.txt", 0x17, 0x1, 1, "zen", "zen1", "amd_core_ext", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "000003FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0800F82_K17_PinnacleRidge_01_CPUID.txt", 0x17, 0x8, 2, "zen_plus", "zen1", "amd_core_ext", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "000003FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0870F10_K17_Matisse_01_CPUID.txt", 0x17, 0x71, 0, "zen2", "zen2", "amd_core_ext", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "000003FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0A20F12_K19_Vermeer_03_CPUID.txt", 0x19, 0x21, 2, "zen3", "zen3", "amd_core_ext", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "000003FF-00000000-00000000-00000000" },
	{ "AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt", 0x19, 0x61, 2, "zen4", "zen4", "amd_v2", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "00000BFF-00000000-00000000-00000000" },
	{ "AuthenticAMD0B40F40_K20_GraniteRidge_02_CPUID.txt", 0x1A, 0x44, 0, "zen5", "zen5", "amd_v2", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "00081BFF-00000000-00000000-00000000" },
	{ "HygonGenuine0900F02_Hygon_CPUID.txt", 0x18, 0x0, 2, "dhyana", "zen1", "amd_core_ext", 6, 48, 0, 0, "00000000-00000000-00000000-00000000", "000003FF-00000000-00000000-00000000" },
};

/* Hybrid parts: the uarch key of the P-core and of the E-core blocks. */
static const struct {
	const char *file, *p_key, *e_key, *p_set, *e_set;
} hybrids[] = {
	{ "GenuineIntel00906A4_AlderLakeP_00_CPUID.txt", "goldencove", "gracemont", "goldencove", "gracemont" },
	{ "GenuineIntel00B0671_RaptorLake_01_CPUID.txt", "raptorcove", "gracemont", "goldencove", "gracemont" },
	{ "GenuineIntel00A06A4_MeteorLake_10_CPUID.txt", "redwoodcove", "crestmont", "redwoodcove", "crestmont" },
};

#define FIXTURE_DIR "tests/fixtures/cpuid-real"	/* unit tests run from the repository root */

static void load(const char *file, struct loaded_dump *ld)
{
	char path[512], err[800];
	snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, file);
	if (!dump_load(path, ld, err, sizeof(err)))
		fail_msg("%s", err);
}

static void regs_text(const struct loaded_dump *ld, uint32_t leaf, char out[40])
{
	struct cpuid_regs r;
	cpuid_dump_query(&ld->d, 0, leaf, 0, &r);
	snprintf(out, 40, "%08X-%08X-%08X-%08X", r.eax, r.ebx, r.ecx, r.edx);
}

static void one_dump(void **state)
{
	const struct expect *e = *state;
	struct loaded_dump ld;
	struct cpu_info ci;
	struct pmu_caps caps;
	char regs[40];

	load(e->file, &ld);
	/* The README's leaf 0AH / 8000_001BH columns, straight from the first CPU's lines. */
	if (e->leaf_0a) {
		regs_text(&ld, 0xA, regs);
		assert_string_equal(regs, e->leaf_0a);
	}
	if (e->leaf_8000001b) {
		regs_text(&ld, 0x8000001B, regs);
		assert_string_equal(regs, e->leaf_8000001b);
	}
	for (size_t b = 0; b < ld.d.ncpus; b++) {
		dump_to_fake(&ld, b);
		cpu_identify(&ci);
		pmu_caps_detect(&ci, &caps);
		if (ci.family != e->family || ci.model != e->model || ci.stepping != e->stepping)
			fail_msg("%s block %zu: %x/%x/%u, README says %x/%x/%u", e->file, b, ci.family, ci.model,
				 ci.stepping, e->family, e->model, e->stepping);
		assert_false(ci.fallback);
		if (ci.hybrid)
			continue;	/* checked block by block in hybrid_blocks */
		if (strcmp(ci.uarch_key, e->uarch_key) || strcmp(ci.event_set, e->event_set))
			fail_msg("%s block %zu: %s/%s, expected %s/%s", e->file, b, ci.uarch_key, ci.event_set,
				 e->uarch_key, e->event_set);
		assert_string_equal(pmu_kind_name(caps.kind), e->pmu_kind);
		assert_int_equal(caps.n_gp, e->n_gp);
		assert_int_equal(caps.gp_width, e->gp_width);
		assert_int_equal(caps.n_fixed, e->n_fixed);
		assert_int_equal(caps.version, e->version);
		/* IBS exactly as leaf 8000_001BH and its flags-valid bit say. */
		if (e->leaf_8000001b && caps.ibs) {
			assert_true(caps.ibs_flags_valid);
			assert_int_equal(caps.ibs_flags, strtoul(e->leaf_8000001b, NULL, 16));
		}
		if (!e->leaf_8000001b && caps.ibs)
			assert_false(caps.ibs_flags_valid);
	}
	dump_free(&ld);
}

/*
 * The `pmu` line and record of block b name the fixed counters the block's
 * own CPUID.(23H,1):EBX lists, read here from the dump's line, where leaf
 * 23H is there (Meteor Lake P-cores list 0FH; CPUID.0AH, common to both
 * core types, lists 7H).
 */
static void pmu_report_names_leaf_23h(const struct loaded_dump *ld, size_t b, const struct pmu_caps *caps)
{
	struct cpuid_regs r7 = { 0 }, r0 = { 0 }, r1 = { 0 };
	struct capture cap;
	struct rec rec;
	char want_rec[96], want_line[64];
	unsigned n = 0;

	cpuid_dump_query(&ld->d, b, 7, 1, &r7);
	cpuid_dump_query(&ld->d, b, 0x23, 0, &r0);
	cpuid_dump_query(&ld->d, b, 0x23, 1, &r1);
	if (!(r7.eax & (1u << 8)) || !(r0.eax & (1u << 1)) || !r1.ebx)
		return;	/* no per-core leaf 23H view in this block */
	for (uint32_t m = r1.ebx; m; m &= m - 1)
		n++;
	snprintf(want_rec, sizeof(want_rec), "\"fixed\":{\"count\":%u,\"width\":%u,\"mask\":\"0x%x\",\"mask_from\":\"cpuid_23h\"",
		 n, caps->fixed_width, r1.ebx);
	snprintf(want_line, sizeof(want_line), "%u x %u-bit fixed (mask 0x%x from CPUID.(23H,1)", n, caps->fixed_width,
		 r1.ebx);
	capture_start(&cap);
	rec_start(&rec, "pmu");
	pmu_caps_fields(&rec, caps);
	rec_emit(&rec);
	pmu_caps_summary(caps);
	const char *p = capture_find(&cap, "pmu");
	if (!p || !strstr(p, want_rec))
		fail_msg("block %zu: pmu record lacks %s: %s", b, want_rec, p ? p : "(none)");
	bool said = false;
	for (size_t i = 0; i < cap.n; i++)
		said |= cap.kinds[i] == OUT_TEXT && strstr(cap.lines[i], want_line) != NULL;
	if (!said)
		fail_msg("block %zu: no pmu line with \"%s\"", b, want_line);
	capture_free(&cap);
}

static void hybrid_blocks(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(hybrids) / sizeof(hybrids[0]); i++) {
		struct loaded_dump ld;
		struct cpu_info ci;
		struct pmu_caps caps;
		unsigned p = 0, e = 0;

		load(hybrids[i].file, &ld);
		for (size_t b = 0; b < ld.d.ncpus; b++) {
			const char *note = ld.d.cpus[b].core_note;
			bool atom = strncmp(note, "Intel Atom", 10) == 0;	/* "Intel Atom" and "Intel Atom LP" */
			dump_to_fake(&ld, b);
			cpu_identify(&ci);
			pmu_caps_detect(&ci, &caps);
			assert_true(ci.hybrid);
			assert_true(atom || strcmp(note, "Intel Core") == 0);
			assert_int_equal(ci.core_type, atom ? 0x20 : 0x40);
			assert_string_equal(ci.uarch_key, atom ? hybrids[i].e_key : hybrids[i].p_key);
			assert_string_equal(ci.event_set, atom ? hybrids[i].e_set : hybrids[i].p_set);
			assert_int_equal(caps.kind, PMU_INTEL_ARCH);
			pmu_report_names_leaf_23h(&ld, b, &caps);
			atom ? e++ : p++;
		}
		assert_true(p > 0 && e > 0);	/* both kinds of core were seen */
		dump_free(&ld);
	}
}

/*
 * Every fixture has an expectation here, so a new dump cannot go unchecked
 * (tests/host/test_cpuid_fixtures.py checks there is one fixture per dump).
 */
static void every_dump_is_listed(void **state)
{
	(void)state;
	const char *path = FIXTURE_DIR;
	DIR *dir = opendir(path);
	if (!dir)
		fail_msg("%s: cannot open (run from the repository root)", path);
	unsigned seen = 0;
	for (struct dirent *de; (de = readdir(dir));) {
		size_t n = strlen(de->d_name);
		if (n < 4 || strcmp(de->d_name + n - 4, ".txt"))
			continue;
		bool known = false;
		for (size_t i = 0; i < sizeof(dumps) / sizeof(dumps[0]); i++)
			known |= strcmp(dumps[i].file, de->d_name) == 0;
		if (!known)
			fail_msg("%s/%s has no expectation in this test", path, de->d_name);
		seen++;
	}
	closedir(dir);
	assert_int_equal(seen, sizeof(dumps) / sizeof(dumps[0]));
}

int main(void)
{
	enum { N = sizeof(dumps) / sizeof(dumps[0]) };
	struct CMUnitTest tests[N + 2];
	for (size_t i = 0; i < N; i++)
		tests[i] = (struct CMUnitTest){ dumps[i].file, one_dump, NULL, NULL, (void *)&dumps[i] };
	tests[N] = (struct CMUnitTest){ "hybrid_blocks", hybrid_blocks, NULL, NULL, NULL };
	tests[N + 1] = (struct CMUnitTest){ "every_dump_is_listed", every_dump_is_listed, NULL, NULL, NULL };
	return _cmocka_run_group_tests("test_identify_dumps", tests, N + 2, NULL, NULL);
}
