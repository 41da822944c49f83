/*
 * The CPUID dump reader: every layout variant of ../shared/cpuid-dumps/README.md
 * (A-G), subleaf tags and untagged repeats, and malformed input, which must be
 * an error naming the line - never a crash or a wrong answer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpuid_dump.h"

#define CAP 512

static struct cpuid_dump_leaf leaves[CAP];
static struct cpuid_dump_cpu cpus[CAP];
static struct cpuid_dump D;

static bool parse_n(const char *text, size_t len)
{
	cpuid_dump_init(&D, leaves, CAP, cpus, CAP);
	return cpuid_dump_parse(&D, text, len);
}

static bool parse(const char *text) { return parse_n(text, strlen(text)); }

static struct cpuid_regs q(size_t cpu, uint32_t leaf, uint32_t sub, bool *found)
{
	struct cpuid_regs r;
	bool f = cpuid_dump_query(&D, cpu, leaf, sub, &r);
	if (found)
		*found = f;
	return r;
}

static void expect_error(const char *text, uint32_t line, const char *words)
{
	bool ok = parse(text);
	if (ok)
		fail_msg("parsed, but expected an error at line %u (%s)", line, words);
	if (D.err_line != line || !strstr(D.err, words))
		fail_msg("error '%s' at line %u; expected line %u with '%s'", D.err, D.err_line, line, words);
}

#define INTEL0 "CPUID 00000000: 00000016-756E6547-6C65746E-49656E69"
#define INTEL1 "CPUID 00000001: 000906E9-00100800-7FFAFBBF-BFEBFBFF"
#define AMD0 "CPUID 00000000: 0000000D-68747541-444D4163-69746E65"
#define AMD1 "CPUID 00000001: 00600F20-00080800-3E98320B-178BFBFF"

/* A: the full report, header sections first, CPU sections, then MSR sections. */
static void variant_a_report(void **state)
{
	(void)state;
	const char *t =
		"------[ Versions ]------\n\n"
		"Program Version : AIDA64 Engineer v7.50.7209 Beta\n\n"
		"------[ CPU Info ]------\n\n"
		"CPUID Manufacturer: GenuineIntel\n"
		"CPUID CPU Name    : Intel(R) Core(TM) i3-7100 CPU @ 3.90GHz\n"
		"CPUID Revision    : 000906E9h\n\n"
		"------[ CPUID Registers / Logical CPU #0 ]------\n\n"
		"allcpu: Package 0 / Core 0 / Thread 0: Valid, Intel Core\n\n"
		INTEL0 " [GenuineIntel]\n"
		INTEL1 "\n"
		"CPUID 00000004: 1C004121-01C0003F-0000003F-00000000 [SL 00] [L1D: 32 KB]\n"
		"CPUID 00000004: 1C004122-01C0003F-0000003F-00000000 [SL 01] [L1I: 32 KB]\n"
		"CPUID 0000000A: 07300404-00000000-00000000-00000603\n\n"
		"L1D Cache:    32 KB, 8-way Associative, 64-byte Line\n\n"
		"------[ CPUID Registers / Logical CPU #1 ]------\n\n"
		"allcpu: Package 0 / Core 0 / Thread 1: Valid, Virtual, Intel Atom\n\n"
		INTEL0 "\n"
		"CPUID 00000001: 000906E9-01100800-7FFAFBBF-BFEBFBFF\n\n"
		"------[ All CPUs ]------\n\n"
		"CPU   1: APICID    1 / Package 0 / Core   0 / Thread 1: Valid, Virtual\n\n"
		"------[ MSR Registers / Logical CPU #0 ]------\n\n"
		"MSR 0000008B: 0000-00C6-0000-0000\n"
		"MSR 00000049: < FAILED >\n";
	bool found;
	assert_true(parse(t));
	assert_int_equal(D.variant, 'A');
	assert_int_equal(D.ncpus, 2);
	assert_int_equal(D.cpus[0].label, 0);
	assert_true(D.cpus[0].labelled);
	assert_int_equal(D.cpus[1].label, 1);
	assert_string_equal(D.cpus[0].core_note, "Intel Core");
	assert_string_equal(D.cpus[1].core_note, "Intel Atom");
	assert_int_equal(D.cpus[0].line, 11);
	assert_int_equal(q(0, 4, 1, &found).eax, 0x1C004122);
	assert_true(found);
	q(0, 4, 2, &found);
	assert_false(found);		/* a tagged leaf answers only the subleaves it lists */
	/* A leaf that is not subleaf-indexed answers every ECX. */
	assert_int_equal(q(0, 0xA, 7, &found).edx, 0x603);
	assert_true(found);
	assert_int_equal(q(1, 1, 0, NULL).ebx, 0x01100800);
	q(1, 0xA, 0, &found);
	assert_false(found);		/* a leaf a block does not list reads as zeros */
	q(2, 0, 0, &found);
	assert_false(found);
}

