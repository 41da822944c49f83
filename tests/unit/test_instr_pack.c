/*
 * The kernel pack (instr/pack.c, instr/pack_write_host.c): what the writer puts in the reader gives back
 * (every field of a form and its measurements, the bytes), every truncation, a bad CRC, a wrong length or
 * count and out-of-range fields are refused naming what and the byte, and the selection by CPUID and
 * XCR0 follows instr/select.h's rule.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instr/catalogue.h"
#include "instr/pack.h"
#include "bench/instr_choice.h"
#include "lib/crc32.h"

static struct instr_plan plans[2];
static struct instr_pack_code code[2][IKM_MAX];
static struct instr_pack_writer w;
static struct instr_pack pk;
static struct instr_pack_form f;
static uint8_t *file;
static size_t len;
static char why[256];
/* Bytes standing for each kernel's code: init j+1 bytes of 0x90+j, body j+2 bytes of 0xc0+j. */
static uint8_t bytes[IKM_MAX][8];

/* The catalogue's form (the first of its name and extension). */
static const struct instr_form *test_form(const char *asm_name, const char *extension)
{
	for (size_t i = 0; i < instr_forms_count; i++)
		if (!strcmp(instr_forms[i].asm_name, asm_name) && !strcmp(instr_forms[i].extension, extension))
			return &instr_forms[i];
	fail_msg("no form %s of %s", asm_name, extension);
	return NULL;
}

/* A pack of ADD r64, r64 and VADDPS ymm, ymm, ymm, the second's first kernel "not assembled". */
static void make_pack(void)
{
	const char *names[][2] = { { "ADD r64, r64", "BASE" }, { "VADDPS ymm, ymm, ymm", "AVX" } };
	instr_pack_write_begin(&w);
	for (size_t i = 0; i < 2; i++) {
		assert_true(instr_plan_build(test_form(names[i][0], names[i][1]), &plans[i]));
		for (size_t j = 0; j < plans[i].n; j++) {
			memset(bytes[j], 0x90 + (int)j, sizeof(bytes[j]));
			code[i][j] = (struct instr_pack_code){ bytes[j], bytes[j], j % 4, j % 6 + 1, NULL };
		}
		if (i == 1)
			code[i][0] = (struct instr_pack_code){ NULL, NULL, 0, 0, "not assembled: no such instruction" };
		assert_true(instr_pack_write_form(&w, &plans[i], code[i]));
	}
	assert_true(instr_pack_write_end(&w));
	file = w.buf;
	len = w.len;
}

static void reseal(void)
{
	uint32_t c = crc32_update(CRC32_INIT, file, INSTR_PACK_CRC_AT);
	c = crc32_update(c, file + INSTR_PACK_CRC_END, len - INSTR_PACK_CRC_END);
	for (int i = 0; i < 4; i++)
		file[INSTR_PACK_CRC_AT + i] = (uint8_t)(c >> (8 * i));
}

static void put32(size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		file[at + i] = (uint8_t)(v >> (8 * i));
}

static void refused(size_t n, const char *want)
{
	why[0] = 0;
	assert_false(instr_pack_open(&pk, file, n, why, sizeof(why)));
	if (!strstr(why, want) || !strstr(why, "at byte"))
		fail_msg("reason '%s' does not mention '%s' and the byte", why, want);
}

static int setup(void **state)
{
	(void)state;
	make_pack();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	instr_pack_write_free(&w);
	return 0;
}

