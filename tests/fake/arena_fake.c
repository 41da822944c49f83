/* tests/fake/arena_fake.c - see arena_fake.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fake/arena_fake.h"

static struct {
	struct arena live[FAKE_ARENA_MAX];
	unsigned nlive, releases;
	uint32_t refused[2];
	const char *why[2];
	uint32_t outside_page;
	uint64_t large_cap;	/* 0: arena_get_large refuses */
} fa;

void fake_arena_reset(uint32_t outside_page)
{
	for (unsigned i = 0; i < fa.nlive; i++)
		free(fa.live[i].base);
	memset(&fa, 0, sizeof(fa));
	fa.outside_page = outside_page;
}

void fake_arena_refuse(uint32_t page_size, const char *why)
{
	unsigned k = page_size == ARENA_PAGE_2M;
	fa.refused[k] = page_size;
	fa.why[k] = why;
}

void fake_arena_large(uint64_t cap) { fa.large_cap = cap; }

unsigned fake_arena_live(void) { return fa.nlive; }
unsigned fake_arena_releases(void) { return fa.releases; }

bool arena_get(uint32_t page_size, struct arena *a, char *why, size_t why_cap)
{
	unsigned k = page_size == ARENA_PAGE_2M;
	if (page_size != ARENA_PAGE_4K && page_size != ARENA_PAGE_2M) {
		snprintf(why, why_cap, "page size %u not offered", page_size);
		return false;
	}
	if (fa.refused[k] == page_size) {
		snprintf(why, why_cap, "%s", fa.why[k]);
		return false;
	}
	if (fa.nlive == FAKE_ARENA_MAX) {
		snprintf(why, why_cap, "fake: %d arenas already handed out", FAKE_ARENA_MAX);
		return false;
	}
	uint8_t *mem = aligned_alloc(ARENA_PAGE_2M, ARENA_SIZE);
	if (!mem) {
		snprintf(why, why_cap, "fake: out of memory");
		return false;
	}
	*a = (struct arena){ mem, ARENA_SIZE, page_size, "fake", 0, NULL };
	fa.live[fa.nlive++] = *a;
	return true;
}

bool arena_get_large(uint32_t page_size, uint64_t want, struct arena *a, char *why, size_t why_cap)
{
	memset(a, 0, sizeof(*a));
	for (unsigned i = 0; i < fa.nlive; i++)
		if (fa.live[i].wanted && fa.live[i].page_size == page_size) {
			*a = fa.live[i];
			return true;
		}
	if (!fa.large_cap) {
		snprintf(why, why_cap, "fake: no large arenas");
		return false;
	}
	if (fa.nlive == FAKE_ARENA_MAX) {
		snprintf(why, why_cap, "fake: %d arenas already handed out", FAKE_ARENA_MAX);
		return false;
	}
	uint64_t size = (want + ARENA_LARGE_MIN - 1) / ARENA_LARGE_MIN * ARENA_LARGE_MIN;
	const char *limit = NULL;
	if (size > fa.large_cap) {
		size = fa.large_cap;
		limit = "fake: the test's cap";
	}
	uint8_t *mem = aligned_alloc(ARENA_PAGE_2M, size);
	if (!mem) {
		snprintf(why, why_cap, "fake: out of memory");
		return false;
	}
	*a = (struct arena){ mem, size, page_size, "fake", want, limit };
	fa.live[fa.nlive++] = *a;
	return true;
}

uint32_t arena_page_size_at(const void *addr)
{
	const uint8_t *p = addr;
	for (unsigned i = 0; i < fa.nlive; i++)
		if (p >= fa.live[i].base && p < fa.live[i].base + fa.live[i].size)
			return fa.live[i].page_size;
	return fa.outside_page;
}

void arena_release_all(void)
{
	for (unsigned i = 0; i < fa.nlive; i++)
		free(fa.live[i].base);
	fa.nlive = 0;
	fa.releases++;
}