/* B and C: the per-CPU sections without the report header, newer and older titles. */
static void variants_b_and_c(void **state)
{
	(void)state;
	assert_true(parse("------[ CPUID Registers / Logical CPU #0 ]------\n"
			  "allcpu: Package 0 / Core 0 / Thread 0: Valid\n"
			  "CPUID 00000000: 00000020-756E6547-6C65746E-49656E69 [GenuineIntel]\n"
			  "CPUID 00000001: 000B06E0-00800800-7FFAFBBF-BFEBFBFF\n"
			  "CPUID 00000007: 00000002-F3BFBFFB-BB417FEE-FFDD4430 [SL 00]\n"
			  "CPUID 00000007: 00001C30-00000000-00000000-00000000 [SL 01]\n"));
	assert_int_equal(D.variant, 'B');
	assert_string_equal(D.cpus[0].core_note, "");	/* "Valid" alone is no core type */
	assert_int_equal(q(0, 7, 1, NULL).eax, 0x1C30);

	assert_true(parse("------[ Logical CPU #0 ]------\n\nallcpu: Valid\n\n"
			  "CPUID 00000000: 0000000D-6F677948-656E6975-6E65476E [HygonGenuine]\n"
			  "CPUID 00000001: 00900F02-00100800-74D83209-178BFBFF\n"
			  "CPUID 8000001B: 000003FF-00000000-00000000-00000000\n\n"
			  "------[ Logical CPU #1 ]------\n\nallcpu: Valid\n\n"
			  "CPUID 00000000: 0000000D-6F677948-656E6975-6E65476E [HygonGenuine]\n"
			  "CPUID 00000001: 00900F02-01100800-74D83209-178BFBFF\n\n"
			  "------[ All CPUs ]------\n"));
	assert_int_equal(D.variant, 'C');
	assert_int_equal(D.ncpus, 2);
	assert_int_equal(q(0, 0x8000001B, 0, NULL).eax, 0x3FF);
}

/* D: "CPUID Registers (CPU #1):", numbered from 1, and the three separator styles. */
static void variant_d_separators(void **state)
{
	(void)state;
	assert_true(parse("CPUID Registers (CPU #1):\n"
			  "CPUID 00000000: 0000000A-756E6547-6C65746E-49656E69\n"
			  "CPUID 00000001: 000006F2-00020800-0000E39D-BFEBFBFF\n"
			  "CPUID 00000004: 04000121-01C0003F-0000003F-00000000\n"
			  "CPUID 00000004: 04000122-01C0003F-0000003F-00000000\n"
			  "\n"
			  "CPUID Registers (CPU #2):\n"
			  "CPUID 00000000  \t00000005-68747541-444D4163-69746E65\n"
			  "CPUID 00000001  \t00100F52-00040800-00802009-178BFBFF\n"
			  "CPUID 8000001B  \t0000001F-00000000-00000000-00000000\n"
			  "\n"
			  "CPUID Registers (CPU #3):\n"
			  "CPUID 00000000 :00000006-68747541-444D4163-69746E65\n"
			  "CPUID 00000001 :00500F20-00020800-00802209-178BFBFF\n"));
	assert_int_equal(D.variant, 'D');
	assert_int_equal(D.ncpus, 3);
	assert_int_equal(D.cpus[0].label, 1);
	assert_int_equal(D.cpus[2].label, 3);
	assert_int_equal(q(0, 4, 1, NULL).eax, 0x04000122);	/* untagged leaf 4: subleaves in order */
	assert_int_equal(q(1, 0x8000001B, 0, NULL).eax, 0x1F);
	assert_int_equal(q(2, 1, 0, NULL).eax, 0x00500F20);
}

/* E: "CPU#000 AffMask: 0x... " with trailing spaces everywhere. */
static void variant_e_trailing_spaces(void **state)
{
	(void)state;
	assert_true(parse("CPU#000 AffMask: 0x0000000000000001 \n"
			  "CPUID 00000000: 00000005-68747541-444D4163-69746E65 [AuthenticAMD] \n"
			  "CPUID 00000001: 00100F52-00040800-00802009-178BFBFF \n"
			  "CPUID 00000004: 00000000-00000000-00000000-00000000 [SL 00]\n"
			  "\n"
			  "CPU#001 AffMask: 0x0000000000000002 \n"
			  "CPUID 00000000: 00000005-68747541-444D4163-69746E65 [AuthenticAMD] \n"
			  "CPUID 00000001: 00100F52-01040800-00802009-178BFBFF \n"));
	assert_int_equal(D.variant, 'E');
	assert_int_equal(D.ncpus, 2);
	assert_int_equal(D.cpus[1].label, 1);
	assert_int_equal(q(1, 1, 0, NULL).ebx, 0x01040800);
}

