/*
 * run/config.h - run options.
 *
 * Options are `key=value` words.  They come from pmuboot.cfg beside the
 * image (one or more words per line, '#' starts a comment) and from the
 * image's load options; load options are applied last, so they win.  The
 * table in config.c is the single source of truth: defaults, value checks
 * and the documentation (`pmuboot-host options` prints docs/options.md from
 * it, and a test keeps the two equal).
 */
#ifndef PMUBOOT_RUN_CONFIG_H
#define PMUBOOT_RUN_CONFIG_H

#include "lib/libc.h"

enum on_finish { FINISH_AUTO, FINISH_SHUTDOWN, FINISH_REBOOT, FINISH_HALT, FINISH_RETURN };
enum tristate { TRI_AUTO, TRI_ON, TRI_OFF };
enum serial_kind { SERIAL_AUTO, SERIAL_OFF, SERIAL_IO, SERIAL_MMIO8, SERIAL_MMIO32 };
enum arena_sel { ARENA_BOTH, ARENA_4K, ARENA_2M };
/* How the processors that are not measuring wait (platform/metal/ap.h); the order is platform/metal/ap.h's enum park_mode. */
enum park_sel { PARK_SEL_AUTO, PARK_SEL_MWAIT, PARK_SEL_HLT, PARK_SEL_PAUSE };
enum ibs_mode { IBS_MODE_BOTH, IBS_MODE_OFF, IBS_MODE_FETCH, IBS_MODE_OP };
enum screen_mode { SCREEN_READABLE, SCREEN_RECORDS };
/* freq= and boost= (pmu/freq/freq.h); the order is its enum freq_ask's and enum freq_boost's. */
enum freq_sel { FREQ_SEL_KEEP, FREQ_SEL_BASE, FREQ_SEL_MAX, FREQ_SEL_MHZ };
enum boost_sel { BOOST_SEL_KEEP, BOOST_SEL_ON, BOOST_SEL_OFF };
#define CONFIG_FREQ_MHZ_MIN 100
#define CONFIG_FREQ_MHZ_MAX 10000

struct freq_cfg {
	enum freq_sel sel;
	uint32_t mhz;	/* FREQ_SEL_MHZ */
};

#define CONFIG_STR_MAX 256
/* Where a word came from: \EFI\BOOT\pmuboot.cfg:3, load-options, argument 2. */
#define CONFIG_SOURCE_MAX 64
/* User kernels given as hex in the options (kernel.NAME=HEX): at most this many. */
#define CONFIG_HEX_KERNELS 4
#define CONFIG_KERNEL_NAME_MAX 31

struct config_hex_kernel {
	char name[CONFIG_KERNEL_NAME_MAX + 1];
	char hex[CONFIG_STR_MAX];	/* the body's bytes, checked by ukernel_from_hex when set */
};

struct serial_cfg {
	enum serial_kind kind;
	uint64_t base;	/* I/O port or MMIO address */
	uint32_t baud;	/* 0: keep the default / what SPCR says */
};

struct config {
	struct serial_cfg serial;
	enum on_finish on_finish;
	int32_t countdown;		/* seconds; -1 = auto */
	enum tristate qemu_exit;
	enum screen_mode screen;
	bool verbose;
	bool save;
	bool force_counters;
	char selftest[CONFIG_STR_MAX];	/* comma list, "" = none */
	char bench[CONFIG_STR_MAX];	/* comma list of kernel[.variant], "all", "none" */
	char instr[CONFIG_STR_MAX];	/* instruction forms: "none", "all", a regex or extensions (bench/instr_choice.h) */
	char cpus[CONFIG_STR_MAX];	/* run/cpus.h: bsp, all, types or a list */
	uint32_t pass_timeout_s;
	enum park_sel park;	/* a pass on another processor that takes longer is stopped and skipped */
	uint32_t reps;
	uint32_t iterations;
	uint32_t warmup;
	char events[CONFIG_STR_MAX];	/* extra events, ';'-separated specs */
	/* Where events= was set (its names are looked up per core, later); "" = the default. */
	char events_source[CONFIG_SOURCE_MAX];
	enum arena_sel arena_page;
	struct freq_cfg freq;		/* the clock of each measured processor */
	enum boost_sel boost;
	enum ibs_mode ibs;
	uint64_t ibs_period;
	bool ibs_raw;
	/* User kernels (docs/kernels.md). */
	char kernels[CONFIG_STR_MAX];	/* pmuboot-host: directory of kernel files, "" = none */
	uint32_t kernel_unroll;		/* body copies per loop trip, 0 = each kernel's own */
	uint32_t kernel_timeout_ms;	/* a user kernel's trial run is stopped after this */
	struct config_hex_kernel hex_kernels[CONFIG_HEX_KERNELS];
	uint32_t n_hex_kernels;
	/* The collector the image POSTs its records to (net/upload_spec.h), "" = none; a bearer token for it. */
	char upload[CONFIG_STR_MAX];
	char upload_token[CONFIG_STR_MAX];
};

/* Where a word came from, for error messages: "pmuboot.cfg:3" or "load-options". */
struct config_error {
	char source[CONFIG_SOURCE_MAX];
	char key[32];
	char message[192];
};

void config_defaults(struct config *c);

/*
 * Apply one key=value word.  On failure fills err (source, key, reason) and
 * returns false; the config keeps its previous value for that key, except
 * that a list (bench=) with some unknown words keeps its known ones.
 */
bool config_apply_word(struct config *c, const char *source, const char *word, size_t len,
		       struct config_error *err);

/*
 * Apply a whole text: a config file (line numbers reported as
 * "<name>:<line>") or load options (is_file false: the source is the name
 * as given).  Calls report() for each error and goes on; returns the number
 * of errors.
 */
unsigned config_apply_text(struct config *c, const char *name, bool is_file, const char *text,
			   size_t len, void (*report)(const struct config_error *err, void *ctx),
			   void *ctx);

/*
 * Apply a config file's bytes: config_apply_text after a UTF-8 byte order
 * mark is skipped.  A UTF-16 file (by its byte order mark, or NULs between
 * ASCII bytes) is refused with one error saying so.
 */
unsigned config_apply_file(struct config *c, const char *name, const char *text, size_t len,
			   void (*report)(const struct config_error *err, void *ctx), void *ctx);

#ifdef PMUBOOT_HOSTED
/* Write the option reference (Markdown) through emit(), one line per call.  Host only: the
 * image carries no option help text (config.c, DOC). */
void config_write_doc(void (*emit)(const char *line, void *ctx), void *ctx);
/* The same for a terminal: wrapped, no markup; every option, or key's alone (false: no such key). */
bool config_write_text(void (*emit)(const char *line, void *ctx), void *ctx, const char *key);
#endif

/*
 * Canonical text of an option's current value, e.g. for the `begin` record;
 * `key=text` reads back as the same value.  kernel.NAME (the family's own
 * row) is every hex kernel as NAME=HEX, comma-separated; kernel.add is one.
 */
bool config_value_text(const struct config *c, const char *key, char *buf, size_t cap);
size_t config_key_count(void);
const char *config_key_at(size_t i);

#endif
