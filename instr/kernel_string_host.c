/*
 * instr/kernel_string_host.c - the kernels of string forms, XLAT and the masked stores to [rdi]; see
 * kernel_string.h.
 *
 * A string instruction reads [rsi] and writes [rdi] and moves both by its element (SDM Vol. 1, 7.3.9
 * "String Operations"; forward with DF clear, which the init makes sure of with CLD).  rsi is the window
 * the harness hands over and rdi its trip count (docs/kernels.md), so the init keeps the window in r14
 * (the source, p) and r13 (the destination, q + 2048: in the second page and not a multiple of 4 KiB from
 * the source, so a load never looks like it aliases an older store), and every instance starts with the
 * reset `mov rsi, r14` / `mov rdi, r13` (and `mov ecx, N` with REP): each instance then touches the same
 * few bytes of the window, whatever the trip count.  A body copy that writes rdi keeps the trip count in r15
 * across it.  The reset and the keeping of rdi are measured alone, as a connector with the same body minus
 * the form, and subtracted per instance (the record lists the connector with its own figure).
 *
 * Without REP: throughput of independent instances (the same addresses; no instance reads what another
 * writes: MOVS copies p to q + 2048), and one latency each, its chain named: MOVS src->dst with rsi = rdi
 * (the copy reads what the previous one stored: through memory, as ADD m64, r64's op1->op1); STOS
 * accumulator->dst through a load back; LODS src->accumulator through a store back; SCAS accumulator->flags
 * through SBB; CMPS src->flags through SBB and a store back; XLAT al->al as it occurs (the table holds
 * zeros, so al stays 0 and every lookup reads [rbx]).
 *
 * With REP: rcx = REP_COUNT elements every instance (stated in the record's values) and data that keeps the
 * repeat going to the end (REPE: equal strings, the accumulator equal to memory; REPNE: never equal):
 * throughput per instruction, no latency (its time depends on rcx and on the data, not on an operand chain).
 */
#include "instr/kernel_string.h"
#include "lib/strbuf.h"

#define REP_COUNT 64		/* elements per REP instance (at most 512 bytes: the window has 4 KiB a side) */
#define STR_PER_BODY 8		/* instances per throughput body without REP */
#define STR_PER_BODY_REP 4	/* and with REP (each one is REP_COUNT elements) */
#define DST_OFF 2048		/* rdi = q + DST_OFF */
#define REPNE_SKEW 4		/* REPNE CMPS: rdi = q + DST_OFF + 4 over FILL_BYTES (below) */
/* REPNE CMPS needs strings that never match: the window holds the bytes 0..7 over and over, and the
 * destination is 4 bytes further along, so the byte at every offset differs from the source's. */
#define FILL_BYTES 0x0706050403020100ull
#define REPE_SCAS_ACC 0 /* REPE SCAS: the accumulator equals the window's zeros at every element */
#define ACC_VALUE 1	/* the accumulator elsewhere: REPNE SCAS never finds it in zeros */

enum str_family { SF_MOVS, SF_STOS, SF_LODS, SF_SCAS, SF_CMPS, SF_XLAT, SF_MASKMOV };

/* Which registers each family addresses memory with (SDM Vol. 2B MOVS, STOS, LODS, SCAS, CMPS; XLAT reads
 * [rbx + al]; MASKMOVQ and (V)MASKMOVDQU write [rdi] and leave it). */
static const struct {
	const char *stem;
	enum str_family fam;
	bool src, dst; /* reads [rsi] and moves rsi; uses [rdi] and moves rdi */
} FAMILIES[] = {
	{ "movs", SF_MOVS, true, true },	 { "stos", SF_STOS, false, true },
	{ "lods", SF_LODS, true, false },	 { "scas", SF_SCAS, false, true },
	{ "cmps", SF_CMPS, true, true },	 { "xlat", SF_XLAT, false, false },
	{ "maskmovq", SF_MASKMOV, false, false }, { "maskmovdqu", SF_MASKMOV, false, false },
	{ "vmaskmovdqu", SF_MASKMOV, false, false },
};
static const char *const REP_PREFIXES[] = { "rep ", "repe ", "repne " };

struct strk {
	const struct instr_form *f;
	struct instr_plan *p;
	enum str_family fam;
	bool src, dst;	 /* resets rsi, rdi */
	bool rep, repne; /* a REP prefix; REPNE */
	unsigned bits;	 /* the element's bits */
	const char *stem;
};