/* F: "Group: 0xGG Affinity mask: 0x...": the CPU number is the mask's bit within its group. */
static void variant_f_group_masks(void **state)
{
	(void)state;
	assert_true(parse("Group: 0x00 Affinity mask: 0x0000000000000004\n"
			  "CPUID 00000000: 00000010-68747541-444D4163-69746E65 \n"
			  "CPUID 00000001: 00A70F52-00100800-7ED8320B-178BFBFF \n"
			  "CPUID 0000000D: 000002E7-00000980-00000988-00000000 [SL 00] [X87]\n"
			  "Group: 0x01 Affinity mask: 0x0000000000000001\n"
			  "CPUID 00000000: 00000010-68747541-444D4163-69746E65 \n"
			  "CPUID 00000001: 00A70F52-01100800-7ED8320B-178BFBFF \n"));
	assert_int_equal(D.variant, 'F');
	assert_int_equal(D.cpus[0].label, 2);
	assert_int_equal(D.cpus[1].label, 64);
	assert_int_equal(q(0, 0xD, 0, NULL).eax, 0x2E7);
}

/* G: lower-case hex, "CPU n:" blocks, untagged repeats, the 80860000/c0000000 probes. */
static void variant_g_lowercase(void **state)
{
	(void)state;
	bool found;
	assert_true(parse("CPU 0:\n"
			  "CPUID 00000000: 00000016-756e6547-6c65746e-49656e69\n"
			  "CPUID 00000001: 00050654-00000800-7ffefbff-bfebfbff\n"
			  "CPUID 00000004: 7c004121-01c0003f-0000003f-00000000\n"
			  "CPUID 00000004: 7c004122-01c0003f-0000003f-00000000\n"
			  "CPUID 00000004: 7c004143-03c0003f-000003ff-00000000\n"
			  "CPUID 0000000a: 07300804-00000000-00000000-00000603\n"
			  "CPUID 0000000d: 000002ff-00000a80-00000a88-00000000\n"
			  "CPUID 0000000d: 0000000f-00000a00-00000100-00000000\n"
			  "CPUID 0000000d: 00000100-00000240-00000000-00000000\n"
			  "CPUID 80860000: 00000016-00000000-00000000-00000000\n"
			  "CPUID c0000000: 00000016-00000000-00000000-00000000\n"
			  "\n"
			  "CPU 1:\n"
			  "CPUID 00000000: 00000016-756e6547-6c65746e-49656e69\n"
			  "CPUID 00000001: 00050654-01000800-7ffefbff-bfebfbff\n"));
	assert_int_equal(D.variant, 'G');
	assert_int_equal(q(0, 4, 2, NULL).ecx, 0x3ff);
	assert_int_equal(q(0, 0xA, 0, NULL).eax, 0x07300804);
	/* Intel leaf 0DH is contiguous from 0 (README), so the third line is subleaf 2. */
	assert_int_equal(q(0, 0xD, 2, &found).ebx, 0x240);
	assert_true(found);
	assert_int_equal(q(0, 0xC0000000, 0, NULL).eax, 0x16);
}

/* AMD's untagged leaf 0DH skips subleaf 1: the second line's index cannot be known, so it answers nothing. */
static void amd_sparse_untagged_leaf(void **state)
{
	(void)state;
	bool found;
	assert_true(parse(AMD0 "\n" AMD1 "\n"
			  "CPUID 0000000D: 00000007-00000340-000003C0-40000000\n"
			  "CPUID 0000000D: 00000100-00000240-00000000-00000000\n"
			  "CPUID 8000001D: 00004121-01C0003F-0000003F-00000000\n"
			  "CPUID 8000001D: 00004122-0040003F-000001FF-00000000\n"
			  "CPUID 8000001D: 00004143-03C0003F-000007FF-00000002\n"));
	assert_int_equal(D.variant, 'P');
	assert_int_equal(q(0, 0xD, 0, &found).eax, 7);
	assert_true(found);
	q(0, 0xD, 1, &found);
	assert_false(found);
	q(0, 0xD, 2, &found);
	assert_false(found);
	assert_int_equal(D.leaves[3].sl, DUMP_SL_UNKNOWN);
	assert_int_equal(q(0, 0x8000001D, 2, NULL).eax, 0x4143);
}

