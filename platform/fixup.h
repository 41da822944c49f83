/*
 * platform/fixup.h - the exception-fixup table.
 *
 * An instruction that may fault on purpose (RDMSR/WRMSR of an MSR that may
 * not exist, RDPMC of a counter that may not exist, or RDPMC itself under
 * QEMU TCG) gets an entry: the address of the instruction and the address
 * to resume at.  When #GP or #UD hits an address in the table, the handler
 * (platform/metal/trap.c) puts the vector in RAX and resumes at the fixup instead
 * of treating the exception as fatal.
 *
 * Entries are two 32-bit offsets, each relative to its own field, so the
 * position-independent image needs no relocation for them (linker.ld keeps
 * the .ex_table input sections together between __ex_table_start and
 * __ex_table_end).  The lookup is portable so the unit tests can check it.
 */
#ifndef PMUBOOT_PLATFORM_FIXUP_H
#define PMUBOOT_PLATFORM_FIXUP_H

#include <stddef.h>
#include <stdint.h>

struct ex_entry {
	int32_t insn;	/* faulting instruction minus &insn */
	int32_t fixup;	/* where to resume minus &fixup */
};

static inline uintptr_t ex_insn(const struct ex_entry *e) { return (uintptr_t)&e->insn + (intptr_t)e->insn; }
static inline uintptr_t ex_fixup(const struct ex_entry *e) { return (uintptr_t)&e->fixup + (intptr_t)e->fixup; }

/* The resume address for a fault at rip, or 0 when rip is not in [start, end). */
uintptr_t ex_lookup(const struct ex_entry *start, const struct ex_entry *end, uintptr_t rip);

/*
 * Check a table: every instruction and fixup address lies in [lo, hi) and
 * no instruction appears twice.  Returns the index of the first bad entry,
 * or -1 when the table is sound.
 */
long ex_check(const struct ex_entry *start, const struct ex_entry *end, uintptr_t lo, uintptr_t hi);

/*
 * Inline-assembly fragment that adds an entry for label `insn` resuming at
 * label `fix` (e.g. EX_ENTRY("1b", "3f")).
 */
#define EX_ENTRY(insn, fix)                  \
	".pushsection .ex_table, \"aw\"\n\t" \
	".balign 4\n\t"                      \
	".long " insn " - .\n\t"             \
	".long " fix " - .\n\t"              \
	".popsection\n\t"

#endif
