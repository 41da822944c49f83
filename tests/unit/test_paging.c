/*
 * Page tables (platform/paging.c) on fake physical memory: a firmware-like
 * hierarchy with a 1 GiB page, 2 MiB pages and a 4 KiB table; an identity
 * range remapped with 4 KiB and with 2 MiB pages in a clone; everything
 * else translating exactly as before; the firmware's tables untouched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "platform/paging.h"

#define POOL 64
#define PHYS_BASE 0x7000000000ull	/* where the fake table pages "live" physically */
#define GIB 0x40000000ull
#define MIB2 0x200000ull

static uint64_t mem[POOL][PT_ENTRIES] __attribute__((aligned(4096)));
static unsigned used;
static unsigned alloc_limit;

static void *ptr(void *ctx, uint64_t phys)
{
	(void)ctx;
	uint64_t i = (phys - PHYS_BASE) / PT_TABLE_SIZE;
	assert_true(phys >= PHYS_BASE && i < POOL && (phys & 0xFFF) == 0);
	return mem[i];
}

static uint64_t alloc(void *ctx)
{
	(void)ctx;
	if (used >= alloc_limit)
		return 0;
	memset(mem[used], 0, PT_TABLE_SIZE);
	return PHYS_BASE + (uint64_t)used++ * PT_TABLE_SIZE;
}


/*
 * Firmware tables: PML4[0] -> PDPT.  PDPT[0]: a 1 GiB page (PCD set, XD set).
 * PDPT[1] -> PD: 2 MiB pages, one of them with the PAT bit; PD[5] -> a PT of 4 KiB pages.
 */
static uint64_t fw_root;
static uint64_t c_bit;

static void build_firmware(struct pt_ctx *c, uint64_t cbit)
{
	memset(mem, 0, sizeof(mem));
	used = 0;
	alloc_limit = POOL;
	c_bit = cbit;
	memset(c, 0, sizeof(*c));
	c->addr_mask = pt_addr_mask(48, cbit ? 47 : 0);
	c->ptr = ptr;
	c->alloc = alloc;
	uint64_t pml4 = alloc(NULL), pdpt = alloc(NULL), pd = alloc(NULL), pt = alloc(NULL);
	fw_root = pml4;
	uint64_t base = PTE_P | PTE_RW | c_bit;
	((uint64_t *)ptr(NULL, pml4))[0] = pdpt | base;
	((uint64_t *)ptr(NULL, pdpt))[0] = 0 | base | PTE_PS | PTE_PCD | PTE_XD;
	((uint64_t *)ptr(NULL, pdpt))[1] = pd | base;
	uint64_t *d = ptr(NULL, pd);
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		d[i] = (GIB + i * MIB2) | base | PTE_PS | (i == 8 ? PTE_PAT_LARGE : 0);
	d[5] = pt | base;
	uint64_t *t = ptr(NULL, pt);
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		t[i] = (GIB + 5 * MIB2 + i * PAGE_4K) | base | (i & 1 ? PTE_XD : 0);
}

static void walk_reports_each_size(void **state)
{
	(void)state;
	struct pt_ctx c;
	uint64_t leaf, phys;
	build_firmware(&c, 0);
	assert_int_equal(pt_walk(&c, fw_root, 0x12345678, &leaf), PAGE_1G);
	assert_true(leaf & PTE_PCD);
	assert_int_equal(pt_walk(&c, fw_root, GIB + 3 * MIB2 + 77, &leaf), PAGE_2M);
	assert_int_equal(pt_walk(&c, fw_root, GIB + 5 * MIB2 + 3 * PAGE_4K, &leaf), PAGE_4K);
	assert_true(leaf & PTE_XD);
	assert_int_equal(pt_walk(&c, fw_root, 2 * GIB, &leaf), 0);	/* not present */
	assert_int_equal(pt_walk(&c, fw_root, 1ull << 40, &leaf), 0);	/* PML4 entry absent */
	assert_true(pt_translate(&c, fw_root, GIB + 5 * MIB2 + 0x1234, &phys));
	assert_int_equal(phys, GIB + 5 * MIB2 + 0x1234);
	assert_false(pt_translate(&c, fw_root, 2 * GIB, &phys));
}

