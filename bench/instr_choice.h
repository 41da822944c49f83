/*
 * bench/instr_choice.h - instr=: which instruction forms of the kernel pack a run measures (issue 31;
 * docs/instr.md "In the image").
 *
 * The value is `none` (the default), `all`, a comma list of XED extensions written in capitals
 * (`BASE,AVX2`: every item of [A-Z0-9_]+), or anything else: a regular expression on the form's asm
 * name (lib/regex.h; `^ADD r64`).  The options reader checks it (run/config_opts.c) and the benchmark
 * stage's instr source (bench/src_instr.c) uses it; this file stands alone so the options reader does not
 * bring the stage in.
 */
#ifndef PMUBOOT_BENCH_INSTR_CHOICE_H
#define PMUBOOT_BENCH_INSTR_CHOICE_H

#include "instr/select.h"

#define INSTR_CHOICE_TEXT 256 /* run/config.h CONFIG_STR_MAX */
#define INSTR_CHOICE_EXT_MAX 32
/* The kernel pack's place on the boot medium (docs/kernels.md, the medium's layout). */
#define INSTR_PACK_PATH_ASCII "\\pmuboot\\instr.pack"

enum instr_choice_kind { INSTR_CHOOSE_NONE, INSTR_CHOOSE_ALL, INSTR_CHOOSE_EXT, INSTR_CHOOSE_REGEX };

struct instr_choice {
	enum instr_choice_kind kind;
	char text[INSTR_CHOICE_TEXT]; /* the value; for extensions, NUL-separated */
	const char *ext[INSTR_CHOICE_EXT_MAX];
	struct regex re;
	struct instr_filter flt; /* what instr_form_matches / instr_pack_form_matches are given */
};

/* Read instr='s value; false with why (the regex's position and what is wrong) when it is none of those. */
bool instr_choice_parse(struct instr_choice *ch, const char *v, size_t len, char *why, size_t cap);

#endif
