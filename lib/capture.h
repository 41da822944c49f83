/*
 * lib/capture.h - finding records and whole runs in a capture (host tools).
 *
 * A capture is a serial log (firmware noise, ANSI escapes, CR/LF) or saved
 * records (a results file: bare JSON objects, one per line).  A line is a
 * record only when, after escape sequences at its start are removed, it
 * begins with "@pmuboot " or (saved records) with '{'; the prefix anywhere
 * else is text, never a record.
 *
 * A run is a `begin` record up to its `end` record.  It is complete when the
 * end is there and its record count and CRC-32 (lib/record.h) match the
 * records before it, and every one of them is valid JSON; anything else is
 * a problem saying which run (by its begin line) and why.  Hosted builds only.
 */
#ifndef PMUBOOT_LIB_CAPTURE_H
#define PMUBOOT_LIB_CAPTURE_H

#include "lib/libc.h"

/* The record's JSON text in line[0..len) (trailing CR and blanks dropped), or false. */
bool capture_record_text(const char *line, size_t len, const char **json, size_t *jlen);

struct capture_run {
	unsigned first_line, last_line;	/* the begin (or first stray record) .. the end or last record */
	bool complete;
	char problem[200];		/* why not complete */
};

/*
 * Split text into runs.  Returns a malloc'd array of *nruns runs (NULL and
 * 0 for a capture without records).  Records before any begin form a run
 * of their own, never complete.
 */
struct capture_run *capture_runs(const char *text, size_t len, size_t *nruns);
/* The run holding line number `line` (1-based), or NULL. */
const struct capture_run *capture_run_of_line(const struct capture_run *runs, size_t n, unsigned line);

#endif
