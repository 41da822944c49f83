/* lib/regex.c: the ERE subset instr=REGEX and `instr --match` use, its errors and its linear time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <time.h>

#include "lib/regex.h"

static struct regex re;

static bool m(const char *pattern, const char *text)
{
	struct regex_error err;
	if (!regex_compile(&re, pattern, 0, &err))
		fail_msg("'%s' refused at %zu: %s", pattern, err.pos, err.what);
	return regex_search(&re, text);
}

static void literals_search_anywhere(void **state)
{
	(void)state;
	assert_true(m("ADD", "LOCK ADD m64, r64"));
	assert_true(m("", "anything"));
	assert_true(m("", ""));
	assert_false(m("ADC", "ADD r64, r64"));
	assert_false(m("x", ""));
	assert_true(m("r64, r64", "ADD r64, r64"));
	assert_false(m("add", "ADD r64, r64"));		/* case counts unless REGEX_ICASE */
}

static void anchors(void **state)
{
	(void)state;
	assert_true(m("^ADD r64", "ADD r64, r64"));
	assert_false(m("^ADD r64", "LOCK ADD r64"));
	assert_true(m("r64$", "ADD r64, r64"));
	assert_false(m("r64$", "ADD r64, m64"));
	assert_true(m("^$", ""));
	assert_false(m("^$", "a"));
	assert_true(m("^ADD r64, r64$", "ADD r64, r64"));
	assert_false(m("^ADD r64, r64$", "ADD r64, r64, {er}"));
	assert_false(m("a^b", "a^b"));			/* ^ is an anchor inside too */
}

static void dot_classes_and_escapes(void **state)
{
	(void)state;
	assert_true(m("^V.DDPS", "VADDPS zmm"));
	assert_true(m("r[0-9]+", "r64"));
	assert_false(m("^r[0-9]+$", "rax"));
	assert_true(m("[^a-z]", "abc1"));
	assert_false(m("^[^a-z]+$", "abC"));
	assert_true(m("[]]", "x]"));			/* ] first is literal */
	assert_true(m("[a-]", "-"));			/* - last is literal */
	assert_true(m("zmm\\{k\\}", "VADDPS zmm{k}, zmm, zmm"));
	assert_false(m("zmm\\{k\\}", "VADDPS zmm, zmm, zmm"));
	assert_true(m("\\.", "a.b"));
	assert_false(m("\\.", "ab"));
	assert_false(m("^\\w+ \\d", "ROR r16, 1"));
	assert_true(m("\\d$", "ROR r16, 1"));
	assert_true(m("\\s", "a b"));
	assert_true(m("[\\d]", "x7"));
	assert_true(m("\\[", "["));
}

static void repetition_alternation_groups(void **state)
{
	(void)state;
	assert_true(m("^ab*c$", "ac"));
	assert_true(m("^ab*c$", "abbbc"));
	assert_false(m("^ab+c$", "ac"));
	assert_true(m("^ab?c$", "abc"));
	assert_false(m("^ab?c$", "abbc"));
	assert_true(m("^(ADD|SUB) r64", "SUB r64, r64"));
	assert_false(m("^(ADD|SUB) r64", "XOR r64, r64"));
	assert_true(m("^(ab)+$", "ababab"));
	assert_false(m("^(ab)+$", "ababa"));
	assert_true(m("^(a|)$", ""));
	assert_true(m("^(a*)*$", "aaaa"));		/* a nullable loop terminates */
	assert_true(m("x|^y", "y"));
	assert_true(m("^(a|b)*c(d|e)?$", "abbac"));
}

static void icase(void **state)
{
	(void)state;
	struct regex_error err;
	assert_true(regex_compile(&re, "^vaddps [y]mm", REGEX_ICASE, &err));
	assert_true(regex_search(&re, "VADDPS ymm, ymm, ymm"));
	assert_true(regex_compile(&re, "[a-c]X", REGEX_ICASE, &err));
	assert_true(regex_search(&re, "Bx"));
}

static void refuse(const char *pattern, size_t pos, const char *what_part)
{
	struct regex_error err = { 99, NULL };
	if (regex_compile(&re, pattern, 0, &err))
		fail_msg("'%s' compiled", pattern);
	assert_non_null(err.what);
	if (!strstr(err.what, what_part))
		fail_msg("'%s': '%s' does not say '%s'", pattern, err.what, what_part);
	assert_int_equal(err.pos, pos);
}

static void errors_name_position_and_what(void **state)
{
	(void)state;
	refuse("(ADD", 0, "'(' without its ')'");
	refuse("ADD)", 3, "')' without its '('");
	refuse("a|*", 2, "nothing to repeat");
	refuse("*", 0, "nothing to repeat");
	refuse("ab[cd", 2, "'[' without its ']'");
	refuse("x[z-a]", 2, "backwards");
	refuse("ab\\", 2, "at the end");
	refuse("\\q", 0, "unknown escape");
	refuse("a{2}", 1, "counts are not supported");
	/* Too large a program. */
	char big[1200];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	struct regex_error err;
	assert_false(regex_compile(&re, big, 0, &err));
	assert_non_null(strstr(err.what, "too"));
}

/* (a?)^n a^n against a^n: exponential for a backtracker, a few milliseconds here. */
static void no_exponential_blowup(void **state)
{
	(void)state;
	char pat[200] = "^", text[64];
	size_t n = 30;
	for (size_t i = 0; i < n; i++)
		strcat(pat, "a?");
	for (size_t i = 0; i < n; i++)
		strcat(pat, "a");
	strcat(pat, "$");
	memset(text, 'a', n);
	text[n] = 0;
	clock_t t0 = clock();
	assert_true(m(pat, text));
	text[n - 1] = 'b';
	assert_false(m(pat, text));
	assert_true(m("(x+x+)+y", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy"));
	assert_false(m("(x+x+)+y", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(secs < 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(literals_search_anywhere),
		cmocka_unit_test(anchors),
		cmocka_unit_test(dot_classes_and_escapes),
		cmocka_unit_test(repetition_alternation_groups),
		cmocka_unit_test(icase),
		cmocka_unit_test(errors_name_position_and_what),
		cmocka_unit_test(no_exponential_blowup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
