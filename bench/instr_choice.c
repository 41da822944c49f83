/* bench/instr_choice.c - reading instr=; see instr_choice.h. */
#include "bench/instr_choice.h"
#include "lib/strbuf.h"

static bool is_capital(char ch) { return ch >= 'A' && ch <= 'Z'; }
static bool is_ext_char(char ch) { return is_capital(ch) || (ch >= 'a' && ch <= 'z') || lc_isdigit(ch) || ch == '_'; }

/*
 * Whether v has the shape of an extension list: items of letters, digits and '_', none empty, each with a
 * capital.  XED writes one name with a lower-case letter (AMD's SSE4a), and --list prints it so.  No asm
 * name has a capital next to a lower-case letter (operands follow a blank), so a value of this shape that
 * mixes the cases could match no form as a regex either.
 */
static bool is_ext_list(const char *v, size_t len)
{
	bool capital = false;
	for (size_t i = 0; i < len; i++) {
		if (v[i] == ',') {
			if (!capital || i + 1 == len)
				return false;
			capital = false;
		} else if (!is_ext_char(v[i])) {
			return false;
		} else {
			capital = capital || is_capital(v[i]);
		}
	}
	return capital;
}

bool instr_choice_parse(struct instr_choice *ch, const char *v, size_t len, char *why, size_t cap)
{
	memset(&ch->flt, 0, sizeof(ch->flt));
	ch->kind = INSTR_CHOOSE_NONE;
	if (len >= sizeof(ch->text)) {
		snprintf(why, cap, "instr=: longer than %zu characters", sizeof(ch->text) - 1);
		return false;
	}
	memcpy(ch->text, v, len);
	ch->text[len] = 0;
	if (!len || !strcmp(ch->text, "none"))
		return true;
	if (!strcmp(ch->text, "all")) {
		ch->kind = INSTR_CHOOSE_ALL;
		return true;
	}
	if (is_ext_list(v, len)) {
		size_t n = 0;
		for (char *p = ch->text; *p;) {
			if (n == INSTR_CHOICE_EXT_MAX) {
				snprintf(why, cap, "instr=: more than %u extensions", INSTR_CHOICE_EXT_MAX);
				return false;
			}
			ch->ext[n++] = p;
			while (*p && *p != ',')
				p++;
			if (*p)
				*p++ = 0;
		}
		ch->kind = INSTR_CHOOSE_EXT;
		ch->flt.ext = ch->ext;
		ch->flt.n_ext = n;
		return true;
	}
	struct regex_error err;
	if (!regex_compile(&ch->re, ch->text, 0, &err)) {
		snprintf(why, cap, "instr=%s: at position %zu: %s", ch->text, err.pos + 1, err.what);
		return false;
	}
	ch->kind = INSTR_CHOOSE_REGEX;
	ch->flt.match = &ch->re;
	return true;
}

/* The pack's distinct extensions, sorted (without regard to case); how many there are, even past max. */
static size_t pack_extensions(const struct instr_pack *pk, struct instr_pack_form *f, const char **ext, size_t max)
{
	struct instr_pack walk = *pk;
	size_t n = 0, all = 0;
	const char *last = NULL;

	while (instr_pack_next(&walk, f)) {
		/* Forms come grouped by extension: most are the one before. */
		if (last && !lc_strcasecmp(last, f->extension))
			continue;
		last = f->extension;
		size_t at = 0;
		while (at < n && lc_strcasecmp(ext[at], f->extension) < 0)
			at++;
		if (at < n && !lc_strcasecmp(ext[at], f->extension))
			continue;
		all++;
		if (n == max)
			continue;
		memmove(ext + at + 1, ext + at, (n - at) * sizeof(*ext));
		ext[at] = f->extension;
		n++;
	}
	return all;
}

static bool pack_has(const char *const *ext, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!lc_strcasecmp(ext[i], name))
			return true;
	return false;
}

size_t instr_choice_unknown_ext(const struct instr_choice *ch, const struct instr_pack *pk, struct instr_pack_form *f,
				char *why, size_t cap)
{
	static const char *ext[INSTR_CHOICE_PACK_EXT_MAX]; /* pointers into the pack; .bss, not the stack */
	size_t unknown = 0, k = 0;

	if (cap)
		why[0] = 0;
	if (ch->kind != INSTR_CHOOSE_EXT)
		return 0;
	size_t all = pack_extensions(pk, f, ext, INSTR_CHOICE_PACK_EXT_MAX);
	size_t n = all < INSTR_CHOICE_PACK_EXT_MAX ? all : INSTR_CHOICE_PACK_EXT_MAX;
	for (size_t i = 0; i < ch->flt.n_ext; i++) {
		if (pack_has(ext, n, ch->flt.ext[i]))
			continue;
		k = str_appendf(why, cap, k, "%s%s", unknown ? ", " : "no form of the kernel pack is of extension ",
				ch->flt.ext[i]);
		unknown++;
	}
	if (!unknown)
		return 0;
	k = str_appendf(why, cap, k, "; it has %zu:", all);
	for (size_t i = 0; i < n && k < cap; i++) {
		/* The list as far as it fits, with room left to say it goes on. */
		if (k + strlen(ext[i]) + sizeof(" ...") + 1 >= cap) {
			k = str_appendf(why, cap, k, " ...");
			break;
		}
		k = str_appendf(why, cap, k, " %s", ext[i]);
	}
	return unknown;
}
