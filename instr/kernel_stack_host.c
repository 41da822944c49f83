/*
 * instr/kernel_stack_host.c - the kernels of PUSH, POP, PUSHF and ENTER; see kernel_stack.h.
 *
 * A loop of pushes alone runs off the stack (it did, before these kernels: docs/instr.md).  So every
 * instance is a balanced pair: a PUSH form is followed by `pop r` of its slot's width (16 or 64 bits:
 * SDM Vol. 2B PUSH, "the operand size ... determines the amount by which the stack pointer is
 * decremented"), a POP form is preceded by `push r`, ENTER is followed by LEAVE.  RSP is back where the
 * body found it after each instance, and nothing above it is written: the harness's frame and its return
 * address (bench/uk_frame.asm) stay as they are.  The pair is the instance: its figures are cycles per
 * pair, and the record names the other half (each latency's `via`, the throughput's `chain`).
 *
 * Latency: the pair's round trip, a value into the stack slot and back (PUSH r64 op1->stack is `push rbx`
 * / `pop rbx`; POP r64 stack->op1 is the same pair seen from the other half), an upper bound that includes
 * the other half and the store forwarding between them.  PUSHF: flags->stack through `pop r` and `test r,
 * r`.  ENTER: rbp->rbp through LEAVE, which loads rbp back from the slot ENTER pushed it to.  An immediate
 * has nothing to chain, nor a segment register (writing one in the loop is excluded).
 */
#include "instr/kernel_stack.h"
#include "lib/strbuf.h"

/* The prefix of XED's stack pseudo-registers (stackpush, stackpop: datafiles/xed-regs.txt). */
#define STACK_PUSH "stackpush"
#define STACK_POP "stackpop"
#define GPR_RAX 0
#define GPR_RBX 3
#define GPR_RBP 5
#define STACK_TP_INSTANCES 512 /* pairs in the unrolled throughput run */
#define MEM_STRIDE 64	       /* memory operands one line apart, as the other kernels */

/* The ModRM encodings of PUSH r and POP r (SDM Vol. 2B PUSH: FF /6; POP: 8F /0), written as bytes: GNU
 * as writes `push r` and `pop r` only as 50+r and 58+r.  XED's iforms end in the opcode (PUSH_GPRv_FFr6,
 * POP_GPRv_8F). */
#define IFORM_PUSH_RM "_FFr6"
#define IFORM_POP_RM "_8F"
#define OPC_PUSH_RM 0xffu
#define PUSH_RM_REG 6u
#define OPC_POP_RM 0x8fu
#define POP_RM_REG 0u
#define MODRM_DIRECT 0xc0u  /* mod 11: rm is a register */
#define OPSIZE_PREFIX 0x66u /* 16-bit operand size */
#define REX_B 0x41u	    /* REX with B: rm is r8-r15 */

/* The registers the other halves of throughput pairs write, rotated (every one starts at 1). */
static const uint8_t ROTATE[] = { 3, 1, 8, 9, 10, 11, 12, 13 }; /* rbx rcx r8 .. r13 */

enum stack_role { SR_PUSH, SR_POP, SR_ENTER };

struct stk {
	const struct instr_form *f;
	struct instr_plan *p;
	enum stack_role role;
	const struct instr_operand *x; /* the operand pushed or popped, or NULL (PUSHF) */
	unsigned slot;		       /* the slot's bits: 16 or 64 */
	bool raw;		       /* a register operand in its ModRM encoding */
};

static bool ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static const struct instr_operand *stack_slot(const struct instr_form *f)
{
	for (size_t i = 0; i < f->n_ops; i++)
		if (f->ops[i].kind == IK_FIXED && f->ops[i].reg &&
		    (!strcmp(f->ops[i].reg, STACK_PUSH) || !strcmp(f->ops[i].reg, STACK_POP)))
			return &f->ops[i];
	return NULL;
}

bool ikm_is_stack(const struct instr_form *f) { return stack_slot(f) != NULL; }

static const char *gpr(const struct stk *s, int r) { return ikm_gpr_names[ikm_width_index(s->slot)][r]; }

