/*
 * cpu/uarch_data.h - the microarchitecture table as tools/gen_uarch.py
 * generates it from cpu/uarch.csv, cpu/uarch_notes.csv,
 * cpu/uarch_features.csv and events/sets.csv into
 * $(B)/gen/uarch_table.c.  Private to cpu/uarch.c (everyone else uses
 * cpu/uarch.h).  Strings are offsets into uarch_strings, so the tables
 * hold no pointers.
 */
#ifndef PMUBOOT_CPU_UARCH_DATA_H
#define PMUBOOT_CPU_UARCH_DATA_H

#include "lib/libc.h"
#include "cpu/uarch.h"

/* An event set of events/sets.csv, in that file's order: its index is the set's id. */
struct uarch_set {
	uint16_t key;		/* offset of its key */
	bool amd;		/* an AMD set (events/sets.csv vendor) */
};

/* A CPUID feature that dates a core (cpu/uarch_features.csv): the cores known to enumerate it. */
#define UARCH_FEATURE_KEYS 8		/* tools/gen_uarch.py FEATURE_KEYS_MAX */
#define UARCH_FEATURE_NO_KEY 0xffff	/* an unused keys[] slot */
struct uarch_feature {
	uint16_t name;				/* offset of the feature's name, e.g. "AMX-TILE" */
	uint8_t vendor;				/* enum cpu_vendor of the cores it judges */
	uint8_t subleaf;			/* of leaf 07H (tools/gen_uarch.py refuses others) */
	uint8_t reg;				/* 0..3: EAX, EBX, ECX, EDX */
	uint8_t bit;
	uint16_t keys[UARCH_FEATURE_KEYS];	/* offsets of the keys of the cores that have it */
};

extern const struct uarch_set uarch_sets[];
extern const size_t uarch_sets_count;
/* Indexed by enum cpu_vendor: the vendor's family-level fallback set, or UARCH_NO_EVENT_SET. */
extern const uint8_t uarch_fallback_sets[];
/* Offsets of the notes' texts; a descriptor's note n > 0 is uarch_notes[n - 1]. */
extern const uint16_t uarch_notes[];
extern const size_t uarch_notes_count;
extern const struct uarch_desc uarch_descs[];
extern const struct uarch_row uarch_rows[];
extern const size_t uarch_rows_count;
extern const struct uarch_feature uarch_features[];
extern const size_t uarch_features_count;
extern const char uarch_strings[];

#endif
