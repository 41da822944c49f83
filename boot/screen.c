/* boot/screen.c - the readable screen's layout and drawing; see screen.h. */
#include "boot/screen.h"
#include "output/screen_state.h"
#include "boot/boot.h"
#include "run/run.h"

/* The frame: large enough for common firmware text modes (80x25, 100x31, 128x40, 160x53). */
#define COLS_MAX 160
#define ROWS_MAX 64
#define COLS_MIN 80	/* narrower modes are not chosen; the firmware's own mode is kept then */
#define ROWS_MIN 20	/* the layout needs 12 rows; fewer than 20 leaves no room for results */

#define LABEL_W 10
#define NAME_W 36	/* the longest built-in name, store_forward.size_mismatch_tput, is 32; "12:" before it */
#define NUM_W 10
#define CHECK_W 9

#define ATTR_NORMAL EFI_TEXT_ATTR(EFI_LIGHTGRAY, EFI_BLACK)
#define ATTR_TITLE EFI_TEXT_ATTR(EFI_WHITE, EFI_BLUE)
#define ATTR_HEAD EFI_TEXT_ATTR(EFI_WHITE, EFI_BLACK)
#define ATTR_TABLE EFI_TEXT_ATTR(EFI_BLACK, EFI_LIGHTGRAY)
#define ATTR_FAIL EFI_TEXT_ATTR(EFI_LIGHTRED, EFI_BLACK)
#define ATTR_UNSTABLE EFI_TEXT_ATTR(EFI_YELLOW, EFI_BLACK)
#define ATTR_GOOD EFI_TEXT_ATTR(EFI_LIGHTGREEN, EFI_BLACK)

static SIMPLE_TEXT_OUTPUT_INTERFACE *cons[SCREEN_MAX_CONSOLES];
static unsigned ncons, cols, rows;
/* Taken from the firmware's pool at screen_start. */
struct screen_mem {
	struct screen_state state;
	char frame[ROWS_MAX][COLS_MAX + 1], shown[ROWS_MAX][COLS_MAX + 1];
	UINTN frame_attr[ROWS_MAX], shown_attr[ROWS_MAX];
	char sum[ROWS_MAX][SS_LINE + 64];
	UINTN sum_attr[ROWS_MAX];
	bool keep[SS_ROWS];
	CHAR16 buf[COLS_MAX + 1];
};
static struct screen_mem *mem;
#define frame (mem->frame)
#define shown (mem->shown)
#define frame_attr (mem->frame_attr)
#define shown_attr (mem->shown_attr)
static bool drawn_once;

static void pick_mode(SIMPLE_TEXT_OUTPUT_INTERFACE *con)
{
	UINTN c, r, best_rows = 0;
	INTN best = -1;

	if (!con->Mode)
		return;
	for (INTN m = 0; m < con->Mode->MaxMode; m++) {
		if (con->QueryMode(con, (UINTN)m, &c, &r) != EFI_SUCCESS)
			continue;
		if (c >= COLS_MIN && c <= COLS_MAX && r <= ROWS_MAX && r > best_rows) {
			best_rows = r;
			best = m;
		}
	}
	if (best >= 0 && best != con->Mode->Mode)
		con->SetMode(con, (UINTN)best);	/* on failure the current mode stays, and is measured below */
}

bool screen_start(SIMPLE_TEXT_OUTPUT_INTERFACE **list, unsigned n, const struct config *cfg)
{
	ncons = 0;
	cols = rows = 0;
	if (!mem && fw_st->BootServices->AllocatePool(EfiLoaderData, sizeof(*mem), (void **)&mem) != EFI_SUCCESS)
		mem = NULL;
	if (!mem)
		return false;
	memset(mem, 0, sizeof(*mem));
	ssp = &mem->state;
	ssp->cfg = cfg;
	for (unsigned i = 0; i < n && ncons < SCREEN_MAX_CONSOLES; i++) {
		SIMPLE_TEXT_OUTPUT_INTERFACE *con = list[i];
		UINTN c = 0, r = 0;
		pick_mode(con);
		if (!con->Mode || con->QueryMode(con, (UINTN)con->Mode->Mode, &c, &r) != EFI_SUCCESS || c < 2 || r < 2)
			continue;
		/* Several screens share one layout: the smallest. */
		cols = (!ncons || c < cols) ? (unsigned)c : cols;
		rows = (!ncons || r < rows) ? (unsigned)r : rows;
		con->EnableCursor(con, FALSE);
		con->SetAttribute(con, ATTR_NORMAL);
		con->ClearScreen(con);
		cons[ncons++] = con;
	}
	if (cols > COLS_MAX)
		cols = COLS_MAX;
	if (rows > ROWS_MAX)
		rows = ROWS_MAX;
	drawn_once = false;
	return ncons && rows >= ROWS_MIN && cols >= COLS_MIN;
}

