/*
 * kernel/arena.h - benchmark memory whose page size is known.
 *
 * UEFI firmware identity-maps memory with 2 MiB or 1 GiB pages, so a 4 KiB
 * aligned address is not necessarily a page boundary.  An arena is
 * physically contiguous memory mapped by the project's own page tables with
 * the page size asked for (image), or the closest the OS gives (host, which
 * says what it really got).  arena_page_size_at walks the live page tables.
 */
#ifndef PMUBOOT_KERNEL_ARENA_H
#define PMUBOOT_KERNEL_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARENA_PAGE_4K 4096u
#define ARENA_PAGE_2M (2u * 1024 * 1024)
#define ARENA_SIZE (4u * 1024 * 1024)	/* every arena: 4 MiB, aligned to 2 MiB */

struct arena {
	uint8_t *base;
	size_t size;
	uint32_t page_size;	/* what the page tables really use, from a walk */
	const char *how;	/* e.g. "own page tables", "firmware mapping", "mmap+MADV_HUGEPAGE" */
};

/* page_size: ARENA_PAGE_4K or ARENA_PAGE_2M.  False with a reason when it cannot be had. */
bool arena_get(uint32_t page_size, struct arena *a, char *why, size_t why_cap);
/* The page size backing addr in the live page tables; 0 when unknown. */
uint32_t arena_page_size_at(const void *addr);
/* Give back every arena and restore the original paging. */
void arena_release_all(void);

#endif
