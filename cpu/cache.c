/*
 * cpu/cache.c - cache and TLB geometry from CPUID; see cache.h.
 *
 * Sources:
 *   [SDM2] Intel SDM Vol. 2A, CPUID: leaf 02H (Table 3-12, cpu/cache_desc.c),
 *          leaf 04H "Deterministic Cache Parameters", leaf 18H "Deterministic
 *          Address Translation Parameters", 80000001H:EDX[26] Page1GB.
 *   [APM3] AMD APM Vol. 3, Appendix E: E.4.4 Fn8000_0005 (L1 cache and TLB),
 *          E.4.5 Fn8000_0006 (L2/L3 cache and L2 TLB, associativity encoding
 *          Table E-4), E.4.14 Fn8000_0019 (1 GiB TLBs), E.4.17 Fn8000_001D
 *          (cache topology, leaf 04H's layout), Fn8000_0001_ECX[22] TopoExt.
 */
#include "cpu/cache.h"
#include "cpu/cache_desc.h"
#include "cpu/topo.h"
#include "platform/hw.h"
#include "lib/x86/cpuid.h"

/* Leaf 04H and Fn8000_001D [SDM2 leaf 04H; APM3 E.4.17]; "plus one" fields hold the value - 1. */
#define C4_TYPE(eax) ((eax) & 0x1fu)			/* EAX[4:0] */
#define C4_LEVEL(eax) (((eax) >> 5) & 0x7u)		/* EAX[7:5] */
#define C4_FULLY_ASSOC (1u << 9)			/* EAX[9] */
#define C4_SHARING(eax) ((((eax) >> 14) & 0xfffu) + 1)	/* EAX[25:14] + 1: IDs sharing this cache */
#define C4_LINE(ebx) (((ebx) & 0xfffu) + 1)		/* EBX[11:0] + 1 */
#define C4_PARTITIONS(ebx) ((((ebx) >> 12) & 0x3ffu) + 1) /* EBX[21:12] + 1 */
#define C4_WAYS(ebx) ((((ebx) >> 22) & 0x3ffu) + 1)	/* EBX[31:22] + 1 */
#define C4_SETS(ecx) ((uint64_t)(ecx) + 1)		/* ECX + 1 */
#define C4_INCLUSIVE (1u << 1)				/* EDX[1] */

/* Leaf 18H [SDM2 leaf 18H]: subleaf 0 EAX = the highest subleaf. */
#define T18_PAGES(ebx) ((uint8_t)((ebx) & 0xfu))	/* EBX[3:0]: 4K, 2M, 4M, 1G */
#define T18_WAYS(ebx) ((ebx) >> 16)			/* EBX[31:16] */
#define T18_TYPE(edx) ((edx) & 0x1fu)			/* EDX[4:0]: 0 invalid (keep scanning) */
#define T18_LEVEL(edx) (((edx) >> 5) & 0x7u)		/* EDX[7:5] */
#define T18_FULLY_ASSOC (1u << 8)			/* EDX[8] */
#define T18_SHARING(edx) ((((edx) >> 14) & 0xfffu) + 1)	/* EDX[25:14] + 1 */
#define T18_TYPE_MAX TLB_STORE

/* Leaf 02H [SDM2]: AL is a count to ignore; a register with bit 31 set holds no descriptors. */
#define D2_REG_INVALID (1u << 31)

/* Fn8000_0005 [APM3 E.4.4]: L1 associativity is a plain count; 1 direct mapped, FFh fully associative. */
#define A5_L1_FULL 0xffu
#define A5_SIZE_KIB(r) ((r) >> 24)			/* ECX/EDX[31:24] L1D/L1I size, KiB */
#define A5_ASSOC(r) (((r) >> 16) & 0xffu)		/* ECX/EDX[23:16] */
#define A5_LINE(r) ((r) & 0xffu)			/* ECX/EDX[7:0] */
#define A5_DTLB_ASSOC(r) ((r) >> 24)			/* EAX/EBX[31:24] */
#define A5_DTLB_ENTRIES(r) (((r) >> 16) & 0xffu)	/* EAX/EBX[23:16] */
#define A5_ITLB_ASSOC(r) (((r) >> 8) & 0xffu)		/* EAX/EBX[15:8] */
#define A5_ITLB_ENTRIES(r) ((r) & 0xffu)		/* EAX/EBX[7:0] */

