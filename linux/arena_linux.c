/*
 * linux/arena_linux.c - platform/arena.h under Linux, for pmuboot-host.
 *
 * A process cannot build page tables, so it asks and then checks:
 *   4 KiB: anonymous mmap with MADV_NOHUGEPAGE;
 *   2 MiB: MAP_HUGETLB (needs reserved huge pages), else a 2 MiB-aligned
 *          mmap with MADV_HUGEPAGE (transparent huge pages);
 *   1 GiB: MAP_HUGETLB with the 1 GiB size (needs reserved 1 GiB pages:
 *          hugepagesz=1G hugepages=N on the kernel command line), else none.
 * Large arenas (the memory ladder's) are capped at half of MemAvailable
 * (/proc/meminfo), the host's stand-in for the image's free memory range.
 * What the kernel really gave is read back from /proc/self/smaps
 * (KernelPageSize for hugetlb mappings, AnonHugePages for THP), and the
 * arena's page_size and how say exactly that: a 2 MiB request may come back
 * as 4 KiB pages when THP is off or memory is fragmented.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "platform/arena.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define MAP_HUGE_2MB_FLAG (21 << MAP_HUGE_SHIFT)	/* log2(2 MiB) in the flag's size field (mmap(2)) */
#define MAP_HUGE_1GB_FLAG (30 << MAP_HUGE_SHIFT)	/* log2(1 GiB) */
#define KIB 1024u
#define THP_ENABLED_PATH "/sys/kernel/mm/transparent_hugepage/enabled"
#define MEMINFO_PATH "/proc/meminfo"

/* The large slots in arena_large_request's kind order (4 KiB, 2 MiB, 1 GiB). */
enum { SLOT_4K, SLOT_2M, SLOT_L4K, SLOT_L2M, SLOT_L1G, SLOTS };

static struct {
	struct arena a;
	void *map;
	size_t map_len;
	char how[160];
} slots[SLOTS];

struct vma_info {
	unsigned long start, end;
	unsigned long kernel_page_kb, anon_huge_kb, size_kb;
};

/* The /proc/self/smaps entry holding addr; false when none does. */
static bool vma_of(const void *addr, struct vma_info *v)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false, found = false;
	unsigned long a = (unsigned long)addr;

	if (!f)
		return false;
	memset(v, 0, sizeof(*v));
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e, kb;
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			if (found)
				break;
			in = a >= s && a < e;
			if (in) {
				v->start = s;
				v->end = e;
				found = true;
			}
			continue;
		}
		if (!in)
			continue;
		if (sscanf(line, "KernelPageSize: %lu kB", &kb) == 1)
			v->kernel_page_kb = kb;
		else if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			v->anon_huge_kb = kb;
		else if (sscanf(line, "Size: %lu kB", &kb) == 1)
			v->size_kb = kb;
	}
	fclose(f);
	return found;
}

uint32_t arena_page_size_at(const void *addr)
{
	struct vma_info v;
	if (!vma_of(addr, &v))
		return 0;
	if (v.kernel_page_kb * KIB == ARENA_PAGE_2M || v.kernel_page_kb * KIB == ARENA_PAGE_1G)
		return (uint32_t)(v.kernel_page_kb * KIB);	/* hugetlbfs mapping */
	if (v.anon_huge_kb == 0)
		return (uint32_t)(v.kernel_page_kb * KIB);
	if (v.anon_huge_kb == v.size_kb)
		return ARENA_PAGE_2M;	/* the whole mapping is in transparent huge pages */
	return 0;			/* partly huge: smaps cannot say which part */
}

static void thp_mode(char *buf, size_t cap)
{
	FILE *f = fopen(THP_ENABLED_PATH, "r");
	char line[128];
	snprintf(buf, cap, "unknown");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		char *l = strchr(line, '['), *r = l ? strchr(l, ']') : NULL;
		if (l && r && cap) {
			/* The active choice between the brackets, cut to the buffer. */
			size_t n = (size_t)(r - l - 1) < cap - 1 ? (size_t)(r - l - 1) : cap - 1;
			memcpy(buf, l + 1, n);
			buf[n] = '\0';
		}
	}
	fclose(f);
}

static void touch(uint8_t *p, size_t size)
{
	for (size_t off = 0; off < size; off += ARENA_PAGE_4K)
		((volatile uint8_t *)p)[off] = 0;
}

static bool get_4k(size_t size, struct arena *a, char *how, size_t how_cap, void **map, size_t *len, char *why,
		   size_t why_cap)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(why, why_cap, "mmap of %zu KiB failed", size / KIB);
		return false;
	}
	madvise(p, size, MADV_NOHUGEPAGE);
	touch(p, size);
	*map = p;
	*len = size;
	a->base = p;
	snprintf(how, how_cap, "mmap + MADV_NOHUGEPAGE");
	return true;
}

