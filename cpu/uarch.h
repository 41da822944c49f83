/*
 * cpu/uarch.h - which core microarchitecture a CPUID signature is, and the
 * event set (events/) its performance events come from.
 *
 * The table is data: cpu/uarch.csv, compiled by tools/gen_uarch.py into
 * $(B)/gen/uarch_table.c.  One row per vendor + display family + model range
 * (+ stepping range, + hybrid core type and native model ID), each naming a
 * microarchitecture descriptor: a short key, the core's name, its event set
 * (a key of events/sets.csv, the one list of them), on what basis that set
 * applies (the vendor data's own mapping, or the set of the core it is built
 * on where the vendor data has no entry, with a note saying so) and what the
 * core's PMU is where CPUID does not say (enum uarch_pmu).  A CPU no row
 * matches gets a fallback, marked with its kind and the reason - never a
 * guess presented as fact.
 *
 * The table holds no pointers (strings are offsets into one pool), so the
 * image carries no relocations for it.
 */
#ifndef PMUBOOT_CPU_UARCH_H
#define PMUBOOT_CPU_UARCH_H

#include "lib/libc.h"
#include "cpu/cpu.h"

/* CPUID.1AH:EAX[31:24] core types (SDM Vol. 2A, CPUID leaf 1AH). */
#define CORE_TYPE_ANY 0x00		/* in a row: any core type, or none enumerated */
#define CORE_TYPE_ATOM 0x20		/* Intel Atom (E-core) */
#define CORE_TYPE_CORE 0x40		/* Intel Core (P-core) */

/*
 * CPUID.1AH:EAX[23:0] native model ID: in a row, any; in a query, not
 * enumerated (leaf 1AH absent or reporting no core type).  A real ID is 24 bits.
 */
#define UARCH_NATIVE_ANY 0xffffffffu

#define UARCH_NO_EVENT_SET 0xff	/* a descriptor's event_set: none (tools/gen_uarch.py NO_EVENT_SET) */

/* Why a row's event set applies to the CPUs it matches. */
enum uarch_basis {
	BASIS_VENDOR,		/* the vendor data maps them to it: a perfmon mapfile.csv row, libpfm4's family/model rule */
	BASIS_RELATED,		/* the vendor data has no entry for them: the set of the core they are built on (see note) */
	BASIS_NONE,		/* no event set: no counters pmuboot drives (see note) */
	BASIS_GENERIC,		/* a fallback: the vendor's generic set (lookups only, no row has it) */
};

/* What kind of fallback a lookup took, when no row matched exactly. */
enum uarch_fallback {
	FALLBACK_NONE,
	FALLBACK_GENERIC,	/* no row for the model (or its rows disagree): the family-level set */
	FALLBACK_ASSUMED_P_CORE,	/* hybrid model, core type not enumerated: its P-core row */
	FALLBACK_NATIVE_MODEL,	/* core type known, native model ID not one the table lists for the model */
	FALLBACK_STEPPING,	/* model known, stepping not */
};

struct uarch_desc {
	uint16_t key;			/* short key, e.g. "cascadelake" (uarch_desc_key) */
	uint16_t name;			/* core microarchitecture, e.g. "Skylake server core (Cascade Lake)" */
	uint8_t event_set;		/* index of its event set (uarch_event_set_key), or UARCH_NO_EVENT_SET */
	uint8_t basis;			/* enum uarch_basis */
	uint8_t note;			/* the note saying why (BASIS_RELATED, BASIS_NONE): its index + 1, 0 = none */
	uint8_t pmu;			/* enum uarch_pmu */
};

struct uarch_row {
	uint8_t vendor;			/* enum cpu_vendor */
	uint8_t core_type;		/* CORE_TYPE_* this row is for (hybrid parts), or CORE_TYPE_ANY */
	uint16_t family;		/* display family */
	uint8_t model_lo, model_hi;	/* display model range, inclusive */
	uint8_t step_lo, step_hi;	/* stepping range, inclusive (0..15 = any) */
	uint8_t desc;			/* index of its uarch_desc */
	uint32_t native_model;		/* CPUID.1AH:EAX[23:0] this row is for, or UARCH_NATIVE_ANY */
};

