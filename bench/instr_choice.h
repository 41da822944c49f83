/*
 * bench/instr_choice.h - instr=: which instruction forms of the kernel pack a run measures (issue 31;
 * docs/instr.md "In the image").
 *
 * The value is `none` (the default), `all`, a comma list of XED extensions (`BASE,AVX2,SSE4a`: every
 * item of letters, digits and '_' with at least one capital, no empty item), or anything else: a regular
 * expression on the form's asm name (lib/regex.h; `^ADD r64`).  XED names extensions in capitals, digits
 * and '_' (and one, SSE4a, with a lower-case letter), while an asm name has a blank before its lower-case
 * operands, so the two seldom meet; a value of the list's shape meant as a regex (`ADD`) is read as a
 * list, and the extension ADD that no form has is an error that lists the pack's (instr_choice_unknown_ext).
 *
 * The options reader checks it (run/config_opts.c) and the benchmark
 * stage's instr source (bench/src_instr.c) uses it; this file stands alone so the options reader does not
 * bring the stage in.
 */
#ifndef PMUBOOT_BENCH_INSTR_CHOICE_H
#define PMUBOOT_BENCH_INSTR_CHOICE_H

#include "instr/pack.h"
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

/* Distinct extensions of a pack an error lists, sorted: the whole catalogue's pack has 75. */
#define INSTR_CHOICE_PACK_EXT_MAX 256

/*
 * For an extension list: how many of its names no form of the pack pk has (compared as
 * instr_pack_form_matches does, without regard to case), with why naming them and listing, sorted and as
 * far as cap allows, the extensions the pack has ("" when every name is known).  pk is walked from its first
 * form, as instr_pack_open left it, and not moved; f is room for one form meanwhile.
 */
size_t instr_choice_unknown_ext(const struct instr_choice *ch, const struct instr_pack *pk, struct instr_pack_form *f,
				char *why, size_t cap);

#endif
