/*
 * lib/capture.h - reading a capture (host tools): its records, its runs and
 * their integrity.
 *
 * tools/pmucap/capture.py is the authoritative reader (docs/results-format.md,
 * "Reading a capture", says why); this one follows its rules exactly, and
 * tests/host/test_capture_readers.py holds the two to the same runs, records,
 * counts, CRC verdicts and problems on every fixture and hostile capture:
 *
 * - serial noise goes first: ANSI escape sequences anywhere (CSI, OSC ended by
 *   BEL or ESC \, and ESC followed by one of @..Z or \.._), then NUL bytes;
 *   a line ends at LF, CR or CR LF;
 * - a capture with a line starting "@pmuboot " is a serial log, where only such
 *   lines are records; any other is saved records, where a line starting '{'
 *   is one;
 * - a record's JSON text (the rest of the line, trailing white space dropped;
 *   the bytes read as Latin-1, as pmucap reads them) must be an object with a
 *   non-empty string "type", finite numbers, integers of at most
 *   CAPTURE_INT_DIGITS digits and no value nested deeper than
 *   CAPTURE_MAX_DEPTH levels; anything else is a damaged record;
 * - a run is a begin record up to its end record; every record line between
 *   (begin included, damaged ones too) counts towards the end record's
 *   "records" and "crc32" (CRC-32 of each JSON text and a newline,
 *   lib/record.h).  It is complete when the end is there, its count, CRC and
 *   status are right and nothing else in it was damaged.  A begin closes the
 *   run before it; records outside every run are problems of no run.
 *
 * Hosted builds only.
 */
#ifndef PMUBOOT_LIB_CAPTURE_H
#define PMUBOOT_LIB_CAPTURE_H

#include "lib/libc.h"

#define CAPTURE_MAX_DEPTH 16	/* tools/pmucap/capture.py MAX_DEPTH */
#define CAPTURE_INT_DIGITS 24	/* tools/pmucap/capture.py MAX_INT_DIGITS */

/* What is wrong, one kind per message tools/pmucap/capture.py can give. */
enum capture_problem_kind {
	CAPTURE_DAMAGED_LINE,	/* serial log: a line holding "@pmuboot" that is not a record line */
	CAPTURE_NOT_A_RECORD,	/* saved records: a line neither blank nor a record */
	CAPTURE_BAD_RECORD,	/* a record line whose JSON is not a record (see above) */
	CAPTURE_BEFORE_BEGIN,	/* a record before any begin record */
	CAPTURE_NO_END,		/* the run has no end record */
	CAPTURE_BAD_COUNT,	/* the end record's "records" is not an integer */
	CAPTURE_COUNT_MISMATCH,	/* ... or not the number of records */
	CAPTURE_BAD_CRC,	/* the end record's "crc32" is not 8 lower-case hex digits */
	CAPTURE_CRC_MISMATCH,	/* ... or not the records' CRC */
	CAPTURE_BAD_STATUS,	/* the end record's "status" is not a string */
};

struct capture_problem {
	enum capture_problem_kind kind;
	unsigned run;		/* 1-based run number; 0: outside every run */
	unsigned line;		/* the line it is about; 0: the run's end checks */
	char text[160];		/* one line saying what is wrong */
};

/* A record line (a valid record or a damaged one) of the cleaned text. */
struct capture_record_line {
	unsigned line;
	unsigned run;		/* 1-based run number; 0: outside every run */
	bool valid;		/* a JSON object with a type, as above */
	bool end;		/* the run's end record (not counted in it) */
	const char *text;	/* the whole line, in capture_file.text */
	size_t text_len;
	const char *json;	/* its JSON text, in capture_file.text (what the CRC covers) */
	size_t json_len;
};

struct capture_run {
	unsigned number;	/* 1-based, in capture order */
	unsigned first_line;	/* its begin record */
	unsigned last_line;	/* its end record, or its last record line */
	unsigned end_line;	/* 0: no end record */
	unsigned count;		/* record lines counted towards the end record */
	bool complete;
	char problem[200];	/* its first problems on one line, "" when complete */
};

struct capture_file {
	char *text;		/* the capture with the noise removed: lines end in '\n', no CR, NUL or escape */
	size_t len;
	unsigned lines;		/* lines of text, numbered from 1 as pmucap numbers them */
	bool serial;		/* a serial log (else saved records) */
	struct capture_record_line *records;
	size_t nrecords;
	struct capture_run *runs;
	size_t nruns;
	struct capture_problem *problems;	/* in line order within each run, then its end checks */
	size_t nproblems;
};

/* Read raw[0..len).  Returns false only when out of memory (c is then empty). */
bool capture_file_read(struct capture_file *c, const char *raw, size_t len);
void capture_file_free(struct capture_file *c);
/* The record on line `line` (1-based), or NULL when that line holds none. */
const struct capture_record_line *capture_file_record_at(const struct capture_file *c, unsigned line);
/* The run a record belongs to, or NULL. */
const struct capture_run *capture_file_run_of(const struct capture_file *c, const struct capture_record_line *r);

/*
 * The JSON text of a record line: after the "@pmuboot " prefix, or the whole
 * line when it starts with '{' (saved records), with trailing white space
 * dropped as the reader drops it; false for any other line.  Escape sequences
 * and CRs before the prefix are skipped, so a raw serial line reads too (a
 * cleaned one has none).  Which lines are records also depends on the whole
 * capture: capture_file_read decides, and reads its lines with this.
 */
bool capture_record_text(const char *line, size_t len, const char **json, size_t *jlen);

#endif
