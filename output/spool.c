/* output/spool.c - see spool.h. */
#include "output/spool.h"
#include "output/spool_internal.h"
#include "platform/firmware.h"
#include "lib/out.h"
#include "lib/record.h"

#define SPOOL_ALIGN 4096u

/*
 * Each line: its head, its bytes, and for a record its field index (so the
 * screen reads the replayed record as it would have read it live).  Every
 * entry starts aligned for the head and the index.
 */
struct spool_head {
	uint32_t len;
	uint16_t nfields;
	uint8_t kind;
};
#define ENTRY_ALIGN 8u

static struct {
	uint8_t *buf;
	size_t used;
	size_t lost_text, lost_records;
	bool on;
	struct out_sink_table real;
} sp;

static size_t round_up(size_t n)
{
	return (n + ENTRY_ALIGN - 1) & ~(size_t)(ENTRY_ALIGN - 1);
}

size_t spool_entry_bytes(size_t len, size_t nfields)
{
	return round_up(sizeof(struct spool_head) + len) + round_up(nfields * sizeof(struct rec_field));
}

static void hold(enum out_kind kind, const char *line, size_t len, const struct rec_field *f, size_t nfields)
{
	struct spool_head h = { (uint32_t)len, (uint16_t)nfields, (uint8_t)kind };
	size_t need = spool_entry_bytes(len, nfields);
	if (len > UINT32_MAX || need > SPOOL_BYTES - sp.used) {
		if (kind == OUT_RECORD)
			sp.lost_records++;
		else
			sp.lost_text++;
		return;
	}
	uint8_t *p = sp.buf + sp.used;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), line, len);
	if (nfields)
		memcpy(p + round_up(sizeof(h) + len), f, nfields * sizeof(*f));
	sp.used += need;
}

static void spool_text(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	hold(kind, line, len, NULL, 0);
}

static void spool_record(void *ctx, const struct rec *r)
{
	const struct rec_field *f;
	size_t n = rec_fields(r, &f), len;
	const char *line = rec_line(r, &len);
	(void)ctx;
	hold(OUT_RECORD, line, len, f, n);
}

bool spool_begin(char *why, size_t why_cap)
{
	static const struct out_sink sink = { .name = "spool", .write_line = spool_text, .write_record = spool_record };

	if (!sp.buf)
		sp.buf = fw_alloc_pages(SPOOL_BYTES, SPOOL_ALIGN);
	if (!sp.buf) {
		snprintf(why, why_cap, "no memory to hold another processor's output (%u KiB)", SPOOL_BYTES / 1024);
		return false;
	}
	sp.used = sp.lost_text = sp.lost_records = 0;
	out_save_sinks(&sp.real);
	/* Sinks that need no firmware stay live (the serial port); the spool stands in for the rest. */
	struct out_sink_table live = { .n = 0 };
	for (size_t i = 0; i < sp.real.n; i++)
		if (sp.real.sink[i].any_cpu)
			live.sink[live.n++] = sp.real.sink[i];
	out_restore_sinks(&live);
	out_add_sink(&sink);
	sp.on = true;
	return true;
}

/* One held line to the sinks that did not see it live. */
static void replay(const struct spool_head *h, const char *line, const struct rec_field *f)
{
	struct rec view;
	if (h->kind == OUT_RECORD)
		rec_view(&view, line, h->len, f, h->nfields);
	for (size_t i = 0; i < sp.real.n; i++) {
		const struct out_sink *s = &sp.real.sink[i];
		if (s->any_cpu)
			continue;
		if (h->kind == OUT_RECORD)
			out_sink_record(s, &view, line, h->len);
		else if (!s->records_only)
			s->write_line(s->ctx, OUT_TEXT, line, h->len);
	}
}

size_t spool_end(void)
{
	size_t n = 0;

	if (!sp.on)
		return 0;
	sp.on = false;
	out_restore_sinks(&sp.real);
	/* The lines were cleaned on their way in (out_line), the records built whole: each is replayed as it came. */
	for (size_t at = 0; at < sp.used; n++) {
		const struct spool_head *h = (const struct spool_head *)(sp.buf + at);
		const char *line = (const char *)(h + 1);
		const struct rec_field *f = (const struct rec_field *)(sp.buf + at + round_up(sizeof(*h) + h->len));
		replay(h, line, f);
		at += spool_entry_bytes(h->len, h->nfields);
	}
	if (sp.lost_records || sp.lost_text) {
		/* Counted and CRC'd when written: the end record will not match the capture, and says so here. */
		rec_error("cpus", "output", "%zu records and %zu text lines from the other processor did not fit in "
			  "the %u KiB spool and are lost", sp.lost_records, sp.lost_text, SPOOL_BYTES / 1024);
	}
	return n;
}