static void round_trip(void **state)
{
	(void)state;
	assert_memory_equal(file, "PMUI", 4);
	assert_int_equal(file[4], INSTR_PACK_VERSION);
	assert_int_equal(file[5], 0);
	assert_int_equal(file[8], 2);
	assert_true(instr_pack_open(&pk, file, len, why, sizeof(why)));
	assert_int_equal(pk.forms, 2);
	/* ADD's and VADDPS's kernels share a handful of inits, each kept once. */
	assert_true(pk.inits >= 1 && pk.inits < pk.measurements);
	assert_int_equal(pk.measurements, plans[0].n + plans[1].n);
	size_t least = 0; /* ADD's pairs into the flags count SBB's cycle: the field has something to carry */
	for (size_t j = 0; j < plans[0].n; j++)
		least += plans[0].m[j].least;
	assert_true(least > 0);
	for (size_t i = 0; i < 2; i++) {
		const struct instr_plan *p = &plans[i];
		assert_true(instr_pack_next(&pk, &f));
		assert_string_equal(f.asm_name, p->f->asm_name);
		assert_string_equal(f.iform, p->f->iform);
		assert_string_equal(f.extension, p->f->extension);
		assert_string_equal(f.isa_set, p->f->isa_set);
		assert_int_equal(f.idiom, p->idiom);
		assert_int_equal(f.attrs, p->f->attrs);
		assert_int_equal(f.xcr0, instr_form_xcr0(p->f));
		assert_int_equal(f.n_cpuid, p->f->n_cpuid);
		for (size_t b = 0; b < f.n_cpuid; b++) {
			assert_int_equal(f.cpuid[b].leaf, p->f->cpuid[b].leaf);
			assert_int_equal(f.cpuid[b].subleaf, p->f->cpuid[b].subleaf);
			assert_int_equal(f.cpuid[b].reg, p->f->cpuid[b].reg);
			assert_int_equal(f.cpuid[b].bit, p->f->cpuid[b].bit);
			assert_int_equal(f.cpuid[b].width, p->f->cpuid[b].width);
			assert_int_equal(f.cpuid[b].least, p->f->cpuid[b].least);
		}
		if (p->values[0])
			assert_string_equal(f.values, p->values);
		else
			assert_null(f.values);
		assert_int_equal(f.n, p->n);
		for (size_t j = 0; j < p->n; j++) {
			const struct ikm *m = &p->m[j];
			const struct instr_pack_meas *q = &f.m[j];
			assert_int_equal(q->kind, m->kind);
			assert_int_equal(q->bound, m->bound);
			assert_int_equal(q->least, m->least);
			assert_int_equal(q->per_iter, m->per_iter);
			assert_int_equal(q->sub[0], m->sub[0]);
			assert_int_equal(q->sub[1], m->sub[1]);
			assert_int_equal(q->fill, m->fill);
			assert_string_equal(q->name, m->name);
			if (m->kind == IKM_LATENCY) {
				assert_string_equal(q->from, m->from);
				assert_string_equal(q->to, m->to);
			}
			if (m->via)
				assert_string_equal(q->via, m->via);
			else
				assert_null(q->via);
			if (code[i][j].why) {
				assert_string_equal(q->why, code[i][j].why);
				assert_int_equal(q->body_len, 0);
				continue;
			}
			assert_null(q->why);
			assert_int_equal(q->init_len, code[i][j].init_len);
			assert_int_equal(q->body_len, code[i][j].body_len);
			assert_memory_equal(q->body, bytes[j], q->body_len);
			assert_memory_equal(q->init, bytes[j], q->init_len);
		}
	}
	assert_false(instr_pack_next(&pk, &f));
}

/* Every prefix of the file is refused, naming the byte; so is the file with a byte more. */
static void truncations(void **state)
{
	(void)state;
	for (size_t n = 0; n < len; n++) {
		why[0] = 0;
		assert_false(instr_pack_open(&pk, file, n, why, sizeof(why)));
		assert_non_null(strstr(why, "at byte"));
	}
	uint8_t *longer = malloc(len + 1);
	assert_non_null(longer);
	memcpy(longer, file, len);
	longer[len] = 0;
	assert_false(instr_pack_open(&pk, longer, len + 1, why, sizeof(why)));
	assert_non_null(strstr(why, "total length"));
	free(longer);
	/* A prefix whose header says its own length and CRC: refused by its forms, not by the header. */
	size_t cut = len - 3;
	put32(16, (uint32_t)cut);
	uint8_t save[3];
	memcpy(save, file + cut, 3);
	size_t full = len;
	len = cut;
	reseal();
	refused(cut, "truncated init table");
	len = full;
	put32(16, (uint32_t)len);
	reseal();
	assert_true(instr_pack_open(&pk, file, len, why, sizeof(why)));
}

