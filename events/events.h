/*
 * events/events.h - the event vocabulary, per microarchitecture.
 *
 * Every documented core event of every set, imported from the vendors' own data (Intel
 * perfmon, libpfm4's AMD and legacy Intel tables; tools/events_import) and compiled into C
 * tables at build time: each event's code, umask, modifiers, counter restrictions, fixed
 * counter, PEBS marks, extra MSR, errata and deprecation, plus - for the events the
 * benchmarks use - the roles it plays and a description in our own words.  The AMD IBS
 * derived events (0xF000-0xF24C) are a separate table.
 */
#ifndef PMUBOOT_EVENTS_EVENTS_H
#define PMUBOOT_EVENTS_EVENTS_H

#include "lib/libc.h"

/* enum event_role (EV_ROLE_CYCLES, ...) and its words, generated from events/roles.csv. */
#include "event_roles.h"

#define EV_NO_FIXED (-1)
#define EVENT_NAME_MAX 80	/* names are at most 79 characters (tools/gen_events.py NAME_MAX) */

/*
 * One event of a set, decoded from the packed tables into the caller's struct (events_at,
 * events_next, events_find, events_for_role): nothing in it points into storage of events/
 * except the host-only texts, which are constants.
 */
struct event_def {
	char name[EVENT_NAME_MAX];	/* e.g. "LD_BLOCKS.STORE_FORWARD" */
	uint16_t index;		/* its place in the set (events_at) */
	uint16_t event;		/* event select; 12 bits on AMD */
	uint8_t umask;
	uint8_t cmask;
	bool inv, edge, any;
	uint32_t counters;	/* allowed general counters, bit n = counter n; 0 = any */
	int8_t fixed;		/* fixed counter that counts it, or EV_NO_FIXED */
	bool precise;		/* PEBS/precise-capable per the source */
	uint32_t roles;		/* enum event_role bits */
	const char *source;	/* public source, e.g. "SDM Vol. 3B Table 19-24" ("" in the image) */
	const char *desc;	/* short description, our own words ("" in the image) */
	bool fixed_only;	/* only its fixed counter counts it (no general-counter form) */
	/* Vendor facts beyond the encoding (docs/events.md "Columns"). */
	uint32_t counters_htoff;	/* allowed counters with SMT off where they differ, else 0 */
	uint8_t umask_ext;	/* perfmon UMaskExt: PERFEVTSEL unit mask bits beyond 15:8 (UMASK2) */
	bool pebs2;		/* perfmon PEBS=2 */
	bool taken_alone;	/* perfmon TakenAlone: may not share the PMU with another such event */
	bool pair;		/* AMD Fam17h+ large-increment event: needs the merged odd counter */
	bool deprecated;
	uint16_t msr;		/* extra MSR the event needs (OFFCORE_RSP_0, PEBS_LD_LAT, ...), 0 = none */
	uint16_t msr_alt;	/* offcore: the second form's MSR (OFFCORE_RSP_1), 0 = none */
	uint64_t msr_value;	/* what the extra MSR must hold */
	bool has_alt;		/* a second form exists (offcore: alt_event/alt_umask with msr_alt) */
	uint8_t alt_event, alt_umask;
	const char *errata;	/* the vendor's errata IDs ("" in the image) */
};

struct event_set {
	const char *key;	/* e.g. "goldmont"; pmu/ identification names this key */
	const char *name;	/* e.g. "Intel Goldmont" */
	size_t n;		/* events: events_at(set, 0 .. n - 1) */
	bool amd;		/* AMD encoding: 12-bit event select, no AnyThread, no fixed counters */
	const char *perf;	/* perf's name for this event table (pmu-events/arch/x86/...), or "" */
	const char *vendor_name;/* the vendor's name for it (perfmon code, AMD family), or "" */
	uint8_t family;		/* AMD: the family whose counter rules (events_amd_rule) apply; 0 = Intel */
};

