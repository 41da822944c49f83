/*
 * output/screen_layout.h - the readable screen's layout: which line goes on
 * which row, how wide each column is, what is cut and what is left out.
 *
 * The frame is characters and an attribute per row; boot/screen.c draws it
 * on the firmware's consoles (only the rows that changed).  Portable, so the
 * layout is built for the host and tested there.
 */
#ifndef PMUBOOT_OUTPUT_SCREEN_LAYOUT_H
#define PMUBOOT_OUTPUT_SCREEN_LAYOUT_H

#include "output/screen_state.h"

/* Large enough for common firmware text modes (80x25, 100x31, 128x40, 160x53). */
#define SL_COLS_MAX 160
#define SL_ROWS_MAX 64
#define SL_COLS_MIN 80	/* narrower modes are not chosen; the firmware's own mode is kept then */
#define SL_ROWS_MIN 20	/* the layout needs 12 rows; fewer than 20 leaves no room for results */

/* How a row looks; boot/screen.c maps each to the console's colours. */
enum sl_attr { SL_NORMAL, SL_TITLE, SL_HEAD, SL_TABLE, SL_FAIL, SL_UNSTABLE, SL_GOOD, SL_ATTRS };

#define SL_SUMMARY_LINE (2 * SS_LINE)	/* the longest summary line whole; the frame cuts it to the screen */

struct screen_frame {
	unsigned cols, rows;	/* the size laid out for, at most SL_COLS_MAX x SL_ROWS_MAX */
	char text[SL_ROWS_MAX][SL_COLS_MAX + 1];	/* each row at most cols - 1 characters: the last column never wraps */
	uint8_t attr[SL_ROWS_MAX];			/* enum sl_attr */
	/* Room the layout works in, kept here so it needs no stack or allocation of its own. */
	char sum[SL_ROWS_MAX][SL_SUMMARY_LINE];
	uint8_t sum_attr[SL_ROWS_MAX];
	bool keep[SS_ROWS];
};

/* The run's stages in order, for "stage 6 of 9" (boot/screen.c gives run/run.h's). */
struct sl_stages {
	const char *(*name)(size_t i);
	size_t count;
};

/* Lay ss out in f (f->cols and f->rows set by the caller). */
void screen_compose(struct screen_frame *f, const struct screen_state *ss, const struct sl_stages *stages);

#endif