static void crlf_bom_and_plain_list(void **state)
{
	(void)state;
	assert_true(parse("\xEF\xBB\xBF" INTEL0 "\r\n" INTEL1 "\r\n\r\n"));
	assert_int_equal(D.variant, 'P');
	assert_int_equal(D.ncpus, 1);
	assert_false(D.cpus[0].labelled);
	assert_int_equal(q(0, 1, 0, NULL).edx, 0xBFEBFBFF);
	/* Without headers, each leaf 0 line opens the next CPU. */
	assert_true(parse(INTEL0 "\n" INTEL1 "\n" INTEL0 "\n" INTEL1 "\n"));
	assert_int_equal(D.ncpus, 2);
	assert_int_equal(D.cpus[1].line, 3);
	/* No space at all between the leaf and EAX still matches the README's expression. */
	assert_true(parse("CPUID 0000000000000016-756E6547-6C65746E-49656E69\n" INTEL1));
	assert_int_equal(q(0, 0, 0, NULL).eax, 0x16);
}

static void malformed_lines_name_their_line(void **state)
{
	(void)state;
	expect_error(INTEL0 "\n" INTEL1 "\nCPUID 0000000A: 07300404-0000", 3, "EBX is truncated");
	expect_error(INTEL0 "\n" INTEL1 "\nCPUID 0000000A: 07300404\n", 3, "EBX is missing");
	expect_error(INTEL0 "\nCPUID 00000001: 000906G9-00100800-7FFAFBBF-BFEBFBFF\n", 2, "EAX is not 8 hex digits");
	expect_error(INTEL0 "\nCPUID 0000001Z: 000906E9-00100800-7FFAFBBF-BFEBFBFF\n", 2, "not 8 hex digits");
	expect_error(INTEL0 "\n" INTEL1 "\nCPUID 0000000A: 07300404-00000000-00000000-000006031\n", 3,
		     "EDX is not 8 hex digits");
	expect_error(INTEL0 "\n" INTEL1 "\nCPUID 0000000A: 07300404-00000000-00000000-00000603:x\n", 3,
		     "unexpected text after EDX");
	expect_error(INTEL0 "\n" INTEL1 "\nCPUID 0000000A: 07300404_00000000-00000000-00000603\n", 3,
		     "expected '-' after EAX");
	expect_error(INTEL0 "\n" INTEL1 "\nCPUID 00000004: 1C004121-01C0003F-0000003F-00000000 [SL 1]\n", 3,
		     "malformed subleaf tag");
	expect_error(INTEL0 "\n" INTEL1 "\nCPUID 00000004: 1C004121-01C0003F-0000003F-00000000 [SL 00]\n"
		     "CPUID 00000004: 1C004122-01C0003F-0000003F-00000000 [SL 00]\n", 4,
		     "subleaf 00 on line 4 was already given on line 3 (block 0) with other values");
	/* A NUL byte inside a register is bad hex, not the end of the text. */
	const char nul[] = INTEL0 "\nCPUID 00000001: 0009\0" "6E9-00100800-7FFAFBBF-BFEBFBFF\n";
	assert_false(parse_n(nul, sizeof(nul) - 1));
	assert_int_equal(D.err_line, 2);
}

static void missing_leaves_and_blocks(void **state)
{
	(void)state;
	expect_error("CPUID Registers (CPU #1):\n" INTEL1 "\n", 2, "leaf 00000000 must come first");
	expect_error("junk\n", 1, "not a CPUID dump");
	expect_error("Processor report\n" INTEL0 "\n" INTEL1 "\n", 1, "not a CPUID dump");
	expect_error(INTEL1 "\n", 1, "before any leaf 00000000");
	expect_error("------[ Logical CPU #0 ]------\n" INTEL0 "\nCPUID 00000002: 03020101-00000000-00000000-06040A42\n",
		     1, "CPU #0 (lines 1-3) has no leaf 00000001");
	expect_error(INTEL0 "\n" INTEL1 "\nCPUID 00000001: 000906EA-00100800-7FFAFBBF-BFEBFBFF\n", 3,
		     "leaf 00000001 on line 3 was already given on line 2 (block 0) with other values; it takes no "
		     "subleaf: is a leaf 00000000 line missing?");
	expect_error("------[ Logical CPU #0 ]------\n" INTEL0 "\n" INTEL1 "\n------[ Logical CPU #1 ]------\nallcpu: Valid\n",
		     4, "no register lines after it");
	expect_error("------[ Logical CPU #0 ]------\n------[ Logical CPU #1 ]------\n" INTEL0 "\n" INTEL1 "\n", 1,
		     "no register lines after it");
	expect_error("", 0, "empty input");
	expect_error("\n\n  \n", 0, "empty input");
	expect_error("------[ Versions ]------\n\nProgram Version : x\n", 0, "no CPUID register lines");
}

