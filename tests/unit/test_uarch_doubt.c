/*
 * tests/unit/test_uarch_doubt.c - identification doubts a core its CPU's features contradict
 * (cpu/uarch.h uarch_doubt, cpu/uarch_features.csv): a KVM guest reporting Rocket Lake's signature
 * with AMX, as the development host does, is said to be no Rocket Lake; the cores the table lists
 * with a feature, a fallback and a CPU without the leaf are not doubted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tests/fake/capture.h"
#include "tests/fake/hw_fake.h"
#include "lib/record.h"
#include "cpu/cpu.h"
#include "cpu/uarch.h"

/* CPUID.(EAX=07H,ECX=0) bits (SDM Vol. 2A, CPUID leaf 07H; AMD APM Vol. 3, Fn0000_0007_EBX_x0). */
#define L7_EDX_AMX_TILE (1u << 24)
#define L7_EDX_AVX512_FP16 (1u << 23)
#define L7_EBX_AVX512F (1u << 16)
/* CPUID.(EAX=07H,ECX=1):EDX[19] AVX10 (Intel AVX10 Architecture Specification). */
#define L71_EDX_AVX10 (1u << 19)

/* A fake CPU's leaf 07H: subleaves 0 and 1, or no leaf 07H at all. */
struct fake_l7 {
	bool present;
	uint32_t r0[4], r1[4];
};

/* The doubt of family/model with f's leaf 07H, and the event set the match is left with (NULL: none). */
static const char *doubt_of(enum cpu_vendor v, uint32_t family, uint32_t model, const struct fake_l7 *f,
			    struct uarch_doubt *d)
{
	struct uarch_match m;
	struct uarch_query q = { .vendor = v, .family = family, .model = model, .stepping = 1,
				 .native_model = UARCH_NATIVE_ANY, .arch_pmu = true };
	struct cpu_leaf7 l7 = { .n = f->present ? CPU_LEAF7_SUBLEAVES : 0 };
	memcpy(l7.r[0], f->r0, sizeof(f->r0));
	memcpy(l7.r[1], f->r1, sizeof(f->r1));
	uarch_identify(&q, &m);
	uarch_doubt(&q, &m, &l7, d);
	return m.event_set;
}

static void a_rocket_lake_signature_with_amx_is_doubted(void **state)
{
	(void)state;
	struct uarch_doubt d;
	struct fake_l7 f = { .present = true, .r0 = { 0, 0, 0, L7_EDX_AMX_TILE | L7_EDX_AVX512_FP16 } };
	/* Rocket Lake's model-specific events are another core's here: the architectural ones only. */
	assert_string_equal(doubt_of(VENDOR_INTEL, 6, 0xa7, &f, &d), "intel_arch");
	assert_non_null(d.feature);
	/* The file's first line that the CPU contradicts: AMX-TILE, EDX[24] of leaf 07H subleaf 0. */
	assert_string_equal(d.feature, "AMX-TILE");
	assert_int_equal(d.subleaf, 0);
	assert_int_equal(d.reg, 'd');
	assert_int_equal(d.bit, 24);
	assert_non_null(strstr(d.cores, "sapphirerapids"));
	assert_null(strstr(d.cores, "rocketlake"));
	/* Only AVX512-FP16: that line decides. */
	f.r0[3] = L7_EDX_AVX512_FP16;
	doubt_of(VENDOR_INTEL, 6, 0xa7, &f, &d);
	assert_string_equal(d.feature, "AVX512-FP16");
	/* AVX10 is in subleaf 1. */
	f.r0[3] = 0;
	f.r1[3] = L71_EDX_AVX10;
	doubt_of(VENDOR_INTEL, 6, 0x8f, &f, &d);
	assert_string_equal(d.feature, "AVX10");
	assert_int_equal(d.subleaf, 1);
	assert_int_equal(d.bit, 19);
}

