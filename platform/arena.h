/*
 * platform/arena.h - benchmark memory whose page size is known.
 *
 * UEFI firmware identity-maps memory with 2 MiB or 1 GiB pages, so a 4 KiB
 * aligned address is not necessarily a page boundary.  An arena is
 * physically contiguous memory mapped by the project's own page tables with
 * the page size asked for (image), or the closest the OS gives (host, which
 * says what it really got).  arena_page_size_at walks the live page tables.
 */
#ifndef PMUBOOT_PLATFORM_ARENA_H
#define PMUBOOT_PLATFORM_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARENA_PAGE_4K 4096u
#define ARENA_PAGE_2M (2u * 1024 * 1024)
#define ARENA_PAGE_1G (1u << 30)
#define ARENA_SIZE (4u * 1024 * 1024)	/* every arena_get arena: 4 MiB, aligned to 2 MiB */
/* A large arena is at least this big, and a multiple of its page size and of this. */
#define ARENA_LARGE_MIN ARENA_SIZE

struct arena {
	uint8_t *base;
	size_t size;
	uint32_t page_size;	/* what the page tables really use, from a walk */
	const char *how;	/* e.g. "own page tables", "firmware mapping", "mmap+MADV_HUGEPAGE" */
	uint64_t wanted;	/* arena_get_large: the size asked for */
	const char *limit;	/* arena_get_large: why size < wanted, or NULL */
};

/* A 4 MiB arena; page_size: ARENA_PAGE_4K or ARENA_PAGE_2M.  False with a reason when it cannot be had. */
bool arena_get(uint32_t page_size, struct arena *a, char *why, size_t why_cap);
/*
 * A large arena, for the memory ladder (bench/src_ladder.c): `want` bytes
 * with page_size pages (4 KiB, 2 MiB or 1 GiB), or as much as the memory
 * there is allows: the image sizes it by the largest free range of the
 * firmware's memory map, the host by the memory Linux says is available.
 * a->size says what was got (a multiple of the page size and of
 * ARENA_LARGE_MIN), a->wanted what was asked, a->limit why it is smaller
 * (NULL when it is not).  One per page size, apart from arena_get's, kept
 * until arena_release_all; asking again returns the same arena.  False with
 * a reason when none can be had.
 */
bool arena_get_large(uint32_t page_size, uint64_t want, struct arena *a, char *why, size_t why_cap);
/*
 * For the implementations of arena_get_large (platform/arena_common.c): the
 * request checked, its kind (0: 4 KiB, 1: 2 MiB, 2: 1 GiB pages, the order of
 * their slots), the unit its size comes in (the page size, at least
 * ARENA_LARGE_MIN) and want rounded up to that.  False with a reason for any
 * other page size.
 */
#define ARENA_LARGE_KINDS 3
struct arena_large_req {
	unsigned kind;
	uint64_t unit, size;
};
bool arena_large_request(uint32_t page_size, uint64_t want, struct arena_large_req *r, char *why, size_t why_cap);
/* The page size backing addr in the live page tables; 0 when unknown. */
uint32_t arena_page_size_at(const void *addr);
/* Give back every arena and restore the original paging. */
void arena_release_all(void);

#endif
