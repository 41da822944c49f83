/*
 * boot/screen.h - the screen for people (screen=readable).
 *
 * Serial and the results file carry every record; the screen shows the
 * same run laid out for someone standing at the machine: the CPU and PMU
 * in one block, a progress line (stage n of m, benchmark n of m), the
 * results as a table, and at the end a summary that stays.  It is fed the
 * lines and records every sink gets (lib/out.c), so it needs no hooks in
 * the stages: output/screen_state.c keeps what they say, reading records by
 * their fields.
 *
 * output/screen_layout.c lays that out in a character frame; this file
 * writes the rows that changed to the firmware consoles, with the cursor
 * placed explicitly, so nothing scrolls away.
 */
#ifndef PMUBOOT_BOOT_SCREEN_H
#define PMUBOOT_BOOT_SCREEN_H

#include <efi.h>
#include "lib/out.h"
#include "lib/record.h"
#include "run/config.h"

#define SCREEN_MAX_CONSOLES 4

/*
 * Take over these consoles (largest text mode that fits the frame) and
 * clear them.  False when none is large enough for the layout (then the
 * caller shows the lines as they come).
 */
bool screen_start(SIMPLE_TEXT_OUTPUT_INTERFACE **cons, unsigned n, const struct config *cfg);
/* The output sink: every text line (write_line) and record (write_record). */
void screen_sink(void *ctx, enum out_kind kind, const char *line, size_t len);
void screen_record(void *ctx, const struct rec *r);
/* The run is over: switch to the summary; next says what happens now (countdown, keys). */
void screen_summary(const char *next);
/* Text size in use (0 x 0 before screen_start). */
void screen_size(unsigned *cols, unsigned *rows);

#endif
