/* run/config.c - reading words and text into a struct config; see config.h (the table: config_opts.c). */
#include "run/config_int.h"
#include "bench/ukernel.h"
#include "lib/strbuf.h"

#define UART_DEFAULT_BAUD 115200
#define UART_MAX_BAUD 115200	/* 1.8432 MHz clock / 16, divisor 1 */
#define IO_PORT_MAX 0xffff

static bool parse_serial(struct serial_cfg *s, const char *v, size_t len, char *why, size_t cap)
{
	static const uint16_t com_ports[] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 }; /* PC/AT convention */
	const char *comma = NULL;
	struct serial_cfg out = { SERIAL_IO, 0, 0 };

	if (lc_eq_ci_n(v, len, "auto") || lc_eq_ci_n(v, len, "off")) {
		out.kind = lc_eq_ci_n(v, len, "auto") ? SERIAL_AUTO : SERIAL_OFF;
		*s = out;
		return true;
	}
	for (size_t i = 0; i < len; i++)
		if (v[i] == ',') {
			comma = v + i;
			break;
		}
	size_t head = comma ? (size_t)(comma - v) : len;
	const char *rest = comma ? comma + 1 : NULL;
	size_t rest_len = comma ? len - head - 1 : 0;

	if (lc_eq_ci_n(v, head, "mmio") || lc_eq_ci_n(v, head, "mmio32")) {
		out.kind = lc_eq_ci_n(v, head, "mmio") ? SERIAL_MMIO8 : SERIAL_MMIO32;
		if (!rest) {
			snprintf(why, cap, "'%.*s' needs an address: %.*s,0xADDR[,baud]", QUOTED(head), v, QUOTED(head), v);
			return false;
		}
		const char *c2 = NULL;
		for (size_t i = 0; i < rest_len; i++)
			if (rest[i] == ',') {
				c2 = rest + i;
				break;
			}
		size_t alen = c2 ? (size_t)(c2 - rest) : rest_len;
		if (!lc_parse_u64(rest, alen, &out.base) || out.base == 0) {
			snprintf(why, cap, "bad MMIO address '%.*s' (expected 0x followed by hex digits)", QUOTED(alen), rest);
			return false;
		}
		rest = c2 ? c2 + 1 : NULL;
		rest_len = c2 ? rest_len - alen - 1 : 0;
	} else if (head == 4 && lc_eq_ci_n(v, 3, "com") && v[3] >= '1' && v[3] <= '4') {
		out.base = com_ports[v[3] - '1'];
	} else {
		if (!lc_parse_u64(v, head, &out.base) || out.base == 0 || out.base > IO_PORT_MAX) {
			snprintf(why, cap,
				 "'%.*s' is not a serial port (expected auto, off, com1..com4, an I/O port 0x1..0xffff, "
				 "mmio,0xADDR or mmio32,0xADDR)", QUOTED(head), v);
			return false;
		}
	}
	if (rest) {
		uint64_t baud;
		if (!lc_parse_u64(rest, rest_len, &baud) || baud == 0 || baud > UART_MAX_BAUD ||
		    (UART_MAX_BAUD % baud) != 0) {
			snprintf(why, cap, "bad baud rate '%.*s' (expected a divisor of 115200, e.g. 115200, 57600, 9600)",
				 QUOTED(rest_len), rest);
			return false;
		}
		out.baud = (uint32_t)baud;
	}
	if (!out.baud)
		out.baud = UART_DEFAULT_BAUD;
	*s = out;
	return true;
}

/* freq=: keep, base, max, or MHz in the option's range. */
static bool parse_freq(const struct opt_def *o, struct freq_cfg *f, const char *v, size_t len, char *why, size_t cap)
{
	uint64_t n;
	for (size_t i = 0; i < FREQ_SEL_MHZ; i++)
		if (lc_eq_ci_n(v, len, config_freq_words[i])) {
			*f = (struct freq_cfg){ (enum freq_sel)i, 0 };
			return true;
		}
	if (!lc_parse_u64(v, len, &n) || n < o->min || n > o->max) {
		snprintf(why, cap, "'%.*s' is not keep, base, max or a frequency in MHz (%llu..%llu)", QUOTED(len), v,
			 (unsigned long long)o->min, (unsigned long long)o->max);
		return false;
	}
	*f = (struct freq_cfg){ FREQ_SEL_MHZ, (uint32_t)n };
	return true;
}