/* Every probe address translates identically in both hierarchies. */
static void assert_same_translation(struct pt_ctx *c, uint64_t root, uint64_t from, uint64_t to, uint64_t step)
{
	for (uint64_t va = from; va < to; va += step) {
		uint64_t a, b;
		bool ka = pt_translate(c, fw_root, va, &a), kb = pt_translate(c, root, va, &b);
		assert_int_equal(ka, kb);
		if (ka)
			assert_int_equal(a, b);
	}
}

static void map_4k_inside_a_2m_region(void **state)
{
	(void)state;
	struct pt_ctx c;
	uint64_t root, leaf;
	char why[160];
	build_firmware(&c, 0);
	static uint64_t snapshot[POOL][PT_ENTRIES];
	memcpy(snapshot, mem, sizeof(mem));
	unsigned fw_tables = used;

	assert_true(pt_clone_root(&c, fw_root, &root));
	/* 4 MiB from GIB + 8*2M: the first chunk has the PAT bit in the firmware's 2 MiB leaf. */
	uint64_t va = GIB + 8 * MIB2;
	assert_true(pt_map_identity(&c, root, fw_root, va, 2 * MIB2, PAGE_4K, why, sizeof(why)));
	for (uint64_t off = 0; off < 2 * MIB2; off += 0x3000)
		assert_int_equal(pt_walk(&c, root, va + off, &leaf), PAGE_4K);
	pt_walk(&c, root, va, &leaf);
	assert_true(leaf & PTE_PAT_4K);	/* PAT moved from bit 12 to bit 7 */
	assert_true((leaf & (PTE_A | PTE_D | PTE_RW)) == (PTE_A | PTE_D | PTE_RW));
	assert_false(leaf & PTE_G);
	pt_walk(&c, root, va + MIB2, &leaf);
	assert_false(leaf & PTE_PAT_4K);
	/* Outside the range, nothing changed: sizes and translations. */
	assert_int_equal(pt_walk(&c, root, GIB + 3 * MIB2, &leaf), PAGE_2M);
	assert_int_equal(pt_walk(&c, root, GIB + 5 * MIB2, &leaf), PAGE_4K);
	assert_int_equal(pt_walk(&c, root, 0x1000, &leaf), PAGE_1G);
	assert_same_translation(&c, root, 0, 2 * GIB, 0x1FF000);
	/* The firmware's own tables were never written. */
	assert_memory_equal(mem, snapshot, fw_tables * sizeof(mem[0]));
	/* Root, PDPT and PD cloned, plus one PT per 2 MiB chunk. */
	assert_int_equal(c.n_owned, 3 + 2);
}

static void map_2m_inside_a_1g_page_splits_it(void **state)
{
	(void)state;
	struct pt_ctx c;
	uint64_t root, leaf;
	char why[160];
	build_firmware(&c, 0);
	assert_true(pt_clone_root(&c, fw_root, &root));
	uint64_t va = 64 * MIB2;
	assert_true(pt_map_identity(&c, root, fw_root, va, 2 * MIB2, PAGE_2M, why, sizeof(why)));
	assert_int_equal(pt_walk(&c, root, va, &leaf), PAGE_2M);
	assert_int_equal(pt_walk(&c, root, va + MIB2 + 5, &leaf), PAGE_2M);
	/* The rest of that GiB: now 2 MiB pages, with the 1 GiB page's attributes and the same addresses. */
	assert_int_equal(pt_walk(&c, root, 0x1000, &leaf), PAGE_2M);
	assert_true(leaf & PTE_PCD);
	assert_true(leaf & PTE_XD);
	assert_int_equal(pt_walk(&c, fw_root, 0x1000, &leaf), PAGE_1G);
	assert_same_translation(&c, root, 0, 2 * GIB, 0x1FF000);

	/* A second range in the same cloned tables reuses them (no new PDPT or PD). */
	unsigned owned = c.n_owned;
	assert_true(pt_map_identity(&c, root, fw_root, GIB + 100 * MIB2, MIB2, PAGE_4K, why, sizeof(why)));
	assert_int_equal(c.n_owned, owned + 1 + 1);	/* the GiB-1 PD clone, and its PT */
	assert_int_equal(pt_walk(&c, root, GIB + 100 * MIB2 + 0x5000, &leaf), PAGE_4K);
	assert_int_equal(pt_walk(&c, root, va, &leaf), PAGE_2M);
}

