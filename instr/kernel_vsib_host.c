/*
 * instr/kernel_vsib_host.c - the kernels of gathers, scatters and their prefetches; see kernel_vsib.h.
 *
 * The address is [rsi + index register * scale] (the scale the element's bytes), the index register's first
 * n lanes 0, 8, 16, ... (n the elements the form moves: the fewer of what the data register holds and what
 * the index register holds), 0 above: element i at byte 8 x scale x i, inside the window's first page.
 *
 * A gather or scatter clears its mask as elements complete (SDM Vol. 2C VPGATHERDD, VPSCATTERDD: "the entire
 * mask register will be set to zero by this instruction unless it triggers an exception"), so the mask is
 * made all ones again before every instance, from a register no instance writes: `kxnorw k1, k0, k0` (k0
 * read as a source, any value: x xnor x is all ones) or, for AVX2's vector mask, `vpcmpeqd m, c, c`.  The
 * re-make stays off every chain; in a throughput kernel it is measured alone and subtracted.
 *
 * Latency, index -> result (op2.addr->op1, load included): the result is the next instance's index.  The
 * window holds, at the gathered addresses, the index register's own bits, so a gathered vector read as an
 * index is the index vector again and the chain does not move: where an index is no wider than an element,
 * the result register is the next index register (two registers alternating); where it is wider (QD, QPS:
 * dword elements, qword indices) `vpmovzxdq` widens the result into the index register, measured alone and
 * subtracted.  A scatter's data -> memory goes through a gather of the same elements back (an upper bound,
 * the gather included).  Throughput: independent instances, the destinations rotated.
 */
#include "instr/kernel_vsib.h"
#include "lib/strbuf.h"

#define IDX_STEP 8	/* index of element i: IDX_STEP * i */
#define IDX_TABLE 3072	/* [rdx + IDX_TABLE]: the index register's lanes, loaded in the init */
#define IDX_REG 1	/* the index register */
#define ALT_REG 2	/* the latency chain's other register; the first throughput destination */
#define VMASK_REG 14	/* AVX2's vector mask */
#define ONES_SRC 15	/* vpcmpeqd's source, never written: equal to itself, so all ones */
#define VEX_DESTS 12	/* throughput destinations 2..13 (below the mask) */
#define EVEX_DESTS 24	/* 2..25: EVEX has 32 registers */
#define STORE_INSTANCES 12 /* scatters and prefetches a throughput body (nothing rotated) */

enum vsib_role { VS_GATHER, VS_SCATTER, VS_PREFETCH };

struct vsib {
	const struct instr_form *f;
	struct instr_plan *p;
	enum vsib_role role;
	bool avx2;	  /* AVX2's gathers: a vector mask (op3), no k register */
	unsigned wi, wd;  /* the index's and the element's bits */
	unsigned idx_bits, data_bits;
	unsigned n;	  /* elements moved */
	unsigned scale;	  /* the element's bytes */
};

static const char *vreg(unsigned bits) { return bits >= 512 ? "zmm" : bits >= 256 ? "ymm" : "xmm"; }

/* The vmNx token of the asm name: index bits and the index register's bits; false when there is none. */
static bool vm_token(const char *asm_name, unsigned *wi, unsigned *idx_bits)
{
	for (const char *t = asm_name ? strstr(asm_name, "vm") : NULL; t; t = strstr(t + 1, "vm")) {
		if ((t[2] != '3' || t[3] != '2') && (t[2] != '6' || t[3] != '4'))
			continue;
		if (t[4] != 'x' && t[4] != 'y' && t[4] != 'z')
			continue;
		*wi = t[2] == '3' ? 32 : 64;
		*idx_bits = t[4] == 'x' ? 128 : t[4] == 'y' ? 256 : 512;
		return true;
	}
	return false;
}

bool ikm_is_vsib(const struct instr_form *f)
{
	unsigned wi, bits;
	return vm_token(f->asm_name, &wi, &bits);
}

