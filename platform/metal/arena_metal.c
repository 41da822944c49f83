/*
 * platform/metal/arena_metal.c - platform/arena.h on bare metal.
 *
 * The first arena_get clones the firmware's page tables (platform/paging.c)
 * and loads the clone into CR3; each arena is 4 MiB of physically
 * contiguous, 2 MiB-aligned memory from the firmware's page allocator,
 * identity-mapped in the clone with the page size asked for.  Everything
 * else translates exactly as under the firmware's tables, so the firmware
 * (still running its timer and services between windows) notices nothing.
 * arena_release_all loads the firmware's CR3 again before freeing anything.
 *
 * Page-table pages come from one pool allocated before our CR3 is loaded:
 * a 4 KiB arena needs at most 1 PML4 + 1 PDPT + 2 PD + 2 PT, a 2 MiB one
 * fewer; the pool has room for both with a 1 GiB split on each path.
 *
 * Large arenas (arena_get_large, the memory ladder's) are sized by the
 * largest free range of the firmware's memory map, less a margin the
 * firmware keeps for itself, and bring their own page-table pool: one page
 * per 2 MiB for 4 KiB pages, one per GiB for 2 MiB pages, plus the path.
 */
#include "platform/arena.h"
#include "platform/hw.h"
#include "platform/metal/kx.h"
#include "platform/paging.h"
#include "platform/trap.h"
#include "platform/firmware.h"
#include "lib/libc.h"
#include "lib/x86/cpuid.h"

#define POOL_PAGES 16
#define CR4_PGE (1ull << 7)		/* Intel SDM Vol. 3A §2.5 */
#define CR4_LA57 (1ull << 12)
#define CR3_FLAGS (PTE_PWT | PTE_PCD)	/* CR3 bits 3 and 4 (SDM Vol. 3A §4.5.2) */
/* CPUID_LEAF_EXT_CAPACITY (lib/x86/cpuid.h) EAX[7:0]: MAXPHYADDR (SDM Vol. 2A CPUID; AMD APM Vol. 3 E.4.7). */
#define EXT_CAP_MAXPHYADDR(eax) ((eax) & 0xFFu)
#define CPUID_AMD_MEM_ENCRYPT 0x8000001Fu	/* EAX[0] SME, EAX[1] SEV; EBX[5:0] C-bit (AMD APM Vol. 2 §7.10.1) */
#define MEM_ENCRYPT_SME_OR_SEV 3u		/* EAX[1:0] */
#define MEM_ENCRYPT_C_BIT(ebx) ((ebx) & 0x3Fu)	/* EBX[5:0]: the page-table bit that marks a page encrypted */
#define DEFAULT_MAXPHYADDR 36		/* SDM Vol. 3A §4.1.4 when CPUID 80000008h is absent */

/* The large slots in arena_large_request's kind order (4 KiB, 2 MiB, 1 GiB). */
enum { SLOT_4K, SLOT_2M, SLOT_L4K, SLOT_L2M, SLOT_L1G, SLOTS };

/*
 * Memory left to the firmware when a large arena is sized by the memory
 * map: its own later allocations (pools, the results file's buffers) must
 * still succeed.  A quarter of the free range, at least this much.
 */
#define LARGE_MARGIN_MIN (64ull * 1024 * 1024)
#define LARGE_PATH_TABLES 4	/* PDPT and PD clones on the path, with a 1 GiB split at each end */

static struct {
	struct pt_ctx pt;
	bool pt_ready;
	uint64_t fw_cr3, root;
	bool ours_loaded;
	bool runtime_up;	/* passed down by platform/metal/runtime.c */
	uint8_t *pool;
	unsigned pool_used;
	uint8_t *big_pool[SLOTS];	/* each large arena's own page-table pages */
	unsigned big_pool_pages[SLOTS];
	int big_cur;			/* the slot whose pool pool_alloc serves from while it is mapped, or -1 */
	unsigned big_used;
	struct arena arenas[SLOTS];
	size_t alloc_align[SLOTS];	/* the alignment each arena was allocated with (fw_free_pages) */
} st;