/* Fn8000_0006 and Fn8000_0019 [APM3 E.4.5, E.4.14]: 4-bit associativity codes (Table E-4). */
#define A6_L2_SIZE_KIB(ecx) ((ecx) >> 16)		/* ECX[31:16] */
#define A6_L3_SIZE_512K(edx) ((edx) >> 18)		/* EDX[31:18], in 512 KiB units */
#define A6_L3_UNIT_KIB 512u
#define A6_ASSOC(r) (((r) >> 12) & 0xfu)		/* ECX/EDX[15:12] */
#define A6_LINE(r) ((r) & 0xffu)			/* ECX/EDX[7:0] */
#define A6_DTLB_ASSOC(r) ((r) >> 28)			/* EAX/EBX[31:28] */
#define A6_DTLB_ENTRIES(r) (((r) >> 16) & 0xfffu)	/* EAX/EBX[27:16] */
#define A6_ITLB_ASSOC(r) (((r) >> 12) & 0xfu)		/* EAX/EBX[15:12] */
#define A6_ITLB_ENTRIES(r) ((r) & 0xfffu)		/* EAX/EBX[11:0] */
#define A6_ASSOC_OFF 0x0u				/* the structure is absent or disabled */
#define A6_ASSOC_SEE_001D 0x9u				/* the geometry is in Fn8000_001D */
#define A6_ASSOC_FULL 0xfu
#define ASSOC_RESERVED 0xffffffffu

/* Table E-4: code -> ways (0: off, or fully associative for code Fh; ASSOC_RESERVED for 7 and 9). */
static uint32_t amd_assoc_ways(unsigned code)
{
	static const uint32_t ways[16] = { 0, 1, 2, 3, 4, 6, 8, ASSOC_RESERVED, 16, ASSOC_RESERVED, 32, 48, 64, 96, 128, 0 };
	return ways[code & 0xfu];
}

const char *cache_type_name(enum cache_type t)
{
	static const char *const n[] = { NULL, "data", "instruction", "unified" };
	return (unsigned)t < ARRAY_SIZE(n) ? n[t] : NULL;
}

const char *tlb_type_name(enum tlb_type t)
{
	static const char *const n[] = { NULL, "data", "instruction", "unified", "load", "store" };
	return (unsigned)t < ARRAY_SIZE(n) ? n[t] : NULL;
}

static void note(struct cache_info *c, const char *text)
{
	size_t k = strlen(c->notes);
	snprintf(c->notes + k, sizeof(c->notes) - k, "%s%s", k ? "; " : "", text);
}

static struct cache_level *add_level(struct cache_info *c)
{
	if (c->n == CACHE_MAX_LEVELS)
		return NULL;
	struct cache_level *l = &c->lv[c->n++];
	memset(l, 0, sizeof(*l));
	l->inclusive = -1;
	return l;
}

static void add_tlb(struct cache_info *c, unsigned level, enum tlb_type type, uint8_t pages, uint32_t entries,
		    uint32_t ways, bool full, uint32_t shared_by)
{
	if (!entries || c->ntlb == CACHE_MAX_TLBS)
		return;
	c->tlb[c->ntlb++] = (struct cache_tlb){ (uint8_t)level, type, pages, entries, full ? 0 : ways, full, shared_by };
}

