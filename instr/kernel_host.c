/* instr/kernel_host.c - the kernels that measure one instruction form; see kernel.h. */
#include "instr/kernel.h"
#include "instr/kernel_stack.h"
#include "instr/kernel_string.h"
#include "instr/kernel_vsib.h"
#include "instr/kernel_x87.h"
#include "lib/strbuf.h"

/* Register files: operands of one file chain without a connector (xmm0 is the low half of ymm0). */
enum rfile { RF_NONE, RF_GPR, RF_VEC, RF_MM, RF_K, RF_MEM };

/* GPR numbers as encoded (SDM Vol. 2A Table 2-2 and 3.1.1.1 "Opcode Column"): rax 0 .. r15 15. */
#define GPR_RAX 0
#define GPR_RCX 1
#define GPR_RDX 2
#define GPR_RSP 4
#define GPR_RSI 6
#define GPR_RDI 7
#define GPR_COUNT 16
/* The prefix of XED's stack pseudo-registers (stackpush, stackpop: datafiles/xed-regs.txt), as forms.tsv names them. */
#define STACK_PSEUDO_PREFIX "stack"
#define VEC_LEGACY 16 /* xmm0-15: SSE and VEX */
#define VEC_EVEX 32   /* xmm0-31 with EVEX (SDM Vol. 2A 2.7 "Intel AVX-512 encoding") */
#define MM_COUNT 8
#define K_COUNT 8
#define K_MASK 1 /* the write mask of {k} forms: k1 (k0 cannot be a write mask, SDM Vol. 2A 2.7.4) */

/* The order registers are handed out in; rsp, rsi and rdi belong to the harness (docs/kernels.md). */
static const uint8_t GPR_POOL[] = { 0, 3, 1, 2, 5, 8, 9, 10, 11, 12, 13, 14, 15 };

/*
 * Scratch window layout: memory operands at [rsi + MEM_STRIDE * i], one line apart so instances of a
 * read-modify-write form do not chain through memory; the vector constant in the second page (rdx).
 */
#define MEM_STRIDE 64
/* A connector that cannot be measured alone, counted at its least (instr/kernel.h IKM_LEAST_MILLI), in words. */
#define LEAST_ONE "not measurable alone: counted at 1 cycle, its least"
#define LEAST_EACH "not measurable alone: counted at 1 cycle each, their least"
#define SHORT_TRIP 4 /* instructions a trip for a form the decoders stall on (length_changing_prefix) */
#define SHORT_TRIP_NOTE \
	"a trip of at most 4 instructions: a longer one stalls the legacy decoders on the length-changing prefix " \
	"(66H with a 16-bit immediate) and measures them"
#define FLAGS_CHAIN_INSTANCES 256 /* instances a trip of a flags -> flags chain (pair()) */
#define ADDR_MASK 0xff8 /* an address register chained through memory stays in the first page, aligned */
#define VCONST_OFF 4032 /* [rdx + VCONST_OFF]: the lane the vector registers start from (LANES) */
/*
 * Every lane starts at 1.0 of the form's element type (IEEE 754): binary32 0x3f800000, or for a form of
 * double elements binary64 0x3ff0000000000000.  Paired binary32 ones read as a double are 2^-7 (1.0078),
 * which a read-write destination multiplied by it again each instance (MULSD xmm, xmm's throughput)
 * drove into the subnormal range within a run: each register paid a few microcode assists a run, a cost
 * the N/2N differential does not cancel, and MULSD and MULPD kept no throughput sample on the
 * development host (their 2N runs over twice the N runs).  1.0 times 1.0 stays 1.0.  By element width
 * (single, double) the table holds the lane, the memory operands' qword fill, and how every vector
 * register gets it: a broadcast where VEX or EVEX is there, else a scalar load and a shuffle of element
 * 0 to all (SDM Vol. 2: VBROADCASTSS/SD, MOVSS, MOVSD, SHUFPS, SHUFPD).
 */
static const struct lane {
	uint64_t fill; /* a qword of lanes: two binary32 1.0f, or one binary64 1.0 */
	unsigned bits; /* one lane's */
	const char *name, *bcast, *load, *shuffle, *ptr;
} LANES[2] = {
	{ 0x3f8000003f800000ull, 32, "1.0f", "vbroadcastss", "movss", "shufps", "dword" },
	{ 0x3ff0000000000000ull, 64, "1.0", "vbroadcastsd", "movsd", "shufpd", "qword" },
};
#define FILL_ONE 1ull		   /* integer divisors in memory: the low byte, word, dword or qword reads 1 */
#define IMM64_VALUE 0x123456789ull /* wider than 32 bits, so `mov r64, imm64` keeps its 10-byte form */
#define TP_INSTANCES_UNROLLED 512  /* instances in the unrolled throughput run */
#define TP_MAX 12		   /* instances per body */
#define IDIOM_UNROLL 16

/* Same-register idioms and moves, by mnemonic (Intel optimization manual, "Dependency-breaking idioms", "Zero-latency MOV"). */
static const char *const ZERO_IDIOMS[] = { "xor",      "sub",	   "pxor",    "xorps",	 "xorpd",    "vpxor",
					   "vpxord",   "vpxorq",   "vxorps",  "vxorpd",	 "psubb",    "psubw",
					   "psubd",    "psubq",	   "vpsubb",  "vpsubw",	 "vpsubd",   "vpsubq",
					   "pcmpgtb",  "pcmpgtw",  "pcmpgtd", "pcmpgtq", "vpcmpgtb", "vpcmpgtw",
					   "vpcmpgtd", "vpcmpgtq", "pandn",   "vpandn",	 "andnps",   "andnpd",
					   "vandnps",  "vandnpd" };
static const char *const ONES_IDIOMS[] = { "pcmpeqb",  "pcmpeqw",  "pcmpeqd",  "pcmpeqq",
					   "vpcmpeqb", "vpcmpeqw", "vpcmpeqd", "vpcmpeqq" };
static const char *const MOVES[] = { "mov",	  "movaps",    "movapd",    "movups",	"movupd",    "movdqa",
				     "movdqu",	  "vmovaps",   "vmovapd",   "vmovups",	"vmovupd",   "vmovdqa",
				     "vmovdqu",	  "vmovdqa32", "vmovdqa64", "vmovdqu8", "vmovdqu16", "vmovdqu32",
				     "vmovdqu64", "movq",      "vmovq",	    "movsx",	"movzx",     "movsxd" };
/* Forms whose ecx selects what they read (SDM Vol. 2B XGETBV: an XCR; RDPMC: a counter; RDPKRU: ecx must be 0):
 * any other value raises #GP, so ecx is 0 (XCR0, counter 0) and no chain feeds it. */
static const char *const ECX_SELECTS[] = { "xgetbv", "rdpmc", "rdpkru" };
/* The segment register a MOV r/m, Sreg form reads (SDM Vol. 2B MOV: any of them; reading one is allowed at
 * any privilege level, writing one is excluded). */
#define SEG_READ "ds"
/* GNU as writes MOV r64, Sreg without REX.W (the result is the same, zero-extended); its prefix keeps the
 * form's own encoding (REX.W 8C /r, SDM Vol. 2B MOV). */
#define REX_W_HINT "rex64 "

/*
 * Forms GNU as will not write as the SDM spells them, and a spelling that gives their encoding: MOVSXD r16,
 * r/m16 is 66 63 /r (SDM Vol. 2B MOVSX/MOVSXD), written `data16 movsxd r32, r/m32`; BSWAP r16 is 66 0F C8+rd
 * (its result undefined, SDM Vol. 2A BSWAP), `data16 bswap r32`; LSL r64, r32 is REX.W 0F 03 /r, whose
 * source is a selector read in its low 16 bits (SDM Vol. 2B LSL), `lsl r64, r64`.  By iform and the width of
 * the operand that selects the row; the form's register and memory operands are then written `as_bits` wide.
 */
static const struct {
	const char *iform;
	uint8_t op;	  /* the operand whose width picks the row */
	uint16_t bits;	  /* ... and that width */
	const char *hint; /* written before the mnemonic */
	uint16_t as_bits;
} RESPELL[] = {
	{ "MOVSXD_GPRv_GPRz", 0, 16, "data16 ", 32 },
	{ "MOVSXD_GPRz_MEMz", 0, 16, "data16 ", 32 },
	{ "BSWAP_GPRv", 0, 16, "data16 ", 32 },
	{ "LSL_GPRv_GPRz", 0, 64, "", 64 },
};

/* Integer division: the result depends on the values (SDM Vol. 2A DIV, IDIV: #DE when the quotient overflows). */
static const char *const INT_DIVIDES[] = { "div", "idiv" };

/*
 * Two encodings of one register-register operation (XED iforms ADD_GPRv_GPRv_01 and _03): the iform's last
 * part is the opcode.  The MR form (ModRM.reg is the source) is `{store}` in GNU as, the RM form `{load}`.
 * The same byte means different things in the general and the vector maps (28 is SUB's MR form and
 * MOVAPS's RM form), so each file has its table.  Opcodes from SDM Vol. 2: ADD 00-03, OR 08-0B, ADC
 * 10-13, SBB 18-1B, AND 20-23, SUB 28-2B, XOR 30-33, CMP 38-3B, MOV 88-8B; MOVUPS/MOVSS 0F10/0F11,
 * MOVAPS 0F28/0F29, MOVDQA and MMX MOVQ 0F6F/0F7F, MOVQ xmm F3 0F7E / 66 0FD6 (VEX forms without the 0F).
 */
struct encoding {
	const char *suffix;
	const char *hint;
};
static const struct encoding GPR_ENCODINGS[] = {
	{ "_00", "{store} " }, { "_01", "{store} " }, { "_02", "{load} " }, { "_03", "{load} " },
	{ "_08", "{store} " }, { "_09", "{store} " }, { "_0A", "{load} " }, { "_0B", "{load} " },
	{ "_10", "{store} " }, { "_11", "{store} " }, { "_12", "{load} " }, { "_13", "{load} " },
	{ "_18", "{store} " }, { "_19", "{store} " }, { "_1A", "{load} " }, { "_1B", "{load} " },
	{ "_20", "{store} " }, { "_21", "{store} " }, { "_22", "{load} " }, { "_23", "{load} " },
	{ "_28", "{store} " }, { "_29", "{store} " }, { "_2A", "{load} " }, { "_2B", "{load} " },
	{ "_30", "{store} " }, { "_31", "{store} " }, { "_32", "{load} " }, { "_33", "{load} " },
	{ "_38", "{store} " }, { "_39", "{store} " }, { "_3A", "{load} " }, { "_3B", "{load} " },
	{ "_88", "{store} " }, { "_89", "{store} " }, { "_8A", "{load} " }, { "_8B", "{load} " },
};
static const struct encoding VEC_ENCODINGS[] = {
	{ "10", "{load} " }, { "11", "{store} " }, { "28", "{load} " }, { "29", "{store} " },
	{ "6F", "{load} " }, { "7F", "{store} " }, { "7E", "{load} " }, { "D6", "{store} " },
};

/* One operand as the builder sees it. */
struct opnd {
	uint8_t file;	/* enum rfile */
	uint8_t access; /* IA_* */
	bool implicit, fixed, addr_only, bcast;
	int8_t fixed_reg; /* its register number when fixed */
	uint16_t bits;
	uint8_t kind;
	char name[IKM_OPNAME_MAX];
};

#define OPS_MAX 8
struct ctx {
	const struct instr_form *f;
	struct instr_plan *p;
	struct opnd op[OPS_MAX];
	size_t nop;
	bool evex, vex, divide, fp_data;
	bool fp_double;			 /* its vector elements are doubles (fp_double_form) */
	bool selector;			 /* ecx selects what the form reads (ECX_SELECTS) */
	bool short_trips;		 /* its encoding stalls the decoders: short trips (length_changing_prefix) */
	bool seg_read;			 /* an explicit segment register source (MOV r/m, Sreg) */
	int vec_bits;			 /* the widest vector operand, for {1toN} */
	const char *hint;		 /* "{load} ", "{store} " or "" */
	bool reserved[RF_MEM][VEC_EVEX]; /* registers the form names itself (not handed out) */
	uint8_t pool[RF_MEM][VEC_EVEX];	 /* registers handed out, in order, per file */
	size_t npool[RF_MEM];
};

/* An endpoint of a latency pair: an operand (its register or memory contents), its address, or the flags. */
#define EP_FLAGS (-1)
struct endpoint {
	int op;	   /* index into ctx.op, or EP_FLAGS */
	bool addr; /* the memory operand's address registers */
};

