/* pmu/metrics/num.c - see num.h.  Integer only: the image has no floating point. */
#include "pmu/metrics/num.h"
#include "lib/decimal.h"

typedef unsigned __int128 u128;

#define MANT_BITS 64
#define TOP_BIT (1ull << 63)
#define MILLI 1000u

struct mnum mnum_zero(void)
{
	return (struct mnum){ 0, 0, 0 };
}

bool mnum_is_zero(struct mnum a)
{
	return a.m == 0;
}

/* Highest set bit of a non-zero 128-bit value, 0..127. */
static unsigned top_bit128(u128 v)
{
	uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;
	unsigned base = hi ? 64 : 0;
	uint64_t w = hi ? hi : lo;
	unsigned n = 0;
	while (w >>= 1)
		n++;
	return base + n;
}

/*
 * The 128-bit magnitude s x 2^e (plus a fraction below its last bit when sticky) rounded to a
 * 64-bit mantissa, nearest, ties to even.
 */
static enum mnum_status pack(u128 s, int64_t e, bool sticky, uint8_t neg, struct mnum *out)
{
	*out = mnum_zero();
	if (!s)
		return MNUM_OK;
	int shift = (int)top_bit128(s) - (MANT_BITS - 1);
	uint64_t m;
	if (shift > 0) {
		u128 rem = s & (((u128)1 << shift) - 1), half = (u128)1 << (shift - 1);
		m = (uint64_t)(s >> shift);
		if (rem > half || (rem == half && (sticky || (m & 1)))) {
			m++;
			if (!m) {	/* carried out of 64 bits: 2^64 = 2^63 x 2 */
				m = TOP_BIT;
				shift++;
			}
		}
	} else {
		/* Exact: a left shift loses nothing (a sticky fraction only arises with room to spare). */
		m = (uint64_t)(s << -shift);
	}
	e += shift;
	if (e > MNUM_EXP_MAX || e < -MNUM_EXP_MAX)
		return MNUM_RANGE;
	*out = (struct mnum){ m, (int32_t)e, neg };
	return MNUM_OK;
}

struct mnum mnum_from_u64(uint64_t v)
{
	struct mnum r;
	pack(v, 0, false, 0, &r);
	return r;
}

struct mnum mnum_from_i64(int64_t v)
{
	struct mnum r;
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	pack(mag, 0, false, v < 0, &r);
	return r;
}

struct mnum mnum_from_milli(int64_t milli)
{
	struct mnum r;
	if (mnum_div(mnum_from_i64(milli), mnum_from_u64(MILLI), &r) != MNUM_OK)
		return mnum_zero();
	return r;
}

/* |a| against |b|. */
static int cmp_mag(struct mnum a, struct mnum b)
{
	if (!a.m || !b.m)
		return (a.m != 0) - (b.m != 0);
	if (a.e != b.e)
		return a.e > b.e ? 1 : -1;
	return a.m > b.m ? 1 : a.m < b.m ? -1 : 0;
}

int mnum_cmp(struct mnum a, struct mnum b)
{
	int sa = !a.m ? 0 : a.neg ? -1 : 1, sb = !b.m ? 0 : b.neg ? -1 : 1;
	if (sa != sb)
		return sa > sb ? 1 : -1;
	int c = cmp_mag(a, b);
	return sa < 0 ? -c : c;
}

enum mnum_status mnum_add(struct mnum a, struct mnum b, struct mnum *out)
{
	if (!b.m) {
		*out = a;
		return MNUM_OK;
	}
	if (!a.m) {
		*out = b;
		return MNUM_OK;
	}
	if (cmp_mag(a, b) < 0) {
		struct mnum t = a;
		a = b;
		b = t;
	}
	/* |a| >= |b|: both mantissas placed 63 bits up, room for a carry into bit 127. */
	const unsigned room = MANT_BITS - 1;
	u128 A = (u128)a.m << room, B = (u128)b.m << room;
	int64_t d = (int64_t)a.e - b.e;
	bool sticky = false;
	if (d >= 2 * MANT_BITS - 1) {
		sticky = true;
		B = 0;
	} else if (d > 0) {
		sticky = (B & (((u128)1 << d) - 1)) != 0;
		B >>= d;
	}
	u128 s;
	if (a.neg == b.neg) {
		s = A + B;
	} else {
		/* A - (B + f) with 0 < f < 1 when sticky: one less, and a fraction still below it. */
		s = A - B - (sticky ? 1 : 0);
	}
	return pack(s, (int64_t)a.e - room, sticky, a.neg, out);
}

