/* output/spool.c - see spool.h. */
#include "output/spool.h"
#include "platform/firmware.h"
#include "lib/out.h"
#include "lib/record.h"

/* A full suite on one processor writes about 150 KiB; room for a verbose one with raw IBS samples. */
#define SPOOL_BYTES (8u * 1024 * 1024)
#define SPOOL_ALIGN 4096u

/* Each line: its kind, its length, its bytes. */
struct spool_head {
	uint8_t kind;
	uint32_t len;
} __attribute__((packed));

static struct {
	uint8_t *buf;
	size_t used;
	size_t lost_text, lost_records;
	bool on;
	struct out_sink_table real;
} sp;

static void spool_line(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	struct spool_head h = { (uint8_t)kind, (uint32_t)len };
	(void)ctx;
	if (sp.used + sizeof(h) + len > SPOOL_BYTES) {
		if (kind == OUT_RECORD)
			sp.lost_records++;
		else
			sp.lost_text++;
		return;
	}
	memcpy(sp.buf + sp.used, &h, sizeof(h));
	memcpy(sp.buf + sp.used + sizeof(h), line, len);
	sp.used += sizeof(h) + len;
}

bool spool_begin(char *why, size_t why_cap)
{
	static const struct out_sink sink = { .name = "spool", .write_line = spool_line };

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

size_t spool_end(void)
{
	size_t n = 0;

	if (!sp.on)
		return 0;
	sp.on = false;
	out_restore_sinks(&sp.real);
	/* The lines were cleaned on their way in (out_line): each goes to the sinks that did not see it live. */
	for (size_t at = 0; at + sizeof(struct spool_head) <= sp.used; n++) {
		struct spool_head h;
		memcpy(&h, sp.buf + at, sizeof(h));
		const char *line = (const char *)sp.buf + at + sizeof(h);
		for (size_t i = 0; i < sp.real.n; i++) {
			const struct out_sink *s = &sp.real.sink[i];
			if (!s->any_cpu && !(h.kind == OUT_TEXT && s->records_only))
				s->write_line(s->ctx, (enum out_kind)h.kind, line, h.len);
		}
		at += sizeof(h) + h.len;
	}
	if (sp.lost_records || sp.lost_text) {
		/* Counted and CRC'd when written: the end record will not match the capture, and says so here. */
		rec_error("cpus", "output", "%zu records and %zu text lines from the other processor did not fit in "
			  "the %u KiB spool and are lost", sp.lost_records, sp.lost_text, SPOOL_BYTES / 1024);
	}
	return n;
}
