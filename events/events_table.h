/*
 * events/events_table.h - the compact tables tools/gen_events.py generates from events/
 * (events/vendor/KEY.csv and the role files) into $(B)/gen/events_table.c.  Private to
 * events/: everyone else goes through events.h.
 *
 * Why not the structs of events.h directly: the image is position-independent, and every
 * pointer stored in its data costs a 24-byte relocation besides the pointer itself.  These
 * records hold 16-bit offsets and indices instead, names are stored as a shared prefix and a
 * shared last part, identical records are stored once for all sets, and events.c builds the
 * structs of events.h at run time, on demand, with pointers computed in code.
 */
#ifndef PMUBOOT_EVENTS_EVENTS_TABLE_H
#define PMUBOOT_EVENTS_EVENTS_TABLE_H

#include "events/events.h"

#define EVF_INV		0x001u
#define EVF_EDGE	0x002u
#define EVF_ANY		0x004u
#define EVF_PRECISE	0x008u
#define EVF_FIXED_ONLY	0x010u
#define EVF_PEBS2	0x020u
#define EVF_TAKEN_ALONE	0x040u
#define EVF_PAIR	0x080u
#define EVF_DEPRECATED	0x100u

/* Limits the generator checks at compile time (_Static_assert in the generated file). */
#define EV_MAX_SETS	80
#define EV_MAX_IBS	64

struct ev_rec {
	uint16_t name_pre, name_last;	/* offsets in events_name_pre / events_name_last */
	uint16_t event;
	uint8_t umask, cmask;
	uint16_t flags;			/* EVF_* */
	uint16_t counters, htoff;	/* general counters allowed (0 = any); with SMT off if different */
	int8_t fixed;
	uint8_t umask_ext;
	uint16_t extra;			/* index in events_extra; 0 = no extra MSR */
	uint16_t errata;		/* offset in events_text (host only) */
};

struct ev_extra {
	uint64_t value;			/* what the extra MSR is programmed with */
	uint16_t msr, msr_alt;		/* the MSR; the second offcore form's MSR, or 0 */
	uint8_t alt_event, alt_umask, has_alt;
};

/* A hand-written row: the roles and our own description of one event of a set. */
struct ev_note {
	uint16_t index;			/* in the set */
	uint16_t source, desc;		/* offsets in events_text (host only) */
	uint32_t roles;
};

struct ev_set_rec {
	uint16_t key, name, perf, vendor_name;	/* offsets in events_strs */
	uint16_t doc;				/* offset in events_text (host only) */
	uint16_t first, n;			/* events_idx[first .. first+n) index events_recs */
	uint16_t notes_first, notes_n;		/* events_notes[notes_first ..] in preference order */
	uint16_t rules_first, rules_n;		/* events_code_rule_idx[rules_first ..] index events_code_rules */
	uint8_t amd;
	uint8_t family;				/* AMD: family=0xNN of the data column, else 0 */
};

/* ev_code_rule.flags and ev_amd_rule.flags (tools/gen_events.py RULE_*). */
#define EVR_CODE_ONLY	0x01u	/* keyed by the event code alone (any unit mask) */
#define EVR_NONE	0x02u	/* the rows share no counter / the family counts it on none */
#define EVR_TAKEN_ALONE	0x04u	/* a row with this key is TakenAlone */
#define EVR_PAIR	0x08u	/* AMD large-increment event: an even counter merged with its odd one */

/* A set's counter rule for one event code (EVR_CODE_ONLY) or code and unit mask, derived from its
 * rows by the generator (code_rules()); sorted by event, then unit mask. */
struct ev_code_rule {
	uint16_t event;
	uint8_t umask, flags;
	uint16_t counters, htoff;	/* general counters allowed (0 = any); SMT off where different */
};

/* Unit-mask tests of events/amd_rules.csv. */
enum ev_umask_test { EV_UMASK_ANY, EV_UMASK_ONE_BIT, EV_UMASK_MANY_BITS, EV_UMASK_BOTH_NIBBLES };

/* One row of events/amd_rules.csv: for families [family, last_family], 12-bit event selects E
 * with (E & mask) == event and a unit mask passing umask_test. */
struct ev_amd_rule {
	uint8_t family, last_family;
	uint16_t event, mask;
	uint8_t umask_test, flags;
	uint16_t counters;		/* PERF_CTL indices allowed, 0 = any */
};

struct ev_ibs_rec {
	uint16_t code;
	uint16_t name, abbrev;		/* offsets in events_strs */
	uint16_t desc;			/* offset in events_text (host only) */
};

extern const char events_strs[];
extern const char events_name_pre[];
extern const char events_name_last[];
#ifdef PMUBOOT_HOSTED
extern const char events_text[];
#endif
extern const struct ev_extra events_extra[];
extern const struct ev_rec events_recs[];
extern const uint16_t events_idx[];
extern const struct ev_note events_notes[];
extern const struct ev_code_rule events_code_rules[];
extern const uint16_t events_code_rule_idx[];
extern const struct ev_amd_rule events_amd_rules[];
extern const size_t events_amd_rules_n;
extern const struct ev_set_rec events_set_recs[];
extern const size_t events_set_recs_n;
extern const struct ev_ibs_rec events_ibs_recs[];
extern const size_t events_ibs_recs_n;

/* Run-time storage sized by the generator (every set on the host, the largest in the image). */
extern struct event_def events_pool[];
extern const size_t events_pool_cap;
extern char events_namebuf[];
extern const size_t events_namebuf_cap;

#endif