/* The mnemonic without its repeat prefix, and which prefix. */
static const char *bare(const char *mnemonic, size_t *prefix)
{
	*prefix = ARRAY_SIZE(REP_PREFIXES);
	for (size_t i = 0; i < ARRAY_SIZE(REP_PREFIXES); i++)
		if (!strncmp(mnemonic, REP_PREFIXES[i], strlen(REP_PREFIXES[i]))) {
			*prefix = i;
			return mnemonic + strlen(REP_PREFIXES[i]);
		}
	return mnemonic;
}

static int family(const struct instr_form *f)
{
	size_t prefix;
	const char *m = bare(f->mnemonic ? f->mnemonic : "", &prefix);
	for (size_t i = 0; i < ARRAY_SIZE(FAMILIES); i++) {
		size_t n = strlen(FAMILIES[i].stem);
		/* movsb .. movsq: the stem and one size letter; the others whole. */
		bool sized = FAMILIES[i].src || FAMILIES[i].dst;
		if (!strncmp(m, FAMILIES[i].stem, n) && (sized ? m[n] && strchr("bwdq", m[n]) && !m[n + 1] : !m[n]))
			return (int)i;
	}
	return -1;
}

bool ikm_is_string(const struct instr_form *f)
{
	bool implicit_mem = false;
	for (size_t i = 0; i < f->n_ops; i++)
		implicit_mem = implicit_mem || (f->ops[i].kind == IK_MEM && i >= f->n_explicit);
	return implicit_mem && family(f) >= 0;
}

/* The accumulator at the element's width. */
static const char *acc(const struct strk *s) { return ikm_gpr_names[ikm_width_index(s->bits)][0]; }

/* The form as written: the mnemonic (with its prefix), and the registers of MASKMOV (op1 data, op2 mask). */
static size_t form_text(const struct strk *s, char *b, size_t cap, size_t k)
{
	if (s->fam != SF_MASKMOV)
		return str_appendf(b, cap, k, "%s\n", s->f->mnemonic);
	bool mmx = s->f->ops[0].kind == IK_MM;
	return str_appendf(b, cap, k, "%s %s0, %s1\n", s->f->mnemonic, mmx ? "mm" : "xmm", mmx ? "mm" : "xmm");
}

/* The reset before each instance: rsi, rdi and the count; XLAT's al. */
static size_t reset_text(const struct strk *s, char *b, size_t cap, size_t k, bool same)
{
	if (s->src)
		k = str_appendf(b, cap, k, "mov rsi, r14\n");
	if (s->dst)
		k = str_appendf(b, cap, k, "mov rdi, %s\n", same ? "r14" : "r13");
	if (s->rep)
		k = str_appendf(b, cap, k, "mov ecx, %d\n", REP_COUNT);
	if (s->fam == SF_XLAT)
		k = str_appendf(b, cap, k, "xor eax, eax\n"); /* al, the index, a fresh 0 (a zero idiom) */
	return k;
}

/* MASKMOV stores to [rdi] and does not move it: rdi is set once per body copy. */
static bool writes_rdi(const struct strk *s) { return s->dst || s->fam == SF_MASKMOV; }

/* A body copy: rdi kept in r15, then `n` instances (the reset, the form unless `bare`), then rdi back. */
static void body_text(const struct strk *s, char *b, size_t cap, size_t n, bool with_form)
{
	size_t k = 0;
	if (writes_rdi(s))
		k = str_appendf(b, cap, k, "mov r15, rdi\n");
	if (s->fam == SF_MASKMOV)
		k = str_appendf(b, cap, k, "mov rdi, r13\n");
	for (size_t i = 0; i < n; i++) {
		k = reset_text(s, b, cap, k, false);
		if (with_form)
			k = form_text(s, b, cap, k);
	}
	if (writes_rdi(s))
		str_appendf(b, cap, k, "mov rdi, r15\n");
}

static void init_text(const struct strk *s, char *b, size_t cap)
{
	size_t k = str_appendf(b, cap, 0, "cld\nmov r14, rsi\nlea r13, [rdx+%d]\n",
			       DST_OFF + (s->fam == SF_CMPS && s->repne ? REPNE_SKEW : 0));
	bool repe_scas = s->fam == SF_SCAS && s->rep && !s->repne;
	k = str_appendf(b, cap, k, "mov eax, %d\n", repe_scas ? REPE_SCAS_ACC : ACC_VALUE);
	if (s->fam == SF_XLAT)
		k = str_appendf(b, cap, k, "mov rbx, rsi\n");
	if (s->fam == SF_MASKMOV) {
		/* The data 1s, the mask all ones (every byte's top bit set: every byte stored). */
		if (s->f->ops[0].kind == IK_MM)
			str_appendf(b, cap, k, "movq mm0, rax\npcmpeqd mm1, mm1\n");
		else if (s->f->mnemonic[0] == 'v')
			str_appendf(b, cap, k, "vmovq xmm0, rax\nvpcmpeqd xmm1, xmm1, xmm1\n");
		else
			str_appendf(b, cap, k, "movq xmm0, rax\npcmpeqd xmm1, xmm1\n");
	}
}