/* The address of every instance: [rsi + index register r * scale]. */
static size_t addr(const struct vsib *v, char *b, size_t cap, size_t k, int r)
{
	return str_appendf(b, cap, k, "%s[rsi+%s%d*%u]", ikm_size_word(v->wd), vreg(v->idx_bits), r, v->scale);
}

/* The mask made all ones again, then one instance: data register d (destination or source), index register i. */
static size_t instance(const struct vsib *v, char *b, size_t cap, size_t k, int d, int i)
{
	const char *m = v->f->mnemonic, *dk = vreg(v->data_bits);
	if (v->avx2) {
		k = str_appendf(b, cap, k, "vpcmpeqd %s%d, %s%d, %s%d\n%s %s%d, ", dk, VMASK_REG, dk, ONES_SRC, dk, ONES_SRC,
				m, dk, d);
		k = addr(v, b, cap, k, i);
		return str_appendf(b, cap, k, ", %s%d\n", dk, VMASK_REG);
	}
	k = str_appendf(b, cap, k, "kxnorw k1, k0, k0\n%s ", m);
	if (v->role == VS_GATHER)
		return str_appendf(b, cap, addr(v, b, cap, str_appendf(b, cap, k, "%s%d{k1}, ", dk, d), i), "\n");
	k = str_appendf(b, cap, addr(v, b, cap, k, i), "{k1}");
	if (v->role == VS_SCATTER)
		k = str_appendf(b, cap, k, ", %s%d", dk, d);
	return str_appendf(b, cap, k, "\n");
}

/* The mask re-made alone: the throughput kernel without the form. */
static size_t remake(const struct vsib *v, char *b, size_t cap, size_t k)
{
	const char *dk = vreg(v->data_bits);
	if (v->avx2)
		return str_appendf(b, cap, k, "vpcmpeqd %s%d, %s%d, %s%d\n", dk, VMASK_REG, dk, ONES_SRC, dk, ONES_SRC);
	return str_appendf(b, cap, k, "kxnorw k1, k0, k0\n");
}

/* Dword m of the index register as the init loads it: lanes 0, IDX_STEP, 2 IDX_STEP, ... below n, 0 above. */
static uint32_t idx_dword(const struct vsib *v, unsigned m)
{
	unsigned lane = v->wi == 32 ? m : m / 2;
	if (v->wi == 64 && m % 2)
		return 0; /* a qword index's upper half */
	return lane < v->n ? IDX_STEP * lane : 0;
}

/* Whether the latency chain needs vpmovzxdq between the result and the next index (an index wider than an element). */
static bool widens(const struct vsib *v) { return v->wi > v->wd; }

static void init_text(const struct vsib *v, char *b, size_t cap)
{
	size_t k = 0;
	/* The index register, through a table in the second page. */
	for (unsigned m = 0; m < v->idx_bits / 32; m++)
		k = str_appendf(b, cap, k, "mov dword ptr [rdx+%u], %u\n", IDX_TABLE + 4 * m, idx_dword(v, m));
	k = str_appendf(b, cap, k, "%s %s%d, %s[rdx+%d]\n", v->idx_bits >= 512 ? "vmovdqu64" : "vmovdqu",
			vreg(v->idx_bits), IDX_REG, ikm_size_word(v->idx_bits), IDX_TABLE);
	if (v->role != VS_GATHER)
		return;
	/* At each gathered address, the bits the chained index needs there: the index register's own bits
	 * (element i holds its dwords i * wd / 32 ...), or, where vpmovzxdq widens the result, index i itself. */
	for (unsigned i = 0; i < v->n; i++)
		for (unsigned d = 0; d < v->wd / 32; d++) {
			uint32_t val = widens(v) ? IDX_STEP * i : idx_dword(v, i * v->wd / 32 + d);
			k = str_appendf(b, cap, k, "mov dword ptr [rsi+%u], %u\n", IDX_STEP * i * v->scale + 4 * d, val);
		}
}

static struct ikm *add(struct vsib *v, enum ikm_kind kind, const char *name)
{
	struct ikm *m = ikm_plan_add(v->p, kind, name);
	if (m)
		init_text(v, m->init, sizeof(m->init));
	return m;
}