static void the_cores_listed_with_a_feature_are_not_doubted(void **state)
{
	(void)state;
	struct uarch_doubt d;
	struct fake_l7 f = { .present = true, .r0 = { 0, 0, 0, L7_EDX_AMX_TILE | L7_EDX_AVX512_FP16 } };
	/* Sapphire Rapids (8FH), Emerald Rapids (CFH), Granite Rapids (ADH) have AMX and AVX512-FP16. */
	static const uint32_t models[] = { 0x8f, 0xcf, 0xad };
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		doubt_of(VENDOR_INTEL, 6, models[i], &f, &d);
		assert_null(d.feature);
	}
	/* Rocket Lake with only what it has (AVX-512F is not a line of Intel's): no doubt. */
	f.r0[1] = L7_EBX_AVX512F;
	f.r0[3] = 0;
	assert_string_equal(doubt_of(VENDOR_INTEL, 6, 0xa7, &f, &d), "rocketlake");
	assert_null(d.feature);
}

static void amd_lines_judge_amd_cores_only(void **state)
{
	(void)state;
	struct uarch_doubt d;
	struct fake_l7 f = { .present = true, .r0 = { 0, L7_EBX_AVX512F, 0, 0 } };
	/* Zen 3 (Family 19h model 01h) with AVX-512: a Zen 4 or later core under another model. */
	assert_string_equal(doubt_of(VENDOR_AMD, 0x19, 0x01, &f, &d), "amd_legacy");
	assert_non_null(d.feature);
	assert_string_equal(d.feature, "AVX512F");
	assert_int_equal(d.reg, 'b');
	/* Zen 4 (Family 19h model 61h) has it. */
	doubt_of(VENDOR_AMD, 0x19, 0x61, &f, &d);
	assert_null(d.feature);
	/* An Intel line does not judge an AMD core, nor AMD's an Intel one (AVX-512F on Skylake-SP). */
	f.r0[3] = L7_EDX_AMX_TILE;
	doubt_of(VENDOR_AMD, 0x19, 0x61, &f, &d);
	assert_null(d.feature);
	f.r0[3] = 0;
	doubt_of(VENDOR_INTEL, 6, 0x55, &f, &d);
	assert_null(d.feature);
}

static void a_fallback_or_a_missing_leaf_is_not_doubted(void **state)
{
	(void)state;
	struct uarch_doubt d;
	struct fake_l7 f = { .present = true, .r0 = { 0, 0, 0, L7_EDX_AMX_TILE } };
	/* Model F0H is no row's: the fallback names no core to contradict. */
	doubt_of(VENDOR_INTEL, 6, 0xf0, &f, &d);
	assert_null(d.feature);
	f.present = false;
	doubt_of(VENDOR_INTEL, 6, 0xa7, &f, &d);
	assert_null(d.feature);
}

/* Through cpu_identify on the fake CPU: the text line and the record's uarch_doubt. */
static void fake_intel(uint32_t sig, uint32_t ecx1, uint32_t l7_max, uint32_t l7_edx)
{
	fake_reset();
	/* "GenuineIntel": EBX "Genu", EDX "ineI", ECX "ntel". */
	fake_cpuid_set(0, 0, 0x1a, 0x756e6547, 0x6c65746e, 0x49656e69);
	fake_cpuid_flat(0);
	fake_cpuid_set(1, 0, sig, 0, ecx1, 0);
	fake_cpuid_flat(1);
	fake_cpuid_set(7, 0, l7_max, 0, 0, l7_edx);
	fake_cpuid_set(0x40000000, 0, 0x40000001, 0x4B4D564B, 0x564B4D56, 0x0000004D); /* "KVMKVMKVM" */
	fake_cpuid_flat(0x40000000);
}

#define CPUID1_ECX_HV (1u << 31)