/* What a lookup is asked about. */
struct uarch_query {
	enum cpu_vendor vendor;
	uint32_t family, model, stepping;	/* display values */
	uint8_t core_type;		/* CPUID.1AH:EAX[31:24] (0 when not enumerated) */
	uint32_t native_model;		/* CPUID.1AH:EAX[23:0], or UARCH_NATIVE_ANY when not enumerated */
	bool arch_pmu;			/* CPUID.0AH reports a version > 0: the Intel fallback set needs it */
};

/* The result of a lookup. */
struct uarch_match {
	const struct uarch_row *row;	/* the row used; NULL when no row of this vendor/family applies */
	const char *uarch;		/* name to report (row's, or a family-level description) */
	const char *key;
	const char *event_set;		/* NULL: no usable event set */
	enum uarch_basis basis;		/* why event_set applies */
	const char *note;		/* the row's note (BASIS_RELATED, BASIS_NONE), else NULL */
	enum uarch_pmu pmu;		/* the row's PMU kind; UARCH_PMU_CPUID for a family-level fallback */
	bool fallback;			/* true unless an exact row matched */
	enum uarch_fallback fallback_kind;
	char reason[200];		/* why it is a fallback, "" otherwise */
};

void uarch_identify(const struct uarch_query *q, struct uarch_match *m);
/*
 * The core type a query should carry: a hybrid model's CPU with the Hybrid bit clear is a P-core.
 * Here, below both cpu.c (the boot CPU) and topo.c (every CPU), which ask the same question.
 */
uint8_t uarch_core_type(bool intel, bool hybrid, uint8_t core_type);
/* The same for a CPU whose native model ID is not known (UARCH_NATIVE_ANY). */
void uarch_lookup(enum cpu_vendor vendor, uint32_t family, uint32_t model, uint32_t stepping, uint8_t core_type,
		  bool arch_pmu, struct uarch_match *m);

/*
 * Whether the CPU's features contradict the core its signature names: the first feature of
 * cpu/uarch_features.csv for q's vendor that the CPU enumerates and that core (m->key, an exact
 * row only: a fallback names no core) is not listed with.  A hypervisor may report a model number
 * that is not its core's; so may a part the table does not know.  On a doubt, m keeps the row's
 * name and key, but its event set becomes the vendor's family-level one (the row's model-specific
 * codes are another core's), with basis BASIS_GENERIC (BASIS_NONE without one) and a note saying why.
 * l7 is the CPU's leaf 07H (cpu_read_leaf7), the one leaf the file's lines may name.
 */
struct uarch_doubt {
	const char *feature;		/* e.g. "AMX-TILE"; NULL when nothing contradicts the row */
	uint32_t subleaf;		/* of leaf 07H */
	char reg;			/* 'a', 'b', 'c' or 'd' */
	uint8_t bit;
	char cores[96];			/* the keys of the cores that enumerate it, ", " between */
};
void uarch_doubt(const struct uarch_query *q, struct uarch_match *m, const struct cpu_leaf7 *l7,
		 struct uarch_doubt *d);

/* Record spellings: "vendor", "related_core", "generic", NULL (no event set). */
const char *uarch_basis_name(enum uarch_basis b);
/* Record spellings: NULL (exact), "generic", "assumed_p_core", "unlisted_native_model", "unlisted_stepping". */
const char *uarch_fallback_name(enum uarch_fallback f);

size_t uarch_table_count(void);
const struct uarch_row *uarch_table_at(size_t i);
const struct uarch_desc *uarch_desc_of(const struct uarch_row *row);
const char *uarch_desc_key(const struct uarch_desc *d);
const char *uarch_desc_name(const struct uarch_desc *d);
/* The row's event-set key, or NULL. */
const char *uarch_row_event_set(const struct uarch_row *row);
/* A descriptor's note text, or NULL when it has none. */
const char *uarch_desc_note(const struct uarch_desc *d);

/*
 * Every event-set key the table may name, in events/sets.csv's order (the
 * contract with events/, whose sets come from the same file), and whether the
 * set is AMD's encoding.
 */
size_t uarch_event_sets_count(void);
const char *uarch_event_set_key(size_t i);	/* NULL past the end */
bool uarch_event_set_amd(size_t i);
/*
 * A vendor's family-level fallback set (the vendor's one set without vendor
 * data in events/sets.csv: Intel's architectural events, AMD's legacy core
 * events), or NULL for an unknown vendor.
 */
const char *uarch_fallback_event_set(enum cpu_vendor vendor);
/* Is key a family-level fallback set: only the events every part of the vendor has? */
bool uarch_event_set_is_fallback(const char *key);

#endif
