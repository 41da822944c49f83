/*
 * platform/vec.c against the fake CPU: which XCR0 the run sets (CPUID.0DH's
 * supported mask, AVX, AVX-512F), CR4.OSXSAVE set only where XSAVE exists,
 * nothing touched without it nor where QEMU's TCG would hang on the CR4 write
 * (-cpu Opteron_G4/G5, issue 30), a refused XSETBV, and the restore (XCR0 back
 * before CR4, both as found).  The fake's XSETBV refuses what the SDM says a
 * processor refuses, so a wrong value fails these tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "platform/vec.h"
#include "tests/fake/hw_fake.h"

#define CR4_FIRMWARE 0x668ull	/* OSFXSR, OSXMMEXCPT and a few others, as EDK2 leaves it: no OSXSAVE */
#define XSAVE_AVX (CPUID1_ECX_XSAVE | CPUID1_ECX_AVX)

/* A CPU: leaf 0 max 0DH, leaf 1 ECX, leaf 7 EBX, leaf 0DH.0 supported mask. */
static void cpu(uint32_t ecx1, uint32_t ebx7, uint64_t supported)
{
	fake_reset();
	fake_cpuid_set(CPUID_LEAF_VENDOR, 0, CPUID_LEAF_XSAVE, 0, 0, 0);
	/* CPUID.01H:ECX.OSXSAVE follows CR4 on a real CPU; platform/vec.c never reads it, vec_extensions does. */
	fake_cpuid_set(CPUID_LEAF_SIGNATURE, 0, 0, 0, ecx1, 0);
	fake_cpuid_set(CPUID_LEAF_EXT_FEATURES, 0, 0, ebx7, 0, 0);
	fake_cpuid_set(CPUID_LEAF_XSAVE, 0, (uint32_t)supported, 0, 0, (uint32_t)(supported >> 32));
	fake_cr4_set(CR4_FIRMWARE);
	fake_xcr0_set(XCR0_X87 | XCR0_SSE);	/* what the firmware leaves */
}

static size_t count_events(enum fake_event_kind kind)
{
	size_t n = 0;
	for (size_t i = 0; i < fake_event_count(); i++)
		n += fake_event_at(i)->kind == kind;
	return n;
}

static void wanted_follows_cpuid(void **state)
{
	(void)state;
	/* Zen 4/5 support 0x2E7 (PKRU included); the run adds AVX and AVX-512, never PKRU it did not find. */
	assert_int_equal(vec_xcr0_wanted(0x2e7, 0x3, XSAVE_AVX, CPUID7_EBX_AVX512F), 0xe7);
	/* Alder/Raptor Lake: 0x207, no AVX-512 state. */
	assert_int_equal(vec_xcr0_wanted(0x207, 0x3, XSAVE_AVX, CPUID7_EBX_AVX2), 0x7);
	/* AVX-512 state supported but no AVX512F instructions: the state stays off. */
	assert_int_equal(vec_xcr0_wanted(0xe7, 0x3, XSAVE_AVX, 0), 0x7);
	/* Only two of the three AVX-512 components: none (XCR0[7:5] is all or nothing). */
	assert_int_equal(vec_xcr0_wanted(0x67, 0x3, XSAVE_AVX, CPUID7_EBX_AVX512F), 0x7);
	/* No AVX instructions: x87|SSE, even where the AVX state bit is supported. */
	assert_int_equal(vec_xcr0_wanted(0x7, 0x1, CPUID1_ECX_XSAVE, 0), 0x3);
	/* AVX-512F without AVX state cannot be enabled (XCR0[7:5] needs XCR0[2:1] = 11b). */
	assert_int_equal(vec_xcr0_wanted(0xe3, 0x3, CPUID1_ECX_XSAVE, CPUID7_EBX_AVX512F), 0x3);
	/* What the firmware enabled stays (PKRU found on): the run only adds. */
	assert_int_equal(vec_xcr0_wanted(0x2e7, 0x203, XSAVE_AVX, CPUID7_EBX_AVX512F), 0x2e7);
}