/* vpmovzxdq: the gathered dwords (register `from`) widened into the qword index register `to`. */
static size_t widen(const struct vsib *v, char *b, size_t cap, size_t k, int to, int from)
{
	return str_appendf(b, cap, k, "vpmovzxdq %s%d, %s%d\n", vreg(v->idx_bits), to, vreg(v->idx_bits / 2), from);
}

static void latency(struct vsib *v)
{
	struct ikm *m;
	if (v->role == VS_PREFETCH) {
		snprintf(v->p->skipped, sizeof(v->p->skipped), "a prefetch has no result to chain: throughput only");
		return;
	}
	if (v->role == VS_SCATTER) {
		/* data -> memory: the same elements gathered back into the data register. */
		static char gather[24];
		const char *sc = strstr(v->f->mnemonic, "scatter");
		size_t pre = sc ? (size_t)(sc - v->f->mnemonic) : 0; /* "v" or "vp": XED's scatters are no other */
		if (!sc || pre > 2 || !(m = add(v, IKM_LATENCY, "lat_op2_op1")))
			return;
		snprintf(gather, sizeof(gather), "%.*sgather%s", (int)pre, v->f->mnemonic, sc + 7);
		size_t k = instance(v, m->body, sizeof(m->body), 0, ALT_REG, IDX_REG);
		k = str_appendf(m->body, sizeof(m->body), k, "kxnorw k1, k0, k0\n%s %s%d{k1}, ", gather,
				vreg(v->data_bits), ALT_REG);
		str_appendf(m->body, sizeof(m->body), addr(v, m->body, sizeof(m->body), k, IDX_REG), "\n");
		snprintf(m->from, sizeof(m->from), "op2");
		snprintf(m->to, sizeof(m->to), "op1");
		m->bound = IKM_UPPER;
		m->via = v->f->mnemonic[1] == 'p' ? "vpgather of the same elements back into op2 (not measurable alone: "
						    "included)"
						  : "vgather of the same elements back into op2 (not measurable alone: "
						    "included)";
		snprintf(v->p->skipped, sizeof(v->p->skipped),
			 "op1.addr: an index into memory has no register result; k1: the mask is re-made all ones "
			 "before every instance, not chained");
		return;
	}
	if (!(m = add(v, IKM_LATENCY, "lat_op2_addr_op1")))
		return;
	snprintf(m->from, sizeof(m->from), "op2.addr");
	snprintf(m->to, sizeof(m->to), "op1");
	m->note = "each element loads its own index (the window holds the index register's bits at the gathered "
		  "addresses): the chained index does not change";
	if (widens(v)) {
		size_t k = instance(v, m->body, sizeof(m->body), 0, ALT_REG, IDX_REG);
		widen(v, m->body, sizeof(m->body), k, IDX_REG, ALT_REG);
		char name[IKM_NAME_MAX];
		snprintf(name, sizeof(name), "conn_vpmovzxdq_%s", vreg(v->idx_bits));
		struct ikm *c = add(v, IKM_CONNECTOR, name);
		if (!c) {
			v->p->n--;
			return;
		}
		widen(v, c->body, sizeof(c->body), 0, IDX_REG, IDX_REG);
		c->note = "its own chain: the widened register is its source";
		m->sub[0] = (int8_t)(c - v->p->m);
		m->via = "vpmovzxdq, the gathered dwords widened into the qword index (measured alone, subtracted)";
	} else {
		size_t k = instance(v, m->body, sizeof(m->body), 0, ALT_REG, IDX_REG);
		instance(v, m->body, sizeof(m->body), k, IDX_REG, ALT_REG);
		m->per_iter = 2;
	}
	snprintf(v->p->skipped, sizeof(v->p->skipped),
		 "op2->op1: memory contents -> the result would need a scatter back (op2.addr->op1 includes the "
		 "load); %s: the mask is re-made all ones before every instance, not chained",
		 v->avx2 ? "op3" : "k1");
}

