/* boot/screen.c - the readable screen on the firmware's consoles; see screen.h. */
#include "boot/screen.h"
#include "output/screen_layout.h"
#include "boot/boot.h"
#include "run/run.h"

/* The layout's looks in the console's colours (SIMPLE_TEXT_OUTPUT SetAttribute, EFI_TEXT_ATTR). */
static const UINTN attr_of[SL_ATTRS] = {
	[SL_NORMAL] = EFI_TEXT_ATTR(EFI_LIGHTGRAY, EFI_BLACK),
	[SL_TITLE] = EFI_TEXT_ATTR(EFI_WHITE, EFI_BLUE),
	[SL_HEAD] = EFI_TEXT_ATTR(EFI_WHITE, EFI_BLACK),
	[SL_TABLE] = EFI_TEXT_ATTR(EFI_BLACK, EFI_LIGHTGRAY),
	[SL_FAIL] = EFI_TEXT_ATTR(EFI_LIGHTRED, EFI_BLACK),
	[SL_UNSTABLE] = EFI_TEXT_ATTR(EFI_YELLOW, EFI_BLACK),
	[SL_GOOD] = EFI_TEXT_ATTR(EFI_LIGHTGREEN, EFI_BLACK),
};
#define ATTR_NORMAL (attr_of[SL_NORMAL])

static SIMPLE_TEXT_OUTPUT_INTERFACE *cons[SCREEN_MAX_CONSOLES];
static unsigned ncons, cols, rows;
/* Taken from the firmware's pool at screen_start. */
struct screen_mem {
	struct screen_state state;
	struct screen_frame frame;	/* what the layout wants now */
	char shown[SL_ROWS_MAX][SL_COLS_MAX + 1];	/* what the consoles show */
	uint8_t shown_attr[SL_ROWS_MAX];
	CHAR16 buf[SL_COLS_MAX + 1];
};
static struct screen_mem *mem;
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
		if (c >= SL_COLS_MIN && c <= SL_COLS_MAX && r <= SL_ROWS_MAX && r > best_rows) {
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
	if (cols > SL_COLS_MAX)
		cols = SL_COLS_MAX;
	if (rows > SL_ROWS_MAX)
		rows = SL_ROWS_MAX;
	drawn_once = false;
	return ncons && rows >= SL_ROWS_MIN && cols >= SL_COLS_MIN;
}

void screen_size(unsigned *c, unsigned *r)
{
	*c = ncons ? cols : 0;
	*r = ncons ? rows : 0;
}

/* ---- drawing ---- */

static void draw_row(SIMPLE_TEXT_OUTPUT_INTERFACE *con, unsigned r)
{
	const char *text = mem->frame.text[r];
	CHAR16 *buf = mem->buf;
	unsigned k = 0;
	for (; text[k] && k + 1 < cols; k++) {
		unsigned char ch = (unsigned char)text[k];
		buf[k] = (ch >= 0x20 && ch < 0x7f) ? ch : '?';
	}
	for (; k + 1 < cols; k++)
		buf[k] = ' ';
	buf[k] = 0;
	con->SetCursorPosition(con, 0, r);
	con->SetAttribute(con, attr_of[mem->frame.attr[r] < SL_ATTRS ? mem->frame.attr[r] : SL_NORMAL]);
	con->OutputString(con, buf);
}

/* Lay the state out, then write the rows that changed. */
static void redraw(void)
{
	struct screen_frame *f = &mem->frame;
	struct sl_stages stages = { run_stage_name, run_stage_count() };
	f->cols = cols;
	f->rows = rows;
	screen_compose(f, ssp, &stages);
	for (unsigned r = 0; r < rows; r++) {
		if (drawn_once && mem->shown_attr[r] == f->attr[r] && !strcmp(mem->shown[r], f->text[r]))
			continue;
		for (unsigned i = 0; i < ncons; i++)
			draw_row(cons[i], r);
		memcpy(mem->shown[r], f->text[r], sizeof(mem->shown[r]));
		mem->shown_attr[r] = f->attr[r];
	}
	drawn_once = true;
	for (unsigned i = 0; i < ncons; i++)
		cons[i]->SetAttribute(cons[i], ATTR_NORMAL);
}

static void redraw_if_shown(void)
{
	if (ncons && rows >= SL_ROWS_MIN)
		redraw();
}

void screen_sink(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	(void)kind;	/* records come through screen_record */
	ss_text(line, len);
	redraw_if_shown();
}

void screen_record(void *ctx, const struct rec *r)
{
	(void)ctx;
	ss_record(r);
	redraw_if_shown();
}

void screen_summary(const char *next)
{
	if (!ssp)
		return;
	ssp->finished = true;
	ssp->message_after_summary = false;
	snprintf(ssp->next, sizeof(ssp->next), "%s", next);
	redraw_if_shown();
}
