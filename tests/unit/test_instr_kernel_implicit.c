/*
 * The kernels of forms whose operands the harness owns or the form fixes (instr/kernel_stack_host.c,
 * instr/kernel_string_host.c, instr/kernel_vsib_host.c, and the segment and ecx-selector cases of
 * instr/kernel_host.c), over every such form of the catalogue.  Each check runs the kernel's text through a
 * small model written here from the SDM, not from the builder:
 *   - the stack: rsp never above where the body found it and back there after every body copy;
 *   - strings: rsi, rdi (and rcx with REP) set inside the window before every string instruction, the
 *     harness's rdi kept and put back in every body copy, the elements touched inside the window;
 *   - gathers: the init's memory and index register, then the latency body gathered element by element: every
 *     address inside the window's first page, and the index register the same after the chain as before it.
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
#include "instr/catalogue.h"
#include "tests/unit/instr_plan_text.h"

#define PAGE 4096
#define WINDOW (2 * PAGE)
#define VREGS 32
#define VBYTES 64

static struct instr_plan p;

static bool starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static bool has_stack_operand(const struct instr_form *f)
{
	for (size_t i = 0; i < f->n_ops; i++)
		if (f->ops[i].reg && (!strcmp(f->ops[i].reg, "stackpush") || !strcmp(f->ops[i].reg, "stackpop")))
			return true;
	return false;
}

/* How one line moves rsp, in bytes (SDM Vol. 2B PUSH, POP: by the operand size, 2 or 8 in 64-bit mode). */
static int rsp_step(const char *l)
{
	bool narrow = strstr(l, "word ptr") && !strstr(l, "qword") ? true : false;
	static const char *const r16[] = { " ax", " bx", " cx", " dx", " bp", " r8w", " r9w", " r10w", " r11w",
					   " r12w", " r13w", " r14w", " r15w" };
	for (size_t i = 0; i < sizeof(r16) / sizeof(r16[0]); i++) {
		size_t n = strlen(r16[i]), len = strlen(l);
		narrow = narrow || (len >= n && !strcmp(l + len - n, r16[i]));
	}
	int size = narrow || starts(l, "pushw") || starts(l, "pushfw") ? 2 : 8;
	if (starts(l, ".byte ")) {
		/* FF /6 (push) and 8F /0 (pop) after an optional 66 and REX: SDM Vol. 2B PUSH, POP. */
		size = strstr(l, "0x66,") ? 2 : 8;
		if (strstr(l, "0xff, 0xf"))
			return -size;
		if (strstr(l, "0x8f, 0xc"))
			return size;
		return 0;
	}
	if (starts(l, "push"))
		return -size;
	if (starts(l, "pop"))
		return size;
	return 0;
}

/* Every stack form: rsp never above its start (the harness's frame) and back there after each body copy. */
static void stack_balanced(void **state)
{
	(void)state;
	size_t forms = 0;
	for (size_t i = 0; i < instr_forms_count; i++) {
		const struct instr_form *f = &instr_forms[i];
		if (!has_stack_operand(f) || f->excluded)
			continue;
		forms++;
		if (!instr_plan_build(f, &p))
			fail_msg("%s: %s", f->asm_name, p.why);
		assert_non_null(kind(&p, IKM_TP_UNROLLED));
		assert_non_null(kind(&p, IKM_TP_LOOP));
		assert_true(p.chain[0] && strstr(p.chain, "pair"));
		for (size_t j = 0; j < p.n; j++) {
			const struct ikm *m = &p.m[j];
			int depth = 0, before_enter = 1;
			char l[128];
			assert_null(strstr(m->body, "rsp"));
			assert_null(strstr(m->body, "rdi"));
			assert_null(strstr(m->body, "?"));
			for (size_t n = 0; n < lines(m->body); n++) {
				line(m->body, n, l, sizeof(l));
				if (starts(l, "enter ")) {
					before_enter = depth;
					depth -= 8; /* at least rbp is pushed; LEAVE puts rsp back where ENTER found it */
				} else if (!strcmp(l, "leave")) {
					assert_true(before_enter <= 0);
					depth = before_enter;
				} else {
					depth += rsp_step(l);
				}
				if (depth > 0)
					fail_msg("%s %s line %zu: rsp above its start", f->asm_name, m->name, n);
			}
			if (depth != 0)
				fail_msg("%s %s: the body moves rsp by %d", f->asm_name, m->name, depth);
		}
	}
	assert_true(forms >= 15);
}