static void throughput(struct vsib *v)
{
	static char init[IKM_INIT_MAX], body[IKM_BODY_MAX], bare[IKM_BODY_MAX];
	unsigned n = v->role != VS_GATHER ? STORE_INSTANCES : v->avx2 ? VEX_DESTS : EVEX_DESTS;
	size_t k = 0, kb = 0;
	init_text(v, init, sizeof(init));
	for (unsigned i = 0; i < n; i++) {
		k = instance(v, body, sizeof(body), k, v->role == VS_GATHER ? ALT_REG + (int)i : ALT_REG, IDX_REG);
		kb = remake(v, bare, sizeof(bare), kb);
	}
	char name[IKM_NAME_MAX];
	snprintf(name, sizeof(name), "conn_%s_%s_x%u", v->avx2 ? "vpcmpeqd" : "kxnorw",
		 v->avx2 ? vreg(v->data_bits) : "k1", n);
	if (!ikm_plan_tp_less(v->p, init, 0, body, bare, (uint16_t)n, name,
			      v->avx2 ? "vpcmpeqd m, c, c (the mask re-made all ones before each instance)"
				      : "kxnorw k1, k0, k0 (the mask re-made all ones before each instance)"))
		return;
	if (v->role == VS_GATHER)
		snprintf(v->p->chain, sizeof(v->p->chain),
			 "the mask re-made before each instance (%s and %s_loop, measured alone and subtracted); each "
			 "destination is written again %u instances later and the gather merges into it, so instances "
			 "%u apart chain through it (at most the latency / %u per instance)",
			 name, name, n, n, n);
	else
		snprintf(v->p->chain, sizeof(v->p->chain),
			 "the mask re-made before each instance (%s and %s_loop, measured alone and subtracted); every "
			 "instance %s the same addresses, which no instance reads",
			 name, name, v->role == VS_SCATTER ? "writes" : "prefetches");
}

bool ikm_vsib_build(const struct instr_form *f, struct instr_plan *p)
{
	struct vsib v = { .f = f, .p = p };
	if (!vm_token(f->asm_name, &v.wi, &v.idx_bits)) {
		snprintf(p->why, sizeof(p->why), "no vmNx operand in the asm name");
		return false;
	}
	v.role = strstr(f->mnemonic, "pf") ? VS_PREFETCH : strstr(f->mnemonic, "scatter") ? VS_SCATTER : VS_GATHER;
	v.avx2 = !(f->attrs & IFA_MASK);
	for (size_t i = 0; i < f->n_explicit; i++) {
		const struct instr_operand *o = &f->ops[i];
		if (o->kind == IK_MEM)
			v.wd = o->bits;
		else if (o->kind >= IK_XMM && o->kind <= IK_ZMM && !v.data_bits)
			v.data_bits = 128u << (o->kind - IK_XMM);
	}
	if ((v.wd != 32 && v.wd != 64) || (v.role != VS_PREFETCH && !v.data_bits) || (v.avx2 && v.role != VS_GATHER)) {
		snprintf(p->why, sizeof(p->why), "a VSIB form of a shape the builder does not know");
		return false;
	}
	v.scale = v.wd / 8;
	v.n = v.idx_bits / v.wi;
	if (v.data_bits && v.data_bits / v.wd < v.n)
		v.n = v.data_bits / v.wd;
	if (!v.data_bits)
		v.data_bits = v.idx_bits; /* a prefetch: no data register */
	snprintf(p->values, sizeof(p->values),
		 "indices 0, %u, %u, ... in the index register's first %u lanes, 0 above (element i at byte %u i, scale "
		 "%u); the mask all ones, re-made before every instance from a register no instance writes; memory "
		 "at the gathered addresses the index register's own bits (a chained index does not move), 0 elsewhere",
		 IDX_STEP, 2 * IDX_STEP, v.n, IDX_STEP * v.scale, v.scale);
	latency(&v);
	throughput(&v);
	return p->n > 0;
}
