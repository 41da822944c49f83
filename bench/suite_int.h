/*
 * bench/suite_int.h - what the files of the benchmark stage share (internal
 * to bench/suite*.c): the stage's state and the helpers of each file.
 *   suite.c         the stage: choose, set up, run the rows, checks, observers
 *   suite_setup.c   counting, APERF, extra events, arenas, calibration, bench_setup
 *   suite_events.c  which events a variant counts
 *   suite_record.c  the bench record and its readable line
 */
#ifndef PMUBOOT_BENCH_SUITE_INT_H
#define PMUBOOT_BENCH_SUITE_INT_H

#include "bench/suite.h"
#include "bench/check.h"
#include "bench/harness.h"
#include "bench/kernels.h"
#include "events/events.h"
#include "lib/record.h"
#include "pmu/count/count.h"

#define EXTRA_MAX 8
#define SLOT_MAX 2
#define MEMO_MAX 12
#define MEMO_EV_MAX 6
#define NO_SLOT (-1)
/* Sample storage in an arena starts past the kernels' scratch window. */
#define POOL_ARENA_OFFSET (64u * 1024)

/*
 * Where the kernels run when no arena is at hand (non-split kernels always,
 * split kernels when arena_get refuses), and where samples are kept when
 * there is no arena: the run-time heap (lib/heap.h; the image's .bss is
 * file bytes), or when that is exhausted the stage's own stack frame, which
 * holds these 12 KiB + 4 KiB easily (UEFI gives at least 128 KiB of stack,
 * UEFI 2.10 section 2.3.4.1).
 */
#define SCRATCH_BYTES (BENCH_WINDOW_BYTES + 4096)	/* room to align a window to 4 KiB */
#define POOL_STACK 512u
/* An arena page size the split kernels run in. */
struct slot {
	const char *name;	/* "4k", "2m" or "fallback" */
	uint8_t *window;
	uint32_t page;		/* page size backing the window, 0 when unknown */
	const char *how;	/* the arena's own account of its mapping, or NULL */
};

/* A control's figures, kept for the variants compared with it. */
struct memo {
	const struct bench_def *d;
	int slot;
	struct bench_figure cycles;
	size_t nev;
	struct check_event ev[MEMO_EV_MAX];	/* names point at event tables or suite.extra: static */
};

/* What one measured variant showed, for its record and its checks. */
struct measured {
	struct bench_figure cycles;
	const char *cycles_source;
	bool have_instructions;
	struct bench_figure instructions;
	struct check_event ev[COUNT_MAX_EVENTS];
	size_t nev;
};

struct suite {
	const struct bench_params *p;
	const struct cpu_info *ci;
	const struct event_set *set;
	bool amd, emulator;
	struct bench_setup hs;
	uint8_t *scratch;		/* 4 KiB-aligned, BENCH_WINDOW_BYTES, valid during bench_stage */
	int64_t *pool_fallback;		/* sample storage when there is no arena */
	struct rec rec;			/* records are built and emitted one at a time */
	char count_why[160];
	struct event_spec extra[EXTRA_MAX];
	size_t nextra;
	int64_t ppm;			/* core cycles per TSC tick, millionths; 0 = uncalibrated */
	const char *calibration;	/* where ppm came from */
	int64_t calib_spread;
	int64_t ppm_before, ppm_after;	/* the calibrations around the variant just measured (0: none) */
	unsigned remeasured;		/* times it was measured again because the clock moved */
	unsigned settle_runs;		/* calibrations at the start until the clock held still */
	const char *samples_in;		/* "arena", "heap" or "stack" */
	const char *aperf_why;		/* why IA32_APERF is not a cycle source, or NULL when it is */
	struct slot slots[SLOT_MAX];
	size_t nslots;
	bool sel[64];
	struct memo memo[MEMO_MAX];
	size_t nmemo;
	struct check_tally tally;
	unsigned measured;
};
extern struct suite suite;

/* suite_setup.c */
const struct event_set *suite_core_event_set(const struct cpu_info *ci);
void suite_setup_counting(void);
void suite_setup_aperf(bool image);
void suite_setup_extra_events(void);
void suite_setup_arenas(char *notes, size_t cap);
void suite_calibrate(uint8_t *window);
void suite_setup_record(const char *arena_notes);

/* suite_events.c */
void suite_build_set(struct count_set *cs, uint32_t roles);
uint32_t suite_roles_for(const struct bench_def *d);
const char *suite_static_name(const struct event_spec *sp);
bool suite_counts_cycles(const struct count_set *cs);

/* suite_record.c */
void suite_emit_bench(const struct bench_def *d, const struct slot *sl, const struct count_set *cs,
		      const struct bench_result *res, const struct measured *m, const struct memo *ctl);

#endif