static uint64_t fill(const struct strk *s) { return s->fam == SF_CMPS && s->repne ? FILL_BYTES : 0; }

static struct ikm *add(struct strk *s, enum ikm_kind kind, const char *name)
{
	struct ikm *m = ikm_plan_add(s->p, kind, name);
	if (m) {
		init_text(s, m->init, sizeof(m->init));
		m->fill = fill(s);
	}
	return m;
}

/* The one latency of a form without REP, by family: its ends ("acc": the accumulator at the element's
 * width), and what the chain goes through. */
#define ACC "acc"
static const struct {
	const char *from, *to;
	uint8_t bound;
	const char *via, *note;
} CHAINS[] = {
	[SF_MOVS] = { "src", "dst", IKM_EXACT, NULL,
		      "through memory: rsi = rdi, each copy reads what the previous one stored (store forwarding is "
		      "part of it)" },
	[SF_STOS] = { ACC, "dst", IKM_UPPER,
		      "a load of the stored element back into the accumulator (store forwarding included)", NULL },
	[SF_LODS] = { "src", ACC, IKM_UPPER,
		      "a store of the accumulator where the next LODS loads (store forwarding included)", NULL },
	[SF_SCAS] = { ACC, "flags", IKM_UPPER, "sbb r64, r64 (flags -> the accumulator, not measurable alone: included)",
		      NULL },
	[SF_CMPS] = { "src", "flags", IKM_UPPER,
		      "sbb r64, r64 and a store of it where the next CMPS loads (not measurable alone: included)", NULL },
	[SF_XLAT] = { "al", "al", IKM_EXACT, NULL,
		      "the table holds zeros: al stays 0 and every lookup reads [rbx] (load to use included)" },
	[SF_MASKMOV] = { "op1", "dst", IKM_UPPER,
			 "a load of the stored bytes back into op1 (a non-temporal store, then its reload: included)",
			 NULL },
};

/* The one latency of a form without REP: a chain through its memory or its accumulator. */
static void latency(struct strk *s)
{
	const char *a = acc(s), *w = ikm_size_word(s->bits);
	struct ikm *m = add(s, IKM_LATENCY, "lat");
	if (!m)
		return;
	char *b = m->body;
	size_t cap = sizeof(m->body), k = 0;
	if (writes_rdi(s))
		k = str_appendf(b, cap, k, "mov r15, rdi\n");
	if (s->fam != SF_XLAT) /* XLAT's al is the chain itself: not reset */
		k = reset_text(s, b, cap, k, s->fam == SF_MOVS);
	if (s->fam == SF_MASKMOV)
		k = str_appendf(b, cap, k, "mov rdi, r13\n");
	k = form_text(s, b, cap, k);
	switch (s->fam) {
	case SF_STOS:
		/* movzx for the narrow ones: the next STOS reads the register the load wrote whole. */
		if (s->bits < 32)
			k = str_appendf(b, cap, k, "movzx eax, %s[r13]\n", w);
		else
			k = str_appendf(b, cap, k, "mov %s, %s[r13]\n", a, w);
		break;
	case SF_LODS: k = str_appendf(b, cap, k, "mov %s[r14], %s\n", w, a); break;
	case SF_SCAS: k = str_appendf(b, cap, k, "sbb rax, rax\n"); break;
	case SF_CMPS: k = str_appendf(b, cap, k, "sbb rax, rax\nmov %s[r14], %s\n", w, a); break;
	case SF_MASKMOV:
		k = str_appendf(b, cap, k, "%s\n", s->f->ops[0].kind == IK_MM ? "movq mm0, qword ptr [r13]"
					 : s->f->mnemonic[0] == 'v'	? "vmovdqu xmm0, xmmword ptr [r13]"
									: "movdqu xmm0, xmmword ptr [r13]");
		break;
	default: break; /* MOVS, XLAT: the form chains by itself */
	}
	const char *from = CHAINS[s->fam].from, *to = CHAINS[s->fam].to;
	m->bound = CHAINS[s->fam].bound;
	m->via = CHAINS[s->fam].via;
	m->note = CHAINS[s->fam].note;
	from = strcmp(from, ACC) ? from : a;
	to = strcmp(to, ACC) ? to : a;
	snprintf(m->from, sizeof(m->from), "%s", from);
	snprintf(m->to, sizeof(m->to), "%s", to);
	if (writes_rdi(s))
		str_appendf(b, cap, k, "mov rdi, r15\n");
	snprintf(m->name, sizeof(m->name), "lat_%s_%s", m->from, m->to);
}

