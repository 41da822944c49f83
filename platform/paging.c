/* platform/paging.c - see paging.h. */
#include "platform/paging.h"
#include "lib/libc.h"

#define LEVEL_SHIFT_PML4 39
#define LEVEL_SHIFT_PDPT 30
#define LEVEL_SHIFT_PD 21
#define LEVEL_SHIFT_PT 12
#define INDEX(va, shift) (((va) >> (shift)) & (PT_ENTRIES - 1))
/* Bits a table pointer carries over from the entry it replaces. */
#define NONLEAF_KEEP (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_XD | PTE_HIGH_ATTR)

uint64_t pt_addr_mask(unsigned maxphyaddr, unsigned c_bit)
{
	if (maxphyaddr < 32 || maxphyaddr > 52)
		maxphyaddr = 52;
	uint64_t m = ((1ull << maxphyaddr) - 1) & ~(PAGE_4K - 1);
	if (c_bit >= 12 && c_bit < 52)
		m &= ~(1ull << c_bit);
	return m;
}

static uint64_t *table(const struct pt_ctx *c, uint64_t entry) { return c->ptr(c->ctx, entry & c->addr_mask); }

uint64_t pt_walk(const struct pt_ctx *c, uint64_t root, uint64_t va, uint64_t *leaf)
{
	uint64_t e = root | PTE_P;
	static const unsigned shifts[] = { LEVEL_SHIFT_PML4, LEVEL_SHIFT_PDPT, LEVEL_SHIFT_PD, LEVEL_SHIFT_PT };

	*leaf = 0;
	for (unsigned level = 0; level < 4; level++) {
		e = table(c, e)[INDEX(va, shifts[level])];
		if (!(e & PTE_P))
			return 0;
		/* PS is a page-size bit in the PDPTE and PDE only (PML4E bit 7 is reserved, PTE bit 7 is PAT). */
		if (level == 3 || ((level == 1 || level == 2) && (e & PTE_PS))) {
			*leaf = e;
			return 1ull << shifts[level];
		}
	}
	return 0;
}

bool pt_translate(const struct pt_ctx *c, uint64_t root, uint64_t va, uint64_t *phys)
{
	uint64_t leaf, size = pt_walk(c, root, va, &leaf);
	if (!size)
		return false;
	*phys = (leaf & c->addr_mask & ~(size - 1)) | (va & (size - 1));
	return true;
}

static bool owned(const struct pt_ctx *c, uint64_t phys)
{
	for (unsigned i = 0; i < c->n_owned; i++)
		if (c->owned[i] == phys)
			return true;
	return false;
}

static uint64_t new_table(struct pt_ctx *c)
{
	if (c->n_owned >= PT_MAX_OWNED)
		return 0;
	uint64_t p = c->alloc(c->ctx);
	if (p)
		c->owned[c->n_owned++] = p;
	return p;
}

bool pt_clone_root(struct pt_ctx *c, uint64_t fw_root, uint64_t *root)
{
	uint64_t p = new_table(c);
	if (!p)
		return false;
	memcpy(c->ptr(c->ctx, p), c->ptr(c->ctx, fw_root & c->addr_mask), PT_TABLE_SIZE);
	*root = p;
	return true;
}

/* Address-field bits that are not address (the AMD C-bit): they travel with the attributes. */
static uint64_t addr_extra(const struct pt_ctx *c, uint64_t e)
{
	return e & ~c->addr_mask & 0x000FFFFFFFFFF000ull & ~PTE_PAT_LARGE;
}

/* A table pointer to p, with the access rights of the entry e it replaces. */
static uint64_t nonleaf(const struct pt_ctx *c, uint64_t e, uint64_t p)
{
	return (e & NONLEAF_KEEP) | addr_extra(c, e) | PTE_A | p;
}

