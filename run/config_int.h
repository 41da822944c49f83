/*
 * run/config_int.h - what the option files share (internal to run/config*.c):
 *   config_opts.c      the options as data: keys, types, defaults, choices, the word checks, help
 *   config.c           reading words and text into a struct config
 *   config_text.c      a value back as text (the begin record, the fuzzers' round trip)
 *   config_doc_host.c  the option reference (`pmuboot-host options`, docs/options.md; host only)
 */
#ifndef PMUBOOT_RUN_CONFIG_INT_H
#define PMUBOOT_RUN_CONFIG_INT_H

#include "run/config.h"

/* A value quoted in an error message: enough to recognise it, never a whole long line. */
#define QUOTE_MAX 48
#define QUOTED(len) ((int)((len) > QUOTE_MAX ? QUOTE_MAX : (len)))

enum opt_type { OPT_ENUM, OPT_BOOL, OPT_U32, OPT_U64, OPT_STR, OPT_SERIAL, OPT_COUNTDOWN, OPT_HEX_KERNEL, OPT_FREQ };

struct opt_def {
	const char *key;
	enum opt_type type;
	size_t offset;
	const char *const *choices;	/* OPT_ENUM: value i is choices[i] */
	uint64_t min, max;		/* OPT_U32 / OPT_U64 */
	const char *def;		/* default, parsed like any other value */
	const char *example;
	const char *help;
};

/* kernel.NAME=HEX: one table row documents the family of keys. */
#define KERNEL_KEY_PREFIX "kernel."
#define KERNEL_KEY_DOC "kernel.NAME"

/* The table (config_opts.c). */
extern const struct opt_def config_opts[];
extern const size_t config_opts_n;
/* freq='s words, in enum freq_sel's order (FREQ_SEL_MHZ of them); any other value is MHz. */
extern const char *const *const config_freq_words;

/* The row for key[0..len) (kernel.NAME for any kernel. key), or NULL. */
const struct opt_def *config_opt_find(const char *key, size_t len);
/*
 * A string option's words checked while it is read: writes the words worth keeping to out; false
 * with why when a word is bad (out then holds the good ones, or "" when none is left).
 */
bool config_check_str(const struct opt_def *o, const char *v, size_t len, char *out, size_t out_cap, char *why,
		      size_t cap);
/* Options checked only later (event names, by the bench stage): keep where each was set. */
void config_note_source(const struct opt_def *o, struct config *c, const char *source);
/* v[0..len) into out, cut to fit. */
void config_copy_value(char *out, size_t out_cap, const char *v, size_t len);

#endif
