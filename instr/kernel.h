/*
 * instr/kernel.h - the kernels that measure one instruction form (issue 31; docs/instr.md, "Measuring").
 *
 * From a form of the catalogue (instr/catalogue.h) instr_plan_build derives every measurement the form
 * gets, each as assembly text (GNU as, Intel syntax without register prefixes: `as --64
 * -msyntax=intel -mnaked-reg`) for a user kernel (docs/kernels.md: an init run once, a body run
 * unrolled in the harness's loop) and what turns the body's cycles into the figure:
 *   latency     one pair (input operand -> output operand), the output fed back into the input: by
 *               using one register for both, by alternating two registers (two instances per body), or
 *               through a connecting instruction (`via`) whose own chain is a measurement of the plan
 *               (subtracted) or cannot be measured alone (then the figure is an upper bound);
 *   throughput  independent instances, registers rotated, as a long unrolled block and as a short loop;
 *   connector   a connecting instruction's own chain, to subtract;
 *   idiom       a same-register idiom (zeroing xor, all-ones pcmpeq) as it occurs: its chain and its
 *               rotated throughput, labelled.
 * Per measurement: cycles per body copy / per_iter - the cycles of the `sub` measurements (each once
 * per instance) - one cycle for each of the `least` connecting instructions that cannot be measured
 * alone.  Registers follow the harness's contract: rsi is the scratch window (every memory
 * operand is [rsi+...], inside its first 4 KiB), rdi and rsp are never named, rdx is free.
 *
 * Portable C over lib/ only, compiled host-only for now (instr/kernel_host.c): the image links every
 * object it is given and has no room for it (about 7 KiB of .text) until it measures forms itself; then
 * the file keeps its code and loses the suffix.
 */
#ifndef PMUBOOT_INSTR_KERNEL_H
#define PMUBOOT_INSTR_KERNEL_H

#include "instr/catalogue.h"

#define IKM_MAX 24 /* measurements per form */
#define IKM_NAME_MAX 40
#define IKM_OPNAME_MAX 12 /* "op3.addr", "flags", "rax" */
#define IKM_INIT_MAX 2048 /* assembly text of an init */
#define IKM_BODY_MAX 2048 /* assembly text of a body */
#define IKM_SUB_MAX 2
#define IKM_NO_SUB (-1)

enum ikm_kind {
	IKM_LATENCY,
	IKM_TP_UNROLLED,   /* throughput, a long straight run of instances */
	IKM_TP_LOOP,	   /* throughput, a few instances in the harness's loop */
	IKM_CONNECTOR,	   /* a connecting instruction's own latency, subtracted from latencies */
	IKM_IDIOM_LATENCY, /* the same-register idiom's chain */
	IKM_IDIOM_TP,	   /* the same-register idiom, rotated */
	IKM_TP_BROKEN,	   /* throughput, unrolled, a reset before each instance breaking the chain it cannot avoid */
};

enum ikm_bound {
	IKM_EXACT, /* the figure is the pair's latency (connectors subtracted) */
	IKM_UPPER, /* at most this: a connector that cannot be measured alone is included, or counted at its least */
};

/*
 * A connecting instruction that cannot be measured alone (a move between register files, TEST or SBB
 * between the flags and a register) still takes at least one cycle on the chain: every instruction that
 * executes does, and none of these is a move the renamer eliminates.  A figure that subtracts that cycle for
 * each of them (struct ikm `least`) is a tighter upper bound than the round trip, and the one uops.info
 * publishes for such pairs (nanoBench's cpuBench.py counts an unmeasured chain instruction as 1 cycle and
 * marks the result an upper bound).
 */
#define IKM_LEAST_MILLI 1000
#define IKM_LEAST_MAX 2 /* connecting instructions counted so per instance: a move and a TEST or SBB */

