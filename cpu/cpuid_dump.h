/*
 * cpu/cpuid_dump.h - read CPUID dumps in the AIDA64/EVEREST text format.
 *
 * The real dumps (../shared/cpuid-dumps/README.md describes them) hold one
 * block of register lines per logical CPU, in one of several layouts
 * (variants A-G: report sections, "CPUID Registers (CPU #1):",
 * "CPU#000 AffMask:", "Group: 0x00 Affinity mask:", "CPU 0:").  Every
 * register line matches
 *
 *   CPUID <leaf:8 hex>[ \t]*:?[ \t]*<eax>[- ]<ebx>[- ]<ecx>[- ]<edx>[tail]
 *
 * where the tail may start with a subleaf tag "[SL xx]".  Lines without a
 * tag that repeat a leaf taking a subleaf are its subleaves in ascending
 * order.  A line repeating an earlier question of its block (same tagged
 * subleaf, or an untagged leaf that takes none) with the same values is
 * dropped - dumping tools print some lines twice - and with other values
 * is an error naming both lines.
 *
 * Two more formats name the subleaf on every line (cpuid_dump_tagged_host.c,
 * docs/cpuid-dumps.md): pmuboot's compact fixtures ("# pmuboot cpuid
 * fixture 1", written by tools/cpuid_fixture.py) and the output of Debian's
 * `cpuid -r`.
 *
 * The parser is portable (it runs in the image too): it reads a text
 * buffer into storage the caller provides and never allocates.  Anything
 * it cannot read exactly - a truncated line, a register that is not 8 hex
 * digits, a CPU block without leaf 0 or leaf 1 - is an error naming the
 * line, never a guess.
 */
#ifndef PMUBOOT_CPU_CPUID_DUMP_H
#define PMUBOOT_CPU_CPUID_DUMP_H

#include "platform/hw.h"
#include "lib/libc.h"

/* How a register line's subleaf (input ECX) is known. */
enum cpuid_dump_sl {
	DUMP_SL_TAGGED,		/* an "[SL xx]" tag */
	DUMP_SL_ORDER,		/* untagged, position among the lines of its leaf */
	DUMP_SL_ANY,		/* the leaf's only line, leaf not subleaf-indexed: answers every ECX */
	DUMP_SL_UNKNOWN,	/* untagged repeat of a sparse leaf: index cannot be known */
};

struct cpuid_dump_leaf {
	uint32_t leaf, subleaf;
	struct cpuid_regs r;
	uint32_t line;		/* 1-based line number in the text */
	uint8_t sl;		/* enum cpuid_dump_sl */
};

#define CPUID_DUMP_NOTE_MAX 24

struct cpuid_dump_cpu {
	uint32_t label;		/* CPU number as the file prints it (variant D counts from 1) */
	bool labelled;		/* a header gave the number (else: the block's position) */
	uint32_t line;		/* header line, or the leaf-0 line when there is no header */
	size_t first, count;	/* its lines in cpuid_dump.leaves */
	char core_note[CPUID_DUMP_NOTE_MAX];	/* "Intel Atom" etc. from an allcpu: line, or "" */
};

#define CPUID_DUMP_ERR_MAX 200

struct cpuid_dump {
	/* Storage, given by the caller (cpuid_dump_init). */
	struct cpuid_dump_leaf *leaves;
	size_t leaves_cap;
	struct cpuid_dump_cpu *cpus;
	size_t cpus_cap;
	/* Results. */
	size_t nleaves, ncpus;
	char variant;		/* 'A'..'G' as in the README, 'P' a plain list of register lines,
				   'X' a pmuboot fixture, 'R' `cpuid -r` output */
	uint32_t err_line;	/* line of the error, 0 when it concerns the whole text */
	char err[CPUID_DUMP_ERR_MAX];
};

void cpuid_dump_init(struct cpuid_dump *d, struct cpuid_dump_leaf *leaves, size_t leaves_cap,
		     struct cpuid_dump_cpu *cpus, size_t cpus_cap);
/* Number of lines in text: storage for that many leaves and CPUs always suffices. */
size_t cpuid_dump_line_count(const char *text, size_t len);
/* Parse text; false with d->err (and d->err_line) set when it is not a well-formed dump. */
bool cpuid_dump_parse(struct cpuid_dump *d, const char *text, size_t len);

/*
 * CPUID as the CPU of block `cpu` answered it: the line for (leaf, subleaf),
 * or zeros and false when the dump has no such line.
 */
bool cpuid_dump_query(const struct cpuid_dump *d, size_t cpu, uint32_t leaf, uint32_t subleaf,
		      struct cpuid_regs *out);

#endif
