/* boot/console.c - see console.h. */
#include "boot/console.h"
#include "lib/libc.h"
#include "boot/screen.h"
#include "lib/out.h"
#include "net/devpath.h"

/* UEFI 2.10 §10.3.4.2 (UART messaging node) and §10.3.3 (ACPI node, EISA PNP0501). */
#define DP_TYPE_ACPI 0x02
#define DP_SUBTYPE_ACPI 0x01
#define DP_SUBTYPE_UART 0x0e
#define EISA_PNP_UART_HID 0x050141d0u	/* EISA_PNP_ID(0x0501): 16550-compatible COM port */

#define MAX_SCREENS 4

static SIMPLE_TEXT_OUTPUT_INTERFACE *screens[MAX_SCREENS], *serials[MAX_SCREENS];
static unsigned nscreens, nserials;
static bool split;	/* the screens and serial terminals could be told apart */
static bool readable;	/* screen=readable is drawn */
static bool wanted_readable;
static bool fw_serial;	/* the lines also go to the firmware's serial consoles */

static bool is_serial_path(EFI_DEVICE_PATH *dp)
{
	struct devpath_walk w;
	struct devpath_node n;
	devpath_begin(&w, dp, SIZE_MAX);
	while (devpath_next(&w, &n)) {
		if (n.type == DEVPATH_MESSAGING && n.subtype == DP_SUBTYPE_UART)
			return true;
		if (n.type == DP_TYPE_ACPI && n.subtype == DP_SUBTYPE_ACPI && n.len >= sizeof(uint32_t)) {
			uint32_t hid;
			memcpy(&hid, n.data, sizeof(hid));
			if (hid == EISA_PNP_UART_HID)
				return true;
		}
	}
	return false;
}

static void write_ascii(SIMPLE_TEXT_OUTPUT_INTERFACE *con, const char *s, size_t len, bool newline)
{
	CHAR16 buf[161];
	size_t k = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[k++] = (c >= 0x20 && c < 0x7f) ? c : (c == '\n' ? '\n' : '?');
		/* Leave room for the "\r\n" and the terminating 0 added below. */
		if (k == ARRAY_SIZE(buf) - 3) {
			buf[k] = 0;
			con->OutputString(con, buf);
			k = 0;
		}
	}
	if (newline) {
		buf[k++] = '\r';
		buf[k++] = '\n';
	}
	buf[k] = 0;
	if (k)
		con->OutputString(con, buf);
}

/* screen=records, or a screen too small for the layout: every line as it comes. */
static void screen_lines(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	(void)kind;
	for (unsigned i = 0; i < nscreens; i++)
		write_ascii(screens[i], line, len, true);
}

/* The firmware's own serial consoles, used only when our UART is not (and serial= is not off). */
static void fw_serial_lines(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	(void)kind;
	for (unsigned i = 0; i < nserials; i++)
		write_ascii(serials[i], line, len, true);
}

/* Sort the firmware's text outputs into screens and serial terminals. */
static void find_consoles(EFI_SYSTEM_TABLE *st)
{
	static EFI_GUID text_out_guid = SIMPLE_TEXT_OUTPUT_PROTOCOL;
	static EFI_GUID dp_guid = DEVICE_PATH_PROTOCOL;
	EFI_HANDLE *handles = NULL;
	UINTN count = 0;

	nscreens = nserials = 0;
	if (st->BootServices->LocateHandleBuffer(ByProtocol, &text_out_guid, NULL, &count, &handles) != EFI_SUCCESS)
		return;
	for (UINTN i = 0; i < count; i++) {
		EFI_DEVICE_PATH *dp = NULL;
		SIMPLE_TEXT_OUTPUT_INTERFACE *con = NULL;
		/* The console splitter has no device path: it is the multiplexer itself. */
		if (st->BootServices->HandleProtocol(handles[i], &dp_guid, (void **)&dp) != EFI_SUCCESS || !dp)
			continue;
		if (st->BootServices->HandleProtocol(handles[i], &text_out_guid, (void **)&con) != EFI_SUCCESS || !con)
			continue;
		if (is_serial_path(dp)) {
			if (nserials < MAX_SCREENS)
				serials[nserials++] = con;
		} else if (nscreens < MAX_SCREENS) {
			screens[nscreens++] = con;
		}
	}
	st->BootServices->FreePool(handles);
}

unsigned console_attach(EFI_SYSTEM_TABLE *st, bool own_uart_active, bool serial_off, const struct config *cfg)
{
	find_consoles(st);
	split = nscreens || nserials;
	if (!split && !own_uart_active) {
		/* Only the splitter: screen and any firmware serial console cannot be told apart. */
		screens[nscreens++] = st->ConOut;
	}
	readable = false;
	wanted_readable = cfg->screen == SCREEN_READABLE;
	if (nscreens) {
		readable = split && cfg->screen == SCREEN_READABLE && screen_start(screens, nscreens, cfg);
		struct out_sink sink = { .name = "screen", .write_line = readable ? screen_sink : screen_lines,
					 .write_record = readable ? screen_record : NULL };
		out_add_sink(&sink);
	}
	fw_serial = split && !own_uart_active && !serial_off && nserials;
	if (fw_serial) {
		struct out_sink sink = { .name = "fw-serial", .write_line = fw_serial_lines };
		out_add_sink(&sink);
	}
	return nscreens;
}

void console_record(struct rec *r)
{
	unsigned c = 0, rw = 0;
	rec_obj(r, "screen");
	rec_str(r, "mode", !nscreens ? "none" : readable ? "readable" : "records");
	rec_u64(r, "consoles", nscreens);
	if (readable) {
		screen_size(&c, &rw);
		rec_u64(r, "columns", c);
		rec_u64(r, "rows", rw);
	}
	const char *note = NULL;
	if (!split && nscreens)
		note = "the firmware offers only its combined console (screen and serial together): lines as they come";
	else if (nscreens && !readable && wanted_readable)
		note = "the screen is smaller than the readable layout needs (80x20): lines as they come";
	rec_str(r, "note", note);
	rec_bool(r, "firmware_serial", fw_serial);
	rec_obj_end(r);
}

void console_puts(EFI_SYSTEM_TABLE *st, const char *s)
{
	write_ascii(st->ConOut, s, strlen(s), true);
}
