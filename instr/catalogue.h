/*
 * instr/catalogue.h - the instruction catalogue: every instruction form usable in 64-bit mode,
 * as data (issue 31; docs/instr.md).
 *
 * Where it comes from: tools/gen_isa.py reads Intel XED's datafiles (../shared/vendor-isa/xed,
 * Apache-2.0, its README names the release) and writes instr/forms.tsv.gz, which is committed, so a
 * clone without ../shared builds the same table; instr/module.mk compiles forms.tsv into C at build
 * time (host builds only: the table is far larger than the image's room; the image measures from a
 * kernel pack on its boot medium instead).
 *
 * A form is one (asm, iform) pair: XED's iform with one operand size and one masking, broadcast or
 * rounding variant, written as its canonical `asm` name: the Intel mnemonic and the explicit operand
 * kinds in Intel order (`ADD r64, r64`, `SHL r64, cl`, `ROR r16, 1`, `VADDPS zmm{k}, zmm, zmm`,
 * `VADDPS zmm, zmm, m32bcst`).  Two iforms may share an asm name (two encodings of one operation);
 * both are listed.
 */
#ifndef PMUBOOT_INSTR_CATALOGUE_H
#define PMUBOOT_INSTR_CATALOGUE_H

#include "lib/libc.h"

/* What an operand is.  The names in comments are the kind's spelling in a canonical asm name. */
enum instr_kind {
	IK_R8,		/* r8: a general register's low byte (or AH..BH where the form allows) */
	IK_R16,		/* r16 */
	IK_R32,		/* r32 */
	IK_R64,		/* r64 */
	IK_MM,		/* mm: an MMX register */
	IK_XMM,		/* xmm */
	IK_YMM,		/* ymm */
	IK_ZMM,		/* zmm */
	IK_K,		/* k: an AVX-512 mask register */
	IK_MEM,		/* mN (N = bits; `m` alone for an address only, as LEA's), mNbcst for a broadcast */
	IK_IMM8,	/* imm8 */
	IK_IMM16,	/* imm16 */
	IK_IMM32,	/* imm32 (sign-extended to 64 where the form says so) */
	IK_IMM64,	/* imm64 (MOV r64, imm64 only) */
	IK_CL,		/* cl: the count register of a shift or rotate */
	IK_ONE,		/* 1: the constant count of a shift or rotate */
	IK_FIXED,	/* a named register the form always uses (RAX of MUL, XMM0 of BLENDVPS...): `reg` */
	IK_ST,		/* st(i): an x87 stack register (st0 when fixed) */
	IK_SEG,		/* a segment register */
	IK_REL,		/* relN: a branch displacement */
	IK_OTHER,	/* anything else the form has (bound registers, tiles, control registers...) */
	IK_COUNT
};

/* How a form uses an operand (XED's r, w, rw, cr, cw, rcw). */
#define IA_READ 0x1u
#define IA_WRITE 0x2u
#define IA_COND 0x4u	/* the read or write happens only on some inputs (cr, cw, rcw) */

struct instr_operand {
	uint8_t kind;		/* enum instr_kind */
	uint8_t access;		/* IA_* */
	uint8_t implicit;	/* not written in assembly (XED's SUPP): a fixed register, flags, the stack */
	uint8_t bcast;		/* a memory operand read as one element broadcast ({1toN}) */
	uint16_t bits;		/* the operand's width in bits (memory: bytes read or written x 8) */
	const char *reg;	/* IK_FIXED / fixed IK_ST: the register's name, lower case ("rax", "xmm0"); else NULL */
};

/* RFLAGS bits a form reads or writes (SDM Vol. 1, 3.4.3; DF for string forms). */
#define IFL_CF 0x001u
#define IFL_PF 0x004u
#define IFL_AF 0x010u
#define IFL_ZF 0x040u
#define IFL_SF 0x080u
#define IFL_DF 0x400u
#define IFL_OF 0x800u

/* Form attributes. */
#define IFA_MASK 0x01u		/* AVX-512 merge masking {k} */
#define IFA_ZEROING 0x02u	/* {z} */
#define IFA_BCAST 0x04u		/* a memory operand broadcast {1toN} */
#define IFA_ROUNDING 0x08u	/* static rounding {er} */
#define IFA_SAE 0x10u		/* {sae} */
#define IFA_LOCK 0x20u		/* with the LOCK prefix */
#define IFA_REP 0x40u		/* with a REP / REPE / REPNE prefix */

/*
 * A CPUID condition an ISA set needs (XED's cpuid.xed.txt and the extension folders' cpuid files):
 * leaf, subleaf, register (0 EAX .. 3 EDX), and a field of `width` bits from `bit` that must read at
 * least `least`.  A feature flag is a field of one bit, at least 1; the AVX10 version (CPUID.(EAX=24H,
 * ECX=0):EBX[7:0], Intel AVX10 Architecture Specification) a field of eight, at least 2 for AVX10.2's
 * sets.  A form is usable when every one of its conditions holds.
 */
struct instr_cpuid_bit {
	uint32_t leaf;
	uint32_t subleaf;
	uint8_t reg;
	uint8_t bit;
	uint8_t width;
	uint8_t least;
};

struct instr_form {
	const char *asm_name;		/* "ADD r64, r64" */
	const char *mnemonic;		/* the Intel mnemonic, lower case, as assemblers spell it ("add") */
	const char *iform;		/* XED's iform ("ADD_GPRv_GPRv_01") */
	const char *extension;		/* XED's extension ("BASE", "AVX512EVEX", "SSE2"...) */
	const char *isa_set;		/* XED's ISA set ("I86", "AVX512F_512"...) */
	const char *category;		/* XED's category ("BINARY", "LOGICAL"...) */
	const struct instr_operand *ops;	/* explicit operands in asm order, then implicit ones */
	uint8_t n_ops;
	uint8_t n_explicit;		/* the first n_explicit of ops are written in assembly */
	uint16_t flags_read, flags_written;	/* IFL_* (undefined-after counts as written) */
	uint16_t flags_undefined;	/* the written ones left undefined (XED's -u): no chain runs through them */
	uint16_t attrs;			/* IFA_* */
	const struct instr_cpuid_bit *cpuid;	/* every bit needed; n_cpuid 0: none (I86...) */
	uint8_t n_cpuid;
	const char *excluded;		/* NULL, or why the form is not measured (docs/instr.md's rule) */
};

/* The catalogue: every form, in the order of instr/forms.tsv. */
extern const struct instr_form instr_forms[];
extern const size_t instr_forms_count;

#endif