void screen_size(unsigned *c, unsigned *r)
{
	*c = ncons ? cols : 0;
	*r = ncons ? rows : 0;
}

/* ---- composing the frame ---- */

static void put(unsigned row, UINTN attr, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(unsigned row, UINTN attr, const char *fmt, ...)
{
	va_list ap;
	if (row >= rows)
		return;
	va_start(ap, fmt);
	vsnprintf(frame[row], cols, fmt, ap);	/* at most cols-1 characters: the last column never wraps */
	va_end(ap);
	frame_attr[row] = attr;
}

static void put_label(unsigned row, UINTN attr, const char *label, const char *text)
{
	put(row, attr, "%-*s%s", LABEL_W, label, text);
}

/* The top-down column's width with its gap: once a metrics record came, and where the screen is wide enough. */
#define TOPDOWN_W 31
static int topdown_w(void)
{
	return ssp->topdown && cols >= COLS_MIN + TOPDOWN_W ? TOPDOWN_W + 1 : 0;
}

static void put_table_row(unsigned row, const struct ss_row *r)
{
	static const char *const names[] = { [SS_NONE] = "-", [SS_PASS] = "pass", [SS_SKIP] = "skip",
					      [SS_UNSTABLE] = "UNSTABLE", [SS_FAIL] = "FAIL" };
	const char *check = r->status_text[0] ? r->status_text : names[r->check];
	UINTN attr = r->check == SS_FAIL ? ATTR_FAIL : r->check == SS_UNSTABLE ? ATTR_UNSTABLE : ATTR_NORMAL;
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
	snprintf(name, sizeof(name), "%svariant (%u row%s)", ssp->multi ? "cpu:" : "", ssp->nrows,
		 ssp->nrows == 1 ? "" : "s");
	put(row, ATTR_TABLE, "  %-*s %*s %*s  %-*.*s %-*.*s%s", NAME_W, name, NUM_W, "cycles/it", NUM_W, "penalty",
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
	unsigned n = ssp->nrows;
	if (!height)
		return;
	if (n <= height) {
		for (unsigned i = 0; i < n; i++)
			put_table_row(top + i, &ssp->rows[i]);
		return;
	}
	if (!ssp->finished) {
		for (unsigned i = 0; i < height; i++)
			put_table_row(top + i, &ssp->rows[n - height + i]);
		return;
	}
	bool *keep = mem->keep;
	unsigned room = height - 1, kept = 0;
	memset(keep, 0, sizeof(mem->keep));
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < n && kept < room; i++) {
			bool bad = ssp->rows[i].check >= SS_UNSTABLE;
			if (!keep[i] && (pass == 1 || bad)) {
				keep[i] = true;
				kept++;
			}
		}
	unsigned row = top;
	for (unsigned i = 0; i < n; i++)
		if (keep[i])
			put_table_row(row++, &ssp->rows[i]);
	put(row, ATTR_HEAD, "  ... %u more rows in the results file and on serial (failed and unstable ones are shown)",
	    n - kept + ssp->rows_dropped);
}

static unsigned summary_lines(char out[][SS_LINE + 64], UINTN *attr, unsigned cap)
{
	unsigned k = 0;
#define LINE(a, ...)                                                   \
	do {                                                           \
		if (k < cap) {                                         \
			snprintf(out[k], SS_LINE + 64, __VA_ARGS__);   \
			attr[k++] = (a);                               \
		}                                                      \
	} while (0)
	const struct config *c = ssp->cfg;
	if (ssp->bench_done)
		LINE(ATTR_NORMAL, "%-*s%u figures of %u variants (%s); %u reps x %u iterations each%s", LABEL_W,
		     "Measured", ssp->bench_done, ssp->variants, ssp->kernels, c ? c->reps : 0, c ? c->iterations : 0,
		     ssp->multi ? ", on each processor in Passes" : "");
	else
		LINE(ATTR_NORMAL, "%-*sno benchmarks ran (bench=%s)", LABEL_W, "Measured", c ? c->bench : "?");
	if (ssp->multi && ssp->passes[0])
		LINE(ATTR_NORMAL, "%-*sprocessor %s", LABEL_W, "Passes", ssp->passes);
	if (ssp->bench_unstable)
		LINE(ATTR_UNSTABLE, "%-*s%u figure%s marked ~ could not be measured stably (the bench records say why)",
		     LABEL_W, "Figures", ssp->bench_unstable, ssp->bench_unstable == 1 ? "" : "s");
	unsigned pass = ssp->checks[SS_PASS], fail = ssp->checks[SS_FAIL], uns = ssp->checks[SS_UNSTABLE],
		 skip = ssp->checks[SS_SKIP];
	LINE(fail ? ATTR_FAIL : uns ? ATTR_UNSTABLE : pass ? ATTR_GOOD : ATTR_NORMAL,
	     "%-*s%u passed, %u failed, %u unstable, %u skipped%s%s", LABEL_W, "Checks", pass, fail, uns, skip,
	     skip ? (ssp->skip_reasons_differ ? "; first skip: " : ": ") : "", skip ? ssp->skip_reason : "");
	if (fail)
		LINE(ATTR_FAIL, "%-*s%s", LABEL_W, "Failed", ssp->failed);
	if (uns)
		LINE(ATTR_UNSTABLE, "%-*s%s", LABEL_W, "Unstable", ssp->unstable);
	if (ssp->audit_pass || ssp->audit_fail || ssp->audit_absent)
		LINE(ssp->audit_fail ? ATTR_FAIL : ssp->audit_pass ? ATTR_GOOD : ATTR_NORMAL,
		     "%-*s%u passed, %u failed, %u absent%s%s", LABEL_W, "Audit", ssp->audit_pass, ssp->audit_fail,
		     ssp->audit_absent, ssp->audit_fail ? ": " : ssp->audit_pass ? "" : " (no counters to check here)",
		     ssp->audit_fail ? ssp->audit_failed : "");
	if (ssp->selftests_pass || ssp->selftests_fail)
		LINE(ssp->selftests_fail ? ATTR_FAIL : ATTR_NORMAL, "%-*s%u passed, %u failed", LABEL_W, "Selftests",
		     ssp->selftests_pass, ssp->selftests_fail);
	if (ssp->nexpected)
		LINE(ATTR_NORMAL, "%-*s%u fault%s a self-test asked for (not run errors): %s", LABEL_W, "Expected",
		     ssp->nexpected, ssp->nexpected == 1 ? "" : "s", ssp->expected);
	if (!ssp->nerrors)
		LINE(ATTR_NORMAL, "%-*snone", LABEL_W, "Errors");
	for (unsigned i = 0; i < ssp->nerrors && i < SS_ERRORS; i++)
		LINE(ATTR_FAIL, "%-*s%s", LABEL_W, i ? "" : "Errors", ssp->errors[i]);
	if (ssp->nerrors > SS_ERRORS)
		LINE(ATTR_FAIL, "%-*s... %u more (see the error records)", LABEL_W, "", ssp->nerrors - SS_ERRORS);
	LINE(ATTR_NORMAL, "%-*s%s", LABEL_W, "Saved", ssp->saved[0] ? ssp->saved : "not saved");
#undef LINE
	return k;
}

/* "bench (stage 6 of 7)": the stage is the first word of the activity the run last named. */
static void stage_text(char *buf, size_t cap)
{
	const char *a = ssp->activity;
	size_t n = run_stage_count();
	for (size_t i = 0; i < n; i++) {
		const char *name = run_stage_name(i);
		size_t l = strlen(name);
		if (!strncmp(a, name, l) && (a[l] == 0 || a[l] == ' ')) {
			snprintf(buf, cap, "stage %zu of %zu, %s", i + 1, n, a);
			return;
		}
	}
	snprintf(buf, cap, "%s", a[0] ? a : "starting");
}

static void compose(void)
{
	char status[48], stage[64];
	for (unsigned r = 0; r < rows; r++) {
		frame[r][0] = 0;
		frame_attr[r] = ATTR_NORMAL;
	}
	if (!ssp->finished)
		snprintf(status, sizeof(status), "running");
	else if (!ssp->nerrors && !strcmp(ssp->end_status, "ok"))
		snprintf(status, sizeof(status), "finished: clean");
	else
		snprintf(status, sizeof(status), "finished: %u error%s", ssp->nerrors, ssp->nerrors == 1 ? "" : "s");
	int pad = (int)cols - 1 - 1 - (int)strlen(ssp->title) - (int)strlen(status) - 1;
	put(0, ATTR_TITLE, " %s%*s%s ", ssp->title[0] ? ssp->title : "pmuboot", pad > 1 ? pad : 1, "", status);
	put_label(1, ATTR_NORMAL, "Machine", ssp->machine);
	put_label(2, ATTR_NORMAL, "CPU", ssp->cpu);
	put_label(3, ATTR_NORMAL, "", ssp->cpu2);
	put_label(4, ATTR_NORMAL, "PMU", ssp->pmu);
	put_label(5, ATTR_NORMAL, "Cache", ssp->cache);
	put_label(6, ATTR_NORMAL, "IBS", ssp->ibs);

	unsigned top = 7;
	unsigned bottom = rows - 1;	/* the last row holds the latest message (at the end: what happens next) */
	if (ssp->finished) {
		char (*sum)[SS_LINE + 64] = mem->sum;
		UINTN *sattr = mem->sum_attr;
		unsigned ns = summary_lines(sum, sattr, ROWS_MAX);
		unsigned first = bottom > ns ? bottom - ns : 0;
		if (first < top + 3)
			first = top + 3;
		for (unsigned i = 0; i < ns && first + i < bottom; i++)
			put(first + i, sattr[i], "%s", sum[i]);
		bottom = first;
	} else {
		stage_text(stage, sizeof(stage));
		if (ssp->bench_total)
			put(top, ATTR_HEAD, "Progress: %s; benchmark %u of %u done%s%s", stage, ssp->bench_done,
			    ssp->bench_total, ssp->bench_last[0] ? ", last " : "", ssp->bench_last);
		else
			put(top, ATTR_HEAD, "Progress: %s", stage);
		top++;
	}
	put_table_head(top);
	if (bottom > top + 1)
		put_table(top + 1, bottom - top - 1);
	if (ssp->finished && !ssp->message_after_summary)
		put(rows - 1, ATTR_HEAD, "Next: %s", ssp->next);
	else
		put(rows - 1, ATTR_HEAD, "%s", ssp->message);
}

/* ---- drawing ---- */

static void draw_row(SIMPLE_TEXT_OUTPUT_INTERFACE *con, unsigned r)
{
	CHAR16 *buf = mem->buf;
	unsigned k = 0;
	for (; frame[r][k] && k + 1 < cols; k++) {
		unsigned char ch = (unsigned char)frame[r][k];
		buf[k] = (ch >= 0x20 && ch < 0x7f) ? ch : '?';
	}
	for (; k + 1 < cols; k++)
		buf[k] = ' ';
	buf[k] = 0;
	con->SetCursorPosition(con, 0, r);
	con->SetAttribute(con, frame_attr[r]);
	con->OutputString(con, buf);
}

static void redraw(void)
{
	compose();
	for (unsigned r = 0; r < rows; r++) {
		if (drawn_once && shown_attr[r] == frame_attr[r] && !strcmp(shown[r], frame[r]))
			continue;
		for (unsigned i = 0; i < ncons; i++)
			draw_row(cons[i], r);
		memcpy(shown[r], frame[r], sizeof(shown[r]));
		shown_attr[r] = frame_attr[r];
	}
	drawn_once = true;
	for (unsigned i = 0; i < ncons; i++)
		cons[i]->SetAttribute(cons[i], ATTR_NORMAL);
}

void screen_sink(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	ss_feed(kind, line, len);
	if (ncons && rows >= ROWS_MIN)
		redraw();
}

void screen_summary(const char *next)
{
	if (!ssp)
		return;
	ssp->finished = true;
	ssp->message_after_summary = false;
	snprintf(ssp->next, sizeof(ssp->next), "%s", next);
	if (ncons && rows >= ROWS_MIN)
		redraw();
}
