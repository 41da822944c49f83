/*
 * host/cmd_ibs_report.c - pmuboot-host ibs-report LOGFILE: the IBS
 * derived events computed offline from a capture's ibs_sample records.
 *
 * The capture is a serial log or saved records of a run made with
 * ibs_raw=on.  Samples are grouped per kernel variant in the order they were
 * printed: a variant's samples come first, then its ibs record (which gives
 * the CPU's IBS capabilities and what was sampled).  Each group is decoded
 * with the image's own code (pmu/ibs/ibs_decode.c) and printed as one ibs record
 * ("source":"capture") and a readable table, so the numbers are the image's.
 *
 * Only complete runs are read (lib/capture.h, which reads a capture as pmucap
 * does: begin to end, count and CRC matching): a damaged run, or damage
 * outside every run, is refused by name, and the exit status is 1, unless
 * --allow-incomplete asks for the runs to be read anyway.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "host/host_dump.h"
#include "lib/capture.h"
#include "lib/record.h"
#include "lib/out.h"
#include "pmu/ibs/ibs.h"
#include "pmu/ibs/ibs_regs.h"

struct group {
	char kernel[64], variant[64];
	uint32_t family, model;
	bool have_caps, have_sampled;
	uint32_t caps, arena_page;
	bool sampled[IBS_KINDS];
	struct ibs_sample *s;
	size_t n, cap;
};

static struct {
	const char *file;
	struct group cur;
	bool open;
	unsigned groups, errors, absent;
} st;

static void problem(unsigned line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(unsigned line, const char *fmt, ...)
{
	char where[300], msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(where, sizeof(where), "%s:%u", st.file, line);
	else
		snprintf(where, sizeof(where), "%s", st.file);
	fprintf(stderr, "pmuboot-host ibs-report: %s: %s\n", where, msg);
	rec_error(where, "ibs-report", "%s", msg);
	st.errors++;
}

static void close_group(void)
{
	struct group *g = &st.cur;
	struct ibs_target t = { g->family, g->model, g->have_caps ? g->caps : IBS_CAP_DEFAULT };
	struct ibs_profile p;
	struct ibs_counts c;

	if (!st.open)
		return;
	st.open = false;
	if (!ibs_profile_get(&t, &p)) {
		problem(0, "%s.%s: Family %xh: %s", g->kernel, g->variant, (unsigned)g->family, p.name);
		g->n = 0;
		return;
	}
	if (!g->have_caps)
		out_text("note: %s.%s has no ibs record in the capture: its IBS capabilities are unknown, so "
			 "only the basic fields are decoded", g->kernel, g->variant);
	if (!g->have_sampled)
		for (size_t i = 0; i < g->n; i++)
			g->sampled[g->s[i].kind == IBS_KIND_FETCH ? IBS_KIND_FETCH : IBS_KIND_OP] = true;
	ibs_counts_clear(&c);
	for (size_t i = 0; i < g->n; i++)
		ibs_decode(&p, &g->s[i], &c);
	struct ibs_variant_report v = {
		.source = "capture",
		.kernel = g->kernel,
		.variant = g->variant,
		.arena_page = g->arena_page,
		.target = t,
		.sampled = { g->sampled[IBS_KIND_FETCH], g->sampled[IBS_KIND_OP] },
		.counts = &c,
	};
	ibs_report_variant(&v);
	ibs_report_table(&v);
	st.groups++;
	g->n = 0;
}

static void open_group(const struct ibs_capture_item *it)
{
	struct ibs_sample *keep = st.cur.s;
	size_t cap = st.cur.cap;

	memset(&st.cur, 0, sizeof(st.cur));
	st.cur.s = keep;
	st.cur.cap = cap;
	snprintf(st.cur.kernel, sizeof(st.cur.kernel), "%s", it->kernel);
	snprintf(st.cur.variant, sizeof(st.cur.variant), "%s", it->variant);
	st.cur.family = it->family;
	st.cur.model = it->model;
	st.open = true;
}

static bool same_variant(const struct ibs_capture_item *it)
{
	return st.open && !strcmp(st.cur.kernel, it->kernel) && !strcmp(st.cur.variant, it->variant) &&
	       st.cur.family == it->family && st.cur.model == it->model;
}

static bool add_sample(const struct ibs_capture_item *it)
{
	if (!same_variant(it)) {
		close_group();
		open_group(it);
	}
	if (st.cur.n == st.cur.cap) {
		size_t cap = st.cur.cap ? st.cur.cap * 2 : 256;
		struct ibs_sample *s = realloc(st.cur.s, cap * sizeof(*s));
		if (!s)
			return false;
		st.cur.s = s;
		st.cur.cap = cap;
	}
	st.cur.s[st.cur.n++] = it->sample;
	return true;
}

/* The variant's ibs record ends its group (a variant with no samples has only this). */
static void end_variant(const struct ibs_capture_item *it)
{
	if (!same_variant(it)) {
		close_group();
		open_group(it);
	}
	st.cur.have_caps = it->have_caps;
	st.cur.caps = it->caps;
	st.cur.have_sampled = it->have_sampled;
	memcpy(st.cur.sampled, it->sampled, sizeof(st.cur.sampled));
	st.cur.arena_page = it->arena_page;
	close_group();
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pmuboot-host ibs-report [--allow-incomplete] LOGFILE\n"
		   "\n"
		   "The IBS derived events of every sampled kernel variant, computed offline with the image's\n"
		   "decoder from the ibs_sample records of a capture: one ibs record (\"source\":\"capture\")\n"
		   "and a table per variant.  Every run is checked first (its end record, count and CRC);\n"
		   "a damaged run is refused by name.\n"
		   "\n"
		   "  LOGFILE             a serial log or saved records (.jsonl) of a run made with ibs_raw=on\n"
		   "  --allow-incomplete  also read runs that are cut off or fail their CRC check\n"
		   "  -h, --help          this text\n"
		   "\n"
		   "Exit status: 0, 1 unreadable file, damaged run or records in error, 2 bad arguments.\n");
	return f == stdout ? 0 : 2;
}

