/*
 * boot/upload.h - the run's records POSTed to a collector (upload=,
 * upload_token=; net/upload_spec.h).
 *
 * From the begin record on, every record's JSON text and a '\n' is kept in
 * memory exactly as the results file saves it (boot/results_file.c), so
 * the body of the final upload is the saved file's bytes, begin to end
 * with its CRC, even when the medium has no file system (a network boot)
 * or is read-only.  After the end record the whole run goes out; with
 * `live`, the records so far also go after each stage.  Each upload is
 * tried a bounded number of times with doubling waits (net/retry.h), all
 * within the spec's time-out, through the firmware's network stack while
 * boot services are up (boot/http_call.h).
 *
 * Its outcome is an `upload` record: inside the run for a live upload,
 * and for the final one right after the end record (it cannot be inside
 * the run it reports on: docs/results-format.md, "The upload trailer").  A
 * failed upload is not a run error: the serial capture and the results
 * file hold everything regardless.
 */
#ifndef PMUBOOT_BOOT_UPLOAD_H
#define PMUBOOT_BOOT_UPLOAD_H

#include "lib/record.h"
#include "run/config.h"

/* Read cfg->upload and start keeping the records; before the begin record, before the results file's sink. */
void upload_attach(const struct config *cfg);
/* The begin record's "upload" object (null when there is no upload). */
void upload_begin_record(struct rec *r);
/* upload=...,live: the records so far, after the stage `name` (boot processor only; skipped elsewhere). */
void upload_after_stage(const char *name);
/* After the end record: the whole run, then the `upload` record. */
void upload_final(void);

#endif
