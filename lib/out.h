/*
 * lib/out.h - where every line of output goes.
 *
 * Output is a list of sinks (serial port, screen, results file on the boot
 * medium, stdout on the host).  Each line is handed to every sink as soon
 * as it is complete, so nothing already printed can be lost to a later
 * crash.  Text is ASCII with '\n' line ends; a sink that needs CRLF adds it.
 * A record goes to a sink as its line, or, to a sink that reads fields
 * (the screen), as the record itself with its index (lib/record.h).
 */
#ifndef PMUBOOT_LIB_OUT_H
#define PMUBOOT_LIB_OUT_H

#include "lib/libc.h"

struct rec;

enum out_kind {
	OUT_TEXT,	/* human-readable line */
	OUT_RECORD,	/* an "@pmuboot {json}" line */
};

struct out_sink {
	const char *name;
	/* Write one complete line (without its '\n'). */
	void (*write_line)(void *ctx, enum out_kind kind, const char *line, size_t len);
	/*
	 * Optional: takes each record in place of its line, fields indexed
	 * (rec_get_str, rec_line ...), valid for the call.  Text lines still
	 * come through write_line.
	 */
	void (*write_record)(void *ctx, const struct rec *r);
	void *ctx;
	/* Text lines go only to sinks that want them (a results file wants records only). */
	bool records_only;
	/*
	 * write_line calls no firmware service, so it may run on whichever
	 * processor is running the run (the others wait): our own UART.  Such a
	 * sink stays live during a pass on another processor (output/spool.c).
	 */
	bool any_cpu;
	/*
	 * Bytes a second where write_line waits on a line of fixed rate (a UART: its baud over the ten bits
	 * 8N1 sends a byte in); 0 where the sink is not bounded so.  A long run says what its output costs.
	 */
	uint32_t bytes_per_s;
};

#define OUT_MAX_SINKS 6

/* Returns false when the table is full. */
bool out_add_sink(const struct out_sink *sink);
void out_remove_sink(const char *name);
/* The slowest rate among the sinks' bytes_per_s (0: none is bounded) and, where one is, its name in *name. */
uint32_t out_slowest_rate(const char **name);
void out_reset(void);

/*
 * The sink table as it is, and back.  While another processor runs a
 * measuring pass the boot CPU swaps in a memory sink (output/spool.c: the
 * real sinks call firmware services, which are not MP-safe) and replays
 * what it caught through out_line once the pass is over.
 */
struct out_sink_table {
	struct out_sink sink[OUT_MAX_SINKS];
	size_t n;
};
void out_save_sinks(struct out_sink_table *t);
void out_restore_sinks(const struct out_sink_table *t);

/*
 * One human-readable line per call; a trailing '\n' in fmt is optional.
 * A text line never holds a record or a line break: out_line shows control
 * characters, bytes >= 0x7f and the '@' of "@pmuboot" in a text line as
 * \xNN (tab excepted), so strings from outside cannot forge a record.
 */
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_line(const char *line, size_t len);
/*
 * A record, complete (rec_emit): to every sink, as the sink takes it -- the
 * structure, or its line ("@pmuboot {...}", len bytes).  The caller hands
 * both so that output never reaches back into the record builder (no circle
 * of files: lib/record.c calls down into lib/out.c, never the reverse).
 */
void out_record(const struct rec *r, const char *line, size_t len);
/* The same to one sink (output/spool.c replays held records so). */
void out_sink_record(const struct out_sink *s, const struct rec *r, const char *line, size_t len);

/*
 * A string from outside (firmware tables, CPUID brand, file names, option
 * values) made safe to print inside a text line: every byte that is not
 * printable ASCII -- tab and newline included -- and the '@' of "@pmuboot"
 * become \xNN.  dst is always NUL-terminated (when cap > 0) and never holds
 * half an escape; the return value is the length the full escape needs.
 */
size_t out_clean_n(char *dst, size_t cap, const char *s, size_t len);
const char *out_clean(char *dst, size_t cap, const char *s);	/* returns dst */
/* True when a text line needs no escaping. */
bool out_text_is_clean(const char *line, size_t len);

#endif
