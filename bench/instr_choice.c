/* bench/instr_choice.c - reading instr=; see instr_choice.h. */
#include "bench/instr_choice.h"

static bool is_ext_char(char ch) { return (ch >= 'A' && ch <= 'Z') || lc_isdigit(ch) || ch == '_'; }

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
	/* Capitals, digits, '_' and commas only: extensions; anything else is a regular expression. */
	bool ext = true;
	for (size_t i = 0; i < len && ext; i++)
		ext = is_ext_char(v[i]) || (v[i] == ',' && i && i + 1 < len && v[i + 1] != ',');
	if (ext) {
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