static void stack_pairs_named(void **state)
{
	(void)state;
	/* PUSH r64 (FF /6) and POP r64 (8F /0): the ModRM encodings as bytes, one pair measured from both sides. */
	assert_true(instr_plan_build(catalogue_form("POP r64", "POP_GPRv_8F"), &p));
	const struct ikm *m = &p.m[0];
	assert_string_equal(m->from, "stack");
	assert_string_equal(m->to, "op1");
	assert_string_equal(m->body, "push rbx\n.byte 0x8f, 0xc3\n"); /* ModRM 11 000 011 */
	assert_int_equal(m->bound, IKM_UPPER);
	assert_non_null(strstr(m->via, "push r"));
	/* r8..r13 need REX.B (0x41): the throughput's rotated destinations. */
	assert_non_null(strstr(kind(&p, IKM_TP_UNROLLED)->body, ".byte 0x41, 0x8f, 0xc0\n"));
	assert_true(instr_plan_build(catalogue_form("PUSH r16", "PUSH_GPRv_FFr6"), &p));
	assert_string_equal(p.m[0].body, ".byte 0x66, 0xff, 0xf3\npop bx\n"); /* 66 FF /6, ModRM 11 110 011 */
	assert_true(instr_plan_build(catalogue_form("PUSH r64", "PUSH_GPRv_50"), &p));
	assert_string_equal(p.m[0].body, "push rbx\npop rbx\n");
	assert_string_equal(p.m[0].from, "op1");
	assert_string_equal(p.m[0].to, "stack");
	const struct ikm *t = kind(&p, IKM_TP_UNROLLED);
	assert_int_equal(t->per_iter, lines(t->body) / 2); /* per pair */
	/* Memory on both halves: through the slot and back into the same memory. */
	assert_true(instr_plan_build(catalogue_form("POP m64", "POP_MEMv"), &p));
	assert_string_equal(p.m[0].body, "push qword ptr [rsi]\npop qword ptr [rsi+0]\n");
	/* PUSHF: the flags through the slot, back by TEST; POPF stays excluded. */
	assert_true(instr_plan_build(catalogue_form("PUSHFQ", "PUSHFQ"), &p));
	assert_string_equal(p.m[0].body, "pushfq\npop rbx\ntest rbx, rbx\n");
	assert_false(instr_plan_build(catalogue_form("POPFQ", "POPFQ"), &p));
	assert_true(starts(p.why, "excluded: "));
	/* Nothing to chain from an immediate or a segment register: throughput only, and said why. */
	assert_true(instr_plan_build(catalogue_form("PUSH fs", "PUSH_FS"), &p));
	assert_null(kind(&p, IKM_LATENCY));
	assert_non_null(strstr(p.skipped, "segment register"));
	assert_string_equal(line(kind(&p, IKM_TP_UNROLLED)->body, 0, (char[64]){ 0 }, 64), "push fs");
	/* ENTER with LEAVE; rbp = rsp, so the nesting level copies the slots just pushed. */
	assert_true(instr_plan_build(catalogue_form("ENTER imm16, imm8", "ENTER_IMMw_IMMb"), &p));
	assert_string_equal(p.m[0].body, "enter 0x123, 3\nleave\n");
	assert_non_null(strstr(p.m[0].init, "mov rbp, rsp\n"));
	assert_string_equal(p.m[0].from, "rbp");
}

/* The string forms' registers (SDM Vol. 1, 7.3.9): what each family reads and moves. */
static bool uses_rsi(const char *op) { return starts(op, "movs") || starts(op, "lods") || starts(op, "cmps"); }
static bool uses_rdi(const char *op)
{
	return starts(op, "movs") || starts(op, "stos") || starts(op, "scas") || starts(op, "cmps");
}
static bool string_op(const char *l, const char **op)
{
	static const char *const prefixes[] = { "rep ", "repe ", "repne " };
	*op = l;
	for (size_t i = 0; i < 3; i++)
		if (starts(l, prefixes[i]))
			*op = l + strlen(prefixes[i]);
	return (uses_rsi(*op) || uses_rdi(*op)) && strlen(*op) == 5 && strchr("bwdq", (*op)[4]);
}
static unsigned element_bytes(const char *op) { return op[4] == 'b' ? 1 : op[4] == 'w' ? 2 : op[4] == 'd' ? 4 : 8; }

