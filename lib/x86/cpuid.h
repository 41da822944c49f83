/*
 * lib/x86/cpuid.h - CPUID leaves, the processor signature and how the code runs.
 *
 * Sources:
 *   [SDM2]  Intel SDM Vol. 2A, CPUID instruction: Table 3-8 (the leaves),
 *           leaf 01H "Version Information" (Figure 3-6, EAX) and "Feature
 *           Information" (Tables 3-10 ECX, 3-11 EDX).
 *   [APM3]  AMD APM Vol. 3, Appendix E "Obtaining Processor Information Via
 *           the CPUID Instruction": E.3.1 (Fn0000_0000), E.3.2 (Fn0000_0001).
 *   [HV]    the hypervisor range 4000_0000h: CPUID.1:ECX[31] is set by every
 *           hypervisor and leaf 4000_0000h EBX:ECX:EDX names its vendor
 *           ([SDM2] Table 3-10 lists bit 31 as reserved; Linux's
 *           arch/x86/include/asm/cpufeatures.h X86_FEATURE_HYPERVISOR and
 *           each vendor's documentation give the convention).
 *
 * Header-only and freestanding: platform/ (timing, the window) and cpu/
 * (identification) decode the signature with the same code.
 */
#ifndef PMUBOOT_LIB_X86_CPUID_H
#define PMUBOOT_LIB_X86_CPUID_H

#include <stdbool.h>
#include <stdint.h>

/* Leaves [SDM2 Table 3-8; APM3 E.3, E.4]. */
#define CPUID_LEAF_VENDOR		0x00000000u	/* EAX max leaf, EBX:EDX:ECX vendor */
#define CPUID_LEAF_SIGNATURE		0x00000001u	/* EAX signature, ECX/EDX feature flags */
#define CPUID_LEAF_EXT_FEATURES		0x00000007u	/* subleaf 0: structured extended features */
#define CPUID_LEAF_ARCH_PERFMON		0x0000000Au	/* Intel architectural performance monitoring */
#define CPUID_LEAF_NATIVE_MODEL		0x0000001Au	/* Intel hybrid: core type, native model ID */
#define CPUID_LEAF_HYPERVISOR		0x40000000u	/* [HV] hypervisor vendor; valid when CPUID1_ECX_HYPERVISOR */
/* QEMU's TCG names itself so in leaf 4000_0000h EBX:ECX:EDX [HV]: the one spelling of it. */
#define CPUID_HV_SIG_TCG		"TCGTCGTCGTCG"
#define CPUID_HV_SIG_LEN		12u
#define CPUID_LEAF_POWER		0x00000006u	/* thermal and power management */
#define CPUID_LEAF_EXT_TOPOLOGY		0x0000000Bu	/* Intel extended topology (x2APIC ID, SMT and core levels) */
#define CPUID_LEAF_PERFMON_EXT		0x00000023u	/* Intel architectural PerfMon extended leaf */
#define CPUID_LEAF_AVX10		0x00000024u	/* subleaf 0: EBX[7:0] the AVX10 version (Intel AVX10 Architecture Spec., CPUID) */
#define CPUID24_EBX_AVX10_VERSION	0x000000FFu
#define CPUID7_1_EDX_AVX10		(1u << 19)	/* CPUID.(EAX=07H,ECX=1):EDX[19]: AVX10 (leaf 24H is valid) */
#define CPUID_LEAF_XSAVE		0x0000000Du	/* subleaf 0: EDX:EAX the XCR0 bits supported (SDM Vol. 1 §13.2) */
#define CPUID_LEAF_AMD_FEATURES		0x80000001u	/* [APM3] E.4.2 Fn8000_0001: extended features */
#define CPUID_LEAF_AMD_IBS		0x8000001Bu	/* [APM3] E.4.13 Fn8000_001B: IBS capability flags */
#define CPUID_LEAF_AMD_PERFMON		0x80000022u	/* [APM3] Fn8000_0022: PerfMonV2 counter counts */
#define CPUID_LEAF_EXT_MAX		0x80000000u	/* EAX: highest extended leaf */
#define CPUID_LEAF_CENTAUR_MAX		0xC0000000u	/* EAX: highest Centaur/VIA leaf (VIA PadLock Programming Guide, 2005, §2) */
#define CPUID_LEAF_EXT_POWER		0x80000007u	/* [APM3] E.4.6 Fn8000_0007: power management (Intel: invariant TSC) */
#define CPUID_LEAF_EXT_CAPACITY		0x80000008u	/* [APM3] E.4.7 Fn8000_0008: address sizes, EBX feature flags */
#define CPUID_LEAF_BRAND0		0x80000002u	/* 80000002h..80000004h: brand string, 16 bytes each */
#define CPUID_LEAF_BRAND2		0x80000004u
/* Cache and TLB enumeration [SDM2 Table 3-8 leaves 02H, 04H, 18H; APM3 E.4.4, E.4.5, E.4.14, E.4.17]. */
#define CPUID_LEAF_CACHE_DESC		0x00000002u	/* Intel: one-byte cache/TLB descriptors (SDM2 Table 3-12) */
#define CPUID_LEAF_CACHE_PARAMS		0x00000004u	/* Intel: deterministic cache parameters, subleaf per cache */
#define CPUID_LEAF_TLB_PARAMS		0x00000018u	/* Intel: deterministic address translation, subleaf per TLB */
#define CPUID_LEAF_AMD_L1_CACHE_TLB	0x80000005u	/* [APM3] E.4.4 Fn8000_0005: L1 caches and L1 TLBs */
#define CPUID_LEAF_AMD_L2_L3_CACHE_TLB	0x80000006u	/* [APM3] E.4.5 Fn8000_0006: L2/L3 caches and L2 TLBs */
#define CPUID_LEAF_AMD_TLB_1G		0x80000019u	/* [APM3] E.4.14 Fn8000_0019: 1 GiB page TLBs */
#define CPUID_LEAF_AMD_CACHE_TOPOLOGY	0x8000001Du	/* [APM3] E.4.17 Fn8000_001D: cache topology, subleaf per cache */