static bool get_2m(size_t size, struct arena *a, char *how, size_t how_cap, void **map, size_t *len, char *why,
		   size_t why_cap)
{
	char thp[32];
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB_FLAG,
		       -1, 0);
	if (p != MAP_FAILED) {
		touch(p, size);
		*map = p;
		*len = size;
		a->base = p;
		snprintf(how, how_cap, "mmap MAP_HUGETLB (hugetlbfs 2 MiB pages)");
		return true;
	}
	/* Over-allocate to find a 2 MiB boundary, then give back both ends. */
	size_t over = size + ARENA_PAGE_2M;
	uint8_t *raw = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		snprintf(why, why_cap, "mmap of %zu KiB failed", over / KIB);
		return false;
	}
	uintptr_t aligned = ((uintptr_t)raw + ARENA_PAGE_2M - 1) & ~(uintptr_t)(ARENA_PAGE_2M - 1);
	size_t head = aligned - (uintptr_t)raw, tail = over - head - size;
	if (head)
		munmap(raw, head);
	if (tail)
		munmap((uint8_t *)aligned + size, tail);
	p = (void *)aligned;
	int adv = madvise(p, size, MADV_HUGEPAGE);
	touch(p, size);
	*map = p;
	*len = size;
	a->base = p;
	thp_mode(thp, sizeof(thp));
	snprintf(how, how_cap, "aligned mmap + MADV_HUGEPAGE%s (MAP_HUGETLB: no reserved huge pages; THP mode %s)",
		 adv ? " refused" : "", thp);
	return true;
}

static bool get_1g(size_t size, struct arena *a, char *how, size_t how_cap, void **map, size_t *len, char *why,
		   size_t why_cap)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_1GB_FLAG,
		       -1, 0);
	if (p == MAP_FAILED) {
		snprintf(why, why_cap, "mmap MAP_HUGETLB of %zu MiB in 1 GiB pages failed (none reserved: "
			 "hugepagesz=1G hugepages=N)", size / KIB / KIB);
		return false;
	}
	touch(p, size);
	*map = p;
	*len = size;
	a->base = p;
	snprintf(how, how_cap, "mmap MAP_HUGETLB (hugetlbfs 1 GiB pages)");
	return true;
}

/* Map a slot's arena of `size` bytes and say what the kernel really gave. */
static bool get_slot(unsigned slot, uint32_t page_size, size_t size, struct arena *a, char *why, size_t why_cap)
{
	char *how = slots[slot].how;
	size_t cap = sizeof(slots[slot].how);
	bool ok = page_size == ARENA_PAGE_4K ? get_4k(size, a, how, cap, &slots[slot].map, &slots[slot].map_len, why, why_cap)
		  : page_size == ARENA_PAGE_2M ? get_2m(size, a, how, cap, &slots[slot].map, &slots[slot].map_len, why, why_cap)
					       : get_1g(size, a, how, cap, &slots[slot].map, &slots[slot].map_len, why, why_cap);
	if (!ok)
		return false;
	a->size = size;
	/* The same page size at both ends, or 0 (mixed or unknown). */
	uint32_t first = arena_page_size_at(a->base), last = arena_page_size_at(a->base + size - 1);
	a->page_size = first == last ? first : 0;
	if (a->page_size != page_size) {
		size_t n = strlen(how);
		snprintf(how + n, cap - n, "; got %s",
			 a->page_size == ARENA_PAGE_4K ? "4 KiB pages" : a->page_size ? "other pages" : "mixed pages");
	}
	a->how = how;
	slots[slot].a = *a;
	return true;
}

bool arena_get(uint32_t page_size, struct arena *a, char *why, size_t why_cap)
{
	unsigned slot = page_size == ARENA_PAGE_4K ? SLOT_4K : SLOT_2M;

	memset(a, 0, sizeof(*a));
	if (page_size != ARENA_PAGE_4K && page_size != ARENA_PAGE_2M) {
		snprintf(why, why_cap, "page size %u is not 4096 or 2097152", page_size);
		return false;
	}
	if (slots[slot].a.base) {
		*a = slots[slot].a;
		return true;
	}
	return get_slot(slot, page_size, ARENA_SIZE, a, why, why_cap);
}

/* MemAvailable from /proc/meminfo in bytes, 0 when unknown. */
static uint64_t mem_available(void)
{
	FILE *f = fopen(MEMINFO_PATH, "r");
	char line[128];
	unsigned long long kb = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * KIB;
}

bool arena_get_large(uint32_t page_size, uint64_t want, struct arena *a, char *why, size_t why_cap)
{
	struct arena_large_req req;

	memset(a, 0, sizeof(*a));
	if (!arena_large_request(page_size, want, &req, why, why_cap))
		return false;
	const unsigned slot = SLOT_L4K + req.kind;
	const uint64_t unit = req.unit;
	if (slots[slot].a.base) {
		*a = slots[slot].a;
		return true;
	}
	uint64_t avail = mem_available(), room = avail / 2 / unit * unit;
	uint64_t size = req.size;
	const char *limit = NULL;
	if (avail && size > room) {
		size = room;
		limit = "half of the memory Linux says is available (MemAvailable)";
	}
	/* Halve until the kernel agrees. */
	while (size >= unit && !get_slot(slot, page_size, size, a, why, why_cap)) {
		if (page_size == ARENA_PAGE_1G)
			return false;	/* no reserved 1 GiB pages: halving will not help */
		size = size / 2 / unit * unit;
		limit = "mmap";
	}
	if (!slots[slot].a.base) {
		if (size < unit)
			snprintf(why, why_cap, "not even %llu KiB could be mapped (MemAvailable %llu KiB)",
				 (unsigned long long)(unit / KIB), (unsigned long long)(avail / KIB));
		return false;
	}
	slots[slot].a.wanted = want;
	slots[slot].a.limit = limit;
	*a = slots[slot].a;
	return true;
}

void arena_release_all(void)
{
	for (unsigned i = 0; i < SLOTS; i++) {
		if (slots[i].map)
			munmap(slots[i].map, slots[i].map_len);
		memset(&slots[i], 0, sizeof(slots[i]));
	}
}