/* Leaf 04H or Fn8000_001D: one subleaf per cache until type 0. */
static bool deterministic(struct cache_info *c, uint32_t leaf)
{
	for (uint32_t sub = 0; sub < CACHE_MAX_SUBLEAVES; sub++) {
		struct cpuid_regs r;
		hw_cpuid(leaf, sub, &r);
		unsigned type = C4_TYPE(r.eax);
		if (type == CACHE_NONE)
			break;
		if (type > CACHE_UNIFIED)
			continue;	/* reserved */
		struct cache_level *l = add_level(c);
		if (!l)
			break;
		l->level = (uint8_t)C4_LEVEL(r.eax);
		l->type = (enum cache_type)type;
		l->line = C4_LINE(r.ebx);
		l->partitions = C4_PARTITIONS(r.ebx);
		l->ways = C4_WAYS(r.ebx);
		l->sets = (uint32_t)C4_SETS(r.ecx);
		l->size = (uint64_t)l->ways * l->partitions * l->line * C4_SETS(r.ecx);
		l->shared_by = C4_SHARING(r.eax);
		l->fully_associative = (r.eax & C4_FULLY_ASSOC) != 0;
		l->inclusive = (r.edx & C4_INCLUSIVE) ? 1 : 0;
	}
	return c->n > 0;
}

/* A cache from leaf 02H or Fn8000_0005/6: sets from size, ways and line (partitions 1). */
static void add_sized(struct cache_info *c, unsigned level, enum cache_type type, uint64_t kib, uint32_t ways,
		      bool full, uint32_t line)
{
	struct cache_level *l;
	if (!kib || !line || !(l = add_level(c)))
		return;
	l->level = (uint8_t)level;
	l->type = type;
	l->size = kib * 1024;
	l->line = line;
	l->partitions = 1;
	l->fully_associative = full;
	l->ways = full ? (uint32_t)(l->size / line) : ways;
	l->sets = l->ways ? (uint32_t)(l->size / ((uint64_t)l->ways * line)) : 0;
}

/* Intel leaf 02H; *caches_in_04h / *tlbs_in_18h say what it sent elsewhere. */
static void leaf_02h(struct cache_info *c, const struct cpu_info *ci, bool want_caches, bool want_tlbs,
		     bool *caches_in_04h, bool *tlbs_in_18h)
{
	struct cpuid_regs r;
	bool no_l2_or_l3 = false;

	hw_cpuid(CPUID_LEAF_CACHE_DESC, 0, &r);
	uint32_t regs[4] = { r.eax & ~0xffu, r.ebx, r.ecx, r.edx };	/* AL is a count, not a descriptor */
	for (unsigned k = 0; k < 4; k++) {
		if (regs[k] & D2_REG_INVALID)
			continue;
		for (unsigned b = 0; b < 4; b++) {
			uint8_t code = (uint8_t)(regs[k] >> (8 * b));
			size_t n;
			const struct cache_desc *d = code ? cache_desc_find(code, &n) : NULL;
			if (!code)
				continue;
			if (!d) {
				char t[40];
				snprintf(t, sizeof(t), "leaf 02H descriptor %02XH unknown", code);
				note(c, t);
				continue;
			}
			for (size_t i = 0; i < n; i++, d++) {
				if (d->kind == DESC_USE_LEAF_04H)
					*caches_in_04h = true;
				else if (d->kind == DESC_USE_LEAF_18H)
					*tlbs_in_18h = true;
				else if (d->kind == DESC_NO_L2_OR_L3)
					no_l2_or_l3 = true;
				else if (d->kind == DESC_TLB && want_tlbs)
					add_tlb(c, d->level, (enum tlb_type)d->type, d->line, d->size,
						d->ways == DESC_WAYS_NOT_GIVEN ? 0 : d->ways, d->ways == 0, 0);
				else if (d->kind == DESC_CACHE && want_caches) {
					bool l3 = code == DESC_49H && ci->family == DESC_49H_L3_FAMILY &&
						  ci->model == DESC_49H_L3_MODEL;
					add_sized(c, l3 ? 3 : d->level, (enum cache_type)d->type, d->size, d->ways, false,
						  d->line);
				}
			}
		}
	}
	(void)no_l2_or_l3;	/* 40H only says what is absent, which the other descriptors already show */
}

