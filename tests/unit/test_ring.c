/*
 * The memory ladder's ring (bench/ring.c): one cycle through every 64-byte
 * line of the region, visited in the plan's order, so that every page gives
 * each of its 64 page-offset classes once per lap; consecutive loads rarely
 * in one page; no stride a prefetcher could follow; pages coming back at
 * random distances.  Checked by walking the pointers the builder wrote, for
 * regions of 1 page to a thousand pages (line counts that are not powers of
 * two included, which the permutation reaches by cycle walking).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "bench/ring.h"

#define SEED 12345u

struct walked {
	uint64_t lines, steps, same_page_steps, top_delta_count;
	bool closed;
};

/* Walk the ring from its first line; every line must be visited once before it closes. */
static struct walked walk(uint8_t *base, uint64_t bytes, uint8_t *first, const struct ring_plan *plan)
{
	struct walked w = { bytes / RING_LINE, 0, 0, 0, false };
	uint8_t *seen = calloc(w.lines, 1);
	uint8_t *cur = first;
	assert_non_null(seen);
	do {
		uint64_t off = (uint64_t)(cur - base);
		assert_true(off < bytes && off % RING_LINE == 0);	/* inside the region, on a line */
		assert_int_equal(seen[off / RING_LINE], 0);		/* no line twice before it closes */
		seen[off / RING_LINE] = 1;
		assert_int_equal(off, ring_plan_offset(plan, w.steps));	/* the plan's order */
		uint8_t *next = *(uint8_t **)(void *)cur;
		w.same_page_steps += ((uint64_t)(next - base)) / RING_PAGE == off / RING_PAGE;
		cur = next;
		w.steps++;
	} while (cur != first && w.steps <= w.lines);
	w.closed = cur == first;
	free(seen);
	return w;
}

static void check_size(uint64_t bytes)
{
	struct ring_plan plan;
	uint8_t *base = aligned_alloc(RING_PAGE, bytes);
	assert_non_null(base);
	memset(base, 0, bytes);
	uint8_t *first = ring_build(base, bytes, SEED);
	ring_plan_init(&plan, bytes, SEED);
	struct walked w = walk(base, bytes, first, &plan);
	assert_true(w.closed);
	assert_int_equal(w.steps, w.lines);	/* one cycle covering every line */
	uint64_t pages = bytes / RING_PAGE;
	/* Two loads in a row in one page: about one step in `pages`, as in any random order. */
	if (pages > 1)
		assert_true(w.same_page_steps <= 3 * w.lines / pages + 8);
	/* Every page gives each of its 64 page-offset classes, one line each, per lap. */
	uint64_t *mask = calloc(pages, sizeof(*mask));
	for (uint64_t i = 0; i < w.lines; i++) {
		uint64_t off = ring_plan_offset(&plan, i);
		uint64_t bit = 1ull << ((off % RING_PAGE) / RING_LINE);
		assert_false(mask[off / RING_PAGE] & bit);
		mask[off / RING_PAGE] |= bit;
	}
	for (uint64_t pg = 0; pg < pages; pg++)
		assert_true(mask[pg] == ~0ull);
	free(mask);
	free(base);
}

static void one_cycle_over_every_line(void **state)
{
	(void)state;
	static const uint64_t sizes[] = { 4096, 8192, 3 * 4096, 48 * 1024, 50 * 4096, 1 << 20, (4 << 20) + 4096 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		check_size(sizes[i]);
}

/*
 * No stride a prefetcher could lock on: a stride prefetcher needs the same
 * address step several times in a row (per load instruction, or per page
 * for a stream prefetcher).  Here two consecutive steps are rarely equal,
 * and never three in a row.  (The same step does recur once per round, P
 * loads apart: the page order is the same in every round.)
 */
static void strides_are_scattered(void **state)
{
	(void)state;
	static const uint64_t sizes[] = { 3 * 4096, 48 * 1024, 2 << 20, 64 << 20 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t bytes = sizes[s], lines = bytes / RING_LINE, equal = 0;
		struct ring_plan plan;
		ring_plan_init(&plan, bytes, SEED);
		int64_t prev = 0, prev2 = 1;
		for (uint64_t i = 0; i < lines; i++) {
			int64_t d = (int64_t)ring_plan_offset(&plan, (i + 1) % lines) - (int64_t)ring_plan_offset(&plan, i);
			assert_false(i > 1 && d == prev && d == prev2);
			equal += i > 0 && d == prev;
			prev2 = prev;
			prev = d;
		}
		if (equal * 50 > lines)
			fail_msg("%llu bytes: %llu of %llu steps repeat the one before", (unsigned long long)bytes,
				 (unsigned long long)equal, (unsigned long long)lines);
	}
}

/*
 * A page comes back after a random number of other loads, as in any random permutation of the
 * lines: with a fixed page order instead, every LRU TLB or cache smaller than the pages would miss
 * on every load, which random access (and the independent probe of test_memory_ladder.py) does not.
 */
static void pages_return_at_varying_distances(void **state)
{
	(void)state;
	uint64_t bytes = 256 * 4096, pages = bytes / RING_PAGE, lines = bytes / RING_LINE;
	struct ring_plan plan;
	ring_plan_init(&plan, bytes, SEED);
	uint64_t last = 0, shorter = 0, longer = 0, gaps = 0;
	bool seen = false;
	for (uint64_t i = 0; i < lines; i++) {
		if (ring_plan_offset(&plan, i) / RING_PAGE != 7)
			continue;
		if (seen) {
			gaps++;
			shorter += i - last < pages / 2;
			longer += i - last > 2 * pages;
		}
		seen = true;
		last = i;
	}
	assert_int_equal(gaps, RING_CLASSES - 1);
	/* Geometric gaps of mean `pages`: about 40% under half of it, about 13% over twice it. */
	assert_true(shorter >= 12 && shorter <= 40);
	assert_true(longer >= 2 && longer <= 20);
}

/* No line to walk (a size that never should reach here): the ring's entry is its base, and it returns. */
static void an_empty_ring_ends(void **state)
{
	(void)state;
	uint8_t line[RING_LINE];
	struct ring_plan p;
	assert_ptr_equal(ring_build(line, 0, 1), line);
	ring_plan_init(&p, RING_LINE - 1, 1);
	assert_int_equal(ring_plan_offset(&p, 0), 0);
}

static void seed_decides_the_order(void **state)
{
	(void)state;
	struct ring_plan a, b, c;
	uint64_t bytes = 64 * 4096;
	ring_plan_init(&a, bytes, SEED);
	ring_plan_init(&b, bytes, SEED);
	ring_plan_init(&c, bytes, SEED + 1);
	bool same = true, differ = false;
	for (uint64_t i = 0; i < bytes / RING_LINE; i++) {
		same = same && ring_plan_offset(&a, i) == ring_plan_offset(&b, i);
		differ = differ || ring_plan_offset(&a, i) != ring_plan_offset(&c, i);
	}
	assert_true(same);
	assert_true(differ);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_cycle_over_every_line),
		cmocka_unit_test(strides_are_scattered),
		cmocka_unit_test(pages_return_at_varying_distances),
		cmocka_unit_test(seed_decides_the_order),
		cmocka_unit_test(an_empty_ring_ends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
