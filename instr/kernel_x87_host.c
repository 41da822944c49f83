/*
 * instr/kernel_x87_host.c - the kernels of x87 forms; see kernel_x87.h.
 *
 * The x87 registers are a stack of eight (SDM Vol. 1, 8.1.2): an instruction names them relative to the
 * top (TOP), and pushes (FLD, FILD, FLD1...) and pops (FSTP, FADDP, FCOMPP...) move TOP.  Every body copy
 * must leave TOP where it found it, or the loop runs the stack over (a push onto a full register is a
 * masked stack fault that loads the indefinite NaN, SDM Vol. 1, 8.5.1.1).  So each instance of a form
 * that pops is preceded by pushes of constants (`fld1`), and each instance of a form that pushes is
 * followed by `fstp st(0)` (a pop that discards); both are off the chain a latency kernel times and are
 * named where they are in a throughput kernel.  The init starts from FNINIT (every exception masked,
 * 64-bit precision, round to nearest: SDM Vol. 1, 8.1.5 and 8.7) and pushes normal values; the harness's
 * frame saves and restores the x87 state around the kernel (FXSAVE64 / FXRSTOR64, bench/uk_frame.asm).
 *
 * Chains: a destination that is also a source (FADD st0, st(i); FADD st(i), st0; FSQRT) chains with
 * itself; a load through a store back to its memory (FLD m32 then FSTP m32) and a store through a load
 * back (an upper bound, store forwarding included); a register copy (FLD st(i), FST st(i)) through the
 * copy that puts the value back.  Independent instances for throughput: forms that write st0 rotate it
 * with `fxch st(j)` after each instance (FXCH is handled at rename on current cores; it is included and
 * said so), forms that write st(i) use a different i per instance.
 */
#include "instr/kernel_x87.h"
#include "lib/strbuf.h"

#define X87_DEPTH 8	/* the register stack (SDM Vol. 1, 8.1.2) */
#define X87_STRIDE 64	/* memory operands one line apart, as the other kernels (kernel_host.c MEM_STRIDE) */
#define X87_TP_INSTANCES 512 /* instances in the unrolled throughput run */
#define X87_STATUS_PREFIX "x87" /* XED's x87status, x87control, x87tag, x87push, x87pop, x87pop2 */

/* Memory values as the form reads them: 1 in each format (SDM Vol. 1, 4.2.2, 4.7 and 8.2). */
#define REAL32_ONE 0x3f800000u		  /* binary32 1.0 */
#define REAL64_ONE 0x3ff0000000000000ull  /* binary64 1.0 */
#define REAL80_ONE_SIGNIFICAND 0x8000000000000000ull /* double extended 1.0: the explicit integer bit */
#define REAL80_ONE_EXPONENT 0x3fffu	  /* and the biased exponent of 2^0 */
#define X87_INT_ONE 1u			  /* word, dword, qword integer 1; packed BCD 1 is the low byte 01 */

enum x87_mem { XM_NONE, XM_REAL, XM_INT, XM_BCD };

struct x87 {
	const struct instr_form *f;
	struct instr_plan *p;
	int mem, sti;	      /* the explicit memory operand and st(i) operand (not st0), -1: none */
	bool sti_written;     /* st(i) is a destination */
	bool st0_read, st0_written;
	bool st0_explicit;    /* st0 is written in the assembly (FADD st0, st(i)) */
	bool flags_out, flags_in;
	bool mem_written;
	unsigned mem_bits;
	enum x87_mem mem_kind;
	int pushes, pops;     /* per instance (x87push, x87pop, x87pop2) */
	int pre;	      /* pushes before each instance to balance its pops */
	int depth;	      /* registers the init pushes */
};