static void storage_limits_are_errors(void **state)
{
	(void)state;
	struct cpuid_dump_leaf few[3];
	struct cpuid_dump_cpu one[1];
	const char *t = INTEL0 "\n" INTEL1 "\nCPUID 0000000A: 07300404-00000000-00000000-00000603\n"
			"CPUID 80000000: 80000008-00000000-00000000-00000000\n";
	cpuid_dump_init(&D, few, 3, one, 1);
	assert_false(cpuid_dump_parse(&D, t, strlen(t)));
	assert_int_equal(D.err_line, 4);
	assert_non_null(strstr(D.err, "room for"));
	cpuid_dump_init(&D, few, 3, one, 1);
	t = INTEL0 "\n" INTEL1 "\n" INTEL0 "\n";
	assert_false(cpuid_dump_parse(&D, t, strlen(t)));
	assert_int_equal(D.err_line, 3);
	assert_int_equal(cpuid_dump_line_count("a\nb\nc", 5), 3);
}

/* pmuboot's compact fixture (tools/cpuid_fixture.py): every line names its CPU and subleaf. */
#define FIX "# pmuboot cpuid fixture 1\n# source: hand-written\n"
#define FIX0 "CPU 0: 00000000.00: 00000016 756E6547 6C65746E 49656E69\n"
#define FIX1 "CPU 0: 00000001.00: 000906E9 00100800 7FFAFBBF BFEBFBFF\n"

static void fixture_format(void **state)
{
	(void)state;
	bool found;
	assert_true(parse(FIX FIX0 FIX1 "CPU 0: 00000007.01: 00000010 00000000 00000000 00000000\n"
			  "\n# a comment between blocks\n"
			  "CPU 1: core Intel Atom\n"
			  "CPU 1: 00000000.00: 00000016 756E6547 6C65746E 49656E69\n"
			  "CPU 1: 00000001.00: 000906E9 01100800 7FFAFBBF BFEBFBFF\n"
			  "CPU 1: 0000001A.00: 20000001 00000000 00000000 00000000\n"));
	assert_int_equal(D.variant, 'X');
	assert_int_equal(D.ncpus, 2);
	assert_true(D.cpus[1].labelled);
	assert_int_equal(D.cpus[1].label, 1);
	assert_int_equal(D.cpus[1].line, 8);
	assert_string_equal(D.cpus[1].core_note, "Intel Atom");
	assert_string_equal(D.cpus[0].core_note, "");
	assert_int_equal(q(0, 7, 1, &found).eax, 0x10);
	assert_true(found);
	/* A line answers its own subleaf only. */
	q(0, 7, 0, &found);
	assert_false(found);
	q(0, 1, 1, &found);
	assert_false(found);
	assert_int_equal(q(1, 0x1A, 0, NULL).eax, 0x20000001);
	assert_int_equal(q(1, 1, 0, NULL).ebx, 0x01100800);
}

static void fixture_errors_name_their_line(void **state)
{
	(void)state;
	expect_error(FIX FIX0 "CPU 0: 00000001.00: 000906E9 00100800 7FFAFBBF\n", 4, "EDX is missing");
	expect_error(FIX FIX0 "CPU 0: 00000001.00: 000906E9 0010080 7FFAFBBF BFEBFBFF\n", 4, "EBX is not 8 hex digits");
	expect_error(FIX FIX0 "CPU 0: 00000001: 000906E9 00100800 7FFAFBBF BFEBFBFF\n", 4, "expected \".SUBLEAF:\"");
	expect_error(FIX FIX0 FIX1 "CPU 0: 00000001.00: 000906E9 00100800 7FFAFBBF BFEBFBFF\n", 5,
		     "already given on line 4 (CPU 0) (a pmuboot fixture gives each question once)");
	expect_error(FIX FIX0 FIX1 "CPU 2: 00000000.00: 00000016 756E6547 6C65746E 49656E69\n", 5, "CPU 1 was expected");
	expect_error(FIX "CPU 1: 00000000.00: 00000016 756E6547 6C65746E 49656E69\n", 3, "CPU 0 was expected");
	expect_error(FIX FIX0 "CPU 1: " "00000000.00: 00000016 756E6547 6C65746E 49656E69\n", 3, "CPU 0 (lines 3-3) has no leaf 00000001");
	expect_error(FIX FIX1, 3, "has no leaf 00000000");
	expect_error(FIX FIX0 FIX1 "CPU 0: 00000006.00: 00000004 00000000 00000000 00000000 extra\n", 5, "unexpected text after EDX");
	expect_error(FIX FIX0 FIX1 "CPUID 00000006: 00000004-00000000-00000000-00000000\n", 5, "expected \"CPU n: ...\"");
	expect_error(FIX FIX0 "CPU 0: core \n" FIX1, 4, "core note");
	expect_error(FIX, 0, "no CPU blocks");
}

