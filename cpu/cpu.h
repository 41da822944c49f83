/*
 * cpu/cpu.h - processor identification.
 *
 * Everything is derived from CPUID (through platform/hw.h) so the same code
 * identifies the CPU in the image, on the host, and from a CPUID dump; the
 * microcode revision is the one MSR read (safely).  The microarchitecture
 * comes from the table cpu/uarch.csv (cpu/uarch.h); a CPU the table
 * does not know is reported with its raw numbers and a family-level
 * fallback, marked so.
 */
#ifndef PMUBOOT_CPU_CPU_H
#define PMUBOOT_CPU_CPU_H

#include "lib/libc.h"
#include "lib/record.h"
#include "lib/x86/cpuid.h"

enum cpu_vendor { VENDOR_UNKNOWN, VENDOR_INTEL, VENDOR_AMD, VENDOR_HYGON };

/*
 * What identification knows of a core's PMU where CPUID does not say it all
 * (cpu/uarch.csv, column pmu): pmu/caps chooses the counter driver by it,
 * never by a core's name.
 */
enum uarch_pmu {
	UARCH_PMU_CPUID,	/* CPUID describes the PMU (Intel leaf 0AH, AMD's leaves) */
	UARCH_PMU_CORE2,	/* architectural v2 with three fixed counters even where CPUID.0AH:EDX reports none */
	UARCH_PMU_P6,		/* P6-family counters (PerfEvtSel0/1, PerfCtr0/1) on a part without leaf 0AH */
	UARCH_PMU_UNSUPPORTED,	/* counters pmuboot does not drive (NetBurst ESCR/CCCR, P5 CESR): the note says */
	UARCH_PMU_NONE,		/* no performance counters at all (AMD-K6) */
};

/*
 * CPUID leaf 07H as read on one CPU: subleaves 0 and 1 (SDM Vol. 2A, CPUID leaf 07H: subleaf 0's EAX is
 * the highest subleaf), each as EAX, EBX, ECX, EDX; n is how many were read (0 without the leaf).  The
 * hybrid bit and the features that date a core (cpu/uarch_features.csv) come from it.
 */
#define CPU_LEAF7_SUBLEAVES 2
enum cpu_reg { CPU_EAX, CPU_EBX, CPU_ECX, CPU_EDX };	/* the index of a register in r[] */
struct cpu_leaf7 {
	unsigned n;
	uint32_t r[CPU_LEAF7_SUBLEAVES][4];
};
/* Read on the calling CPU, whose CPUID.0:EAX is max_leaf. */
void cpu_read_leaf7(uint32_t max_leaf, struct cpu_leaf7 *out);

struct cpu_info {
	enum cpu_vendor vendor;
	char vendor_str[13];
	uint32_t max_leaf, max_ext_leaf;
	uint32_t signature;		/* CPUID.1:EAX */
	uint32_t family, model, stepping;	/* display values, extended fields applied */
	char brand[49];			/* trimmed; "" when the CPU has no brand string */
	bool hypervisor;		/* CPUID.1:ECX[31] */
	char hv_vendor[13];		/* leaf 0x40000000 signature, "" if none */
	const char *hv_name;		/* e.g. "QEMU TCG", "KVM"; NULL when unknown or none */
	/* Bare metal, virtualised (times are silicon's) or emulated (QEMU TCG: times mean nothing),
	 * decided here once from the signature (lib/x86/cpuid.h); everything else reads this. */
	enum cpu_exec exec;
	bool hv_qemu;			/* a hypervisor QEMU drives (TCG, KVM): its isa-debug-exit may exist */

	/* Microcode revision: Intel IA32_BIOS_SIGN_ID[63:32], AMD PATCH_LEVEL[31:0] (MSR 8BH). */
	bool microcode_valid;
	uint32_t microcode;
	const char *microcode_reason;	/* why it is unknown, when !microcode_valid */
	char microcode_source[48];	/* where the revision was read: "MSR 0x8B", "/proc/cpuinfo, processor 3" */

	/* Hybrid parts (Intel): the core type of the CPU this runs on selects the microarchitecture. */
	bool hybrid;			/* CPUID.07H.0:EDX[15] */
	uint8_t core_type;		/* CPUID.1AH:EAX[31:24]: 0x20 Atom, 0x40 Core; 0 = not enumerated */
	uint32_t native_model;		/* CPUID.1AH:EAX[23:0] */
	uint8_t arch_pmu_version;	/* CPUID.0AH:EAX[7:0] (Intel), 0 when absent */

	/* Microarchitecture (cpu/uarch.h). */
	const char *uarch;		/* e.g. "Golden Cove (Alder Lake P-core)" */
	const char *uarch_key;		/* e.g. "goldencove" */
	const char *event_set;		/* events/ key, NULL when none applies */
	const char *event_set_basis;	/* "vendor", "related_core", "generic"; NULL with no event set */
	const char *event_set_note;	/* why a related core's set, or why none; NULL otherwise */
	enum uarch_pmu uarch_pmu;	/* the core's PMU where CPUID does not say it (UARCH_PMU_CPUID otherwise) */
	bool fallback;			/* not an exact table match: see fallback_kind, fallback_reason */
	const char *fallback_kind;	/* "generic", "assumed_p_core", "unlisted_native_model", "unlisted_stepping" */
	char fallback_reason[200];
	/* The CPU enumerates a feature the core its signature names never has (uarch_doubt): what and why, "" if none. */
	char uarch_doubt[240];
	const char *uarch_doubt_feature; /* the feature it names ("AMX-TILE", cpu/uarch_features.csv), or NULL */
};

/* Identify the CPU this code runs on (through hw_cpuid / hw_rdmsr). */
void cpu_identify(struct cpu_info *ci);
/* The `cpu` record (built in the caller's r) and a readable summary. */
void cpu_report(const struct cpu_info *ci, struct rec *r);
const char *cpu_vendor_name(enum cpu_vendor v);
/* "atom", "core", or NULL (not enumerated / unknown). */
const char *cpu_core_type_name(uint8_t core_type);

/*
 * Display family/model/stepping from a CPUID.1:EAX signature (SDM Vol. 2A,
 * CPUID, "Family and model"; AMD APM Vol. 3, CPUID Fn0000_0001_EAX).
 */
void cpu_decode_signature(enum cpu_vendor v, uint32_t sig, uint32_t *family, uint32_t *model, uint32_t *stepping);

/*
 * Where CPUID comes from, for the `cpu` record's "source" field: NULL (the
 * default) means the instruction itself; pmuboot-host names its dump file.
 */
void cpu_set_source(const char *source);

#endif