/* Every string form: its registers set inside the window before each instruction; the trip count kept. */
static void strings_reset(void **state)
{
	(void)state;
	size_t forms = 0;
	for (size_t i = 0; i < instr_forms_count; i++) {
		const struct instr_form *f = &instr_forms[i];
		const char *op;
		if (f->excluded || f->n_explicit || !string_op(f->mnemonic, &op))
			continue;
		forms++;
		if (!instr_plan_build(f, &p))
			fail_msg("%s: %s", f->asm_name, p.why);
		bool rep = op != f->mnemonic;
		assert_true(!rep || strstr(p.values, "rcx = 64"));
		for (size_t j = 0; j < p.n; j++) {
			const struct ikm *m = &p.m[j];
			char l[128];
			if (!strstr(m->init, "cld\nmov r14, rsi\nlea r13, [rdx+"))
				fail_msg("%s %s: init '%s'", f->asm_name, m->name, m->init);
			/* The destination lies in the second page with room for the whole string. */
			unsigned off = (unsigned)atoi(strstr(m->init, "[rdx+") + 5);
			assert_true(off + 64 * element_bytes(op) <= PAGE);
			bool si = false, di = false, cx = false, kept = false;
			long count = 0;
			size_t last = lines(m->body) - 1;
			for (size_t n = 0; n <= last; n++) {
				const char *o;
				line(m->body, n, l, sizeof(l));
				if (!strcmp(l, "mov r15, rdi")) {
					assert_int_equal(n, 0);
					kept = true;
				} else if (!strcmp(l, "mov rdi, r15")) {
					assert_int_equal(n, last);
					assert_true(kept);
					kept = false;
				} else if (!strcmp(l, "mov rsi, r14")) {
					si = true;
				} else if (!strcmp(l, "mov rdi, r13") || !strcmp(l, "mov rdi, r14")) {
					assert_true(kept);
					di = true;
				} else if (sscanf(l, "mov ecx, %ld", &count) == 1) {
					cx = count > 0 && count <= 64;
				} else if (string_op(l, &o)) {
					assert_string_equal(l, f->mnemonic);
					assert_true(si || !uses_rsi(o));
					assert_true(di || !uses_rdi(o));
					assert_true(cx || !rep);
					si = di = cx = false;
				} else {
					/* Nothing else names the harness's registers. */
					assert_null(strstr(l, "rdi"));
					assert_null(strstr(l, "rsi"));
					assert_null(strstr(l, "rsp"));
				}
			}
			assert_false(kept); /* rdi put back */
		}
		/* Throughput less the reset: the connector's body is the kernel's without the form. */
		const struct ikm *t = kind(&p, IKM_TP_UNROLLED);
		assert_true(t->sub[0] >= 0);
		const struct ikm *c = &p.m[t->sub[0]];
		assert_int_equal(c->kind, IKM_CONNECTOR);
		assert_int_equal(c->per_iter, t->per_iter);
		assert_int_equal(lines(c->body) + t->per_iter, lines(t->body));
		assert_non_null(strstr(p.chain, c->name));
		assert_int_equal(p.m[kind(&p, IKM_TP_LOOP)->sub[0]].unroll, 1);
	}
	assert_int_equal(forms, 48); /* MOVS, STOS, LODS: 4 sizes, with and without REP; SCAS, CMPS: REPE, REPNE too */
}

static void string_chains(void **state)
{
	(void)state;
	/* MOVS: rsi = rdi, the copy reads what the previous one stored. */
	assert_true(instr_plan_build(catalogue_form("MOVSQ", "MOVSQ"), &p));
	assert_string_equal(p.m[0].body, "mov r15, rdi\nmov rsi, r14\nmov rdi, r14\nmovsq\nmov rdi, r15\n");
	assert_int_equal(p.m[0].bound, IKM_EXACT);
	/* LODS: the accumulator stored where the next one loads. */
	assert_true(instr_plan_build(catalogue_form("LODSB", "LODSB"), &p));
	assert_string_equal(p.m[0].body, "mov rsi, r14\nlodsb\nmov byte ptr [r14], al\n");
	/* REPNE CMPS: strings that never match (the bytes 0..7 repeated, 4 bytes apart); REP: no latency. */
	assert_true(instr_plan_build(catalogue_form("REPNE CMPSD", "REPNE_CMPSD"), &p));
	assert_int_equal(p.m[0].fill, 0x0706050403020100ull);
	assert_non_null(strstr(p.m[0].init, "lea r13, [rdx+2052]\n"));
	assert_null(kind(&p, IKM_LATENCY));
	/* XLAT: al chains by itself; the throughput resets it with a zero idiom. */
	assert_true(instr_plan_build(catalogue_form("XLAT", "XLAT"), &p));
	assert_string_equal(p.m[0].body, "xlat\n");
	assert_non_null(strstr(p.m[0].init, "mov rbx, rsi\n"));
	assert_non_null(strstr(kind(&p, IKM_TP_UNROLLED)->body, "xor eax, eax\nxlat\n"));
	/* MASKMOVDQU writes [rdi]: rdi set once per body copy, the trip count kept. */
	assert_true(instr_plan_build(catalogue_form("MASKMOVDQU xmm, xmm", "MASKMOVDQU_XMMxub_XMMxub"), &p));
	assert_true(starts(kind(&p, IKM_TP_UNROLLED)->body, "mov r15, rdi\nmov rdi, r13\nmaskmovdqu xmm0, xmm1\n"));
}

