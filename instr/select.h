/*
 * instr/select.h - which instruction forms a CPU has, and which a user asked for (issue 31;
 * docs/instr.md "The catalogue").
 *
 * A form is there when every CPUID bit its ISA set needs is set (instr/catalogue.h) and the
 * state it uses is enabled in XCR0: AVX's for a VEX or EVEX vector form, AVX-512's (opmask,
 * ZMM_Hi256, Hi16_ZMM) for one with zmm or k operands or an AVX-512 ISA set.  CPUID is asked
 * through a callback so that this CPU, a CPUID dump and the unit tests' fake CPU all answer;
 * XCR0 is what the caller knows (the host's from XGETBV), or where it does not know it (a dump)
 * the XCR0 the image would set on that CPU (platform/vec.h vec_xcr0_wanted).
 *
 * The table is passed in, never named here: the catalogue is host-only generated data
 * (instr/module.mk) and this file is portable.
 */
#ifndef PMUBOOT_INSTR_SELECT_H
#define PMUBOOT_INSTR_SELECT_H

#include "instr/catalogue.h"
#include "lib/regex.h"
#include "platform/hw.h"

/* Answer CPUID (leaf, subleaf) for the CPU being described. */
typedef void (*instr_cpuid_fn)(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out);

/* The (leaf, subleaf) pairs one CPU is asked: the catalogue names about twenty. */
#define INSTR_CPU_LEAVES 48

struct instr_cpu {
	instr_cpuid_fn cpuid;
	void *ctx;
	uint32_t max_basic, max_ext, max_centaur, max_sub7;
	uint64_t xcr0;		/* the state the forms will run under */
	bool osxsave;		/* CR4.OSXSAVE is (or will be) set: XGETBV and XCR0-enabled state usable */
	const char *xcr0_source;	/* in words: whose XCR0 this is */
	size_t n;
	struct { uint32_t leaf, subleaf; struct cpuid_regs r; } leaf[INSTR_CPU_LEAVES];
};

/*
 * Describe a CPU.  xcr0_known: xcr0 is the state in force (this machine); else xcr0 is ignored
 * and the image's choice for that CPU is used (vec_xcr0_wanted from its CPUID).
 */
void instr_cpu_init(struct instr_cpu *c, instr_cpuid_fn cpuid, void *ctx, bool xcr0_known, uint64_t xcr0);

/* Whether one CPUID condition holds: a flag set, a field at least its least (a leaf past the CPU's highest
 * reads as zero).  A condition that does not fit (instr_cpu_bit_fits) never holds. */
bool instr_cpu_bit(struct instr_cpu *c, const struct instr_cpuid_bit *b);
/* Whether a condition's field lies in its register: register 0-3, bit 0-31, width 1 to the bits left. */
bool instr_cpu_bit_fits(const struct instr_cpuid_bit *b);

enum instr_avail {
	INSTR_PRESENT,		/* every CPUID bit set and its state enabled */
	INSTR_ABSENT,		/* a CPUID bit is clear: the CPU does not have it */
	INSTR_NO_STATE,		/* the CPU has it but XCR0 does not enable the state it uses */
};
enum instr_avail instr_form_avail(struct instr_cpu *c, const struct instr_form *f);

/* The XCR0 bits a form's state needs (platform/vec.h XCR0_*): 0 for x87/SSE/GPR-only forms. */
uint64_t instr_form_xcr0(const struct instr_form *f);

/*
 * What the user asked for: an asm-name regex (NULL: all) and a list of extensions (n_ext 0:
 * all), each compared without regard to case.
 */
struct instr_filter {
	const struct regex *match;
	const char *const *ext;
	size_t n_ext;
};
bool instr_form_matches(const struct instr_form *f, const struct instr_filter *flt);

/* Whether any of forms[0..n) is of extension `name` (case ignored): an unknown name is an error. */
bool instr_extension_known(const struct instr_form *forms, size_t n, const char *name);

#endif