static void bad_crc(void **state)
{
	(void)state;
	for (size_t at = INSTR_PACK_CRC_END; at < len; at += 97) {
		file[at] ^= 0x10;
		refused(len, "CRC-32 does not match");
		assert_non_null(strstr(why, "byte 20"));
		file[at] ^= 0x10;
	}
	file[0] = 'X';
	refused(len, "magic");
	file[0] = 'P';
	file[4] = INSTR_PACK_VERSION - 1; /* version 1 had no CPUID fields: its bits would be read wrong */
	refused(len, "version");
	file[4] = INSTR_PACK_VERSION;
	assert_true(instr_pack_open(&pk, file, len, why, sizeof(why)));
}

/* The offset of the first CPUID condition of the form at `at`: past its fixed fields and its eight strings. */
static size_t cpuid_at(size_t at)
{
	const size_t fixed = 20, strings = 8;
	at += fixed;
	for (size_t i = 0; i < strings; i++)
		at += 2 + (size_t)(file[at] | file[at + 1] << 8);
	return at;
}

/* Lengths and counts that do not add up, resealed so only they are wrong. */
static void bad_lengths(void **state)
{
	(void)state;
	put32(8, 3);
	reseal();
	refused(len, "form count");
	assert_non_null(strstr(why, "byte 8"));
	put32(8, 2);
	put32(12, (uint32_t)(plans[0].n + plans[1].n + 1));
	reseal();
	refused(len, "measurement count");
	put32(12, (uint32_t)(plans[0].n + plans[1].n));
	/* The first form's length: past the forms' end, and one byte short (its last field then runs over). */
	const size_t h = INSTR_PACK_HEADER;
	uint32_t flen = (uint32_t)(file[h] | file[h + 1] << 8 | file[h + 2] << 16 | (uint32_t)file[h + 3] << 24);
	put32(h, (uint32_t)len);
	reseal();
	refused(len, "form length past the end");
	assert_non_null(strstr(why, "byte 28"));
	put32(h, flen - 1);
	reseal();
	refused(len, "truncated");
	put32(h, flen);
	/* The init table's offset outside the file, and an entry more than the table holds. */
	uint32_t table = (uint32_t)(file[24] | file[25] << 8 | file[26] << 16 | (uint32_t)file[27] << 24);
	put32(24, (uint32_t)len + 1);
	reseal();
	refused(len, "init table offset outside the file");
	put32(24, table);
	file[6]++;
	reseal();
	refused(len, "truncated init table");
	file[6]--;
	/* The first string (asm) said longer than it is: it swallows the next one's length, no NUL at its end. */
	size_t s = h + 20;
	uint8_t old = file[s];
	file[s] = (uint8_t)(old + 2);
	reseal();
	refused(len, "NUL");
	file[s] = old;
	/* The second form's first CPUID condition (width at +10, least at +11): a field reaching past its
	 * register, one that needs 0, and 2 in a field of one bit (no CPU could have it). */
	static const struct {
		size_t at;
		uint8_t v;
		const char *want;
	} bad_fields[] = { { 10, 33, "CPUID register or bit out of range" },
			   { 11, 0, "least value" },
			   { 11, 2, "least value" } };
	size_t c = cpuid_at(h + flen);
	for (size_t i = 0; i < sizeof(bad_fields) / sizeof(bad_fields[0]); i++) {
		uint8_t was = file[c + bad_fields[i].at];
		file[c + bad_fields[i].at] = bad_fields[i].v;
		reseal();
		refused(len, bad_fields[i].want);
		file[c + bad_fields[i].at] = was;
	}
	/* An unknown idiom. */
	file[h + 4] = 9;
	reseal();
	refused(len, "unknown idiom");
	file[h + 4] = (uint8_t)plans[0].idiom;
	/* The first form's first measurement (ADD's op1 -> op1, exact): cycles counted at their least on an
	 * exact figure, and more of them than any connector has (its bound made upper for that). */
	const size_t cpuid_bit = 12;
	size_t m0 = cpuid_at(h) + file[h + 5] * cpuid_bit;
	assert_int_equal(plans[0].m[0].bound, IKM_EXACT);
	assert_int_equal(file[m0 + 1], IKM_EXACT);
	file[m0 + 2] = 1;
	reseal();
	refused(len, "without an upper bound");
	assert_non_null(strstr(why, "byte"));
	file[m0 + 1] = IKM_UPPER;
	file[m0 + 2] = IKM_LEAST_MAX + 1;
	reseal();
	refused(len, "least cycles outside");
	file[m0 + 2] = IKM_LEAST_MAX;
	reseal();
	assert_true(instr_pack_open(&pk, file, len, why, sizeof(why)));
	file[m0 + 1] = IKM_EXACT;
	file[m0 + 2] = 0;
	reseal();
	assert_true(instr_pack_open(&pk, file, len, why, sizeof(why)));
}