/* A model of the vector registers and the window, for the gathers (SDM Vol. 2C VPGATHERDD and its kin). */
static uint8_t win[WINDOW];
static uint8_t vr[VREGS][VBYTES];

static unsigned reg_bytes(const char *r) { return r[0] == 'z' ? 64 : r[0] == 'y' ? 32 : 16; }

static void put(uint8_t *d, uint64_t v, unsigned bytes)
{
	for (unsigned b = 0; b < bytes; b++)
		d[b] = (uint8_t)(v >> (8 * b));
}
static uint64_t get(const uint8_t *s, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned b = 0; b < bytes; b++)
		v |= (uint64_t)s[b] << (8 * b);
	return v;
}

/* One line of a gather kernel on the model; false for a line the model does not know. */
static bool run_line(const char *l, bool *out_of_window)
{
	unsigned off, val, d, i, s, m;
	char dk[4], ik[4], mn[24], size[8];
	if (starts(l, "kxnorw ") || starts(l, "vpcmpeqd "))
		return true; /* the mask: all ones */
	if (sscanf(l, "mov dword ptr [rsi+%u], %u", &off, &val) == 2) {
		assert_true(off + 4 <= PAGE);
		put(win + off, val, 4);
		return true;
	}
	if (sscanf(l, "mov dword ptr [rdx+%u], %u", &off, &val) == 2) {
		assert_true(off + 4 <= PAGE);
		put(win + PAGE + off, val, 4);
		return true;
	}
	if (sscanf(l, "vmovdqu%*[0-9] %3[xyz]mm%u, %*s ptr [rdx+%u]", ik, &d, &off) == 3 ||
	    sscanf(l, "vmovdqu %3[xyz]mm%u, %*s ptr [rdx+%u]", ik, &d, &off) == 3) {
		memset(vr[d], 0, VBYTES);
		memcpy(vr[d], win + PAGE + off, reg_bytes(ik));
		return true;
	}
	if (sscanf(l, "vpmovzxdq %3[xyz]mm%u, %3[xyz]mm%u", dk, &d, ik, &i) == 4) {
		uint8_t t[VBYTES] = { 0 };
		for (unsigned e = 0; e < reg_bytes(dk) / 8; e++)
			put(t + 8 * e, get(vr[i] + 4 * e, 4), 8);
		memcpy(vr[d], t, VBYTES);
		return true;
	}
	char bare[160];
	const char *k1 = strstr(l, "{k1}");
	snprintf(bare, sizeof(bare), "%.*s%s", k1 ? (int)(k1 - l) : (int)strlen(l), l, k1 ? k1 + 4 : "");
	l = bare;
	if (sscanf(l, "%23s %3[xyz]mm%u, %7s ptr [rsi+%3[xyz]mm%u*%u]", mn, dk, &d, size, ik, &i, &s) == 7 &&
	    strstr(mn, "gather")) {
		/* The index's width is the mnemonic's letter after "gather" (d: dwords, q: qwords); the element's the size. */
		unsigned wi = strstr(mn, "gatherd") ? 4 : 8, wd = starts(size, "q") ? 8 : 4;
		unsigned n = reg_bytes(dk) / wd < reg_bytes(ik) / wi ? reg_bytes(dk) / wd : reg_bytes(ik) / wi;
		assert_int_not_equal(d, i); /* #UD otherwise */
		if (sscanf(l, "%*s %*[^,], %*[^,], %*[xyz]mm%u", &m) == 1)
			assert_true(m != d && m != i); /* AVX2: mask, index and destination differ */
		uint8_t t[VBYTES] = { 0 };
		for (unsigned e = 0; e < n; e++) {
			uint64_t a = get(vr[i] + wi * e, wi) * s;
			if (a + wd > PAGE) {
				*out_of_window = true;
				return true;
			}
			put(t + wd * e, get(win + a, wd), wd);
		}
		memcpy(vr[d], t, VBYTES);
		return true;
	}
	return false;
}

