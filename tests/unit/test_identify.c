/*
 * Identification on the fake CPU: signature decoding, vendor, brand,
 * hypervisor, microcode, the microarchitecture table, PMU capabilities and
 * the records - plus the hand-written fixtures in tests/fixtures/cpuid/ for
 * what the real dumps do not show (a hypervisor, IBS flags not valid,
 * unknown future models, a hybrid E-core first, an unknown vendor).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "tests/fake/capture.h"
#include "tests/fake/hw_fake.h"
#include "lib/record.h"
#include "cpu/cpu.h"
#include "pmu/caps/pmu_caps.h"
#include "cpu/uarch.h"
#include "events/events.h"
#include "tests/unit/identify_dump_load.h"

static struct cpu_info ci;
static struct pmu_caps caps;
static struct rec rec;

/* ---- building a fake CPU ---- */

static uint32_t word(const char *s)
{
	return (uint32_t)(unsigned char)s[0] | (uint32_t)(unsigned char)s[1] << 8 |
	       (uint32_t)(unsigned char)s[2] << 16 | (uint32_t)(unsigned char)s[3] << 24;
}

static void set_vendor(const char *v, uint32_t max_leaf)
{
	fake_cpuid_set(0, 0, max_leaf, word(v), word(v + 8), word(v + 4));
	fake_cpuid_flat(0);
}

static void set_leaf(uint32_t leaf, uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t edx)
{
	fake_cpuid_set(leaf, 0, eax, ebx, ecx, edx);
	fake_cpuid_flat(leaf);
}

static void set_brand(const char *s)
{
	char b[48] = { 0 };
	memcpy(b, s, strlen(s) < 48 ? strlen(s) : 48);
	for (uint32_t i = 0; i < 3; i++)
		set_leaf(0x80000002 + i, word(b + 16 * i), word(b + 16 * i + 4), word(b + 16 * i + 8),
			 word(b + 16 * i + 12));
}

/* A CPU with leaf 0, leaf 1 (signature, ECX) and the extended range up to ext_max. */
static void cpu(const char *vendor, uint32_t max_leaf, uint32_t sig, uint32_t ecx1, uint32_t ext_max)
{
	fake_reset();
	set_vendor(vendor, max_leaf);
	set_leaf(1, sig, 0x00010800, ecx1, 0xBFEBFBFF);
	if (ext_max)
		set_leaf(0x80000000, ext_max, 0, 0, 0);
}

static void identify(void)
{
	cpu_identify(&ci);
	pmu_caps_detect(&ci, &caps);
}

#define CPUID1_HV (1u << 31)
#define CPUID1_PDCM (1u << 15)
#define KVM_SIG 0x4B4D564B, 0x564B4D56, 0x0000004D	/* "KVMKVMKVM\0\0\0" in EBX, ECX, EDX */
#define TCG_SIG 0x54474354, 0x43544743, 0x47435447	/* "TCGTCGTCGTCG" */

/* ---- signature, vendor, brand, hypervisor ---- */

static void signature_decoding(void **state)
{
	(void)state;
	static const struct {
		enum cpu_vendor v;
		uint32_t sig, family, model, stepping;
	} t[] = {
		{ VENDOR_INTEL, 0x000306A9, 0x6, 0x3A, 9 },	/* SDM: family 6 takes the extended model */
		{ VENDOR_INTEL, 0x000B0671, 0x6, 0xB7, 1 },
		{ VENDOR_INTEL, 0x00000F29, 0xF, 0x2, 9 },	/* NetBurst */
		{ VENDOR_INTEL, 0x00000F65, 0xF, 0x6, 5 },
		{ VENDOR_INTEL, 0x00400F10, 0x13, 0x1, 0 },	/* base 0Fh + extended 04h */
		{ VENDOR_INTEL, 0x00010521, 0x5, 0x2, 1 },	/* family 5: the extended model is not applied */
		{ VENDOR_AMD, 0x00A20F12, 0x19, 0x21, 2 },
		{ VENDOR_AMD, 0x00020FB1, 0xF, 0x2B, 1 },	/* K8: base family 0Fh, extended family 0 */
		{ VENDOR_AMD, 0x00010681, 0x6, 0x8, 1 },	/* AMD family 6: no extended model (APM) */
		{ VENDOR_AMD, 0x00B40F40, 0x1A, 0x44, 0 },
		{ VENDOR_HYGON, 0x00900F02, 0x18, 0x0, 2 },
		{ VENDOR_UNKNOWN, 0x000106F2, 0x6, 0x1F, 2 },	/* others: the SDM rule */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint32_t f, m, s;
		cpu_decode_signature(t[i].v, t[i].sig, &f, &m, &s);
		if (f != t[i].family || m != t[i].model || s != t[i].stepping)
			fail_msg("signature 0x%x: got %x/%x/%u, expected %x/%x/%u", t[i].sig, f, m, s, t[i].family,
				 t[i].model, t[i].stepping);
	}
}

static void vendor_brand_and_hypervisor(void **state)
{
	(void)state;
	cpu("CentaurHauls", 1, 0x000006F2, 0, 0x80000004);
	set_brand("   VIA Nano   ");
	identify();
	assert_int_equal(ci.vendor, VENDOR_UNKNOWN);
	assert_string_equal(ci.vendor_str, "CentaurHauls");
	assert_string_equal(ci.brand, "VIA Nano");	/* trimmed at both ends */
	assert_null(ci.event_set);
	assert_true(ci.fallback);
	assert_int_equal(caps.kind, PMU_NONE);
	assert_non_null(strstr(caps.absent_reason, "unknown vendor"));
	assert_false(ci.microcode_valid);
	assert_non_null(ci.microcode_reason);

	/* No brand leaves: an empty brand, not garbage. */
	cpu("GenuineIntel", 2, 0x00000683, 0, 0x80000001);
	identify();
	assert_string_equal(ci.brand, "");
	assert_false(ci.hypervisor);
	assert_null(ci.hv_name);
	assert_int_equal(ci.exec, EXEC_BARE_METAL);

	cpu("GenuineIntel", 0xA, 0x000006F6, CPUID1_HV, 0);
	set_leaf(0x40000000, 0x40000001, KVM_SIG);
	identify();
	assert_true(ci.hypervisor);
	assert_string_equal(ci.hv_vendor, "KVMKVMKVM");
	assert_string_equal(ci.hv_name, "KVM");
	/* KVM runs the guest on the real core: virtualised, not emulated; QEMU drives it. */
	assert_int_equal(ci.exec, EXEC_VIRTUALISED);
	assert_true(ci.hv_qemu);
	assert_int_equal(ci.max_ext_leaf, 0);	/* leaf 0x80000000 without bit 31: no extended range */
	set_leaf(0x40000000, 0x40000001, TCG_SIG);
	identify();
	assert_string_equal(ci.hv_name, "QEMU TCG");
	assert_int_equal(ci.exec, EXEC_EMULATED);
	assert_true(ci.hv_qemu);
	set_leaf(0x40000000, 0x40000001, 0x61774d56, 0x4d566572, 0x65726177);	/* "VMwareVMware" */
	identify();
	assert_string_equal(ci.hv_name, "VMware");
	assert_int_equal(ci.exec, EXEC_VIRTUALISED);
	assert_false(ci.hv_qemu);
	/* A signature nobody listed: still a hypervisor bit, so virtualised, and no QEMU port assumed. */
	set_leaf(0x40000000, 0x40000001, 0x6e6b6e55, 0x2d6e776f, 0x20205648);	/* "Unknown-HV  " */
	identify();
	assert_null(ci.hv_name);
	assert_int_equal(ci.exec, EXEC_VIRTUALISED);
	assert_false(ci.hv_qemu);
}

/* ---- microcode (MSR 8BH) ---- */

