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
 *
 * Beside the text, every value is indexed as it is written (struct
 * rec_field: where its key and value sit in the text, its type, the
 * object or array it is in), so a sink that reads fields (the screen)
 * gets them by path without parsing JSON: rec_get_str(r, "cycles.median").
 * Sinks that want the text get the line bytes, exactly as before.
 */
#ifndef PMUBOOT_LIB_RECORD_H
#define PMUBOOT_LIB_RECORD_H

#include "lib/libc.h"

#define REC_PREFIX "@pmuboot "
#define REC_FORMAT_VERSION 1
#define REC_MAX 8192
#define REC_MAX_DEPTH 8
#define REC_POOL 8	/* records under construction at once */
/*
 * Values indexed per record (the record's own object is the first).  A
 * value takes at least two bytes of text ("1,"), most far more: REC_MAX / 4
 * covers any record whose values average four bytes.  Values past it are
 * written but not indexed (struct rec.index_short) and read as absent.  With
 * the text, a pool buffer is 32 KiB; REC_POOL of them at most, from the heap.
 */
#define REC_FIELDS (REC_MAX / 4)

enum rec_type { REC_ABSENT, REC_NULL, REC_BOOL, REC_NUMBER, REC_STRING, REC_OBJECT, REC_ARRAY };

/* One value of a record.  Offsets are into the record's JSON text (rec_line after the prefix), below REC_MAX. */
struct rec_field {
	uint16_t parent;	/* the object or array it is in (field 0, the record, is its own) */
	uint16_t key, key_len;	/* the key as written, escaped, without quotes; key_len 0 in an array */
	uint16_t at, len;	/* the value as written: a string without its quotes, an object or array whole */
	uint8_t type;		/* enum rec_type */
};

struct rec {
	char *buf;	/* from the pool between rec_start and rec_emit */
	size_t cap;
	size_t len;
	int depth;
	bool comma[REC_MAX_DEPTH];
	char closer[REC_MAX_DEPTH];
	bool overflow;
	uint32_t lost;	/* objects and arrays opened after the overflow: nothing of them is written, closers neither */
	/* The index, from the pool with the text. */
	struct rec_field *field;
	uint16_t nfields, field_cap;
	uint16_t open[REC_MAX_DEPTH];	/* the field of the object or array open at each depth */
	bool index_short;		/* values past field_cap are not indexed */
	const char *json;		/* the JSON text once emitted (or as a sink was given it), else NULL */
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

/*
 * Reading a record a sink was given (struct out_sink.write_record).  A
 * field is named by its index: 0 is the record's own object, -1 absent;
 * every reader takes -1 and answers "absent".  A path is keys joined by
 * dots, from field `in` ("cycles.median"; "" is `in` itself); array
 * elements are reached with rec_child.  Valid while the sink call lasts.
 */
#define REC_ROOT 0
int rec_find(const struct rec *r, int in, const char *path);
enum rec_type rec_type_of(const struct rec *r, int f);
/* The i-th member of an object or element of an array, in order (-1 past the last), and how many. */
int rec_child(const struct rec *r, int f, size_t i);
size_t rec_count(const struct rec *r, int f);
/* A member's key, unescaped into buf as rec_text does (always terminated; "" for an element). */
const char *rec_key(const struct rec *r, int f, char *buf, size_t cap);
/*
 * A value as text in buf (always terminated when cap > 0), cut to the
 * buffer: a string unescaped for showing (a byte written \u00XX as '?',
 * a line break or tab as a space), a number or boolean as written; ""
 * when absent, null, an object or an array.
 */
const char *rec_text(const struct rec *r, int f, char *buf, size_t cap);
bool rec_u64_of(const struct rec *r, int f, uint64_t *v);	/* an integer that fits */
/* A number in thousandths (14.023 -> 14023): at most three decimals, within int64_t. */
bool rec_milli_of(const struct rec *r, int f, int64_t *milli);

/* The same from the record's top: rec_get_str(r, "cycles.median", buf, cap); else rec_find(r, REC_ROOT, path). */
const char *rec_get_str(const struct rec *r, const char *path, char *buf, size_t cap);
bool rec_get_u64(const struct rec *r, const char *path, uint64_t *v);
/* A string that is word, a plain word ("bench", "pass": compared as written, so nothing escaped). */
bool rec_is(const struct rec *r, const char *path, const char *word);
bool rec_is_true(const struct rec *r, const char *path);
bool rec_is_null(const struct rec *r, const char *path);	/* null, not absent */
bool rec_has(const struct rec *r, const char *path);		/* present, null included */

/* The record's line, "@pmuboot {...}" without its '\n', once emitted ("" before). */
const char *rec_line(const struct rec *r, size_t *len);
/* Its index: *f gets the fields, the count is returned (output/spool.c keeps them). */
size_t rec_fields(const struct rec *r, const struct rec_field **f);
/*
 * A record again from a line and index rec_line and rec_fields gave, held
 * elsewhere (output/spool.c replays them): v reads as the original did.
 */
void rec_view(struct rec *v, const char *line, size_t len, const struct rec_field *f, size_t n);

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