/*
 * Which records to decode: those of complete runs, and with --allow-incomplete
 * those of damaged ones too.  A damaged run, and damage outside every run,
 * is named either way.
 */
static bool check_runs(const struct capture_file *cap, bool allow_incomplete)
{
	bool refused = false;

	for (size_t i = 0; i < cap->nruns; i++) {
		const struct capture_run *r = &cap->runs[i];
		if (r->complete)
			continue;
		if (allow_incomplete) {
			out_text("note: %s: run %zu (lines %u-%u) is damaged: %s; read anyway (--allow-incomplete)",
				 st.file, i + 1, r->first_line, r->last_line, r->problem);
		} else {
			problem(r->first_line, "run %zu (lines %u-%u) is damaged: %s; refused (--allow-incomplete reads it anyway)",
				i + 1, r->first_line, r->last_line, r->problem);
			refused = true;
		}
	}
	for (size_t i = 0; i < cap->nproblems; i++) {
		const struct capture_problem *p = &cap->problems[i];
		if (p->run)
			continue;
		if (allow_incomplete) {
			out_text("note: %s: outside any run: %s; not read", st.file, p->text);
		} else {
			problem(p->line, "outside any run: %s", p->text);
			refused = true;
		}
	}
	return refused;
}

int cmd_ibs_report(int argc, char **argv)
{
	static struct ibs_capture_item it;
	char err[300];
	size_t len;
	char *text;
	bool allow_incomplete = argc == 3 && !strcmp(argv[1], "--allow-incomplete");
	struct capture_file cap;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
	if (argc != 2 + allow_incomplete || argv[argc - 1][0] == '-')
		return usage(stderr);
	st.file = argv[argc - 1];
	text = host_read_file(st.file, &len);
	if (!text) {
		fprintf(stderr, "pmuboot-host ibs-report: cannot read %s: %s\n", st.file, host_file_error(errno));
		return 1;
	}
	host_output_stdout();
	host_stream_begin("ibs-report");
	if (!capture_file_read(&cap, text, len)) {
		free(text);
		fprintf(stderr, "pmuboot-host ibs-report: %s: out of memory\n", st.file);
		return 1;
	}
	check_runs(&cap, allow_incomplete);
	for (size_t i = 0; i < cap.nrecords; i++) {
		const struct capture_record_line *rec = &cap.records[i];
		const struct capture_run *run = capture_file_run_of(&cap, rec);
		enum ibs_line_type t = run && (run->complete || allow_incomplete) ?
			ibs_capture_parse(rec->text, rec->text_len, &it, err, sizeof(err)) : IBS_LINE_OTHER;
		switch (t) {
		case IBS_LINE_SAMPLE:
			if (!add_sample(&it))
				problem(rec->line, "out of memory");
			break;
		case IBS_LINE_VARIANT:
			end_variant(&it);
			break;
		case IBS_LINE_ABSENT:
			st.absent++;
			break;
		case IBS_LINE_ERROR:
			problem(rec->line, "%s", err);
			break;
		case IBS_LINE_OTHER:
			break;
		}
	}
	close_group();
	if (!st.groups && !st.errors)
		problem(0, st.absent ? "the run did not use IBS (its ibs record says it was not available)" :
				       "no ibs_sample or ibs records (was the run made with ibs_raw=on on an AMD CPU with IBS?)");
	out_text("%u kernel variant%s decoded from %s", st.groups, st.groups == 1 ? "" : "s", st.file);
	rec_stream_end();
	capture_file_free(&cap);
	free(st.cur.s);
	free(text);
	return st.errors ? 1 : 0;
}