static uint32_t ucode_loaded;	/* what "CPUID(1)" loads into IA32_BIOS_SIGN_ID[63:32] */
static bool ucode_read(void *ctx, uint32_t msr, uint64_t *val, int *result)
{
	(void)ctx;
	if (msr != 0x8B)
		return false;
	*val = (uint64_t)ucode_loaded << 32;
	*result = HW_OK;
	return true;
}

static void microcode_revision(void **state)
{
	(void)state;
	const struct fake_msr_hook hook = { .read = ucode_read };

	cpu("GenuineIntel", 0x16, 0x000906E9, 0, 0);
	fake_msr_define(0x8B, 0x0000002400000000ull, ~0ull);
	ucode_loaded = 0xF4;
	fake_set_hook(&hook);
	identify();
	assert_true(ci.microcode_valid);
	assert_int_equal(ci.microcode, 0xF4);
	assert_null(ci.microcode_reason);
	/* The SDM sequence: 0 written to IA32_BIOS_SIGN_ID first (then CPUID(1), then the read). */
	assert_true(fake_log_count() >= 1);
	assert_int_equal(fake_log_at(0)->msr, 0x8B);
	assert_int_equal(fake_log_at(0)->value, 0);
	fake_set_hook(NULL);

	cpu("AuthenticAMD", 0x10, 0x00A20F12, 0, 0);
	fake_msr_define(0x8B, 0xDEAD00000A201210ull, 0);
	identify();
	assert_true(ci.microcode_valid);
	assert_int_equal(ci.microcode, 0x0A201210);	/* PATCH_LEVEL bits 31:0 */
	assert_int_equal(fake_log_count(), 0);		/* nothing written on AMD */

	cpu("AuthenticAMD", 0x10, 0x00A20F12, 0, 0);	/* no MSR 8BH: #GP, reported as such */
	identify();
	assert_false(ci.microcode_valid);
	assert_non_null(strstr(ci.microcode_reason, "#GP"));
}

/* ---- the microarchitecture table ---- */

static void lookup(enum cpu_vendor v, uint32_t f, uint32_t m, uint32_t s, uint8_t ct, bool arch, const char *key,
		   const char *eset, bool fallback)
{
	struct uarch_match um;
	uarch_lookup(v, f, m, s, ct, arch, &um);
	if (strcmp(um.key, key) || (eset ? !um.event_set || strcmp(um.event_set, eset) : um.event_set != NULL) ||
	    um.fallback != fallback)
		fail_msg("%d %x/%x/%u core type %x: got %s/%s fallback %d (%s); expected %s/%s fallback %d", v, f, m, s, ct,
			 um.key, um.event_set ? um.event_set : "(none)", um.fallback, um.reason, key,
			 eset ? eset : "(none)", fallback);
	assert_true(um.fallback == (um.reason[0] != '\0'));
}

/* A hybrid core by core type and native model ID (CPUID.1AH:EAX), with the kind of fallback expected. */
static const struct uarch_match *lookup_native(uint32_t f, uint32_t m, uint8_t ct, uint32_t native, const char *key,
					       const char *eset, enum uarch_fallback kind)
{
	static struct uarch_match um;
	struct uarch_query q = { VENDOR_INTEL, f, m, 1, ct, native, true };
	uarch_identify(&q, &um);
	if (strcmp(um.key, key) || strcmp(um.event_set ? um.event_set : "(none)", eset) || um.fallback_kind != kind ||
	    um.fallback != (kind != FALLBACK_NONE))
		fail_msg("%x/%x core type %x native %06x: got %s/%s fallback %d (%s); expected %s/%s fallback %d", f, m, ct,
			 native, um.key, um.event_set ? um.event_set : "(none)", um.fallback_kind, um.reason, key, eset,
			 kind);
	return &um;
}

#define INTEL(m, key, set) lookup(VENDOR_INTEL, 6, m, 1, 0, true, key, set, false)
#define HYB(m, ct, key, set) lookup(VENDOR_INTEL, 6, m, 1, ct, true, key, set, false)
#define AMDF(f, m, key, set) lookup(VENDOR_AMD, f, m, 0, 0, false, key, set, false)

/* Every microarchitecture the issue lists, by a representative signature. */
static void table_covers_the_issue_list(void **state)
{
	(void)state;
	INTEL(0x01, "pentium_pro", "pentium_pro");
	INTEL(0x05, "pentium2", "pentium2");
	INTEL(0x07, "pentium3", "p6");
	INTEL(0x0D, "pentium_m", "pentium_m");
	INTEL(0x0F, "merom", "core");
	INTEL(0x17, "penryn", "core");
	INTEL(0x1A, "nehalem", "nehalem");
	INTEL(0x2C, "westmere", "westmere_dp");
	INTEL(0x25, "westmere", "westmere");
	INTEL(0x2E, "nehalem", "nehalem_ex");
	INTEL(0x2A, "sandybridge", "sandybridge");
	INTEL(0x3E, "ivybridge", "ivytown");
	INTEL(0x3F, "haswell", "haswellx");
	INTEL(0x4F, "broadwell", "broadwellx");
	INTEL(0x5E, "skylake", "skylake");
	lookup(VENDOR_INTEL, 6, 0x9E, 9, 0, true, "kabylake", "skylake", false);
	lookup(VENDOR_INTEL, 6, 0x9E, 0xC, 0, true, "coffeelake", "skylake", false);
	INTEL(0xA5, "cometlake", "skylake");
	lookup(VENDOR_INTEL, 6, 0x55, 4, 0, true, "skylake_sp", "skylake_server", false);
	lookup(VENDOR_INTEL, 6, 0x55, 7, 0, true, "cascadelake", "cascadelakex", false);
	lookup(VENDOR_INTEL, 6, 0x55, 0xB, 0, true, "cooperlake", "cascadelakex", false);
	INTEL(0x7E, "icelake", "icelake");
	INTEL(0x6A, "icelake_sp", "icelake_server");
	INTEL(0x8C, "tigerlake", "tigerlake");
	HYB(0x97, CORE_TYPE_CORE, "goldencove", "goldencove");
	HYB(0x97, CORE_TYPE_ATOM, "gracemont", "gracemont");
	HYB(0xB7, CORE_TYPE_CORE, "raptorcove", "goldencove");
	HYB(0xBA, CORE_TYPE_ATOM, "gracemont", "gracemont");
	INTEL(0x8F, "sapphirerapids", "sapphirerapids");
	INTEL(0xCF, "emeraldrapids", "emeraldrapids");
	HYB(0xAA, CORE_TYPE_CORE, "redwoodcove", "redwoodcove");
	HYB(0xAA, CORE_TYPE_ATOM, "crestmont", "crestmont");
	HYB(0xC6, CORE_TYPE_CORE, "lioncove", "lioncove");
	HYB(0xC6, CORE_TYPE_ATOM, "skymont", "skymont");
	HYB(0xBD, CORE_TYPE_CORE, "lioncove", "lioncove_lnl");
	HYB(0xBD, CORE_TYPE_ATOM, "skymont", "skymont_lnl");
	HYB(0xCC, CORE_TYPE_CORE, "cougarcove", "cougarcove");
	HYB(0xD5, CORE_TYPE_ATOM, "darkmont", "darkmont");
	INTEL(0xAD, "graniterapids", "graniterapids");
	INTEL(0x1C, "bonnell", "bonnell");
	INTEL(0x37, "silvermont", "silvermont");
	INTEL(0x4C, "airmont", "silvermont");
	INTEL(0x5F, "goldmont", "goldmont");
	INTEL(0x7A, "goldmont_plus", "goldmont_plus");
	INTEL(0x96, "tremont", "elkhartlake");
	INTEL(0x86, "tremont", "tremont");
	INTEL(0xBE, "gracemont", "gracemont");
	INTEL(0xAF, "crestmont", "sierraforest");
	INTEL(0xB6, "crestmont", "grandridge");
	INTEL(0xDD, "darkmont", "clearwater");
	AMDF(0x0F, 0x2B, "k8", "k8");
	AMDF(0x10, 0x09, "k10", "fam10h");
	AMDF(0x12, 0x01, "llano", "fam12h");
	AMDF(0x11, 0x03, "griffin", "fam11h");
	AMDF(0x06, 0x08, "k7", "k7");
	AMDF(0x14, 0x02, "bobcat", "fam14h");
	AMDF(0x15, 0x01, "bulldozer", "fam15h");
	AMDF(0x15, 0x13, "piledriver", "fam15h");
	AMDF(0x15, 0x38, "steamroller", "fam15h");
	AMDF(0x15, 0x70, "excavator", "fam15h");
	AMDF(0x16, 0x30, "puma", "fam16h");
	AMDF(0x17, 0x01, "zen", "zen1");
	AMDF(0x17, 0x18, "zen_plus", "zen1");
	AMDF(0x17, 0x31, "zen2", "zen2");
	AMDF(0x19, 0x01, "zen3", "zen3");
	AMDF(0x19, 0x11, "zen4", "zen4");
	AMDF(0x1A, 0x02, "zen5", "zen5");
	lookup(VENDOR_HYGON, 0x18, 0, 1, 0, false, "dhyana", "zen1", false);
}