/* Debian's `cpuid -r`: "CPU:" (with -1) or "CPU n:" blocks, lower-case 0x-prefixed registers. */
#define RAW0 "   0x00000000 0x00: eax=0x00000010 ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65\n"
#define RAW1 "   0x00000001 0x00: eax=0x00a10f11 ebx=0x01020800 ecx=0xfffa3203 edx=0x178bfbff\n"

static void cpuid_r_format(void **state)
{
	(void)state;
	bool found;
	assert_true(parse("CPU:\n" RAW0 RAW1 "   0x00000007 0x01: eax=0x00000020 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n"
			  "   0x80860000 0x00: eax=0x00000000 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n"
			  "   0x80860000 0x00: eax=0x00000000 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n"));
	assert_int_equal(D.variant, 'R');
	assert_int_equal(D.ncpus, 1);
	assert_false(D.cpus[0].labelled);
	assert_int_equal(q(0, 1, 0, NULL).eax, 0x00a10f11);
	assert_int_equal(q(0, 7, 1, &found).eax, 0x20);
	q(0, 7, 0, &found);
	assert_false(found);
	/* Several CPUs: "CPU 0:" followed by a raw line is `cpuid -r`, not AIDA64's variant G. */
	assert_true(parse("CPU 0:\n" RAW0 RAW1 "CPU 1:\n" RAW0 RAW1));
	assert_int_equal(D.variant, 'R');
	assert_int_equal(D.ncpus, 2);
	assert_int_equal(D.cpus[1].label, 1);
	assert_int_equal(D.cpus[1].line, 4);
	assert_true(parse("CPU 0:\nCPUID 00000000: 00000016-756e6547-6c65746e-49656e69\n"
			  "CPUID 00000001: 00050654-00000800-7ffefbff-bfebfbff\n"));
	assert_int_equal(D.variant, 'G');
}

static void cpuid_r_errors_name_their_line(void **state)
{
	(void)state;
	expect_error("CPU:\n" RAW0 "   0x00000001 0x00: eax=0x00a10f11 ebx=0x01020800 ecx=0xfffa3203\n", 3, "edx is missing");
	expect_error("CPU:\n" RAW0 "   0x00000001 0x00: eax=0x00a10f11 ebx=0x0102080 ecx=0xfffa3203 edx=0x178bfbff\n", 3,
		     "expected ebx=0x");
	expect_error("CPU:\n" RAW0 "   0x00000001: eax=0x00a10f11 ebx=0x01020800 ecx=0xfffa3203 edx=0x178bfbff\n", 3,
		     "0xSUBLEAF");
	expect_error("CPU:\n" RAW0 RAW1 "   0x00000001 0x00: eax=0x00a10f12 ebx=0x01020800 ecx=0xfffa3203 edx=0x178bfbff\n", 4,
		     "with other values");
	expect_error("CPU:\n" RAW0 RAW1 "garbage\n", 4, "`cpuid -r` register line");
	expect_error("CPU:\n" RAW1, 1, "has no leaf 00000000");
	expect_error("CPU:\n" RAW0 RAW1 "CPU 1:\n", 4, "no register lines after it");
}

/*
 * A CPU number in a header that does not fit 32 bits is an error naming the line, in every
 * header that carries one: never a wrapped number, nor a header read as carrying none
 * ("CPU 4294967296:" was block 0).
 */
static void cpu_numbers_out_of_range(void **state)
{
	(void)state;
	static const char *const big[] = { "4294967296", "99999999999999999999999" };
	char t[1024];
	for (size_t i = 0; i < 2; i++) {
		const char *n = big[i];
		snprintf(t, sizeof(t), "CPU %s:\n" RAW0 RAW1, n);		/* `cpuid -r` */
		expect_error(t, 1, "out of range");
		snprintf(t, sizeof(t), "CPU 0:\n" RAW0 RAW1 "CPU %s:\n" RAW0 RAW1, n);
		expect_error(t, 4, "out of range");
		snprintf(t, sizeof(t), FIX "CPU %s: 00000000.00: 00000016 756E6547 6C65746E 49656E69\n", n);
		expect_error(t, 3, "out of range");	/* pmuboot's fixture */
		snprintf(t, sizeof(t), "CPU %s:\n" INTEL0 "\n" INTEL1 "\n", n);	/* AIDA64 G */
		expect_error(t, 1, "out of range");
		snprintf(t, sizeof(t), "------[ Logical CPU #0 ]------\n" INTEL0 "\n" INTEL1 "\n"
			 "------[ Logical CPU #%s ]------\n" INTEL0 "\n" INTEL1 "\n", n);	/* C */
		expect_error(t, 4, "out of range");
		snprintf(t, sizeof(t), "CPUID Registers (CPU #%s):\n" INTEL0 "\n" INTEL1 "\n", n);	/* D */
		expect_error(t, 1, "out of range");
		snprintf(t, sizeof(t), "CPU#%s AffMask: 0x0000000000000001\n" INTEL0 "\n" INTEL1 "\n", n);	/* E */
		expect_error(t, 1, "out of range");
	}
	/* The largest number that fits is a label like any other. */
	assert_true(parse("CPU 4294967295:\n" RAW0 RAW1));
	assert_true(D.cpus[0].labelled);
	assert_int_equal(D.cpus[0].label, 4294967295u);
	assert_true(parse("CPU#4294967295 AffMask: 0x0000000000000001\n" INTEL0 "\n" INTEL1 "\n"));
	assert_int_equal(D.cpus[0].label, 4294967295u);
}

