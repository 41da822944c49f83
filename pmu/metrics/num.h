/*
 * pmu/metrics/num.h - the number the top-down formulas are evaluated in.
 *
 * The image has no floating point (-mgeneral-regs-only), and the vendors' formulas are real-valued
 * (ratios of counts, costs like 4.4, 1e9), so they are evaluated in a binary floating point made of
 * integers: a 64-bit mantissa, a 32-bit exponent and a sign, value = (-1)^neg x m x 2^e, with m's bit 63
 * set (or m = 0 for zero).  Every operation rounds to nearest, ties to even, so each one is exact to
 * 2^-64 relative (about 5e-20): a formula of a few hundred operations stays far below the 1e-6 the
 * issue asks for.  Division by zero and an exponent outside MNUM_EXP_MAX are reported, never produced
 * as NaN or infinity.  docs/topdown.md "The number type".
 */
#ifndef PMUBOOT_PMU_METRICS_NUM_H
#define PMUBOOT_PMU_METRICS_NUM_H

#include "lib/libc.h"

struct mnum {
	uint64_t m;	/* mantissa: bit 63 set, or 0 (the number is zero) */
	int32_t e;	/* value = m x 2^e */
	uint8_t neg;	/* 1: negative (never for zero) */
};

/* Results beyond 2^+-MNUM_EXP_MAX are out of range: no count or formula comes near (2^64 is e = 0). */
#define MNUM_EXP_MAX (1 << 20)

enum mnum_status {
	MNUM_OK,
	MNUM_DIV_ZERO,		/* a division by zero */
	MNUM_RANGE,		/* the result's exponent left +-MNUM_EXP_MAX */
};

struct mnum mnum_zero(void);
struct mnum mnum_from_u64(uint64_t v);
struct mnum mnum_from_i64(int64_t v);
/* milli / 1000, rounded: a figure in thousandths (the bench figures' unit). */
struct mnum mnum_from_milli(int64_t milli);
bool mnum_is_zero(struct mnum a);

/* *out = a op b; the status says why there is no result (out is then zero). */
enum mnum_status mnum_add(struct mnum a, struct mnum b, struct mnum *out);
enum mnum_status mnum_sub(struct mnum a, struct mnum b, struct mnum *out);
enum mnum_status mnum_mul(struct mnum a, struct mnum b, struct mnum *out);
enum mnum_status mnum_div(struct mnum a, struct mnum b, struct mnum *out);
/* -1, 0 or 1 as a < b, a == b, a > b. */
int mnum_cmp(struct mnum a, struct mnum b);

/*
 * A decimal number in JSON's grammar (-?int(.frac)?([eE][+-]?exp)?) into *out, rounded; false when text[0..len)
 * is not one or is beyond the range.
 */
bool mnum_parse(const char *text, size_t len, struct mnum *out);

/* a x 1000 rounded half away from zero into *milli; false when it does not fit an int64_t. */
bool mnum_to_milli(struct mnum a, int64_t *milli);
/*
 * a rounded to `digits` significant decimal digits (1..19): *mant x 10^*exp10, |*mant| < 10^digits;
 * for printing at full precision without floating point.  Zero gives 0 x 10^0.
 */
void mnum_to_decimal(struct mnum a, unsigned digits, int64_t *mant, int32_t *exp10);

#endif