static void *phys_ptr(void *ctx, uint64_t phys)
{
	(void)ctx;
	return (void *)(uintptr_t)phys;	/* UEFI identity-maps memory */
}

static uint64_t pool_alloc(void *ctx)
{
	uint8_t *p;
	(void)ctx;
	if (st.big_cur >= 0 && st.big_used < st.big_pool_pages[st.big_cur])
		p = st.big_pool[st.big_cur] + (size_t)st.big_used++ * PT_TABLE_SIZE;
	else if (st.pool && st.pool_used < POOL_PAGES)
		p = st.pool + (size_t)st.pool_used++ * PT_TABLE_SIZE;
	else
		return 0;
	memset(p, 0, PT_TABLE_SIZE);
	return (uint64_t)(uintptr_t)p;
}

static void pt_setup(void)
{
	struct cpuid_regs r;
	unsigned maxphy = DEFAULT_MAXPHYADDR, c_bit = 0;

	if (st.pt_ready)
		return;
	hw_cpuid(CPUID_LEAF_EXT_MAX, 0, &r);
	uint32_t max_ext = r.eax;
	if (max_ext >= CPUID_LEAF_EXT_CAPACITY) {
		hw_cpuid(CPUID_LEAF_EXT_CAPACITY, 0, &r);
		maxphy = EXT_CAP_MAXPHYADDR(r.eax);
	}
	if (max_ext >= CPUID_AMD_MEM_ENCRYPT) {
		hw_cpuid(CPUID_AMD_MEM_ENCRYPT, 0, &r);
		if (r.eax & MEM_ENCRYPT_SME_OR_SEV)
			c_bit = MEM_ENCRYPT_C_BIT(r.ebx);
	}
	st.pt.addr_mask = pt_addr_mask(maxphy, c_bit);
	st.pt.ptr = phys_ptr;
	st.pt.alloc = pool_alloc;
	st.pt_ready = true;
}

