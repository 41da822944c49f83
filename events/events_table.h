/*
 * events/events_table.h - the packed tables tools/gen_events.py generates from events/
 * (events/vendor/KEY.csv and the role files) into $(B)/gen/events_table.c.  Private to
 * events/: everyone else goes through events.h.
 *
 * Why not the structs of events.h: the catalogue holds every documented event of every core
 * (over 21,000 in all, about 9,000 distinct), and the image carries all of it.  So the tables
 * hold no pointers (each would cost a 24-byte relocation besides itself), and:
 *   - every event is a fixed 8-byte row (ev_row): name parts, code, unit mask, counter list and
 *     flags; the fields few events have (cmask/inv/edge/any, AMD's event bits 11:8, UMaskExt,
 *     the fixed counter, extra MSRs and their values) are in a side row (ev_side) it points to;
 *   - a row is stored once for every set that has it; names are a prefix and a last part
 *     ("MEM_LOAD_RETIRED" + "L1_HIT"), each part stored once as token codes;
 *   - each set's list of rows, and of counter rules, is a string of ops over a related set's
 *     list (COPY, SKIP, FRESH, ROWS), where that is shorter than the list itself.
 * tools/events_pack.py describes each form; events.c decodes a row into the caller's
 * struct event_def when asked, so nothing is built at run time.  All of it is stored compressed
 * (below) and inflated once, at first use.  docs/events.md "Size in
 * the image" gives the sizes.
 */
#ifndef PMUBOOT_EVENTS_EVENTS_TABLE_H
#define PMUBOOT_EVENTS_EVENTS_TABLE_H

#include "events/events.h"
#include "lib/unlz.h"

/* Limits the generator checks at compile time (_Static_assert in the generated file). */
#define EV_MAX_SETS	80
#define EV_MAX_IBS	64

/* ev_row.flags */
#define EVF_PRECISE	0x01u
#define EVF_FIXED_ONLY	0x02u
#define EVF_PEBS2	0x04u
#define EVF_TAKEN_ALONE	0x08u
#define EVF_PAIR	0x10u
#define EVF_DEPRECATED	0x20u
/* ev_side.enc */
#define EVS_INV		0x1u
#define EVS_EDGE	0x2u
#define EVS_ANY		0x4u

/* Field widths; the generated file asserts each is what the generator packed. */
#define EV_ROW_PRE_BITS		12
#define EV_ROW_LAST_BITS	12
#define EV_ROW_EVENT_BITS	8
#define EV_ROW_UMASK_BITS	8
#define EV_ROW_LIMITS_BITS	5
#define EV_ROW_FLAGS_BITS	6
#define EV_ROW_SIDE_BITS	13

/* One event. */
struct ev_row {
	uint64_t pre : EV_ROW_PRE_BITS;		/* name part before its last dot (events_part_at; 0 = none) */
	uint64_t last : EV_ROW_LAST_BITS;	/* name part after it */
	uint64_t event : EV_ROW_EVENT_BITS;	/* event select bits 7:0 */
	uint64_t umask : EV_ROW_UMASK_BITS;
	uint64_t limits : EV_ROW_LIMITS_BITS;	/* index in events_limits */
	uint64_t flags : EV_ROW_FLAGS_BITS;	/* EVF_* */
	uint64_t side : EV_ROW_SIDE_BITS;	/* index in events_side; 0: none of its fields */
};

#define EV_SIDE_CMASK_BITS	8
#define EV_SIDE_ENC_BITS	3
#define EV_SIDE_EVENT_HI_BITS	4
#define EV_SIDE_UMASK_EXT_BITS	8
#define EV_SIDE_FIXED_BITS	4
#define EV_SIDE_OFFCORE_BITS	4
#define EV_SIDE_VALUE_LO_BITS	14
#define EV_SIDE_VALUE_HI_BITS	8

/* What few events have.  Row 0 has none of it. */
struct ev_side {
	uint64_t cmask : EV_SIDE_CMASK_BITS;
	uint64_t enc : EV_SIDE_ENC_BITS;		/* EVS_* */
	uint64_t event_hi : EV_SIDE_EVENT_HI_BITS;	/* event select bits 11:8 (AMD) */
	uint64_t umask_ext : EV_SIDE_UMASK_EXT_BITS;	/* perfmon UMaskExt */
	uint64_t fixed : EV_SIDE_FIXED_BITS;		/* the fixed counter + 1; 0: none */
	uint64_t offcore : EV_SIDE_OFFCORE_BITS;	/* index in events_offcore; 0: no extra MSR */
	uint64_t value_lo : EV_SIDE_VALUE_LO_BITS;	/* the extra MSR's value: bits 31:0 in events_msr_lo */
	uint64_t value_hi : EV_SIDE_VALUE_HI_BITS;	/* ... bits 63:32 in events_msr_hi */
};

/* General counters allowed (bit n = counter n, 0 = any), and with SMT off where that differs. */
struct ev_limits {
	uint16_t counters, htoff;
};

/* An event's extra MSR and second form (offcore response), the form relative to its own encoding. */
struct ev_offcore {
	uint16_t msr, msr_alt;		/* the MSR; the second form's MSR (OFFCORE_RSP_1), or 0 */
	int8_t alt_event, alt_umask;	/* the second form's event and unit mask minus the event's own */
	uint8_t has_alt;
};