static bool parse_value(const struct opt_def *o, struct config *c, const char *v, size_t len, char *why,
			size_t cap)
{
	char *field = (char *)c + o->offset;
	uint64_t n;

	switch (o->type) {
	case OPT_ENUM:
		for (int i = 0; o->choices[i]; i++) {
			if (lc_eq_ci_n(v, len, o->choices[i])) {
				*(int *)field = i;
				return true;
			}
		}
		{
			size_t k = (size_t)snprintf(why, cap, "'%.*s' is not one of:", QUOTED(len), v);
			for (int i = 0; o->choices[i] && k < cap; i++)
				k = str_appendf(why, cap, k, " %s", o->choices[i]);
		}
		return false;
	case OPT_BOOL:
		if (lc_eq_ci_n(v, len, "on") || lc_eq_ci_n(v, len, "yes") || lc_eq_ci_n(v, len, "true") || lc_eq_ci_n(v, len, "1")) {
			*(bool *)field = true;
			return true;
		}
		if (lc_eq_ci_n(v, len, "off") || lc_eq_ci_n(v, len, "no") || lc_eq_ci_n(v, len, "false") || lc_eq_ci_n(v, len, "0")) {
			*(bool *)field = false;
			return true;
		}
		snprintf(why, cap, "'%.*s' is not on or off", QUOTED(len), v);
		return false;
	case OPT_COUNTDOWN:
		if (lc_eq_ci_n(v, len, "auto")) {
			*(int32_t *)field = -1;
			return true;
		}
		/* fall through */
	case OPT_U32:
	case OPT_U64:
		if (!lc_parse_u64(v, len, &n)) {
			snprintf(why, cap, "'%.*s' is not a number (decimal, or hex with 0x)", QUOTED(len), v);
			return false;
		}
		if (n < o->min || n > o->max) {
			snprintf(why, cap, "%llu is out of range %llu..%llu", (unsigned long long)n,
				 (unsigned long long)o->min, (unsigned long long)o->max);
			return false;
		}
		if (o->type == OPT_U64)
			*(uint64_t *)field = n;
		else if (o->type == OPT_U32)
			*(uint32_t *)field = (uint32_t)n;
		else
			*(int32_t *)field = (int32_t)n;
		return true;
	case OPT_STR:
		if (len >= CONFIG_STR_MAX) {
			snprintf(why, cap, "value is %zu characters long; at most %d fit", len, CONFIG_STR_MAX - 1);
			return false;
		}
		for (size_t i = 0; i < len; i++) {
			/* A blank is a value's own only when quoted (config_apply_text). */
			if ((unsigned char)v[i] < ' ' || (unsigned char)v[i] > 0x7e) {
				snprintf(why, cap, "character %zu is not printable ASCII", i + 1);
				return false;
			}
		}
		{
			char kept[CONFIG_STR_MAX];
			bool ok = config_check_str(o, v, len, kept, sizeof(kept), why, cap);
			/* A list with some bad words keeps its good ones; with none left, the previous value stays. */
			if (ok || kept[0])
				memcpy(field, kept, strlen(kept) + 1);
			return ok;
		}
	case OPT_SERIAL:
		return parse_serial((struct serial_cfg *)field, v, len, why, cap);
	case OPT_HEX_KERNEL:
		return len == 0;	/* the default: none (kernel.NAME words go through set_hex_kernel) */
	case OPT_FREQ:
		return parse_freq(o, (struct freq_cfg *)field, v, len, why, cap);
	}
	return false;
}

/* kernel.NAME=HEX: checked as a kernel now, so a bad one is an error naming its line. */
static bool set_hex_kernel(struct config *c, const char *name, size_t nlen, const char *hex, size_t hlen, char *why,
			   size_t cap)
{
	/*
	 * 2 KiB, kept off the stack; static in .bss (linker.ld: zero-filled by the loader, not stored in
	 * the file).  One buffer serves every call: options are applied one word at a time on the boot
	 * processor (and in pmuboot-host's one thread), nothing below calls back into option parsing, and
	 * the kernel is copied into c before this returns.
	 */
	static struct ukernel kbuf;
	struct ukernel *k = &kbuf;
	if (hlen >= CONFIG_STR_MAX) {
		snprintf(why, cap, "%zu hex digits; at most %d fit here (longer kernels go in a kernel file)", hlen,
			 CONFIG_STR_MAX - 1);
		return false;
	}
	if (!ukernel_from_hex(name, nlen, hex, hlen, k, why, cap))
		return false;
	uint32_t i = 0;
	while (i < c->n_hex_kernels && strcmp(c->hex_kernels[i].name, k->name))
		i++;
	if (i == CONFIG_HEX_KERNELS) {
		snprintf(why, cap, "at most %d kernels can be given as hex", CONFIG_HEX_KERNELS);
		return false;
	}
	memcpy(c->hex_kernels[i].name, k->name, sizeof(c->hex_kernels[i].name));
	memcpy(c->hex_kernels[i].hex, hex, hlen);
	c->hex_kernels[i].hex[hlen] = 0;
	if (i == c->n_hex_kernels)
		c->n_hex_kernels++;
	return true;
}

