/*
 * tests/fuzz/fuzz_regex.c - fuzz target for lib/regex.c, the engine behind the image's instr=REGEX and
 * pmuboot-host instr --match (a pattern typed by a user, or read from pmuboot.cfg on a medium).
 *
 * Input: byte 0 holds the flags (bit 0: REGEX_ICASE), then the pattern up to the first newline, then
 * the text the pattern is searched in, up to the next newline or NUL (an asm name is one line; glibc
 * lets `^` and `$` match beside a newline inside the text even without REG_NEWLINE).  Beyond no crash:
 *   - a refused pattern says what is wrong, at a position inside the pattern;
 *   - an accepted one gives the same answer twice (the engine keeps its threads in static storage);
 *   - and the answer is the C library's POSIX regexec() for the same expression, where the C library
 *     takes it: lib/regex.h's language is a subset of POSIX ERE, with \d \w \s spelled out here as the
 *     bracket classes they stand for.  Patterns POSIX reads otherwise are not compared (skip_posix).
 */
#include <locale.h>
#include <regex.h>

#include "lib/regex.h"
#include "tests/fuzz/fuzz.h"

#define PAT_MAX 512
/* The characters an ERE gives a meaning (POSIX.1-2017 XBD 9.4.3), which a backslash makes literal. */
#define POSIX_SPECIAL ".[]()*+?{}|^$\\"

/* What \d \w \s stand for (lib/regex.c): inside brackets as members, outside as a class. */
static const char *shorthand(char c)
{
	return c == 'd' ? "0-9" : c == 'w' ? "A-Za-z0-9_" : c == 's' ? " \t\n\v\f\r" : NULL;
}

/*
 * Whether POSIX would read the pattern otherwise than lib/regex.h documents, or the C library could not
 * be asked in reasonable time: an anchor repeated (`^*` is a literal star in some readings), repetitions
 * stacked (`a+*`: undefined in POSIX, and glibc's compiler takes minutes over `a++++...`), or a shorthand
 * that starts or ends a range inside brackets.  (An escaped letter other than d, w or s, and a repetition
 * after `(` or `|`, lib/regex.c refuses.)
 */
static bool skip_posix(const char *p)
{
	for (size_t i = 0; p[i]; i++) {
		bool anchor = p[i] == '^' || p[i] == '$', repeat = p[i] == '*' || p[i] == '+' || p[i] == '?';
		if ((anchor || repeat) && (p[i + 1] == '*' || p[i + 1] == '+' || p[i + 1] == '?'))
			return true;
		if (p[i] == '\\' && p[i + 1]) {
			if (shorthand(p[i + 1]) && (p[i + 2] == '-' || (i && p[i - 1] == '-')))
				return true;
			i++;
		}
	}
	return false;
}

/* The pattern in POSIX ERE: shorthands spelled out, escapes inside brackets made plain members. */
static bool to_posix(const char *p, char *o, size_t cap)
{
	size_t n = 0;
	bool in_class = false;
#define PUT(ch) \
	do { \
		if (n + 1 >= cap) \
			return false; \
		o[n++] = (char)(ch); \
	} while (0)
	for (size_t i = 0; p[i]; i++) {
		char c = p[i];
		if (!in_class && c == '[') {
			in_class = true;
			PUT(c);
			if (p[i + 1] == '^')
				PUT(p[++i]);
			if (p[i + 1] == ']')
				PUT(p[++i]);
			continue;
		}
		if (in_class && c == ']') {
			in_class = false;
			PUT(c);
			continue;
		}
		if (c == '\\' && p[i + 1]) {
			const char *s = shorthand(p[++i]);
			if (s) {
				if (!in_class)
					PUT('[');
				for (; *s; s++)
					PUT(*s);
				if (!in_class)
					PUT(']');
			} else if (in_class) {
				/* Brackets take no escapes in POSIX: the member itself. */
				if (p[i] == ']' || p[i] == '^' || p[i] == '-')
					return false; /* would need moving within the brackets */
				PUT(p[i]);
			} else if (strchr(POSIX_SPECIAL, p[i])) {
				PUT('\\');
				PUT(p[i]);
			} else {
				/* Any other escaped byte is itself: glibc gives \` \' \< \> \b meanings of its own. */
				PUT(p[i]);
			}
			continue;
		}
		PUT(c);
	}
	o[n] = 0;
	return true;
#undef PUT
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct regex re;
	static char pat[PAT_MAX], text[PAT_MAX], posix[4 * PAT_MAX];

	if (size < 1)
		return 0;
	unsigned flags = data[0] & 1u ? REGEX_ICASE : 0;
	const uint8_t *nl = memchr(data + 1, '\n', size - 1);
	size_t plen = nl ? (size_t)(nl - data - 1) : size - 1;
	if (plen >= PAT_MAX)
		return 0;
	memcpy(pat, data + 1, plen);
	pat[plen] = 0;
	size_t tlen = nl ? size - plen - 2 : 0;
	if (tlen >= PAT_MAX)
		tlen = PAT_MAX - 1;
	if (tlen)
		memcpy(text, nl + 1, tlen);
	text[tlen] = 0;
	text[strcspn(text, "\n")] = 0;

	struct regex_error err = { 0, NULL };
	if (!regex_compile(&re, pat, flags, &err)) {
		FUZZ_CHECK(err.what && err.what[0]);
		FUZZ_CHECK(err.pos <= strlen(pat));
		return 0;
	}
	bool found = regex_search(&re, text);
	FUZZ_CHECK(regex_search(&re, text) == found);

	if (skip_posix(pat) || !to_posix(pat, posix, sizeof(posix)))
		return 0;
	setlocale(LC_ALL, "C");
	regex_t pr;
	if (regcomp(&pr, posix, REG_EXTENDED | REG_NOSUB | (flags ? REG_ICASE : 0)) != 0)
		return 0;
	bool want = regexec(&pr, text, 0, NULL, 0) == 0;
	regfree(&pr);
	if (want != found)
		fprintf(stderr, "pattern '%s' (POSIX '%s'), text '%s': lib/regex %d, regexec %d\n", pat, posix, text,
			found, want);
	FUZZ_CHECK(want == found);
	return 0;
}
