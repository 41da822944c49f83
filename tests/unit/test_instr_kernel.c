/*
 * The kernels that measure an instruction form (instr/kernel_host.c) over the hand-written test forms
 * (instr/kernel_forms.h): the pairs found, the chain each latency kernel makes (same register,
 * alternating registers, a connector subtracted or an upper bound), registers rotated for throughput
 * with no instance writing what another reads, idioms and moves labelled, division's values stated,
 * the harness's registers left alone, and every text well-formed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "instr/kernel.h"
#include "instr/kernel_forms.h"
#include "instr/catalogue.h"
#include "bench/ukernel.h"
#include "tests/unit/instr_plan_text.h"

static struct instr_plan p;

static const struct instr_plan *plan(const char *asm_name, size_t nth)
{
	const struct instr_form *f = NULL;
	for (size_t i = 0, seen = 0; i < ikm_test_forms_count && !f; i++)
		if (!strcmp(ikm_test_forms[i].asm_name, asm_name) && seen++ == nth)
			f = &ikm_test_forms[i];
	assert_non_null(f);
	assert_true(instr_plan_build(f, &p));
	assert_string_equal(p.why, "");
	return &p;
}

static const struct ikm *find(const struct instr_plan *pl, const char *from, const char *to)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->m[i].kind == IKM_LATENCY && !strcmp(pl->m[i].from, from) && !strcmp(pl->m[i].to, to))
			return &pl->m[i];
	return NULL;
}

/* The first operand of an instruction line (after the mnemonic and any {load}/{store}), into buf. */
static const char *dest(const char *l, char *buf, size_t cap)
{
	if (l[0] == '{')
		l = strchr(l, ' ') + 1;
	const char *s = strchr(l, ' ');
	size_t n = 0;
	if (!s) {
		buf[0] = 0;
		return buf;
	}
	s++;
	while (s[n] && s[n] != ',' && n + 1 < cap)
		n++;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

static void pairs_of_add(void **state)
{
	(void)state;
	const struct instr_plan *pl = plan("ADD r64, r64", 0);
	const char *want[][2] = { { "op1", "op1" }, { "op2", "op1" }, { "op1", "flags" }, { "op2", "flags" } };
	size_t lat = 0;
	for (size_t i = 0; i < pl->n; i++)
		lat += pl->m[i].kind == IKM_LATENCY;
	assert_int_equal(lat, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_non_null(find(pl, want[i][0], want[i][1]));
	/* op1 -> op1: one instance, its own register chains; exact. */
	const struct ikm *m = find(pl, "op1", "op1");
	assert_int_equal(m->per_iter, 1);
	assert_int_equal(lines(m->body), 1);
	assert_int_equal(m->bound, IKM_EXACT);
	/* op2 -> op1: two instances, each reading what the other wrote. */
	m = find(pl, "op2", "op1");
	char a[64], b[64], d[16];
	assert_int_equal(m->per_iter, 2);
	assert_int_equal(lines(m->body), 2);
	assert_string_equal(line(m->body, 0, a, sizeof(a)), "{store} add rax, rbx");
	assert_string_equal(line(m->body, 1, b, sizeof(b)), "{store} add rbx, rax");
	assert_string_equal(dest(a, d, sizeof(d)), "rax");
	/* register -> flags: through SBB, which cannot be measured alone: an upper bound that says so. */
	m = find(pl, "op2", "flags");
	assert_int_equal(m->bound, IKM_UPPER);
	assert_non_null(strstr(m->via, "sbb"));
	assert_non_null(strstr(m->body, "sbb"));
	assert_null(find(pl, "flags", "op1")); /* ADD reads no flags */
	assert_int_equal(pl->idiom, IKM_IDIOM_NONE);
	assert_string_equal(pl->chain, "");
}

static void two_encodings_chosen(void **state)
{
	(void)state;
	assert_non_null(strstr(plan("ADD r64, r64", 0)->m[0].body, "{store} add")); /* ADD_GPRv_GPRv_01 */
	assert_non_null(strstr(plan("ADD r64, r64", 1)->m[0].body, "{load} add"));  /* ADD_GPRv_GPRv_03 */
	assert_null(strstr(plan("IMUL r64, r64", 0)->m[0].body, "{"));
	assert_null(strstr(plan("ADD r64, m64", 0)->m[0].body, "{")); /* one encoding with memory */
	/* Immediates wide enough that the assembler keeps the form's encoding (imm32, not imm8). */
	assert_string_equal(find(plan("ADD r64, imm32", 0), "op1", "op1")->body, "add r14, 0x12345\n");
	/* The same opcode byte in the general and the vector map: SUB's 28 is MR, (V)MOVAPS's 28 is RM. */
	static const struct instr_operand gg[] = { { IK_R8, IA_READ | IA_WRITE, 0, 0, 8, NULL },
						   { IK_R8, IA_READ, 0, 0, 8, NULL } };
	static const struct instr_operand xx[] = { { IK_XMM, IA_WRITE, 0, 0, 128, NULL },
						   { IK_XMM, IA_READ, 0, 0, 128, NULL } };
	static const struct {
		const char *mnemonic, *iform, *hint;
		const struct instr_operand *ops;
	} cases[] = {
		{ "sub", "SUB_GPR8_GPR8_28", "{store} sub", gg },
		{ "sub", "SUB_GPR8_GPR8_2A", "{load} sub", gg },
		{ "vmovaps", "VMOVAPS_XMMdq_XMMdq_28", "{load} vmovaps", xx },
		{ "vmovaps", "VMOVAPS_XMMdq_XMMdq_29", "{store} vmovaps", xx },
		{ "movaps", "MOVAPS_XMMps_XMMps_0F29", "{store} movaps", xx },
		{ "movq", "MOVQ_XMMdq_XMMq_0FD6", "{store} movq", xx },
		{ "movq", "MOVQ_XMMdq_XMMq_0F7E", "{load} movq", xx },
		{ "vaddps", "VADDPS_XMMdq_XMMdq_AVX", "vaddps", xx },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct instr_form f = { .asm_name = "X",
					.mnemonic = cases[i].mnemonic,
					.iform = cases[i].iform,
					.ops = cases[i].ops,
					.n_ops = 2,
					.n_explicit = 2 };
		assert_true(instr_plan_build(&f, &p));
		assert_true(!strncmp(p.m[0].body, cases[i].hint, strlen(cases[i].hint)));
	}
}

/* Throughput: each instance writes its own register, which no instance reads, and nothing the harness owns. */
static void registers_rotated(void **state)
{
	(void)state;
	static const char *const forms[] = { "ADD r64, r64",	     "IMUL r64, r64",
					     "SHL r64, cl",	     "VADDPS zmm, zmm, zmm",
					     "VADDPS xmm, xmm, xmm", "KADDW k, k, k",
					     "PADDD mm, mm",	     "LEA r64, m" };
	for (size_t f = 0; f < ARRAY_SIZE(forms); f++) {
		const struct instr_plan *pl = plan(forms[f], 0);
		const struct ikm *u = kind(pl, IKM_TP_UNROLLED), *l = kind(pl, IKM_TP_LOOP);
		assert_non_null(u);
		assert_non_null(l);
		assert_string_equal(u->body, l->body);
		assert_int_equal(l->unroll, 1);
		assert_true(u->per_iter >= 4);
		assert_true((size_t)u->unroll * u->per_iter >= 500);
		assert_int_equal(lines(u->body), u->per_iter);
		for (size_t i = 0; i < u->per_iter; i++) {
			char li[96], di[16];
			dest(line(u->body, i, li, sizeof(li)), di, sizeof(di));
			for (size_t j = 0; j < u->per_iter; j++) {
				char lj[96], dj[16];
				line(u->body, j, lj, sizeof(lj));
				if (j != i)
					assert_string_not_equal(di, dest(lj, dj, sizeof(dj)));
				/* The other operands (after the destination) never name another instance's destination. */
				const char *rest = strchr(lj, ',');
				if (j != i && rest) {
					char pat[20];
					snprintf(pat, sizeof(pat), " %s,", di);
					assert_null(strstr(rest, pat));
					snprintf(pat, sizeof(pat), " %s", di);
					size_t n = strlen(pat), rl = strlen(rest);
					assert_false(rl >= n && !strcmp(rest + rl - n, pat));
				}
			}
		}
		assert_string_equal(pl->chain, "");
	}
	/* SHL's count register is the form's: never rotated. */
	assert_null(strstr(kind(plan("SHL r64, cl", 0), IKM_TP_UNROLLED)->body, "shl rcx"));
}

static void implicit_chain_named(void **state)
{
	(void)state;
	assert_string_equal(
		plan("DIV r64", 0)->chain,
		"rax, rdx read and written by every instance; broken by mov rax, 0x7fffffffffffffff; xor edx, "
		"edx before each instance (included)");
	assert_non_null(
		strstr(plan("ADC r64, r64", 0)->chain, "flags read and written by every instance; broken by test r"));
	assert_string_equal(
		plan("MUL r64", 0)->chain,
		"rax read and written by every instance; broken by mov eax, 1 before each instance (included)");
}

static void flags_pairs(void **state)
{
	(void)state;
	const struct instr_plan *pl = plan("ADC r64, r64", 0);
	const struct ikm *m = find(pl, "flags", "op1");
	assert_non_null(m);
	assert_int_equal(m->bound, IKM_UPPER);
	assert_non_null(strstr(m->body, "cmp "));
	assert_int_equal(m->least, 1); /* CMP: a cycle at least, subtracted; the figure stays a bound */
	m = find(pl, "flags", "flags");
	assert_non_null(m);
	assert_int_equal(m->bound, IKM_EXACT);
	assert_true(m->per_iter >= 4); /* registers rotated: only the carry chains the instances */
	assert_int_equal(lines(m->body), m->per_iter);
	/* A long trip: the harness's dec between trips restarts an OF chain (ADOX). */
	assert_true(m->per_iter * m->unroll >= 256);
	m = find(plan("ADOX r64, r64", 0), "flags", "flags");
	assert_non_null(m);
	assert_true(m->per_iter * m->unroll >= 256);
}

/*
 * XED's cw destination (CMOVcc, BSF): kept when not written, so an input of its own chain.  Every latency
 * chain is long enough that the harness's loop (dec/jnz, which writes ZF and friends) is a small part of it:
 * a CMOVZ chain paid about 2 cycles a trip for reading the loop's ZF, 1.15 cycles an instance at 16 instances a
 * trip and 1.04 at 64 (development host).
 */
static void conditional_write_chains_and_loops_are_long(void **state)
{
	(void)state;
	struct instr_operand ops[] = { { IK_R64, IA_WRITE | IA_COND, 0, 0, 64, NULL },
				       { IK_R64, IA_READ, 0, 0, 64, NULL } };
	struct instr_form f = { .asm_name = "CMOVZ r64, r64",
				.mnemonic = "cmovz",
				.iform = "CMOVZ_GPRv_GPRv",
				.ops = ops,
				.n_ops = 2,
				.n_explicit = 2,
				.flags_read = IFL_ZF };
	assert_true(instr_plan_build(&f, &p));
	const struct ikm *m = find(&p, "op1", "op1");
	assert_non_null(m);
	assert_int_equal(m->bound, IKM_EXACT);
	assert_non_null(find(&p, "op2", "op1"));
	assert_non_null(find(&p, "flags", "op1"));
	for (size_t i = 0; i < p.n; i++)
		if (p.m[i].kind == IKM_LATENCY)
			assert_true((unsigned)p.m[i].unroll * p.m[i].per_iter >= 64);
}

/* A store narrower than its register is read back as wide as it was stored, so that it forwards. */
static void narrow_store_read_back_as_stored(void **state)
{
	(void)state;
	static const struct {
		uint8_t kind;
		uint16_t rbits, mbits;
		const char *mnemonic, *want;
	} cases[] = {
		{ IK_XMM, 128, 64, "movq", "movq xmm" },	  { IK_XMM, 128, 32, "movd", "movd xmm" },
		{ IK_XMM, 128, 8, "pextrb", "pinsrb xmm" },	  { IK_YMM, 256, 128, "vextracti128", "vmovdqu xmm" },
		{ IK_ZMM, 512, 256, "vpmovqd", "vmovdqu64 ymm" }, { IK_MM, 64, 32, "movd", "movd mm" },
		{ IK_XMM, 128, 128, "movdqu", "movdqu xmm" }, /* as wide: the register's own load, as before */
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct instr_operand ops[] = { { IK_MEM, IA_WRITE, 0, 0, cases[i].mbits, NULL },
					       { cases[i].kind, IA_READ, 0, 0, cases[i].rbits, NULL } };
		bool v = cases[i].mnemonic[0] == 'v';
		struct instr_form f = { .asm_name = "X m, r",
					.mnemonic = cases[i].mnemonic,
					.iform = "X_01",
					.ops = ops,
					.n_ops = 2,
					.n_explicit = 2,
					.extension = cases[i].kind == IK_ZMM ? "AVX512EVEX"
						     : v		     ? "AVX"
									     : "SSE2" };
		assert_true(instr_plan_build(&f, &p));
		const struct ikm *m = find(&p, "op2", "op1");
		assert_non_null(m);
		assert_int_equal(m->bound, IKM_UPPER);
		const char *load = strstr(m->body, "\n");
		assert_non_null(load);
		if (!strstr(load + 1, cases[i].want) || !strstr(load + 1, ikm_size_word(cases[i].mbits)))
			fail_msg("%s m%u, r%u read back with '%s', not %s", cases[i].mnemonic, cases[i].mbits,
				 cases[i].rbits, load + 1, cases[i].want);
	}
}

/* A chain throughput cannot avoid (a fixed register, the flags) gets a run with it broken before each instance. */
static void unavoidable_chains_broken(void **state)
{
	(void)state;
	static const struct {
		const char *asm_name, *breaker, *chain;
		size_t lines; /* the resets' lines before each instance */
	} cases[] = {
		{ "MUL r64", "mov eax, 1\n", "rax", 1 },
		{ "DIV r64", "xor edx, edx\n", "broken by mov rax, 0x7fffffffffffffff; xor edx, edx", 2 },
		{ "ADC r64, r64", "test ", "flags", 1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct instr_plan *pl = plan(cases[i].asm_name, 0);
		const struct ikm *u = kind(pl, IKM_TP_UNROLLED), *b = kind(pl, IKM_TP_BROKEN);
		assert_non_null(u);
		if (!b)
			fail_msg("%s: no throughput with its chain broken (chain '%s')", cases[i].asm_name, pl->chain);
		/* The same instances, each after its reset: as many resets as instances. */
		assert_int_equal(b->per_iter, u->per_iter);
		assert_int_equal(b->unroll, u->unroll);
		size_t resets = 0;
		for (const char *at = b->body; (at = strstr(at, cases[i].breaker)) != NULL; at++)
			resets++;
		assert_int_equal(resets, b->per_iter);
		assert_int_equal(lines(b->body), lines(u->body) + b->per_iter * cases[i].lines);
		if (!strstr(pl->chain, cases[i].chain) || !strstr(pl->chain, "broken by"))
			fail_msg("%s: chain '%s'", cases[i].asm_name, pl->chain);
	}
	/* Nothing chains ADD's instances (it writes the flags, reads none): no such run. */
	assert_null(kind(plan("ADD r64, r64", 0), IKM_TP_BROKEN));
}

/*
 * Register -> flags reads back a flag the form writes and defines: SBB reads only the carry, and INC
 * leaves the carry alone, so `inc r14 / sbb r14, r14` timed SBB's own chain (0.002 cycles were left
 * for INC).  BSF defines only ZF (its carry is undefined, SDM Vol. 2A BSF); ADOX writes only OF.
 */
static void flags_read_back_by_a_flag_the_form_writes(void **state)
{
	(void)state;
	static const struct {
		const char *asm_name, *from, *connector, *via;
	} cases[] = {
		{ "ADD r64, r64", "op2", "sbb r13, r13", "sbb r, r" },
		{ "INC r64", "op1", "cmovz r14, r14", "cmovz r, r (the zero flag" },
		{ "INC r8", "op1", "cmovz r14d, r14d", "cmovz r, r" }, /* no byte CMOVcc: the dword */
		{ "BSF r64, r64", "op2", "cmovz r13, r13", "cmovz r, r" },
		{ "ADOX r64, r64", "op2", "cmovo r13, r13", "cmovo r, r (the overflow flag" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct ikm *m = find(plan(cases[i].asm_name, 0), cases[i].from, "flags");
		if (!m)
			fail_msg("%s: no %s -> flags", cases[i].asm_name, cases[i].from);
		char l[64];
		assert_string_equal(line(m->body, 1, l, sizeof(l)), cases[i].connector);
		assert_non_null(strstr(m->via, cases[i].via));
		assert_int_equal(m->bound, IKM_UPPER);
		assert_int_equal(m->least, 1);
	}
}

/*
 * A length-changing prefix (66H with a 16-bit immediate) stalls the legacy decoders: `add r16, imm16` chained
 * ran at 3.2 cycles a link as 64 copies a trip, 1.00 as 4.  Its kernels run short trips; the unrolled
 * throughput keeps its long straight run (the lower of it and the loop is reported).  An 8-bit immediate
 * has no such prefix.
 */
static void length_changing_prefix_short_trips(void **state)
{
	(void)state;
	const struct instr_plan *pl = plan("ADD r16, imm16", 0);
	size_t lat = 0;
	for (size_t i = 0; i < pl->n; i++) {
		const struct ikm *m = &pl->m[i];
		if (m->kind == IKM_LATENCY) {
			assert_true(lines(m->body) * m->unroll <= 4);
			assert_non_null(strstr(m->note, "length-changing prefix"));
			lat++;
		}
	}
	assert_int_equal(lat, 2); /* op1 -> op1, op1 -> flags */
	const struct ikm *l = kind(pl, IKM_TP_LOOP), *u = kind(pl, IKM_TP_UNROLLED);
	assert_int_equal(l->per_iter, 4);
	assert_int_equal(lines(l->body), 4);
	assert_int_equal(l->unroll, 1);
	assert_true(u->per_iter * u->unroll >= 512);
	pl = plan("ADD r16, imm8", 0);
	assert_int_equal(find(pl, "op1", "op1")->unroll, 64);
	assert_null(find(pl, "op1", "op1")->note);
	assert_true(kind(pl, IKM_TP_LOOP)->per_iter > 4);
}

static void connectors(void **state)
{
	(void)state;
	/* A fixed register on one side: a copy that executes, measured alone and subtracted. */
	const struct instr_plan *pl = plan("MUL r64", 0);
	const struct ikm *m = find(pl, "op1", "rdx");
	assert_non_null(m);
	assert_int_equal(m->bound, IKM_EXACT);
	assert_true(m->sub[0] >= 0 && (size_t)m->sub[0] < pl->n);
	const struct ikm *c = &pl->m[m->sub[0]];
	assert_int_equal(c->kind, IKM_CONNECTOR);
	assert_string_equal(c->name, "conn_or_gpr");
	assert_int_equal(c->per_iter, 2);
	assert_non_null(strstr(m->body, "or rbx, rdx"));
	assert_ptr_equal(&pl->m[find(pl, "rax", "rdx")->sub[0]], c); /* one connector measurement per plan */
	/* Register files that differ: the reverse move, which cannot be measured alone: an upper bound. */
	pl = plan("MOVQ xmm, r64", 0);
	m = find(pl, "op2", "op1");
	assert_int_equal(m->bound, IKM_UPPER);
	assert_int_equal(m->sub[0], IKM_NO_SUB);
	assert_int_equal(m->least, 1); /* the move back counted at its least, a cycle (uops.info's bound) */
	assert_non_null(strstr(m->via, "1 cycle"));
	char l[64];
	assert_string_equal(line(m->body, 0, l, sizeof(l)), "movq xmm0, rax");
	assert_string_equal(line(m->body, 1, l, sizeof(l)), "movq rax, xmm0");
	pl = plan("MOVQ r64, xmm", 0);
	assert_string_equal(line(find(pl, "op2", "op1")->body, 1, l, sizeof(l)), "movq xmm0, rax");
	assert_int_equal(pl->idiom, IKM_IDIOM_NONE); /* across files: not a move renaming removes */
	/* A mask result back into a vector operand (AVX512DQ's vpmovm2d). */
	m = find(plan("VPCMPEQD k, zmm, zmm", 0), "op2", "op1");
	assert_string_equal(line(m->body, 1, l, sizeof(l)), "vpmovm2d zmm0, k1");
	assert_int_equal(m->bound, IKM_UPPER);
	/* A vector input -> flags: sbb into a general register, then into the vector register. */
	m = find(plan("PTEST xmm, xmm", 0), "op1", "flags");
	assert_string_equal(m->body, "ptest xmm15, xmm14\nsbb rax, rax\nmovq xmm15, rax\n");
	assert_int_equal(m->least, 2); /* SBB and the move: a cycle each at least */
	assert_int_equal(find(plan("CMP r64, r64", 0), "op1", "flags")->least, 1);
	/* flags -> a byte register: CMP reads the whole register the SETcc wrote. */
	assert_string_equal(find(plan("SETB r8", 0), "flags", "op1")->body, "setb r14b\ncmp r14, 0\n");
	/* A fixed vector input (BLENDVPS's xmm0): the shuffle copy, subtracted. */
	/* Only an upper bound counts a connector at its least. */
	for (size_t i = 0; i < ikm_test_forms_count; i++) {
		assert_true(instr_plan_build(&ikm_test_forms[i], &p) || p.n == 0);
		for (size_t j = 0; j < p.n; j++)
			if (p.m[j].bound != IKM_UPPER)
				assert_int_equal(p.m[j].least, 0);
	}
	/* A bit offset into memory through SBB (0 or -1): the address chains' AND keeps it in the window, measured
	 * alone and subtracted; SBB still counts at its least. */
	pl = plan("BTS m64, r64", 0);
	m = find(pl, "op2", "flags");
	assert_non_null(m);
	assert_string_equal(m->body, "bts qword ptr [rsi+0], r14\nsbb r14, r14\nand r14, 0xff8\n");
	assert_string_equal(pl->m[m->sub[0]].name, "conn_and_gpr");
	assert_int_equal(m->least, 1);
	/* CMP's register is no offset: SBB alone. */
	assert_string_equal(find(plan("CMP r64, r64", 0), "op1", "flags")->body, "{store} cmp r14, r13\nsbb r14, r14\n");
	pl = plan("BLENDVPS xmm, xmm", 0);
	m = find(pl, "xmm0", "op1");
	assert_string_equal(m->body, "blendvps xmm1, xmm14\npshufd xmm0, xmm1, 0xe4\n");
	assert_string_equal(pl->m[m->sub[0]].name, "conn_shuf_vec_sse");
}

static void assert_xor_connected(const struct instr_plan *pl, const struct ikm *m);

static void memory_pairs(void **state)
{
	(void)state;
	/* A load: the address register chained through the result (an AND keeps it in the window, subtracted). */
	const struct instr_plan *pl = plan("ADD r64, m64", 0);
	const struct ikm *m = find(pl, "op2.addr", "op1");
	assert_non_null(m);
	assert_int_equal(m->fill, 0);
	assert_int_equal(m->bound, IKM_EXACT);
	assert_string_equal(pl->m[m->sub[0]].name, "conn_and_gpr");
	char l[64];
	assert_string_equal(line(m->body, 0, l, sizeof(l)), "add rax, qword ptr [rsi+rax]");
	assert_non_null(strstr(m->init, "xor eax, eax"));
	/* Memory contents -> register: a store brings the result back: an upper bound. */
	m = find(pl, "op2", "op1");
	assert_int_equal(m->bound, IKM_UPPER);
	assert_non_null(strstr(m->body, "mov qword ptr [rsi], "));
	/* A read-modify-write destination: its chain runs through memory as it occurs; the register through a load. */
	pl = plan("ADD m64, r64", 0);
	m = find(pl, "op1", "op1");
	assert_int_equal(m->bound, IKM_EXACT);
	assert_int_equal(lines(m->body), 1);
	m = find(pl, "op2", "op1");
	assert_int_equal(m->bound, IKM_UPPER);
	assert_non_null(strstr(m->body, ", qword ptr [rsi]\n"));
	/* Throughput instances touch memory one line apart, so they do not chain through it. */
	const struct ikm *u = kind(pl, IKM_TP_UNROLLED);
	assert_non_null(strstr(u->body, "[rsi+0]"));
	assert_non_null(strstr(u->body, "[rsi+64]"));
	/* LEA: the address is registers only. */
	pl = plan("LEA r64, m", 0);
	m = find(pl, "op2.addr", "op1");
	assert_non_null(m);
	assert_string_equal(line(m->body, 0, l, sizeof(l)), "lea rax, [rax+r15*1]");
}

/* An index of its own that stays 0 and takes the result by xor twice: the line after `after` (or the first). */
static void assert_xor_index(const struct instr_plan *pl, const struct ikm *m, const char *result)
{
	char idx[8], want[64];
	assert_non_null(m);
	const char *at = strstr(m->body, "[rsi+");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "[rsi+%7[a-z0-9]]", idx), 1);
	snprintf(want, sizeof(want), "xor %s, %s\nxor %s, %s\n", idx, result, idx, result);
	assert_non_null(strstr(m->body, want));
	assert_xor_connected(pl, m);
	/* 0 from init: the 32-bit zeroing idiom of the same register. */
	for (int w = 0; w < 16; w++)
		if (!strcmp(ikm_gpr_names[3][w], idx)) {
			snprintf(want, sizeof(want), "xor %s, %s\n", ikm_gpr_names[2][w], ikm_gpr_names[2][w]);
			assert_non_null(strstr(m->init, want));
		}
}

/* Address -> a result the AND chain cannot index with: a fixed register, a vector, a broadcast. */
static void address_pairs(void **state)
{
	(void)state;
	/* MUL m64 writes rax, which it also reads: the index is another register, and rax is set again after. */
	const struct instr_plan *pl = plan("MUL m64", 0);
	const struct ikm *m = find(pl, "op1.addr", "rax");
	assert_xor_index(pl, m, "rax");
	assert_int_equal(m->bound, IKM_EXACT);
	assert_non_null(strstr(strstr(m->body, "xor "), "mov eax, 1\n"));
	assert_int_equal(strncmp(m->body, "mul qword ptr [rsi+", 19), 0);
	assert_xor_index(pl, find(pl, "op1.addr", "rdx"), "rdx");
	/* A vector result goes to a general register first: counted at its least, an upper bound. */
	pl = plan("VMOVAPS xmm, m128", 0);
	m = find(pl, "op2.addr", "op1");
	char tmp[8];
	assert_non_null(m);
	assert_int_equal(m->bound, IKM_UPPER);
	assert_int_equal(m->least, 1);
	const char *move = strstr(m->body, "vmovq ");
	assert_non_null(move);
	assert_int_equal(sscanf(move, "vmovq %7[a-z0-9], xmm", tmp), 1);
	assert_xor_index(pl, m, tmp);
	/* A broadcast stays one with an index (GNU as: `dword bcst`; `dword ptr` would load 32 bits). */
	pl = plan("VADDPS zmm, zmm, m32bcst", 0);
	m = find(pl, "op3.addr", "op1");
	assert_non_null(m);
	assert_int_equal(m->bound, IKM_UPPER);
	assert_non_null(strstr(m->body, ", dword bcst [rsi+"));
	/* Divides keep their own: the divisor's address, an index through xor, exact. */
	pl = plan("DIV m64", 0);
	assert_xor_index(pl, find(pl, "op1.addr", "rdx"), "rdx");
}

static void idioms_labelled(void **state)
{
	(void)state;
	const struct instr_plan *pl = plan("XOR r64, r64", 0);
	assert_int_equal(pl->idiom, IKM_IDIOM_ZERO);
	assert_string_equal(ikm_idiom_name(pl->idiom), "zero idiom");
	const struct ikm *l = kind(pl, IKM_IDIOM_LATENCY), *t = kind(pl, IKM_IDIOM_TP);
	char b[64];
	assert_string_equal(line(l->body, 0, b, sizeof(b)), "{store} xor rax, rax");
	assert_non_null(strstr(l->note, "zero idiom"));
	for (size_t i = 0; i < t->per_iter; i++) {
		char d[16];
		line(t->body, i, b, sizeof(b));
		dest(b, d, sizeof(d));
		const char *src = strrchr(b, ' ') + 1;
		assert_string_equal(d, src); /* xor rX, rX */
	}
	/* The ordinary pairs are measured too, with two registers. */
	assert_string_equal(line(find(pl, "op2", "op1")->body, 0, b, sizeof(b)), "{store} xor rax, rbx");
	assert_int_equal(plan("PCMPEQD xmm, xmm", 0)->idiom, IKM_IDIOM_ONES);
	/* A form that cannot name one register twice is no idiom, whatever its mnemonic. */
	static const char *const never[] = { "XOR r64, imm32", "SUB r64, imm8", "XOR r64, m64", "PXOR xmm, m128",
					     "PCMPEQD xmm, m128" };
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		const struct instr_form *f = NULL;
		for (size_t k = 0; k < instr_forms_count && !f; k++)
			if (!strcmp(instr_forms[k].asm_name, never[i]))
				f = &instr_forms[k];
		assert_non_null(f);
		assert_true(instr_plan_build(f, &p));
		assert_int_equal(p.idiom, IKM_IDIOM_NONE);
		assert_null(kind(&p, IKM_IDIOM_LATENCY));
	}
	pl = plan("MOV r64, r64", 0);
	assert_int_equal(pl->idiom, IKM_IDIOM_MOVE);
	assert_non_null(strstr(find(pl, "op2", "op1")->note, "move elimination"));
	assert_null(kind(pl, IKM_IDIOM_LATENCY)); /* a move has no same-register idiom to measure */
	assert_int_equal(plan("MOV m64, r64", 0)->idiom, IKM_IDIOM_NONE);
}

static void division_values(void **state)
{
	(void)state;
	const struct instr_plan *pl = plan("DIV r64", 0);
	assert_non_null(find(pl, "rax", "rax"));
	assert_non_null(find(pl, "rdx", "rdx"));
	assert_non_null(strstr(pl->values, "dividend"));
	const struct ikm *m = find(pl, "rax", "rax");
	assert_non_null(strstr(m->init, "xor edx, edx\nmov rax, 0x7fffffffffffffff\n"));
	assert_non_null(strstr(m->init, "mov ebx, 1\n")); /* divisors 1 */
	assert_non_null(strstr(pl->skipped, "op1->flags: a divide leaves every flag undefined"));
}

/* The connector of a divide's pair between operands: xor twice, both subtracted. */
static void assert_xor_connected(const struct instr_plan *pl, const struct ikm *m)
{
	assert_non_null(m);
	assert_int_not_equal(m->sub[0], IKM_NO_SUB);
	assert_int_equal(m->sub[0], m->sub[1]);
	const struct ikm *x = &pl->m[m->sub[0]];
	assert_int_equal(x->kind, IKM_CONNECTOR);
	assert_string_equal(x->name, "conn_xor_gpr");
	/* Two registers: a chain through the first, not the zeroing idiom. */
	char a[8], b[8];
	assert_int_equal(sscanf(x->body, "xor %7[a-z0-9], %7[a-z0-9]", a, b), 2);
	assert_string_not_equal(a, b);
}

/* Every pair of a divide is measured with the values kept: the input gets the output by xor twice. */
static void division_pairs(void **state)
{
	(void)state;
	const struct instr_plan *pl = plan("DIV r64", 0);
	char divisor[8], want[64];
	const struct ikm *m = find(pl, "op1", "rax");
	assert_xor_connected(pl, m);
	assert_int_equal(m->bound, IKM_EXACT);
	assert_int_equal(sscanf(m->body, "div %7[a-z0-9]", divisor), 1);
	/* The divisor takes the quotient twice, then both halves of the dividend are set again. */
	snprintf(want, sizeof(want), "xor %s, rax\nxor %s, rax\n", divisor, divisor);
	assert_non_null(strstr(m->body, want));
	assert_non_null(strstr(strstr(m->body, want), "mov rax, 0x7fffffffffffffff\n"));
	assert_non_null(strstr(strstr(m->body, want), "xor edx, edx\n"));
	assert_xor_connected(pl, find(pl, "op1", "rdx"));
	/* rdx -> rax: rdx is written by the divide too, so it is set before it takes the quotient, and rax after. */
	m = find(pl, "rdx", "rax");
	assert_xor_connected(pl, m);
	assert_non_null(strstr(m->body, "xor edx, edx\nxor rdx, rax\nxor rdx, rax\nmov rax, 0x7fffffffffffffff\n"));
	m = find(pl, "rax", "rdx");
	assert_non_null(strstr(m->body, "mov rax, 0x7fffffffffffffff\nxor rax, rdx\nxor rax, rdx\nxor edx, edx\n"));

	/* The divisor in memory: stored back from a register holding 1 (an upper bound); its address: an index. */
	pl = plan("DIV m64", 0);
	m = find(pl, "op1", "rax");
	assert_xor_connected(pl, m);
	assert_int_equal(m->bound, IKM_UPPER);
	assert_non_null(strstr(m->body, "\nmov qword ptr [rsi], "));
	m = find(pl, "op1.addr", "rax");
	assert_xor_connected(pl, m);
	assert_int_equal(m->bound, IKM_EXACT);
	assert_non_null(strstr(m->body, "div qword ptr [rsi+"));
	pl = plan("IDIV r8", 0);
	assert_xor_connected(pl, find(pl, "op1", "ax"));
	assert_non_null(strstr(find(pl, "op1", "ax")->body, "mov rax, 0x7f\n"));
}

/* The connector of a mask pair: kxor at the mask's width, twice, both subtracted. */
static void assert_kxor_connected(const struct instr_plan *pl, const struct ikm *m, const char *suffix, const char *kr)
{
	char want[64], a[8], b[8];
	snprintf(want, sizeof(want), "kxor%s k1, k1, %s\nkxor%s k1, k1, %s\n", suffix, kr, suffix, kr);
	assert_non_null(strstr(m->body, want));
	assert_int_not_equal(m->sub[0], IKM_NO_SUB);
	assert_int_equal(m->sub[0], m->sub[1]);
	const struct ikm *x = &pl->m[m->sub[0]];
	assert_int_equal(x->kind, IKM_CONNECTOR);
	snprintf(want, sizeof(want), "kxor%s %%7[k0-9], %%7[k0-9], k", suffix);
	assert_int_equal(sscanf(x->body, want, a, b), 2);
	assert_string_equal(a, b);	  /* a chain through its first register */
	assert_string_not_equal(a, "k1"); /* not the mask the instances read */
}

/* The write mask -> the result: the mask takes it back by kxor twice and stays all ones, at its width. */
static void mask_pairs(void **state)
{
	(void)state;
	const struct instr_plan *pl = plan("VADDPS zmm{k}, zmm, zmm", 0);
	const struct ikm *m = find(pl, "k1", "op1");
	char out[8], kr[8], l[96];
	assert_non_null(m);
	assert_int_equal(m->bound, IKM_UPPER); /* a vector made a mask: counted at its least */
	assert_int_equal(m->least, 1);
	assert_int_equal(sscanf(line(m->body, 0, l, sizeof(l)), "vaddps %7[a-z0-9]{k1}", out), 1);
	const char *t = strstr(m->body, "vptestmd ");
	assert_non_null(t);
	assert_int_equal(sscanf(t, "vptestmd %7[k0-9], ", kr), 1);
	assert_non_null(strstr(t, out + 1)); /* the result's register, as zmm */
	assert_kxor_connected(pl, m, "w", kr);
	assert_non_null(strstr(m->init, "kxnorw k1, k1, k1\n"));
	/* 64 byte elements: the mask is all ones in 64 bits (KXNORW would clear bits 16 up). */
	pl = plan("VPADDB zmm{k}, zmm, zmm", 0);
	m = find(pl, "k1", "op1");
	assert_non_null(m);
	assert_non_null(strstr(m->init, "kxnorq k1, k1, k1\n"));
	assert_null(strstr(m->init, "kxnorw"));
	assert_int_equal(sscanf(strstr(m->body, "vptestmd "), "vptestmd %7[k0-9], ", kr), 1);
	assert_kxor_connected(pl, m, "q", kr);
	assert_non_null(strstr(kind(pl, IKM_TP_UNROLLED)->init, "kxnorq k1, k1, k1\n"));
	/* A ymm result is tested as ymm (AVX512VL, which the form's CPU has), not as zmm. */
	pl = plan("VADDPS ymm{k}, ymm, ymm", 0);
	m = find(pl, "k1", "op1");
	assert_non_null(m);
	assert_int_equal(sscanf(line(m->body, 0, l, sizeof(l)), "vaddps %7[a-z0-9]{k1}", out), 1);
	char want[48];
	snprintf(want, sizeof(want), ", %s, %s\n", out, out);
	assert_non_null(strstr(m->body, want));
	assert_null(strstr(m->body, "zmm"));
	/* A mask result: no move between files, exact. */
	pl = plan("VPCMPEQD k{k}, zmm, zmm", 0);
	m = find(pl, "k1", "op1");
	assert_non_null(m);
	assert_int_equal(m->bound, IKM_EXACT);
	assert_int_equal(sscanf(line(m->body, 0, l, sizeof(l)), "vpcmpeqd %7[k0-9]{k1}", kr), 1);
	assert_kxor_connected(pl, m, "w", kr);
	/* A masked store's memory is not chained back into the mask. */
	pl = plan("VMOVUPS m512{k}, zmm", 0);
	assert_null(find(pl, "k1", "op1"));
	assert_non_null(strstr(pl->skipped, "k1->op1: a masked store"));
}

/* Both operands written (XCHG, MUL's rax -> rdx): the input's own value dropped, the output copied in. */
static void written_input_pairs(void **state)
{
	(void)state;
	const struct instr_plan *pl = plan("XCHG r64, r64", 0);
	const struct ikm *m = find(pl, "op2", "op1");
	char a[8], b[8], want[64], l[64];
	assert_non_null(m);
	assert_int_equal(m->per_iter, 1);
	assert_int_equal(sscanf(line(m->body, 0, l, sizeof(l)), "xchg %7[a-z0-9], %7[a-z0-9]", a, b), 2);
	/* op2 is the input: zeroed (the idiom), then op1's value copied in. */
	int w = -1;
	for (int r = 0; r < 16; r++)
		w = strcmp(ikm_gpr_names[3][r], b) ? w : r;
	assert_true(w >= 0);
	snprintf(want, sizeof(want), "\nxor %s, %s\nor %s, %s\n", ikm_gpr_names[2][w], ikm_gpr_names[2][w], b, a);
	assert_non_null(strstr(m->body, want));
	assert_string_equal(pl->m[m->sub[0]].name, "conn_or_gpr");
	/* rax has XCHG's one-byte form of its own: never handed to XCHG r64, r64. */
	for (size_t i = 0; i < pl->n; i++)
		assert_null(strstr(pl->m[i].body, "rax"));
	/* ADD with an immediate has a shorter rAX form too (05 id, ADD_OrAX_IMMz): no kernel gives it rax or al. */
	static const char *const imm_forms[] = { "ADD r64, imm32", "ADD r8, imm8" };
	for (size_t f = 0; f < ARRAY_SIZE(imm_forms); f++) {
		const struct instr_plan *q = plan(imm_forms[f], 0);
		for (size_t i = 0; i < q->n; i++) {
			assert_null(strstr(q->m[i].body, "rax"));
			assert_null(strstr(q->m[i].body, " al,"));
		}
	}
	pl = plan("XCHG r64, r64", 0);
	/* The self pairs run both paths in turn: said so. */
	assert_non_null(strstr(find(pl, "op1", "op1")->note, "their mean"));
	/* MUL's rax is read and written: rax -> rdx drops rax's own value before rdx is copied in. */
	pl = plan("MUL r64", 0);
	m = find(pl, "rax", "rdx");
	assert_non_null(m);
	assert_non_null(strstr(m->body, "\nxor eax, eax\nor rax, rdx\n"));
}

static void vector_state(void **state)
{
	(void)state;
	const struct instr_plan *pl = plan("VADDPS zmm{k}, zmm, zmm", 0);
	const struct ikm *u = kind(pl, IKM_TP_UNROLLED);
	for (size_t i = 0; i < u->per_iter; i++) {
		char b[96];
		assert_non_null(strstr(line(u->body, i, b, sizeof(b)), "{k1}, "));
	}
	assert_non_null(strstr(u->init, "kxnorw k1, k1, k1\n"));
	assert_non_null(strstr(u->init, "vbroadcastss zmm31, dword ptr [rdx+4032]\n"));
	assert_non_null(find(pl, "k1", "op1")); /* the mask is chained too */
	/* The same form with its mask listed as an operand of its own (after op1): the same kernels. */
	static const struct instr_operand zkzz[] = { { IK_ZMM, IA_READ | IA_WRITE, 0, 0, 512, NULL },
						     { IK_K, IA_READ, 0, 0, 64, NULL },
						     { IK_ZMM, IA_READ, 0, 0, 512, NULL },
						     { IK_ZMM, IA_READ, 0, 0, 512, NULL } };
	static struct instr_plan q;
	struct instr_form f = *ikm_test_form("VADDPS zmm{k}, zmm, zmm");
	f.ops = zkzz;
	f.n_explicit = 4;
	assert_true(instr_plan_build(&f, &q));
	assert_int_equal(q.n, pl->n);
	for (size_t i = 0; i < q.n; i++) {
		assert_string_equal(q.m[i].body, pl->m[i].body);
		assert_string_equal(q.m[i].from, pl->m[i].from);
	}
	/* Merge masking reads the destination: op1 -> op1 is a pair. */
	assert_non_null(find(pl, "op1", "op1"));
	assert_null(find(plan("VADDPS zmm, zmm, zmm", 0), "op1", "op1"));
	/* Zero masking and static rounding: {k1}{z} on the destination, the rounding after the registers. */
	pl = plan("VADDPS zmm{k}{z}, zmm, zmm{rne-sae}", 0);
	char b[96];
	assert_string_equal(line(find(pl, "op2", "op1")->body, 0, b, sizeof(b)),
			    "vaddps zmm0{k1}{z}, zmm1, zmm29, {rn-sae}");
	assert_null(find(pl, "op1", "op1")); /* zero masking does not read the destination */
	static const struct instr_operand kzzi[] = { { IK_K, IA_WRITE, 0, 0, 16, NULL },
						     { IK_ZMM, IA_READ, 0, 0, 512, NULL },
						     { IK_ZMM, IA_READ, 0, 0, 512, NULL },
						     { IK_IMM8, IA_READ, 0, 0, 8, NULL } };
	struct instr_form cmp = { .asm_name = "VCMPPS k, zmm, zmm{sae}, imm8",
				  .mnemonic = "vcmpps",
				  .ops = kzzi,
				  .n_ops = 4,
				  .n_explicit = 4,
				  .attrs = IFA_SAE };
	assert_true(instr_plan_build(&cmp, &q));
	assert_string_equal(line(kind(&q, IKM_TP_UNROLLED)->body, 0, b, sizeof(b)),
			    "vcmpps k1, zmm31, zmm30, {sae}, 3");
	/* Legacy SSE forms start their registers without VEX. */
	pl = plan("PCMPEQD xmm, xmm", 0);
	assert_non_null(strstr(pl->m[0].init, "shufps xmm15, xmm15, 0\n"));
	assert_null(strstr(pl->m[0].init, "vbroadcastss"));
	assert_non_null(strstr(plan("PADDD mm, mm", 0)->m[0].init, "movq mm7, rax\n"));
	assert_non_null(strstr(plan("VADDPS zmm, zmm, m32bcst", 0)->m[0].body, "dword bcst [rsi+0]"));
}

static bool starts_with(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* Broadcasts: the count GNU as cannot derive is given (a narrowing conversion), the others left to it. */
static void broadcasts_spelt(void **state)
{
	(void)state;
	static const struct {
		const char *asm_name, *iform, *want, *not_want;
	} cases[] = {
		/* 8 floats into 8 qwords: the widest register (zmm) would say 16. */
		{ "VCVTPS2QQ zmm, m32bcst", "VCVTPS2QQ_ZMMi64_MASKmskw_MEMf32_AVX512", "dword bcst [rsi+", "{1to" },
		/* Two iforms, one name: 2 or 4 doubles into an xmm. */
		{ "VCVTPD2PS xmm, m64bcst", "VCVTPD2PS_XMMf32_MASKmskw_MEMf64_AVX512_VL128", "qword ptr [rsi+0]{1to2}",
		  "bcst" },
		{ "VCVTPD2PS xmm, m64bcst", "VCVTPD2PS_XMMf32_MASKmskw_MEMf64_AVX512_VL256", "qword ptr [rsi+0]{1to4}",
		  "bcst" },
		/* No vector register to tell: the k destination. */
		{ "VFPCLASSPD k, m64bcst, imm8", "VFPCLASSPD_MASKmskw_MASKmskw_MEMf64_IMM8_AVX512_VL512",
		  "qword ptr [rsi+0]{1to8}", "bcst" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_true(instr_plan_build(catalogue_form(cases[i].asm_name, cases[i].iform), &p));
		const char *b = kind(&p, IKM_TP_UNROLLED)->body;
		assert_non_null(strstr(b, cases[i].want));
		assert_null(strstr(b, cases[i].not_want));
	}
}

/* Forms GNU as will not spell as the SDM does, in a spelling of the same encoding (the bytes in comments). */
/* The unrolled throughput kernel's body of plan p. */
static const char *tp_body(void)
{
	const struct ikm *t = kind(&p, IKM_TP_UNROLLED);
	assert_non_null(t);
	return t ? t->body : "";
}

static void respelled_forms(void **state)
{
	(void)state;
	char l[96];
	/* 66 63 /r: MOVSXD r16, r/m16 written with a 32-bit destination and the data16 prefix. */
	assert_true(instr_plan_build(catalogue_form("MOVSXD r16, r16", "MOVSXD_GPRv_GPRz"), &p));
	assert_string_equal(line(tp_body(), 0, l, sizeof(l)), "data16 movsxd eax, r13d");
	assert_true(instr_plan_build(catalogue_form("MOVSXD r16, m16", "MOVSXD_GPRz_MEMz"), &p));
	assert_string_equal(line(tp_body(), 0, l, sizeof(l)), "data16 movsxd eax, dword ptr [rsi+0]");
	/* 66 0F C8+rd. */
	assert_true(instr_plan_build(catalogue_form("BSWAP r16", "BSWAP_GPRv"), &p));
	assert_true(starts_with(tp_body(), "data16 bswap eax\n"));
	/* REX.W 0F 03 /r: the selector register written at 64 bits. */
	assert_true(instr_plan_build(catalogue_form("LSL r64, r32", "LSL_GPRv_GPRz"), &p));
	assert_true(starts_with(tp_body(), "lsl rax, r13\n"));
	/* The other widths keep their own spelling. */
	assert_true(instr_plan_build(catalogue_form("MOVSXD r64, r32", "MOVSXD_GPRv_GPRz"), &p));
	assert_true(starts_with(tp_body(), "movsxd rax, r13d\n"));
}

/* The reserved NOPs as bytes (SDM Vol. 2D Table A-3): 0F op ModRM, the reg field from the iform. */
static void reserved_nops_as_bytes(void **state)
{
	(void)state;
	char l[96];
	/* 0F 18 /4 with [rsi+disp32]: ModRM mod 10, reg 100, rm 110 = 0xa6; the first instance at offset 0. */
	assert_true(instr_plan_build(catalogue_form("NOP m32", "NOP_MEMv_0F18r4"), &p));
	assert_string_equal(line(kind(&p, IKM_TP_UNROLLED)->body, 0, l, sizeof(l)),
			    ".byte 0xf, 0x18, 0xa6, 0x0, 0x0, 0x0, 0x0");
	/* A 64-bit register operand: REX.W (and REX.B for r8-r15), mod 11, reg 101. */
	assert_true(instr_plan_build(catalogue_form("NOP r64", "NOP_GPRv_0F18r5"), &p));
	const char *b = line(kind(&p, IKM_TP_UNROLLED)->body, 0, l, sizeof(l));
	unsigned rex, modrm;
	assert_int_equal(sscanf(b, ".byte 0x%x, 0xf, 0x18, 0x%x", &rex, &modrm), 2);
	assert_int_equal(rex & 0xf8, 0x48);
	assert_int_equal(modrm >> 3, (3u << 3) | 5u);
	/* The catalogue's second opcode part fixes ModRM.reg even with a second register operand. */
	assert_true(instr_plan_build(catalogue_form("NOP r32, r32", "NOP_GPRv_GPRv_0F1E_0F1Er3"), &p));
	b = line(kind(&p, IKM_TP_UNROLLED)->body, 0, l, sizeof(l));
	assert_non_null(strstr(b, "0xf, 0x1e, "));
	modrm = (unsigned)strtoul(strrchr(b, ' ') + 1, NULL, 16);
	assert_int_equal((modrm >> 3) & 7, 3);
	/* What GNU as writes itself stays assembly. */
	assert_true(instr_plan_build(catalogue_form("NOP r32", "NOP_GPRv_0F1F"), &p));
	assert_true(starts_with(kind(&p, IKM_TP_UNROLLED)->body, "nop "));
}

/* How an x87 instruction moves TOP (SDM Vol. 2A, each instruction's operation), written here from the
 * manual and not from the builder: +1 a push, -1 a pop, -2 FCOMPP/FUCOMPP. */
static int x87_delta(const char *l)
{
	static const char *const push[] = { "fld", "fild", "fbld", "fptan", "fsincos", "fxtract" };
	static const char *const pop[] = { "fstp",   "fistp",  "fisttp",  "fbstp",  "fcomp",  "fucomp",
					   "ficomp", "faddp",  "fsubp",	  "fsubrp", "fmulp",  "fdivp",
					   "fdivrp", "fcomip", "fucomip", "fyl2x",  "fpatan", "fyl2xp1" };
	char m[16];
	size_t n = strcspn(l, " ");
	if (n >= sizeof(m))
		return 0;
	memcpy(m, l, n);
	m[n] = 0;
	if (!strcmp(m, "fcompp") || !strcmp(m, "fucompp"))
		return -2;
	if (!strncmp(m, "fld", 3) && strcmp(m, "fldcw") && strcmp(m, "fldenv"))
		return 1; /* fld, fld1, fldz, fldpi, fldl2e... */
	for (size_t i = 0; i < ARRAY_SIZE(push); i++)
		if (!strcmp(m, push[i]))
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(pop); i++)
		if (!strcmp(m, pop[i]))
			return -1;
	return 0;
}

/* Every x87 form of the catalogue: built, its stack within eight registers and left where each body found it. */
static void x87_stack_balanced(void **state)
{
	(void)state;
	size_t forms = 0;
	for (size_t i = 0; i < instr_forms_count; i++) {
		const struct instr_form *f = &instr_forms[i];
		bool st = false;
		for (size_t o = 0; o < f->n_ops; o++)
			st = st || f->ops[o].kind == IK_ST;
		if (!st || f->excluded)
			continue;
		forms++;
		if (!instr_plan_build(f, &p))
			fail_msg("%s: %s", f->asm_name, p.why);
		for (size_t j = 0; j < p.n; j++) {
			const struct ikm *m = &p.m[j];
			char l[96];
			int depth = 0;
			assert_string_equal(line(m->init, 0, l, sizeof(l)), "fninit");
			for (size_t n = 1; n < lines(m->init); n++)
				depth += x87_delta(line(m->init, n, l, sizeof(l)));
			assert_true(depth >= 1 && depth <= 8);
			int start = depth;
			for (size_t n = 0; n < lines(m->body); n++) {
				depth += x87_delta(line(m->body, n, l, sizeof(l)));
				if (depth < 0 || depth > 8)
					fail_msg("%s %s line %zu: stack depth %d", f->asm_name, m->name, n, depth);
			}
			if (depth != start)
				fail_msg("%s %s: the body moves TOP by %d", f->asm_name, m->name, depth - start);
			assert_null(strstr(m->body, "?"));
		}
	}
	assert_true(forms >= 100);
}

/*
 * Vector lanes start at 1.0 of the form's elements: doubles for MULSD (whose read-write destination is
 * multiplied again each instance, and from 1.0f's bits paired as a double, 2^-7, fell into the subnormal
 * range within a run), single for MULSS; the memory operands likewise.
 */
static void lanes_start_at_one_of_the_element_type(void **state)
{
	(void)state;
	static const struct {
		const char *asm_name, *iform, *init, *values;
		uint64_t fill;
	} cases[] = {
		{ "MULSD xmm, xmm", "MULSD_XMMsd_XMMsd",
		  "mov dword ptr [rdx+4032], 0\nmov dword ptr [rdx+4036], 0x3ff00000\n"
		  "movsd xmm0, qword ptr [rdx+4032]\nshufpd xmm0, xmm0, 0\n",
		  "vector lanes 0x3ff0000000000000 (1.0)", 0x3ff0000000000000ull },
		{ "VMULPD zmm, zmm, zmm", "VMULPD_ZMMf64_MASKmskw_ZMMf64_ZMMf64_AVX512",
		  "vbroadcastsd zmm31, qword ptr [rdx+4032]\n", "vector lanes 0x3ff0000000000000 (1.0)",
		  0x3ff0000000000000ull },
		{ "MULSS xmm, xmm", "MULSS_XMMss_XMMss",
		  "mov dword ptr [rdx+4032], 0x3f800000\nmovss xmm0, dword ptr [rdx+4032]\n",
		  "vector lanes 0x3f800000 (1.0f)", 0x3f8000003f800000ull },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_true(instr_plan_build(catalogue_form(cases[i].asm_name, cases[i].iform), &p));
		const struct ikm *t = kind(&p, IKM_TP_UNROLLED);
		assert_non_null(t);
		if (!strstr(t->init, cases[i].init))
			fail_msg("%s: no %s in %s", cases[i].asm_name, cases[i].init, t->init);
		assert_non_null(strstr(p.values, cases[i].values));
		assert_int_equal(t->fill, cases[i].fill);
	}
}

/* The x87 chains: a destination's own, through memory, with balancing pushes off the chain. */
static void x87_chains(void **state)
{
	(void)state;
	assert_true(instr_plan_build(catalogue_form("FADD st0, st", "FADD_ST0_X87f80"), &p));
	const struct ikm *m = find(&p, "op1", "op1");
	assert_non_null(m);
	assert_string_equal(m->body, "fadd st, st(1)\n");
	assert_int_equal(m->bound, IKM_EXACT);
	/* Throughput: st0 is rotated away after each instance, never through st(1), the source. */
	const struct ikm *t = kind(&p, IKM_TP_UNROLLED);
	assert_non_null(t);
	const char *tb = t ? t->body : "";
	assert_non_null(strstr(tb, "fadd st, st(1)\nfxch st(2)\n"));
	assert_null(strstr(tb, "fxch st(1)"));
	assert_true(t && t->per_iter >= 4);
	assert_non_null(strstr(p.chain, "fxch"));
	assert_non_null(strstr(p.values, "1.0"));
	/* A pop: fld1 before each instance gives it its st0; st(1) is the previous result. */
	assert_true(instr_plan_build(catalogue_form("FADDP st, st0", "FADDP_X87f80_ST0"), &p));
	assert_string_equal(find(&p, "op1", "op1")->body, "fld1\nfaddp st(1), st\n");
	/* A load: stored back (a pop) where it loads; an upper bound. */
	assert_true(instr_plan_build(catalogue_form("FLD m32", "FLD_ST0_MEMmem32real"), &p));
	m = find(&p, "op1", "st0");
	assert_string_equal(m->body, "fld dword ptr [rsi+0]\nfstp dword ptr [rsi+0]\n");
	assert_int_equal(m->bound, IKM_UPPER);
	assert_non_null(strstr(m->init, "mov dword ptr [rsi+0], 0x3f800000\n")); /* 1.0f */
	/* FSCALE's st1 is 0 (st0 * 2^0 stays 1.0), loaded second to last. */
	assert_true(instr_plan_build(catalogue_form("FSCALE", "FSCALE"), &p));
	assert_non_null(strstr(p.m[0].init, "fldz\nfld1\n"));
	/* Compares write only the status word: throughput only, and said why. */
	assert_true(instr_plan_build(catalogue_form("FCOM st", "FCOM_ST0_X87f80"), &p));
	assert_null(kind(&p, IKM_LATENCY));
	assert_non_null(strstr(p.skipped, "status"));
}

/* Every text of every form: lines end, names fit the harness, rdi/rsp/rsi are never written. */
static void texts_well_formed(void **state)
{
	(void)state;
	for (size_t f = 0; f < ikm_test_forms_count; f++) {
		assert_true(instr_plan_build(&ikm_test_forms[f], &p));
		for (size_t i = 0; i < p.n; i++) {
			const struct ikm *m = &p.m[i];
			assert_true(ukernel_name_ok(m->name, strlen(m->name)));
			for (size_t j = 0; j < i; j++)
				assert_string_not_equal(m->name, p.m[j].name);
			assert_true(m->per_iter >= 1);
			assert_true(m->unroll >= 1 && m->unroll <= UK_UNROLL_MAX);
			for (size_t s = 0; s < IKM_SUB_MAX; s++)
				assert_true(m->sub[s] == IKM_NO_SUB || (m->sub[s] >= 0 && (size_t)m->sub[s] < p.n &&
									p.m[m->sub[s]].kind == IKM_CONNECTOR));
			const char *texts[] = { m->init, m->body };
			for (size_t t = 0; t < 2; t++) {
				size_t len = strlen(texts[t]);
				assert_true(t == 0 || len > 0);
				assert_true(len + 1 < (t ? sizeof(m->body) : sizeof(m->init))); /* not cut short */
				assert_true(len == 0 || texts[t][len - 1] == '\n');
				assert_null(strstr(texts[t], "?"));
				assert_null(strstr(texts[t], "rdi"));
				assert_null(strstr(texts[t], "rsp"));
				for (size_t k = 0; k < lines(texts[t]); k++) {
					char l[128], d[24];
					line(texts[t], k, l, sizeof(l));
					assert_true(l[0] != 0);
					dest(l, d, sizeof(d));
					assert_string_not_equal(d, "rsi");
					assert_string_not_equal(d, "esi");
				}
			}
		}
	}
}

static void what_cannot_be_built(void **state)
{
	(void)state;
	static const struct instr_operand uses_rsi[] = { { IK_FIXED, IA_READ, 1, 0, 64, "rsi" } };
	static const struct instr_operand stack[] = { { IK_MEM, IA_WRITE, 1, 0, 64, NULL } };
	struct instr_form f = { .asm_name = "LODSB", .mnemonic = "lodsb", .ops = uses_rsi, .n_ops = 1 };
	assert_false(instr_plan_build(&f, &p));
	assert_string_equal(p.why, "uses rsi, which the harness owns");
	f = (struct instr_form){ .asm_name = "PUSH r64", .mnemonic = "push", .ops = stack, .n_ops = 1 };
	assert_false(instr_plan_build(&f, &p));
	assert_non_null(strstr(p.why, "implicit memory operand"));
	f = (struct instr_form){ .asm_name = "CPUID", .mnemonic = "cpuid", .excluded = "serialising" };
	assert_false(instr_plan_build(&f, &p));
	assert_string_equal(p.why, "excluded: serialising");
	/* Implicit operands the builder does not chain are left out and named; AH is rax's byte 1. */
	static const struct instr_operand lahf[] = { { IK_FIXED, IA_WRITE, 1, 0, 8, "ah" },
						     { IK_OTHER, IA_READ, 1, 0, 16, "x87status" } };
	f = (struct instr_form){
		.asm_name = "LAHF", .mnemonic = "lahf", .ops = lahf, .n_ops = 2, .flags_read = IFL_CF
	};
	assert_true(instr_plan_build(&f, &p));
	assert_string_equal(p.skipped, "implicit x87status: not chained");
	const struct ikm *m = NULL;
	for (size_t i = 0; i < p.n && !m; i++)
		if (!strcmp(p.m[i].from, "flags") && !strcmp(p.m[i].to, "ah"))
			m = &p.m[i];
	assert_non_null(m);
	assert_string_equal(m->body, "lahf\ncmp rax, 0\n");
	/* UD2 has no operands: nothing to chain, but independent instances. */
	assert_true(instr_plan_build(ikm_test_form("UD2"), &p));
	assert_non_null(kind(&p, IKM_TP_UNROLLED));
	assert_null(kind(&p, IKM_LATENCY));
}

/* Every shape of one to three operands (each kind, read, write or both): built within bounds, or refused with why. */
static void every_shape_within_bounds(void **state)
{
	(void)state;
	static const uint8_t kinds[] = { IK_R8,	 IK_R16, IK_R32, IK_R64,  IK_MM, IK_XMM, IK_YMM,
					 IK_ZMM, IK_K,	 IK_MEM, IK_IMM8, IK_CL, IK_ONE };
	static const uint16_t bits[] = { 8, 16, 32, 64, 64, 128, 256, 512, 16, 64, 8, 8, 8 };
	static const uint8_t access[] = { IA_READ, IA_WRITE, IA_READ | IA_WRITE };
	struct instr_operand ops[3];
	size_t built = 0, refused = 0;
	for (size_t n = 1; n <= 3; n++) {
		size_t combos = 1;
		for (size_t i = 0; i < n; i++)
			combos *= ARRAY_SIZE(kinds) * ARRAY_SIZE(access);
		/* Three operands: every 11th combination (11 is prime to 39: each kind and access still meets every other). */
		for (size_t c = 0; c < combos; c += n == 3 ? 11 : 1) {
			size_t v = c;
			for (size_t i = 0; i < n; i++, v /= ARRAY_SIZE(kinds) * ARRAY_SIZE(access)) {
				size_t k = v % ARRAY_SIZE(kinds), a = v / ARRAY_SIZE(kinds) % ARRAY_SIZE(access);
				ops[i] = (struct instr_operand){ kinds[k], access[a], 0, 0, bits[k], NULL };
			}
			struct instr_form f = { .asm_name = "X",
						.mnemonic = "x",
						.iform = "X_01",
						.ops = ops,
						.n_ops = (uint8_t)n,
						.n_explicit = (uint8_t)n,
						.flags_read = IFL_CF,
						.flags_written = IFL_CF };
			if (!instr_plan_build(&f, &p)) {
				assert_true(p.why[0] != 0);
				refused++;
				continue;
			}
			built++;
			assert_true(p.n >= 1 && p.n <= IKM_MAX);
			for (size_t i = 0; i < p.n; i++) {
				assert_true(strlen(p.m[i].body) + 1 < sizeof(p.m[i].body));
				assert_true(strlen(p.m[i].init) + 1 < sizeof(p.m[i].init));
				assert_true(p.m[i].per_iter >= 1);
				assert_null(strstr(p.m[i].body, "?"));
			}
		}
	}
	assert_true(built > 1000);
	assert_int_equal(refused, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pairs_of_add),
		cmocka_unit_test(two_encodings_chosen),
		cmocka_unit_test(registers_rotated),
		cmocka_unit_test(implicit_chain_named),
		cmocka_unit_test(flags_pairs),
		cmocka_unit_test(flags_read_back_by_a_flag_the_form_writes),
		cmocka_unit_test(length_changing_prefix_short_trips),
		cmocka_unit_test(connectors),
		cmocka_unit_test(conditional_write_chains_and_loops_are_long),
		cmocka_unit_test(narrow_store_read_back_as_stored),
		cmocka_unit_test(unavoidable_chains_broken),
		cmocka_unit_test(memory_pairs),
		cmocka_unit_test(idioms_labelled),
		cmocka_unit_test(division_values),
		cmocka_unit_test(division_pairs),
		cmocka_unit_test(address_pairs),
		cmocka_unit_test(mask_pairs),
		cmocka_unit_test(written_input_pairs),
		cmocka_unit_test(vector_state),
		cmocka_unit_test(texts_well_formed),
		cmocka_unit_test(every_shape_within_bounds),
		cmocka_unit_test(what_cannot_be_built),
		cmocka_unit_test(broadcasts_spelt),
		cmocka_unit_test(x87_stack_balanced),
		cmocka_unit_test(x87_chains),
		cmocka_unit_test(lanes_start_at_one_of_the_element_type),
		cmocka_unit_test(reserved_nops_as_bytes),
		cmocka_unit_test(respelled_forms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
