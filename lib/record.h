/*
 * lib/record.h - machine-readable result records.
 *
 * Every record is one output line "@pmuboot {json}" holding one JSON object
 * with a "type" field.  A stream opens with a `begin` record and closes with
 * an `end` record carrying the number of records before it and a CRC-32 over
 * their JSON texts (each followed by '\n'), so a rig can tell a complete
 * capture from a truncated or damaged one.  docs/results-format.md is the
 * contract; tools/pmucap reads it.
 *
 * A record is built in a caller-owned struct rec and emitted the moment it
 * is complete.  Building never fails: a record that outgrows its buffer is
 * emitted with "truncated":true in place of the fields that did not fit.
 * The text buffer comes from a small pool (lib/heap.c) taken at rec_start
 * and given back by rec_emit, so a struct rec is small and may live on the
 * stack; records may be built while another is under construction.
 */
#ifndef PMUBOOT_LIB_RECORD_H
#define PMUBOOT_LIB_RECORD_H

#include "lib/libc.h"

#define REC_PREFIX "@pmuboot "
#define REC_FORMAT_VERSION 1
#define REC_MAX 8192
#define REC_MAX_DEPTH 8
#define REC_POOL 8	/* records under construction at once */

struct rec {
	char *buf;	/* from the pool between rec_start and rec_emit */
	size_t cap;
	size_t len;
	int depth;
	bool comma[REC_MAX_DEPTH];
	char closer[REC_MAX_DEPTH];
	bool overflow;
};

void rec_start(struct rec *r, const char *type);
void rec_str(struct rec *r, const char *key, const char *val);	/* NULL -> null */
void rec_strn(struct rec *r, const char *key, const char *val, size_t len);
void rec_u64(struct rec *r, const char *key, uint64_t v);
void rec_i64(struct rec *r, const char *key, int64_t v);
void rec_hex(struct rec *r, const char *key, uint64_t v);	/* "0x1f" as a string */
void rec_bool(struct rec *r, const char *key, bool v);
void rec_null(struct rec *r, const char *key);
/* A number with three decimals from a value in thousandths: 14023 -> 14.023. */
void rec_milli(struct rec *r, const char *key, int64_t milli);
void rec_obj(struct rec *r, const char *key);	/* key NULL inside an array */
void rec_obj_end(struct rec *r);
void rec_arr(struct rec *r, const char *key);
void rec_arr_end(struct rec *r);
void rec_emit(struct rec *r);
/*
 * While on, every record started gets "cpu": {"n": N, "apic_id": A}: the
 * processor the measurement ran on (run/run.c, cpus=).
 */
void rec_set_cpu(bool on, uint32_t n, uint32_t apic_id);

/* Stream bookkeeping. */
struct rec_stream_info {
	const char *version;	/* pmuboot version, e.g. "0.1.0" */
	const char *build;	/* build id (git describe or content hash) */
	const char *program;	/* "image" or "host" */
};
void rec_stream_begin(const struct rec_stream_info *info, void (*extra)(struct rec *r, void *ctx), void *ctx);
/* The `end` record; status is "ok" unless errors were recorded. */
void rec_stream_end(void);
bool rec_stream_open(void);
uint32_t rec_stream_count(void);
uint32_t rec_stream_errors(void);
/* Count an error towards the end status without emitting a record (the caller emits its own). */
void rec_stream_note_error(void);

/*
 * An `error` record plus a readable line: where it happened (e.g.
 * "pmuboot.cfg:3", "load-options", "pmu"), what (a short code) and why.
 */
void rec_error(const char *source, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Fixed-point text for human lines: fmt_milli(buf, 14023) -> "14.023". */
const char *fmt_milli(char buf[32], int64_t milli);

#endif