/*
 * Issue 22 (5i): CPUs found in dumps outside the repository, each named with its vendor's
 * event set (or, where the vendor data has no entry, the related core's, said so), and the
 * pre-PMU parts named with no set.
 */
static void table_covers_the_dumps_found_elsewhere(void **state)
{
	(void)state;
	struct uarch_match um;
	INTEL(0x57, "knl", "knl");			/* Knights Landing */
	INTEL(0x85, "knm", "knl");			/* Knights Mill: perfmon maps 6-85 to the KNL file */
	INTEL(0x66, "cannonlake", "skylake");		/* Palm Cove */
	INTEL(0xD7, "raptorcove", "goldencove");	/* Bartlett Lake: Raptor Cove, P-cores only */
	INTEL(0x15, "pentium_m", "pentium_m");		/* Tolapai */
	INTEL(0x9D, "icelake", "icelake");		/* Ice Lake NNPI */
	lookup(VENDOR_INTEL, 6, 0x55, 8, 0, true, "cascadelake", "cascadelakex", false);	/* perfmon 6-55-[5-F] */
	lookup(VENDOR_INTEL, 6, 0x55, 0xE, 0, true, "cascadelake", "cascadelakex", false);
	AMDF(0x16, 0x26, "fam16h", "fam16h");		/* libpfm4: the whole family is fam16h */
	AMDF(0x15, 0x20, "fam15h", "fam15h");
	AMDF(0x17, 0x50, "zen", "zen1");		/* Linux amd.c: 50h-5Fh are Zen 1 */
	AMDF(0x17, 0x47, "zen2", "zen2");
	AMDF(0x17, 0x4F, "zen2", "zen2");
	AMDF(0x19, 0x30, "zen3", "zen3");
	lookup(VENDOR_HYGON, 0x18, 0x10, 0, 0, false, "hygon", "zen1", false);
	lookup(VENDOR_INTEL, 5, 0x04, 3, 0, false, "p5", NULL, false);	/* Pentium MMX */
	lookup(VENDOR_INTEL, 5, 0x02, 5, 0, false, "p5", NULL, false);	/* Pentium (P54C) */
	AMDF(0x05, 0x06, "k6", NULL);
	AMDF(0x05, 0x0D, "k6", NULL);
	/* Nova Lake, family 12H: the core type and native model ID choose Coyote Cove or Arctic Wolf. */
	lookup_native(0x12, 0x01, CORE_TYPE_CORE, 0x000005, "coyotecove", "coyotecove", FALLBACK_NONE);
	lookup_native(0x12, 0x03, CORE_TYPE_ATOM, 0x000005, "arcticwolf", "arcticwolf", FALLBACK_NONE);

	/* Why each set applies: the vendor's mapping, a related core's (with the note), or none. */
	uarch_lookup(VENDOR_INTEL, 6, 0x57, 1, 0, true, &um);
	assert_int_equal(um.basis, BASIS_VENDOR);
	assert_null(um.note);
	assert_string_equal(uarch_basis_name(um.basis), "vendor");
	uarch_lookup(VENDOR_INTEL, 6, 0x66, 3, 0, true, &um);
	assert_int_equal(um.basis, BASIS_RELATED);
	assert_string_equal(uarch_basis_name(um.basis), "related_core");
	assert_non_null(strstr(um.note, "perfmon lists no file for model 66H"));
	assert_string_equal(um.uarch, "Palm Cove (Cannon Lake)");
	uarch_lookup(VENDOR_AMD, 0x17, 0x50, 0, 0, false, &um);
	assert_int_equal(um.basis, BASIS_RELATED);
	assert_non_null(strstr(um.note, "50h-5Fh as Zen 1"));
	uarch_lookup(VENDOR_AMD, 0x05, 0x09, 0, 0, false, &um);
	assert_int_equal(um.basis, BASIS_NONE);
	assert_null(uarch_basis_name(um.basis));
	assert_string_equal(um.uarch, "K6 (AMD-K6-III)");
	assert_false(um.fallback);
}

/*
 * libpfm4 (pfmlib_amd64.c) takes AMD Families 06h-16h whole, one table each: every model of
 * those families is named with that family's set, exactly, never the generic one.
 */
static void amd_families_taken_whole(void **state)
{
	(void)state;
	static const struct {
		uint32_t family;
		const char *set;
	} fam[] = {
		{ 0x06, "k7" }, { 0x0F, "k8" }, { 0x10, "fam10h" }, { 0x11, "fam11h" }, { 0x12, "fam12h" },
		{ 0x14, "fam14h" }, { 0x15, "fam15h" }, { 0x16, "fam16h" },
	};
	for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++)
		for (uint32_t model = 0; model <= 0xFF; model++) {
			struct uarch_match um;
			uarch_lookup(VENDOR_AMD, fam[i].family, model, 0, 0, false, &um);
			if (um.fallback || !um.event_set || strcmp(um.event_set, fam[i].set) || um.basis != BASIS_VENDOR)
				fail_msg("family 0x%x model 0x%x: %s/%s fallback %d", fam[i].family, model, um.key,
					 um.event_set ? um.event_set : "(none)", um.fallback);
		}
}

/*
 * Issue 22 (5c): a hybrid part's E-core microarchitecture is chosen by CPUID.1AH's native model
 * ID as well as its core type, as perfmon's mapfile.csv does: Arrow Lake-H (C5H) has Skymont
 * E-cores (Atom, 000003H), Crestmont low-power E-cores (Atom, 000002H) and Lion Cove P-cores.
 */