/* Forms XED lists as writing st0 that only examine it (SDM Vol. 2A FTST, FXAM: they set C0-C3). */
static const char *const EXAMINE_ONLY[] = { "ftst", "fxam" };
/* Forms whose st1 input would drive st0 out of the normal range from 1.0: their st1 (SDM Vol. 2A). */
static const struct {
	const char *mnemonic, *load;
} ST1_VALUE[] = {
	{ "fscale", "fldz" },	/* st0 * 2^trunc(st1): 2^0 keeps st0 at 1.0 */
	{ "fprem", "fldl2e" },	/* remainder of 1.0 by log2(e) = 1.44: 1.0, kept */
	{ "fprem1", "fldl2e" }, /* IEEE remainder: -0.44, kept */
};
/* Forms that pop their st0 input into st1 (y * log2(x), atan(y / x)): x pushed before each instance. */
static const struct {
	const char *mnemonic, *load;
} X_VALUE[] = {
	{ "fyl2x", "fldl2e" },	/* log2(1.44) */
	{ "fpatan", "fldl2e" }, /* atan(1 / 1.44) */
	{ "fyl2xp1", "fldz" },	/* log2(1 + 0): 0 is the one constant inside its domain |x| < 1 - sqrt(2)/2 */
};
/* The store that pops and the load that pushes of each memory format (SDM Vol. 2A FLD, FILD, FBLD). */
static const struct {
	const char *mnemonic, *back;
} ROUND_TRIP[] = {
	{ "fld", "fstp" },  { "fild", "fistp" },  { "fbld", "fbstp" },	{ "fst", "fld" },  { "fstp", "fld" },
	{ "fist", "fild" }, { "fistp", "fild" }, { "fisttp", "fild" }, { "fbstp", "fbld" },
};
static const char *const MOVES[] = { "fld", "fst", "fstp", "fxch" }; /* with st(i): copies the renamer may do */

static bool listed(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

bool ikm_is_x87(const struct instr_form *f)
{
	for (size_t i = 0; i < f->n_ops; i++)
		if (f->ops[i].kind == IK_ST)
			return true;
	return false;
}

/* One instance: st(i) operands as st(sti), memory at [rsi+off]. */
static size_t instance(const struct x87 *x, char *b, size_t cap, size_t k, int sti, int off)
{
	const struct instr_form *f = x->f;
	k = str_appendf(b, cap, k, "%s", f->mnemonic);
	for (size_t i = 0; i < f->n_explicit; i++) {
		const struct instr_operand *o = &f->ops[i];
		k = str_appendf(b, cap, k, "%s", i ? ", " : " ");
		if (o->kind == IK_MEM)
			k = str_appendf(b, cap, k, "%s[rsi+%d]", ikm_size_word(o->bits), off);
		else if (o->kind == IK_ST && o->reg)
			k = str_appendf(b, cap, k, "st");
		else if (o->kind == IK_ST)
			k = str_appendf(b, cap, k, "st(%d)", sti);
		else
			k = str_appendf(b, cap, k, "?");
	}
	return str_appendf(b, cap, k, "\n");
}

static const char *lookup(const char *mnemonic, const char *dflt, bool x_value)
{
	if (x_value) {
		for (size_t i = 0; i < ARRAY_SIZE(X_VALUE); i++)
			if (!strcmp(mnemonic, X_VALUE[i].mnemonic))
				return X_VALUE[i].load;
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(ST1_VALUE); i++)
			if (!strcmp(mnemonic, ST1_VALUE[i].mnemonic))
				return ST1_VALUE[i].load;
	}
	return dflt;
}

/*
 * A form that reads st0 and pushes a second result (FPTAN, FSINCOS, FXTRACT) keeps its first in st0 and
 * drops the pushed one with fstp st(1): FXTRACT's exponent of 1.0 is 0, and 0 would make the next
 * instance divide by zero.
 */
static bool keep_st0(const struct x87 *x) { return x->st0_read && x->st0_written && x->pushes; }

