/*
 * The benchmark stage's plan (bench/plan.c): `bench=` read once, every word sorted to the source that
 * knows it, the table's rows chosen with their controls and the reference kernels, `none` undoing what
 * came before, and a word no source knows an error that names it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "bench/kernels.h"
#include "bench/plan.h"

static struct bench_plan pl;
static char why[200];

static size_t row(const char *kernel, const char *variant)
{
	const struct bench_def *d = bench_def_find(kernel, variant);
	assert_non_null(d);
	return (size_t)(d - bench_def_at(0));
}

static bool parse(const char *spec)
{
	return bench_plan_parse(&pl, spec, why, sizeof(why));
}

static void all_none_and_empty(void **state)
{
	(void)state;
	assert_true(bench_def_count() <= BENCH_PLAN_TABLE);
	assert_true(parse("all"));
	assert_true(pl.all);
	assert_int_equal(pl.table_chosen, bench_def_count());
	assert_true(parse("none"));
	assert_false(pl.all);
	assert_int_equal(pl.table_chosen, 0);
	assert_true(parse(""));
	assert_int_equal(pl.table_chosen, 0);
	assert_int_equal(pl.nwords, 0);
	assert_false(pl.list);
	assert_true(parse("list"));
	assert_true(pl.list);
}

static void variant_brings_control_and_references(void **state)
{
	(void)state;
	assert_true(parse(" split.load_page "));
	assert_int_equal(pl.table_chosen, 4);
	assert_true(pl.table[row("split", "load_page")]);
	assert_true(pl.table[row("split", "load_aligned")]);
	assert_true(pl.table[row("ref", "add_chain")]);
	assert_true(pl.table[row("ref", "load_chain")]);
	assert_false(pl.table[row("split", "load_line")]);
	assert_int_equal(pl.nwords, 1);
	assert_int_equal(pl.word[0].source, BENCH_SRC_VARIANTS);
	assert_int_equal(pl.word[0].klen, 5);
	/* A whole kernel. */
	size_t k = 0;
	for (size_t i = 0; i < bench_def_count(); i++)
		k += !strcmp(bench_def_at(i)->kernel, "alias_4k");
	assert_true(parse("alias_4k"));
	assert_int_equal(pl.table_chosen, k + 2);
}

/* Each word goes to the source that knows it; ladder and user words keep their variant for the source. */
static void words_sorted_to_sources(void **state)
{
	(void)state;
	size_t len;
	assert_true(parse("latency.16k,user.fma,tlb,user,bandwidth.copy_l1"));
	assert_int_equal(pl.nwords, 5);
	assert_true(bench_plan_word_is(&pl.word[0], BENCH_SRC_LADDER, "latency"));
	assert_false(bench_plan_word_is(&pl.word[0], BENCH_SRC_LADDER, "tlb"));
	assert_memory_equal(bench_plan_variant(&pl.word[0], &len), "16k", 3);
	assert_int_equal(len, 3);
	assert_true(bench_plan_word_is(&pl.word[1], BENCH_SRC_USER, NULL));
	assert_memory_equal(bench_plan_variant(&pl.word[1], &len), "fma", 3);
	assert_true(bench_plan_word_is(&pl.word[2], BENCH_SRC_LADDER, "tlb"));
	bench_plan_variant(&pl.word[2], &len);
	assert_int_equal(len, 0);
	assert_true(bench_plan_word_is(&pl.word[3], BENCH_SRC_USER, NULL));
	assert_true(bench_plan_word_is(&pl.word[4], BENCH_SRC_LADDER, "bandwidth"));
	/* The ladder's rows are chosen (and with them the reference kernels); user kernels are not the table's. */
	assert_true(pl.table[row("latency", "<size>")]);
	assert_true(pl.table[row("tlb", "<size>")]);
	assert_true(pl.table[row("ref", "add_chain")]);
	assert_int_equal(pl.table_chosen, 5);
	/* User words alone choose nothing of the table: the user kernels' source decides. */
	assert_true(parse("user.a,user"));
	assert_int_equal(pl.table_chosen, 0);
	assert_int_equal(pl.nwords, 2);
}