void config_defaults(struct config *c)
{
	char why[192];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < config_opts_n; i++)
		(void)parse_value(&config_opts[i], c, config_opts[i].def, strlen(config_opts[i].def), why, sizeof(why));
}

static void set_err(struct config_error *err, const char *source, const char *key, size_t klen, const char *msg)
{
	snprintf(err->source, sizeof(err->source), "%s", source);
	snprintf(err->key, sizeof(err->key), "%.*s", (int)(klen < sizeof(err->key) ? klen : sizeof(err->key) - 1),
		 key);
	snprintf(err->message, sizeof(err->message), "%s", msg);
}

bool config_apply_word(struct config *c, const char *source, const char *word, size_t len,
		       struct config_error *err)
{
	const char *eq = NULL;
	char why[192];

	for (size_t i = 0; i < len; i++)
		if (word[i] == '=') {
			eq = word + i;
			break;
		}
	if (!eq) {
		snprintf(why, sizeof(why), "'%.*s' is not key=value", (int)(len > 60 ? 60 : len), word);
		set_err(err, source, word, len, why);
		return false;
	}
	size_t klen = (size_t)(eq - word);
	const struct opt_def *o = config_opt_find(word, klen);
	if (!o) {
		snprintf(why, sizeof(why), "unknown option '%.*s' (see docs/options.md)", (int)(klen > 40 ? 40 : klen),
			 word);
		set_err(err, source, word, klen, why);
		return false;
	}
	if (o->type == OPT_HEX_KERNEL) {
		size_t plen = sizeof(KERNEL_KEY_PREFIX) - 1;
		if (!set_hex_kernel(c, word + plen, klen - plen, eq + 1, len - klen - 1, why, sizeof(why))) {
			set_err(err, source, word, klen, why);
			return false;
		}
		return true;
	}
	if (!parse_value(o, c, eq + 1, len - klen - 1, why, sizeof(why))) {
		set_err(err, source, word, klen, why);
		return false;
	}
	config_note_source(o, c, source);
	return true;
}

/*
 * Quoting (docs/options.md, "Quoting"): a ' or " anywhere in a word opens a span that runs to the same
 * quote; blanks, '#' and the other quote inside it are the value's own, and the quotes are removed.  The
 * UEFI shell reads its own command line the same way with double quotes (EDK2 ShellPkg
 * ShellParametersProtocol.c, FindEndOfParameter: a quote anywhere in a parameter, to the next one), and a
 * POSIX shell with both, so what either takes as one word is one word here.  There is no escape character: a value that holds
 * one quote is written inside the other ('say "hi"').
 */
#define QUOTED_WORD_MAX (2 * CONFIG_STR_MAX) /* a quoted word unquoted: any value with its key */

struct word {
	const char *raw;  /* as written, quotes included */
	size_t raw_len;
	const char *text; /* quotes removed: raw itself when it has none, else the caller's buffer */
	size_t len;
	bool quoted;
};

enum word_read { WORD_READ, WORD_NONE, WORD_UNCLOSED, WORD_LONG };

static bool is_quote(char ch) { return ch == '"' || ch == '\''; }

/*
 * The next word of line[*at..end): blanks separate words, '#' outside quotes starts a comment.  On
 * WORD_UNCLOSED *at is the opening quote's offset (the rest of the line is the word's).
 */
static enum word_read next_word(const char *line, size_t end, size_t *at, struct word *w, char *buf, size_t cap)
{
	size_t k = *at, n = 0, open = 0;
	char q = 0;

