/*
 * platform/vec.h - the vector state: which XSAVE-managed state components the
 * run enables (XCR0), and which vector extensions that makes usable.
 *
 * Sources:
 *   [SDM1]  Intel SDM Vol. 1 §13.1 (state components and their XCR0 bits),
 *           §13.2 (CPUID.0DH.0 EDX:EAX: the bits XCR0 may hold), §13.3
 *           ("Enabling the XSAVE Feature Set and XSAVE-Enabled Features":
 *           CR4.OSXSAVE, XCR0[0] always 1, XCR0[2] needs XCR0[1], XCR0[7:5]
 *           all or none and only with XCR0[2:1] = 11b; AVX needs
 *           XCR0[2:1] = 11b, AVX-512 XCR0[7:5] = 111b, else #UD).
 *   [SDM3]  Vol. 3A §2.5 (CR4.OSXSAVE, bit 18), §2.6 (XCR0).
 *   [SDM2]  Vol. 2B XSETBV (#GP(0) on a reserved or unsupported bit, bit 0
 *           clear, bit 2 without bit 1), XGETBV (#UD while CR4.OSXSAVE = 0).
 *
 * The image (platform/metal/runtime.c, platform/metal/ap.c on every processor that runs a
 * pass) enables x87|SSE|AVX, and opmask|ZMM_Hi256|Hi16_ZMM where the CPU has
 * AVX-512F and supports all three, before anything runs, and puts CR4 and
 * XCR0 back at exit.  On Linux the OS has done it, and a process may not
 * (XSETBV is privileged): pmuboot-host only reads XCR0 (platform/hw.h
 * hw_vector_state).  vec_extensions() says what the code may use, on
 * every platform, from CPUID and that state.
 */
#ifndef PMUBOOT_PLATFORM_VEC_H
#define PMUBOOT_PLATFORM_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/hw.h"
#include "lib/x86/cpuid.h"

/* XCR0 bits: state components [SDM1 §13.1]. */
#define XCR0_X87		(1ull << 0)	/* always 1 */
#define XCR0_SSE		(1ull << 1)	/* XMM registers, MXCSR */
#define XCR0_AVX		(1ull << 2)	/* YMM_Hi128: upper halves of YMM0-15 */
#define XCR0_OPMASK		(1ull << 5)	/* k0-k7 */
#define XCR0_ZMM_HI256		(1ull << 6)	/* upper 256 bits of ZMM0-15 */
#define XCR0_HI16_ZMM		(1ull << 7)	/* ZMM16-31 */
#define XCR0_AVX512		(XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM)
/* CR4.OSXSAVE [SDM3 §2.5]. */
#define CR4_OSXSAVE		(1ull << 18)
/*
 * CPUID.(EAX=0DH,ECX=1):EAX, the XSAVE extensions: XSAVEOPT (bit 0), XSAVEC
 * (1), XGETBV with ECX=1 (2), XSAVES (3) [SDM2 CPUID leaf 0DH sub-leaf 1;
 * APM3 E.3.8 CPUID Fn0000_000D_EAX_x1].  0 on Bulldozer and Piledriver
 * (family 15h models 00h-1Fh, ../shared/cpuid-dumps Zambezi, Vishera);
 * Steamroller (30h, Kaveri) has XSAVEOPT.
 */
#define CPUID_XSAVE_SUBLEAF_EXT	1u

/* Vector extensions the code may execute (bits of vec_extensions()). */
enum vec_ext {
	VEC_AVX = 1u << 0,	/* CPUID.01H:ECX.AVX and XCR0[2:1] = 11b */
	VEC_AVX2 = 1u << 1,	/* and CPUID.07H.0:EBX.AVX2 */
	VEC_AVX512F = 1u << 2,	/* CPUID.07H.0:EBX.AVX512F and XCR0[7:5] = 111b, XCR0[2:1] = 11b */
};
#define VEC_EXT_COUNT 3
/* "avx", "avx2", "avx512f" for bit i; NULL past the last. */
static inline const char *vec_ext_name(unsigned i)
{
	static const char *const names[VEC_EXT_COUNT] = { "avx", "avx2", "avx512f" };
	return i < VEC_EXT_COUNT ? names[i] : NULL;
}