/* Intel leaf 18H: one subleaf per TLB structure; type 0 subleaves may sit between valid ones. */
static bool leaf_18h(struct cache_info *c)
{
	struct cpuid_regs r;
	size_t before = c->ntlb;

	hw_cpuid(CPUID_LEAF_TLB_PARAMS, 0, &r);
	uint32_t max = r.eax < CACHE_MAX_TLB_SUBLEAVES ? r.eax : CACHE_MAX_TLB_SUBLEAVES - 1;
	for (uint32_t sub = 0; sub <= max; sub++) {
		if (sub)
			hw_cpuid(CPUID_LEAF_TLB_PARAMS, sub, &r);
		unsigned type = T18_TYPE(r.edx);
		if (type == TLB_NONE || type > T18_TYPE_MAX)
			continue;
		add_tlb(c, T18_LEVEL(r.edx), (enum tlb_type)type, T18_PAGES(r.ebx), T18_WAYS(r.ebx) * r.ecx,
			T18_WAYS(r.ebx), (r.edx & T18_FULLY_ASSOC) != 0, T18_SHARING(r.edx));
	}
	return c->ntlb > before;
}

static void intel(struct cache_info *c, const struct cpu_info *ci)
{
	bool in_04h = false, in_18h = false;
	bool has_04h = ci->max_leaf >= CPUID_LEAF_CACHE_PARAMS && deterministic(c, CPUID_LEAF_CACHE_PARAMS);
	bool has_18h = ci->max_leaf >= CPUID_LEAF_TLB_PARAMS && leaf_18h(c);

	if (has_04h)
		c->caches_from = "cpuid_04h";
	if (has_18h)
		c->tlbs_from = "cpuid_18h";
	if (ci->max_leaf >= CPUID_LEAF_CACHE_DESC && (!has_04h || !has_18h)) {
		size_t n0 = c->n, t0 = c->ntlb;
		leaf_02h(c, ci, !has_04h, !has_18h, &in_04h, &in_18h);
		if (c->n > n0)
			c->caches_from = "cpuid_02h";
		if (c->ntlb > t0)
			c->tlbs_from = "cpuid_02h";
	}
	if (!c->n)
		c->why = in_04h ? "leaf 02H points to leaf 04H, which lists no cache"
		       : ci->max_leaf < CPUID_LEAF_CACHE_DESC ? "CPUID has neither leaf 02H nor leaf 04H"
							      : "neither leaf 04H nor leaf 02H describes a cache";
	if (!c->ntlb && in_18h)
		note(c, "leaf 02H points to leaf 18H, which lists no TLB");
}

/* Fn8000_0005 / Fn8000_0006 caches (AMD parts without Fn8000_001D). */
static void amd_caches_legacy(struct cache_info *c, const struct cpu_info *ci)
{
	struct cpuid_regs r;
	hw_cpuid(CPUID_LEAF_AMD_L1_CACHE_TLB, 0, &r);
	add_sized(c, 1, CACHE_DATA, A5_SIZE_KIB(r.ecx), A5_ASSOC(r.ecx), A5_ASSOC(r.ecx) == A5_L1_FULL, A5_LINE(r.ecx));
	add_sized(c, 1, CACHE_INSTRUCTION, A5_SIZE_KIB(r.edx), A5_ASSOC(r.edx), A5_ASSOC(r.edx) == A5_L1_FULL,
		  A5_LINE(r.edx));
	if (ci->max_ext_leaf < CPUID_LEAF_AMD_L2_L3_CACHE_TLB)
		return;
	hw_cpuid(CPUID_LEAF_AMD_L2_L3_CACHE_TLB, 0, &r);
	uint32_t regs[2] = { r.ecx, r.edx };
	for (unsigned k = 0; k < 2; k++) {
		unsigned code = A6_ASSOC(regs[k]);
		uint64_t kib = k == 0 ? A6_L2_SIZE_KIB(regs[k]) : (uint64_t)A6_L3_SIZE_512K(regs[k]) * A6_L3_UNIT_KIB;
		uint32_t ways = amd_assoc_ways(code);
		if (code == A6_ASSOC_OFF || !kib)
			continue;
		if (ways == ASSOC_RESERVED) {
			note(c, k ? "Fn8000_0006 L3 associativity code reserved: L3 left out"
				  : "Fn8000_0006 L2 associativity code reserved: L2 left out");
			continue;
		}
		add_sized(c, 2 + k, CACHE_UNIFIED, kib, ways, code == A6_ASSOC_FULL, A6_LINE(regs[k]));
	}
}

