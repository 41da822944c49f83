/*
 * platform/vec.c - enabling the vector state and giving it back; see vec.h.
 *
 * Portable logic over platform/hw_regs.h (CR4, XGETBV, XSETBV), so the unit
 * tests run it against the fake CPU, whose XSETBV refuses what the SDM says
 * the processor refuses.  The sequence [SDM Vol. 1 §13.3, Vol. 3A §2.6]:
 * CPUID.01H:ECX.XSAVE, else nothing (setting CR4.OSXSAVE there is #GP);
 * CR4.OSXSAVE on, except where QEMU's TCG would never finish the write
 * (vec_osxsave_write_hangs: -cpu Opteron_G4/G5 hung there before any
 * output); XCR0 read (valid only now); XCR0 written and read back.
 * Restore: XCR0 first (XSETBV needs CR4.OSXSAVE), then CR4.
 */
#include "platform/vec.h"
#include "platform/hw_regs.h"
#include "lib/libc.h"

static const struct vec_state *current;

const struct vec_state *vec_current(void) { return current; }
void vec_reclaim(const struct vec_state *s) { current = s; }

uint64_t vec_xcr0_wanted(uint64_t supported, uint64_t found, uint32_t cpuid1_ecx, uint32_t cpuid7_ebx)
{
	uint64_t want = (found & supported) | XCR0_X87 | (supported & XCR0_SSE);
	if ((cpuid1_ecx & CPUID1_ECX_AVX) && (want & XCR0_SSE) && (supported & XCR0_AVX))
		want |= XCR0_AVX;
	/* The three AVX-512 components go together, and only beside SSE and AVX [SDM1 §13.3]. */
	if ((cpuid7_ebx & CPUID7_EBX_AVX512F) && (supported & XCR0_AVX512) == XCR0_AVX512 && (want & XCR0_AVX))
		want |= XCR0_AVX512;
	return want;
}

bool vec_osxsave_write_hangs(uint32_t max_leaf, uint32_t l1_ecx)
{
	struct cpuid_regs hv, ext;
	if (!(l1_ecx & CPUID1_ECX_HYPERVISOR) || !(l1_ecx & CPUID1_ECX_XSAVE) || max_leaf < CPUID_LEAF_XSAVE)
		return false;
	char sig[CPUID_HV_SIG_LEN];
	hw_cpuid(CPUID_LEAF_HYPERVISOR, 0, &hv);
	memcpy(sig, &hv.ebx, 4);
	memcpy(sig + 4, &hv.ecx, 4);
	memcpy(sig + 8, &hv.edx, 4);
	if (memcmp(sig, CPUID_HV_SIG_TCG, CPUID_HV_SIG_LEN))
		return false;
	hw_cpuid(CPUID_LEAF_XSAVE, CPUID_XSAVE_SUBLEAF_EXT, &ext);
	return ext.eax == 0;
}

void vec_enable(struct vec_state *s)
{
	struct cpuid_regs l0, l1, l7 = { 0, 0, 0, 0 }, ld = { 0, 0, 0, 0 };
	uint64_t v;

	*s = (struct vec_state){ .done = true, .prev = current };
	current = s;
	hw_cpuid(CPUID_LEAF_VENDOR, 0, &l0);
	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &l1);
	if (l0.eax >= CPUID_LEAF_EXT_FEATURES)
		hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &l7);
	s->xsave = l1.ecx & CPUID1_ECX_XSAVE;
	if (!s->xsave || l0.eax < CPUID_LEAF_XSAVE) {
		s->why = !s->xsave ? "CPUID.01H:ECX.XSAVE clear: no XCR0, SSE only" : "CPUID leaf 0DH absent";
		return;
	}
	hw_cpuid(CPUID_LEAF_XSAVE, 0, &ld);
	s->xcr0_supported = ((uint64_t)ld.edx << 32) | ld.eax;
	s->cr4_found = hw_read_cr4();
	if (!(s->cr4_found & CR4_OSXSAVE)) {
		if (vec_osxsave_write_hangs(l0.eax, l1.ecx)) {
			s->why = "QEMU TCG takes CR4.OSXSAVE for reserved without CPUID.(0DH,1):EAX "
				 "(XSAVEOPT..XSAVES), and setting it never completes: left clear, SSE only";
			return;
		}
		if (hw_write_cr4(s->cr4_found | CR4_OSXSAVE) != HW_OK) {
			s->why = "setting CR4.OSXSAVE faulted";
			return;
		}
		s->set_osxsave = true;
	}
	if (hw_xgetbv0(&v) != HW_OK) {
		s->why = "XGETBV faulted with CR4.OSXSAVE set";
		return;
	}
	s->xcr0_read = true;
	s->xcr0_found = s->xcr0 = v;
	uint64_t want = vec_xcr0_wanted(s->xcr0_supported, v, l1.ecx, l7.ebx);
	if (want != v) {
		if (hw_xsetbv0(want) != HW_OK) {
			s->why = "XSETBV refused the value (#GP): XCR0 left as found";
			return;
		}
		s->wrote_xcr0 = true;
		if (hw_xgetbv0(&v) != HW_OK || v != want)
			s->why = "XCR0 did not read back as written";
		s->xcr0 = v;
	}
}

void vec_restore(struct vec_state *s)
{
	if (!s->done)
		return;
	if (s->wrote_xcr0 && hw_xsetbv0(s->xcr0_found) == HW_OK)
		s->wrote_xcr0 = false;
	if (s->set_osxsave && hw_write_cr4(hw_read_cr4() & ~CR4_OSXSAVE) == HW_OK)
		s->set_osxsave = false;
	s->done = false;
	if (current == s)
		current = s->prev;
}
