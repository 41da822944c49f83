/* Options: defaults, every value type, precedence, and errors that name source, key and reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "run/config.h"

struct errs {
	struct config_error e[8];
	int n;
};

static void keep(const struct config_error *e, void *ctx)
{
	struct errs *x = ctx;
	if (x->n < 8)
		x->e[x->n] = *e;
	x->n++;
}

static bool apply(struct config *c, const char *word, struct config_error *err)
{
	return config_apply_word(c, "test", word, strlen(word), err);
}

static void defaults(void **state)
{
	(void)state;
	struct config c;
	config_defaults(&c);
	assert_int_equal(c.serial.kind, SERIAL_AUTO);
	assert_int_equal(c.on_finish, FINISH_AUTO);
	assert_int_equal(c.countdown, -1);
	assert_int_equal(c.reps, 11);
	assert_int_equal(c.iterations, 1000);
	assert_true(c.save);
	assert_false(c.verbose);
	assert_string_equal(c.bench, "all");
	assert_int_equal(c.ibs_period, 0x4000);
}

static void serial_forms(void **state)
{
	(void)state;
	struct config c;
	struct config_error e;
	config_defaults(&c);
	assert_true(apply(&c, "serial=0x2f8,57600", &e));
	assert_int_equal(c.serial.kind, SERIAL_IO);
	assert_int_equal(c.serial.base, 0x2f8);
	assert_int_equal(c.serial.baud, 57600);
	assert_true(apply(&c, "serial=COM2", &e));
	assert_int_equal(c.serial.base, 0x2f8);
	assert_int_equal(c.serial.baud, 115200);
	assert_true(apply(&c, "serial=mmio32,0xfe032000,115200", &e));
	assert_int_equal(c.serial.kind, SERIAL_MMIO32);
	assert_int_equal(c.serial.base, 0xfe032000ull);
	assert_true(apply(&c, "serial=off", &e));
	assert_int_equal(c.serial.kind, SERIAL_OFF);

	assert_false(apply(&c, "serial=0x3f8,1234", &e));
	assert_string_equal(e.key, "serial");
	assert_non_null(strstr(e.message, "bad baud rate '1234'"));
	assert_false(apply(&c, "serial=mmio32", &e));
	assert_non_null(strstr(e.message, "needs an address"));
	assert_false(apply(&c, "serial=0x10000", &e));
	assert_non_null(strstr(e.message, "is not a serial port"));
	/* A failed word leaves the previous value. */
	assert_int_equal(c.serial.kind, SERIAL_OFF);
}

static void enum_bool_number(void **state)
{
	(void)state;
	struct config c;
	struct config_error e;
	config_defaults(&c);
	assert_true(apply(&c, "on_finish=Reboot", &e));
	assert_int_equal(c.on_finish, FINISH_REBOOT);
	assert_false(apply(&c, "on_finish=explode", &e));
	assert_non_null(strstr(e.message, "'explode' is not one of: auto shutdown reboot halt return"));
	assert_true(apply(&c, "verbose=yes", &e));
	assert_true(c.verbose);
	assert_false(apply(&c, "verbose=maybe", &e));
	assert_true(apply(&c, "reps=0x20", &e));
	assert_int_equal(c.reps, 32);
	assert_false(apply(&c, "reps=2", &e));
	assert_non_null(strstr(e.message, "2 is out of range 3..10000"));
	assert_false(apply(&c, "reps=12abc", &e));
	assert_non_null(strstr(e.message, "'12abc' is not a number"));
	assert_false(apply(&c, "reps=99999999999999999999999", &e));
	assert_true(apply(&c, "countdown=0", &e));
	assert_int_equal(c.countdown, 0);
	assert_true(apply(&c, "countdown=auto", &e));
	assert_int_equal(c.countdown, -1);
}