/* CPUID.01H:ECX and EDX flags [SDM2 Tables 3-10, 3-11]. */
#define CPUID1_ECX_MONITOR		(1u << 3)	/* MONITOR/MWAIT */
#define CPUID1_ECX_TM2			(1u << 8)	/* Thermal Monitor 2 (IA32_THERM_STATUS thresholds) */
#define CPUID1_ECX_EIST			(1u << 7)	/* Enhanced Intel SpeedStep: IA32_PERF_CTL present */
#define CPUID1_ECX_PDCM			(1u << 15)	/* IA32_PERF_CAPABILITIES present */
#define CPUID1_ECX_TSC_DEADLINE		(1u << 24)	/* APIC timer TSC-deadline mode */
#define CPUID1_ECX_XSAVE		(1u << 26)	/* XSAVE/XRSTOR, XSETBV/XGETBV and XCR0 exist (SDM Vol. 3A §2.6) */
#define CPUID1_ECX_OSXSAVE		(1u << 27)	/* a copy of CR4.OSXSAVE: XGETBV usable (SDM Vol. 1 §13.3) */
#define CPUID1_ECX_AVX			(1u << 28)	/* AVX instructions */
#define CPUID1_ECX_HYPERVISOR		(1u << 31)	/* [HV] running under a hypervisor */
#define CPUID1_EDX_APIC			(1u << 9)	/* on-chip local APIC */
#define CPUID1_EDX_ACPI			(1u << 22)	/* thermal monitor and clock control MSRs (IA32_THERM_STATUS) */

