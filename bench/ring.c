/* bench/ring.c - see ring.h. */
#include "bench/ring.h"

#define MIX_ROUNDS 4

/* splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014). */
static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void ring_plan_init(struct ring_plan *p, uint64_t bytes, uint64_t seed)
{
	uint64_t s = seed;
	memset(p, 0, sizeof(*p));
	p->lines = bytes / RING_LINE;
	while (p->bits < 63 && (1ull << p->bits) < p->lines)
		p->bits++;
	p->mask = (1ull << p->bits) - 1;
	for (unsigned i = 0; i < MIX_ROUNDS; i++) {
		p->key[i] = next_random(&s);
		/* The inverse of an odd a modulo 2^64 by Newton's iteration (each step doubles the correct bits). */
		uint64_t a = p->key[i] | 1, inv = a;
		for (unsigned k = 0; k < 6; k++)
			inv *= 2 - a * inv;
		p->inv[i] = inv;
	}
}

/*
 * A bijection of [0, 2^bits): rounds of multiplying by an odd number, xor
 * with a right shift and adding a constant, each a bijection modulo 2^bits.
 */
static uint64_t mix(const struct ring_plan *p, uint64_t x)
{
	unsigned shift = (p->bits + 1) / 2;
	for (unsigned i = 0; i < MIX_ROUNDS; i++) {
		x = (x * (p->key[i] | 1)) & p->mask;
		x ^= x >> shift;
		x = (x + (p->key[i] >> 32)) & p->mask;
	}
	return x;
}

/* The inverse of mix: each step undone in reverse order. */
static uint64_t unmix(const struct ring_plan *p, uint64_t x)
{
	unsigned shift = (p->bits + 1) / 2;
	for (unsigned i = MIX_ROUNDS; i-- > 0;) {
		x = (x - (p->key[i] >> 32)) & p->mask;
		/* y = x ^ (x >> s) is undone by x = y ^ (y >> s) ^ (y >> 2s) ^ ...: shift >= 1 whenever bits >= 1. */
		uint64_t y = x;
		for (unsigned sh = shift; sh && sh < p->bits; sh += shift)
			x ^= y >> sh;
		x = (x * p->inv[i]) & p->mask;
	}
	return x;
}

/* The line at ring position i: mix applied until the value falls inside [0, lines) (cycle walking keeps it a bijection). */
static uint64_t perm(const struct ring_plan *p, uint64_t i)
{
	uint64_t x = i;
	if (!p->lines)
		return 0;	/* no ring: nothing to walk (the cycle below would never end) */
	do
		x = mix(p, x);
	while (x >= p->lines);
	return x;
}

/* The ring position of line x (walking the cycle backwards). */
static uint64_t perm_inv(const struct ring_plan *p, uint64_t x)
{
	if (!p->lines)
		return 0;
	do
		x = unmix(p, x);
	while (x >= p->lines);
	return x;
}

uint64_t ring_plan_offset(const struct ring_plan *p, uint64_t i) { return perm(p, i) * RING_LINE; }

uint8_t *ring_build(uint8_t *base, uint64_t bytes, uint64_t seed)
{
	struct ring_plan p;
	ring_plan_init(&p, bytes, seed);
	/* In address order, so the writes stream: each line's position, and the line at the next one. */
	uint8_t *line = base;
	for (uint64_t x = 0; x < p.lines; x++, line += RING_LINE) {
		uint64_t i = perm_inv(&p, x) + 1;
		*(uint8_t **)(void *)line = base + perm(&p, i == p.lines ? 0 : i) * RING_LINE;
	}
	return base + perm(&p, 0) * RING_LINE;
}