static void fake_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out)
{
	const uint32_t *avx = ctx;
	memset(out, 0, sizeof(*out));
	(void)subleaf;
	if (leaf == 0)
		out->eax = 0xd;
	if (leaf == 1)
		out->ecx = *avx;
}

/* ADD is on every CPU; VADDPS ymm needs AVX's CPUID bit and XCR0's AVX state. */
static void selection(void **state)
{
	(void)state;
	static struct instr_cpu cpu;
	static struct instr_pack_form add, vadd;
	uint32_t avx_ecx = 0;
	assert_true(instr_pack_open(&pk, file, len, why, sizeof(why)));
	assert_true(instr_pack_next(&pk, &add));
	assert_true(instr_pack_next(&pk, &vadd));
	instr_cpu_init(&cpu, fake_cpuid, &avx_ecx, true, 0x3);
	assert_int_equal(instr_pack_form_avail(&cpu, &add), INSTR_PRESENT);
	assert_int_equal(instr_pack_form_avail(&cpu, &vadd), INSTR_ABSENT);
	for (size_t b = 0; b < vadd.n_cpuid; b++)
		if (vadd.cpuid[b].leaf == 1 && vadd.cpuid[b].reg == 2)
			avx_ecx |= 1u << vadd.cpuid[b].bit;
	instr_cpu_init(&cpu, fake_cpuid, &avx_ecx, true, 0x3);
	cpu.osxsave = true;
	assert_int_equal(instr_pack_form_avail(&cpu, &vadd), INSTR_NO_STATE);
	cpu.xcr0 = 0x7;
	assert_int_equal(instr_pack_form_avail(&cpu, &vadd), INSTR_PRESENT);
	static struct regex re;
	struct regex_error err;
	assert_true(regex_compile(&re, "^ADD r64", 0, &err));
	struct instr_filter flt = { &re, NULL, 0 };
	assert_true(instr_pack_form_matches(&add, &flt));
	assert_false(instr_pack_form_matches(&vadd, &flt));
	const char *ext[] = { "avx" };
	struct instr_filter by_ext = { NULL, ext, 1 };
	assert_false(instr_pack_form_matches(&add, &by_ext));
	assert_true(instr_pack_form_matches(&vadd, &by_ext));
}