/* Other leaves' fields [SDM2 CPUID; APM3 E.4]. */
#define CPUID6_ECX_APERFMPERF		(1u << 0)	/* 06H:ECX[0] IA32_MPERF/IA32_APERF (AMD EffFreq) */
#define CPUID6_EAX_PLN			(1u << 4)	/* 06H:EAX[4] power limit notification */
#define CPUID6_EAX_PTM			(1u << 6)	/* 06H:EAX[6] package thermal management */
#define CPUID6_EAX_HWP			(1u << 7)	/* 06H:EAX[7] HWP base registers */
#define CPUID6_EAX_HFI			(1u << 19)	/* 06H:EAX[19] hardware feedback interface */
#define CPUID6_EAX_TURBO		(1u << 1)	/* 06H:EAX[1] Turbo Boost available (0 when firmware disabled it) */
#define CPUID_EXT_POWER_EDX_HW_PSTATE	(1u << 7)	/* Fn8000_0007_EDX[7] P-state control MSRs C001_0061..63 */
#define CPUID_EXT_POWER_EDX_INVARIANT_TSC (1u << 8)	/* Fn8000_0007_EDX[8] (Intel: 80000007H EDX[8]) */
#define CPUID_EXT_POWER_EDX_CPB		(1u << 9)	/* Fn8000_0007_EDX[9] core performance boost */
#define CPUID_EXT_CAPACITY_EBX_CPPC	(1u << 27)	/* Fn8000_0008_EBX[27] CPPC MSRs (Linux X86_FEATURE_CPPC) */
#define CPUID7_EDX_HYBRID		(1u << 15)	/* 07H.0:EDX[15] hybrid part: leaf 1AH per core */
#define CPUID7_EBX_AVX2			(1u << 5)	/* 07H.0:EBX[5] AVX2 */
#define CPUID7_EBX_AVX512F		(1u << 16)	/* 07H.0:EBX[16] AVX-512 Foundation */
#define CPUID0A_VERSION(eax)		((uint8_t)((eax) & 0xffu))	/* 0AH:EAX[7:0] PMU version ID */
#define CPUID1A_CORE_TYPE(eax)		((uint8_t)((eax) >> 24))	/* 1AH:EAX[31:24] core type */
#define CPUID1A_NATIVE_MODEL(eax)	((eax) & 0xffffffu)		/* 1AH:EAX[23:0] native model ID */
#define CPUID_AMD1_ECX_IBS		(1u << 10)	/* Fn8000_0001_ECX[10] IBS */
#define CPUID_AMD1_ECX_TOPOEXT		(1u << 22)	/* Fn8000_0001_ECX[22] TopologyExtensions: Fn8000_001D valid */
#define CPUID_EXT1_EDX_PAGE1GB		(1u << 26)	/* 80000001H:EDX[26] 1 GiB pages (SDM2 Table 3-8; APM3 Page1GB) */

/* CPUID.00H vendor strings as EBX, EDX, ECX hold them [SDM2; APM3 E.3.1]. */
#define CPUID_VENDOR_INTEL_EBX		0x756e6547u	/* "Genu" */
#define CPUID_VENDOR_INTEL_EDX		0x49656e69u	/* "ineI" */
#define CPUID_VENDOR_INTEL_ECX		0x6c65746eu	/* "ntel" */
#define CPUID_VENDOR_AMD_EBX		0x68747541u	/* "Auth" */
#define CPUID_VENDOR_AMD_EDX		0x69746e65u	/* "enti" */
#define CPUID_VENDOR_AMD_ECX		0x444d4163u	/* "cAMD" */
#define CPUID_VENDOR_HYGON_EBX		0x6f677948u	/* "Hygo" */
#define CPUID_VENDOR_HYGON_EDX		0x6e65476eu	/* "nGen" */
#define CPUID_VENDOR_HYGON_ECX		0x656e6975u	/* "uine" */