/* Pushes before an instance (its pops' worth), the instance, pops after (its pushes' worth). */
static size_t balanced(const struct x87 *x, char *b, size_t cap, size_t k, int sti, int off)
{
	for (int i = 0; i < x->pre; i++)
		k = str_appendf(b, cap, k, "%s\n",
				i == x->pre - 1 && x->pre > x->pops ? lookup(x->f->mnemonic, "fld1", true) : "fld1");
	k = instance(x, b, cap, k, sti, off);
	for (int i = 0; i < x->pushes + (x->pre - x->pops); i++)
		k = str_appendf(b, cap, k, "%s\n", keep_st0(x) ? "fstp st(1)" : "fstp st(0)");
	return k;
}

/* FNINIT, the stack's registers 1.0 (st1 the form's own where it needs one), memory 1 in its format. */
static void init(const struct x87 *x, char *b, size_t cap)
{
	size_t k = str_appendf(b, cap, 0, "fninit\n");
	for (int i = x->depth - 1; i >= 0; i--)
		k = str_appendf(b, cap, k, "%s\n", i == 1 ? lookup(x->f->mnemonic, "fld1", false) : "fld1");
	if (x->mem < 0)
		return;
	for (int j = 0; j < X87_DEPTH; j++) {
		int off = j * X87_STRIDE;
		switch (x->mem_kind) {
		case XM_REAL:
			if (x->mem_bits == 32)
				k = str_appendf(b, cap, k, "mov dword ptr [rsi+%d], 0x%x\n", off, REAL32_ONE);
			else
				k = str_appendf(b, cap, k, "mov rax, 0x%llx\nmov qword ptr [rsi+%d], rax\n",
						(unsigned long long)(x->mem_bits == 64 ? REAL64_ONE
										       : REAL80_ONE_SIGNIFICAND),
						off);
			if (x->mem_bits == 80)
				k = str_appendf(b, cap, k, "mov word ptr [rsi+%d], 0x%x\n", off + 8,
						REAL80_ONE_EXPONENT);
			break;
		case XM_INT:
		case XM_BCD:
			k = str_appendf(b, cap, k, "mov qword ptr [rsi+%d], %u\nmov word ptr [rsi+%d], 0\n", off,
					X87_INT_ONE, off + 8);
			break;
		default: break;
		}
	}
}

static struct ikm *add(struct x87 *x, enum ikm_kind kind, const char *name, const char *from, const char *to)
{
	struct ikm *m = ikm_plan_add(x->p, kind, name);
	if (!m)
		return NULL;
	snprintf(m->from, sizeof(m->from), "%s", from);
	snprintf(m->to, sizeof(m->to), "%s", to);
	init(x, m->init, sizeof(m->init));
	return m;
}

static void skip(struct x87 *x, const char *what)
{
	size_t k = strlen(x->p->skipped);
	str_appendf(x->p->skipped, sizeof(x->p->skipped), k, "%s%s", k ? "; " : "", what);
}

static const char *round_trip(const char *mnemonic)
{
	for (size_t i = 0; i < ARRAY_SIZE(ROUND_TRIP); i++)
		if (!strcmp(mnemonic, ROUND_TRIP[i].mnemonic))
			return ROUND_TRIP[i].back;
	return NULL;
}

/* The operand names of the record: op1..opN explicit, st0/st1 implicit. */
static const char *st0_name(const struct x87 *x) { return x->st0_explicit ? "op1" : "st0"; }
static const char *sti_name(const struct x87 *x)
{
	static char n[IKM_OPNAME_MAX];
	snprintf(n, sizeof(n), "op%u", (unsigned)(uint8_t)(x->sti + 1));
	return n;
}