	while (k < end && lc_isspace((unsigned char)line[k]))
		k++;
	if (k == end || line[k] == '#') {
		*at = end;
		return WORD_NONE;
	}
	*w = (struct word){ line + k, 0, line + k, 0, false };
	for (; k < end; k++) {
		char ch = line[k];
		if (q && ch == q) {
			q = 0;
			continue;
		}
		if (!q && (lc_isspace((unsigned char)ch) || ch == '#'))
			break;
		if (!q && is_quote(ch)) {
			q = ch;
			open = k;
			w->quoted = true;
			continue;
		}
		if (n < cap)
			buf[n] = ch;
		n++;
	}
	w->raw_len = (size_t)(line + k - w->raw);
	*at = k;
	if (q) {
		*at = open;
		return WORD_UNCLOSED;
	}
	if (!w->quoted) {
		w->len = w->raw_len;
		return WORD_READ;
	}
	w->text = buf;
	w->len = n;
	return n < cap ? WORD_READ : WORD_LONG;
}

/* s[0..len)'s first ch, or NULL (lib/libc.h has no memchr). */
static const char *find_char(const char *s, size_t len, char ch)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == ch)
			return s + i;
	return NULL;
}

static bool has_eq(const char *s, size_t len) { return find_char(s, len, '=') != NULL; }

/* An error's key: the word up to its '=', or the whole word. */
static size_t key_len(const char *s, size_t len)
{
	const char *eq = find_char(s, len, '=');
	return eq ? (size_t)(eq - s) : len;
}

/* Longer than any option's key but kernel.NAME with a long NAME, which is cut. */
#define STRAY_KEY_SHOWN 32

/*
 * A word without '=' after key=value words on its line (instr=^ADD r64): most likely a value's blank
 * unquoted.  The message shows the value quoted, from kv (unquoted, as written) to the end of w.
 */
static void stray_word_hint(struct config_error *err, const struct word *kv, const struct word *w)
{
	const char *eq = find_char(kv->raw, kv->raw_len, '=');
	size_t klen = (size_t)(eq - kv->raw), vlen = (size_t)(w->raw + w->raw_len - (eq + 1));

	/*
	 * Neither word has a quote (one would have opened a quoted span), so double quotes hold the value.  The
	 * key is shown to STRAY_KEY_SHOWN characters, so the whole message fits its buffer (two QUOTE_MAX parts,
	 * the key and 56 characters of text).
	 */
	snprintf(err->message, sizeof(err->message),
		 "'%.*s' is not key=value (a value with spaces is quoted: %.*s=\"%.*s\")", QUOTED(w->len), w->text,
		 (int)(klen > STRAY_KEY_SHOWN ? STRAY_KEY_SHOWN : klen), kv->raw, QUOTED(vlen), eq + 1);
}

/* Whether the next word on the line (from *at on) is an unquoted word without '=' (a stray_word_hint's). */
static bool stray_follows(const char *line, size_t end, size_t at)
{
	char peek[QUOTED_WORD_MAX];
	struct word n;
	return next_word(line, end, &at, &n, peek, sizeof(peek)) == WORD_READ && !n.quoted && !has_eq(n.text, n.len);
}