/*
 * The catalogue is stored compressed and inflated into the heap at its first use.  The heap has no
 * locking and is the boot processor's, so the run calls this there before any measuring pass
 * (run/run.c): true when the tables are in place, false (after one error record) when they cannot be.
 */
bool events_ready(void);
size_t events_set_count(void);
const struct event_set *events_set_at(size_t i);
const struct event_set *events_set_find(const char *key);
/* Event i of set into *out; false past the end (out untouched). */
bool events_at(const struct event_set *set, size_t i, struct event_def *out);
/*
 * The events of a set in order, cheaper than events_at for each index (a set is stored as a
 * difference from another's; the iterator walks both together):
 *	struct events_iter it;
 *	struct event_def d;
 *	for (events_iter_start(&it, set); events_next(&it, &d);)
 *		...
 */
#define EVENTS_ITER_DEPTH 12
struct events_iter {
	const struct event_set *set;
	size_t next;		/* the index events_next gives next */
	/* events.c's: one cursor per set in the chain of sets this one's list refers to. */
	uint8_t depth, list;
	struct events_iter_level {
		uint16_t op, row, fresh;
		uint8_t set, kind, left;
	} level[EVENTS_ITER_DEPTH];
};
void events_iter_start(struct events_iter *it, const struct event_set *set);
bool events_next(struct events_iter *it, struct event_def *out);
/* Case-insensitive exact name lookup within a set into *out (out may be NULL: only whether it is
 * there); false when the set has no such event. */
bool events_find(const struct event_set *set, const char *name, struct event_def *out);
/* The first event in set with every bit of role set (in the role files' order) into *out; false
 * when none has (or role is 0). */
bool events_for_role(const struct event_set *set, uint32_t role, struct event_def *out);

/* AMD IBS derived events (AMD Family 10h BKDG; seed 001). */
struct ibs_event_def {
	uint16_t code;		/* 0xF000 .. 0xF24C */
	const char *name;
	const char *abbrev;
	const char *desc;	/* "" in the image */
};
size_t ibs_events_count(void);
const struct ibs_event_def *ibs_event_at(size_t i);
const struct ibs_event_def *ibs_event_find(uint16_t code);

/*
 * A parsed event specification: a name from the set, a raw
 * event=0x..,umask=0x..[,cmask=N][,inv][,edge][,any], or perf's rUUEE
 * short form (AMD: r + umask and 12-bit event as perf encodes it).
 */
struct event_spec {
	char name[EVENT_NAME_MAX];	/* the event's name, or the raw text */
	uint16_t event;
	uint8_t umask, cmask;
	bool inv, edge, any;
	uint32_t counters;
	int8_t fixed;
	bool named;		/* a catalogue event by name (or role); false for raw specs */
	uint32_t roles;		/* the named event's roles (enum event_role bits), 0 for raw specs */
	bool fixed_only;	/* copied from the event: schedule on its fixed counter or not at all */
	/* Copied from the named event, or from the catalogue event a raw spec's encoding matches. */
	uint32_t counters_htoff;
	uint8_t umask_ext;
	bool pair, taken_alone;
	uint16_t msr, msr_alt;
	uint64_t msr_value;
	bool has_alt;
	uint8_t alt_event, alt_umask;
	/* The catalogue row's own limits, which the scheduler applies whatever the caller narrows
	 * above: the named event's, or the row a raw spec's encoding is exactly (adopt_catalogue in
	 * spec.c); found is false otherwise (the scheduler then applies the set's code rules). */
	struct event_row_limits {
		bool found;
		uint32_t counters, counters_htoff;
		bool taken_alone, pair;
	} row;
};

/*
 * Parse text[0..len) against set (NULL: raw specs only).  amd selects the
 * AMD raw encoding.  On error returns false with a message naming the bad
 * token and what was expected, or for an unknown name the nearest names.
 */