static void hybrid_native_model(void **state)
{
	(void)state;
	const struct uarch_match *um;
	um = lookup_native(0x6, 0xC5, CORE_TYPE_ATOM, 0x000002, "crestmont", "crestmont_arl", FALLBACK_NONE);
	assert_string_equal(um->uarch, "Crestmont (Arrow Lake-H low-power E-core)");
	um = lookup_native(0x6, 0xC5, CORE_TYPE_ATOM, 0x000003, "skymont", "skymont", FALLBACK_NONE);
	assert_string_equal(um->uarch, "Skymont (Arrow Lake E-core)");
	lookup_native(0x6, 0xC5, CORE_TYPE_CORE, 0x000003, "lioncove", "lioncove", FALLBACK_NONE);
	/* Every other hybrid generation as perfmon lists it. */
	lookup_native(0x6, 0x97, CORE_TYPE_ATOM, 0x000001, "gracemont", "gracemont", FALLBACK_NONE);
	lookup_native(0x6, 0xBF, CORE_TYPE_CORE, 0x000001, "raptorcove", "goldencove", FALLBACK_NONE);
	lookup_native(0x6, 0xAC, CORE_TYPE_ATOM, 0x000002, "crestmont", "crestmont", FALLBACK_NONE);
	lookup_native(0x6, 0xB5, CORE_TYPE_CORE, 0x000002, "redwoodcove", "redwoodcove", FALLBACK_NONE);
	lookup_native(0x6, 0xBD, CORE_TYPE_ATOM, 0x000003, "skymont", "skymont_lnl", FALLBACK_NONE);
	lookup_native(0x6, 0xC6, CORE_TYPE_ATOM, 0x000003, "skymont", "skymont", FALLBACK_NONE);
	lookup_native(0x6, 0xE5, CORE_TYPE_ATOM, 0x000004, "darkmont", "darkmont", FALLBACK_NONE);
	/* A native model ID perfmon does not list: the type's one set, marked; or, where the model's
	 * cores of that type use different sets, the generic set. */
	um = lookup_native(0x6, 0xC6, CORE_TYPE_ATOM, 0x000002, "skymont", "skymont", FALLBACK_NATIVE_MODEL);
	assert_non_null(strstr(um->reason, "native model ID 0x000002"));
	assert_string_equal(uarch_fallback_name(um->fallback_kind), "unlisted_native_model");
	um = lookup_native(0x6, 0xC5, CORE_TYPE_ATOM, 0x000007, "intel_unknown", "intel_arch", FALLBACK_GENERIC);
	assert_non_null(strstr(um->reason, "different event sets"));
	/* Leaf 1AH not enumerated (a P-core-only SKU with the Hybrid bit clear): any native model. */
	lookup_native(0x6, 0xC5, CORE_TYPE_CORE, UARCH_NATIVE_ANY, "lioncove", "lioncove", FALLBACK_NONE);
	/* Models whose hybrid rows carry no native model (Lakefield: no perfmon file) take any. */
	lookup_native(0x6, 0x8A, CORE_TYPE_ATOM, 0x000009, "lakefield_e", "tremont", FALLBACK_NONE);
}

static void table_fallbacks_are_marked(void **state)
{
	(void)state;
	struct uarch_match um;
	/* Unknown models: the family-level fallback, and never without an architectural PMU for Intel. */
	lookup(VENDOR_INTEL, 6, 0xF0, 0, 0, true, "intel_unknown", "intel_arch", true);
	lookup(VENDOR_INTEL, 6, 0xF0, 0, 0, false, "intel_unknown", NULL, true);
	lookup(VENDOR_INTEL, 0x13, 0x01, 0, 0, true, "intel_unknown", "intel_arch", true);
	lookup(VENDOR_AMD, 0x1A, 0x50, 0, 0, false, "amd_unknown", "amd_legacy", true);
	lookup(VENDOR_HYGON, 0x18, 0x40, 0, 0, false, "amd_unknown", "amd_legacy", true);
	lookup(VENDOR_UNKNOWN, 6, 0x0F, 0, 0, true, "unknown", NULL, true);
	uarch_lookup(VENDOR_INTEL, 6, 0xF0, 3, 0, true, &um);
	assert_non_null(strstr(um.reason, "family 0x6 model 0xf0"));
	assert_null(um.row);
	assert_int_equal(um.fallback_kind, FALLBACK_GENERIC);
	assert_int_equal(um.basis, BASIS_GENERIC);
	assert_string_equal(uarch_basis_name(um.basis), "generic");
	assert_string_equal(uarch_fallback_name(um.fallback_kind), "generic");
	uarch_lookup(VENDOR_INTEL, 6, 0xF0, 3, 0, false, &um);
	assert_int_equal(um.basis, BASIS_NONE);	/* no architectural PMU: no generic set either */
	/* A known model at an unlisted stepping: its event set, marked as a fallback, with the reason. */
	lookup(VENDOR_INTEL, 6, 0x9E, 8, 0, true, "kabylake", "skylake", true);
	uarch_lookup(VENDOR_INTEL, 6, 0x9E, 8, 0, true, &um);
	assert_non_null(strstr(um.reason, "stepping 8"));
	assert_string_equal(um.uarch, "unlisted stepping of a known model");
	assert_string_equal(uarch_fallback_name(um.fallback_kind), "unlisted_stepping");
	assert_int_equal(um.basis, BASIS_VENDOR);	/* perfmon maps all of 9EH to the Skylake file */
	lookup(VENDOR_INTEL, 6, 0x9E, 2, 0, true, "kabylake", "skylake", true);
	/* A hybrid model whose core type is not enumerated: the P-core, marked as assumed. */
	lookup(VENDOR_INTEL, 6, 0x9A, 4, 0, true, "goldencove", "goldencove", true);
	uarch_lookup(VENDOR_INTEL, 6, 0x9A, 4, 0x30, true, &um);
	assert_true(um.fallback);
	assert_non_null(strstr(um.reason, "0x30"));
	assert_string_equal(uarch_fallback_name(um.fallback_kind), "assumed_p_core");
	assert_null(uarch_fallback_name(FALLBACK_NONE));
	/* Alder Lake-N reports an Atom core type but is not hybrid: an exact row. */
	lookup(VENDOR_INTEL, 6, 0xBE, 0, CORE_TYPE_ATOM, true, "gracemont", "gracemont", false);
}

/*
 * The table itself: valid ranges, no two rows claiming one CPU, every row's basis stated with its
 * note, every PMU kind an Intel one where only Intel has it, and the event-set contract with events/:
 * the table's key list (generated from events/sets.csv) is events/'s list (generated from the same
 * file by another generator), in the same order with the same vendors; every set but the fallbacks
 * is named by a row, and each vendor's fallback is its own.
 */
static void table_is_consistent(void **state)
{
	(void)state;
	assert_true(uarch_table_count() > 100);
	for (size_t i = 0; i < uarch_table_count(); i++) {
		const struct uarch_row *a = uarch_table_at(i);
		const struct uarch_desc *d = uarch_desc_of(a);
		assert_true(a->model_lo <= a->model_hi && a->step_lo <= a->step_hi && a->step_hi <= 0xF);
		assert_true(uarch_desc_key(d)[0] && uarch_desc_name(d)[0]);
		assert_true(a->native_model == UARCH_NATIVE_ANY || a->core_type != CORE_TYPE_ANY);
		const char *es = uarch_row_event_set(a);
		const char *note = uarch_desc_note(d);
		if (!es || d->basis == BASIS_NONE)
			assert_true(!es && d->basis == BASIS_NONE && note);	/* no set: the reason why */
		else if (d->basis == BASIS_RELATED)
			assert_non_null(note);					/* a related core's set: which and why */
		else
			assert_true(d->basis == BASIS_VENDOR && !note);
		assert_true(d->pmu <= UARCH_PMU_NONE);
		if (d->pmu == UARCH_PMU_P6 || d->pmu == UARCH_PMU_CORE2)
			assert_int_equal(a->vendor, VENDOR_INTEL);
		/* A PMU pmuboot does not drive, or none: no event set, and the note says why. */
		if (d->pmu == UARCH_PMU_UNSUPPORTED || d->pmu == UARCH_PMU_NONE)
			assert_true(!es && note);
		for (size_t j = i + 1; j < uarch_table_count(); j++) {
			const struct uarch_row *b = uarch_table_at(j);
			bool overlap = a->vendor == b->vendor && a->family == b->family && a->model_lo <= b->model_hi &&
				       b->model_lo <= a->model_hi && a->step_lo <= b->step_hi && b->step_lo <= a->step_hi &&
				       (a->core_type == b->core_type || !a->core_type || !b->core_type) &&
				       (a->native_model == b->native_model || a->native_model == UARCH_NATIVE_ANY ||
					b->native_model == UARCH_NATIVE_ANY);
			if (overlap)
				fail_msg("rows %zu and %zu overlap (family 0x%x models 0x%x-0x%x)", i, j, a->family,
					 a->model_lo, a->model_hi);
		}
	}
	assert_null(uarch_table_at(uarch_table_count()));

	/* The event-set keys are the contract with events/: both lists come from events/sets.csv. */
	assert_int_equal(events_set_count(), uarch_event_sets_count());
	assert_null(uarch_event_set_key(uarch_event_sets_count()));
	for (size_t i = 0; i < events_set_count(); i++) {
		const struct event_set *s = events_set_at(i);
		const char *key = uarch_event_set_key(i);
		assert_non_null(key);
		assert_string_equal(s->key, key);
		assert_int_equal(s->amd, uarch_event_set_amd(i));
		bool named = uarch_event_set_is_fallback(key);
		for (size_t r = 0; r < uarch_table_count() && !named; r++) {
			const char *es = uarch_row_event_set(uarch_table_at(r));
			named = es && !strcmp(es, key);
		}
		if (!named)
			fail_msg("event set %s is named by no row of the table", key);
	}
	/* Each vendor's fallback is a set of its own encoding; Hygon's is AMD's; an unknown vendor has none. */
	const char *intel = uarch_fallback_event_set(VENDOR_INTEL), *amd = uarch_fallback_event_set(VENDOR_AMD);
	assert_non_null(intel);
	assert_non_null(amd);
	assert_false(events_set_find(intel)->amd);
	assert_true(events_set_find(amd)->amd);
	assert_string_equal(uarch_fallback_event_set(VENDOR_HYGON), amd);
	assert_null(uarch_fallback_event_set(VENDOR_UNKNOWN));
	assert_true(uarch_event_set_is_fallback(intel) && uarch_event_set_is_fallback(amd));
	assert_false(uarch_event_set_is_fallback(uarch_row_event_set(uarch_table_at(uarch_table_count() - 1))));
	assert_false(uarch_event_set_is_fallback(NULL));
}