/* Throughput: independent instances after their resets, less the resets alone (kernel.h ikm_plan_tp_less). */
static void throughput(struct strk *s)
{
	size_t n = s->rep ? STR_PER_BODY_REP : STR_PER_BODY;
	static char init[IKM_INIT_MAX], body[IKM_BODY_MAX], bare[IKM_BODY_MAX];
	char name[IKM_NAME_MAX];
	init_text(s, init, sizeof(init));
	body_text(s, body, sizeof(body), n, true);
	body_text(s, bare, sizeof(bare), n, false);
	snprintf(name, sizeof(name), "conn_str%s%s%s%s_x%zu", s->src ? "_si" : "", s->dst ? "_di" : "",
		 s->fam == SF_MASKMOV ? "_rdi" : s->fam == SF_XLAT ? "_al" : "", s->rep ? "_cx" : "", n);
	const char *via = s->fam == SF_MASKMOV ? "mov r15, rdi / mov rdi, r13 / mov rdi, r15 (rdi set per body copy)"
			  : s->fam == SF_XLAT  ? "xor eax, eax (al reset before each instance)"
					       : "mov rsi, r14 / mov rdi, r13 / mov ecx, N (the reset before each "
						 "instance, with rdi kept in r15 per body copy)";
	if (!ikm_plan_tp_less(s->p, init, fill(s), body, bare, (uint16_t)n, name, via))
		return;
	snprintf(s->p->chain, sizeof(s->p->chain),
		 "%s (the connectors %s and %s_loop, measured alone and subtracted: where the reset overlaps the "
		 "form the figure is low by at most the connector's)",
		 s->fam == SF_MASKMOV ? "rdi set to the window once per body copy, kept in r15"
		 : s->fam == SF_XLAT  ? "al reset to 0 (xor eax, eax) before each instance, so no instance reads "
				        "another's al"
				      : "rsi, rdi (and rcx) reset before each instance, the trip count kept in r15",
		 name, name);
}

bool ikm_string_build(const struct instr_form *f, struct instr_plan *p)
{
	int i = family(f);
	size_t prefix;
	if (i < 0) {
		snprintf(p->why, sizeof(p->why), "implicit memory operand: not a string form the builder knows");
		return false;
	}
	struct strk s = { .f = f, .p = p, .fam = FAMILIES[i].fam, .src = FAMILIES[i].src, .dst = FAMILIES[i].dst };
	s.stem = bare(f->mnemonic, &prefix);
	s.rep = prefix < ARRAY_SIZE(REP_PREFIXES);
	s.repne = prefix == 2;
	for (size_t q = 0; q < f->n_ops; q++)
		if (f->ops[q].kind == IK_MEM)
			s.bits = f->ops[q].bits;
	size_t k = str_appendf(p->values, sizeof(p->values), 0, "DF 0");
	if (s.src)
		k = str_appendf(p->values, sizeof(p->values), k, ", rsi = the window's first page");
	if (s.dst || s.fam == SF_MASKMOV)
		k = str_appendf(p->values, sizeof(p->values), k, ", rdi = its second page + %d%s", DST_OFF,
				s.fam == SF_CMPS && s.repne ? " + 4 (over the bytes 0..7 repeated: no element matches)"
							    : "");
	if (s.rep)
		k = str_appendf(p->values, sizeof(p->values), k, ", rcx = %d elements every instance (%d bytes)",
				REP_COUNT, REP_COUNT * (int)s.bits / 8);
	if (s.fam == SF_XLAT)
		k = str_appendf(p->values, sizeof(p->values), k, ", rbx = the window, al 0");
	else if (s.fam == SF_MASKMOV)
		k = str_appendf(p->values, sizeof(p->values), k, ", op1 1, op2 (the mask) all ones");
	else
		k = str_appendf(p->values, sizeof(p->values), k, ", %s %d", acc(&s),
				s.fam == SF_SCAS && s.rep && !s.repne ? REPE_SCAS_ACC : ACC_VALUE);
	str_appendf(p->values, sizeof(p->values), k, ", memory %s",
		    s.fam == SF_CMPS && s.repne ? "the bytes 0..7 repeated" : "0");
	if (s.rep)
		snprintf(p->skipped, sizeof(p->skipped),
			 "every pair: a REP string's time depends on rcx and on the data, not on an operand chain "
			 "(throughput at the stated rcx)");
	else
		latency(&s);
	throughput(&s);
	return p->n > 0;
}