unsigned config_apply_text(struct config *c, const char *name, bool is_file, const char *text, size_t len,
			   void (*report)(const struct config_error *err, void *ctx), void *ctx)
{
	unsigned errors = 0, line = 1;
	char source[64];
	struct config_error err;
	size_t i = 0;
	char buf[QUOTED_WORD_MAX];

	while (i < len) {
		/* One line at a time; load options are a single line. */
		size_t end = i;
		while (end < len && text[end] != '\n')
			end++;
		if (is_file)
			snprintf(source, sizeof(source), "%s:%u", name, line);
		else
			snprintf(source, sizeof(source), "%s", name);
		const char *nul = NULL;
		for (size_t z = i; z < end && !nul; z++)
			if (!text[z])
				nul = text + z;
		if (nul) {
			/* Not text: a word cut at the NUL would be read as something the file did not say. */
			char why[160];
			snprintf(why, sizeof(why), "a NUL byte at column %zu: this line was not read (is the file text?)",
				 (size_t)(nul - (text + i)) + 1);
			set_err(&err, source, "-", 1, why);
			errors++;
			if (report)
				report(&err, ctx);
			i = end + 1;
			line++;
			continue;
		}
		size_t k = i;
		struct word w, kv = { 0 };
		enum word_read got;
		while ((got = next_word(text, end, &k, &w, buf, sizeof(buf))) != WORD_NONE) {
			bool ok = false;
			char why[160];
			if (got == WORD_UNCLOSED) {
				snprintf(why, sizeof(why), "the %s at column %zu is not closed: the rest of the %s was not "
					 "read (a quoted value ends with the same quote: instr=\"^ADD r64\")",
					 text[k] == '"' ? "double quote" : "single quote", k - i + 1, is_file ? "line" : "text");
				set_err(&err, source, w.raw, key_len(w.raw, (size_t)(text + k - w.raw)), why);
				k = end;
			} else if (got == WORD_LONG) {
				snprintf(why, sizeof(why), "a quoted word of %zu characters: at most %d fit", w.len,
					 QUOTED_WORD_MAX - 1);
				set_err(&err, source, w.raw, key_len(w.raw, w.raw_len), why);
			} else if (!w.quoted && has_eq(w.text, w.len) && stray_follows(text, end, k)) {
				/* Not applied: half a value is not what the line asks for (instr=^ADD would measure
				 * every ADD form where instr="^ADD r64" was meant). */
				snprintf(why, sizeof(why), "not applied: the word after it has no '=', most likely the "
					 "rest of its value (a value with spaces is quoted)");
				set_err(&err, source, w.raw, key_len(w.raw, w.raw_len), why);
				kv = w;
			} else {
				ok = config_apply_word(c, source, w.text, w.len, &err);
				if (!ok && kv.raw && !w.quoted && !has_eq(w.text, w.len))
					stray_word_hint(&err, &kv, &w);
				/* Hints come from an unquoted key=value and run through unquoted words only. */
				if (has_eq(w.text, w.len) || w.quoted)
					kv = w.quoted ? (struct word){ 0 } : w;
			}
			if (!ok) {
				errors++;
				if (report)
					report(&err, ctx);
			}
		}
		i = end + 1;
		line++;
	}
	return errors;
}

/*
 * Unicode 15.0 §23.8 (byte order mark): U+FEFF at the start of a file is
 * EF BB BF in UTF-8, FF FE in UTF-16LE and FE FF in UTF-16BE.
 */
static const char bom_utf8[] = "\xef\xbb\xbf";
#define BOM_UTF8_LEN 3

/*
 * Without a byte order mark, ASCII text in UTF-16 is a NUL beside every
 * ASCII byte.  The pattern must hold for this many leading characters (or
 * the whole text when shorter), so that a UTF-8 file with a stray NUL is
 * read as the text it is and its NUL reported by line.
 */
#define UTF16_SNIFF_CHARS 8

/* True when the first characters are ASCII code units, the ASCII byte at `lo` (0 LE, 1 BE) of each pair. */
static bool ascii_utf16(const unsigned char *t, size_t len, unsigned lo)
{
	size_t pairs = len / 2 < UTF16_SNIFF_CHARS ? len / 2 : UTF16_SNIFF_CHARS;
	for (size_t i = 0; i < pairs; i++) {
		unsigned char a = t[2 * i + lo], z = t[2 * i + (lo ^ 1)];
		if (z || !a || a >= 0x80)
			return false;
	}
	return pairs > 0;
}

/* Which UTF-16 a text is, or NULL: by its byte order mark, or by NULs beside its ASCII bytes. */
static const char *utf16_kind(const unsigned char *t, size_t len)
{
	if (len < 2)
		return NULL;
	if (t[0] == 0xff && t[1] == 0xfe)
		return "UTF-16LE, byte order mark FF FE";
	if (t[0] == 0xfe && t[1] == 0xff)
		return "UTF-16BE, byte order mark FE FF";
	if (ascii_utf16(t, len, 0))
		return "UTF-16LE without a byte order mark";
	if (ascii_utf16(t, len, 1))
		return "UTF-16BE without a byte order mark";
	return NULL;
}

unsigned config_apply_file(struct config *c, const char *name, const char *text, size_t len,
			   void (*report)(const struct config_error *err, void *ctx), void *ctx)
{
	if (len >= BOM_UTF8_LEN && memcmp(text, bom_utf8, BOM_UTF8_LEN) == 0) {
		text += BOM_UTF8_LEN;
		len -= BOM_UTF8_LEN;
	}
	const char *u16 = utf16_kind((const unsigned char *)text, len);
	if (u16) {
		struct config_error err;
		char why[160];
		snprintf(why, sizeof(why), "is UTF-16 text (%s): no option was read; save it as ASCII or UTF-8", u16);
		set_err(&err, name, "-", 1, why);
		if (report)
			report(&err, ctx);
		return 1;
	}
	return config_apply_text(c, name, true, text, len, report, ctx);
}