/* freq=: keep, base, max or MHz in 100..10000; boost=: keep, on, off; bad values name what is expected. */
static void freq_and_boost(void **state)
{
	(void)state;
	struct config c;
	struct config_error e;
	char buf[32];
	config_defaults(&c);
	assert_int_equal(c.freq.sel, FREQ_SEL_KEEP);
	assert_int_equal(c.boost, BOOST_SEL_KEEP);
	assert_true(apply(&c, "freq=BASE", &e));
	assert_int_equal(c.freq.sel, FREQ_SEL_BASE);
	assert_true(apply(&c, "freq=max", &e));
	assert_int_equal(c.freq.sel, FREQ_SEL_MAX);
	assert_true(apply(&c, "freq=2400", &e));
	assert_int_equal(c.freq.sel, FREQ_SEL_MHZ);
	assert_int_equal(c.freq.mhz, 2400);
	assert_true(config_value_text(&c, "freq", buf, sizeof(buf)));
	assert_string_equal(buf, "2400");
	assert_true(apply(&c, "freq=100", &e));
	assert_true(apply(&c, "freq=10000", &e));
	assert_int_equal(c.freq.mhz, 10000);
	static const char *const bad[] = { "freq=99", "freq=10001", "freq=fast", "freq=2.4GHz", "freq=" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(apply(&c, bad[i], &e));
		assert_string_equal(e.key, "freq");
		assert_non_null(strstr(e.message, "is not keep, base, max or a frequency in MHz (100..10000)"));
		/* A bad value keeps the one before. */
		assert_int_equal(c.freq.sel, FREQ_SEL_MHZ);
		assert_int_equal(c.freq.mhz, 10000);
	}
	assert_non_null(strstr(e.message, "'' is not"));
	assert_true(apply(&c, "freq=keep", &e));
	assert_int_equal(c.freq.sel, FREQ_SEL_KEEP);
	assert_int_equal(c.freq.mhz, 0);
	assert_true(apply(&c, "boost=off", &e));
	assert_int_equal(c.boost, BOOST_SEL_OFF);
	assert_true(config_value_text(&c, "boost", buf, sizeof(buf)));
	assert_string_equal(buf, "off");
	assert_false(apply(&c, "boost=turbo", &e));
	assert_non_null(strstr(e.message, "'turbo' is not one of: keep on off"));
	assert_int_equal(c.boost, BOOST_SEL_OFF);
}

static void unknown_and_malformed(void **state)
{
	(void)state;
	struct config c;
	struct config_error e;
	config_defaults(&c);
	assert_false(apply(&c, "colour=blue", &e));
	assert_string_equal(e.source, "test");
	assert_string_equal(e.key, "colour");
	assert_non_null(strstr(e.message, "unknown option 'colour'"));
	assert_false(apply(&c, "justaword", &e));
	assert_non_null(strstr(e.message, "is not key=value"));
	assert_false(apply(&c, "events=a\x01b", &e));
	assert_non_null(strstr(e.message, "not printable"));
}

static void file_lines_and_comments(void **state)
{
	(void)state;
	struct config c;
	struct errs x = { 0 };
	const char text[] = "# pmuboot.cfg\n"
			    "reps=21   iterations=5000 # two words\r\n"
			    "\n"
			    "bogus=1\n"
			    "   on_finish=halt\n"
			    "reps=1";
	config_defaults(&c);
	unsigned n = config_apply_text(&c, "\\EFI\\BOOT\\pmuboot.cfg", true, text, strlen(text), keep, &x);
	assert_int_equal(n, 2);
	assert_int_equal(x.n, 2);
	assert_string_equal(x.e[0].source, "\\EFI\\BOOT\\pmuboot.cfg:4");
	assert_string_equal(x.e[0].key, "bogus");
	assert_string_equal(x.e[1].source, "\\EFI\\BOOT\\pmuboot.cfg:6");
	assert_string_equal(x.e[1].key, "reps");
	assert_int_equal(c.reps, 21);
	assert_int_equal(c.iterations, 5000);
	assert_int_equal(c.on_finish, FINISH_HALT);
}