/* ---- PMU capabilities ---- */

static void intel_arch(uint32_t sig, uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t edx)
{
	cpu("GenuineIntel", 0xA, sig, 0, 0);
	set_leaf(0xA, eax, ebx, ecx, edx);
	identify();
}

static void intel_architectural_pmu(void **state)
{
	(void)state;
	/* Version 1 (Yonah): no fixed counters, whatever EDX holds. */
	intel_arch(0x000006E8, 0x07280201, 0, 0, 0x0503);
	assert_int_equal(caps.kind, PMU_INTEL_ARCH);
	assert_int_equal(caps.version, 1);
	assert_int_equal(caps.n_gp, 2);
	assert_int_equal(caps.gp_width, 40);
	assert_int_equal(caps.n_fixed, 0);
	assert_int_equal(caps.fixed_mask, 0);
	assert_string_equal(ci.event_set, "coreduo");

	/* Version 3 (Nehalem): a set EBX bit means that event is NOT available. */
	intel_arch(0x000106A4, 0x07300403, 0x00000044, 0, 0x00000603);
	assert_int_equal(caps.n_gp, 4);
	assert_int_equal(caps.gp_width, 48);
	assert_int_equal(caps.n_fixed, 3);
	assert_int_equal(caps.fixed_width, 48);
	assert_int_equal(caps.fixed_mask, 0x7);
	assert_int_equal(caps.arch_events_len, 7);
	assert_int_equal(caps.arch_events_absent, 0x44);
	assert_false(caps.fixed_assumed);

	/* Version 5: the ECX bitmap adds fixed counters beyond the contiguous EDX[4:0] ones. */
	intel_arch(0x000806C1, 0x08300805, 0, 0x00000009, 0x00008603);
	assert_int_equal(caps.version, 5);
	assert_int_equal(caps.fixed_bitmap, 0x9);
	assert_int_equal(caps.fixed_mask, 0xF);
	assert_true(caps.any_thread_deprecated);

	/* Core 2 reporting no fixed counters in version 2: the three it has are assumed, and marked. */
	intel_arch(0x000006F6, 0x07280202, 0, 0, 0);
	assert_int_equal(caps.n_fixed, 3);
	assert_int_equal(caps.fixed_width, 40);
	assert_true(caps.fixed_assumed);
	assert_non_null(caps.fixed_note);
	/* ... but not under a hypervisor, which may really offer none. */
	cpu("GenuineIntel", 0xA, 0x000006F6, CPUID1_HV, 0);
	set_leaf(0x40000000, 0x40000001, KVM_SIG);
	set_leaf(0xA, 0x07280202, 0, 0, 0);
	fake_msr_define(0x186, 0, ~0ull);
	fake_msr_define(0xC1, 0, ~0ull);
	identify();
	assert_int_equal(caps.n_fixed, 0);
	assert_false(caps.fixed_assumed);

	/* Leaf 23H (when CPUID.(07H,1):EAX[8]): per-core counter bitmaps. */
	cpu("GenuineIntel", 0x23, 0x000A06A4, 0, 0);
	set_leaf(0xA, 0x07300805, 0, 0x7, 0x8603);
	fake_cpuid_set(7, 1, 0x40400910, 0, 0, 0);
	fake_cpuid_set(0x23, 0, 0x0000000B, 0, 0, 0);
	fake_cpuid_set(0x23, 1, 0x000000FF, 0x0000000F, 0, 0);
	identify();
	assert_true(caps.arch_ext);
	assert_int_equal(caps.ext_gp_mask, 0xFF);
	assert_int_equal(caps.ext_fixed_mask, 0xF);
}

/* CPUID.1:EAX of an Intel display family/model/stepping below 10H (SDM Vol. 2A, CPUID: the extended
 * model applies to families 6 and 0FH). */
static uint32_t intel_signature(uint32_t family, uint32_t model, uint32_t stepping)
{
	return (model >> 4) << 16 | family << 8 | (model & 0xF) << 4 | stepping;
}

/*
 * The PMU comes from the table's pmu column, never from a core's name: every Intel row (family below
 * 10H, not hybrid), on a CPU without leaf 0AH, gets the P6 counters exactly when its row says p6, and a
 * row whose PMU pmuboot does not drive gives its note as the reason; with leaf 0AH version 2 reporting
 * no fixed counters, the three of Core 2 are assumed exactly on the rows that say core2.
 */
static void pmu_kind_follows_the_table(void **state)
{
	(void)state;
	size_t p6 = 0, core2 = 0, unsupported = 0;
	for (size_t i = 0; i < uarch_table_count(); i++) {
		const struct uarch_row *r = uarch_table_at(i);
		const struct uarch_desc *d = uarch_desc_of(r);
		if (r->vendor != VENDOR_INTEL || r->family > 0xF || r->core_type != CORE_TYPE_ANY)
			continue;
		uint32_t sig = intel_signature(r->family, r->model_lo, r->step_lo);
		cpu("GenuineIntel", 2, sig, 0, 0);
		fake_msr_define(0x186, 0, ~0ull);	/* IA32_PERFEVTSEL0 */
		fake_msr_define(0xC1, 0, ~0ull);	/* IA32_PMC0 */
		identify();
		if (ci.uarch_pmu != d->pmu)
			fail_msg("signature 0x%08x: pmu %d, its row says %d", sig, (int)ci.uarch_pmu, d->pmu);
		if (d->pmu == UARCH_PMU_P6) {
			assert_int_equal(caps.kind, PMU_INTEL_P6);
			p6++;
		} else {
			assert_int_equal(caps.kind, PMU_NONE);
			assert_non_null(caps.absent_reason);
		}
		if (d->pmu == UARCH_PMU_UNSUPPORTED || d->pmu == UARCH_PMU_NONE) {
			assert_ptr_equal(caps.absent_reason, ci.event_set_note);
			unsupported++;
		}
		if (r->family != 6)
			continue;
		cpu("GenuineIntel", 0xA, sig, 0, 0);
		set_leaf(0xA, 0x07280202, 0, 0, 0);
		identify();
		if (caps.fixed_assumed != (d->pmu == UARCH_PMU_CORE2))
			fail_msg("signature 0x%08x (%s): fixed counters assumed %d", sig, ci.uarch_key, caps.fixed_assumed);
		core2 += d->pmu == UARCH_PMU_CORE2;
	}
	/* Pentium Pro, II, III, M and Tolapai; Merom and Penryn; the P5 and NetBurst. */
	assert_true(p6 >= 8 && core2 >= 4 && unsupported >= 5);
}