/*
 * A dumping tool that says the same thing twice is not contradicting itself: an identical repeat
 * of a line is dropped, in the AIDA64 text and in `cpuid -r` output alike.  The same question
 * answered with other values is refused, naming both lines.  Untagged repeats of a leaf that
 * takes a subleaf are not repeats: they are its next subleaves (or of unknown index).
 */
static void repeated_lines(void **state)
{
	(void)state;
	bool found;
	const char *ext1 = "CPUID 80000001: 00000000-00000000-00000121-2C100800\n";
	const char *sl0 = "CPUID 00000004: 1C004121-01C0003F-0000003F-00000000 [SL 00]\n";

	/* AIDA64: an untagged leaf that takes no subleaf, and a tagged subleaf, each given twice. */
	char t[1024];
	snprintf(t, sizeof(t), "%s\n%s\n%s%s%s%s%s", INTEL0, INTEL1, ext1, sl0, ext1, sl0, INTEL1 "\n");
	assert_true(parse(t));
	assert_int_equal(D.ncpus, 1);
	assert_int_equal(D.cpus[0].count, 4);	/* leaves 0, 1, 80000001, 4.0: the repeats dropped */
	assert_int_equal(q(0, 0x80000001, 7, &found).edx, 0x2C100800);	/* still the leaf's only line */
	assert_true(found);
	assert_int_equal(q(0, 4, 0, NULL).eax, 0x1C004121);
	/* The same questions with other values: refused, naming both lines. */
	snprintf(t, sizeof(t), "%s\n%s\n%sCPUID 80000001: 00000000-00000000-00000121-2C100801\n", INTEL0, INTEL1, ext1);
	expect_error(t, 4, "leaf 80000001 on line 4 was already given on line 3 (block 0) with other values");
	/* Untagged repeats of a leaf that takes a subleaf are its subleaves, not repeats. */
	assert_true(parse(INTEL0 "\n" INTEL1 "\n"
			  "CPUID 00000004: 1C004121-01C0003F-0000003F-00000000\n"
			  "CPUID 00000004: 1C004122-01C0003F-0000003F-00000000\n"
			  "CPUID 00000007: 00000002-029C6FBF-40000000-BC000400\n"
			  "CPUID 00000007: 00000000-00000000-00000000-00000000\n"));
	assert_int_equal(q(0, 4, 1, NULL).eax, 0x1C004122);
	assert_int_equal(q(0, 7, 0, NULL).ebx, 0x029C6FBF);
	q(0, 7, 1, &found);
	assert_false(found);	/* leaf 7 is not contiguous: its second untagged line has no known index */

	/* `cpuid -r`: the same rule, with the subleaf on every line. */
	assert_true(parse("CPU:\n" RAW0 RAW1 RAW1 RAW0));
	assert_int_equal(D.cpus[0].count, 2);
	expect_error("CPU:\n" RAW0 RAW1 "   0x00000001 0x00: eax=0x00a10f12 ebx=0x01020800 ecx=0xfffa3203 edx=0x178bfbff\n",
		     4, "leaf 00000001 subleaf 0 on line 4 was already given on line 3 (CPU 0) with other values");
}

/*
 * Every prefix of a valid dump, and every single-byte corruption of it, is
 * either read or refused with a line number inside the text: never a crash,
 * and never a block without leaves 0 and 1.
 */