enum mnum_status mnum_sub(struct mnum a, struct mnum b, struct mnum *out)
{
	if (b.m)
		b.neg ^= 1;
	return mnum_add(a, b, out);
}

enum mnum_status mnum_mul(struct mnum a, struct mnum b, struct mnum *out)
{
	if (!a.m || !b.m) {
		*out = mnum_zero();
		return MNUM_OK;
	}
	return pack((u128)a.m * b.m, (int64_t)a.e + b.e, false, a.neg ^ b.neg, out);
}

/* (hi:lo) / d with hi < d: the 64-bit quotient and the remainder, one bit at a time (no __udivti3 in
 * the freestanding image). */
static uint64_t div128(uint64_t hi, uint64_t lo, uint64_t d, uint64_t *rem)
{
	uint64_t q = 0, r = hi;
	for (int i = 63; i >= 0; i--) {
		bool carry = r >> 63;
		r = (r << 1) | ((lo >> i) & 1);
		if (carry || r >= d) {
			r -= d;
			q |= 1ull << i;
		}
	}
	*rem = r;
	return q;
}

enum mnum_status mnum_div(struct mnum a, struct mnum b, struct mnum *out)
{
	*out = mnum_zero();
	if (!b.m)
		return MNUM_DIV_ZERO;
	if (!a.m)
		return MNUM_OK;
	/* a.m x 2^64 / b.m: a.m / b.m is in (1/2, 2), so the quotient has 64 or 65 bits. */
	uint64_t q1 = a.m >= b.m, r1 = a.m - (q1 ? b.m : 0), r;
	uint64_t q0 = div128(r1, 0, b.m, &r);
	u128 q = ((u128)q1 << 64) | q0;
	/* Two more quotient bits, and whether anything is left below them: enough to round exactly. */
	for (int i = 0; i < 2; i++) {
		bool carry = r >> 63;
		r <<= 1;
		bool bit = carry || r >= b.m;
		if (bit)
			r -= b.m;
		q = (q << 1) | bit;
	}
	return pack(q, (int64_t)a.e - b.e - MANT_BITS - 2, r != 0, a.neg ^ b.neg, out);
}