static void none_undoes_what_came_before(void **state)
{
	(void)state;
	assert_true(parse("all,none,ref.add_chain"));
	assert_false(pl.all);
	assert_int_equal(pl.table_chosen, 2);
	assert_true(parse("latency,user.x,none,split"));
	assert_false(pl.table[row("latency", "<size>")]);
	assert_int_equal(pl.nwords, 3);
	assert_true(pl.word[0].undone && pl.word[1].undone);
	assert_false(pl.word[2].undone);
	assert_true(parse("store_forward,none"));
	assert_int_equal(pl.table_chosen, 0);
}

/* A bad value: false, the error names the first unknown word, every unknown word is kept, the rest stands. */
static void unknown_words_named(void **state)
{
	(void)state;
	assert_false(parse("store_forward.size_mismatch,warp,split.nope"));
	assert_string_equal(why, "unknown benchmark 'warp' (a kernel, kernel.variant, all, none or list)");
	assert_int_equal(pl.nbad, 2);
	assert_memory_equal(pl.bad[1].text, "split.nope", pl.bad[1].len);
	assert_int_equal(pl.table_chosen, 4);	/* size_mismatch, forward and the two references */
	/* A kernel's prefix is not the kernel; `list` inside a list is not a request; nor is `user` a prefix. */
	assert_false(parse("latencyx"));
	assert_string_equal(why, "unknown benchmark 'latencyx' (a kernel, kernel.variant, all, none or list)");
	assert_false(parse("ref,list"));
	assert_string_equal(why, "unknown benchmark 'list' (a kernel, kernel.variant, all, none or list)");
	assert_false(parse("users"));
	assert_int_equal(pl.nbad, 1);
	/* A variant the kernel does not have; a long word is cut in the message. */
	assert_false(parse("ref.nope"));
	assert_string_equal(why, "unknown benchmark 'ref.nope' (a kernel, kernel.variant, all, none or list)");
	char longw[100];
	memset(longw, 'x', sizeof(longw) - 1);
	longw[sizeof(longw) - 1] = 0;
	assert_false(parse(longw));
	assert_int_equal(strlen(why), strlen("unknown benchmark '' (a kernel, kernel.variant, all, none or list)") + 60);
	/* Unknown words past the kept ones are counted. */
	assert_false(parse("a,b,c,d,e,f,g,h,i,j"));
	assert_int_equal(pl.nbad, 10);
	assert_memory_equal(pl.bad[BENCH_PLAN_BAD - 1].text, "h", 1);
}

/* An option of one source's own (instr=, later) adds its words after bench='s, each that source's to check. */
static void words_of_a_source_option(void **state)
{
	(void)state;
	size_t len;
	assert_true(parse("ref"));
	assert_true(bench_plan_add_words(&pl, BENCH_SRC_USER, "add.r64,nope", why, sizeof(why)));
	assert_int_equal(pl.nwords, 3);
	assert_true(bench_plan_word_is(&pl.word[1], BENCH_SRC_USER, "add"));
	assert_memory_equal(bench_plan_variant(&pl.word[1], &len), "r64", 3);
	assert_true(bench_plan_word_is(&pl.word[2], BENCH_SRC_USER, "nope"));
	assert_int_equal(pl.nbad, 0);
	/* The table's choice is bench='s alone. */
	assert_int_equal(pl.table_chosen, 2);
	/* More words than the plan holds: the error says how many were left out. */
	char many[4 * BENCH_PLAN_WORDS + 8];
	size_t k = 0;
	for (size_t i = 0; i < BENCH_PLAN_WORDS + 2; i++)
		k += (size_t)snprintf(many + k, sizeof(many) - k, "%sx", i ? "," : "");
	assert_false(bench_plan_add_words(&pl, BENCH_SRC_USER, many, why, sizeof(why)));
	assert_int_equal(pl.nwords, BENCH_PLAN_WORDS);
	assert_string_equal(why, "more than 128 words in all: 5 left out");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_none_and_empty),
		cmocka_unit_test(variant_brings_control_and_references),
		cmocka_unit_test(words_sorted_to_sources),
		cmocka_unit_test(none_undoes_what_came_before),
		cmocka_unit_test(unknown_words_named),
		cmocka_unit_test(words_of_a_source_option),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
