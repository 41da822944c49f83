/* output/screen_layout.c - see screen_layout.h. */
#include "output/screen_layout.h"

#define LABEL_W 10
#define NAME_W 36	/* the longest built-in name, store_forward.size_mismatch_tput, is 32; "12:" before it */
#define NUM_W 10
#define CHECK_W 9

/* The frame and state being laid out: set by screen_compose for the helpers below. */
static struct screen_frame *fr;
static const struct screen_state *ss;
static unsigned cols, rows;

static void put(unsigned row, enum sl_attr attr, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(unsigned row, enum sl_attr attr, const char *fmt, ...)
{
	va_list ap;
	if (row >= rows)
		return;
	va_start(ap, fmt);
	vsnprintf(fr->text[row], cols, fmt, ap);	/* at most cols-1 characters: the last column never wraps */
	va_end(ap);
	fr->attr[row] = (uint8_t)attr;
}

static void put_label(unsigned row, enum sl_attr attr, const char *label, const char *text)
{
	put(row, attr, "%-*s%s", LABEL_W, label, text);
}

/* The top-down column's width with its gap: once a metrics record came, and where the screen is wide enough. */
#define TOPDOWN_W 31
static int topdown_w(void)
{
	return ss->topdown && cols >= SL_COLS_MIN + TOPDOWN_W ? TOPDOWN_W + 1 : 0;
}

static void put_table_row(unsigned row, const struct ss_row *r)
{
	static const char *const names[] = { [SS_NONE] = "-", [SS_PASS] = "pass", [SS_SKIP] = "skip",
					      [SS_UNSTABLE] = "UNSTABLE", [SS_FAIL] = "FAIL" };
	const char *check = r->status_text[0] ? r->status_text : names[r->check];
	enum sl_attr attr = r->check == SS_FAIL ? SL_FAIL : r->check == SS_UNSTABLE ? SL_UNSTABLE : SL_NORMAL;
	int td_w = topdown_w(), ev_w = (int)cols - 1 - 2 - NAME_W - 2 * NUM_W - CHECK_W - 4 - td_w;
	if (ev_w < 1)
		ev_w = 1;
	put(row, attr, "  %-*.*s %*s %*s  %-*.*s %-*.*s%s", NAME_W, NAME_W, r->name, NUM_W, r->cycles[0] ? r->cycles : "-",
	    NUM_W, r->penalty[0] ? r->penalty : "-", ev_w, ev_w, r->events[0] ? r->events : "-", td_w, td_w,
	    td_w ? (r->topdown[0] ? r->topdown : "-") : "", check);
}

static void put_table_head(unsigned row)
{
	int td_w = topdown_w(), ev_w = (int)cols - 1 - 2 - NAME_W - 2 * NUM_W - CHECK_W - 4 - td_w;
	char name[48];
	/* Rows, not figures: a variant not run here (its vector extension absent) has a row and no figure. */
	snprintf(name, sizeof(name), "%svariant (%u row%s)", ss->multi ? "cpu:" : "", ss->nrows,
		 ss->nrows == 1 ? "" : "s");
	put(row, SL_TABLE, "  %-*s %*s %*s  %-*.*s %-*.*s%s", NAME_W, name, NUM_W, "cycles/it", NUM_W, "penalty",
	    ev_w < 1 ? 1 : ev_w, ev_w < 1 ? 1 : ev_w, "key events per iteration (checked)", td_w, td_w,
	    td_w ? "top-down % L1, top L2" : "", "check");
}

/*
 * The table in rows [top, top + height).  While running, the latest rows;
 * at the end, failed and unstable rows first when not all fit, then the
 * others in run order, and a line saying how many are not shown.
 */
static void put_table(unsigned top, unsigned height)
{
	unsigned n = ss->nrows;
	if (!height)
		return;
	if (n <= height) {
		for (unsigned i = 0; i < n; i++)
			put_table_row(top + i, &ss->rows[i]);
		return;
	}
	if (!ss->finished) {
		for (unsigned i = 0; i < height; i++)
			put_table_row(top + i, &ss->rows[n - height + i]);
		return;
	}
	bool *keep = fr->keep;
	unsigned room = height - 1, kept = 0;
	memset(keep, 0, sizeof(fr->keep));
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < n && kept < room; i++) {
			bool bad = ss->rows[i].check >= SS_UNSTABLE;
			if (!keep[i] && (pass == 1 || bad)) {
				keep[i] = true;
				kept++;
			}
		}
	unsigned row = top;
	for (unsigned i = 0; i < n; i++)
		if (keep[i])
			put_table_row(row++, &ss->rows[i]);
	put(row, SL_HEAD, "  ... %u more rows in the results file and on serial (failed and unstable ones are shown)",
	    n - kept + ss->rows_dropped);
}