/* Registers given to each operand of one instance, and the memory offset; -1: the operand's default. */
struct assign {
	int reg[OPS_MAX];
	int off;   /* memory offset from rsi */
	int index; /* the chained index register of an address, -1: none */
};

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

static bool starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/*
 * Whether a vector form's elements are doubles, by its mnemonic: Intel names double-precision forms with a
 * PD or SD suffix (MULPD, VFMADD231SD, VBROADCASTSD) and conversions from doubles with PD2 or SD2
 * (CVTPD2PS, VCVTTSD2SI).  A few integer forms end so too (VPABSD, VPDPBUSD): their lanes start at
 * 1.0's bits instead, which no integer operation minds.
 */
static bool fp_double_form(const char *mnemonic)
{
	size_t n = strlen(mnemonic);
	return (n > 2 && (!strcmp(mnemonic + n - 2, "pd") || !strcmp(mnemonic + n - 2, "sd"))) ||
	       strstr(mnemonic, "pd2") || strstr(mnemonic, "sd2");
}

/* A fixed register's file and number from its name ("rax", "cl", "xmm0", "k1"); false when not one of ours. */
static bool parse_reg(const char *name, uint8_t *file, int8_t *num, uint16_t *bits)
{
	for (int w = 0; w < 4; w++)
		for (int i = 0; i < GPR_COUNT; i++)
			if (!strcmp(name, ikm_gpr_names[w][i])) {
				*file = RF_GPR;
				*num = (int8_t)i;
				*bits = (uint16_t)(8u << w);
				return true;
			}
	static const char *const HIGH8[] = { "ah", "ch", "dh", "bh" }; /* bits 15:8 of rax, rcx, rdx, rbx */
	for (int i = 0; i < (int)ARRAY_SIZE(HIGH8); i++)
		if (!strcmp(name, HIGH8[i])) {
			*file = RF_GPR;
			*num = (int8_t)i;
			*bits = 8;
			return true;
		}
	static const struct {
		const char *prefix;
		uint8_t file;
		uint16_t bits;
	} FILES[] = { { "xmm", RF_VEC, 128 },
		      { "ymm", RF_VEC, 256 },
		      { "zmm", RF_VEC, 512 },
		      { "mm", RF_MM, 64 },
		      { "k", RF_K, 64 } };
	for (size_t i = 0; i < ARRAY_SIZE(FILES); i++) {
		size_t n = strlen(FILES[i].prefix);
		if (strncmp(name, FILES[i].prefix, n) || !lc_isdigit(name[n]))
			continue;
		int v = 0;
		for (const char *c = name + n; *c; c++)
			v = lc_isdigit(*c) ? v * 10 + (*c - '0') : 99;
		if (v >= VEC_EVEX)
			return false;
		*file = FILES[i].file;
		*num = (int8_t)v;
		*bits = FILES[i].bits;
		return true;
	}
	return false;
}

static const char *vec_prefix(uint8_t kind) { return kind == IK_ZMM ? "zmm" : kind == IK_YMM ? "ymm" : "xmm"; }

/* An implicit operand the builder does not chain (a segment, x87 status, XCR0): left out, named in skipped. */
static void ignore_implicit(struct ctx *c, struct opnd *d, const char *reg)
{
	size_t k = strlen(c->p->skipped);
	d->file = RF_NONE;
	d->access = 0;
	str_appendf(c->p->skipped, sizeof(c->p->skipped), k, "%simplicit %s: not chained", k ? "; " : "",
		    reg ? reg : "operand");
}

/* The form's operands as files and names; false with p->why for what cannot be built here. */
static bool read_operands(struct ctx *c)
{
	const struct instr_form *f = c->f;
	uint8_t imp = 0, ex = 0; /* a form has at most OPS_MAX operands, so the names stay short */
	bool mask = false;

	if (f->n_ops > OPS_MAX) {
		snprintf(c->p->why, sizeof(c->p->why), "%u operands: more than the %u the builder handles", f->n_ops,
			 OPS_MAX);
		return false;
	}
	for (size_t i = 0; i < f->n_ops; i++) {
		const struct instr_operand *o = &f->ops[i];
		struct opnd *d = &c->op[c->nop++];
		d->access = o->access;
		d->implicit = o->implicit || i >= f->n_explicit;
		d->bits = o->bits;
		d->kind = o->kind;
		d->bcast = o->bcast;
		d->fixed_reg = -1;
		switch (o->kind) {
		case IK_R8:
		case IK_R16:
		case IK_R32:
		case IK_R64:
			d->file = RF_GPR;
			d->bits = (uint16_t)(8u << (o->kind - IK_R8));
			break;
		case IK_MM: d->file = RF_MM; break;
		case IK_XMM:
		case IK_YMM:
		case IK_ZMM:
			d->file = RF_VEC;
			c->vec_bits = c->vec_bits > 128 << (o->kind - IK_XMM) ? c->vec_bits : 128 << (o->kind - IK_XMM);
			break;
		case IK_K:
			d->file = RF_K;
			/* The {k} write mask (k1, all ones; not chained), whether the catalogue lists it as implicit or
			 * as an operand of its own: the first mask register the form only reads. */
			if ((f->attrs & IFA_MASK) && !mask && !o->reg && o->access == IA_READ) {
				d->file = RF_NONE;
				d->implicit = mask = true;
			}
			break;
		case IK_MEM:
			if (d->implicit) {
				snprintf(c->p->why, sizeof(c->p->why),
					 "implicit memory operand (stack or string): not built");
				return false;
			}
			d->file = RF_MEM;
			/* LEA's operand is an address only (XED's AGEN): registers, never dereferenced.  Other
			 * memory operands that are neither read nor written (PREFETCH, CLFLUSH) still point into
			 * the window: they may fault elsewhere (CLFLUSH takes #PF, SDM Vol. 2A CLFLUSH). */
			d->addr_only = !strcmp(f->mnemonic, "lea");
			break;
		case IK_IMM8:
		case IK_IMM16:
		case IK_IMM32:
		case IK_IMM64:
		case IK_ONE: d->file = RF_NONE; break;
		case IK_CL:
			d->file = RF_GPR;
			d->fixed = true;
			d->fixed_reg = GPR_RCX;
			d->bits = 8;
			break;
		case IK_FIXED: {
			uint8_t file;
			int8_t num;
			uint16_t bits;
			if (!o->reg || !parse_reg(o->reg, &file, &num, &bits)) {
				/* XED's stack pseudo-registers (stackpush, stackpop): PUSH, POP, PUSHF... move RSP,
				 * which the harness owns; a loop of pushes alone would run off the stack. */
				if (o->reg && !strncmp(o->reg, STACK_PSEUDO_PREFIX, sizeof(STACK_PSEUDO_PREFIX) - 1)) {
					snprintf(c->p->why, sizeof(c->p->why),
						 "moves the stack pointer (%s), which the harness owns: a loop of it "
						 "alone would run off the stack; not built",
						 o->reg);
					return false;
				}
				if (d->implicit) {
					/* x87 status, XCR0, MSRs...: not chained, and said so. */
					ignore_implicit(c, d, o->reg);
					break;
				}
				snprintf(c->p->why, sizeof(c->p->why),
					 "fixed register '%s' is not one the builder knows", o->reg ? o->reg : "?");
				return false;
			}
			if (file == RF_GPR && (num == GPR_RSP || num == GPR_RSI || num == GPR_RDI)) {
				snprintf(c->p->why, sizeof(c->p->why), "uses %s, which the harness owns", o->reg);
				return false;
			}
			d->file = file;
			d->fixed = true;
			d->fixed_reg = num;
			d->bits = bits;
			if (file == RF_VEC)
				c->vec_bits = c->vec_bits > bits ? c->vec_bits : bits;
			break;
		}
		case IK_SEG:
			if (!d->implicit && o->access == IA_READ) {
				/* A segment register source: read as it is, never written (not chained). */
				d->file = RF_NONE;
				c->seg_read = true;
				break;
			}
			/* fall through */
		case IK_OTHER:
			if (d->implicit) {
				ignore_implicit(c, d, o->reg);
				break;
			}
			/* fall through */
		default:
			snprintf(c->p->why, sizeof(c->p->why),
				 "operand %zu is of a kind the builder does not handle (segment, "
				 "branch or other)",
				 i + 1);
			return false;
		}
		/*
		 * XED's cw, a register written only on some inputs (CMOVcc, FCMOVcc, BSF and BSR on a zero source):
		 * where it is not written it keeps its value, so the result depends on the old one and the core
		 * waits for it whichever way the condition goes.  An input, as rcw is: its own chain is measured.
		 */
		if (!d->implicit && d->file != RF_NONE && d->file != RF_MEM && (d->access & IA_WRITE) &&
		    (d->access & IA_COND))
			d->access |= IA_READ;
		if (d->implicit && d->fixed)
			snprintf(d->name, sizeof(d->name), "%s", f->ops[i].reg ? f->ops[i].reg : "rcx");
		else if (d->implicit)
			snprintf(d->name, sizeof(d->name), "imp%u", (unsigned)++imp);
		else
			snprintf(d->name, sizeof(d->name), "op%u", (unsigned)++ex);
		if (d->fixed)
			c->reserved[d->file][d->fixed_reg] = true;
	}
	return true;
}

/*
 * Forms GNU as writes in a shorter encoding of their own when the register is rAX, which is another iform
 * (SDM Vol. 2D Table A-2: 04/05 ADD, 0C/0D OR, 14/15 ADC, 1C/1D SBB, 24/25 AND, 2C/2D SUB, 34/35 XOR, 3C/3D
 * CMP and A8/A9 TEST with an immediate; 90+r XCHG): such a form is never handed rAX.  `add rax, 0x12345` in
 * ADD r64, imm32's throughput run was 48 05 (ADD_OrAX_IMMz), not 48 81 /0; XCHG r64, r64 given rax measured
 * the one-byte form, whose paths run the other way round (op2->op1 1.02, op1->op2 2.01).
 */
static const struct {
	const char *mnemonic;
	bool with_imm; /* only with an immediate operand */
} RAX_SHORT[] = { { "add", true }, { "or", true },  { "adc", true }, { "sbb", true },  { "and", true },
		  { "sub", true }, { "xor", true }, { "cmp", true }, { "test", true }, { "xchg", false } };

static bool rax_has_short_form(const struct instr_form *f)
{
	bool imm = false;
	for (size_t i = 0; i < f->n_ops; i++)
		imm = imm || f->ops[i].kind == IK_IMM8 || f->ops[i].kind == IK_IMM16 || f->ops[i].kind == IK_IMM32;
	for (size_t i = 0; i < ARRAY_SIZE(RAX_SHORT); i++)
		if (!strcmp(f->mnemonic, RAX_SHORT[i].mnemonic) && (imm || !RAX_SHORT[i].with_imm))
			return true;
	return false;
}

static void make_pools(struct ctx *c)
{
	if (rax_has_short_form(c->f))
		c->reserved[RF_GPR][GPR_RAX] = true;
	for (size_t i = 0; i < ARRAY_SIZE(GPR_POOL); i++)
		if (!c->reserved[RF_GPR][GPR_POOL[i]])
			c->pool[RF_GPR][c->npool[RF_GPR]++] = GPR_POOL[i];
	for (int i = 0; i < (c->evex ? VEC_EVEX : VEC_LEGACY); i++)
		if (!c->reserved[RF_VEC][i])
			c->pool[RF_VEC][c->npool[RF_VEC]++] = (uint8_t)i;
	for (int i = 0; i < MM_COUNT; i++)
		if (!c->reserved[RF_MM][i])
			c->pool[RF_MM][c->npool[RF_MM]++] = (uint8_t)i;
	for (int i = 1; i < K_COUNT; i++) /* k0 is never handed out: the pool's k registers may serve as masks */
		if (!c->reserved[RF_K][i] && !((c->f->attrs & IFA_MASK) && i == K_MASK))
			c->pool[RF_K][c->npool[RF_K]++] = (uint8_t)i;
}

