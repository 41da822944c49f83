/*
 * pmu/cpu/uarch.h - which core microarchitecture a CPUID signature is, and the
 * event set (events/) its performance events come from.
 *
 * The table (pmu/uarch_table.c) is data: one row per vendor + display
 * family + model range (+ stepping range, + hybrid core type), each naming
 * a microarchitecture descriptor: a short key, the core's name and its
 * event-set key.  A CPU no row matches gets the family-level fallback,
 * marked as such with the reason - never a guess presented as fact.
 *
 * The table holds no pointers (strings live in fixed arrays), so the image
 * carries no relocations for it.
 */
#ifndef PMUBOOT_PMU_UARCH_H
#define PMUBOOT_PMU_UARCH_H

#include "lib/libc.h"
#include "pmu/cpu/cpu.h"

/* CPUID.1AH:EAX[31:24] core types (SDM Vol. 2A, CPUID leaf 1AH). */
#define CORE_TYPE_ANY 0x00		/* in a row: any core type, or none enumerated */
#define CORE_TYPE_ATOM 0x20		/* Intel Atom (E-core) */
#define CORE_TYPE_CORE 0x40		/* Intel Core (P-core) */

#define UARCH_KEY_MAX 16
#define UARCH_NAME_MAX 44
#define UARCH_NO_EVENT_SET 0xff

struct uarch_desc {
	char key[UARCH_KEY_MAX];	/* short key, e.g. "cascadelake" */
	char name[UARCH_NAME_MAX];	/* core microarchitecture, e.g. "Skylake server core (Cascade Lake)" */
	uint8_t event_set;		/* index into uarch_event_sets, or UARCH_NO_EVENT_SET */
};

struct uarch_row {
	uint8_t vendor;			/* enum cpu_vendor */
	uint8_t core_type;		/* CORE_TYPE_* this row is for (hybrid parts), or CORE_TYPE_ANY */
	uint16_t family;		/* display family */
	uint8_t model_lo, model_hi;	/* display model range, inclusive */
	uint8_t step_lo, step_hi;	/* stepping range, inclusive (0..15 = any) */
	uint8_t desc;			/* index of its uarch_desc */
};

/* The result of a lookup. */
struct uarch_match {
	const struct uarch_row *row;	/* the row used; NULL when no row of this vendor/family applies */
	const char *uarch;		/* name to report (row's, or a family-level description) */
	const char *key;
	const char *event_set;		/* NULL: no usable event set */
	bool fallback;			/* true unless an exact row matched */
	char reason[200];		/* why it is a fallback, "" otherwise */
};

/*
 * Look up a CPU.  core_type is CPUID.1AH:EAX[31:24] (0 when not
 * enumerated); arch_pmu says CPUID.0AH reports a version > 0, which the
 * Intel fallback event set needs.
 */
void uarch_lookup(enum cpu_vendor vendor, uint32_t family, uint32_t model, uint32_t stepping, uint8_t core_type,
		  bool arch_pmu, struct uarch_match *m);

size_t uarch_table_count(void);
const struct uarch_row *uarch_table_at(size_t i);
const struct uarch_desc *uarch_desc_of(const struct uarch_row *row);
/* The row's event-set key, or NULL. */
const char *uarch_row_event_set(const struct uarch_row *row);

/* Every event-set key the table may name: the contract with events/. */
#define UARCH_EVENT_SET_MAX 16
extern const char uarch_event_sets[][UARCH_EVENT_SET_MAX];
extern const size_t uarch_event_sets_count;

/* Family-level fallback event sets. */
#define EVENT_SET_INTEL_FALLBACK "intel_arch"	/* architectural events only (CPUID.0AH) */
#define EVENT_SET_AMD_FALLBACK "amd_legacy"	/* the K7/K8 core events every AMD part keeps */

#endif