/* A TLB from Fn8000_0006 / Fn8000_0019's layout (4-bit associativity code). */
static void amd_tlb_coded(struct cache_info *c, unsigned level, enum tlb_type type, uint8_t pages, unsigned code,
			  uint32_t entries)
{
	uint32_t ways = amd_assoc_ways(code);
	if (code == A6_ASSOC_OFF || ways == ASSOC_RESERVED)
		return;
	add_tlb(c, level, type, pages, entries, ways, code == A6_ASSOC_FULL, 0);
}

/* A TLB from Fn8000_0005's layout (plain associativity count, FFh fully associative). */
static void amd_tlb_l1(struct cache_info *c, enum tlb_type type, uint8_t pages, unsigned assoc, uint32_t entries)
{
	if (assoc)
		add_tlb(c, 1, type, pages, entries, assoc, assoc == A5_L1_FULL, 0);
}

static void amd_tlbs(struct cache_info *c, const struct cpu_info *ci)
{
	struct cpuid_regs r;
	const uint8_t large = TLB_PAGE_2M | TLB_PAGE_4M;
	hw_cpuid(CPUID_LEAF_AMD_L1_CACHE_TLB, 0, &r);
	amd_tlb_l1(c, TLB_DATA, TLB_PAGE_4K, A5_DTLB_ASSOC(r.ebx), A5_DTLB_ENTRIES(r.ebx));
	amd_tlb_l1(c, TLB_INSTRUCTION, TLB_PAGE_4K, A5_ITLB_ASSOC(r.ebx), A5_ITLB_ENTRIES(r.ebx));
	amd_tlb_l1(c, TLB_DATA, large, A5_DTLB_ASSOC(r.eax), A5_DTLB_ENTRIES(r.eax));
	amd_tlb_l1(c, TLB_INSTRUCTION, large, A5_ITLB_ASSOC(r.eax), A5_ITLB_ENTRIES(r.eax));
	if (ci->max_ext_leaf >= CPUID_LEAF_AMD_L2_L3_CACHE_TLB) {
		hw_cpuid(CPUID_LEAF_AMD_L2_L3_CACHE_TLB, 0, &r);
		amd_tlb_coded(c, 2, TLB_DATA, TLB_PAGE_4K, A6_DTLB_ASSOC(r.ebx), A6_DTLB_ENTRIES(r.ebx));
		amd_tlb_coded(c, 2, TLB_INSTRUCTION, TLB_PAGE_4K, A6_ITLB_ASSOC(r.ebx), A6_ITLB_ENTRIES(r.ebx));
		amd_tlb_coded(c, 2, TLB_DATA, large, A6_DTLB_ASSOC(r.eax), A6_DTLB_ENTRIES(r.eax));
		amd_tlb_coded(c, 2, TLB_INSTRUCTION, large, A6_ITLB_ASSOC(r.eax), A6_ITLB_ENTRIES(r.eax));
	}
	if (ci->max_ext_leaf >= CPUID_LEAF_AMD_TLB_1G) {
		hw_cpuid(CPUID_LEAF_AMD_TLB_1G, 0, &r);
		uint32_t regs[2] = { r.eax, r.ebx };
		for (unsigned k = 0; k < 2; k++) {
			amd_tlb_coded(c, 1 + k, TLB_DATA, TLB_PAGE_1G, A6_DTLB_ASSOC(regs[k]), A6_DTLB_ENTRIES(regs[k]));
			amd_tlb_coded(c, 1 + k, TLB_INSTRUCTION, TLB_PAGE_1G, A6_ITLB_ASSOC(regs[k]),
				      A6_ITLB_ENTRIES(regs[k]));
		}
	}
}