static void enable_sets_osxsave_then_xcr0_and_restore_undoes_both(void **state)
{
	(void)state;
	struct vec_state s;
	cpu(XSAVE_AVX, CPUID7_EBX_AVX2 | CPUID7_EBX_AVX512F, 0x2e7);
	vec_enable(&s);
	assert_null(s.why);
	assert_true(s.set_osxsave && s.wrote_xcr0 && s.xcr0_read);
	assert_int_equal(fake_cr4(), CR4_FIRMWARE | CR4_OSXSAVE);
	assert_int_equal(fake_xcr0(), 0xe7);
	assert_int_equal(s.xcr0, 0xe7);
	assert_int_equal(s.xcr0_found, 0x3);
	assert_ptr_equal(vec_current(), &s);
	/* CR4 first, then XSETBV: the order the SDM requires (XSETBV #UDs while OSXSAVE is clear). */
	assert_int_equal(fake_event_at(0)->kind, FAKE_EV_CR4_W);
	assert_int_equal(fake_event_at(1)->kind, FAKE_EV_XSETBV);
	/* What the code may now use, from CPUID and the XCR0 in force (OSXSAVE as the CPU would show it). */
	fake_cpuid_set(CPUID_LEAF_SIGNATURE, 0, 0, 0, XSAVE_AVX | CPUID1_ECX_OSXSAVE, 0);
	assert_int_equal(vec_extensions(), VEC_AVX | VEC_AVX2 | VEC_AVX512F);

	vec_restore(&s);
	assert_int_equal(fake_xcr0(), 0x3);
	assert_int_equal(fake_cr4(), CR4_FIRMWARE);
	/* XCR0 back before CR4.OSXSAVE is cleared. */
	assert_int_equal(fake_event_at(2)->kind, FAKE_EV_XSETBV);
	assert_int_equal(fake_event_at(2)->value, 0x3);
	assert_int_equal(fake_event_at(3)->kind, FAKE_EV_CR4_W);
	assert_null(vec_current());
	/* Twice is harmless: nothing more is written. */
	size_t n = fake_event_count();
	vec_restore(&s);
	assert_int_equal(fake_event_count(), n);
}

static void osxsave_already_set_is_kept(void **state)
{
	(void)state;
	struct vec_state s;
	cpu(XSAVE_AVX, CPUID7_EBX_AVX2, 0x207);
	fake_cr4_set(CR4_FIRMWARE | CR4_OSXSAVE);
	vec_enable(&s);
	assert_false(s.set_osxsave);
	assert_int_equal(count_events(FAKE_EV_CR4_W), 0);
	assert_int_equal(fake_xcr0(), 0x7);	/* no AVX-512 state on this part */
	vec_restore(&s);
	assert_int_equal(fake_xcr0(), 0x3);
	assert_int_equal(fake_cr4(), CR4_FIRMWARE | CR4_OSXSAVE);	/* left set, as found */
	assert_int_equal(count_events(FAKE_EV_CR4_W), 0);
}

static void nothing_to_do_when_already_enabled(void **state)
{
	(void)state;
	struct vec_state s;
	cpu(XSAVE_AVX, 0, 0x7);
	fake_cr4_set(CR4_FIRMWARE | CR4_OSXSAVE);
	fake_xcr0_set(0x7);
	vec_enable(&s);
	assert_false(s.wrote_xcr0);
	assert_int_equal(fake_event_count(), 0);
	vec_restore(&s);
	assert_int_equal(fake_event_count(), 0);
	assert_int_equal(fake_xcr0(), 0x7);
}

static void no_xsave_touches_nothing(void **state)
{
	(void)state;
	struct vec_state s;
	cpu(0, 0, 0);
	vec_enable(&s);
	assert_non_null(s.why);
	assert_non_null(strstr(s.why, "XSAVE clear"));
	assert_false(s.set_osxsave);
	assert_int_equal(fake_event_count(), 0);
	assert_int_equal(fake_cr4(), CR4_FIRMWARE);
	/* Nothing usable beyond SSE: XCR0 cannot even be read. */
	assert_int_equal(vec_extensions(), 0);
	vec_restore(&s);
	assert_int_equal(fake_event_count(), 0);
}