static void latency(struct x87 *x)
{
	const char *mn = x->f->mnemonic;
	const char *back = round_trip(mn);
	struct ikm *m;
	char mem[IKM_OPNAME_MAX];
	snprintf(mem, sizeof(mem), "op%u", (unsigned)(uint8_t)(x->mem + 1));

	if (!strcmp(mn, "fxch")) {
		/* A swap: st(1)'s value comes to st0 and goes back with the next instance. */
		if ((m = add(x, IKM_LATENCY, "lat_op1_st0", sti_name(x), "st0")) != NULL) {
			instance(x, m->body, sizeof(m->body), 0, 1, 0);
			m->note = "a register exchange: renaming may make it 0";
		}
		return;
	}
	if (x->mem >= 0 && back && x->pushes) {
		/* A load: stored back where it loads (and popped, which balances its push). */
		if ((m = add(x, IKM_LATENCY, "lat_mem_st0", mem, "st0")) != NULL) {
			size_t k = instance(x, m->body, sizeof(m->body), 0, 1, 0);
			str_appendf(m->body, sizeof(m->body), k, "%s %s[rsi+0]\n", back, ikm_size_word(x->mem_bits));
			m->bound = IKM_UPPER;
			m->via = "a store of st0 back to the operand's memory, which pops (with store forwarding: "
				 "included)";
		}
		return;
	}
	if (x->mem >= 0 && back && x->mem_written) {
		/* A store: the value loaded back into st0 (a pop: the load is its push; else fstp st(1) drops
		 * the old st0 under the loaded one). */
		if ((m = add(x, IKM_LATENCY, "lat_st0_mem", "st0", mem)) != NULL) {
			size_t k = instance(x, m->body, sizeof(m->body), 0, 1, 0);
			k = str_appendf(m->body, sizeof(m->body), k, "%s %s[rsi+0]\n", back, ikm_size_word(x->mem_bits));
			if (!x->pops)
				str_appendf(m->body, sizeof(m->body), k, "fstp st(1)\n");
			m->bound = IKM_UPPER;
			m->via = x->pops ? "a load of the stored memory into st0 (with store forwarding: included)"
					 : "a load of the stored memory and fstp st(1) (with store forwarding: included)";
		}
		return;
	}
	if (x->sti >= 0 && !x->sti_written && x->pushes && listed(mn, MOVES, ARRAY_SIZE(MOVES))) {
		/* FLD st(i): the copy pushed onto st0, put back into st(1) under it by fstp st(2). */
		if ((m = add(x, IKM_LATENCY, "lat_op1_st0", sti_name(x), "st0")) != NULL) {
			size_t k = instance(x, m->body, sizeof(m->body), 0, 1, 0);
			str_appendf(m->body, sizeof(m->body), k, "fstp st(2)\n");
			m->bound = IKM_UPPER;
			m->via = "fstp st(2), which puts the copy back where it came from (included)";
		}
		return;
	}
	if (x->sti >= 0 && x->sti_written && !x->st0_written && x->st0_read &&
	    listed(mn, MOVES, ARRAY_SIZE(MOVES))) {
		/* FST st(i) / FSTP st(i): st0 copied into st(1); back by fxch (FST) or a push of a copy (FSTP). */
		if ((m = add(x, IKM_LATENCY, "lat_st0_op1", "st0", sti_name(x))) != NULL) {
			size_t k = 0;
			if (x->pops)
				k = str_appendf(m->body, sizeof(m->body), k, "fld st(0)\n");
			k = instance(x, m->body, sizeof(m->body), k, 1, 0);
			if (!x->pops)
				str_appendf(m->body, sizeof(m->body), k, "fxch st(1)\n");
			m->bound = IKM_UPPER;
			m->via = x->pops ? "fld st(0), the push that gives FSTP a copy to pop (included)"
					 : "fxch st(1), which brings the copy back to st0 (included)";
		}
		return;
	}
	if (x->sti >= 0 && x->sti_written) {
		/* FADD st(i), st0 and FADDP st(i), st0: st(i) chains with itself (after a pop it is st(i-1): the
		 * fld1 before the next instance pushes it back to st(i)). */
		if ((m = add(x, IKM_LATENCY, "lat_op1_op1", sti_name(x), sti_name(x))) != NULL) {
			balanced(x, m->body, sizeof(m->body), 0, 1, 0);
			if (x->pre)
				m->note = "fld1 before each instance pushes its st0 (off the chain)";
		}
		skip(x, "st0->op1: a chain back into st0 would need an exchange and values that grow without bound");
		return;
	}
	if (x->st0_read && x->st0_written && !x->pushes && !x->pops) {
		/* st0 is read and written: its own chain (FADD st0, st(i); FADD m32; FSQRT; FCMOVcc). */
		if ((m = add(x, IKM_LATENCY, "lat_st0_st0", st0_name(x), st0_name(x))) != NULL)
			instance(x, m->body, sizeof(m->body), 0, 1, 0);
		if (x->sti >= 0)
			skip(x, "op2->op1: a chain from st0 into st(i) would need an exchange, and the values would "
				"grow without bound");
		if (x->mem >= 0)
			skip(x, "memory->st0: storing st0 back would make the values grow without bound");
		if (x->flags_in)
			skip(x, "flags->op1: no connector from st0 to the flags and back");
		return;
	}
	if (x->flags_out)
		skip(x, "st0, st(i)->flags: no connector from the flags back into the x87 stack");
	else if (!x->st0_written && !x->sti_written && !x->mem_written)
		skip(x, "writes only the x87 status or tag word: not chained");
	else if (x->pushes && x->st0_written && !x->st0_read)
		skip(x, "no input: a constant is pushed");
	else if (x->pushes || x->pops)
		skip(x, "the result moves on the stack (a second result is pushed or an input popped): not chained");
	else
		skip(x, "no chain built for this operand layout");
}