static void write_cr3(uint64_t v) { __asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory"); }
static void write_cr4(uint64_t v) { __asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory"); }

/* Every translation, global ones included: toggling CR4.PGE flushes them all (SDM Vol. 3A §4.10.4.1). */
static void flush_tlb_all(void)
{
	uint64_t f = kx_read_rflags();
	__asm__ volatile("cli" : : : "memory");
	uint64_t cr4 = kx_read_cr4();
	if (cr4 & CR4_PGE) {
		write_cr4(cr4 & ~CR4_PGE);
		write_cr4(cr4);
	} else {
		write_cr3(kx_read_cr3());
	}
	if (f & RFLAGS_IF)
		__asm__ volatile("sti" : : : "memory");
}

static void load_cr3(uint64_t v)
{
	write_cr3(v);
	flush_tlb_all();
}

void arena_load_cr3(uint64_t cr3) { load_cr3(cr3); }

uint32_t arena_page_size_at(const void *addr)
{
	uint64_t leaf;
	if (kx_read_cr4() & CR4_LA57)
		return 0;
	pt_setup();
	return (uint32_t)pt_walk(&st.pt, kx_read_cr3() & st.pt.addr_mask, (uint64_t)(uintptr_t)addr, &leaf);
}

/* What every arena needs first: our paging can be built here, and the small page-table pool exists. */
static bool can_map(char *why, size_t why_cap)
{
	if (kx_read_cr4() & CR4_LA57) {
		snprintf(why, why_cap, "the firmware uses 5-level paging, which this runtime does not build");
		return false;
	}
	if (!st.runtime_up) {
		snprintf(why, why_cap, "the runtime is not initialised");
		return false;
	}
	pt_setup();
	if (!st.pool) {
		st.pool = fw_alloc_pages((size_t)POOL_PAGES * PT_TABLE_SIZE, PT_TABLE_SIZE);
		if (!st.pool) {
			snprintf(why, why_cap, "the firmware could not allocate %u page-table pages", POOL_PAGES);
			return false;
		}
		st.fw_cr3 = kx_read_cr3();
	}
	return true;
}

/* Identity-map [mem, mem+size) with page_size pages in our tables and make them live. */
static bool map_live(uint8_t *mem, size_t size, uint32_t page_size, char *why, size_t why_cap)
{
	uint64_t fw_root = st.fw_cr3 & st.pt.addr_mask;
	if (!st.root && !pt_clone_root(&st.pt, fw_root, &st.root)) {
		snprintf(why, why_cap, "out of page-table pages");
		return false;
	}
	/* On failure, entries already written map the chunks identically (only the page size differs): harmless. */
	if (!pt_map_identity(&st.pt, st.root, fw_root, (uint64_t)(uintptr_t)mem, size, page_size, why, why_cap))
		return false;
	if (!st.ours_loaded) {
		load_cr3(st.root | (st.fw_cr3 & CR3_FLAGS));
		st.ours_loaded = true;
	} else {
		flush_tlb_all();
	}
	return true;
}

/* Say what the live tables really hold, not what was asked for. */
static uint32_t walked_page(const uint8_t *mem, size_t size)
{
	uint32_t first = arena_page_size_at(mem), last = arena_page_size_at(mem + size - 1);
	return first == last ? first : 0;
}

bool arena_get(uint32_t page_size, struct arena *a, char *why, size_t why_cap)
{
	unsigned slot = page_size == ARENA_PAGE_4K ? SLOT_4K : SLOT_2M;

	memset(a, 0, sizeof(*a));
	if (page_size != ARENA_PAGE_4K && page_size != ARENA_PAGE_2M) {
		snprintf(why, why_cap, "page size %u is not 4096 or 2097152", page_size);
		return false;
	}
	if (st.arenas[slot].base) {
		*a = st.arenas[slot];
		return true;
	}
	if (!can_map(why, why_cap))
		return false;
	uint8_t *mem = fw_alloc_pages(ARENA_SIZE, ARENA_PAGE_2M);
	if (!mem) {
		snprintf(why, why_cap, "the firmware could not allocate %u KiB aligned to 2 MiB", ARENA_SIZE / 1024);
		return false;
	}
	if (!map_live(mem, ARENA_SIZE, page_size, why, why_cap)) {
		fw_free_pages(mem, ARENA_SIZE, ARENA_PAGE_2M);
		return false;
	}
	a->base = mem;
	a->size = ARENA_SIZE;
	a->page_size = walked_page(mem, ARENA_SIZE);
	a->how = page_size == ARENA_PAGE_4K ? "own page tables, 4 KiB pages" : "own page tables, 2 MiB pages";
	st.arenas[slot] = *a;
	st.alloc_align[slot] = ARENA_PAGE_2M;
	return true;
}

/* Page-table pages a large arena of `size` bytes needs with page_size pages. */
static unsigned large_tables(uint64_t size, uint32_t page_size)
{
	uint64_t gib = (size + PAGE_1G - 1) / PAGE_1G + 1;
	if (page_size == ARENA_PAGE_4K)
		return (unsigned)(size / PAGE_2M + gib + LARGE_PATH_TABLES);
	return (unsigned)(gib + LARGE_PATH_TABLES);
}

bool arena_get_large(uint32_t page_size, uint64_t want, struct arena *a, char *why, size_t why_cap)
{
	struct arena_large_req req;

	memset(a, 0, sizeof(*a));
	if (!arena_large_request(page_size, want, &req, why, why_cap))
		return false;
	const unsigned slot = SLOT_L4K + req.kind;
	const uint64_t unit = req.unit;
	if (st.arenas[slot].base) {
		*a = st.arenas[slot];
		return true;
	}
	if (st.big_pool[slot]) {
		/* An earlier try mapped part of its range and failed: its page-table pool may be linked into the live
		 * tables, so it is neither reused nor replaced (either would lose it or remap what it maps). */
		snprintf(why, why_cap, "mapping this page size failed earlier in the run; not tried again");
		return false;
	}
	if (!can_map(why, why_cap))
		return false;
	/* The most the memory map can give: its largest free range less the firmware's margin, whole units. */
	uint64_t free = fw_largest_free_bytes(), margin = free / 4 > LARGE_MARGIN_MIN ? free / 4 : LARGE_MARGIN_MIN;
	uint64_t room = free > margin + page_size ? (free - margin - (page_size > PAGE_2M ? page_size : 0)) / unit * unit : 0;
	uint64_t size = req.size;
	const char *limit = NULL;
	if (size > room) {
		size = room;
		limit = free ? "the largest free range of the firmware's memory map" : "the memory map could not be read";
	}
	/* 4 KiB pages take a table per 2 MiB, and platform/paging.h keeps PT_MAX_OWNED tables at most. */
	uint64_t tables_cap = (uint64_t)(PT_MAX_OWNED - 2 * (POOL_PAGES + LARGE_PATH_TABLES)) * PAGE_2M / unit * unit;
	if (page_size == ARENA_PAGE_4K && size > tables_cap) {
		size = tables_cap;
		limit = "the page tables a 4 KiB mapping needs (platform/paging.h PT_MAX_OWNED)";
	}
	uint8_t *mem = NULL;
	/* Halve until the allocator agrees (the map may have changed since it was read). */
	while (size >= unit && !(mem = fw_alloc_pages(size, page_size > PAGE_2M ? page_size : PAGE_2M))) {
		size = size / 2 / unit * unit;
		limit = "the firmware's allocator";
	}
	if (!mem) {
		snprintf(why, why_cap, "the firmware could not allocate %llu KiB (largest free range %llu KiB)",
			 (unsigned long long)(unit / 1024), (unsigned long long)(free / 1024));
		return false;
	}
	unsigned tables = large_tables(size, page_size);
	st.big_pool[slot] = fw_alloc_pages((size_t)tables * PT_TABLE_SIZE, PT_TABLE_SIZE);
	st.big_pool_pages[slot] = st.big_pool[slot] ? tables : 0;
	st.big_cur = (int)slot;
	st.big_used = 0;
	bool mapped = st.big_pool[slot] && map_live(mem, size, page_size, why, why_cap);
	st.big_cur = -1;
	if (!mapped) {
		if (!st.big_pool[slot])
			snprintf(why, why_cap, "the firmware could not allocate %u page-table pages", tables);
		fw_free_pages(mem, size, PAGE_2M);
		/* The pool stays until the release: tables taken from it may be in use (harmless identical entries). */
		return false;
	}
	a->base = mem;
	a->size = size;
	a->page_size = walked_page(mem, size);
	a->wanted = want;
	a->limit = limit;
	a->how = page_size == ARENA_PAGE_4K ? "own page tables, 4 KiB pages"
		 : page_size == ARENA_PAGE_2M ? "own page tables, 2 MiB pages" : "own page tables, 1 GiB pages";
	st.arenas[slot] = *a;
	st.alloc_align[slot] = page_size > PAGE_2M ? page_size : PAGE_2M;
	return true;
}

void arena_emergency_restore(void)
{
	if (st.ours_loaded) {
		load_cr3(st.fw_cr3);
		st.ours_loaded = false;
	}
}

void arena_release_all(void)
{
	arena_emergency_restore();
	for (unsigned i = 0; i < SLOTS; i++) {
		if (st.arenas[i].base)
			fw_free_pages(st.arenas[i].base, st.arenas[i].size, st.alloc_align[i]);
		memset(&st.arenas[i], 0, sizeof(st.arenas[i]));
	}
	if (st.pool)
		fw_free_pages(st.pool, (size_t)POOL_PAGES * PT_TABLE_SIZE, PT_TABLE_SIZE);
	for (unsigned i = 0; i < SLOTS; i++) {
		if (st.big_pool[i])
			fw_free_pages(st.big_pool[i], (size_t)st.big_pool_pages[i] * PT_TABLE_SIZE, PT_TABLE_SIZE);
		st.big_pool[i] = NULL;
		st.big_pool_pages[i] = 0;
	}
	st.pool = NULL;
	st.pool_used = 0;
	st.root = 0;
	st.pt.n_owned = 0;
}

void arena_attach(bool runtime_up)
{
	st.runtime_up = runtime_up;
	st.big_cur = -1;
}