static void a_refused_xsetbv_leaves_xcr0_as_found(void **state)
{
	(void)state;
	struct vec_state s;
	/* CPUID claims AVX-512F, but leaf 0DH supports only x87|SSE: AVX cannot be set, nothing is written. */
	cpu(XSAVE_AVX, CPUID7_EBX_AVX512F, 0x3);
	vec_enable(&s);
	assert_false(s.wrote_xcr0);
	assert_int_equal(fake_xcr0(), 0x3);
	vec_restore(&s);
	assert_int_equal(fake_cr4(), CR4_FIRMWARE);

	/* A processor that refuses a value its CPUID offered (a hypervisor's): #GP absorbed, said so, XCR0 as found. */
	cpu(XSAVE_AVX, 0, 0x7);
	fake_xsetbv_accepts(0x3);
	vec_enable(&s);
	assert_non_null(s.why);
	assert_non_null(strstr(s.why, "XSETBV refused"));
	assert_false(s.wrote_xcr0);
	assert_int_equal(fake_xcr0(), 0x3);
	assert_int_equal(count_events(FAKE_EV_XSETBV), 0);
	vec_restore(&s);
	assert_int_equal(fake_cr4(), CR4_FIRMWARE);	/* OSXSAVE, which the run set, cleared again */
}

static void an_ap_pass_nests_in_the_run(void **state)
{
	(void)state;
	struct vec_state boot, ap;
	cpu(XSAVE_AVX, 0, 0x7);
	vec_enable(&boot);
	fake_xcr0_set(0x3);	/* another processor, as the firmware left it */
	fake_cr4_set(CR4_FIRMWARE);
	vec_enable(&ap);
	assert_ptr_equal(vec_current(), &ap);
	assert_ptr_equal(ap.prev, &boot);
	vec_restore(&ap);
	assert_ptr_equal(vec_current(), &boot);
	/* A processor that never came back: its state is forgotten, the boot CPU's is current again. */
	vec_enable(&ap);
	vec_reclaim(&boot);
	assert_ptr_equal(vec_current(), &boot);
	vec_restore(&boot);
	assert_null(vec_current());
}

/*
 * CPUID as QEMU 7.2's TCG reports -cpu Opteron_G4 (read from the hung guest's stack): leaf 1 ECX with
 * XSAVE, AVX and the hypervisor bit, leaf 0DH.0 x87|SSE|AVX, leaf 0DH.1 EAX 0 (no XSAVEOPT), and the
 * hypervisor leaf's signature hv (EBX, ECX, EDX).
 */
#define OPTERON_G4_ECX1 0x96982203u
#define SUPPORTED_BULLDOZER 0x4000000000000007ull	/* Zambezi's leaf 0DH.0: x87|SSE|AVX and LWP (bit 62) */
static void family15h(uint32_t ecx1, uint64_t supported, uint32_t xsave_ext, uint32_t hv_ebx, uint32_t hv_ecx,
		      uint32_t hv_edx)
{
	cpu(ecx1, 0, supported);
	fake_cpuid_set(CPUID_LEAF_XSAVE, CPUID_XSAVE_SUBLEAF_EXT, xsave_ext, 0, 0, 0);
	fake_cpuid_set(CPUID_LEAF_HYPERVISOR, 0, CPUID_LEAF_HYPERVISOR, hv_ebx, hv_ecx, hv_edx);
}
/* "TCGTCGTCGTCG" as leaf 4000_0000h returns it in EBX, ECX, EDX (little-endian words of lib/x86/cpuid.h CPUID_HV_SIG_TCG). */
#define TCG_SIG 0x54474354u, 0x43544743u, 0x47435447u
#define KVM_SIG 0x4b4d564bu, 0x564b4d56u, 0x0000004du	/* "KVMKVMKVM\0\0\0" */

static void tcg_without_xsave_ext_leaves_osxsave_clear(void **state)
{
	(void)state;
	struct vec_state s;
	/* QEMU's TCG would spin on the MOV to CR4 for ever (issue 30): it must not be attempted. */
	family15h(OPTERON_G4_ECX1, 0x7, 0, TCG_SIG);
	assert_true(vec_osxsave_write_hangs(CPUID_LEAF_XSAVE, OPTERON_G4_ECX1));
	vec_enable(&s);
	assert_int_equal(count_events(FAKE_EV_CR4_W), 0);
	assert_int_equal(fake_cr4(), CR4_FIRMWARE);
	assert_false(s.set_osxsave || s.wrote_xcr0 || s.xcr0_read);
	assert_non_null(s.why);
	assert_non_null(strstr(s.why, "QEMU TCG"));
	assert_non_null(strstr(s.why, "SSE only"));
	assert_int_equal(vec_extensions(), 0);
	vec_restore(&s);
	assert_int_equal(fake_event_count(), 0);
	assert_int_equal(fake_cr4(), CR4_FIRMWARE);

	/* Already set by someone else: no write is needed, and the run goes on to XCR0. */
	family15h(OPTERON_G4_ECX1, 0x7, 0, TCG_SIG);
	fake_cr4_set(CR4_FIRMWARE | CR4_OSXSAVE);
	vec_enable(&s);
	assert_null(s.why);
	assert_int_equal(count_events(FAKE_EV_CR4_W), 0);
	assert_int_equal(fake_xcr0(), 0x7);
	vec_restore(&s);
}

