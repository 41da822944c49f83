/*
 * cpu/topo.h - the machine's processors: where each sits, what core
 * type it is, which microarchitecture and event set that means.
 *
 * The table is filled from whatever can list the processors (the UEFI MP
 * Services protocol in the image, /sys on Linux, the CPU blocks of a CPUID
 * dump), then topo_probe() runs on each processor itself (CPUID answers for
 * the CPU that executes it) and topo_classify() names each one's
 * microarchitecture on the boot CPU.  topo_probe() touches nothing but
 * CPUID and its argument, so it is safe to run on an application processor
 * that has no runtime of its own.
 */
#ifndef PMUBOOT_CPU_TOPO_H
#define PMUBOOT_CPU_TOPO_H

#include "lib/libc.h"
#include "cpu/cpu.h"
#include "lib/record.h"

#define TOPO_MAX_CPUS 256
#define TOPO_NONE 0xffffffffu	/* a location field nobody gave */

struct topo_cpu {
	uint32_t n;			/* processor number as the lister counts (MP Services, Linux CPU number, dump block) */
	uint32_t apic_id;		/* from the lister; CPUID's own below */
	bool bsp, enabled, healthy;
	uint32_t package, die, core, thread;	/* TOPO_NONE when not given */

	/* Filled by topo_probe on the CPU itself. */
	bool probed;
	uint32_t max_leaf, vendor_ebx, vendor_ecx, vendor_edx;
	uint32_t signature;		/* CPUID.1:EAX */
	uint32_t cpuid_apic_id;		/* x2APIC ID (CPUID.0BH:EDX) where leaf 0BH exists, else CPUID.1:EBX[31:24] */
	uint8_t smt_shift, core_shift;	/* CPUID.0BH level shifts (0 when leaf 0BH is absent) */
	struct cpu_leaf7 leaf7;		/* CPUID leaf 07H: the hybrid bit, the features that date a core */
	bool hybrid;			/* CPUID.07H.0:EDX[15] */
	uint8_t core_type;		/* CPUID.1AH:EAX[31:24], 0 when not enumerated */
	uint32_t native_model;		/* CPUID.1AH:EAX[23:0] (with a core type: Arrow Lake-H's two kinds of E-core) */
	uint32_t pmu_eax, pmu_ebx, pmu_edx;	/* CPUID.0AH (Intel): this core type's own PMU description */
	bool ibs;			/* AMD: CPUID Fn8000_0001_ECX[10] on this CPU */
	uint32_t ibs_flags;		/* AMD: CPUID Fn8000_001B_EAX, 0 when the leaf is absent */

	/* Filled by topo_classify. */
	const char *uarch, *uarch_key, *event_set;
	bool fallback;
	const char *doubt;		/* the feature that contradicts the row (uarch_doubt), or NULL */
};

struct topology {
	const char *source;		/* "uefi mp services", "linux sysfs", "cpuid dump ...", "boot cpu only" */
	size_t n;
	struct topo_cpu cpu[TOPO_MAX_CPUS];
	size_t total;			/* processors the lister reported (n may be smaller: TOPO_MAX_CPUS) */
	const char *neighbours;		/* what the other processors do while one measures, or NULL */
};

/* CPUID on the CPU that calls it; fills the probe fields of c. */
void topo_probe(struct topo_cpu *c);
/* Location from the CPUID x2APIC ID and leaf 0BH shifts, for fields the lister left TOPO_NONE. */
void topo_locate_from_cpuid(struct topo_cpu *c);
/* Name each probed CPU's microarchitecture and event set. */
void topo_classify(struct topology *t);

/* Distinct core types (by uarch key) in the table: index of the first CPU of each, returns the count. */
size_t topo_types(const struct topology *t, size_t *first, size_t cap);
/*
 * "1 package × 2 cores × 2 threads" / "6 P-cores × 2 threads, 8 E-cores"; two core types
 * of one kind are told apart by their uarch key: "6 P-cores, 8 E-cores (skymont), 2 E-cores (crestmont)".
 */
void topo_summary(const struct topology *t, char *buf, size_t cap);
/*
 * The `topology` record and its text lines.  chosen (indexes into t->cpu,
 * nchosen of them) and cpus_value are what cpus= chose; NULL when nothing
 * is to be measured (pmuboot-host identify).
 */
void topo_report(const struct topology *t, struct rec *r, const char *cpus_value, const size_t *chosen,
		 size_t nchosen);

#endif