/* instr=: none, all, extensions (each with a capital), else a regex (a bad one named by position). */
static void choice(void **state)
{
	(void)state;
	static struct instr_choice ch;
	static struct instr_pack_form add;
	char w[160];
	assert_true(instr_pack_open(&pk, file, len, why, sizeof(why)));
	assert_true(instr_pack_next(&pk, &add));
	assert_true(instr_choice_parse(&ch, "none", 4, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_NONE);
	assert_true(instr_choice_parse(&ch, "", 0, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_NONE);
	assert_true(instr_choice_parse(&ch, "all", 3, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_ALL);
	assert_true(instr_pack_form_matches(&add, &ch.flt));
	assert_true(instr_choice_parse(&ch, "AVX2,BASE", 9, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_EXT);
	assert_int_equal(ch.flt.n_ext, 2);
	assert_string_equal(ch.flt.ext[1], "BASE");
	assert_true(instr_pack_form_matches(&add, &ch.flt));
	assert_true(instr_choice_parse(&ch, "SSE2", 4, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_EXT);
	assert_false(instr_pack_form_matches(&add, &ch.flt));
	assert_true(instr_choice_parse(&ch, "^ADD.r64", 8, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_REGEX);
	assert_true(instr_pack_form_matches(&add, &ch.flt));
	assert_true(instr_choice_parse(&ch, "^SUB", 4, w, sizeof(w)));
	assert_false(instr_pack_form_matches(&add, &ch.flt));
	/* "BASE," is no extension list (an empty item): a regex, which compiles. */
	assert_true(instr_choice_parse(&ch, "BASE,", 5, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_REGEX);
	/* XED's SSE4a has a lower-case letter, as --list prints it: still a list, not a regex matching nothing. */
	assert_true(instr_choice_parse(&ch, "SSE4a,BASE", 10, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_EXT);
	assert_int_equal(ch.flt.n_ext, 2);
	assert_string_equal(ch.flt.ext[0], "SSE4a");
	/* An item with no capital makes the value a regex: xmm finds the forms with an xmm operand. */
	assert_true(instr_choice_parse(&ch, "xmm", 3, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_REGEX);
	assert_true(instr_choice_parse(&ch, "BASE,r64", 8, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_REGEX);
	assert_true(instr_choice_parse(&ch, "r64", 3, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_REGEX);
	assert_true(instr_pack_form_matches(&add, &ch.flt));
	assert_false(instr_choice_parse(&ch, "^ADD(", 5, w, sizeof(w)));
	assert_non_null(strstr(w, "at position"));
}

/* instr=FOO,BASE: FOO is named, with the pack's extensions sorted; known names (any case) are not. */
static void choice_unknown_extension(void **state)
{
	(void)state;
	static struct instr_choice ch;
	static struct instr_pack_form scratch;
	char w[160], msg[200];
	assert_true(instr_pack_open(&pk, file, len, why, sizeof(why)));
	assert_true(instr_choice_parse(&ch, "FOO,BASE,AVX512F", 16, w, sizeof(w)) && ch.kind == INSTR_CHOOSE_EXT);
	assert_int_equal(instr_choice_unknown_ext(&ch, &pk, &scratch, msg, sizeof(msg)), 2);
	assert_string_equal(msg, "no form of the kernel pack is of extension FOO, AVX512F; it has 2: AVX BASE");
	/* The pack is not moved: it still gives its first form. */
	struct instr_pack again = pk;
	assert_true(instr_pack_next(&again, &scratch));
	assert_string_equal(scratch.asm_name, "ADD r64, r64");
	assert_true(instr_choice_parse(&ch, "AVX,BASE", 8, w, sizeof(w)));
	ch.ext[0] = "avx"; /* compared as the filter compares: case ignored */
	assert_int_equal(instr_choice_unknown_ext(&ch, &pk, &scratch, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
	/* A regex or all has no names to check. */
	assert_true(instr_choice_parse(&ch, "^FOO", 4, w, sizeof(w)));
	assert_int_equal(instr_choice_unknown_ext(&ch, &pk, &scratch, msg, sizeof(msg)), 0);
	/* Cut to fit, saying so. */
	assert_true(instr_choice_parse(&ch, "FOO", 3, w, sizeof(w)));
	assert_int_equal(instr_choice_unknown_ext(&ch, &pk, &scratch, msg, 62), 1);
	assert_string_equal(msg, "no form of the kernel pack is of extension FOO; it has 2: ...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(truncations, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_crc, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_lengths, setup, teardown),
		cmocka_unit_test_setup_teardown(selection, setup, teardown),
		cmocka_unit_test_setup_teardown(choice, setup, teardown),
		cmocka_unit_test_setup_teardown(choice_unknown_extension, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
