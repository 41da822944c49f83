/*
 * The exception-fixup table (platform/fixup.c): self-relative entries as
 * EX_ENTRY emits them, lookup, and the table check the self-test runs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform/fixup.h"

/*
 * Two fake "instructions" and their fixups, and a two-entry table built by
 * the assembler the way EX_ENTRY builds it (.long label - .), so the test
 * checks the encoding as well as the lookup.
 */
__asm__(".text\n"
	".globl ut_insn_a, ut_fix_a, ut_insn_b, ut_fix_b\n"
	"ut_insn_a: nop\n"
	"ut_fix_a: nop\n"
	"ut_insn_b: nop\n"
	"ut_fix_b: ret\n"
	".pushsection .data.ut_ex, \"aw\"\n"
	".balign 4\n"
	".globl ut_table, ut_table_end\n"
	"ut_table:\n"
	".long ut_insn_a - .\n"
	".long ut_fix_a - .\n"
	".long ut_insn_b - .\n"
	".long ut_fix_b - .\n"
	"ut_table_end:\n"
	".popsection\n");
extern const char ut_insn_a[], ut_fix_a[], ut_insn_b[], ut_fix_b[];
extern const struct ex_entry ut_table[], ut_table_end[];

static void assembled_entries_decode(void **state)
{
	(void)state;
	assert_int_equal(ut_table_end - ut_table, 2);
	assert_int_equal(ex_insn(&ut_table[0]), (uintptr_t)ut_insn_a);
	assert_int_equal(ex_fixup(&ut_table[0]), (uintptr_t)ut_fix_a);
	assert_int_equal(ex_insn(&ut_table[1]), (uintptr_t)ut_insn_b);
	assert_int_equal(ex_fixup(&ut_table[1]), (uintptr_t)ut_fix_b);
}

static void lookup_finds_exact_addresses_only(void **state)
{
	(void)state;
	assert_int_equal(ex_lookup(ut_table, ut_table_end, (uintptr_t)ut_insn_a), (uintptr_t)ut_fix_a);
	assert_int_equal(ex_lookup(ut_table, ut_table_end, (uintptr_t)ut_insn_b), (uintptr_t)ut_fix_b);
	/* One byte off, or a fixup address itself, is not in the table. */
	assert_int_equal(ex_lookup(ut_table, ut_table_end, (uintptr_t)ut_insn_a - 1), 0);
	assert_int_equal(ex_lookup(ut_table, ut_table_end, (uintptr_t)ut_fix_a), 0);
	assert_int_equal(ex_lookup(ut_table, ut_table_end, (uintptr_t)ut_fix_b), 0);
	assert_int_equal(ex_lookup(ut_table, ut_table, (uintptr_t)ut_insn_a), 0);	/* empty table */
}

/* Entries made at run time in a buffer: the offsets are relative to each field. */
static void set_entry(struct ex_entry *e, uintptr_t insn, uintptr_t fix)
{
	e->insn = (int32_t)((intptr_t)insn - (intptr_t)&e->insn);
	e->fixup = (int32_t)((intptr_t)fix - (intptr_t)&e->fixup);
}

static void negative_and_positive_offsets(void **state)
{
	(void)state;
	/* Both static: the offsets are 32-bit, like the image's .text and .data. */
	static char code[4096];
	static struct ex_entry t[3];
	/* Targets on both sides of the table. */
	set_entry(&t[0], (uintptr_t)&code[10], (uintptr_t)&code[20]);
	set_entry(&t[1], (uintptr_t)&t[2] + 64, (uintptr_t)&t[0] - 64);
	set_entry(&t[2], (uintptr_t)&code[30], (uintptr_t)&code[40]);
	assert_int_equal(ex_lookup(t, t + 3, (uintptr_t)&code[10]), (uintptr_t)&code[20]);
	assert_int_equal(ex_lookup(t, t + 3, (uintptr_t)&t[2] + 64), (uintptr_t)&t[0] - 64);
	assert_int_equal(ex_lookup(t, t + 3, (uintptr_t)&code[30]), (uintptr_t)&code[40]);
	assert_int_equal(ex_lookup(t, t + 3, (uintptr_t)&code[11]), 0);
}

static void check_flags_outside_and_duplicates(void **state)
{
	(void)state;
	static char text[256];
	uintptr_t lo = (uintptr_t)text, hi = lo + sizeof(text);
	static struct ex_entry t[3];

	set_entry(&t[0], lo + 1, lo + 100);
	set_entry(&t[1], lo + 2, lo + 101);
	set_entry(&t[2], lo + 3, lo + 102);
	assert_int_equal(ex_check(t, t + 3, lo, hi), -1);
	set_entry(&t[1], lo + 2, hi);	/* fixup one past the end */
	assert_int_equal(ex_check(t, t + 3, lo, hi), 1);
	set_entry(&t[1], lo + 2, lo + 101);
	set_entry(&t[2], lo + 1, lo + 102);	/* same instruction twice */
	assert_int_equal(ex_check(t, t + 3, lo, hi), 2);
	set_entry(&t[0], lo - 1, lo + 100);	/* instruction before the range */
	assert_int_equal(ex_check(t, t + 3, lo, hi), 0);
	assert_int_equal(ex_check(t, t, lo, hi), -1);	/* empty is sound */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(assembled_entries_decode),
		cmocka_unit_test(lookup_finds_exact_addresses_only),
		cmocka_unit_test(negative_and_positive_offsets),
		cmocka_unit_test(check_flags_outside_and_duplicates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