/* Every gather: its indices inside the window, and the latency chain's index the same after it as before. */
static void gathers_fixed_point(void **state)
{
	(void)state;
	size_t gathers = 0, vsib = 0;
	for (size_t f = 0; f < instr_forms_count; f++) {
		const struct instr_form *form = &instr_forms[f];
		if (!strstr(form->asm_name, "vm32") && !strstr(form->asm_name, "vm64"))
			continue;
		vsib++;
		if (!instr_plan_build(form, &p))
			fail_msg("%s: %s", form->asm_name, p.why);
		const struct ikm *t = kind(&p, IKM_TP_UNROLLED);
		assert_non_null(t);
		assert_true(t->sub[0] >= 0 && p.m[t->sub[0]].kind == IKM_CONNECTOR);
		char l[160], prev[160] = "";
		/* Throughput: every instance's mask re-made on the line before it, from a register no instance writes. */
		for (size_t n = 0; n < lines(t->body); n++, strcpy(prev, l))
			if (strstr(line(t->body, n, l, sizeof(l)), "[rsi+"))
				assert_true(!strcmp(prev, "kxnorw k1, k0, k0") || starts(prev, "vpcmpeqd ") ||
					    starts(prev, "vpmovzxdq"));
		if (!strstr(form->mnemonic, "gather") || strstr(form->mnemonic, "pf"))
			continue;
		gathers++;
		const struct ikm *m = &p.m[0];
		assert_int_equal(m->kind, IKM_LATENCY);
		assert_string_equal(m->from, "op2.addr");
		memset(win, 0, sizeof(win));
		memset(vr, 0xa5, sizeof(vr));
		bool out = false;
		for (size_t n = 0; n < lines(m->init); n++)
			if (!run_line(line(m->init, n, l, sizeof(l)), &out))
				fail_msg("%s init: '%s'", form->asm_name, l);
		uint8_t idx[VBYTES];
		memcpy(idx, vr[1], VBYTES);
		for (size_t n = 0; n < lines(m->body); n++)
			if (!run_line(line(m->body, n, l, sizeof(l)), &out))
				fail_msg("%s body: '%s'", form->asm_name, l);
		assert_false(out);
		if (memcmp(idx, vr[1], VBYTES))
			fail_msg("%s: the chained index register moved", form->asm_name);
		/* The indices are distinct: the elements come from different places, not all from [rsi]. */
		if (!get(idx + 4, 4) && !get(idx + 8, 4)) /* lane 1: dword 1, or qword 1 */
			fail_msg("%s: the indices are all alike", form->asm_name);
	}
	assert_true(vsib >= 64);
	assert_true(gathers >= 32);
}

static void segment_and_selector_reads(void **state)
{
	(void)state;
	char l[96];
	/* MOV r64, Sreg keeps REX.W (GNU as would drop it); reads only, no chain. */
	assert_true(instr_plan_build(catalogue_form("MOV r64, seg", "MOV_GPRv_SEG"), &p));
	assert_true(starts(line(kind(&p, IKM_TP_UNROLLED)->body, 0, l, sizeof(l)), "rex64 mov "));
	assert_non_null(strstr(l, ", ds"));
	assert_null(kind(&p, IKM_LATENCY));
	assert_non_null(strstr(p.skipped, "segment register"));
	assert_true(instr_plan_build(catalogue_form("MOV m16, seg", "MOV_MEMw_SEG"), &p));
	assert_string_equal(line(kind(&p, IKM_TP_UNROLLED)->body, 0, l, sizeof(l)), "mov word ptr [rsi+0], ds");
	/* XGETBV: ecx 0 (XCR0, which every CPU with XGETBV has), never chained into. */
	assert_true(instr_plan_build(catalogue_form("XGETBV", "XGETBV"), &p));
	const char *init = kind(&p, IKM_TP_UNROLLED)->init;
	assert_true(strstr(init, "xor ecx, ecx\n") > strstr(init, "mov ecx, 1\n"));
	for (size_t i = 0; i < p.n; i++)
		assert_false(p.m[i].kind == IKM_LATENCY && !strcmp(p.m[i].from, "ecx"));
	assert_non_null(strstr(p.skipped, "ecx selects"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stack_balanced),     cmocka_unit_test(stack_pairs_named),
		cmocka_unit_test(strings_reset),      cmocka_unit_test(string_chains),
		cmocka_unit_test(gathers_fixed_point), cmocka_unit_test(segment_and_selector_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