static void intel_perf_capabilities_and_smi(void **state)
{
	(void)state;
	cpu("GenuineIntel", 0xA, 0x000906E9, CPUID1_PDCM, 0);
	set_leaf(0xA, 0x07300404, 0, 0, 0x603);
	/* LBR format 5, PEBS trap, arch regs, PEBS format 4, freeze-while-SMM, full-width writes. */
	fake_msr_define(0x345, 0x34C5, 0);
	fake_msr_define(0x34, 7, 0);
	identify();
	assert_true(caps.pdcm && caps.perf_caps_read);
	assert_int_equal(caps.perf_caps, 0x34C5);
	assert_int_equal(caps.lbr_format, 5);
	assert_true(caps.pebs_trap && caps.pebs_arch_regs);
	assert_int_equal(caps.pebs_format, 4);
	assert_true(caps.freeze_while_smm && caps.full_width_write);
	assert_false(caps.pebs_baseline || caps.perf_metrics);
	assert_null(caps.perf_caps_reason);
	assert_true(caps.smi_count);
	assert_null(caps.smi_count_reason);

	/* PDCM set but the MSR faults; no MSR_SMI_COUNT: both absent, each with its reason. */
	cpu("GenuineIntel", 0xA, 0x000906E9, CPUID1_PDCM, 0);
	set_leaf(0xA, 0x07300404, 0, 0, 0x603);
	identify();
	assert_false(caps.perf_caps_read);
	assert_non_null(strstr(caps.perf_caps_reason, "#GP"));
	assert_false(caps.smi_count);
	assert_non_null(strstr(caps.smi_count_reason, "#GP"));

	cpu("GenuineIntel", 0xA, 0x000906E9, 0, 0);
	identify();
	assert_non_null(strstr(caps.perf_caps_reason, "PDCM is clear"));
}

static void intel_without_architectural_pmu(void **state)
{
	(void)state;
	/* P6: no leaf 0AH, two 40-bit counters. */
	cpu("GenuineIntel", 3, 0x00000673, 0, 0);
	identify();
	assert_int_equal(caps.kind, PMU_INTEL_P6);
	assert_int_equal(caps.n_gp, 2);
	assert_int_equal(caps.gp_width, 40);
	assert_null(caps.absent_reason);

	/* QEMU TCG: CPUID.0AH all zero. */
	cpu("GenuineIntel", 0xD, 0x000506E3, CPUID1_HV, 0);
	set_leaf(0x40000000, 0x40000001, TCG_SIG);
	identify();
	assert_int_equal(caps.kind, PMU_NONE);
	assert_string_equal(caps.absent_reason,
			    "CPUID.0AH reports version 0: no architectural PMU (QEMU TCG exposes none)");
	assert_string_equal(ci.event_set, "skylake");	/* the model is still known */

	/* Another hypervisor, and bare metal, say which. */
	cpu("GenuineIntel", 0xD, 0x000506E3, CPUID1_HV, 0);
	set_leaf(0x40000000, 0x40000001, KVM_SIG);
	identify();
	assert_non_null(strstr(caps.absent_reason, "(the hypervisor exposes none)"));
	assert_non_null(strstr(caps.note, "KVMKVMKVM"));
	cpu("GenuineIntel", 0xD, 0x000506E3, 0, 0);
	identify();
	assert_string_equal(caps.absent_reason, "CPUID.0AH reports version 0: no architectural PMU");

	/* NetBurst, and a family-6 model without leaf 0AH that is not a P6 part. */
	cpu("GenuineIntel", 2, 0x00000F29, 0, 0);
	identify();
	assert_string_equal(ci.uarch_key, "netburst");
	assert_null(ci.event_set);
	assert_non_null(strstr(caps.absent_reason, "NetBurst"));
	cpu("GenuineIntel", 2, 0x000006C1, 0, 0);
	identify();
	assert_int_equal(caps.kind, PMU_NONE);
	assert_non_null(strstr(caps.absent_reason, "not a known P6-family part"));
	assert_true(ci.fallback);
	assert_null(ci.event_set);

	/* The P5 (Pentium MMX, P55C): named exactly, its model-specific counters not driven, said so. */
	cpu("GenuineIntel", 1, 0x00000543, 0, 0);
	identify();
	assert_string_equal(ci.uarch_key, "p5");
	assert_string_equal(ci.uarch, "P5 (Pentium MMX)");
	assert_false(ci.fallback);
	assert_null(ci.event_set);
	assert_null(ci.event_set_basis);
	assert_int_equal(caps.kind, PMU_NONE);
	assert_non_null(strstr(caps.absent_reason, "CESR, CTR0 and CTR1 (MSRs 11H-13H"));
	assert_ptr_equal(caps.absent_reason, ci.event_set_note);
}

static void amd_counters(void **state)
{
	(void)state;
	cpu("AuthenticAMD", 1, 0x00020FB1, 0, 0x80000018);	/* K8 */
	set_leaf(0x80000001, 0x00020FB1, 0, 0x3, 0);
	identify();
	assert_int_equal(caps.kind, PMU_AMD_LEGACY);
	assert_int_equal(caps.amd_n_counters, 4);
	assert_int_equal(caps.n_gp, 4);
	assert_int_equal(caps.gp_width, 48);
	assert_false(caps.ibs);
	assert_string_equal(caps.ibs_absent_reason, "CPUID 8000_0001h:ECX[10] (IBS) is clear");
	assert_non_null(strstr(caps.smi_count_reason, "Intel MSR"));

	cpu("AuthenticAMD", 0xD, 0x00600F20, 0, 0x8000001E);	/* Piledriver: core extension */
	set_leaf(0x80000001, 0x00600F20, 0, 0x01EBBFFF, 0);
	set_leaf(0x8000001B, 0xFF, 0, 0, 0);
	identify();
	assert_int_equal(caps.kind, PMU_AMD_CORE_EXT);
	assert_int_equal(caps.amd_n_counters, 6);
	assert_true(caps.amd_core_ext && caps.amd_nb_ext);
	assert_true(caps.ibs && caps.ibs_flags_valid);
	assert_int_equal(caps.ibs_flags, 0xFF);
	assert_null(caps.ibs_note);

	cpu("AuthenticAMD", 0x10, 0x00A60F12, 0, 0x80000028);	/* Zen 4: PerfMonV2 */
	set_leaf(0x80000001, 0x00A60F12, 0, 0x75C237FF, 0);
	set_leaf(0x8000001B, 0xBFF, 0, 0, 0);
	set_leaf(0x80000022, 0x3, 0x00084106, 0x3, 0);
	identify();
	assert_int_equal(caps.kind, PMU_AMD_V2);
	assert_int_equal(caps.amd_n_counters, 6);
	assert_int_equal(caps.amd_n_nb, 16);
	assert_int_equal(caps.amd_n_umc, 8);
	assert_int_equal(caps.amd_lbr_depth, 16);
	assert_true(caps.amd_v2 && caps.amd_lbr_v2 && caps.amd_llc_ext);

	/* Zen (Family 17h model 01h) with IBS hidden by firmware: the reason says so. */
	cpu("AuthenticAMD", 0xD, 0x00800F11, 0, 0x8000001F);
	set_leaf(0x80000001, 0x00800F11, 0, 0x35C233FB, 0);
	identify();
	assert_false(caps.ibs);
	assert_non_null(strstr(caps.ibs_absent_reason, "firmware may hide IBS"));

	/* IBS present on a part without leaf 8000_001Bh (Barcelona): flags unknown, said so. */
	cpu("AuthenticAMD", 5, 0x00100F21, 0, 0x8000001A);
	set_leaf(0x80000001, 0x00100F21, 0, 0x7FF, 0);
	identify();
	assert_true(caps.ibs);
	assert_false(caps.ibs_flags_valid);
	assert_non_null(strstr(caps.ibs_note, "beyond the maximum extended leaf"));

	/* The K6-2 is named, and has no counters at all: the pmu record says so with its source. */
	cpu("AuthenticAMD", 1, 0x00000580, 0, 0x80000005);
	identify();
	assert_string_equal(ci.uarch_key, "k6");
	assert_string_equal(ci.uarch, "K6 (AMD-K6-2)");
	assert_false(ci.fallback);
	assert_null(ci.event_set);
	assert_int_equal(caps.kind, PMU_NONE);
	assert_non_null(strstr(caps.absent_reason, "no performance counters at all"));
	assert_non_null(strstr(caps.absent_reason, "21329"));
	/* A K5 (family 5 model 1) is not in the table: the family fallback, and no counters pmuboot supports. */
	cpu("AuthenticAMD", 1, 0x00000511, 0, 0x80000005);
	identify();
	assert_true(ci.fallback);
	assert_int_equal(caps.kind, PMU_NONE);
	assert_non_null(strstr(caps.absent_reason, "K5/K6"));
}