static void file_encodings(void **state)
{
	(void)state;
	struct config c;
	struct errs x = { 0 };
	/* A UTF-8 byte order mark is not part of the first key. */
	const char bom[] = "\xef\xbb\xbfreps=17\n";
	config_defaults(&c);
	assert_int_equal(config_apply_file(&c, "pmuboot.cfg", bom, strlen(bom), keep, &x), 0);
	assert_int_equal(x.n, 0);
	assert_int_equal(c.reps, 17);

	/* UTF-16, with or without its mark, is refused in one error that says so. */
	static const struct {
		const char *bytes;
		size_t len;
		const char *says;
	} u16[] = {
		{ "\xff\xfer\0e\0p\0s\0=\0\x33\0", 14, "UTF-16LE, byte order mark FF FE" },
		{ "\xfe\xff\0r\0e\0p\0s\0=\0\x33", 14, "UTF-16BE, byte order mark FE FF" },
		{ "r\0e\0p\0s\0=\0\x33\0", 12, "UTF-16LE without" },
		{ "\0r\0e\0p\0s\0=\0\x33", 12, "UTF-16BE without" },
	};
	for (size_t i = 0; i < sizeof(u16) / sizeof(u16[0]); i++) {
		struct errs y = { 0 };
		config_defaults(&c);
		uint32_t reps = c.reps;
		assert_int_equal(config_apply_file(&c, "pmuboot.cfg", u16[i].bytes, u16[i].len, keep, &y), 1);
		assert_int_equal(y.n, 1);
		assert_string_equal(y.e[0].source, "pmuboot.cfg");
		assert_non_null(strstr(y.e[0].message, u16[i].says));
		assert_non_null(strstr(y.e[0].message, "save it as ASCII or UTF-8"));
		assert_int_equal(c.reps, reps);
	}
}

/* A NUL byte makes its line unreadable, not the file: the error names the line and column. */
static void nul_bytes_name_their_line(void **state)
{
	(void)state;
	struct config c;
	struct errs x = { 0 };
	static const char text[] = "reps=5\nwarmup=4\0 bench=none\niterations=3000\n";
	config_defaults(&c);
	uint32_t warmup = c.warmup;
	assert_int_equal(config_apply_file(&c, "pmuboot.cfg", text, sizeof(text) - 1, keep, &x), 1);
	assert_int_equal(x.n, 1);
	assert_string_equal(x.e[0].source, "pmuboot.cfg:2");
	assert_non_null(strstr(x.e[0].message, "NUL byte at column 9"));
	assert_int_equal(c.reps, 5);
	assert_int_equal(c.iterations, 3000);
	assert_int_equal(c.warmup, warmup);	/* the line with the NUL was not read, not even in part */
	assert_string_equal(c.bench, "all");

	/* A NUL as the second byte of a UTF-8 file is not UTF-16: the lines after it are read. */
	static const char early[] = "x\0\nreps=9 warmup=2\n";
	struct errs y = { 0 };
	config_defaults(&c);
	assert_int_equal(config_apply_file(&c, "pmuboot.cfg", early, sizeof(early) - 1, keep, &y), 1);
	assert_string_equal(y.e[0].source, "pmuboot.cfg:1");
	assert_non_null(strstr(y.e[0].message, "NUL byte at column 2"));
	assert_int_equal(c.reps, 9);
	assert_int_equal(c.warmup, 2);

	/* A file of nothing but NULs (a medium that lost it) is one line, one error. */
	static const char zeros[64];
	struct errs z = { 0 };
	config_defaults(&c);
	assert_int_equal(config_apply_file(&c, "pmuboot.cfg", zeros, sizeof(zeros), keep, &z), 1);
	assert_string_equal(z.e[0].source, "pmuboot.cfg:1");
}

/* selftest= words are checked as they are read: a bad one names its line, the good ones are kept. */
static void selftest_words_checked_with_their_line(void **state)
{
	(void)state;
	struct config c;
	struct errs x = { 0 };
	const char *text = "reps=5\nselftest=fixup,bogus,nmi\nselftest=nothing\n";
	config_defaults(&c);
	assert_int_equal(config_apply_file(&c, "pmuboot.cfg", text, strlen(text), keep, &x), 2);
	assert_string_equal(x.e[0].source, "pmuboot.cfg:2");
	assert_string_equal(x.e[0].key, "selftest");
	assert_non_null(strstr(x.e[0].message, "unknown self-test 'bogus'"));
	assert_non_null(strstr(x.e[0].message, "running the rest: fixup,nmi"));
	assert_string_equal(x.e[1].source, "pmuboot.cfg:3");
	assert_string_equal(c.selftest, "fixup,nmi");	/* none left on line 3: line 2's stay */
	struct config_error e;
	assert_true(apply(&c, "selftest=all", &e));
	assert_string_equal(c.selftest, "all");
}

