/*
 * output/screen_state.h - what the readable screen knows about the run so far,
 * gathered from the text lines and records every sink receives.  Records are
 * read by their fields (lib/record.h), never parsed back out of their text.
 */
#ifndef PMUBOOT_OUTPUT_SCREEN_STATE_H
#define PMUBOOT_OUTPUT_SCREEN_STATE_H

#include "lib/record.h"
#include "run/config.h"

#define SS_LINE 160
/*
 * Result rows kept: one per kernel.variant[@arena] and processor.  bench=all
 * makes about 80 on one processor (the split variants once per arena, the
 * memory ladder's points), so with cpus=all the rows of about six processors
 * fit; the rest are counted (rows_dropped), and a failed one is still named.
 */
#define SS_ROWS 512
#define SS_ERRORS 4
#define SS_LIST 120	/* names of failed / unstable variants */

enum ss_check { SS_NONE, SS_PASS, SS_SKIP, SS_UNSTABLE, SS_FAIL };

#define SS_NAME 48

struct ss_row {
	char name[SS_NAME];	/* [cpu:]kernel.variant[@arena], the processor when several are measured */
	char cycles[16];	/* median, cycles per iteration */
	char penalty[16];	/* median minus the control's, or "" */
	char events[56];	/* the checked events: "role value ..." */
	char status_text[12];	/* an unknown check status, verbatim */
	char topdown[40];	/* the metrics record: level 1 in percent, "/"-separated, and the largest level 2 node */
	enum ss_check check;	/* the worst of its checks */
};

struct screen_state {
	const struct config *cfg;
	char title[SS_LINE];
	char machine[SS_LINE];
	char cpu[SS_LINE], cpu2[SS_LINE];
	char pmu[SS_LINE];
	char cache[SS_LINE];	/* the first cache record's levels: "L1d 48K 12-way, L1i 32K 8-way, L2 2M 16-way, ..." */
	char ibs[SS_LINE];
	char saved[SS_LINE];
	char activity[48];
	unsigned bench_total, bench_done;
	unsigned bench_unstable;	/* figures whose bench record says `unstable`: shown with a ~ */
	unsigned instr_done;		/* instr records (instruction forms, instr=): a row each */
	char bench_last[48];
	char kernels[SS_LINE];
	bool multi;		/* several processors are measured (topology's chosen_count > 1) */
	char passes[SS_LINE];	/* "0 measured, 1 fault, ..." from the pass records */
	char expected[SS_LINE];	/* the first fault a self-test asked for */
	unsigned nexpected;
	char last_kernel[32];
	bool topdown;		/* a metrics record came: the table has a top-down column */
	unsigned variants;
	struct ss_row rows[SS_ROWS];
	unsigned nrows, rows_dropped;	/* rows_dropped: figures that did not fit in rows[] */
	unsigned checks[SS_FAIL + 1];	/* check records by status */
	unsigned selftests_pass, selftests_fail;
	unsigned audit_pass, audit_fail, audit_absent;	/* audit records by status (every processor's) */
	char audit_failed[SS_LIST];	/* "instructions pmc2, clock" */
	char skip_reason[SS_LINE];
	bool skip_reasons_differ;
	char failed[SS_LIST], unstable[SS_LIST];
	char errors[SS_ERRORS][SS_LINE];
	unsigned nerrors;
	char message[SS_LINE];	/* the last text line */
	char end_status[16];	/* from the end record: "ok", "error" ("?" when it has none), "" while running */
	bool finished;
	bool message_after_summary;	/* a countdown line replaces "Next" */
	char next[SS_LINE];
};

/* Allocated by screen_start. */
extern struct screen_state *ssp;

/* Fold one text line, or one record, into *ssp (nothing before screen_start). */
void ss_text(const char *line, size_t len);
void ss_record(const struct rec *r);

#endif
