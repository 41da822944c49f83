/* bench/ring.c - see ring.h. */
#include "bench/ring.h"

/* splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014). */
static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void shuffle(uint8_t *v, unsigned n, uint64_t *s)
{
	for (unsigned i = 0; i < n; i++)
		v[i] = (uint8_t)i;
	for (unsigned i = n - 1; i > 0; i--) {	/* Fisher-Yates */
		unsigned j = (unsigned)(next_random(s) % (i + 1));
		uint8_t t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

void ring_plan_init(struct ring_plan *p, uint64_t bytes, uint64_t seed)
{
	uint64_t s = seed;
	memset(p, 0, sizeof(*p));
	p->pages = bytes / RING_PAGE;
	while (p->bits < 63 && (1ull << p->bits) < p->pages)
		p->bits++;
	p->mask = (1ull << p->bits) - 1;
	for (unsigned i = 0; i < 3; i++)
		p->key[i] = next_random(&s);
	shuffle(p->sigma, RING_CLASSES, &s);
	shuffle(p->tau, RING_CLASSES, &s);
}

/*
 * A bijection of [0, 2^bits): rounds of multiplying by an odd number,
 * xor with a right shift and adding a constant, each a bijection modulo
 * 2^bits on its own.
 */
static uint64_t mix(const struct ring_plan *p, uint64_t x)
{
	unsigned shift = (p->bits + 1) / 2;
	for (unsigned i = 0; i < 3; i++) {
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
	for (unsigned i = 3; i-- > 0;) {
		x = (x - (p->key[i] >> 32)) & p->mask;
		/* y = x ^ (x >> s) is undone by x = y ^ (y >> s) ^ (y >> 2s) ^ ...: shift >= 1 whenever bits >= 1. */
		uint64_t y = x;
		for (unsigned sh = shift; sh && sh < p->bits; sh += shift)
			x ^= y >> sh;
		/* The inverse of an odd a modulo 2^64 by Newton's iteration (each step doubles the correct bits). */
		uint64_t a = p->key[i] | 1, inv = a;
		for (unsigned k = 0; k < 6; k++)
			inv *= 2 - a * inv;
		x = (x * inv) & p->mask;
	}
	return x;
}

uint64_t ring_plan_page(const struct ring_plan *p, uint64_t k)
{
	/* Cycle walking: applying the bijection until the value falls inside [0, pages) keeps it one. */
	uint64_t x = k;
	do
		x = mix(p, x);
	while (x >= p->pages);
	return x;
}

/* The page position whose page is `page`: ring_plan_page's inverse (walking the cycle backwards). */
static uint64_t position_of(const struct ring_plan *p, uint64_t page)
{
	uint64_t x = page;
	do
		x = unmix(p, x);
	while (x >= p->pages);
	return x;
}

static unsigned class_at(const struct ring_plan *p, uint64_t round, uint64_t k)
{
	return (p->sigma[round] + p->tau[k % RING_CLASSES]) % RING_CLASSES;
}

uint64_t ring_plan_offset(const struct ring_plan *p, uint64_t i)
{
	uint64_t round = i / p->pages, k = i % p->pages;
	return ring_plan_page(p, k) * RING_PAGE + (uint64_t)class_at(p, round, k) * RING_LINE;
}

uint8_t *ring_build(uint8_t *base, uint64_t bytes, uint64_t seed)
{
	struct ring_plan p;
	uint8_t round_of[RING_CLASSES];	/* sigma's inverse: the round in which class offset d is taken */

	ring_plan_init(&p, bytes, seed);
	for (unsigned r = 0; r < RING_CLASSES; r++)
		round_of[p.sigma[r]] = (uint8_t)r;
	/*
	 * In address order, so the writes stream (a 2 GiB ring has 32 M lines): for each line, its
	 * position (round, k) from its page and class, and the address of the position after it,
	 * (round, k + 1), or (round + 1, 0) after a round's last page (the last round's goes to the first).
	 */
	uint64_t first_page = ring_plan_page(&p, 0);
	for (uint64_t page = 0; page < p.pages; page++) {
		uint64_t k = position_of(&p, page);
		bool last = k + 1 == p.pages;
		uint64_t next_page = last ? first_page : ring_plan_page(&p, k + 1);
		uint8_t *line = base + page * RING_PAGE;
		for (unsigned cls = 0; cls < RING_CLASSES; cls++, line += RING_LINE) {
			unsigned round = round_of[(cls + RING_CLASSES - p.tau[k % RING_CLASSES]) % RING_CLASSES];
			unsigned next_cls = last ? class_at(&p, (round + 1) % RING_CLASSES, 0) : class_at(&p, round, k + 1);
			*(uint8_t **)(void *)line = base + next_page * RING_PAGE + (uint64_t)next_cls * RING_LINE;
		}
	}
	return base + first_page * RING_PAGE + (uint64_t)class_at(&p, 0, 0) * RING_LINE;
}