static void the_record_and_the_text_say_it(void **state)
{
	(void)state;
	struct cpu_info ci;
	struct rec r;
	struct capture cap;

	fake_intel(0x000a0671, CPUID1_ECX_HV, 0, L7_EDX_AMX_TILE);
	capture_start(&cap);
	cpu_identify(&ci);
	cpu_report(&ci, &r);
	const char *c = capture_find(&cap, "cpu");
	assert_non_null(c);
	assert_non_null(strstr(c, "\"uarch_key\":\"rocketlake\""));
	/* No architectural PMU in this fake (leaf 0AH absent): no event set rather than Rocket Lake's. */
	assert_non_null(strstr(c, "\"event_set\":null"));
	assert_non_null(strstr(c, "\"uarch_doubt\":\"CPUID enumerates AMX-TILE (leaf 0x7 subleaf 0 EDX[24])"));
	assert_non_null(strstr(c, "the hypervisor reports a model number that is not its core's"));
	bool said = false;
	for (size_t i = 0; i < cap.n; i++)
		said |= cap.kinds[i] == OUT_TEXT && strstr(cap.lines[i], "cpu: DOUBT: CPUID enumerates AMX-TILE") &&
			strstr(cap.lines[i], "; event set none (no architectural PMU either)");
	assert_true(said);
	capture_free(&cap);

	/* Under an emulator there is no core behind the number at all. */
	fake_intel(0x000a0671, CPUID1_ECX_HV, 0, L7_EDX_AMX_TILE);
	fake_cpuid_set(0x40000000, 0, 0x40000001, 0x54474354, 0x43544743, 0x47435447); /* "TCGTCGTCGTCG" */
	cpu_identify(&ci);
	assert_int_equal(ci.exec, EXEC_EMULATED);
	assert_non_null(strstr(ci.uarch_doubt, "an emulator's CPUID, a model number with no such core behind it"));
	/* On bare metal the same contradiction is a part the table does not know. */
	fake_intel(0x000a0671, 0, 0, L7_EDX_AMX_TILE);
	cpu_identify(&ci);
	assert_non_null(strstr(ci.uarch_doubt, "a part this table does not know"));
	/* With an architectural PMU (CPUID.0AH version 5): its events only, said so. */
	fake_cpuid_set(0xa, 0, 0x07300805, 0, 0, 0x00000603);
	cpu_identify(&ci);
	assert_string_equal(ci.event_set, "intel_arch");
	assert_string_equal(ci.event_set_basis, "generic");
	assert_non_null(strstr(ci.event_set_note, "the model number is doubted"));
	/* Without the doubt, Rocket Lake's own set. */
	fake_intel(0x000a0671, 0, 0, 0);
	fake_cpuid_set(0xa, 0, 0x07300805, 0, 0, 0x00000603);
	cpu_identify(&ci);
	assert_string_equal(ci.event_set, "rocketlake");
	assert_null(ci.event_set_note);

	/* Subleaf 1 is read only where subleaf 0's EAX says it exists. */
	fake_intel(0x000806f8, 0, 0, 0);
	fake_cpuid_set(7, 1, 0, 0, 0, L71_EDX_AVX10);
	cpu_identify(&ci);
	assert_string_equal(ci.uarch_doubt, "");
	fake_intel(0x000806f8, 0, 1, 0);
	fake_cpuid_set(7, 1, 0, 0, 0, L71_EDX_AVX10);
	cpu_identify(&ci);
	assert_non_null(strstr(ci.uarch_doubt, "AVX10"));

	/* A Sapphire Rapids signature with AMX: nothing to doubt, and the record says null. */
	fake_intel(0x000806f8, CPUID1_ECX_HV, 0, L7_EDX_AMX_TILE);
	capture_start(&cap);
	cpu_identify(&ci);
	cpu_report(&ci, &r);
	c = capture_find(&cap, "cpu");
	assert_non_null(c);
	assert_non_null(strstr(c, "\"uarch_doubt\":null"));
	capture_free(&cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_rocket_lake_signature_with_amx_is_doubted),
		cmocka_unit_test(the_cores_listed_with_a_feature_are_not_doubted),
		cmocka_unit_test(amd_lines_judge_amd_cores_only),
		cmocka_unit_test(a_fallback_or_a_missing_leaf_is_not_doubted),
		cmocka_unit_test(the_record_and_the_text_say_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