bool event_spec_parse(const struct event_set *set, bool amd, const char *text, size_t len,
		      struct event_spec *out, char *err, size_t err_cap);

/*
 * Additions to the contract (events work):
 *
 * The names in set nearest to name (case-insensitive edit distance; names that extend
 * name with ".UMASK" come first), best first, at most max; returns how many.
 */
size_t events_suggest(const struct event_set *set, const char *name, char (*out)[EVENT_NAME_MAX], size_t max);
/* What a spec keeps of a catalogue event's limits (struct event_spec.row). */
void events_row_limits(const struct event_def *d, struct event_row_limits *out);
/* The CSV/docs word for one enum event_role bit ("stlf_block"), or NULL. */
const char *events_role_name(uint32_t role_bit);
/* The event_role bit for a word from events_role_name, or 0. */
uint32_t events_role_parse(const char *word);
/* The set's hand-written (role) events in preference order: index i of set, or -1 past the end. */
long events_role_row(const struct event_set *set, size_t i);
/* The set of the architectural events (CPUID leaf 0AH), which names on any Intel set fall back to. */
#define EVENTS_ARCH_KEY "intel_arch"
/*
 * Counter rules by event code, for encodings no row of a set lists exactly (raw specs with their
 * own cmask/inv/edge, unit masks the vendor does not list).  tools/gen_events.py derives each
 * set's rules from its rows: for a (code, unit mask), and for a code alone, the counters every row
 * with it allows (the intersection; `none` when the rows share no counter), likewise with SMT off,
 * and whether any such row is TakenAlone.  events/amd_rules.csv gives the AMD family rules, which
 * apply to every event of an AMD CPU of that family.  docs/events.md, "Raw specs".
 */
struct event_rule {
	uint32_t counters, counters_htoff;	/* general counters allowed, 0 = any; SMT off if different */
	bool none;		/* no general counter counts it */
	bool taken_alone;	/* TakenAlone (perfmon): nothing else on general counters in its pass */
	bool pair;		/* AMD large-increment event: an even counter merged with the odd one */
	bool by_umask;		/* the rule is the code and unit mask's (else the code's alone) */
};
/* set's rule for (event, umask): by code and unit mask, else by code; false: none (any counter). */
bool events_code_rule(const struct event_set *set, uint16_t event, uint8_t umask, struct event_rule *out);
/* The AMD family rule (events/amd_rules.csv, first match) for a 12-bit event select; false: none. */
bool events_amd_rule(unsigned family, uint16_t event, uint8_t umask, struct event_rule *out);

/*
 * The µop events of the instruction table (events/uops.csv; docs/instr.md "µops and ports"): which
 * event of a set counts µops retired, issued and dispatched, and which count them per execution port or
 * port group (Intel) or FP pipe (AMD).  Events of one kind and port are summed (AMD counts the ops
 * dispatched from the decoder and from the op cache apart).
 */
enum event_uop_kind { EV_UOP_RETIRED, EV_UOP_ISSUED, EV_UOP_DISPATCHED, EV_UOP_PORT, EV_UOP_KINDS };
#define EV_UOP_PORT_MAX 16	/* a port label and its NUL (tools/gen_events.py UOP_PORT_RE) */
struct event_uop {
	enum event_uop_kind kind;
	char port[EV_UOP_PORT_MAX];	/* the vendor's port group ("p2_3_10", "fp0"); "" unless EV_UOP_PORT */
	struct event_def def;
};
/* The set's i-th µop event (in events/uops.csv's order) into *out; false past the last. */
bool events_uop_at(const struct event_set *set, size_t i, struct event_uop *out);
/* "retired", "issued", "dispatched", "port" (the record's and events/uops.csv's words), or NULL. */
const char *events_uop_kind_name(enum event_uop_kind kind);

/* An IBS derived event's row as a pseudo set key for listings: "ibs". */
#define EVENTS_IBS_KEY "ibs"

#endif
