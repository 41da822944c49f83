/*
 * The top-down metrics' arithmetic (pmu/metrics/): the integer binary floating point of num.h against
 * exact values (rounding to nearest-even, exact cases, division by zero, range, decimal text), and the
 * evaluator over DAGs built here by hand (both operands of min/max and the comparisons evaluated, only the
 * taken branch of a conditional, the first null's reason kept), then over the generated tables (lookups,
 * inputs, a metric's value worked out by hand).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "pmu/metrics/metrics.h"
#include "pmu/metrics/metrics_table.h"
#include "pmu/metrics/num.h"

typedef unsigned __int128 u128;

static struct mnum U(uint64_t v) { return mnum_from_u64(v); }

/* m x 2^e exactly, as the test reads it: the number's own fields. */
static void assert_num(struct mnum v, uint64_t m, int32_t e, int neg)
{
	if (v.m != m || v.e != e || v.neg != neg)
		fail_msg("got %s0x%016llx x 2^%d, want %s0x%016llx x 2^%d", v.neg ? "-" : "", (unsigned long long)v.m,
			 v.e, neg ? "-" : "", (unsigned long long)m, e);
}

static int64_t milli_of(struct mnum v)
{
	int64_t m;
	assert_true(mnum_to_milli(v, &m));
	return m;
}

static void integers_are_exact(void **state)
{
	(void)state;
	assert_num(U(1), 1ull << 63, -63, 0);
	assert_num(U(3), 3ull << 62, -62, 0);
	assert_num(U(UINT64_MAX), UINT64_MAX, 0, 0);
	assert_num(mnum_from_i64(-6), 3ull << 62, -61, 1);
	assert_true(mnum_is_zero(U(0)) && U(0).neg == 0);
	assert_int_equal(milli_of(U(123456789)), 123456789000);
	assert_int_equal(milli_of(mnum_from_milli(-14023)), -14023);
}

static void sums_round_to_nearest_even(void **state)
{
	(void)state;
	struct mnum r;
	/* 2^64 - 1 + 1 = 2^64: a carry out of the mantissa. */
	assert_int_equal(mnum_add(U(UINT64_MAX), U(1), &r), MNUM_OK);
	assert_num(r, 1ull << 63, 1, 0);
	/* 2^64 + 1 needs 65 bits: exactly half an ulp (2) above 2^64, ties to even (down). */
	struct mnum two64 = r;
	assert_int_equal(mnum_add(two64, U(1), &r), MNUM_OK);
	assert_num(r, 1ull << 63, 1, 0);
	/* 2^64 + 3: half an ulp above 2^64 + 2, whose last mantissa bit is 1: up to 2^64 + 4. */
	assert_int_equal(mnum_add(two64, U(3), &r), MNUM_OK);
	assert_num(r, (1ull << 63) + 2, 1, 0);
	/* A tiny addend far below the last bit: no change, but the sticky bit keeps a difference exact. */
	struct mnum tiny;
	assert_int_equal(mnum_div(U(1), U(1ull << 40), &tiny), MNUM_OK);	/* 2^-40 */
	assert_int_equal(mnum_add(U(UINT64_MAX), tiny, &r), MNUM_OK);
	assert_num(r, UINT64_MAX, 0, 0);
	assert_int_equal(mnum_sub(U(1ull << 63), tiny, &r), MNUM_OK);	/* 2^63 - 2^-40: rounds back to 2^63 */
	assert_num(r, 1ull << 63, 0, 0);
	/* Exact cancellation gives zero, not a negative zero. */
	assert_int_equal(mnum_sub(U(12345), U(12345), &r), MNUM_OK);
	assert_true(mnum_is_zero(r) && !r.neg);
	/* Signs: 5 - 8 = -3, -3 + -4 = -7. */
	assert_int_equal(mnum_sub(U(5), U(8), &r), MNUM_OK);
	assert_num(r, 3ull << 62, -62, 1);
	assert_int_equal(mnum_add(r, mnum_from_i64(-4), &r), MNUM_OK);
	assert_num(r, 7ull << 61, -61, 1);
}