static void throughput(struct x87 *x)
{
	struct ikm *u = add(x, IKM_TP_UNROLLED, "tp_unrolled", "", "");
	if (!u)
		return;
	size_t k = 0, n = 0;
	bool rotate = x->st0_read && x->st0_written && strcmp(x->f->mnemonic, "fxch");
	/* st(1) may be the form's fixed second input (FSCALE, FPREM): st0 is rotated with st(2) and up. */
	int first = rotate ? 2 : 1;
	for (int j = first; j < x->depth; j++, n++) {
		int sti = x->sti_written || !strcmp(x->f->mnemonic, "fxch") || !strcmp(x->f->mnemonic, "ffree") ? j
															   : 1;
		k = balanced(x, u->body, sizeof(u->body), k, sti, j * X87_STRIDE);
		if (rotate)
			k = str_appendf(u->body, sizeof(u->body), k, "fxch st(%d)\n", j);
	}
	u->per_iter = (uint16_t)n;
	u->unroll = (uint16_t)((X87_TP_INSTANCES + n - 1) / n);
	if (!ikm_plan_loop(x->p, u))
		return;
	char *c = x->p->chain;
	size_t ck = 0;
	if (rotate)
		ck = str_appendf(c, IKP_TEXT_MAX, ck,
				 "st0 is every instance's destination: fxch st(j) after each moves the result aside "
				 "(handled at rename; included)");
	if (x->pre)
		ck = str_appendf(c, IKP_TEXT_MAX, ck, "%s%d push(es) before each instance to balance its pops (included)",
				 ck ? "; " : "", x->pre);
	if (x->pushes + x->pre - x->pops > 0)
		str_appendf(c, IKP_TEXT_MAX, ck, "%s%s after each instance to balance its pushes (included)",
			    ck ? "; " : "", keep_st0(x) ? "fstp st(1)" : "fstp st(0)");
}