struct ikm {
	uint8_t kind;		 /* enum ikm_kind */
	uint8_t bound;		 /* enum ikm_bound */
	uint8_t least;		 /* IKM_UPPER: connecting instructions counted at IKM_LEAST_MILLI each, subtracted */
	uint16_t per_iter;	 /* instances of the form per body copy: divide by this */
	uint16_t unroll;	 /* body copies the harness places (docs/kernels.md `unroll`) */
	int8_t sub[IKM_SUB_MAX]; /* plan indices of connectors subtracted once per instance; IKM_NO_SUB */
	uint64_t fill;		 /* every 8 bytes of the scratch window hold this before the kernel runs */
	char from[IKM_OPNAME_MAX], to[IKM_OPNAME_MAX]; /* latency: operand names; else "" */
	char name[IKM_NAME_MAX];		       /* unique within the plan; a connector's is unique in a run */
	const char *via;			       /* the connecting instruction(s) (text), or NULL */
	const char *note;			       /* what to know about the figure, or NULL */
	char init[IKM_INIT_MAX];		       /* assembly, lines ending in '\n' */
	char body[IKM_BODY_MAX];
};

/* What the form is, for the labels of its figures. */
enum ikm_idiom {
	IKM_IDIOM_NONE,
	IKM_IDIOM_ZERO, /* same-register form gives zero whatever the input (xor r, r) */
	IKM_IDIOM_ONES, /* same-register form gives all ones (pcmpeqd x, x) */
	IKM_IDIOM_MOVE, /* a register-to-register move: the core may eliminate it (renaming) */
};

#define IKP_TEXT_MAX 512

struct instr_plan {
	const struct instr_form *f;
	struct ikm m[IKM_MAX];
	size_t n;
	uint8_t idiom;		    /* enum ikm_idiom */
	char values[IKP_TEXT_MAX];  /* the operand values the kernels start from */
	char chain[IKP_TEXT_MAX];   /* what forces a chain between throughput instances ("" none) */
	char skipped[IKP_TEXT_MAX]; /* pairs not measured and why ("" none) */
	char why[IKP_TEXT_MAX];	    /* why nothing can be built ("" when n > 0) */
};

/* Every measurement of form f into p (p->n of them).  False, with p->why, when none can be built. */
bool instr_plan_build(const struct instr_form *f, struct instr_plan *p);

/* A new measurement at the end of p (per_iter 1, the latency unroll, no connector), or NULL when p is full. */
struct ikm *ikm_plan_add(struct instr_plan *p, enum ikm_kind kind, const char *name);
/* The loop twin of an unrolled throughput measurement (one body per trip), added to p; NULL when p is full. */
struct ikm *ikm_plan_loop(struct instr_plan *p, const struct ikm *unrolled);
/*
 * Throughput measured less what the kernel needs around the form: an unrolled run and a loop of `body` (init
 * `init`, every 8 bytes of the window `fill`, per_iter instances a copy), each less its connector, the same
 * kernel with `bare` as its body (measured alone, named conn_name and conn_name + "_loop", its via
 * conn_via).  Only where instances stay independent: the connector's cost is subtracted once per instance.
 * False when p has no room for the four measurements.
 */
bool ikm_plan_tp_less(struct instr_plan *p, const char *init, uint64_t fill, const char *body, const char *bare,
		      uint16_t per_iter, const char *conn_name, const char *conn_via);
/* "dword ptr " for 32 bits...: the size of a memory operand as GNU as's Intel syntax writes it ("" unknown). */
const char *ikm_size_word(unsigned bits);

/* General register r (0 rax .. 15 r15, as encoded: SDM Vol. 2A Table 2-2) at width_index 0..3 (8, 16, 32, 64
 * bits): "al", "ax", "eax", "rax". */
extern const char *const ikm_gpr_names[4][16];
/* 0..3 for 8, 16, 32, 64 bits: the row of ikm_gpr_names. */
int ikm_width_index(unsigned bits);

/* The values every kernel starts from (docs/instr.md "Values"): general registers 1 (a shift by cl shifts, a
 * divisor divides), immediates too wide for the next shorter encoding so the assembler keeps the form's own
 * (ADD r64, imm32 stays 81 /0, not the imm8 form 83 /0; SDM Vol. 2A ADD), imm8 3 (not 1: assemblers pick the
 * shift-by-1 encoding for 1). */
#define IKM_GPR_START 1
#define IKM_IMM8 3u
#define IKM_IMM16 0x123u
#define IKM_IMM32 0x12345u

/* "latency", "throughput_unrolled", ... */
const char *ikm_kind_name(enum ikm_kind k);
/* "zero idiom", "ones idiom", "move elimination", or NULL. */
const char *ikm_idiom_name(enum ikm_idiom i);

#endif