/* Make *slot point at a table of ours holding what it pointed at before; false when out of tables. */
static bool own_next_level(struct pt_ctx *c, uint64_t *slot, bool level_may_be_1g)
{
	uint64_t e = *slot;
	if (!(e & PTE_PS) && owned(c, e & c->addr_mask))
		return true;
	uint64_t p = new_table(c);
	if (!p)
		return false;
	uint64_t *t = c->ptr(c->ctx, p);
	if (level_may_be_1g && (e & PTE_PS)) {
		/* Split a 1 GiB page: 2 MiB leaves with the same attribute layout (PAT stays bit 12). */
		uint64_t base = e & c->addr_mask & ~(PAGE_1G - 1);
		uint64_t attr = (e & ~c->addr_mask) | (e & PTE_PAT_LARGE);
		for (unsigned i = 0; i < PT_ENTRIES; i++)
			t[i] = attr | (base + i * PAGE_2M);
		*slot = nonleaf(c, e, p);
	} else {
		memcpy(t, table(c, e), PT_TABLE_SIZE);
		*slot = (e & ~c->addr_mask) | p;
	}
	return true;
}

/* Leaf bits for our mapping of a 2 MiB chunk, from the firmware's leaf covering it. */
static uint64_t leaf_attr(const struct pt_ctx *c, uint64_t fw_leaf, uint64_t fw_size, bool want_4k)
{
	bool pat = fw_size == PAGE_4K ? (fw_leaf & PTE_PAT_4K) != 0 : (fw_leaf & PTE_PAT_LARGE) != 0;
	uint64_t a = (fw_leaf & (PTE_US | PTE_PWT | PTE_PCD | PTE_XD | PTE_HIGH_ATTR)) | addr_extra(c, fw_leaf);
	a |= PTE_P | PTE_RW | PTE_A | PTE_D;
	if (want_4k)
		return a | (pat ? PTE_PAT_4K : 0);
	return a | PTE_PS | (pat ? PTE_PAT_LARGE : 0);
}

bool pt_map_identity(struct pt_ctx *c, uint64_t root, uint64_t fw_root, uint64_t va, uint64_t size,
		     uint64_t page_size, char *why, size_t why_cap)
{
	uint64_t step = page_size == PAGE_1G ? PAGE_1G : PAGE_2M;
	if ((va | size) & (step - 1) || !size || (page_size != PAGE_4K && page_size != PAGE_2M && page_size != PAGE_1G)) {
		snprintf(why, why_cap, "range 0x%llx+0x%llx is not aligned to 0x%llx, or page size %llu is not 4 KiB, "
			 "2 MiB or 1 GiB", (unsigned long long)va, (unsigned long long)size, (unsigned long long)step,
			 (unsigned long long)page_size);
		return false;
	}
	for (uint64_t chunk = va; chunk < va + size; chunk += step) {
		uint64_t fw_leaf, fw_size = pt_walk(c, fw_root, chunk, &fw_leaf);
		if (!fw_size) {
			snprintf(why, why_cap, "the firmware does not map 0x%llx", (unsigned long long)chunk);
			return false;
		}
		uint64_t *pml4 = c->ptr(c->ctx, root & c->addr_mask);
		uint64_t *pml4e = &pml4[INDEX(chunk, LEVEL_SHIFT_PML4)];
		if (!(*pml4e & PTE_P) || !own_next_level(c, pml4e, false))
			goto out_of_tables;
		uint64_t *pdpte = &table(c, *pml4e)[INDEX(chunk, LEVEL_SHIFT_PDPT)];
		if (page_size == PAGE_1G) {
			/* A 1 GiB leaf in the PDPTE: same layout as a 2 MiB leaf (PS, PAT in bit 12; SDM Table 4-17). */
			if (!(*pdpte & PTE_P))
				goto out_of_tables;
			*pdpte = leaf_attr(c, fw_leaf, fw_size, false) | chunk;
			continue;
		}
		if (!(*pdpte & PTE_P) || !own_next_level(c, pdpte, true))
			goto out_of_tables;
		uint64_t *pde = &table(c, *pdpte)[INDEX(chunk, LEVEL_SHIFT_PD)];
		if (page_size == PAGE_2M) {
			*pde = leaf_attr(c, fw_leaf, fw_size, false) | chunk;
			continue;
		}
		uint64_t pt = new_table(c);
		if (!pt)
			goto out_of_tables;
		uint64_t *t = c->ptr(c->ctx, pt);
		uint64_t attr = leaf_attr(c, fw_leaf, fw_size, true);
		for (unsigned i = 0; i < PT_ENTRIES; i++)
			t[i] = attr | (chunk + i * PAGE_4K);
		*pde = nonleaf(c, attr, pt);
	}
	return true;
out_of_tables:
	snprintf(why, why_cap, "out of page-table pages (%u used) or an unmapped level", c->n_owned);
	return false;
}