/* The form itself: register r, or memory at [rsi+off]. */
static size_t form_text(const struct stk *s, char *b, size_t cap, size_t k, int r, int off)
{
	const struct instr_operand *x = s->x;
	if (s->role == SR_ENTER)
		return str_appendf(b, cap, k, "enter 0x%x, %u\n", IKM_IMM16, IKM_IMM8);
	if (!x) /* PUSHF (66 9C) and PUSHFQ (9C), as GNU as spells them */
		return str_appendf(b, cap, k, "%s\n", s->slot == 16 ? "pushfw" : "pushfq");
	switch (x->kind) {
	case IK_R16:
	case IK_R64:
		if (!s->raw)
			return str_appendf(b, cap, k, "%s %s\n", s->f->mnemonic, gpr(s, r));
		k = str_appendf(b, cap, k, ".byte ");
		if (s->slot == 16)
			k = str_appendf(b, cap, k, "0x%x, ", OPSIZE_PREFIX);
		if (r >= 8)
			k = str_appendf(b, cap, k, "0x%x, ", REX_B);
		return str_appendf(b, cap, k, "0x%x, 0x%x\n", s->role == SR_PUSH ? OPC_PUSH_RM : OPC_POP_RM,
				   MODRM_DIRECT | (s->role == SR_PUSH ? PUSH_RM_REG : POP_RM_REG) << 3 | ((unsigned)r & 7));
	case IK_MEM: return str_appendf(b, cap, k, "%s %s[rsi+%d]\n", s->f->mnemonic, ikm_size_word(x->bits), off);
	case IK_IMM8: return str_appendf(b, cap, k, "push %u\n", IKM_IMM8);
	case IK_IMM16: return str_appendf(b, cap, k, "pushw 0x%x\n", IKM_IMM16);
	case IK_IMM32: return str_appendf(b, cap, k, "push 0x%x\n", IKM_IMM32);
	case IK_SEG: return str_appendf(b, cap, k, "push %s\n", x->reg ? x->reg : "fs");
	default: return str_appendf(b, cap, k, "?\n");
	}
}

/* One pair: the form and its other half; r is the register (or off the memory) the pair moves a value between. */
static size_t pair_text(const struct stk *s, char *b, size_t cap, size_t k, int r, int off, int other)
{
	switch (s->role) {
	case SR_ENTER: return str_appendf(b, cap, form_text(s, b, cap, k, r, off), "leave\n");
	case SR_PUSH: return str_appendf(b, cap, form_text(s, b, cap, k, r, off), "pop %s\n", gpr(s, other));
	default: return form_text(s, b, cap, str_appendf(b, cap, k, "push %s\n", gpr(s, other)), r, off);
	}
}

static void init_text(const struct stk *s, char *b, size_t cap)
{
	size_t k = str_appendf(b, cap, 0, "mov eax, %d\n", IKM_GPR_START);
	for (size_t i = 0; i < ARRAY_SIZE(ROTATE); i++)
		k = str_appendf(b, cap, k, "mov %s, %d\n", ikm_gpr_names[2][ROTATE[i]], IKM_GPR_START);
	/* ENTER's nesting level copies frame pointers from [rbp-8], [rbp-16]: with rbp = rsp they are the slots
	 * ENTER has just pushed (SDM Vol. 2A ENTER, Operation), never memory outside the stack it owns. */
	if (s->role == SR_ENTER)
		str_appendf(b, cap, k, "mov rbp, rsp\n");
}

static bool has_value(const struct stk *s)
{
	return s->role == SR_ENTER || !s->x || s->x->kind == IK_R16 || s->x->kind == IK_R64 || s->x->kind == IK_MEM;
}

static void latency(struct stk *s)
{
	static const char *const OPNAME[] = { "op1", "stack" };
	const struct instr_operand *x = s->x;
	if (!has_value(s)) {
		snprintf(s->p->skipped, sizeof(s->p->skipped), "op1->stack: %s",
			 x->kind == IK_SEG ? "a segment register cannot be written in the loop (such writes are "
					     "excluded): not chained"
					   : "an immediate: nothing to chain");
		return;
	}
	struct ikm *m = ikm_plan_add(s->p, IKM_LATENCY, "lat_pair");
	init_text(s, m->init, sizeof(m->init));
	m->bound = IKM_UPPER;
	m->note = "a store and a reload of one stack slot: store forwarding, or memory renaming where the core "
		  "has it (a figure below 1 cycle says so)";
	bool mem = x && x->kind == IK_MEM;
	if (s->role == SR_ENTER) {
		pair_text(s, m->body, sizeof(m->body), 0, GPR_RBP, 0, GPR_RBP);
		snprintf(m->from, sizeof(m->from), "rbp");
		snprintf(m->to, sizeof(m->to), "rbp");
		snprintf(m->name, sizeof(m->name), "lat_rbp_rbp");
		m->via = "leave (rsp from rbp, then rbp popped from the slot ENTER pushed it to: included)";
		return;
	}
	if (!x) { /* PUSHF: the flags into the slot, back into a register, and into the flags by TEST */
		size_t k = form_text(s, m->body, sizeof(m->body), 0, GPR_RBX, 0);
		str_appendf(m->body, sizeof(m->body), k, "pop %s\ntest %s, %s\n", gpr(s, GPR_RBX), gpr(s, GPR_RBX),
			    gpr(s, GPR_RBX));
		snprintf(m->from, sizeof(m->from), "flags");
		snprintf(m->to, sizeof(m->to), "stack");
		snprintf(m->name, sizeof(m->name), "lat_flags_stack");
		m->via = "pop r and test r, r (the pushed flags back into the flags: included)";
		return;
	}
	/* One register (or one memory operand) on both halves: the value goes into the slot and comes back. */
	if (mem) {
		size_t k = 0;
		if (s->role == SR_POP)
			k = str_appendf(m->body, sizeof(m->body), k, "push %s[rsi]\n", ikm_size_word(x->bits));
		k = form_text(s, m->body, sizeof(m->body), k, GPR_RBX, 0);
		if (s->role == SR_PUSH)
			str_appendf(m->body, sizeof(m->body), k, "pop %s[rsi]\n", ikm_size_word(x->bits));
	} else {
		pair_text(s, m->body, sizeof(m->body), 0, GPR_RBX, 0, GPR_RBX);
	}
	bool push = s->role == SR_PUSH;
	snprintf(m->from, sizeof(m->from), "%s", OPNAME[!push]);
	snprintf(m->to, sizeof(m->to), "%s", OPNAME[push]);
	snprintf(m->name, sizeof(m->name), "lat_%s_%s", m->from, m->to);
	m->via = push ? (mem ? "pop m (the slot back into the operand's memory, the pair's other half: included)"
			     : "pop r (the slot back into the register, the pair's other half: included)")
		      : (mem ? "push m (the operand's memory into the slot, the pair's other half: included)"
			     : "push r (the register into the slot, the pair's other half: included)");
}