static unsigned summary_lines(char out[][SL_SUMMARY_LINE], uint8_t *attr, unsigned cap)
{
	unsigned k = 0;
#define LINE(a, ...)                                                    \
	do {                                                            \
		if (k < cap) {                                          \
			snprintf(out[k], SL_SUMMARY_LINE, __VA_ARGS__); \
			attr[k++] = (uint8_t)(a);                       \
		}                                                       \
	} while (0)
	const struct config *c = ss->cfg;
	if (ss->bench_done)
		LINE(SL_NORMAL, "%-*s%u figures of %u variants (%s); %u reps x %u iterations each%s", LABEL_W,
		     "Measured", ss->bench_done, ss->variants, ss->kernels, c ? c->reps : 0, c ? c->iterations : 0,
		     ss->multi ? ", on each processor in Passes" : "");
	else if (!ss->instr_done)
		LINE(SL_NORMAL, "%-*sno benchmarks ran (bench=%s)", LABEL_W, "Measured", c ? c->bench : "?");
	if (ss->instr_done)
		LINE(SL_NORMAL, "%-*s%u instruction form%s (instr=%.40s): latency as cycles/it, pair and tp beside it",
		     LABEL_W, "Forms", ss->instr_done, ss->instr_done == 1 ? "" : "s", c ? c->instr : "?");
	if (ss->multi && ss->passes[0])
		LINE(SL_NORMAL, "%-*sprocessor %s", LABEL_W, "Passes", ss->passes);
	if (ss->bench_unstable)
		LINE(SL_UNSTABLE, "%-*s%u figure%s marked ~ could not be measured stably (their records say why)",
		     LABEL_W, "Figures", ss->bench_unstable, ss->bench_unstable == 1 ? "" : "s");
	unsigned pass = ss->checks[SS_PASS], fail = ss->checks[SS_FAIL], uns = ss->checks[SS_UNSTABLE],
		 skip = ss->checks[SS_SKIP];
	LINE(fail ? SL_FAIL : uns ? SL_UNSTABLE : pass ? SL_GOOD : SL_NORMAL,
	     "%-*s%u passed, %u failed, %u unstable, %u skipped%s%s", LABEL_W, "Checks", pass, fail, uns, skip,
	     skip ? (ss->skip_reasons_differ ? "; first skip: " : ": ") : "", skip ? ss->skip_reason : "");
	if (fail)
		LINE(SL_FAIL, "%-*s%s", LABEL_W, "Failed", ss->failed);
	if (uns)
		LINE(SL_UNSTABLE, "%-*s%s", LABEL_W, "Unstable", ss->unstable);
	if (ss->audit_pass || ss->audit_fail || ss->audit_absent)
		LINE(ss->audit_fail ? SL_FAIL : ss->audit_pass ? SL_GOOD : SL_NORMAL,
		     "%-*s%u passed, %u failed, %u absent%s%s", LABEL_W, "Audit", ss->audit_pass, ss->audit_fail,
		     ss->audit_absent, ss->audit_fail ? ": " : ss->audit_pass ? "" : " (no counters to check here)",
		     ss->audit_fail ? ss->audit_failed : "");
	if (ss->selftests_pass || ss->selftests_fail)
		LINE(ss->selftests_fail ? SL_FAIL : SL_NORMAL, "%-*s%u passed, %u failed", LABEL_W, "Selftests",
		     ss->selftests_pass, ss->selftests_fail);
	if (ss->nexpected)
		LINE(SL_NORMAL, "%-*s%u fault%s a self-test asked for (not run errors): %s", LABEL_W, "Expected",
		     ss->nexpected, ss->nexpected == 1 ? "" : "s", ss->expected);
	if (!ss->nerrors)
		LINE(SL_NORMAL, "%-*snone", LABEL_W, "Errors");
	for (unsigned i = 0; i < ss->nerrors && i < SS_ERRORS; i++)
		LINE(SL_FAIL, "%-*s%s", LABEL_W, i ? "" : "Errors", ss->errors[i]);
	if (ss->nerrors > SS_ERRORS)
		LINE(SL_FAIL, "%-*s... %u more (see the error records)", LABEL_W, "", ss->nerrors - SS_ERRORS);
	LINE(SL_NORMAL, "%-*s%s", LABEL_W, "Saved", ss->saved[0] ? ss->saved : "not saved");
#undef LINE
	return k;
}