/* events= names are looked up per core later: where the option was set is kept for that error. */
static void events_keep_their_source(void **state)
{
	(void)state;
	struct config c;
	struct errs x = { 0 };
	config_defaults(&c);
	assert_string_equal(c.events_source, "");
	const char *text = "reps=5\n\nevents=NO_SUCH_EVENT\n";
	assert_int_equal(config_apply_file(&c, "\\EFI\\BOOT\\pmuboot.cfg", text, strlen(text), keep, &x), 0);
	assert_string_equal(c.events, "NO_SUCH_EVENT");
	assert_string_equal(c.events_source, "\\EFI\\BOOT\\pmuboot.cfg:3");
	/* A bad value is refused and leaves both as they were. */
	config_apply_text(&c, "load-options", false, "events=a\x01b", 10, keep, &x);
	assert_string_equal(c.events_source, "\\EFI\\BOOT\\pmuboot.cfg:3");
	config_apply_text(&c, "load-options", false, "events=r0203", 12, keep, &x);
	assert_string_equal(c.events_source, "load-options");
}

static void large_file_is_read_whole(void **state)
{
	(void)state;
	/* 1 MiB of comments and words: the last line still counts. */
	size_t cap = 1024 * 1024;
	char *big = malloc(cap);
	assert_non_null(big);
	size_t n = 0;
	while (n + 64 < cap)
		n += (size_t)snprintf(big + n, cap - n, "# padding line %zu\nreps=3\n", n);
	n += (size_t)snprintf(big + n, cap - n, "reps=29");
	struct config c;
	struct errs x = { 0 };
	config_defaults(&c);
	assert_int_equal(config_apply_file(&c, "pmuboot.cfg", big, n, keep, &x), 0);
	assert_int_equal(c.reps, 29);
	free(big);
}

static void load_options_override_file(void **state)
{
	(void)state;
	struct config c;
	struct errs x = { 0 };
	config_defaults(&c);
	config_apply_text(&c, "pmuboot.cfg", true, "reps=21\nverbose=on\n", 19, keep, &x);
	config_apply_text(&c, "load-options", false, "reps=41 bad=", 12, keep, &x);
	assert_int_equal(c.reps, 41);
	assert_true(c.verbose);
	assert_int_equal(x.n, 1);
	assert_string_equal(x.e[0].source, "load-options");
}

/* A value checked against what exists (bench names) still names its file and line. */
static void bench_words_checked_with_their_line(void **state)
{
	(void)state;
	struct config c;
	struct errs x = { 0 };
	const char *text = "reps=5\n\nbench=no_such_bench\n";
	config_defaults(&c);
	config_apply_text(&c, "pmuboot.cfg", true, text, strlen(text), keep, &x);
	assert_int_equal(x.n, 1);
	assert_string_equal(x.e[0].source, "pmuboot.cfg:3");
	assert_string_equal(x.e[0].key, "bench");
	assert_non_null(strstr(x.e[0].message, "no_such_bench"));
	assert_string_equal(c.bench, "all");	/* the default stays */
	struct config_error e;
	assert_true(apply(&c, "bench=store_forward.size_mismatch,split", &e));
	assert_string_equal(c.bench, "store_forward.size_mismatch,split");
	assert_true(apply(&c, "bench=list", &e));
	assert_false(apply(&c, "bench=store_forward.nope", &e));
	assert_string_equal(c.bench, "list");
	/* Some words bad: the others still run, and the error says which ran. */
	assert_false(apply(&c, "bench=store_forward.nope,ref", &e));
	assert_string_equal(c.bench, "ref");
	assert_non_null(strstr(e.message, "store_forward.nope"));
	assert_non_null(strstr(e.message, "running the rest: ref"));
}