static void throughput(struct stk *s)
{
	struct ikm *u = ikm_plan_add(s->p, IKM_TP_UNROLLED, "tp_unrolled");
	init_text(s, u->init, sizeof(u->init));
	size_t k = 0;
	for (size_t i = 0; i < ARRAY_SIZE(ROTATE); i++) {
		/* A PUSH form reads rax and its pop writes a rotated register; a POP form writes the rotated one. */
		int r = s->role == SR_POP ? ROTATE[i] : GPR_RAX;
		int other = s->role == SR_POP ? GPR_RAX : ROTATE[i];
		k = pair_text(s, u->body, sizeof(u->body), k, r, (int)i * MEM_STRIDE, other);
	}
	u->per_iter = ARRAY_SIZE(ROTATE);
	u->unroll = STACK_TP_INSTANCES / ARRAY_SIZE(ROTATE);
	ikm_plan_loop(s->p, u);
}

bool ikm_stack_build(const struct instr_form *f, struct instr_plan *p)
{
	struct stk s = { .f = f, .p = p };
	const struct instr_operand *slot = stack_slot(f);
	if (!slot) {
		snprintf(p->why, sizeof(p->why), "no stack operand");
		return false;
	}
	s.slot = slot->bits == 16 ? 16 : 64;
	s.role = !strcmp(slot->reg, STACK_POP) ? SR_POP : !strcmp(f->mnemonic, "enter") ? SR_ENTER : SR_PUSH;
	for (size_t i = 0; i < f->n_explicit && s.role != SR_ENTER; i++)
		s.x = &f->ops[i];
	if (s.x && !(s.x->kind == IK_R16 || s.x->kind == IK_R64 || s.x->kind == IK_MEM || s.x->kind == IK_IMM8 ||
		     s.x->kind == IK_IMM16 || s.x->kind == IK_IMM32 || s.x->kind == IK_SEG)) {
		snprintf(p->why, sizeof(p->why), "a stack form whose operand the pairing does not handle");
		return false;
	}
	if ((s.x && s.x->kind == IK_SEG && s.role == SR_POP) || (!s.x && s.role == SR_POP)) {
		snprintf(p->why, sizeof(p->why), "pops into a segment register or the flags: not built (writes to them are excluded)");
		return false;
	}
	s.raw = ends(f->iform ? f->iform : "", s.role == SR_PUSH ? IFORM_PUSH_RM : IFORM_POP_RM);
	const char *other = s.role == SR_ENTER ? "leave" : s.role == SR_PUSH ? "pop r" : "push r";
	snprintf(p->values, sizeof(p->values),
		 "general registers %d, memory 0, imm8 %u, imm16 0x%x, imm32 0x%x%s; each instance is the form and "
		 "`%s%s` (the pair puts rsp back)",
		 IKM_GPR_START, IKM_IMM8, IKM_IMM16, IKM_IMM32,
		 s.role == SR_ENTER ? "; ENTER 0x123, 3 with rbp = rsp: the frame pointers its nesting level copies "
				      "are the slots it has just pushed"
				    : "",
		 other, s.role == SR_ENTER ? "" : s.slot == 16 ? "16" : "64");
	latency(&s);
	throughput(&s);
	snprintf(p->chain, sizeof(p->chain), "%s",
		 s.role == SR_ENTER ? "per ENTER/LEAVE pair; rbp and rsp are read and written by every pair, so the "
				      "instances chain"
		 : s.role == SR_PUSH ? "per pair (the form, then pop r into a rotated register); rsp is moved and put "
				       "back by every pair"
				     : "per pair (push r, then the form into a rotated register or its own memory); rsp "
				       "is moved and put back by every pair");
	return p->n > 0;
}