/* Under a hypervisor the first counter must hold a written value; the check leaves it as found. */
static bool zero_counter(void *ctx, uint32_t msr, uint64_t *val, int *result)
{
	(void)ctx;
	if (msr != 0xC0010201)
		return false;
	*val = 0;
	*result = HW_OK;
	return true;
}

static void hypervisor_counter_check(void **state)
{
	(void)state;
	const struct fake_msr_hook hook = { .read = zero_counter };

	/* Counters that hold: kept, and put back. */
	cpu("AuthenticAMD", 0xD, 0x00A00F11, CPUID1_HV, 0x80000022);
	set_leaf(0x40000000, 0x40000001, KVM_SIG);
	set_leaf(0x80000001, 0x00A00F11, 0, 1u << 23, 0);
	fake_msr_define(0xC0010200, 0, ~0ull);
	fake_msr_define(0xC0010201, 0x1234, ~0ull);
	identify();
	assert_int_equal(caps.kind, PMU_AMD_CORE_EXT);
	assert_true(caps.probed);
	assert_non_null(strstr(caps.note, "holds a written value"));
	assert_int_equal(fake_msr_get(0xC0010201), 0x1234);

	/* Counters that read 0 whatever is written (QEMU TCG): no PMU, with the evidence. */
	cpu("AuthenticAMD", 0xD, 0x00A00F11, CPUID1_HV, 0x80000022);
	set_leaf(0x40000000, 0x40000001, TCG_SIG);
	set_leaf(0x80000001, 0x00A00F11, 0, 1u << 23, 0);
	fake_msr_define(0xC0010200, 0, ~0ull);
	fake_msr_define(0xC0010201, 0, ~0ull);
	fake_set_hook(&hook);
	identify();
	fake_set_hook(NULL);
	assert_int_equal(caps.kind, PMU_NONE);
	assert_string_equal(caps.absent_reason, "no working PMU: the counters CPUID implies do not keep a value written to "
						 "them; QEMU TCG emulates none");
	assert_non_null(strstr(caps.note, "read back 0x0"));

	/* A counter in use (enabled) is not touched. */
	cpu("AuthenticAMD", 0xD, 0x00A00F11, CPUID1_HV, 0x80000022);
	set_leaf(0x40000000, 0x40000001, KVM_SIG);
	set_leaf(0x80000001, 0x00A00F11, 0, 1u << 23, 0);
	fake_msr_define(0xC0010200, 1ull << 22, ~0ull);
	fake_msr_define(0xC0010201, 0x55, ~0ull);
	identify();
	assert_int_equal(caps.kind, PMU_AMD_CORE_EXT);
	assert_non_null(strstr(caps.note, "in use"));
	assert_int_equal(fake_log_count(), 0);

	/* Counter MSRs that fault: no PMU. */
	cpu("AuthenticAMD", 0xD, 0x00100F42, CPUID1_HV, 0x8000001B);
	set_leaf(0x40000000, 0x40000001, KVM_SIG);
	identify();
	assert_int_equal(caps.kind, PMU_NONE);
	assert_non_null(strstr(caps.absent_reason, "raised an exception"));
	assert_non_null(strstr(caps.note, "exception 13"));
}

/* ---- records ---- */

static void records_carry_the_fields(void **state)
{
	(void)state;
	struct capture cap;

	cpu("GenuineIntel", 0xD, 0x000506E3, CPUID1_HV, 0x80000004);
	set_leaf(0x40000000, 0x40000001, TCG_SIG);
	set_brand("QEMU TCG CPU");
	capture_start(&cap);
	identify();
	cpu_set_source("a test");
	cpu_report(&ci, &rec);
	rec_start(&rec, "pmu");
	pmu_caps_fields(&rec, &caps);
	rec_emit(&rec);
	pmu_caps_summary(&caps);
	cpu_set_source(NULL);
	const char *c = capture_find(&cap, "cpu");
	const char *p = capture_find(&cap, "pmu");
	assert_non_null(c);
	assert_non_null(p);
	static const char *const want_cpu[] = {
		"\"vendor\":\"intel\"", "\"family\":\"0x6\"", "\"model\":\"0x5e\"", "\"stepping\":3",
		"\"brand\":\"QEMU TCG CPU\"", "\"hypervisor\":true", "\"hypervisor_vendor\":\"TCGTCGTCGTCG\"",
		"\"hypervisor_name\":\"QEMU TCG\"", "\"execution\":\"emulated\"", "\"uarch_key\":\"skylake\"",
		"\"event_set\":\"skylake\"", "\"event_set_basis\":\"vendor\"", "\"event_set_note\":null",
		"\"fallback\":false", "\"fallback_kind\":null", "\"microcode\":null", "\"source\":\"a test\"", "\"hybrid\":false",
	};
	for (size_t i = 0; i < sizeof(want_cpu) / sizeof(want_cpu[0]); i++)
		if (!strstr(c, want_cpu[i]))
			fail_msg("cpu record lacks %s: %s", want_cpu[i], c);
	static const char *const want_pmu[] = {
		"\"kind\":\"none\"", "\"present\":false",
		"\"absent_reason\":\"CPUID.0AH reports version 0: no architectural PMU (QEMU TCG exposes none)\"",
		"\"arch_events\":null", "\"ibs\":{\"present\":false",
	};
	for (size_t i = 0; i < sizeof(want_pmu) / sizeof(want_pmu[0]); i++)
		if (!strstr(p, want_pmu[i]))
			fail_msg("pmu record lacks %s: %s", want_pmu[i], p);
	bool said = false;
	for (size_t i = 0; i < cap.n; i++)
		said |= cap.kinds[i] == OUT_TEXT && strstr(cap.lines[i], "pmu: no PMU: CPUID.0AH reports version 0") != NULL;
	assert_true(said);
	capture_free(&cap);

	/* An architectural PMU: the events, available and not, by name. */
	intel_arch(0x000106A4, 0x07300403, 0x00000040, 0, 0x00000603);
	capture_start(&cap);
	rec_start(&rec, "pmu");
	pmu_caps_fields(&rec, &caps);
	rec_emit(&rec);
	p = capture_find(&cap, "pmu");
	assert_non_null(strstr(p, "\"kind\":\"intel_arch\""));
	assert_non_null(strstr(p, "\"gp\":{\"count\":4,\"width\":48}"));
	assert_non_null(strstr(p, "\"unavailable\":[\"branch_misses_retired\",\"topdown_slots\""));
	assert_non_null(strstr(p, "\"available\":[\"core_cycles\",\"instructions_retired\",\"reference_cycles\","
				 "\"llc_references\",\"llc_misses\",\"branch_instructions_retired\"],"));
	capture_free(&cap);
}

/*
 * The `pmu` line and record name every fixed counter leaf 23H enumerates for
 * this core.  Lunar Lake E-core (Skymont): CPUID.0AH, common to both core
 * types, lists fixed counters 0-2 (ECX 7H, EDX[4:0] 3); CPUID.(23H,1):EBX
 * lists 77H: 0-2 and 4-6 (the top-down fixed counters).
 */