/* What CPUID (leaf 01H ECX, leaf 07H.0 EBX) and an XCR0 make usable [SDM1 §13.3]. */
static inline uint32_t vec_extensions_of(uint64_t xcr0, uint32_t cpuid1_ecx, uint32_t cpuid7_ebx)
{
	uint32_t e = 0;
	bool avx_state = (xcr0 & (XCR0_SSE | XCR0_AVX)) == (XCR0_SSE | XCR0_AVX);
	if (!(cpuid1_ecx & CPUID1_ECX_OSXSAVE) || !avx_state)
		return 0;
	if (cpuid1_ecx & CPUID1_ECX_AVX)
		e |= VEC_AVX;
	if ((e & VEC_AVX) && (cpuid7_ebx & CPUID7_EBX_AVX2))
		e |= VEC_AVX2;
	if ((cpuid7_ebx & CPUID7_EBX_AVX512F) && (xcr0 & XCR0_AVX512) == XCR0_AVX512)
		e |= VEC_AVX512F;
	return e;
}

/* The extensions usable on this processor now (0 where XCR0 is not known). */
static inline uint32_t vec_extensions(void)
{
	struct hw_vector_state v;
	struct cpuid_regs l0, l1, l7 = { 0, 0, 0, 0 };
	hw_vector_state(&v);
	if (!v.known)
		return 0;
	hw_cpuid(CPUID_LEAF_VENDOR, 0, &l0);
	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &l1);
	if (l0.eax >= CPUID_LEAF_EXT_FEATURES)
		hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &l7);
	return vec_extensions_of(v.xcr0, l1.ecx, l7.ebx);
}

/*
 * The XCR0 the run wants [SDM1 §13.3]: what was found (the firmware's
 * choices are kept) plus x87|SSE, plus AVX when the CPU has it and XCR0 may
 * hold it, plus all three AVX-512 components when the CPU has AVX-512F and
 * XCR0 may hold all of them (and AVX is on): never a bit outside supported.
 */
uint64_t vec_xcr0_wanted(uint64_t supported, uint64_t found, uint32_t cpuid1_ecx, uint32_t cpuid7_ebx);

/* One processor's vector state as found and as set, for restoring it. */
struct vec_state {
	bool done;		/* vec_enable ran: vec_restore has something to do */
	bool xsave;		/* CPUID.01H:ECX.XSAVE */
	uint64_t cr4_found;
	bool set_osxsave;	/* CR4.OSXSAVE was clear and the run set it */
	bool xcr0_read;		/* xcr0_found is valid */
	uint64_t xcr0_found, xcr0_supported, xcr0;	/* xcr0: in force after vec_enable */
	bool wrote_xcr0;
	const char *why;	/* what stopped the enabling part way, or NULL */
	const struct vec_state *prev;	/* the state in force before this one (an AP's pass nests in the run) */
};

/*
 * On this processor: CR4.OSXSAVE set where the CPU has XSAVE, XCR0 set to
 * vec_xcr0_wanted and read back.  Nothing is changed where XSAVE is absent,
 * nor under QEMU's TCG where setting CR4.OSXSAVE would never complete
 * (vec_osxsave_write_hangs; s->why says which).  A write the processor
 * refuses leaves what it had and says so in why.
 */
void vec_enable(struct vec_state *s);
/*
 * Whether MOV to CR4 with OSXSAVE set would never complete here: QEMU's TCG
 * (hypervisor bit and signature "TCGTCGTCGTCG") with XSAVE but
 * CPUID.(0DH,1):EAX = 0, as -cpu Opteron_G4 and Opteron_G5 are.  QEMU (6.1
 * and later, target/i386 cr4_reserved_bits) takes CR4.OSXSAVE for reserved
 * unless that word is non-zero, where [SDM3 §2.5] and APM Vol. 2 §3.1.3 make it depend on
 * CPUID.01H:ECX.XSAVE alone, and answers a reserved CR4 bit outside any
 * guest with an SVM #VMEXIT (SVM_EXIT_ERR) instead of #GP: no fault arrives
 * for hw_write_cr4 to absorb, and QEMU 7.2 retries the MOV for ever (RIP
 * stays on it, CR4 unchanged, interrupts never taken).  Real family 15h
 * processors and KVM take the bit.  l1_ecx: CPUID.01H:ECX; max_leaf: CPUID.00H:EAX.
 */
bool vec_osxsave_write_hangs(uint32_t max_leaf, uint32_t l1_ecx);
/* XCR0, then CR4, back as found (XCR0 first: XSETBV needs CR4.OSXSAVE). Safe to call twice. */
void vec_restore(struct vec_state *s);
/* The state vec_enable set last and has not been restored (NULL: none). */
const struct vec_state *vec_current(void);
/* s is the current state again: those enabled after it went with a processor that never came back. */
void vec_reclaim(const struct vec_state *s);

#endif