static void never_crash(const char *good)
{
	size_t n = strlen(good);
	char *buf = malloc(n + 1);
	uint32_t seed = 12345;
	static const char junk[] = { 'G', '-', ' ', '\n', '\0', '[', ':', 'z', '\t', '\r', '0' };

	for (size_t cut = 0; cut <= n; cut++) {
		memcpy(buf, good, cut);
		bool ok = parse_n(buf, cut);
		uint32_t lines = (uint32_t)cpuid_dump_line_count(buf, cut);
		if (!ok) {
			assert_true(D.err_line <= lines);
			assert_true(D.err[0] != '\0');
			continue;
		}
		for (size_t c = 0; c < D.ncpus; c++) {
			bool f0, f1;
			q(c, 0, 0, &f0);
			q(c, 1, 0, &f1);
			assert_true(f0 && f1);
		}
	}
	for (size_t i = 0; i < 4000; i++) {
		memcpy(buf, good, n);
		seed = seed * 1103515245u + 12345u;
		size_t at = (seed >> 8) % n;
		seed = seed * 1103515245u + 12345u;
		buf[at] = junk[(seed >> 8) % sizeof(junk)];
		if (parse_n(buf, n)) {
			for (size_t c = 0; c < D.ncpus; c++) {
				bool f0, f1;
				q(c, 0, 0, &f0);
				q(c, 1, 0, &f1);
				assert_true(f0 && f1);
			}
		} else {
			assert_true(D.err_line <= cpuid_dump_line_count(buf, n));
		}
	}
	free(buf);
}

static void truncation_and_corruption_never_crash(void **state)
{
	(void)state;
	never_crash("------[ CPUID Registers / Logical CPU #0 ]------\n"
		    "allcpu: Package 0 / Core 0 / Thread 0: Valid, Intel Core\n"
		    INTEL0 " [GenuineIntel]\n" INTEL1 "\n"
		    "CPUID 00000004: 1C004121-01C0003F-0000003F-00000000 [SL 00] [L1D: 32 KB]\n"
		    "CPUID 0000000A: 07300404-00000000-00000000-00000603\n"
		    "------[ CPUID Registers / Logical CPU #1 ]------\n"
		    INTEL0 "\n" INTEL1 "\n");
	never_crash(FIX "CPU 0: core Intel Core\n" FIX0 FIX1
		    "CPU 1: 00000000.00: 00000016 756E6547 6C65746E 49656E69\n"
		    "CPU 1: 00000001.00: 000906E9 01100800 7FFAFBBF BFEBFBFF\n");
	never_crash("CPU 0:\n" RAW0 RAW1 "CPU 1:\n" RAW0 RAW1);
}

/* The committed malformed fixtures: each names the right line. */
static void malformed_fixtures(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		uint32_t line;
		const char *words;
	} cases[] = {
		{ "bad_truncated_line.txt", 5, "EBX is truncated" },
		{ "bad_hex.txt", 3, "EAX is not 8 hex digits" },
		{ "bad_missing_leaf0.txt", 2, "leaf 00000000 must come first" },
		{ "bad_missing_leaf1.txt", 1, "has no leaf 00000001" },
		{ "bad_truncated_file.txt", 13, "no register lines after it" },
		{ "bad_subleaf_tag.txt", 4, "malformed subleaf tag" },
		{ "bad_not_a_dump.txt", 1, "not a CPUID dump" },
		{ "bad_empty.txt", 0, "empty input" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[256], text[8192];
		snprintf(path, sizeof(path), "tests/fixtures/cpuid/%s", cases[i].file);
		FILE *f = fopen(path, "rb");
		if (!f)
			fail_msg("%s: cannot open (run from the repository root)", path);
		size_t n = fread(text, 1, sizeof(text), f);
		fclose(f);
		if (parse_n(text, n))
			fail_msg("%s parsed; expected an error", path);
		if (D.err_line != cases[i].line || !strstr(D.err, cases[i].words))
			fail_msg("%s: '%s' at line %u; expected line %u with '%s'", path, D.err, D.err_line,
				 cases[i].line, cases[i].words);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(variant_a_report),
		cmocka_unit_test(variants_b_and_c),
		cmocka_unit_test(variant_d_separators),
		cmocka_unit_test(variant_e_trailing_spaces),
		cmocka_unit_test(variant_f_group_masks),
		cmocka_unit_test(variant_g_lowercase),
		cmocka_unit_test(amd_sparse_untagged_leaf),
		cmocka_unit_test(crlf_bom_and_plain_list),
		cmocka_unit_test(malformed_lines_name_their_line),
		cmocka_unit_test(missing_leaves_and_blocks),
		cmocka_unit_test(storage_limits_are_errors),
		cmocka_unit_test(truncation_and_corruption_never_crash),
		cmocka_unit_test(malformed_fixtures),
		cmocka_unit_test(fixture_format),
		cmocka_unit_test(fixture_errors_name_their_line),
		cmocka_unit_test(cpuid_r_format),
		cmocka_unit_test(cpuid_r_errors_name_their_line),
		cmocka_unit_test(cpu_numbers_out_of_range),
		cmocka_unit_test(repeated_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