static void family15h_elsewhere_gets_avx_state(void **state)
{
	(void)state;
	struct vec_state s;
	/* A real Bulldozer (no hypervisor; leaf 0DH.1 EAX 0, LWP supported): OSXSAVE set, AVX on, LWP not added. */
	family15h(OPTERON_G4_ECX1 & ~CPUID1_ECX_HYPERVISOR, SUPPORTED_BULLDOZER, 0, 0, 0, 0);
	assert_false(vec_osxsave_write_hangs(CPUID_LEAF_XSAVE, OPTERON_G4_ECX1 & ~CPUID1_ECX_HYPERVISOR));
	vec_enable(&s);
	assert_null(s.why);
	assert_true(s.set_osxsave);
	assert_int_equal(fake_xcr0(), 0x7);
	vec_restore(&s);
	assert_int_equal(fake_cr4(), CR4_FIRMWARE);
	/* The same CPU under KVM, which takes the bit by CPUID.01H:ECX.XSAVE. */
	family15h(OPTERON_G4_ECX1, 0x7, 0, KVM_SIG);
	vec_enable(&s);
	assert_null(s.why);
	assert_true(s.set_osxsave);
	vec_restore(&s);
	/* TCG with XSAVEOPT (-cpu Opteron_G4,+xsaveopt, EPYC, the Intel models): QEMU takes the bit. */
	family15h(OPTERON_G4_ECX1, 0x7, 1, TCG_SIG);
	vec_enable(&s);
	assert_null(s.why);
	assert_true(s.set_osxsave);
	assert_int_equal(fake_xcr0(), 0x7);
	vec_restore(&s);
	/* No XSAVE at all: the XSAVE rule decides, not this one. */
	assert_false(vec_osxsave_write_hangs(CPUID_LEAF_XSAVE, CPUID1_ECX_HYPERVISOR));
}

static void extensions_need_state_and_cpuid(void **state)
{
	(void)state;
	uint32_t osx = CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX;
	assert_int_equal(vec_extensions_of(0x7, osx, CPUID7_EBX_AVX2), VEC_AVX | VEC_AVX2);
	/* The OS did not enable AVX state: no AVX, whatever CPUID says. */
	assert_int_equal(vec_extensions_of(0x3, osx, CPUID7_EBX_AVX2 | CPUID7_EBX_AVX512F), 0);
	/* OSXSAVE clear: XCR0 is meaningless. */
	assert_int_equal(vec_extensions_of(0xe7, CPUID1_ECX_AVX, CPUID7_EBX_AVX512F), 0);
	/* AVX-512 instructions without the opmask/ZMM state: not usable. */
	assert_int_equal(vec_extensions_of(0x7, osx, CPUID7_EBX_AVX512F), VEC_AVX);
	assert_int_equal(vec_extensions_of(0xe7, osx, CPUID7_EBX_AVX512F), VEC_AVX | VEC_AVX512F);
	assert_string_equal(vec_ext_name(2), "avx512f");
	assert_null(vec_ext_name(VEC_EXT_COUNT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wanted_follows_cpuid),
		cmocka_unit_test(enable_sets_osxsave_then_xcr0_and_restore_undoes_both),
		cmocka_unit_test(osxsave_already_set_is_kept),
		cmocka_unit_test(nothing_to_do_when_already_enabled),
		cmocka_unit_test(no_xsave_touches_nothing),
		cmocka_unit_test(a_refused_xsetbv_leaves_xcr0_as_found),
		cmocka_unit_test(an_ap_pass_nests_in_the_run),
		cmocka_unit_test(tcg_without_xsave_ext_leaves_osxsave_clear),
		cmocka_unit_test(family15h_elsewhere_gets_avx_state),
		cmocka_unit_test(extensions_need_state_and_cpuid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