bool ikm_x87_build(const struct instr_form *f, struct instr_plan *p)
{
	struct x87 x = { .f = f, .p = p, .mem = -1, .sti = -1 };
	for (size_t i = 0; i < f->n_ops; i++) {
		const struct instr_operand *o = &f->ops[i];
		bool explicit = i < f->n_explicit && !o->implicit;
		if (o->kind == IK_MEM && explicit) {
			x.mem = (int)i;
			x.mem_bits = o->bits;
			x.mem_written = o->access & IA_WRITE;
		} else if (o->kind == IK_MEM) {
			snprintf(p->why, sizeof(p->why), "implicit memory operand of an x87 form: not built");
			return false;
		} else if (o->kind == IK_ST && o->reg && !strcmp(o->reg, "st0")) {
			/* A conditional write (FCMOVcc's cw) keeps the old value when it does not write: read too. */
			x.st0_read = x.st0_read || (o->access & (IA_READ | IA_COND));
			x.st0_written = x.st0_written || (o->access & IA_WRITE);
			x.st0_explicit = x.st0_explicit || (explicit && i == 0);
		} else if (o->kind == IK_ST && !o->reg) {
			x.sti = (int)i;
			x.sti_written = o->access & IA_WRITE;
		} else if (o->kind == IK_FIXED && o->reg && !strcmp(o->reg, "x87push")) {
			x.pushes++;
		} else if (o->kind == IK_FIXED && o->reg && !strcmp(o->reg, "x87pop")) {
			x.pops++;
		} else if (o->kind == IK_FIXED && o->reg && !strcmp(o->reg, "x87pop2")) {
			x.pops += 2;
		} else if (o->kind == IK_ST || (o->kind == IK_FIXED && o->reg &&
						!strncmp(o->reg, X87_STATUS_PREFIX, sizeof(X87_STATUS_PREFIX) - 1))) {
			/* st1 of FSCALE, FPREM, FYL2X...; the status, control and tag words: not chained. */
			continue;
		} else {
			snprintf(p->why, sizeof(p->why), "operand %zu of an x87 form is of a kind the x87 builder does not handle",
				 i + 1);
			return false;
		}
	}
	if (listed(f->mnemonic, EXAMINE_ONLY, ARRAY_SIZE(EXAMINE_ONLY)))
		x.st0_written = false;
	x.flags_out = f->flags_written != 0;
	x.flags_in = f->flags_read != 0;
	const char *it = f->iform ? f->iform : "";
	x.mem_kind = x.mem < 0 ? XM_NONE : strstr(it, "real") ? XM_REAL : strstr(it, "dec") ? XM_BCD : XM_INT;
	/* A form that pops its st0 input into st1 (FYL2X) gets x and y pushed and one more pop after. */
	bool xy = x.pops == 1 && lookup(f->mnemonic, NULL, true) != NULL;
	x.pre = x.pops + (xy ? 1 : 0);
	/* One register kept free at least: a store's chain loads its value back before it pops (FST m32). */
	int room = x.pre > x.pushes ? x.pre : x.pushes;
	x.depth = X87_DEPTH - (room > 1 ? room : 1);
	if (listed(f->mnemonic, MOVES, ARRAY_SIZE(MOVES)) && x.sti >= 0)
		p->idiom = IKM_IDIOM_MOVE;
	size_t k = str_appendf(p->values, sizeof(p->values), 0,
			       "x87 registers 1.0 after FNINIT (exceptions masked, round to nearest, 64-bit precision)");
	const char *st1 = lookup(f->mnemonic, NULL, false);
	if (st1)
		k = str_appendf(p->values, sizeof(p->values), k, ", st1 by %s", st1);
	if (xy)
		k = str_appendf(p->values, sizeof(p->values), k, ", x pushed by %s and y by fld1",
				lookup(f->mnemonic, NULL, true));
	if (x.mem >= 0)
		k = str_appendf(p->values, sizeof(p->values), k, ", memory %s",
				x.mem_kind == XM_REAL  ? "1.0"
				: x.mem_kind == XM_BCD ? "packed BCD 1"
						       : "integer 1");
	/* FCMOVcc: nothing in the body sets the flags but the harness's dec rdi (SDM Vol. 2A DEC: CF kept). */
	if (x.flags_in)
		str_appendf(p->values, sizeof(p->values), k,
			    ", flags as the harness's dec rdi leaves them (CF as it was before the loop, which DEC keeps; ZF 0 "
			    "but on the last trip; PF with the count's low byte)");
	latency(&x);
	throughput(&x);
	if (!p->n)
		snprintf(p->why, sizeof(p->why), "no x87 measurement could be built");
	return p->n > 0;
}
