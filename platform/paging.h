/*
 * platform/paging.h - 4-level page tables: walk, and map an identity range
 * with a chosen page size in a copy of someone else's tables.
 *
 * Everything outside the mapped range keeps the firmware's translation:
 * the copy shares every table not on the path to the range, and the
 * tables on that path are cloned (a 1 GiB page on the path is split into
 * 2 MiB pages with the same attributes).  The firmware's own tables are
 * never written.  Portable: tables are reached through ptr(), so the unit
 * tests run it on fake physical memory.
 */
#ifndef PMUBOOT_PLATFORM_PAGING_H
#define PMUBOOT_PLATFORM_PAGING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Paging-structure entry bits (Intel SDM Vol. 3A §4.5, Tables 4-15 to 4-20; AMD APM Vol. 2 §5.3). */
#define PTE_P (1ull << 0)
#define PTE_RW (1ull << 1)
#define PTE_US (1ull << 2)
#define PTE_PWT (1ull << 3)
#define PTE_PCD (1ull << 4)
#define PTE_A (1ull << 5)
#define PTE_D (1ull << 6)
#define PTE_PS (1ull << 7)		/* PDPTE/PDE: maps a 1 GiB / 2 MiB page */
#define PTE_PAT_4K (1ull << 7)		/* PTE: PAT index bit */
#define PTE_G (1ull << 8)
#define PTE_PAT_LARGE (1ull << 12)	/* 1 GiB / 2 MiB leaf: PAT index bit */
#define PTE_XD (1ull << 63)
#define PTE_HIGH_ATTR (0x7FFull << 52)	/* bits 62:52: ignored / protection key */
#define PT_ENTRIES 512
#define PT_TABLE_SIZE 4096u
#define PAGE_4K 0x1000ull
#define PAGE_2M 0x200000ull
#define PAGE_1G 0x40000000ull
/* Tables of ours: a 4 KiB mapping takes one per 2 MiB (the memory ladder's 4 KiB arena: up to 256 MiB). */
#define PT_MAX_OWNED 512

struct pt_ctx {
	uint64_t addr_mask;			/* physical-address bits of an entry (bits 12..MAXPHYADDR-1, less any C-bit) */
	void *(*ptr)(void *ctx, uint64_t phys);	/* the 4 KiB table at phys */
	uint64_t (*alloc)(void *ctx);		/* a zeroed 4 KiB table: its phys, or 0 */
	void *ctx;
	uint64_t owned[PT_MAX_OWNED];		/* tables we made (the rest are the firmware's) */
	unsigned n_owned;
};

/* The address mask for MAXPHYADDR bits, without the AMD memory-encryption bit (0: none). */
uint64_t pt_addr_mask(unsigned maxphyaddr, unsigned c_bit);

/* Page size backing va under root (4 KiB, 2 MiB, 1 GiB), or 0 when not present; *leaf gets the entry. */
uint64_t pt_walk(const struct pt_ctx *c, uint64_t root, uint64_t va, uint64_t *leaf);
/* The physical address va translates to under root; false when not mapped. */
bool pt_translate(const struct pt_ctx *c, uint64_t root, uint64_t va, uint64_t *phys);

/* A new root table with the same 512 entries as fw_root. */
bool pt_clone_root(struct pt_ctx *c, uint64_t fw_root, uint64_t *root);

/*
 * Map [va, va+size) to itself with page_size pages (PAGE_4K, PAGE_2M or
 * PAGE_1G) in root, a clone of fw_root.  va and size must be 2 MiB multiples
 * (1 GiB multiples for PAGE_1G, which needs CPUID 80000001H:EDX[26]).  Leaf
 * attributes (caching, user/supervisor, XD, high bits) come from the
 * firmware's mapping of each chunk (its first 2 MiB for a 1 GiB page); the entries are writable and
 * pre-set Accessed and Dirty so first touches inside a measurement cost no
 * page-walk assist.  Global is not set.
 */
bool pt_map_identity(struct pt_ctx *c, uint64_t root, uint64_t fw_root, uint64_t va, uint64_t size,
		     uint64_t page_size, char *why, size_t why_cap);

#endif