/* A register's name in file `file` at the operand's width. */
static const char *reg_name(const struct opnd *o, int r, char *buf, size_t cap)
{
	switch (o->file) {
	case RF_GPR: return ikm_gpr_names[ikm_width_index(o->bits)][r];
	case RF_VEC:
		snprintf(buf, cap, "%s%d",
			 o->fixed ? (o->bits >= 512   ? "zmm"
				     : o->bits >= 256 ? "ymm"
						      : "xmm")
				  : vec_prefix(o->kind),
			 r);
		return buf;
	case RF_MM: snprintf(buf, cap, "mm%d", r); return buf;
	case RF_K: snprintf(buf, cap, "k%d", r); return buf;
	default: return "?";
	}
}

/* `dword bcst `: a broadcast element whose count GNU as takes from the other operands. */
static const char *bcast_word(unsigned bits)
{
	switch (bits) {
	case 16: return "word bcst ";
	case 32: return "dword bcst ";
	case 64: return "qword bcst ";
	default: return "";
	}
}

/* The destination's element bits from the iform's first operand (VCVTPD2PS_XMMf32_...: 32); 0 unknown. */
static unsigned dest_element_bits(const char *iform)
{
	const char *t = strchr(iform, '_');
	unsigned v = 0;
	if (!t)
		return 0;
	for (t++; *t && *t != '_'; t++)
		v = lc_isdigit(*t) ? v * 10 + (unsigned)(*t - '0') : 0;
	return v;
}

/*
 * The element count of a broadcast where the operands do not give it: a conversion that narrows (its
 * destination's elements narrower than the broadcast one: VCVTPD2PS xmm, m64bcst reads 2 or 4 doubles; XED
 * tells the two iforms apart by their vector length, the `_VL128`, `_VL256`, `_VL512` ending).  0 where they do: widening conversions (VCVTPS2QQ zmm, m32bcst reads 8 floats,
 * not the 16 the widest register holds) are left to the assembler, whose `bcst` derives the count from the
 * destination.
 */
static unsigned bcast_count(const struct ctx *c, const struct opnd *o)
{
	static const struct {
		const char *suffix;
		unsigned bits;
	} VL[] = { { "_VL128", 128 }, { "_VL256", 256 }, { "_VL512", 512 } };
	const char *s = c->f->iform ? c->f->iform : "";
	size_t n = strlen(s);
	for (size_t i = 0; i < ARRAY_SIZE(VL); i++) {
		size_t m = strlen(VL[i].suffix);
		if (n < m || strcmp(s + n - m, VL[i].suffix) || !o->bits)
			continue;
		bool narrows = dest_element_bits(s) && dest_element_bits(s) < o->bits;
		return narrows || !c->vec_bits ? VL[i].bits / o->bits
					       : 0; /* no vector register: VFPCLASSPD k, m64bcst */
	}
	return 0;
}

/*
 * The reserved-NOP encodings (SDM Vol. 2B NOP, and Vol. 2D Table A-3: 0F 0D and 0F 18-1F are NOP or hint
 * groups whose ModRM.reg values without an instruction of their own execute as NOPs).  GNU as writes `nop
 * r/m` only as 0F 1F /0, so the others are written as bytes: [66] [REX] 0F op ModRM [disp32].  The iform
 * ends in the opcode and, where ModRM.reg is fixed, its value (NOP_GPRv_0F18r5: 0F 18 /5); with a second
 * register operand (NOP_MEMv_GPRv_0F19) that register is ModRM.reg.  A memory operand is [rsi+disp32]
 * (mod 10, rm 110).  *op is the opcode byte, *reg the fixed reg field or -1; false for any other form.
 */
#define OPC_ESCAPE 0x0f
#define OPSIZE_PREFIX 0x66
#define REX_BASE 0x40
#define REX_W 0x08
#define REX_R 0x04
#define REX_B 0x01
#define MODRM_REG_DIRECT 3u /* mod 11: rm is a register */
#define MODRM_DISP32 2u	    /* mod 10: [rm + disp32] */
static unsigned hex_digit(char h) { return lc_isdigit(h) ? (unsigned)(h - '0') : (unsigned)(h - 'A' + 10); }

static bool raw_nop(const struct ctx *c, unsigned *op, int *reg)
{
	const char *s = c->f->iform ? c->f->iform : "";
	bool prefetch = starts(s, "PREFETCH_RESERVED_0F0D");
	if (!starts(s, "NOP_") && !prefetch)
		return false;
	/* The last opcode part: the catalogue adds one with the reg field where XED's iform is shared
	 * (NOP_GPRv_GPRv_0F1E_0F1Er3: 0F 1E with ModRM.reg 3). */
	const char *t = strstr(s, "_0F");
	for (const char *n = t; n; n = strstr(n + 1, "_0F"))
		t = n;
	if (!t || !strcmp(t, "_0F1F") || !lc_isxdigit(t[3]) || !lc_isxdigit(t[4]))
		return false; /* 0F 1F /0 is what `nop` assembles */
	*op = hex_digit(t[3]) << 4 | hex_digit(t[4]);
	*reg = t[5] == 'r' && lc_isdigit(t[6]) ? t[6] - '0' : -1;
	return *op == 0x0d || (*op >= 0x18 && *op <= 0x1f);
}

static size_t raw_instance(const struct ctx *c, char *buf, size_t cap, size_t k, const struct assign *a, unsigned op,
			   int reg)
{
	int rm = -1, mem = -1, fixed_reg = reg;
	unsigned bits = 32;
	for (size_t i = 0; i < c->nop; i++) {
		if (c->op[i].implicit)
			continue;
		if (c->op[i].file == RF_MEM)
			mem = (int)i;
		else if (rm < 0 && mem < 0)
			rm = a->reg[i];
		else if (fixed_reg < 0)
			reg = a->reg[i]; /* the register operand is ModRM.reg unless the iform fixes the field */
		bits = c->op[i].file == RF_GPR || c->op[i].file == RF_MEM ? c->op[i].bits : bits;
	}
	if (reg < 0)
		reg = 0;
	unsigned rex = (bits == 64 ? REX_W : 0) | (reg >= 8 ? REX_R : 0) | (rm >= 8 ? REX_B : 0);
	k = str_appendf(buf, cap, k, ".byte ");
	if (bits == 16)
		k = str_appendf(buf, cap, k, "0x%x, ", OPSIZE_PREFIX);
	if (rex)
		k = str_appendf(buf, cap, k, "0x%x, ", REX_BASE | rex);
	unsigned modrm = mem >= 0 ? MODRM_DISP32 << 6 | (unsigned)(reg & 7) << 3 | GPR_RSI
				  : MODRM_REG_DIRECT << 6 | (unsigned)(reg & 7) << 3 | (unsigned)(rm & 7);
	k = str_appendf(buf, cap, k, "0x%x, 0x%x, 0x%x", OPC_ESCAPE, op, modrm);
	if (mem >= 0)
		for (int b = 0; b < 4; b++)
			k = str_appendf(buf, cap, k, ", 0x%x", ((unsigned)a->off >> (8 * b)) & 0xff);
	return str_appendf(buf, cap, k, "\n");
}

/* One instance of the form, with registers `a` (the defaults where a says -1), as a line of assembly. */
static size_t instance(const struct ctx *c, char *buf, size_t cap, size_t k, const struct assign *a)
{
	unsigned raw_op;
	int raw_reg;
	if (raw_nop(c, &raw_op, &raw_reg))
		return raw_instance(c, buf, cap, k, a, raw_op, raw_reg);
	/* Static rounding or suppressed exceptions: an operand of its own after the registers, before an
	 * immediate (GNU as's Intel syntax: `vcmpps k1, zmm1, zmm2, {sae}, 3`); round to nearest. */
	const char *er = (c->f->attrs & IFA_ROUNDING) ? "{rn-sae}" : (c->f->attrs & IFA_SAE) ? "{sae}" : NULL;
	k = str_appendf(buf, cap, k, "%s%s", c->hint, c->f->mnemonic);
	for (size_t i = 0, n = 0; i < c->nop; i++) {
		const struct opnd *o = &c->op[i];
		char tmp[16];
		if (o->implicit)
			continue;
		if (er && o->file == RF_NONE) {
			k = str_appendf(buf, cap, k, ", %s", er);
			er = NULL;
		}
		k = str_appendf(buf, cap, k, "%s", n++ ? ", " : " ");
		switch (c->f->ops[i].kind) {
		case IK_IMM8: k = str_appendf(buf, cap, k, "%u", IKM_IMM8); break;
		case IK_IMM16: k = str_appendf(buf, cap, k, "0x%x", IKM_IMM16); break;
		case IK_IMM32: k = str_appendf(buf, cap, k, "0x%x", IKM_IMM32); break;
		case IK_IMM64: k = str_appendf(buf, cap, k, "0x%llx", (unsigned long long)IMM64_VALUE); break;
		case IK_ONE: k = str_appendf(buf, cap, k, "1"); break;
		case IK_SEG: k = str_appendf(buf, cap, k, "%s", c->f->ops[i].reg ? c->f->ops[i].reg : SEG_READ); break;
		case IK_MEM:
			if (o->addr_only)
				k = str_appendf(buf, cap, k, "[%s+%s*1]",
						ikm_gpr_names[3][a->index >= 0 ? a->index : a->reg[i]],
						ikm_gpr_names[3][c->pool[RF_GPR][c->npool[RF_GPR] - 1]]);
			else {
				const char *w =
					o->bcast && !bcast_count(c, o) ? bcast_word(o->bits) : ikm_size_word(o->bits);
				if (a->index >= 0)
					k = str_appendf(buf, cap, k, "%s[rsi+%s]", w, ikm_gpr_names[3][a->index]);
				else
					k = str_appendf(buf, cap, k, "%s[rsi+%d]", w, a->off);
			}
			if (o->bcast && bcast_count(c, o))
				k = str_appendf(buf, cap, k, "{1to%u}", bcast_count(c, o));
			break;
		default: k = str_appendf(buf, cap, k, "%s", reg_name(o, a->reg[i], tmp, sizeof(tmp))); break;
		}
		if (i == 0 && (c->f->attrs & IFA_MASK))
			k = str_appendf(buf, cap, k, "{k%d}", K_MASK);
		if (i == 0 && (c->f->attrs & IFA_ZEROING))
			k = str_appendf(buf, cap, k, "{z}");
	}
	if (er)
		k = str_appendf(buf, cap, k, ", %s", er);
	return str_appendf(buf, cap, k, "\n");
}

/* The registers no instance writes, one per read-only operand: taken from the end of each pool. */
static void defaults(const struct ctx *c, struct assign *a)
{
	size_t used[RF_MEM + 1] = { 0 };
	used[RF_GPR] = 1; /* the last general register is an address-only operand's index (LEA) */
	for (size_t i = 0; i < c->nop; i++) {
		const struct opnd *o = &c->op[i];
		uint8_t file = o->addr_only ? RF_GPR : o->file; /* LEA's base is a register like any input */
		a->reg[i] = o->fixed ? o->fixed_reg : -1;
		if (o->fixed || file == RF_NONE || file == RF_MEM)
			continue;
		used[file]++;
		a->reg[i] = c->npool[file] >= used[file] ? c->pool[file][c->npool[file] - used[file]] : 0;
	}
	a->off = 0;
	a->index = -1;
}

static struct ikm *add(struct ctx *c, enum ikm_kind kind, const char *name)
{
	struct ikm *m = ikm_plan_add(c->p, kind, name);
	if (m)
		m->fill = c->fp_data ? LANES[c->fp_double].fill : c->divide ? FILL_ONE : 0;
	return m;
}

/*
 * The write mask's width in bits: one bit per element of the destination, which XED's iform names first with
 * its element type (VADDPS_ZMMf32_..., VPADDB_ZMMu8_..., VFMADDCPH_ZMM2f16_... a pair of 16-bit halves: one
 * 32-bit element), or, for a destination mask, the first vector operand's (VPCMPEQB_MASKmskw_MASKmskw_ZMMu8_...)
 * or memory's with the vector length (..._MEMf16_IMM8_AVX512_VL512).  0 for a form without a write mask or an
 * iform that does not say.
 */
static unsigned mask_bits(const struct instr_form *f)
{
	static const struct {
		const char *tag;
		unsigned bits;
	} WIDTH[] = { { "_XMM", 128 }, { "_YMM", 256 }, { "_ZMM", 512 }, { "_MEM", 0 } };
	if (!(f->attrs & IFA_MASK))
		return 0;
	for (size_t w = 0; w < ARRAY_SIZE(WIDTH); w++) {
		const char *t = strstr(f->iform, WIDTH[w].tag);
		unsigned width = WIDTH[w].bits, n = 0, bits = 0;
		if (!t)
			continue;
		t += strlen(WIDTH[w].tag);
		while (lc_isdigit(*t))
			n = n * 10 + (unsigned)(*t++ - '0');
		while (*t >= 'a' && *t <= 'z')
			t++;
		while (lc_isdigit(*t))
			bits = bits * 10 + (unsigned)(*t++ - '0');
		const char *vl = strstr(f->iform, "_VL");
		if (!width && vl)
			width = (unsigned)strtoul(vl + 3, NULL, 10);
		bits *= n ? n : 1;
		return bits && width && width % bits == 0 ? width / bits : 0;
	}
	return 0;
}