/* "stage 6 of 7, bench ref": the stage is the first word of the activity the run last named. */
static void stage_text(char *buf, size_t cap, const struct sl_stages *stages)
{
	const char *a = ss->activity;
	size_t n = stages ? stages->count : 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = stages->name(i);
		size_t l = strlen(name);
		if (!strncmp(a, name, l) && (a[l] == 0 || a[l] == ' ')) {
			snprintf(buf, cap, "stage %zu of %zu, %s", i + 1, n, a);
			return;
		}
	}
	snprintf(buf, cap, "%s", a[0] ? a : "starting");
}

void screen_compose(struct screen_frame *f, const struct screen_state *state, const struct sl_stages *stages)
{
	char status[48], stage[128];	/* "stage 6 of 7, " and the activity */
	fr = f;
	ss = state;
	cols = f->cols < SL_COLS_MAX ? f->cols : SL_COLS_MAX;
	rows = f->rows < SL_ROWS_MAX ? f->rows : SL_ROWS_MAX;
	if (!rows)
		return;
	for (unsigned r = 0; r < rows; r++) {
		fr->text[r][0] = 0;
		fr->attr[r] = SL_NORMAL;
	}
	if (!ss->finished)
		snprintf(status, sizeof(status), "running");
	else if (!ss->nerrors && !strcmp(ss->end_status, "ok"))
		snprintf(status, sizeof(status), "finished: clean");
	else
		snprintf(status, sizeof(status), "finished: %u error%s", ss->nerrors, ss->nerrors == 1 ? "" : "s");
	int pad = (int)cols - 1 - 1 - (int)strlen(ss->title) - (int)strlen(status) - 1;
	put(0, SL_TITLE, " %s%*s%s ", ss->title[0] ? ss->title : "pmuboot", pad > 1 ? pad : 1, "", status);
	put_label(1, SL_NORMAL, "Machine", ss->machine);
	put_label(2, SL_NORMAL, "CPU", ss->cpu);
	put_label(3, SL_NORMAL, "", ss->cpu2);
	put_label(4, SL_NORMAL, "PMU", ss->pmu);
	put_label(5, SL_NORMAL, "Cache", ss->cache);
	put_label(6, SL_NORMAL, "IBS", ss->ibs);

	unsigned top = 7;
	unsigned bottom = rows - 1;	/* the last row holds the latest message (at the end: what happens next) */
	if (ss->finished) {
		unsigned ns = summary_lines(fr->sum, fr->sum_attr, SL_ROWS_MAX);
		unsigned first = bottom > ns ? bottom - ns : 0;
		if (first < top + 3)
			first = top + 3;
		for (unsigned i = 0; i < ns && first + i < bottom; i++)
			put(first + i, (enum sl_attr)fr->sum_attr[i], "%s", fr->sum[i]);
		bottom = first;
	} else {
		stage_text(stage, sizeof(stage), stages);
		if (ss->bench_total)
			put(top, SL_HEAD, "Progress: %s; benchmark %u of %u done%s%s", stage, ss->bench_done,
			    ss->bench_total, ss->bench_last[0] ? ", last " : "", ss->bench_last);
		else
			put(top, SL_HEAD, "Progress: %s", stage);
		top++;
	}
	put_table_head(top);
	if (bottom > top + 1)
		put_table(top + 1, bottom - top - 1);
	if (ss->finished && !ss->message_after_summary)
		put(rows - 1, SL_HEAD, "Next: %s", ss->next);
	else
		put(rows - 1, SL_HEAD, "%s", ss->message);
}