static void products_and_quotients(void **state)
{
	(void)state;
	struct mnum r, a = U((1ull << 63) + 1);
	/* (2^63 + 1)^2 = 2^126 + 2^64 + 1 = (2^63 + 2 + 2^-63) x 2^63: the last 1 is below half an ulp. */
	assert_int_equal(mnum_mul(a, a, &r), MNUM_OK);
	assert_num(r, (1ull << 63) + 2, 63, 0);
	assert_int_equal(mnum_mul(mnum_from_i64(-3), U(7), &r), MNUM_OK);
	assert_num(r, 21ull << 59, -59, 1);
	/* 10 / 4 = 2.5 exactly; 1 / 3 to the nearest 64-bit mantissa (0xAAAA...AB x 2^-65). */
	assert_int_equal(mnum_div(U(10), U(4), &r), MNUM_OK);
	assert_num(r, 5ull << 61, -62, 0);
	assert_int_equal(mnum_div(U(1), U(3), &r), MNUM_OK);
	assert_num(r, 0xAAAAAAAAAAAAAAABull, -65, 0);
	/* (1/3) x 3 is 1 within one ulp. */
	struct mnum back;
	assert_int_equal(mnum_mul(r, U(3), &back), MNUM_OK);
	assert_true(back.e == -63 && (back.m == 1ull << 63 || back.m == (1ull << 63) + 1));
	/* Against a 128-bit reference: (2^64 - 1) / 7 rounded. */
	assert_int_equal(mnum_div(U(UINT64_MAX), U(7), &r), MNUM_OK);
	u128 q = ((u128)UINT64_MAX << 64) / 7;	/* the quotient with 64 more bits */
	while (q >> 64)
		q >>= 1;
	assert_true(r.m == (uint64_t)q || r.m == (uint64_t)q + 1);
	/* Division by zero is a status, never a value. */
	assert_int_equal(mnum_div(U(1), U(0), &r), MNUM_DIV_ZERO);
	assert_true(mnum_is_zero(r));
	assert_int_equal(mnum_div(U(0), U(0), &r), MNUM_DIV_ZERO);
	/* Zero over anything else is zero. */
	assert_int_equal(mnum_div(U(0), U(9), &r), MNUM_OK);
	assert_true(mnum_is_zero(r));
}

static void range_is_reported(void **state)
{
	(void)state;
	struct mnum r = U(UINT64_MAX);
	enum mnum_status s = MNUM_OK;
	/* Squaring 2^64 again and again passes 2^MNUM_EXP_MAX within 16 steps. */
	for (int i = 0; i < 20 && s == MNUM_OK; i++)
		s = mnum_mul(r, r, &r);
	assert_int_equal(s, MNUM_RANGE);
	int64_t m;
	assert_false(mnum_to_milli(U(UINT64_MAX), &m));	/* 2^64 x 1000 is not an int64_t */
}

static void comparisons(void **state)
{
	(void)state;
	assert_int_equal(mnum_cmp(U(2), U(3)), -1);
	assert_int_equal(mnum_cmp(U(3), U(3)), 0);
	assert_int_equal(mnum_cmp(mnum_from_i64(-3), U(0)), -1);
	assert_int_equal(mnum_cmp(mnum_from_i64(-3), mnum_from_i64(-4)), 1);
	assert_int_equal(mnum_cmp(U(0), mnum_from_i64(-1)), 1);
	assert_int_equal(mnum_cmp(U(1ull << 40), U(1)), 1);
}

static void thousandths_round_half_away_from_zero(void **state)
{
	(void)state;
	struct mnum r;
	/* 1/16 = 0.0625: 62.5 thousandths, an exact half: away from zero. */
	mnum_div(U(1), U(16), &r);
	assert_int_equal(milli_of(r), 63);
	r.neg = 1;
	assert_int_equal(milli_of(r), -63);
	mnum_div(U(1), U(2048), &r);	/* 0.48828125 thousandths */
	assert_int_equal(milli_of(r), 0);
	mnum_div(U(3), U(2048), &r);	/* 1.46484375 */
	assert_int_equal(milli_of(r), 1);
	mnum_div(U(2), U(3), &r);	/* 666.67 */
	assert_int_equal(milli_of(r), 667);
}