/* The K-instruction suffix for a mask of `bits` (0: unknown, a word): w, d or q (the latter two AVX512BW). */
static const char *k_width_suffix(unsigned bits) { return bits > 32 ? "q" : bits > 16 ? "d" : "w"; }

/* rdx:rax (dx:ax, ah:al) = 0 : the largest positive dividend of the width; every divisor is 1. */
static uint64_t divide_rax(const struct ctx *c)
{
	unsigned bits = 64;
	for (size_t i = 0; i < c->nop; i++)
		if (!c->op[i].implicit)
			bits = c->op[i].bits;
	return (bits >= 64 ? ~0ull : (1ull << bits) - 1) >> 1;
}

/* The start every kernel of the form shares: vector lanes 1.0f, general registers 1, mm 1, k all ones. */
static size_t init_common(const struct ctx *c, char *buf, size_t cap)
{
	size_t k = 0;
	if (c->npool[RF_VEC] && c->vec_bits) {
		const struct lane *ls = &LANES[c->fp_double];
		/* One lane at [rdx + VCONST_OFF], a dword at a time. */
		for (unsigned at = 0; at < ls->bits; at += 32)
			k = str_appendf(buf, cap, k, "mov dword ptr [rdx+%u], %#x\n", VCONST_OFF + at / 8,
					(unsigned)(ls->fill >> at));
		for (int i = 0; i < (c->evex ? VEC_EVEX : VEC_LEGACY); i++) {
			if (c->evex || c->vex)
				k = str_appendf(buf, cap, k, "%s %cmm%d, %s ptr [rdx+%d]\n", ls->bcast,
						c->evex ? 'z' : 'y', i, ls->ptr, VCONST_OFF);
			else
				k = str_appendf(buf, cap, k, "%s xmm%d, %s ptr [rdx+%d]\n%s xmm%d, xmm%d, 0\n",
						ls->load, i, ls->ptr, VCONST_OFF, ls->shuffle, i, i);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(GPR_POOL); i++)
		k = str_appendf(buf, cap, k, "mov %s, %d\n", ikm_gpr_names[2][GPR_POOL[i]], IKM_GPR_START);
	for (size_t i = 0; i < c->nop; i++) {
		if (c->op[i].file == RF_MM) {
			for (int r = 0; r < MM_COUNT; r++)
				k = str_appendf(buf, cap, k, "movq mm%d, rax\n", r);
			break;
		}
	}
	bool kregs = c->f->attrs & IFA_MASK;
	for (size_t i = 0; i < c->nop; i++)
		kregs = kregs || c->op[i].file == RF_K;
	/* All ones as wide as the write mask: KXNORW clears bits 16 up (SDM Vol. 2A KXNORW), which left a
	 * 64-byte form's mask at 16 of its elements. */
	const char *kx = k_width_suffix(mask_bits(c->f));
	for (int r = 1; kregs && r < K_COUNT; r++)
		k = str_appendf(buf, cap, k, "kxnor%s k%d, k%d, k%d\n", kx, r, r, r);
	if (c->selector)
		k = str_appendf(buf, cap, k, "xor ecx, ecx\n");
	if (c->divide)
		k = str_appendf(buf, cap, k, "xor edx, edx\nmov rax, 0x%llx\n", (unsigned long long)divide_rax(c));
	return k;
}

/*
 * A copy within one register file (a connector between two operands of one file), by an instruction
 * that executes: a plain move may be eliminated at rename, and then its chain measures the renamer's
 * throughput, not a latency to subtract (and newer cores rename LEA and adds of small immediates too:
 * a `lea rbx, [rax+8]` chain ran at 0.19 cycles per instruction on the development host).  OR puts the
 * output's bits into the input register (what the chain needs is the dependency, not a copy); the
 * identity shuffle (imm8 0xe4: each element from itself, SDM Vol. 2B PSHUFD, PSHUFW; VPERMILPS, which
 * AVX has for ymm where VPSHUFD needs AVX2) copies.
 */
#define IDENTITY_SHUFFLE "0xe4"
static const char *move_text(const struct ctx *c, uint8_t file)
{
	switch (file) {
	case RF_GPR: return "or %s, %s";
	case RF_VEC:
		return c->vex || c->evex ? "vpermilps %s, %s, " IDENTITY_SHUFFLE : "pshufd %s, %s, " IDENTITY_SHUFFLE;
	case RF_MM: return "pshufw %s, %s, " IDENTITY_SHUFFLE;
	case RF_K: return "kmovw %s, %s";
	default: return NULL;
	}
}

/* The full-width name of register r of a file, for connectors. */
static const char *full_name(const struct ctx *c, uint8_t file, int r, char *buf, size_t cap)
{
	switch (file) {
	case RF_GPR: return ikm_gpr_names[3][r];
	/* r is a register number, 0-31: the mask tells the compiler so (-Wformat-truncation=2). */
	case RF_VEC: snprintf(buf, cap, "%s%d", c->evex ? "zmm" : c->vex ? "ymm" : "xmm", r & 31); return buf;
	case RF_MM: snprintf(buf, cap, "mm%d", r & 31); return buf;
	case RF_K: snprintf(buf, cap, "k%d", r & 31); return buf;
	default: return "?";
	}
}

/*
 * The plan's connector measurement `name`, made once: its index, with *fresh the new measurement (the form's
 * init in place, the body for the caller to write) the first time and NULL after; IKM_NO_SUB when the plan
 * is full.
 */
static int connector_slot(struct ctx *c, const char *name, struct ikm **fresh)
{
	*fresh = NULL;
	for (size_t i = 0; i < c->p->n; i++)
		if (!strcmp(c->p->m[i].name, name))
			return (int)i;
	struct ikm *m = add(c, IKM_CONNECTOR, name);
	if (!m)
		return IKM_NO_SUB;
	init_common(c, m->init, sizeof(m->init));
	*fresh = m;
	return (int)(m - c->p->m);
}

/* The plan's connector measurement for moves in `file` (made once): its index, or IKM_NO_SUB. */
static int connector_move(struct ctx *c, uint8_t file)
{
	static const char *const NAMES[] = { "", "conn_or_gpr", "conn_shuf_vec", "conn_pshufw_mm", "conn_kmovw_k" };
	char a[8], b[8], line[48], name[IKM_NAME_MAX];
	/* The vector copy differs by encoding (pshufd; vpermilps ymm with VEX, zmm with EVEX): each its own connector. */
	snprintf(name, sizeof(name), "%s%s", NAMES[file],
		 file != RF_VEC ? ""
		 : c->evex	? "_evex"
		 : c->vex	? "_vex"
				: "_sse");
	struct ikm *m;
	int at = connector_slot(c, name, &m);
	if (!m)
		return at;
	int r0 = c->pool[file][0], r1 = c->pool[file][1];
	size_t k = 0;
	snprintf(line, sizeof(line), move_text(c, file), full_name(c, file, r1, a, sizeof(a)),
		 full_name(c, file, r0, b, sizeof(b)));
	k = str_appendf(m->body, sizeof(m->body), k, "%s\n", line);
	snprintf(line, sizeof(line), move_text(c, file), full_name(c, file, r0, a, sizeof(a)),
		 full_name(c, file, r1, b, sizeof(b)));
	str_appendf(m->body, sizeof(m->body), k, "%s\n", line);
	m->per_iter = 2;
	m->note = "a copy that executes (not a move the renamer could eliminate)";
	return at;
}

/* The plan's `and r64, ADDR_MASK` chain: an address register kept in the window. */
static int connector_and(struct ctx *c)
{
	struct ikm *m;
	int at = connector_slot(c, "conn_and_gpr", &m);
	if (m)
		snprintf(m->body, sizeof(m->body), "and %s, 0x%x\n", ikm_gpr_names[3][c->pool[RF_GPR][0]], ADDR_MASK);
	return at;
}

/* The figure an upper bound: `least` connecting instructions on its chain that cannot be measured alone, each
 * counted at its least cycle (instr/kernel.h), which `via` names. */
static void counted_least(struct ikm *m, uint8_t least, const char *via)
{
	m->bound = IKM_UPPER;
	m->least = least;
	m->via = via;
}

/* The measurement's memory operand indexed by general register r, which its init makes 0. */
static void index_at_zero(struct ikm *m, struct assign *a, size_t ik, int r)
{
	a->index = r;
	str_appendf(m->init, sizeof(m->init), ik, "xor %s, %s\n", ikm_gpr_names[2][r], ikm_gpr_names[2][r]);
}

static void note_skip(struct ctx *c, const char *from, const char *to, const char *why)
{
	size_t k = strlen(c->p->skipped);
	str_appendf(c->p->skipped, sizeof(c->p->skipped), k, "%s%s->%s: %s", k ? "; " : "", from, to, why);
}

/*
 * A connector between files: reads register `src` of file `from`, writes `dst` of file `to` (a fresh
 * line into buf).  NULL when there is none.
 */
static const char *cross(const struct ctx *c, uint8_t from, uint8_t to, int src, int dst, char *buf, size_t cap)
{
	const char *v = c->vex || c->evex ? "v" : "";
	if (from == RF_GPR && to == RF_VEC)
		snprintf(buf, cap, "%smovq xmm%d, %s", v, dst, ikm_gpr_names[3][src]);
	else if (from == RF_VEC && to == RF_GPR)
		snprintf(buf, cap, "%smovq %s, xmm%d", v, ikm_gpr_names[3][dst], src);
	else if (from == RF_GPR && to == RF_MM)
		snprintf(buf, cap, "movq mm%d, %s", dst, ikm_gpr_names[3][src]);
	else if (from == RF_MM && to == RF_GPR)
		snprintf(buf, cap, "movq %s, mm%d", ikm_gpr_names[3][dst], src);
	else if (from == RF_GPR && to == RF_K)
		snprintf(buf, cap, "kmovw k%d, %s", dst, ikm_gpr_names[2][src]);
	else if (from == RF_K && to == RF_GPR)
		snprintf(buf, cap, "kmovw %s, k%d", ikm_gpr_names[2][dst], src);
	else if (from == RF_VEC && to == RF_MM && dst < VEC_LEGACY)
		snprintf(buf, cap, "movdq2q mm%d, xmm%d", dst, src);
	else if (from == RF_MM && to == RF_VEC && dst < VEC_LEGACY)
		snprintf(buf, cap, "movq2dq xmm%d, mm%d", dst, src);
	else if (from == RF_K && to == RF_VEC) /* AVX512DQ: each element all ones where the mask bit is set */
		snprintf(buf, cap, "vpmovm2d zmm%d, k%d", dst, src);
	else if (from == RF_VEC && to == RF_K) /* AVX512DQ: each element's top bit */
		snprintf(buf, cap, "vpmovd2m k%d, zmm%d", dst, src);
	else
		return NULL;
	return buf;
}

/*
 * A register operand's width in bits: an MMX register's 64 (XED gives MOVD's the 32 bits it moves), a vector
 * register's by its kind (xmm, ymm, zmm) unless it is fixed.
 */
static unsigned reg_bits(const struct opnd *o)
{
	if (o->file == RF_MM)
		return 64;
	if (o->file != RF_VEC || o->fixed)
		return o->bits;
	return 128u << (o->kind >= IK_XMM && o->kind <= IK_ZMM ? o->kind - IK_XMM : 0);
}

/*
 * The loads that bring a store narrower than its vector register back into it, as wide as the store: legacy
 * SSE, VEX and EVEX spellings, each given the register number twice (the inserts name it as source too).
 * PINSRB is SSE4.1, as every form that stores a byte of a vector register (PEXTRB, VPMOV*B) already is; for
 * xmm16-31 the inserts are AVX512BW, which every AVX-512 core but Xeon Phi has.
 */
static const struct {
	unsigned bits;
	const char *sse, *vex, *evex;
} NARROW_RELOADS[] = {
	{ 8, "pinsrb xmm%d, byte ptr [rsi], 0", "vpinsrb xmm%d, xmm%d, byte ptr [rsi], 0",
	  "vpinsrb xmm%d, xmm%d, byte ptr [rsi], 0" },
	{ 16, "pinsrw xmm%d, word ptr [rsi], 0", "vpinsrw xmm%d, xmm%d, word ptr [rsi], 0",
	  "vpinsrw xmm%d, xmm%d, word ptr [rsi], 0" },
	{ 32, "movd xmm%d, dword ptr [rsi]", "vmovd xmm%d, dword ptr [rsi]", "vmovd xmm%d, dword ptr [rsi]" },
	{ 64, "movq xmm%d, qword ptr [rsi]", "vmovq xmm%d, qword ptr [rsi]", "vmovq xmm%d, qword ptr [rsi]" },
	{ 128, "movdqu xmm%d, xmmword ptr [rsi]", "vmovdqu xmm%d, xmmword ptr [rsi]",
	  "vmovdqu64 xmm%d, xmmword ptr [rsi]" },
	{ 256, NULL, "vmovdqu ymm%d, ymmword ptr [rsi]", "vmovdqu64 ymm%d, ymmword ptr [rsi]" },
};

/*
 * The memory connectors: a store of register r of operand o to [rsi], or a load of it from [rsi].  A load
 * reads mbits, the memory operand's width, where the form stored fewer bits than the register holds (0: the
 * register's width): a load wider than the store it reads cannot take the stored data forwarded and waits
 * for the store to reach the cache (on the development host MOVQ m64, xmm read back with a 128-bit load
 * measured 19-21 cycles, the penalty and not the form).
 */
static const char *mem_move(const struct ctx *c, const struct opnd *o, int r, bool store, unsigned mbits, char *buf,
			    size_t cap)
{
	char n[16];
	const char *name = reg_name(o, r, n, sizeof(n));
	const char *fmt;
	unsigned bits = reg_bits(o);
	if (!store && mbits && mbits < bits) {
		if (o->file == RF_MM && mbits == 32) {
			snprintf(buf, cap, "movd mm%d, dword ptr [rsi]", r);
			return buf;
		}
		for (size_t i = 0; o->file == RF_VEC && i < ARRAY_SIZE(NARROW_RELOADS); i++) {
			fmt = c->evex ? NARROW_RELOADS[i].evex : c->vex ? NARROW_RELOADS[i].vex : NARROW_RELOADS[i].sse;
			if (NARROW_RELOADS[i].bits == mbits && fmt) {
				snprintf(buf, cap, fmt, r, r);
				return buf;
			}
		}
	}
	switch (o->file) {
	case RF_GPR: fmt = store ? "mov %s[rsi], %s" : "mov %s, %s[rsi]"; break;
	case RF_VEC:
		fmt = store ? (c->evex	? "vmovdqu64 %s[rsi], %s"
			       : c->vex ? "vmovdqu %s[rsi], %s"
					: "movdqu %s[rsi], %s")
			    : (c->evex	? "vmovdqu64 %s, %s[rsi]"
			       : c->vex ? "vmovdqu %s, %s[rsi]"
					: "movdqu %s, %s[rsi]");
		break;
	case RF_MM: fmt = store ? "movq %s[rsi], %s" : "movq %s, %s[rsi]"; break;
	default: return NULL;
	}
	if (store)
		snprintf(buf, cap, fmt, ikm_size_word(bits), name);
	else
		snprintf(buf, cap, fmt, name, ikm_size_word(bits));
	return buf;
}

/*
 * Flags -> register, after a form that writes flags: an instruction that reads one flag the form writes and
 * makes a general register of it (SDM Vol. 2A SBB, CMOVcc; condition codes, Vol. 1 Appendix B).  SBB r, r
 * reads the carry; a form that leaves it alone (INC, DEC, ADOX, CMPXCHG8B...) hands SBB the carry of an
 * older instruction, and the chain then measured SBB alone: INC r64 op1 -> flags read 0.002 cycles on
 * the development host.  The others are CMOVcc r, r: the register keeps its value (a bit offset or a
 * divisor stays what it was) and the move still waits for the flag.  In this order, the first flag the
 * form writes and defines; else the first it writes at all.
 */
struct flag_reader {
	uint16_t flag; /* IFL_* */
	const char *insn, *via, *via_cross;
};
/* One reader: its instruction, and the words for what it reads, spelt into both of its via texts. */
#define FLAG_READER(flag, insn, what) \
	{ \
		(flag), (insn), insn " r, r (" what " -> register, " LEAST_ONE ")", \
			insn " r64, r64 and a move into the register file (" LEAST_EACH ")" \
	}
static const struct flag_reader FLAG_READERS[] = {
	FLAG_READER(IFL_CF, "sbb", "flags"),
	FLAG_READER(IFL_ZF, "cmovz", "the zero flag"),
	FLAG_READER(IFL_SF, "cmovs", "the sign flag"),
	FLAG_READER(IFL_OF, "cmovo", "the overflow flag"),
	FLAG_READER(IFL_PF, "cmovp", "the parity flag"),
#undef FLAG_READER
};

static const struct flag_reader *flag_reader(const struct instr_form *f)
{
	const uint16_t sets[2] = { (uint16_t)(f->flags_written & ~f->flags_undefined), f->flags_written };
	for (size_t s = 0; s < ARRAY_SIZE(sets); s++)
		for (size_t i = 0; i < ARRAY_SIZE(FLAG_READERS); i++)
			if (sets[s] & FLAG_READERS[i].flag)
				return &FLAG_READERS[i];
	return NULL;
}

static bool is_in(const struct opnd *o) { return o->access & IA_READ; }
static bool is_out(const struct opnd *o) { return o->access & IA_WRITE; }

/*
 * Whether general register operand o is the bit offset of BT, BTS, BTR or BTC into a memory operand: a signed
 * offset from it, -2^63 to 2^63 - 1 bits for 64 (SDM Vol. 2A BT, "Bit Test": the bit base in memory is
 * addressed with it).  A chain that hands it SBB's -1 tests or writes the bytes before the window: on the
 * heap, BTS m64, r64 set bit 63 of the allocator's own size field there, and a full table ended in glibc's
 * `malloc(): invalid next size` after 686 s.
 */
static bool bit_offset_into_memory(const struct ctx *c, const struct opnd *o)
{
	static const char *const BT[] = { "bt", "bts", "btr", "btc" };
	static const char LOCK[] = "lock "; /* the catalogue spells LOCK forms' mnemonics with it */
	const char *mn = c->f->mnemonic;
	bool bt = false, mem = false;
	if (!strncmp(mn, LOCK, sizeof(LOCK) - 1))
		mn += sizeof(LOCK) - 1;
	for (size_t i = 0; i < ARRAY_SIZE(BT); i++)
		bt = bt || !strcmp(mn, BT[i]);
	for (size_t q = 0; q < c->nop; q++)
		mem = mem || c->op[q].file == RF_MEM;
	return bt && mem && o->file == RF_GPR && !o->addr_only;
}

static void divide_pair(struct ctx *c, struct ikm *m, struct assign *a, struct endpoint in, struct endpoint out,
			size_t ik);
static bool address_xor(struct ctx *c, struct ikm *m, struct assign *a, struct endpoint out, size_t ik);
static void mask_pair(struct ctx *c, int out);

/* The latency measurement of one pair, or a note in p->skipped. */
static void pair(struct ctx *c, struct endpoint in, struct endpoint out)
{
	const char *fname = in.op == EP_FLAGS ? "flags" : c->op[in.op].name;
	const char *tname = out.op == EP_FLAGS ? "flags" : c->op[out.op].name;
	char from[IKM_OPNAME_MAX], name[IKM_NAME_MAX], line[64], n1[16], n2[16];
	struct assign a;
	struct ikm *m;
	size_t k = 0;

	snprintf(from, sizeof(from), "%s%s", fname, in.addr ? ".addr" : "");
	snprintf(name, sizeof(name), "lat_%s_%s", from, tname);
	for (char *s = name; *s; s++)
		if (*s == '.')
			*s = '_';
	const struct opnd *i = in.op == EP_FLAGS ? NULL : &c->op[in.op];
	const struct opnd *o = out.op == EP_FLAGS ? NULL : &c->op[out.op];
	if (c->selector && i && i->fixed && i->file == RF_GPR && i->fixed_reg == GPR_RCX) {
		note_skip(c, from, tname, "ecx selects what is read: a chain would change it (#GP)");
		return;
	}
	if (c->divide && out.op == EP_FLAGS) {
		note_skip(c, from, tname,
			  "a divide leaves every flag undefined (SDM Vol. 2A DIV, IDIV): no chain runs "
			  "through them");
		return;
	}
	if (!(m = add(c, IKM_LATENCY, name))) {
		note_skip(c, from, tname, "no room for more measurements");
		return;
	}
	snprintf(m->from, sizeof(m->from), "%s", from);
	snprintf(m->to, sizeof(m->to), "%s", tname);
	size_t ik = init_common(c, m->init, sizeof(m->init));
	defaults(c, &a);
	char *b = m->body;
	const size_t cap = sizeof(m->body);

	if (c->divide && (in.op != out.op || in.addr)) {
		divide_pair(c, m, &a, in, out, ik);
		return;
	}
	if (!i && !o) {
		/* flags -> flags: registers rotated so that only the flags chain the instances. */
		m->per_iter = 0;
		for (size_t n = 0; n < TP_MAX && n < c->npool[RF_GPR] / 2; n++, m->per_iter++) {
			for (size_t q = 0; q < c->nop; q++)
				if (!c->op[q].fixed && is_out(&c->op[q]) && c->op[q].file != RF_MEM &&
				    c->op[q].file != RF_NONE)
					a.reg[q] = c->pool[c->op[q].file][n % c->npool[c->op[q].file]];
			a.off = (int)n * MEM_STRIDE;
			k = instance(c, b, cap, k, &a);
		}
		/* The harness's `dec` between trips writes every flag but the carry: an OF chain (ADOX) starts again
		 * each trip and trips overlap.  At 24 instances a trip ADOX read 0.83 cycles, at 64 0.96 (development
		 * host); a long trip makes the restart a small part of it. */
		m->unroll = (uint16_t)((FLAGS_CHAIN_INSTANCES + m->per_iter - 1) / (m->per_iter ? m->per_iter : 1));
		return;
	}
	if (!i && o) {
		/* flags -> register: the register sets the flags again (TEST), which cannot be measured alone; a
		 * register of another file goes through a general register first. */
		int t = o->file == RF_GPR ? a.reg[out.op] : c->pool[RF_GPR][0];
		if (o->file != RF_GPR && !cross(c, o->file, RF_GPR, a.reg[out.op], t, line, sizeof(line))) {
			c->p->n--;
			note_skip(c, from, tname, "no flags connector for this register file");
			return;
		}
		k = instance(c, b, cap, k, &a);
		if (o->file != RF_GPR)
			k = str_appendf(b, cap, k, "%s\n", line);
		/* CMP, not TEST: on the development host (Golden Cove class) a CMOVcc or SETcc that reads the
		 * flags of TEST, AND, OR or XOR waits about 0.7 cycle more than after CMP, ADD or SUB (user
		 * kernels `cmovz rax, rbx / test rax, rax` 2.68 cycles, `... / cmp rax, 0` 1.95), which every
		 * such form's flags -> register figure carried. */
		str_appendf(b, cap, k, "cmp %s, 0\n", ikm_gpr_names[3][t]);
		counted_least(m, o->file == RF_GPR ? 1 : 2,
			      o->file == RF_GPR ? "cmp r64, 0 (register -> flags, " LEAST_ONE ")"
						: "a move to a general register and cmp r64, 0 (" LEAST_EACH ")");
		return;
	}
	if (i && !o) {
		/* register -> flags: a flag the form writes made a register again (FLAG_READERS, not measurable
		 * alone); a register of another file is then filled from it. */
		int t = i->file == RF_GPR ? a.reg[in.op] : c->pool[RF_GPR][0];
		const struct flag_reader *fr = flag_reader(c->f);
		if (in.addr || !fr ||
		    (i->file != RF_GPR && !cross(c, RF_GPR, i->file, t, a.reg[in.op], line, sizeof(line)))) {
			c->p->n--;
			note_skip(c, from, tname,
				  fr ? "no flags connector for this operand"
				     : "no instruction reads the flags this form writes into a register");
			return;
		}
		k = instance(c, b, cap, k, &a);
		/* CMOVcc has no byte form (SDM Vol. 2A CMOVcc): a byte register is moved as its dword. */
		int w = i->file == RF_GPR ? ikm_width_index(i->bits) : 3;
		if (fr->flag != IFL_CF && w == 0)
			w = 2;
		const char *r = ikm_gpr_names[w][t];
		k = str_appendf(b, cap, k, "%s %s, %s\n", fr->insn, r, r);
		if (i->file != RF_GPR)
			str_appendf(b, cap, k, "%s\n", line);
		if (bit_offset_into_memory(c, i)) {
			/* 0 or -1 made 0 or 4088 bits, inside the window: the address chains' AND, measured alone. */
			str_appendf(b, cap, k, "and %s, 0x%x\n", ikm_gpr_names[3][t], ADDR_MASK);
			m->sub[0] = (int8_t)connector_and(c);
			m->note = "a bit offset: SBB's 0 or -1 made 0 or 4088 bits by and r64, imm32 (measured alone, "
				  "subtracted), so the tested bit stays in the window";
		}
		counted_least(m, i->file == RF_GPR ? 1 : 2, i->file == RF_GPR ? fr->via : fr->via_cross);
		return;
	}
	if (in.addr && (o->fixed || o->file != RF_GPR || o->bits < 32)) {
		if (!address_xor(c, m, &a, out, ik)) {
			c->p->n--;
			note_skip(c, from, tname,
				  "no move from the result's register file to a general register, or no "
				  "general register left for the index");
		}
		return;
	}
	if (in.addr) {
		/* The address: the result is the index of the next instance's address, kept in the window by an AND
		 * (measured alone, subtracted); the window holds zeros, so the address does not move. */
		m->fill = 0;
		int r = a.reg[out.op] = c->pool[RF_GPR][0];
		index_at_zero(m, &a, ik, r);
		k = instance(c, b, cap, k, &a);
		str_appendf(b, cap, k, "and %s, 0x%x\n", ikm_gpr_names[3][r], ADDR_MASK);
		m->sub[0] = (int8_t)connector_and(c);
		m->via = "and r64, imm32 (measured alone, subtracted)";
		m->note = i->addr_only ? NULL : "the window holds zeros: the address does not move";
		return;
	}
	if (i->file == RF_MEM && o->file == RF_MEM) {
		/* Read-modify-write memory: the chain runs through memory as the form itself makes it. */
		k = instance(c, b, cap, k, &a);
		m->note = "through memory: the store-to-load forwarding is part of it";
		return;
	}
	if (i->file == RF_MEM || o->file == RF_MEM) {
		/* Memory contents -> register: a store puts the result back where the next instance loads.
		 * Register -> memory: a load brings the stored value back into the register. */
		bool store = i->file == RF_MEM;
		if (!mem_move(c, store ? o : i, a.reg[store ? out.op : in.op], store, store ? 0 : o->bits, line,
			      sizeof(line))) {
			c->p->n--;
			note_skip(c, from, tname,
				  store ? "no store for this register file" : "no load for this register file");
			return;
		}
		k = instance(c, b, cap, k, &a);
		str_appendf(b, cap, k, "%s\n", line);
		m->bound = IKM_UPPER;
		m->via = store ? "a store of the result to the operand's memory (with store forwarding: included)"
			       : "a load of the stored memory into the register (with store forwarding: included)";
		/* A store and a load of one address with nothing between: a core that renames memory (the load
		 * takes the stored register at rename, no forwarding) runs such a pair in well under a cycle. */
		m->note = "a store and a reload of one address: memory renaming, where the core has it, bypasses "
			  "the round trip (a figure below 1 cycle says so)";
		return;
	}
	if (in.op == out.op) {
		k = instance(c, b, cap, k, &a); /* a read-write operand: its own register chains */
		if (!strcmp(c->f->mnemonic, "xchg"))
			m->note =
				"XCHG hands op1 op2's value and op2 op1's: this chain runs op1->op2 and op2->op1 in turn "
				"and reads their mean";
		return;
	}
	if (i->file == RF_GPR && o->file == RF_GPR && is_out(i)) {
		/*
		 * The input is written too (XCHG, XADD, CMPXCHG; MUL's rax -> rdx): alternating registers, or a copy
		 * OR-ed into it, let its own path run beside the pair's (`xchg rax, rbx` in turn read 1.5 for both
		 * pairs on the development host: the mean of op1->op2's 1 and op2->op1's 2).  The zeroing idiom
		 * drops its own value, then `or IN, OUT` copies the output in (measured alone, subtracted).
		 */
		int ri = i->fixed ? i->fixed_reg : c->pool[RF_GPR][0];
		int ro = o->fixed ? o->fixed_reg : c->pool[RF_GPR][i->fixed ? 0 : 1];
		if (!i->fixed)
			a.reg[in.op] = ri;
		if (!o->fixed)
			a.reg[out.op] = ro;
		k = instance(c, b, cap, k, &a);
		k = str_appendf(b, cap, k, "xor %s, %s\n", ikm_gpr_names[2][ri], ikm_gpr_names[2][ri]);
		str_appendf(b, cap, k, "or %s, %s\n", ikm_gpr_names[3][ri], ikm_gpr_names[3][ro]);
		m->sub[0] = (int8_t)connector_move(c, RF_GPR);
		m->via = "xor IN, IN (the zeroing idiom drops IN's own value), then or IN, OUT (measured alone, "
			 "subtracted)";
		return;
	}
	if (i->file == o->file && !i->fixed && !o->fixed) {
		/* Two operands of one file: two registers, alternating, two instances per body. */
		int r0 = c->pool[i->file][0], r1 = c->pool[i->file][1];
		a.reg[out.op] = r0;
		a.reg[in.op] = r1;
		k = instance(c, b, cap, k, &a);
		a.reg[out.op] = r1;
		a.reg[in.op] = r0;
		instance(c, b, cap, k, &a);
		m->per_iter = 2;
		if (c->p->idiom == IKM_IDIOM_MOVE)
			m->note = "move elimination may make this 0";
		return;
	}
	if (i->file == o->file) {
		/* A fixed register on either side: a move connects them, measured alone and subtracted. */
		if (!i->fixed)
			a.reg[in.op] = c->pool[i->file][0];
		if (!o->fixed)
			a.reg[out.op] = c->pool[i->file][i->fixed ? 0 : 1];
		k = instance(c, b, cap, k, &a);
		snprintf(line, sizeof(line), move_text(c, i->file), full_name(c, i->file, a.reg[in.op], n1, sizeof(n1)),
			 full_name(c, o->file, a.reg[out.op], n2, sizeof(n2)));
		str_appendf(b, cap, k, "%s\n", line);
		m->sub[0] = (int8_t)connector_move(c, i->file);
		m->via = "a register copy (or, a shuffle: measured alone, subtracted)";
		return;
	}
	/* Two files: a move from the output's file to the input's, which cannot be measured alone. */
	if (!i->fixed)
		a.reg[in.op] = c->pool[i->file][0];
	if (!o->fixed)
		a.reg[out.op] = c->pool[o->file][0];
	if (!cross(c, o->file, i->file, a.reg[out.op], a.reg[in.op], line, sizeof(line))) {
		c->p->n--;
		note_skip(c, from, tname, "no connecting instruction between these register files");
		return;
	}
	k = instance(c, b, cap, k, &a);
	str_appendf(b, cap, k, "%s\n", line);
	counted_least(m, 1, "a move between register files (" LEAST_ONE ")");
}

/* Independent instances: each written register its own per instance, memory one line apart. */
static size_t rotated(const struct ctx *c, char *buf, size_t cap, bool same_reg, const char *before, size_t limit)
{
	size_t per = 0, k = 0, n;
	size_t need[RF_MEM] = { 0 };
	struct assign a;

	for (size_t q = 0; q < c->nop; q++)
		if (!c->op[q].fixed && c->op[q].file > RF_NONE && c->op[q].file < RF_MEM &&
		    (is_out(&c->op[q]) || same_reg))
			need[c->op[q].file]++;
	size_t most = limit;
	for (int f = RF_GPR; f < RF_MEM; f++) {
		/* Read-only operands keep their registers at the end of the pool. */
		/* defaults() gives every operand a register from the end of the pool (and the general pool's last
		 * to an address-only operand's index): rotation stays below them. */
		size_t ro = f == RF_GPR;
		for (size_t q = 0; q < c->nop; q++)
			ro += (c->op[q].file == f || (f == RF_GPR && c->op[q].addr_only)) && !c->op[q].fixed;
		if (need[f] && (c->npool[f] - ro) / need[f] < most)
			most = (c->npool[f] - ro) / need[f];
	}
	defaults(c, &a);
	for (n = 0; n < most; n++) {
		size_t used[RF_MEM] = { 0 };
		int first = -1;
		for (size_t q = 0; q < c->nop; q++) {
			const struct opnd *o = &c->op[q];
			if (o->fixed || o->file == RF_NONE || o->file == RF_MEM || !(is_out(o) || same_reg))
				continue;
			int r = c->pool[o->file][n * need[o->file] + used[o->file]++];
			if (same_reg && first >= 0)
				r = first; /* one register for every operand: xor rax, rax */
			a.reg[q] = first = r;
		}
		a.off = (int)n * MEM_STRIDE;
		if (before)
			k = str_appendf(buf, cap, k, "%s", before);
		k = instance(c, buf, cap, k, &a);
		per++;
	}
	return per;
}

/*
 * Whether o is a fixed register the form reads that it also writes, as itself or as a part or a whole of it
 * (MUL r64's rax; MUL r8 reads al and writes ax, CBW al and ax): every instance then waits for the last.
 */
static bool chained(const struct ctx *c, const struct opnd *o)
{
	if (!o->fixed || !is_in(o))
		return false;
	for (size_t q = 0; q < c->nop; q++)
		if (c->op[q].fixed && is_out(&c->op[q]) && c->op[q].file == o->file &&
		    c->op[q].fixed_reg == o->fixed_reg)
			return true;
	return false;
}

/* A divide's dividend half `reg` (rax or rdx) given its starting value again, by an instruction with no input. */
static size_t divide_reset(const struct ctx *c, char *buf, size_t cap, size_t k, int reg)
{
	if (reg == GPR_RDX)
		return str_appendf(buf, cap, k, "xor edx, edx\n");
	return str_appendf(buf, cap, k, "mov rax, 0x%llx\n", (unsigned long long)divide_rax(c));
}

/* A chained fixed general register given the value init gave it again, by an instruction with no input. */
static size_t reset_fixed(const struct ctx *c, char *buf, size_t cap, size_t k, int reg)
{
	if (c->divide && (reg == GPR_RDX || reg == GPR_RAX))
		return divide_reset(c, buf, cap, k, reg);
	return str_appendf(buf, cap, k, "mov %s, %d\n", ikm_gpr_names[2][reg], IKM_GPR_START);
}

/* `xor t, src` twice (full registers): t keeps its value yet waits for src. */
static size_t xor_back(char *buf, size_t cap, size_t k, int t, int src)
{
	for (int n = 0; n < 2; n++)
		k = str_appendf(buf, cap, k, "xor %s, %s\n", ikm_gpr_names[3][t], ikm_gpr_names[3][src]);
	return k;
}

/* The plan's `xor r64, r64` chain (the register written also read): a divide's connector. */
static int connector_xor(struct ctx *c)
{
	struct ikm *m;
	int at = connector_slot(c, "conn_xor_gpr", &m);
	if (m) {
		snprintf(m->body, sizeof(m->body), "xor %s, %s\n", ikm_gpr_names[3][c->pool[RF_GPR][0]],
			 ikm_gpr_names[3][c->pool[RF_GPR][1]]);
		m->note = "two registers: not the zeroing idiom";
	}
	return at;
}

/*
 * A divide's pair between two operands: the divisor (or its memory, or its address) to the quotient or the
 * remainder, one half of the dividend to the other.  The output cannot be handed to the input as it is: a
 * quotient for a divisor or a remainder for a dividend changes the values, and with them the time (or
 * raises #DE).  `xor in, out` twice leaves the input's value as it was yet makes it wait for the output, so
 * every instance divides the same numbers; both XORs are measured alone and subtracted.  An input the
 * divide also writes is set again before them, and the other chained half after them, so that only the
 * pair's path runs from one instance to the next.  The divisor in memory is stored back from a register
 * that holds 1 and took the XORs (store forwarding included: an upper bound); its address is an index
 * that stays 0 (the window holds divisors 1 everywhere).
 */
static void divide_pair(struct ctx *c, struct ikm *m, struct assign *a, struct endpoint in, struct endpoint out,
			size_t ik)
{
	const struct opnd *i = &c->op[in.op], *o = &c->op[out.op];
	const bool memory = i->file == RF_MEM && !in.addr;
	const int t = in.addr || memory ? c->pool[RF_GPR][0] : i->fixed ? i->fixed_reg : a->reg[in.op];
	const int src = o->fixed ? o->fixed_reg : a->reg[out.op];
	char *b = m->body;
	const size_t cap = sizeof(m->body);

	if (in.addr)
		index_at_zero(m, a, ik, t);
	size_t k = instance(c, b, cap, 0, a);
	if (i->fixed && is_out(i))
		k = divide_reset(c, b, cap, k, t);
	k = xor_back(b, cap, k, t, src);
	if (memory)
		k = str_appendf(b, cap, k, "mov %s[rsi], %s\n", ikm_size_word(i->bits),
				ikm_gpr_names[ikm_width_index(i->bits)][t]);
	for (size_t q = 0; q < c->nop; q++)
		if (chained(c, &c->op[q]) && !(i->fixed && c->op[q].fixed_reg == t)) /* the input: reset above */
			k = divide_reset(c, b, cap, k, c->op[q].fixed_reg);
	m->sub[0] = m->sub[1] = (int8_t)connector_xor(c);
	m->bound = memory ? IKM_UPPER : IKM_EXACT;
	m->via = memory ? "xor r64, r64 twice into a register holding 1 (measured alone, subtracted), stored to "
			  "the divisor's memory (store forwarding included)"
			: "xor in, out twice: the input keeps its value (measured alone, subtracted)";
}

/*
 * A load's address -> a result the AND chain cannot take: a fixed register (MUL m64's rax, PCMPISTRI's ecx,
 * which the form also reads or which is not the instance's to index with), one narrower than 32 bits, or
 * one of another file.  The index is a register of its own, 0, that takes the result by `xor` twice (both
 * measured alone and subtracted) and so keeps the address while waiting for the result; a result of
 * another file is moved to a general register first (not measurable alone: counted at its least, an upper
 * bound).  The window keeps the form's own values, and fixed registers the form chains are set again after,
 * so only the address path runs from one instance to the next.  False when no move leaves the file.
 */
static bool address_xor(struct ctx *c, struct ikm *m, struct assign *a, struct endpoint out, size_t ik)
{
	const struct opnd *o = &c->op[out.op];
	const int t = c->pool[RF_GPR][0], tmp = c->pool[RF_GPR][1];
	const int r = o->fixed ? o->fixed_reg : a->reg[out.op];
	char line[64], *b = m->body;
	const size_t cap = sizeof(m->body);
	const bool crossed = o->file != RF_GPR;

	for (size_t q = 0; q < c->nop; q++)
		if (c->op[q].file == RF_GPR && !c->op[q].fixed && (a->reg[q] == t || a->reg[q] == tmp))
			return false; /* the form's own registers reach the pool's first two: none to spare */
	if (crossed && !cross(c, o->file, RF_GPR, r, tmp, line, sizeof(line)))
		return false;
	index_at_zero(m, a, ik, t);
	size_t k = instance(c, b, cap, 0, a);
	if (crossed)
		k = str_appendf(b, cap, k, "%s\n", line);
	k = xor_back(b, cap, k, t, crossed ? tmp : r);
	for (size_t q = 0; q < c->nop; q++)
		if (chained(c, &c->op[q]) && c->op[q].file == RF_GPR)
			k = reset_fixed(c, b, cap, k, c->op[q].fixed_reg);
	m->sub[0] = m->sub[1] = (int8_t)connector_xor(c);
	if (crossed)
		counted_least(m, 1,
			      "a move to a general register (" LEAST_ONE "), then xor r64, r64 twice into the index, "
			      "which stays 0 (measured alone, subtracted)");
	else
		m->via = "xor r64, r64 twice into the index, which stays 0 (measured alone, subtracted)";
	return true;
}

/* The plan's `kxor kA, kA, kB` chain at the write mask's width: the mask pairs' connector. */
static int connector_kxor(struct ctx *c, const char *suffix)
{
	char name[IKM_NAME_MAX];
	snprintf(name, sizeof(name), "conn_kxor%s_k", suffix);
	struct ikm *m;
	int at = connector_slot(c, name, &m), a = c->pool[RF_K][0], b = c->pool[RF_K][1];
	if (m)
		snprintf(m->body, sizeof(m->body), "kxor%s k%d, k%d, k%d\n", suffix, a, a, b);
	return at;
}

/*
 * The write mask -> a result (`VADDPS zmm{k}, zmm, zmm` k1->op1, `VPCMPEQD k{k}, zmm, zmm` k1->op1): the
 * mask takes the result by `kxor k1, k1, kR` twice, which keeps it all ones yet makes it wait (the KXOR
 * chain measured alone and subtracted twice); a vector result becomes a mask first by `vptestmd` at its
 * width (whatever bits it gives cancel), which cannot be measured alone: counted at its least, an upper bound.  A
 * masked store's memory is not chained (a load and a test would stand between).
 */
static void mask_pair(struct ctx *c, int out)
{
	const struct opnd *o = &c->op[out];
	char name[IKM_NAME_MAX], n[16];
	struct assign a;
	unsigned bits = mask_bits(c->f);
	if (o->file == RF_MEM || (o->file != RF_K && o->file != RF_VEC) || !bits || c->npool[RF_K] < 2) {
		note_skip(c, "k1", o->name,
			  o->file == RF_MEM ? "a masked store: the mask is not chained through memory"
			  : !bits	    ? "the mask's width is not known from the iform"
					    : "no connector from this result back to the mask");
		return;
	}
	snprintf(name, sizeof(name), "lat_k1_%s", o->name);
	struct ikm *m = add(c, IKM_LATENCY, name);
	if (!m) {
		note_skip(c, "k1", o->name, "no room for more measurements");
		return;
	}
	snprintf(m->from, sizeof(m->from), "k%d", K_MASK);
	snprintf(m->to, sizeof(m->to), "%s", o->name);
	init_common(c, m->init, sizeof(m->init));
	defaults(c, &a);
	const char *w = k_width_suffix(bits);
	int r = o->fixed ? o->fixed_reg : a.reg[out], kr = r;
	size_t k = instance(c, m->body, sizeof(m->body), 0, &a);
	if (o->file == RF_VEC) {
		/* At the result's own width: an xmm or ymm form's CPU has AVX512VL, and none needs zmm. */
		const char *v = reg_name(o, r, n, sizeof(n));
		kr = c->pool[RF_K][0];
		k = str_appendf(m->body, sizeof(m->body), k, "vptestmd k%d, %s, %s\n", kr, v, v);
		counted_least(m, 1,
			      "vptestmd k, v, v (" LEAST_ONE "), then kxor k1, k1, k twice: the mask stays all ones "
			      "(measured alone, subtracted)");
	} else {
		m->via = "kxor k1, k1, k twice: the mask stays all ones (measured alone, subtracted)";
	}
	for (int i = 0; i < 2; i++)
		k = str_appendf(m->body, sizeof(m->body), k, "kxor%s k%d, k%d, k%d\n", w, K_MASK, K_MASK, kr);
	m->sub[0] = m->sub[1] = (int8_t)connector_kxor(c, w);
}

/*
 * What breaks the chain throughput() names: before each instance, a fixed general register the form reads and
 * writes gets the value init gave it again (`mov eax, 1`; DIV's dividend, `xor edx, edx`), and flags it reads
 * and writes are set by `test` of a register no instance writes (CF, OF 0).  Both have no input from an
 * earlier instance, so the instances are independent and the figure is their throughput with the resets
 * included, not subtracted (they run beside the form on other ports where they can); uops.info's pages
 * likewise show such forms measured "with additional dependency-breaking instructions".  False when some
 * chained register is not a general one (nothing resets it here): then there is no such kernel.
 */
static bool breakers(const struct ctx *c, char *buf, size_t cap)
{
	size_t k = 0;
	buf[0] = 0;
	for (size_t q = 0; q < c->nop; q++) {
		const struct opnd *o = &c->op[q];
		if (!chained(c, o))
			continue;
		if (o->file != RF_GPR)
			return false;
		k = reset_fixed(c, buf, cap, k, o->fixed_reg);
	}
	if (c->f->flags_read & c->f->flags_written) {
		const char *r = ikm_gpr_names[3][c->pool[RF_GPR][c->npool[RF_GPR] - 1]];
		k = str_appendf(buf, cap, k, "test %s, %s\n", r, r);
	}
	return k > 0 && k + 1 < cap;
}

/* The unrolled throughput with the chain broken (breakers above), beside the chained u; k: p->chain's length. */
static void broken(struct ctx *c, const struct ikm *u, size_t k)
{
	char before[160];
	if (!breakers(c, before, sizeof(before)))
		return;
	struct ikm *b = add(c, IKM_TP_BROKEN, "tp_broken");
	if (!b)
		return;
	init_common(c, b->init, sizeof(b->init));
	b->per_iter = (uint16_t)rotated(c, b->body, sizeof(b->body), false, before, TP_MAX);
	if (b->per_iter != u->per_iter || strlen(b->body) + 1 >= sizeof(b->body)) {
		c->p->n--; /* the body did not fit: no such kernel */
		return;
	}
	b->unroll = u->unroll;
	k = str_appendf(c->p->chain, sizeof(c->p->chain), k, "; broken by");
	for (const char *s = before, *e; (e = strchr(s, '\n')) != NULL; s = e + 1)
		k = str_appendf(c->p->chain, sizeof(c->p->chain), k, "%s%.*s", s == before ? " " : "; ", (int)(e - s),
				s);
	str_appendf(c->p->chain, sizeof(c->p->chain), k, " before each instance (included)");
}

static void throughput(struct ctx *c)
{
	struct ikm *u = add(c, IKM_TP_UNROLLED, "tp_unrolled");
	if (!u)
		return;
	init_common(c, u->init, sizeof(u->init));
	u->per_iter = (uint16_t)rotated(c, u->body, sizeof(u->body), false, NULL, TP_MAX);
	if (!u->per_iter) {
		c->p->n--;
		return;
	}
	u->unroll = (uint16_t)((TP_INSTANCES_UNROLLED + u->per_iter - 1) / u->per_iter);
	struct ikm *l = ikm_plan_loop(c->p, u);
	if (!l)
		return;
	if (c->short_trips) {
		/* One trip of SHORT_TRIP instances, each on registers of its own (length_changing_prefix). */
		l->per_iter = (uint16_t)rotated(c, l->body, sizeof(l->body), false, NULL, SHORT_TRIP);
		l->note = SHORT_TRIP_NOTE;
	}
	/* What chains the instances whatever the registers: fixed registers read and written, the flags. */
	size_t k = 0;
	for (size_t q = 0; q < c->nop; q++)
		if (chained(c, &c->op[q]))
			k = str_appendf(c->p->chain, sizeof(c->p->chain), k, "%s%s", k ? ", " : "", c->op[q].name);
	if ((c->f->flags_read & c->f->flags_written) != 0)
		k = str_appendf(c->p->chain, sizeof(c->p->chain), k, "%sflags", k ? ", " : "");
	if (k)
		k = str_appendf(c->p->chain, sizeof(c->p->chain), k, " read and written by every instance");
	if (k)
		broken(c, u, k);
}

/*
 * Whether the form's encoding has a length-changing prefix: the operand-size prefix 66H that makes a
 * 32-bit immediate a 16-bit one (Intel 64 and IA-32 Architectures Optimization Reference Manual,
 * "Length-Changing Prefixes (LCP)").  The legacy decoders stall on each such instruction, and a long
 * straight run of them measures the stalls: on the development host a chain of `add bx, 0x1234` ran at
 * 3.2 cycles a link as 8 or more copies a trip and at 1.00 as 4 or fewer (`add ax, 0x1234`, a byte
 * shorter, up to 8), which the core delivers from its loop buffer or µop cache without decoding them again
 * (so did ADD, SUB, AND, CMP and TEST r16, imm16; OR, XOR, ADC and SBB did not stall).
 */
static bool length_changing_prefix(const struct ctx *c)
{
	bool imm16 = false, size16 = false;
	for (size_t q = 0; q < c->nop; q++) {
		imm16 = imm16 || c->op[q].kind == IK_IMM16;
		size16 = size16 || ((c->op[q].file == RF_GPR || c->op[q].file == RF_MEM) && c->op[q].bits == 16);
	}
	return imm16 && size16;
}

/* Lines of a kernel body: its instructions. */
static size_t body_lines(const char *body)
{
	size_t n = 0;
	for (const char *s = body; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * A form with a length-changing prefix runs its latency kernels in trips of at most SHORT_TRIP instructions:
 * fewer copies of each body (throughput() gives its loop SHORT_TRIP instances; the unrolled throughput keeps
 * its long run, the front end's cost in straight-line code, and the lower of the two is reported).
 */
static void short_latency_trips(struct ctx *c)
{
	for (size_t j = 0; j < c->p->n; j++) {
		struct ikm *m = &c->p->m[j];
		size_t lines = body_lines(m->body);
		if (m->kind == IKM_LATENCY && lines && lines <= SHORT_TRIP) {
			m->unroll = (uint16_t)(SHORT_TRIP / lines);
			if (!m->note)
				m->note = SHORT_TRIP_NOTE;
		}
	}
}

/*
 * Whether the form can name one register in two of its operands, which a zero or all-ones idiom is: no
 * memory operand and two explicit registers at least.  `SUB r64, imm32` or `XOR r64, m64` cannot, and
 * were labelled "zero idiom" by their mnemonic with nothing to show for it (364 forms of a full table).
 */
static bool same_register_possible(const struct ctx *c)
{
	size_t regs = 0;
	for (size_t q = 0; q < c->nop; q++) {
		if (c->op[q].file == RF_MEM)
			return false;
		regs += !c->op[q].implicit && !c->op[q].fixed && c->op[q].file != RF_NONE;
	}
	return regs >= 2;
}

/* The same-register kernels of a zero or all-ones idiom (the plan names one only where same_register_possible). */
static void idiom(struct ctx *c)
{
	struct ikm *l = add(c, IKM_IDIOM_LATENCY, "idiom_lat");
	if (!l)
		return;
	init_common(c, l->init, sizeof(l->init));
	struct assign a;
	defaults(c, &a);
	for (size_t q = 0; q < c->nop; q++)
		if (!c->op[q].fixed && c->op[q].file > RF_NONE && c->op[q].file < RF_MEM)
			a.reg[q] = c->pool[c->op[q].file][0];
	instance(c, l->body, sizeof(l->body), 0, &a);
	l->unroll = IDIOM_UNROLL;
	snprintf(l->from, sizeof(l->from), "op1");
	snprintf(l->to, sizeof(l->to), "op1");
	l->note = c->p->idiom == IKM_IDIOM_ZERO
			  ? "same register: a zero idiom, no dependency where the core knows it"
			  : "same register: an all-ones idiom, no dependency where the core knows it";
	struct ikm *t = add(c, IKM_IDIOM_TP, "idiom_tp");
	if (!t)
		return;
	init_common(c, t->init, sizeof(t->init));
	t->per_iter = (uint16_t)rotated(c, t->body, sizeof(t->body), true, NULL, TP_MAX);
	t->unroll = (uint16_t)((TP_INSTANCES_UNROLLED + t->per_iter - 1) / (t->per_iter ? t->per_iter : 1));
	t->note = l->note;
}

static const char *encoding_hint(const struct ctx *c)
{
	size_t regs = 0;
	for (size_t q = 0; q < c->nop; q++) {
		if (c->op[q].file == RF_MEM)
			return "";
		regs += !c->op[q].implicit && c->op[q].file != RF_NONE;
	}
	const char *s = c->f->iform ? c->f->iform : "";
	size_t n = strlen(s);
	bool vec = c->op[0].file != RF_GPR;
	const struct encoding *e = vec ? VEC_ENCODINGS : GPR_ENCODINGS;
	size_t ne = vec ? ARRAY_SIZE(VEC_ENCODINGS) : ARRAY_SIZE(GPR_ENCODINGS);
	for (size_t i = 0; regs >= 2 && i < ne; i++) {
		/* Vector iforms end in _0F28 (legacy) or _28 (VEX): the byte after "_" or "_0F". */
		size_t m = strlen(e[i].suffix);
		const char *tail = s + (n > m ? n - m : 0);
		bool under = vec ? (n > m && (tail[-1] == '_' || (n > m + 2 && !strncmp(tail - 3, "_0F", 3)))) : n > m;
		if (under && !strcmp(tail, e[i].suffix))
			return e[i].hint;
	}
	return "";
}

bool instr_plan_build(const struct instr_form *f, struct instr_plan *p)
{
	static struct ctx c; /* large; the image builds one plan at a time */

	memset(p, 0, sizeof(*p));
	memset(&c, 0, sizeof(c));
	p->f = f;
	c.f = f;
	c.p = p;
	if (f->excluded) {
		snprintf(p->why, sizeof(p->why), "excluded: %s", f->excluded);
		return false;
	}
	if (!f->mnemonic || !f->mnemonic[0]) {
		snprintf(p->why, sizeof(p->why), "the form has no mnemonic");
		return false;
	}
	if (ikm_is_x87(f))
		return ikm_x87_build(f, p);
	if (ikm_is_stack(f))
		return ikm_stack_build(f, p);
	if (ikm_is_string(f))
		return ikm_string_build(f, p);
	if (ikm_is_vsib(f))
		return ikm_vsib_build(f, p);
	if (!read_operands(&c))
		return false;
	const char *ext = f->extension ? f->extension : "";
	c.evex = starts(ext, "AVX512") || (f->attrs & (IFA_MASK | IFA_ZEROING | IFA_BCAST | IFA_ROUNDING | IFA_SAE));
	for (size_t q = 0; q < c.nop; q++)
		c.evex = c.evex || c.op[q].kind == IK_ZMM || c.op[q].file == RF_K;
	c.vex = !c.evex && (f->mnemonic[0] == 'v' || c.vec_bits >= 256);
	c.divide = in_list(f->mnemonic, INT_DIVIDES, ARRAY_SIZE(INT_DIVIDES));
	c.selector = in_list(f->mnemonic, ECX_SELECTS, ARRAY_SIZE(ECX_SELECTS));
	c.fp_data = c.vec_bits > 0;
	c.fp_double = c.fp_data && fp_double_form(f->mnemonic);
	bool twice = same_register_possible(&c);
	if (twice && in_list(f->mnemonic, ZERO_IDIOMS, ARRAY_SIZE(ZERO_IDIOMS)))
		p->idiom = IKM_IDIOM_ZERO;
	else if (twice && in_list(f->mnemonic, ONES_IDIOMS, ARRAY_SIZE(ONES_IDIOMS)))
		p->idiom = IKM_IDIOM_ONES;
	else if (in_list(f->mnemonic, MOVES, ARRAY_SIZE(MOVES)) && c.nop >= 2 && c.op[0].file == c.op[1].file &&
		 c.op[0].file != RF_MEM)
		p->idiom = IKM_IDIOM_MOVE; /* register to register within one file: what renaming can eliminate */
	unsigned raw_op;
	int raw_reg;
	const char *iform = f->iform ? f->iform : "";
	if (starts(iform, "NOP_") && f->n_explicit && !raw_nop(&c, &raw_op, &raw_reg) &&
	    !(strlen(iform) > 5 && !strcmp(iform + strlen(iform) - 5, "_0F1F"))) {
		snprintf(p->why, sizeof(p->why),
			 "a reserved-NOP encoding (%s) the byte encoder does not know: GNU as writes `nop r/m` "
			 "only as 0F 1F /0",
			 iform);
		return false;
	}
	make_pools(&c);
	if (c.npool[RF_GPR] < 4) {
		snprintf(p->why, sizeof(p->why), "too few general registers left to rotate");
		return false;
	}
	c.hint = encoding_hint(&c);
	for (size_t i = 0; i < ARRAY_SIZE(RESPELL); i++) {
		if (!f->iform || strcmp(f->iform, RESPELL[i].iform) || c.op[RESPELL[i].op].bits != RESPELL[i].bits)
			continue;
		c.hint = RESPELL[i].hint;
		for (size_t q = 0; q < c.nop; q++)
			if (!c.op[q].implicit && (c.op[q].file == RF_GPR || c.op[q].file == RF_MEM))
				c.op[q].bits = RESPELL[i].as_bits;
	}
	if (c.seg_read) {
		for (size_t q = 0; q < c.nop; q++)
			if (c.op[q].file == RF_GPR && c.op[q].bits == 64 && is_out(&c.op[q]))
				c.hint = REX_W_HINT;
		note_skip(&c, SEG_READ, "op1",
			  "a segment register cannot be written in the loop (writes to segment registers are "
			  "excluded): not chained");
	}
	const struct lane *lane = &LANES[c.fp_double];
	char fill_text[40];
	snprintf(fill_text, sizeof(fill_text), "0x%016llx per qword", (unsigned long long)lane->fill);
	if (c.divide)
		snprintf(p->values, sizeof(p->values),
			 "dividend rdx:rax = 0 : the largest positive value of the width, "
			 "divisors 1 (memory: 1)");
	else
		snprintf(p->values, sizeof(p->values),
			 "general registers %u, cl %u, imm8 %u, imm16 0x%x, imm32 0x%x, vector lanes 0x%0*llx (%s), "
			 "memory %s",
			 IKM_GPR_START, IKM_GPR_START, IKM_IMM8, IKM_IMM16, IKM_IMM32, lane->bits == 64 ? 16 : 8,
			 (unsigned long long)(lane->fill & (~0ull >> (64 - lane->bits))), lane->name,
			 c.fp_data ? fill_text : "0");
	if (c.seg_read || c.selector)
		str_appendf(p->values, sizeof(p->values), strlen(p->values), "; %s",
			    c.seg_read ? "the segment register read: " SEG_READ
				       : "ecx 0 (it selects what is read: XCR0, counter 0, PKRU)");

	c.short_trips = length_changing_prefix(&c);
	/* Latency: every input that can be chained to every output. */
	for (size_t q = 0; q < c.nop; q++) {
		const struct opnd *i = &c.op[q];
		if (i->file == RF_NONE || (!is_in(i) && !i->addr_only))
			continue;
		for (size_t r = 0; r < c.nop; r++) {
			const struct opnd *o = &c.op[r];
			if (!is_out(o) || o->file == RF_NONE || (o->file == RF_MEM && i->file == RF_MEM && r != q))
				continue;
			if (!i->addr_only)
				pair(&c, (struct endpoint){ (int)q, false }, (struct endpoint){ (int)r, false });
			/* A load's (or LEA's) address registers -> each register result. */
			if (i->file == RF_MEM && !is_out(i) && o->file != RF_MEM)
				pair(&c, (struct endpoint){ (int)q, true }, (struct endpoint){ (int)r, false });
		}
		if (f->flags_written && i->file != RF_MEM)
			pair(&c, (struct endpoint){ (int)q, false }, (struct endpoint){ EP_FLAGS, false });
	}
	if (f->flags_read) {
		for (size_t r = 0; r < c.nop; r++)
			if (is_out(&c.op[r]) && c.op[r].file != RF_NONE && c.op[r].file != RF_MEM)
				pair(&c, (struct endpoint){ EP_FLAGS, false }, (struct endpoint){ (int)r, false });
		if (f->flags_written)
			pair(&c, (struct endpoint){ EP_FLAGS, false }, (struct endpoint){ EP_FLAGS, false });
	}
	if (f->attrs & IFA_MASK)
		for (size_t r = 0; r < c.nop; r++)
			if (is_out(&c.op[r]) && c.op[r].file != RF_NONE)
				mask_pair(&c, (int)r);
	throughput(&c);
	if (p->idiom == IKM_IDIOM_ZERO || p->idiom == IKM_IDIOM_ONES)
		idiom(&c);
	if (c.short_trips)
		short_latency_trips(&c);
	if (!p->n)
		str_appendf(p->why, sizeof(p->why), 0, "no measurement could be built%s%s", p->skipped[0] ? ": " : "",
			    p->skipped);
	return p->n > 0;
}

const char *ikm_kind_name(enum ikm_kind k)
{
	static const char *const NAMES[] = { "latency",	      "throughput_unrolled", "throughput_loop",	 "connector",
					     "idiom_latency", "idiom_throughput",    "throughput_broken" };
	return (unsigned)k < ARRAY_SIZE(NAMES) ? NAMES[k] : "?";
}
