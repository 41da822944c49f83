/*
 * events/events_table.h - the compact tables tools/gen_events.py generates from the CSV
 * files in events/ into $(B)/gen/events_table.c.  Private to events/: everyone else goes
 * through events.h.
 *
 * Why not the structs of events.h directly: the image is position-independent, and every
 * pointer stored in its data costs a 24-byte relocation besides the pointer itself.  These
 * records hold 16-bit offsets into string pools instead, and events.c builds the structs of
 * events.h at run time, on demand, with pointers computed in code (no relocations).
 */
#ifndef PMUBOOT_EVENTS_EVENTS_TABLE_H
#define PMUBOOT_EVENTS_EVENTS_TABLE_H

#include "events/events.h"

#define EVF_INV		0x01u
#define EVF_EDGE	0x02u
#define EVF_ANY		0x04u
#define EVF_PRECISE	0x08u
#define EVF_FIXED_ONLY	0x10u

/* Limits the generator checks at compile time (_Static_assert in the generated file). */
#define EV_MAX_SETS	48
#define EV_MAX_IBS	64
#define EV_POOL_IMAGE	64	/* struct event_def slots in the image: a few sets' worth */
#define EV_POOL_HOSTED	1024	/* the host program and tests can hold every set at once */

struct ev_rec {
	uint16_t name;			/* offset in events_strs */
	uint16_t source, desc;		/* offsets in events_text (host only) */
	uint16_t event;
	uint32_t counters;
	uint32_t roles;
	uint8_t umask, cmask, flags;	/* EVF_* */
	int8_t fixed;
};

struct ev_set_rec {
	uint16_t key, name;		/* offsets in events_strs */
	uint16_t first, n;		/* events_idx[first .. first+n) index events_recs */
	uint8_t amd;
};

struct ev_ibs_rec {
	uint16_t code;
	uint16_t name, abbrev;		/* offsets in events_strs */
	uint16_t desc;			/* offset in events_text (host only) */
};

extern const char events_strs[];
#ifdef PMUBOOT_HOSTED
extern const char events_text[];
#endif
extern const struct ev_rec events_recs[];
extern const uint16_t events_idx[];
extern const struct ev_set_rec events_set_recs[];
extern const size_t events_set_recs_n;
extern const struct ev_ibs_rec events_ibs_recs[];
extern const size_t events_ibs_recs_n;

#endif