static void decimal_text(void **state)
{
	(void)state;
	struct mnum r;
	int64_t mant;
	int32_t e10;
	assert_true(mnum_parse("1e9", 3, &r));
	assert_num(r, U(1000000000).m, U(1000000000).e, 0);
	assert_true(mnum_parse("-2.5", 4, &r));
	assert_num(r, 5ull << 61, -62, 1);
	assert_true(mnum_parse("0.0001", 6, &r));
	mnum_to_decimal(r, 17, &mant, &e10);
	assert_int_equal(mant, 10000000000000000);
	assert_int_equal(e10, -20);
	assert_true(mnum_parse("4.4", 3, &r));
	mnum_to_decimal(r, 17, &mant, &e10);
	assert_int_equal(mant, 44000000000000000);
	assert_int_equal(e10, -16);
	/* 20 digits: more than a mantissa holds, rounded. */
	assert_true(mnum_parse("12345678901234567890", 20, &r));
	mnum_to_decimal(r, 17, &mant, &e10);
	assert_int_equal(mant, 12345678901234568);
	assert_int_equal(e10, 3);
	mnum_div(U(1), U(3), &r);
	mnum_to_decimal(r, 17, &mant, &e10);
	assert_int_equal(mant, 33333333333333333);
	assert_int_equal(e10, -17);
	mnum_to_decimal(U(0), 17, &mant, &e10);
	assert_int_equal(mant, 0);
	static const char *const bad[] = { "", "-", "01", "1.", ".5", "+1", "1e", "1e+", "0x10", "1 ", "NaN", "1e999",
					   "1e801", "1e-801", "1e99999999999999999999999", "1e-99999999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (mnum_parse(bad[i], strlen(bad[i]), &r))
			fail_msg("'%s' was read as a number", bad[i]);
	/* An exponent's leading zeros do not count against its limit. */
	assert_true(mnum_parse("25e-000000000000000000000001", 28, &r));
	mnum_to_decimal(r, 17, &mant, &e10);
	assert_int_equal(mant, 25000000000000000);
	assert_int_equal(e10, -16);
}

/* ---- the evaluator, over hand-built DAGs ---- */

#define NODE(i) ((uint16_t)(MT_REF_NODE << MT_REF_INDEX_BITS | (i)))
#define INPUT(i) ((uint16_t)(MT_REF_INPUT << MT_REF_INDEX_BITS | (i)))
#define NUMBER(i) ((uint16_t)(MT_REF_NUMBER << MT_REF_INDEX_BITS | (i)))

/* Inputs 0..3 with these values; those not given are missing.  Counts the reads. */
static struct {
	bool have[4];
	int64_t v[4];
	unsigned reads[4];
} in;

static bool get(void *ctx, unsigned input, struct mnum *value)
{
	(void)ctx;
	if (input >= 4)
		return false;
	in.reads[input]++;
	if (!in.have[input])
		return false;
	*value = mnum_from_i64(in.v[input]);
	return true;
}

static void inputs(int64_t a, int64_t b, int64_t c, int64_t d)
{
	memset(&in, 0, sizeof(in));
	int64_t v[4] = { a, b, c, d };
	for (int i = 0; i < 4; i++) {
		in.have[i] = true;
		in.v[i] = v[i];
	}
}

static const struct mnum numbers[] = { { 0, 0, 0 }, { 1ull << 63, -63, 0 } };	/* 0, 1 */
static const uint16_t number_count = 2, input_count = 4;

static struct metric_result eval_nodes(const struct mt_node *nodes, uint16_t n, uint16_t root)
{
	struct mt_data d = { nodes, &n, numbers, &number_count, &input_count };
	struct metric_result r;
	mt_eval(&d, root, get, NULL, &r);
	return r;
}

static int64_t value_milli(struct metric_result r)
{
	if (r.why != METRIC_OK)
		fail_msg("null: %s", metrics_null_text(r.why));
	return milli_of(r.value);
}

static void arithmetic_and_python_min_max(void **state)
{
	(void)state;
	/* (in0 - in1) / in2, max(in0, in1), min(in0, in1), in3 * 1 + in0 */
	static const struct mt_node nodes[] = {
		{ MT_SUB, INPUT(0), INPUT(1) }, { MT_DIV, NODE(0), INPUT(2) },
		{ MT_MAX, INPUT(0), INPUT(1) }, { MT_MIN, INPUT(0), INPUT(1) },
		{ MT_MUL, INPUT(3), NUMBER(1) }, { MT_ADD, NODE(4), INPUT(0) },
	};
	inputs(7, 10, 4, 5);
	assert_int_equal(value_milli(eval_nodes(nodes, 6, NODE(1))), -750);	/* (7 - 10) / 4 */
	assert_int_equal(value_milli(eval_nodes(nodes, 6, NODE(2))), 10000);
	assert_int_equal(value_milli(eval_nodes(nodes, 6, NODE(3))), 7000);
	assert_int_equal(value_milli(eval_nodes(nodes, 6, NODE(5))), 12000);
	/* Python evaluates both of min's operands: a missing second one is missing even though 7 < anything. */
	inputs(7, 10, 4, 5);
	in.have[1] = false;
	struct metric_result r = eval_nodes(nodes, 6, NODE(3));
	assert_int_equal(r.why, METRIC_MISSING);
	assert_int_equal(r.input, 1);
	/* Division by zero: null with its reason. */
	inputs(7, 10, 0, 5);
	assert_int_equal(eval_nodes(nodes, 6, NODE(1)).why, METRIC_DIV_ZERO);
}

static void comparisons_give_one_or_zero(void **state)
{
	(void)state;
	static const struct mt_node nodes[] = {
		{ MT_GT, INPUT(0), INPUT(1) }, { MT_LT, INPUT(0), INPUT(1) },
		{ MT_GE, INPUT(0), INPUT(1) }, { MT_LE, INPUT(0), INPUT(1) },
	};
	static const struct { int64_t a, b; int gt, lt, ge, le; } cases[] = {
		{ 3, 2, 1, 0, 1, 0 }, { 2, 3, 0, 1, 0, 1 }, { 3, 3, 0, 0, 1, 1 }, { -1, 0, 0, 1, 0, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		inputs(cases[i].a, cases[i].b, 0, 0);
		assert_int_equal(value_milli(eval_nodes(nodes, 4, NODE(0))), cases[i].gt * 1000);
		assert_int_equal(value_milli(eval_nodes(nodes, 4, NODE(1))), cases[i].lt * 1000);
		assert_int_equal(value_milli(eval_nodes(nodes, 4, NODE(2))), cases[i].ge * 1000);
		assert_int_equal(value_milli(eval_nodes(nodes, 4, NODE(3))), cases[i].le * 1000);
	}
}

static void a_conditional_evaluates_only_its_branch(void **state)
{
	(void)state;
	/* (in1 / in2) if in0 else (in3 / 0): the untaken branch's division by zero and missing input do not count. */
	static const struct mt_node nodes[] = {
		{ MT_DIV, INPUT(1), INPUT(2) }, { MT_DIV, INPUT(3), NUMBER(0) },
		{ MT_ELSE, NODE(0), NODE(1) }, { MT_IF, INPUT(0), NODE(2) },
		/* (in0 > in1) as the condition: 1 if in3 < in2 ... */
		{ MT_GT, INPUT(0), INPUT(1) }, { MT_ELSE, NUMBER(1), NUMBER(0) }, { MT_IF, NODE(4), NODE(5) },
	};
	inputs(1, 9, 3, 5);
	assert_int_equal(value_milli(eval_nodes(nodes, 7, NODE(3))), 3000);
	assert_int_equal(in.reads[3], 0);	/* the other branch was not evaluated */
	inputs(0, 9, 3, 5);
	assert_int_equal(eval_nodes(nodes, 7, NODE(3)).why, METRIC_DIV_ZERO);
	inputs(0, 9, 0, 5);
	in.have[1] = in.have[2] = false;	/* the taken branch is the other one: these are not needed */
	assert_int_equal(eval_nodes(nodes, 7, NODE(3)).why, METRIC_DIV_ZERO);
	inputs(2, 1, 0, 0);
	assert_int_equal(value_milli(eval_nodes(nodes, 7, NODE(6))), 1000);
	inputs(1, 2, 0, 0);
	assert_int_equal(value_milli(eval_nodes(nodes, 7, NODE(6))), 0);
	/* A missing condition is the result's reason. */
	inputs(1, 9, 3, 5);
	in.have[0] = false;
	struct metric_result r = eval_nodes(nodes, 7, NODE(3));
	assert_int_equal(r.why, METRIC_MISSING);
	assert_int_equal(r.input, 0);
}

static void a_broken_table_is_a_null_not_a_crash(void **state)
{
	(void)state;
	/* A reference past the table, and an ELSE reached without its IF. */
	static const struct mt_node nodes[] = { { MT_ADD, NODE(7), INPUT(0) }, { MT_ELSE, INPUT(0), INPUT(1) } };
	inputs(1, 1, 1, 1);
	assert_int_equal(eval_nodes(nodes, 2, NODE(0)).why, METRIC_RANGE);
	assert_int_equal(eval_nodes(nodes, 2, NODE(1)).why, METRIC_RANGE);
	assert_int_equal(eval_nodes(nodes, 2, INPUT(9)).why, METRIC_RANGE);
}

/* ---- the generated tables ---- */

struct named {
	const char *name;
	int64_t v;
};
static const struct named *named_values;

static bool get_named(void *ctx, unsigned input, struct mnum *value)
{
	struct metric_input mi;
	(void)ctx;
	metrics_input_at(input, &mi);
	for (const struct named *n = named_values; n->name; n++)
		if (!strcmp(n->name, mi.name)) {
			*value = mnum_from_i64(n->v);
			return true;
		}
	return false;
}

static void generated_tables(void **state)
{
	(void)state;
	char key[METRIC_NAME_MAX];
	static struct metric_info mi;
	const struct metrics_table *t = metrics_table_find("zen4");
	assert_non_null(t);
	assert_string_equal(metrics_table_key(t, key), "zen4");
	assert_null(metrics_table_find("sandybridge"));
	assert_int_equal(metrics_count(t), 13);
	long i = metrics_index(t, "backend_bound_memory");
	assert_true(i >= 0);
	metrics_at(t, (size_t)i, &mi);
	assert_string_equal(mi.parent, "backend_bound");
	assert_int_equal(mi.level, 2);
	assert_string_equal(mi.unit, "percent");
	assert_true(mi.tree);
	/* Its inputs: cycles, backend stalls, the two no-retire counts (by perf's names), counted as the catalogue's. */
	uint16_t ins[16];
	size_t n = metrics_inputs(t, (size_t)i, ins, 16);
	assert_int_equal(n, 4);
	bool seen_lnc = false;
	for (size_t k = 0; k < n; k++) {
		struct metric_input x;
		metrics_input_at(ins[k], &x);
		assert_int_equal(x.kind, METRIC_IN_EVENT);
		if (!strcmp(x.name, "ex_no_retire.load_not_complete")) {
			seen_lnc = true;
			assert_string_equal(x.spec, "CYCLES_NO_RETIRE.NOT_COMPLETE_MISSING_LOAD");
		}
	}
	assert_true(seen_lnc);
	/* 100 x 300 / (6 x 100) = 50 percent backend bound, of which 25 / 100 waits on loads: 12.5. */
	static const struct named v[] = { { "ls_not_halted_cyc", 100 }, { "de_no_dispatch_per_slot.backend_stalls", 300 },
					  { "ex_no_retire.load_not_complete", 25 }, { "ex_no_retire.not_complete", 100 },
					  { NULL, 0 } };
	named_values = v;
	struct metric_result r;
	metrics_eval(t, (size_t)i, get_named, NULL, &r);
	assert_int_equal(value_milli(r), 12500);
	/* Every name of every table decodes to something printable and unique within its table. */
	for (size_t k = 0; k < metrics_table_count(); k++) {
		const struct metrics_table *tk = metrics_table_at(k);
		for (size_t j = 0; j < metrics_count(tk); j++) {
			metrics_at(tk, j, &mi);
			assert_true(mi.name[0] != 0);
			assert_int_equal(metrics_index(tk, mi.name), (long)j);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers_are_exact),
		cmocka_unit_test(sums_round_to_nearest_even),
		cmocka_unit_test(products_and_quotients),
		cmocka_unit_test(range_is_reported),
		cmocka_unit_test(comparisons),
		cmocka_unit_test(thousandths_round_half_away_from_zero),
		cmocka_unit_test(decimal_text),
		cmocka_unit_test(arithmetic_and_python_min_max),
		cmocka_unit_test(comparisons_give_one_or_zero),
		cmocka_unit_test(a_conditional_evaluates_only_its_branch),
		cmocka_unit_test(a_broken_table_is_a_null_not_a_crash),
		cmocka_unit_test(generated_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