static void pmu_line_names_leaf_23h_fixed_counters(void **state)
{
	(void)state;
	struct capture cap;

	cpu("GenuineIntel", 0x23, 0x000B06D1, 0, 0);
	set_leaf(0xA, 0x07300805, 0, 0x7, 0x8603);
	fake_cpuid_set(7, 1, 1u << 8, 0, 0, 0);		/* CPUID.(07H,1):EAX[8]: leaf 23H */
	fake_cpuid_set(0x23, 0, 0x0000000B, 0, 0, 0);	/* EAX[1]: sub-leaf 1 valid */
	fake_cpuid_set(0x23, 1, 0x000000FF, 0x00000077, 0, 0);
	capture_start(&cap);
	identify();
	assert_int_equal(caps.kind, PMU_INTEL_ARCH);
	rec_start(&rec, "pmu");
	pmu_caps_fields(&rec, &caps);
	rec_emit(&rec);
	pmu_caps_summary(&caps);
	const char *p = capture_find(&cap, "pmu");
	assert_non_null(p);
	if (!strstr(p, "\"fixed\":{\"count\":6,\"width\":48,\"mask\":\"0x77\",\"mask_from\":\"cpuid_23h\","
		       "\"leaf_0ah_mask\":\"0x7\""))
		fail_msg("pmu record: %s", p);
	bool said = false;
	for (size_t i = 0; i < cap.n; i++)
		said |= cap.kinds[i] == OUT_TEXT &&
			strstr(cap.lines[i], "8 x 48-bit general, 6 x 48-bit fixed (mask 0x77 from CPUID.(23H,1); "
					     "CPUID.0AH lists 0x7)") != NULL;
	if (!said)
		fail_msg("no pmu line naming fixed counters 0-2 and 4-6 (first line: %s)", cap.n ? cap.lines[0] : "");
	capture_free(&cap);

	/* Without leaf 23H the line is CPUID.0AH's, and says nothing of a source it did not use. */
	intel_arch(0x000806C1, 0x08300805, 0, 0x00000009, 0x00008603);
	capture_start(&cap);
	pmu_caps_summary(&caps);
	said = false;
	for (size_t i = 0; i < cap.n; i++)
		said |= cap.kinds[i] == OUT_TEXT && strstr(cap.lines[i], "4 x 48-bit fixed (mask 0xf)") != NULL;
	assert_true(said);
	capture_free(&cap);
}

/* ---- the hand-written fixtures ---- */

static void fixture(const char *name, size_t block)
{
	struct loaded_dump ld;
	char path[256], err[600];
	snprintf(path, sizeof(path), "tests/fixtures/cpuid/%s", name);
	if (!dump_load(path, &ld, err, sizeof(err)))
		fail_msg("%s (tests run from the repository root)", err);
	assert_true(block < ld.d.ncpus);
	dump_to_fake(&ld, block);
	dump_free(&ld);
	identify();
}

static void fixture_hypervisor(void **state)
{
	(void)state;
	fixture("kvm_cascadelake.txt", 1);
	assert_true(ci.hypervisor);
	assert_string_equal(ci.hv_vendor, "KVMKVMKVM");
	assert_int_equal(ci.exec, EXEC_VIRTUALISED);
	assert_string_equal(ci.uarch_key, "cascadelake");
	assert_string_equal(ci.event_set, "cascadelakex");
	assert_string_equal(ci.brand, "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
	/* The fake has no counter MSRs: under a hypervisor that is no working PMU. */
	assert_int_equal(caps.kind, PMU_NONE);
	assert_int_equal(caps.version, 2);
	assert_int_equal(caps.n_gp, 4);
	assert_int_equal(caps.n_fixed, 3);
	assert_false(caps.pdcm);
}

static void fixture_ibs_flags_not_valid(void **state)
{
	(void)state;
	fixture("amd_ibs_flags_invalid.txt", 0);
	assert_string_equal(ci.uarch_key, "k10");
	assert_int_equal(caps.kind, PMU_AMD_LEGACY);
	assert_true(caps.ibs);
	assert_false(caps.ibs_flags_valid);
	assert_int_equal(caps.ibs_flags, 0x1E);
	assert_non_null(strstr(caps.ibs_note, "IBSFFV"));
}

static void fixture_unknown_future_models(void **state)
{
	(void)state;
	fixture("intel_future_family13.txt", 0);
	assert_int_equal(ci.family, 0x13);
	assert_int_equal(ci.model, 0x1);
	assert_true(ci.fallback);
	assert_string_equal(ci.event_set, "intel_arch");
	assert_non_null(strstr(ci.fallback_reason, "family 0x13 model 0x1"));
	assert_int_equal(caps.version, 5);
	assert_int_equal(caps.fixed_mask, 0xF);
	assert_true(caps.pdcm);

	fixture("amd_future_model.txt", 1);
	assert_int_equal(ci.family, 0x1A);
	assert_int_equal(ci.model, 0x50);
	assert_true(ci.fallback);
	assert_string_equal(ci.event_set, "amd_legacy");
	assert_int_equal(caps.kind, PMU_AMD_V2);
	assert_int_equal(caps.ibs_flags, 0x81BFF);
}

static void fixture_hybrid_ecore_first(void **state)
{
	(void)state;
	fixture("intel_hybrid_ecore_first.txt", 0);
	assert_true(ci.hybrid);
	assert_int_equal(ci.core_type, CORE_TYPE_ATOM);
	assert_string_equal(cpu_core_type_name(ci.core_type), "atom");
	assert_string_equal(ci.event_set, "gracemont");
	assert_false(ci.fallback);
	fixture("intel_hybrid_ecore_first.txt", 1);
	assert_int_equal(ci.core_type, CORE_TYPE_CORE);
	assert_string_equal(ci.event_set, "goldencove");
}

static void fixture_others(void **state)
{
	(void)state;
	fixture("unknown_vendor_centaur.txt", 0);
	assert_int_equal(ci.vendor, VENDOR_UNKNOWN);
	assert_string_equal(ci.vendor_str, "CentaurHauls");
	assert_int_equal(caps.kind, PMU_NONE);

	fixture("intel_core2_report.txt", 1);
	assert_string_equal(ci.uarch_key, "merom");
	assert_string_equal(ci.brand, "Intel(R) Core(TM)2 CPU T7200  @ 2.00GHz");
	assert_true(caps.fixed_assumed);

	fixture("intel_p6_pentium3.txt", 0);
	assert_string_equal(ci.uarch_key, "pentium3");
	assert_int_equal(ci.max_ext_leaf, 0);
	assert_int_equal(caps.kind, PMU_INTEL_P6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(signature_decoding),
		cmocka_unit_test(vendor_brand_and_hypervisor),
		cmocka_unit_test(microcode_revision),
		cmocka_unit_test(table_covers_the_issue_list),
		cmocka_unit_test(table_covers_the_dumps_found_elsewhere),
		cmocka_unit_test(hybrid_native_model),
		cmocka_unit_test(amd_families_taken_whole),
		cmocka_unit_test(table_fallbacks_are_marked),
		cmocka_unit_test(table_is_consistent),
		cmocka_unit_test(intel_architectural_pmu),
		cmocka_unit_test(pmu_kind_follows_the_table),
		cmocka_unit_test(intel_perf_capabilities_and_smi),
		cmocka_unit_test(intel_without_architectural_pmu),
		cmocka_unit_test(amd_counters),
		cmocka_unit_test(hypervisor_counter_check),
		cmocka_unit_test(records_carry_the_fields),
		cmocka_unit_test(pmu_line_names_leaf_23h_fixed_counters),
		cmocka_unit_test(fixture_hypervisor),
		cmocka_unit_test(fixture_ibs_flags_not_valid),
		cmocka_unit_test(fixture_unknown_future_models),
		cmocka_unit_test(fixture_hybrid_ecore_first),
		cmocka_unit_test(fixture_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
