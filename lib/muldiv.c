/* lib/muldiv.c - see muldiv.h. */
#include "lib/muldiv.h"

/* (a * b + add) / c, saturated; add < c. */
static uint64_t muldiv_add(uint64_t a, uint64_t b, uint64_t c, uint64_t add)
{
	if (!c)
		return 0;
	unsigned __int128 p = (unsigned __int128)a * b + add;
	uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
	if (hi >= c)
		return UINT64_MAX;	/* the quotient needs more than 64 bits (DIV would fault) */
	uint64_t q, r;
	__asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"(c));
	(void)r;
	return q;
}

uint64_t muldiv64(uint64_t a, uint64_t b, uint64_t c)
{
	return muldiv_add(a, b, c, 0);
}

uint64_t muldiv64_round(uint64_t a, uint64_t b, uint64_t c)
{
	return muldiv_add(a, b, c, c / 2);
}