/* Name tokens: codes 1..EV_TOKEN_ONE_BYTE are one byte, a byte from EV_TOKEN_TWO_BYTE_LEAD up
 * starts a two-byte code; 0 ends a part. */
#define EV_TOKEN_ONE_BYTE	239
#define EV_TOKEN_TWO_BYTE_LEAD	240

/* List ops: the op in bits 7:6, the run length - 1 in bits 5:0; EV_OP_ROWS is followed by its first
 * row, 16 bits little-endian. */
#define EV_OP_SHIFT	6
#define EV_OP_RUN_MASK	0x3Fu
enum { EV_OP_COPY, EV_OP_SKIP, EV_OP_FRESH, EV_OP_ROWS };
#define EV_NO_BASE	0xFF
#define EV_LIST_MAX_DEPTH EVENTS_ITER_DEPTH	/* a set and its bases, at most */

/* One set's list of rows (or counter rules). */
struct ev_list {
	uint16_t ops, ops_n;	/* its ops: events_ops[ops .. ops + ops_n) */
	uint16_t fresh;		/* the first of the rows (rules) it brings: FRESH takes them in order */
	uint16_t n;		/* its length */
	uint8_t base;		/* the set whose list COPY and SKIP walk; EV_NO_BASE: none */
};

#define EV_NOTE_INDEX_BITS	12
#define EV_NOTE_ROLES_BITS	20

/* A hand-written row: the roles one event of a set plays (its description is host-only). */
struct ev_note {
	uint32_t index : EV_NOTE_INDEX_BITS;	/* in the set */
	uint32_t roles : EV_NOTE_ROLES_BITS;	/* enum event_role bits */
};

struct ev_set_rec {
	uint16_t key, name, perf, vendor_name;	/* offsets in events_strs */
	uint16_t doc;				/* offset in events_text (host only) */
	struct ev_list events, rules;		/* rows of events_rows; rules of events_code_rules */
	uint16_t notes_first, notes_n;		/* events_notes[notes_first ..] in preference order */
	uint8_t amd;
	uint8_t family;				/* AMD: family=0xNN of the data column, else 0 */
};

/* ev_code_rule.flags and ev_amd_rule.flags (tools/gen_events.py RULE_*). */
#define EVR_CODE_ONLY	0x01u	/* keyed by the event code alone (any unit mask) */
#define EVR_NONE	0x02u	/* the rows share no counter / the family counts it on none */
#define EVR_TAKEN_ALONE	0x04u	/* a row with this key is TakenAlone */
#define EVR_PAIR	0x08u	/* AMD large-increment event: an even counter merged with its odd one */

/* A set's counter rule for one event code (EVR_CODE_ONLY) or code and unit mask, derived from its
 * rows by the generator (code_rules()); a set's list is sorted by event, then unit mask. */
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

/* One row of events/uops.csv for one set (rows sorted by set, in file order within it). */
struct ev_uop {
	uint16_t index;			/* the event's index in the set (events_at) */
	uint8_t set;			/* index in events_set_recs */
	uint8_t kind;			/* enum event_uop_kind */
	uint16_t port;			/* the port label: offset in events_strs ("" unless EV_UOP_PORT) */
};

/*
 * The tables are stored compressed in the image (tools/lzpack.py, lib/unlz.h): events_blob, which
 * events.c inflates once, at first use, into memory from lib/heap.h; events_tables_place then points
 * each table into it.  Until then (and for good when there was no memory or the blob was damaged)
 * they are NULL, so every reader goes through events.c's catalogue_ready().
 */
#define EV_TABLE_ALIGN	8	/* every table starts so aligned in the inflated buffer (ev_row: uint64_t) */

extern const struct unlz_blob events_blob;
void events_tables_place(const uint8_t *base);

extern const char *events_strs;
extern const char *events_token_text;
extern const uint16_t *events_token_at;
extern const uint8_t *events_part_codes;
extern const uint16_t *events_part_at;
extern const struct ev_limits *events_limits;
extern const struct ev_offcore *events_offcore;
extern const uint32_t *events_msr_lo;
extern const uint32_t *events_msr_hi;
extern const struct ev_row *events_rows;
extern const struct ev_side *events_side;
extern const uint8_t *events_ops;
extern const struct ev_code_rule *events_code_rules;
extern const struct ev_amd_rule *events_amd_rules;
extern const size_t events_amd_rules_n;
extern const struct ev_note *events_notes;
extern const struct ev_set_rec *events_set_recs;
extern const size_t events_set_recs_n;
extern const struct ev_ibs_rec *events_ibs_recs;
extern const size_t events_ibs_recs_n;
extern const struct ev_uop *events_uops;
extern const size_t events_uops_n;
#ifdef PMUBOOT_HOSTED
/* Sources, descriptions and errata: the host program's (docs/events.md). */
struct ev_note_text {
	uint16_t source, desc;		/* offsets in events_text */
};
extern const char events_text[];
extern const uint16_t events_side_errata[];	/* per side row: offset in events_text */
extern const struct ev_note_text events_note_text[];	/* per note */
#endif

#endif