static void value_text_round_trip(void **state)
{
	(void)state;
	struct config c, d;
	struct config_error e;
	char buf[300];
	config_defaults(&c);
	apply(&c, "serial=mmio,0x1000,9600", &e);
	apply(&c, "ibs_period=0x20000", &e);
	apply(&c, "bench=split", &e);
	apply(&c, "freq=1800", &e);
	apply(&c, "boost=on", &e);
	config_defaults(&d);
	for (size_t i = 0; i < config_key_count(); i++) {
		char word[400];
		const char *k = config_key_at(i);
		assert_true(config_value_text(&c, k, buf, sizeof(buf)));
		snprintf(word, sizeof(word), "%s=%s", k, buf);
		if (buf[0] == '\0')
			continue; /* empty strings are the default */
		assert_true(config_apply_word(&d, "rt", word, strlen(word), &e));
	}
	for (size_t i = 0; i < config_key_count(); i++) {
		char a[300], b[300];
		config_value_text(&c, config_key_at(i), a, sizeof(a));
		config_value_text(&d, config_key_at(i), b, sizeof(b));
		assert_string_equal(a, b);
	}
	assert_int_equal(d.serial.kind, SERIAL_MMIO8);
	assert_int_equal(d.serial.base, 0x1000);
	assert_int_equal(d.serial.baud, 9600);
	assert_int_equal(d.ibs_period, 0x20000);
	assert_int_equal(d.freq.sel, FREQ_SEL_MHZ);
	assert_int_equal(d.freq.mhz, 1800);
	assert_int_equal(d.boost, BOOST_SEL_ON);
}

/* Quotes (docs/options.md "Quoting"): either kind, anywhere in a word, removed from the value. */
static void quoted_values(void **state)
{
	(void)state;
	struct config c;
	struct errs x = { 0 };
	const char text[] = "instr=\"^ADD r64\" reps=21\n"
			    "cpus='0' \"bench=none\" # a \"comment\"\n"
			    "kernels=my\" \"dir\n"
			    "upload=\"http://10.0.0.5:8080/api/runs?a=b,live\"\n"
			    "selftest=\"\"\n"
			    "events='say \"hi\"#not a comment'\n";
	config_defaults(&c);
	strcpy(c.selftest, "all");
	unsigned n = config_apply_text(&c, "pmuboot.cfg", true, text, strlen(text), keep, &x);
	assert_string_equal(c.instr, "^ADD r64");
	assert_int_equal(c.reps, 21);
	assert_string_equal(c.cpus, "0");
	assert_string_equal(c.bench, "none");
	assert_string_equal(c.kernels, "my dir");
	assert_string_equal(c.upload, "http://10.0.0.5:8080/api/runs?a=b,live");
	assert_string_equal(c.selftest, "");
	assert_string_equal(c.events, "say \"hi\"#not a comment");
	assert_int_equal(n, 0);
	assert_int_equal(x.n, 0);
	/* The same in load options: one line, the source as given. */
	config_defaults(&c);
	assert_int_equal(config_apply_text(&c, "load-options", false, "'instr=^SUB r64' reps=5", 23, keep, &x), 0);
	assert_string_equal(c.instr, "^SUB r64");
	assert_int_equal(c.reps, 5);
	/* A word that is only quotes is a word: not key=value. */
	assert_int_equal(config_apply_text(&c, "load-options", false, "\"\"", 2, keep, &x), 1);
	assert_non_null(strstr(x.e[0].message, "'' is not key=value"));
	/* A quoted word is unquoted into room for any value with its key, and one past it is said so. */
	char big[700];
	int k = snprintf(big, sizeof(big), "reps=4 kernels=\"");
	memset(big + k, 'x', 600);
	snprintf(big + k + 600, sizeof(big) - (size_t)k - 600, "\" reps=6");
	x.n = 0;
	assert_int_equal(config_apply_text(&c, "load-options", false, big, strlen(big), keep, &x), 1);
	assert_string_equal(x.e[0].key, "kernels");
	assert_string_equal(x.e[0].message, "a quoted word of 608 characters: at most 511 fit");
	assert_int_equal(c.reps, 6);
	/* A blank reaches a value only quoted: given whole to config_apply_word it is still read. */
	struct config_error e;
	assert_true(apply(&c, "instr=^ADD r8", &e));
	assert_string_equal(c.instr, "^ADD r8");
}