static inline bool cpuid_vendor_is_intel(uint32_t ebx, uint32_t edx, uint32_t ecx)
{
	return ebx == CPUID_VENDOR_INTEL_EBX && edx == CPUID_VENDOR_INTEL_EDX && ecx == CPUID_VENDOR_INTEL_ECX;
}

/* AMD and Hygon (a Zen licensee) decode the signature the AMD way. */
static inline bool cpuid_vendor_is_amd_like(uint32_t ebx, uint32_t edx, uint32_t ecx)
{
	return (ebx == CPUID_VENDOR_AMD_EBX && edx == CPUID_VENDOR_AMD_EDX && ecx == CPUID_VENDOR_AMD_ECX) ||
	       (ebx == CPUID_VENDOR_HYGON_EBX && edx == CPUID_VENDOR_HYGON_EDX && ecx == CPUID_VENDOR_HYGON_ECX);
}

/* CPUID.01H:EAX, the processor signature [SDM2 Figure 3-6; APM3 E.3.2 Fn0000_0001_EAX]. */
#define CPUID_SIG_STEPPING(s)		((s) & 0xfu)		/* bits 3:0 */
#define CPUID_SIG_MODEL(s)		(((s) >> 4) & 0xfu)	/* bits 7:4 */
#define CPUID_SIG_FAMILY(s)		(((s) >> 8) & 0xfu)	/* bits 11:8 */
#define CPUID_SIG_EXT_MODEL(s)		(((s) >> 16) & 0xfu)	/* bits 19:16 */
#define CPUID_SIG_EXT_FAMILY(s)		(((s) >> 20) & 0xffu)	/* bits 27:20 */
#define CPUID_FAMILY_USES_EXT_FAMILY	0xfu	/* base family 0Fh adds the extended family (both vendors) */
#define CPUID_FAMILY_INTEL_P6		0x6u	/* Intel adds the extended model for family 06h as well */

struct cpuid_signature {
	uint32_t family, model, stepping;	/* display values, extended fields applied */
};

/*
 * The display family, model and stepping.  Family: base + extended family
 * when the base is 0Fh.  Model: extended model << 4 added when the base
 * family is 0Fh, and on Intel (and by [SDM2] Figure 3-6's rule for others) also when
 * it is 06h; AMD and Hygon apply it only with 0Fh [APM3 E.3.2].
 */
static inline struct cpuid_signature cpuid_decode_signature(uint32_t eax, bool amd_like)
{
	struct cpuid_signature s = { CPUID_SIG_FAMILY(eax), CPUID_SIG_MODEL(eax), CPUID_SIG_STEPPING(eax) };
	bool base_f = CPUID_SIG_FAMILY(eax) == CPUID_FAMILY_USES_EXT_FAMILY;
	if (base_f)
		s.family += CPUID_SIG_EXT_FAMILY(eax);
	if (base_f || (!amd_like && CPUID_SIG_FAMILY(eax) == CPUID_FAMILY_INTEL_P6))
		s.model += CPUID_SIG_EXT_MODEL(eax) << 4;
	return s;
}

/*
 * How this code runs, decided once, by identification (cpu/cpu.c),
 * from CPUID.1:ECX[31] and the hypervisor's vendor signature:
 *   bare metal   no hypervisor bit: times are the silicon's;
 *   virtualised  hardware virtualisation (KVM, Hyper-V, VMware, Xen, ...):
 *                the instructions run on the real core, so times are
 *                silicon's, with the hypervisor's interruptions;
 *   emulated     an emulator interprets or translates the code (QEMU TCG):
 *                times and clocks mean nothing about any silicon.
 */
enum cpu_exec {
	EXEC_BARE_METAL,
	EXEC_VIRTUALISED,
	EXEC_EMULATED,
};

/* The name in records: "bare_metal", "virtualised" or "emulated". */
static inline const char *cpu_exec_name(enum cpu_exec e)
{
	return e == EXEC_EMULATED ? "emulated" : e == EXEC_VIRTUALISED ? "virtualised" : "bare_metal";
}

#endif