static void amd(struct cache_info *c, const struct cpu_info *ci)
{
	struct cpuid_regs r;
	bool topoext = false;

	if (ci->max_ext_leaf < CPUID_LEAF_AMD_L1_CACHE_TLB) {
		c->why = "CPUID has no Fn8000_0005";
		return;
	}
	hw_cpuid(CPUID_LEAF_AMD_FEATURES, 0, &r);
	topoext = (r.ecx & CPUID_AMD1_ECX_TOPOEXT) != 0;
	if (topoext && ci->max_ext_leaf >= CPUID_LEAF_AMD_CACHE_TOPOLOGY && deterministic(c, CPUID_LEAF_AMD_CACHE_TOPOLOGY))
		c->caches_from = "cpuid_8000001dh";
	else {
		amd_caches_legacy(c, ci);
		if (c->n)
			c->caches_from = "cpuid_80000005h_6h";
		else
			c->why = "Fn8000_0005 and Fn8000_0006 describe no cache";
	}
	size_t t0 = c->ntlb;
	amd_tlbs(c, ci);
	if (c->ntlb > t0)
		c->tlbs_from = "cpuid_80000005h_6h_19h";
}

/* Levels and TLBs by level, then type (leaf 02H lists its descriptors in any order). */
static void sort_by_level(struct cache_info *c)
{
	for (size_t i = 1; i < c->n; i++)
		for (size_t j = i; j > 0 && (c->lv[j].level < c->lv[j - 1].level ||
					     (c->lv[j].level == c->lv[j - 1].level && c->lv[j].type < c->lv[j - 1].type)); j--) {
			struct cache_level t = c->lv[j];
			c->lv[j] = c->lv[j - 1];
			c->lv[j - 1] = t;
		}
	for (size_t i = 1; i < c->ntlb; i++)
		for (size_t j = i; j > 0 && (c->tlb[j].level < c->tlb[j - 1].level ||
					     (c->tlb[j].level == c->tlb[j - 1].level && c->tlb[j].type < c->tlb[j - 1].type)); j--) {
			struct cache_tlb t = c->tlb[j];
			c->tlb[j] = c->tlb[j - 1];
			c->tlb[j - 1] = t;
		}
}

void cache_identify(const struct cpu_info *ci, struct cache_info *out)
{
	struct topo_cpu self;
	struct cpuid_regs r;

	memset(out, 0, sizeof(*out));
	memset(&self, 0, sizeof(self));
	topo_probe(&self);
	out->apic_id = self.cpuid_apic_id;
	if (ci->max_ext_leaf >= CPUID_LEAF_AMD_FEATURES) {
		hw_cpuid(CPUID_LEAF_AMD_FEATURES, 0, &r);
		out->page_1g = (r.edx & CPUID_EXT1_EDX_PAGE1GB) != 0;
	}
	if (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON)
		amd(out, ci);
	else
		intel(out, ci);	/* Intel, and a vendor we do not know: the architectural leaves first */
	if (!out->n && !out->why)
		out->why = "CPUID describes no cache";
	sort_by_level(out);
}

const struct cache_level *cache_data_level(const struct cache_info *c, unsigned level)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->lv[i].level == level && (c->lv[i].type == CACHE_DATA || c->lv[i].type == CACHE_UNIFIED))
			return &c->lv[i];
	return NULL;
}

const struct cache_level *cache_last_level(const struct cache_info *c)
{
	const struct cache_level *best = NULL;
	for (size_t i = 0; i < c->n; i++)
		if ((c->lv[i].type == CACHE_DATA || c->lv[i].type == CACHE_UNIFIED) && (!best || c->lv[i].level > best->level))
			best = &c->lv[i];
	return best;
}

uint32_t cache_dtlb_entries(const struct cache_info *c, unsigned level, uint8_t page)
{
	uint32_t most = 0;
	for (size_t i = 0; i < c->ntlb; i++) {
		const struct cache_tlb *t = &c->tlb[i];
		bool data = t->type == TLB_DATA || t->type == TLB_LOAD || t->type == TLB_UNIFIED;
		/* Two arrays of one level holding the same page size (Golden Cove's STLB): the larger, not the sum,
		 * since whether one page size may use both is not documented. */
		if (t->level == level && data && (t->pages & page) && t->entries > most)
			most = t->entries;
	}
	return most;
}