/* A 1 GiB leaf for the GiB the firmware maps with 2 MiB pages (and a 4 KiB table): one PDPT entry, attributes kept. */
static void map_1g_replaces_a_gib_of_smaller_pages(void **state)
{
	(void)state;
	struct pt_ctx c;
	uint64_t root, leaf;
	char why[160];
	build_firmware(&c, 0);
	static uint64_t snapshot[POOL][PT_ENTRIES];
	memcpy(snapshot, mem, sizeof(mem));
	unsigned fw_tables = used;
	assert_true(pt_clone_root(&c, fw_root, &root));
	assert_true(pt_map_identity(&c, root, fw_root, GIB, GIB, PAGE_1G, why, sizeof(why)));
	for (uint64_t off = 0; off < GIB; off += 37 * MIB2 + 0x1234)
		assert_int_equal(pt_walk(&c, root, GIB + off, &leaf), PAGE_1G);
	pt_walk(&c, root, GIB + 5 * MIB2, &leaf);
	assert_true(leaf & PTE_PS);
	assert_true((leaf & (PTE_A | PTE_D | PTE_RW)) == (PTE_A | PTE_D | PTE_RW));
	assert_int_equal(pt_walk(&c, fw_root, GIB + 5 * MIB2, &leaf), PAGE_4K);	/* the firmware's, as it was */
	assert_same_translation(&c, root, 0, 2 * GIB, 0x1FF000);
	assert_memory_equal(mem, snapshot, fw_tables * sizeof(mem[0]));
	assert_int_equal(c.n_owned, 2);	/* the root and the PDPT clones, nothing below */
	/* 1 GiB pages want 1 GiB alignment. */
	assert_false(pt_map_identity(&c, root, fw_root, GIB + MIB2, GIB, PAGE_1G, why, sizeof(why)));
	assert_non_null(strstr(why, "aligned"));
}

static void memory_encryption_bit_travels_with_attributes(void **state)
{
	(void)state;
	struct pt_ctx c;
	uint64_t root, leaf, phys;
	char why[160];
	build_firmware(&c, 1ull << 47);
	assert_true(pt_clone_root(&c, fw_root, &root));
	assert_true(pt_map_identity(&c, root, fw_root, GIB + 20 * MIB2, MIB2, PAGE_4K, why, sizeof(why)));
	assert_int_equal(pt_walk(&c, root, GIB + 20 * MIB2, &leaf), PAGE_4K);
	assert_true(leaf & (1ull << 47));
	assert_true(pt_translate(&c, root, GIB + 20 * MIB2 + 0x10, &phys));
	assert_int_equal(phys, GIB + 20 * MIB2 + 0x10);	/* the C-bit is not part of the address */
}

static void refusals(void **state)
{
	(void)state;
	struct pt_ctx c;
	uint64_t root;
	char why[160];
	build_firmware(&c, 0);
	assert_true(pt_clone_root(&c, fw_root, &root));
	assert_false(pt_map_identity(&c, root, fw_root, GIB + 0x1000, MIB2, PAGE_4K, why, sizeof(why)));
	assert_non_null(strstr(why, "aligned"));
	assert_false(pt_map_identity(&c, root, fw_root, GIB, MIB2, 8192, why, sizeof(why)));
	assert_false(pt_map_identity(&c, root, fw_root, 2 * GIB, MIB2, PAGE_4K, why, sizeof(why)));
	assert_non_null(strstr(why, "does not map"));
	alloc_limit = used;	/* out of table pages */
	assert_false(pt_map_identity(&c, root, fw_root, GIB + 30 * MIB2, MIB2, PAGE_4K, why, sizeof(why)));
	assert_non_null(strstr(why, "out of page-table pages"));
}

static void address_mask(void **state)
{
	(void)state;
	assert_int_equal(pt_addr_mask(48, 0), 0x0000FFFFFFFFF000ull);
	assert_int_equal(pt_addr_mask(52, 0), 0x000FFFFFFFFFF000ull);
	assert_int_equal(pt_addr_mask(48, 47), 0x00007FFFFFFFF000ull);
	assert_int_equal(pt_addr_mask(0, 0), 0x000FFFFFFFFFF000ull);	/* unknown: widest */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk_reports_each_size),
		cmocka_unit_test(map_4k_inside_a_2m_region),
		cmocka_unit_test(map_2m_inside_a_1g_page_splits_it),
		cmocka_unit_test(map_1g_replaces_a_gib_of_smaller_pages),
		cmocka_unit_test(memory_encryption_bit_travels_with_attributes),
		cmocka_unit_test(refusals),
		cmocka_unit_test(address_mask),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