bool mnum_to_milli(struct mnum a, int64_t *milli)
{
	struct mnum x;
	*milli = 0;
	if (mnum_mul(a, mnum_from_u64(MILLI), &x) != MNUM_OK)
		return false;
	if (!x.m)
		return true;
	if (x.e >= 0)
		return false;	/* at least 2^63 */
	uint64_t v;
	if (x.e <= -MANT_BITS - 1) {
		v = 0;	/* below a half */
	} else if (x.e == -MANT_BITS) {
		v = 1;	/* m / 2^64 is in [1/2, 1): half away from zero rounds it up */
	} else {
		unsigned sh = (unsigned)-x.e;
		v = x.m >> sh;
		if ((x.m >> (sh - 1)) & 1)
			v++;
	}
	if (v > (uint64_t)INT64_MAX)
		return false;
	*milli = x.neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* 10^k as a number (k >= 0), by squaring: a handful of roundings. */
static struct mnum pow10_num(unsigned k)
{
	struct mnum r = mnum_from_u64(1), b = mnum_from_u64(10);
	while (k) {
		if (k & 1)
			mnum_mul(r, b, &r);
		mnum_mul(b, b, &b);
		k >>= 1;
	}
	return r;
}

/* |a| x 10^-p rounded half up to an integer, or UINT64_MAX when it does not fit. */
static uint64_t scaled_int(struct mnum a, int32_t p)
{
	struct mnum x;
	a.neg = 0;
	if (p >= 0)
		mnum_div(a, pow10_num((unsigned)p), &x);
	else
		mnum_mul(a, pow10_num((unsigned)-p), &x);
	if (!x.m || x.e <= -MANT_BITS - 1)
		return 0;
	if (x.e >= 0)
		return UINT64_MAX;
	if (x.e == -MANT_BITS)
		return 1;
	unsigned sh = (unsigned)-x.e;
	return (x.m >> sh) + ((x.m >> (sh - 1)) & 1);
}

void mnum_to_decimal(struct mnum a, unsigned digits, int64_t *mant, int32_t *exp10)
{
	*mant = 0;
	*exp10 = 0;
	if (!a.m)
		return;
	if (digits < 1)
		digits = 1;
	if (digits > 18)
		digits = 18;
	uint64_t lo = 1;
	for (unsigned i = 1; i < digits; i++)
		lo *= 10;
	uint64_t hi = lo * 10;
	/* log10(2) ~ 78913 / 2^18: the decimal exponent of the leading digit, give or take one. */
	int64_t bits = (int64_t)a.e + MANT_BITS - 1;
	int32_t p = (int32_t)((bits * 78913) >> 18) - (int32_t)(digits - 1);
	uint64_t v = scaled_int(a, p);
	for (int tries = 0; tries < 4 && (v < lo || v >= hi); tries++) {
		p += v >= hi ? 1 : -1;
		v = scaled_int(a, p);
	}
	*mant = a.neg ? -(int64_t)v : (int64_t)v;
	*exp10 = p;
}

/* Decimal exponents beyond these are out of any count's or formula's range (10^400 > 2^1300). */
#define PARSE_EXP10_MAX 400
#define PARSE_EXP10_EXP_MAX (PARSE_EXP10_MAX * 2)	/* an exponent's digits are read up to this */

bool mnum_parse(const char *text, size_t len, struct mnum *out)
{
	size_t i = 0;
	bool neg = false, digits = false;
	struct mnum v = mnum_zero(), ten = mnum_from_u64(10);
	int64_t exp10 = 0;

	*out = mnum_zero();
	if (i < len && text[i] == '-') {
		neg = true;
		i++;
	}
	/* JSON: no leading zeros before other digits, at least one digit. */
	if (i < len && text[i] == '0' && i + 1 < len && lc_isdigit((unsigned char)text[i + 1]))
		return false;
	for (; i < len && lc_isdigit((unsigned char)text[i]); i++) {
		digits = true;
		if (mnum_mul(v, ten, &v) != MNUM_OK || mnum_add(v, mnum_from_u64((uint64_t)(text[i] - '0')), &v) != MNUM_OK)
			return false;
	}
	if (!digits)
		return false;
	if (i < len && text[i] == '.') {
		bool frac = false;
		for (i++; i < len && lc_isdigit((unsigned char)text[i]); i++) {
			frac = true;
			if (mnum_mul(v, ten, &v) != MNUM_OK ||
			    mnum_add(v, mnum_from_u64((uint64_t)(text[i] - '0')), &v) != MNUM_OK)
				return false;
			if (--exp10 < -PARSE_EXP10_MAX)
				return false;
		}
		if (!frac)
			return false;
	}
	if (i < len && (text[i] == 'e' || text[i] == 'E')) {
		bool eneg = false;
		uint64_t e = 0;
		size_t n;
		i++;
		if (i < len && (text[i] == '+' || text[i] == '-'))
			eneg = text[i++] == '-';
		/* An exponent past PARSE_EXP10_EXP_MAX is past every limit below, whatever the mantissa. */
		enum dec_result r = dec_parse(text + i, len - i, PARSE_EXP10_EXP_MAX, &e, &n);
		if (r == DEC_NO_DIGIT)
			return false;
		if (r == DEC_TOO_BIG)
			e = PARSE_EXP10_EXP_MAX + 1;
		for (i += n; i < len && lc_isdigit((unsigned char)text[i]); i++)
			;	/* the rest of an exponent too big */
		exp10 += eneg ? -(int64_t)e : (int64_t)e;
	}
	if (i != len || exp10 > PARSE_EXP10_MAX || exp10 < -PARSE_EXP10_MAX * 2)
		return false;
	enum mnum_status s = exp10 >= 0 ? mnum_mul(v, pow10_num((unsigned)exp10), &v)
					: mnum_div(v, pow10_num((unsigned)-exp10), &v);
	if (s != MNUM_OK)
		return false;
	if (v.m)
		v.neg = neg;
	*out = v;
	return true;
}
