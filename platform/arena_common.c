/*
 * platform/arena_common.c - what every implementation of arena_get_large
 * decides the same way (platform/arena.h): which of the three large page sizes
 * is asked for, and the unit the arena's size comes in.
 */
#include "platform/arena.h"
#include "lib/libc.h"

bool arena_large_request(uint32_t page_size, uint64_t want, struct arena_large_req *r, char *why, size_t why_cap)
{
	static const uint32_t sizes[ARENA_LARGE_KINDS] = { ARENA_PAGE_4K, ARENA_PAGE_2M, ARENA_PAGE_1G };

	memset(r, 0, sizeof(*r));
	for (unsigned k = 0; k < ARENA_LARGE_KINDS; k++)
		if (sizes[k] == page_size) {
			r->kind = k;
			r->unit = page_size > ARENA_LARGE_MIN ? page_size : ARENA_LARGE_MIN;
			r->size = (want + r->unit - 1) / r->unit * r->unit;
			return true;
		}
	snprintf(why, why_cap, "page size %u is not 4 KiB, 2 MiB or 1 GiB", page_size);
	return false;
}