/* An unclosed quote names its source and column and never reads past its line. */
static void unclosed_quote_named(void **state)
{
	(void)state;
	struct config c;
	struct errs x = { 0 };
	const char text[] = "reps=3 instr=\"^ADD r64 # no end\nreps=7\nbench='none\n";
	config_defaults(&c);
	unsigned n = config_apply_text(&c, "pmuboot.cfg", true, text, strlen(text), keep, &x);
	assert_int_equal(n, 2);
	assert_int_equal(x.n, 2);
	assert_string_equal(x.e[0].source, "pmuboot.cfg:1");
	assert_string_equal(x.e[0].key, "instr");
	assert_non_null(strstr(x.e[0].message, "double quote at column 14 is not closed"));
	assert_string_equal(x.e[1].source, "pmuboot.cfg:3");
	assert_string_equal(x.e[1].key, "bench");
	assert_non_null(strstr(x.e[1].message, "single quote at column 7 is not closed"));
	assert_int_equal(c.reps, 7);
	assert_string_equal(c.instr, "none");
	assert_string_equal(c.bench, "all");
	x.n = 0;
	assert_int_equal(config_apply_text(&c, "load-options", false, "reps=9 '", 8, keep, &x), 1);
	assert_string_equal(x.e[0].source, "load-options");
	assert_non_null(strstr(x.e[0].message, "column 8"));
	assert_non_null(strstr(x.e[0].message, "rest of the text"));
	assert_int_equal(c.reps, 9);
}

/*
 * instr=^ADD r64 unquoted: the stray word's error says how to write the value, and the half value before
 * it is not applied (instr=^ADD would measure every ADD form).  Words after a stray one start afresh.
 */
static void stray_word_says_how_to_quote(void **state)
{
	(void)state;
	struct config c;
	struct errs x = { 0 };
	const char text[] = "instr=^ADD r64, r64 reps=9";
	config_defaults(&c);
	assert_int_equal(config_apply_text(&c, "load-options", false, text, strlen(text), keep, &x), 3);
	assert_string_equal(x.e[0].key, "instr");
	assert_non_null(strstr(x.e[0].message, "not applied"));
	assert_string_equal(c.instr, "none");
	assert_string_equal(x.e[1].message, "'r64,' is not key=value (a value with spaces is quoted: "
					    "instr=\"^ADD r64,\")");
	assert_string_equal(x.e[2].message, "'r64' is not key=value (a value with spaces is quoted: "
					    "instr=\"^ADD r64, r64\")");
	assert_int_equal(c.reps, 9);
	/* An unclosed quote is not a value to hint from; a word alone on its line, or after a quoted value, gets no hint. */
	x.n = 0;
	const char two[] = "events=a\"b c\nstray\n";
	config_apply_text(&c, "pmuboot.cfg", true, two, strlen(two), keep, &x);
	assert_int_equal(x.n, 2);
	assert_string_equal(x.e[0].source, "pmuboot.cfg:1");
	assert_non_null(strstr(x.e[0].message, "is not closed"));
	assert_string_equal(x.e[1].message, "'stray' is not key=value");
	x.n = 0;
	const char three[] = "events=a'b' c";
	config_apply_text(&c, "pmuboot.cfg", true, three, strlen(three), keep, &x);
	assert_int_equal(x.n, 1);
	assert_string_equal(x.e[0].message, "'c' is not key=value");
	x.n = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(serial_forms),
		cmocka_unit_test(enum_bool_number),
		cmocka_unit_test(freq_and_boost),
		cmocka_unit_test(unknown_and_malformed),
		cmocka_unit_test(file_lines_and_comments),
		cmocka_unit_test(file_encodings),
		cmocka_unit_test(nul_bytes_name_their_line),
		cmocka_unit_test(selftest_words_checked_with_their_line),
		cmocka_unit_test(events_keep_their_source),
		cmocka_unit_test(large_file_is_read_whole),
		cmocka_unit_test(load_options_override_file),
		cmocka_unit_test(value_text_round_trip),
		cmocka_unit_test(bench_words_checked_with_their_line),
		cmocka_unit_test(quoted_values),
		cmocka_unit_test(unclosed_quote_named),
		cmocka_unit_test(stray_word_says_how_to_quote),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
