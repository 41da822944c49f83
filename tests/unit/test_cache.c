/*
 * Cache and TLB geometry (cpu/cache.c) over the real CPUID dumps of
 * tests/fixtures/cpuid-real/.
 *
 * Every CPU block of every dump that has leaf 04H (Intel) or Fn8000_001D
 * (AMD, TopologyExtensions set) is decoded here a second time, by hand from
 * the dump's own register lines (size = ways x partitions x line x sets, the
 * SDM's and the APM's rule), and cache_identify must give the same levels in
 * the same order.  Leaf 02H descriptors, leaf 18H and the AMD L1/L2/1G TLB
 * leaves are checked against what the SDM's Table 3-12 and the APM's
 * Fn8000_0005/6/19 layouts say for known dumps (values worked out by hand
 * from the register lines quoted in each case).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cache.h"
#include "cpu/cpu.h"
#include "lib/out.h"
#include "tests/unit/identify_dump_load.h"
#include "tests/unit/record_asserts.h"

#define FIXTURE_DIR "tests/fixtures/cpuid-real"

static void load(const char *file, struct loaded_dump *ld)
{
	char path[512], err[800];
	snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, file);
	if (!dump_load(path, ld, err, sizeof(err)))
		fail_msg("%s", err);
}

/* The dump's own answer for block b (false: the dump has no line for it). */
static bool raw(const struct loaded_dump *ld, size_t b, uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	return cpuid_dump_query(&ld->d, b, leaf, sub, r);
}

/* A level decoded by hand from one leaf-04H-layout subleaf. */
struct hand {
	unsigned level, type, ways, parts, line, sets, share;
	uint64_t size;
};

static struct hand by_hand(const struct cpuid_regs *r)
{
	struct hand h;
	h.type = r->eax & 31;
	h.level = (r->eax >> 5) & 7;
	h.share = ((r->eax >> 14) & 4095) + 1;
	h.line = (r->ebx & 4095) + 1;
	h.parts = ((r->ebx >> 12) & 1023) + 1;
	h.ways = (r->ebx >> 22) + 1;
	h.sets = r->ecx + 1;
	h.size = (uint64_t)h.ways * h.parts * h.line * h.sets;
	return h;
}

static void identify_block(const struct loaded_dump *ld, size_t b, struct cpu_info *ci, struct cache_info *c)
{
	dump_to_fake(ld, b);
	cpu_identify(ci);
	cache_identify(ci, c);
}

/* Leaf 04H / Fn8000_001D as cache_identify decodes it, against the hand decoding, for one block. */
static unsigned check_deterministic(const char *file, const struct loaded_dump *ld, size_t b)
{
	struct cpu_info ci;
	struct cache_info c;
	struct cpuid_regs r;
	identify_block(ld, b, &ci, &c);
	bool amd = ci.vendor == VENDOR_AMD || ci.vendor == VENDOR_HYGON;
	uint32_t leaf = amd ? 0x8000001D : 4;
	if (amd) {
		struct cpuid_regs f;
		if (!raw(ld, b, 0x80000001, 0, &f) || !(f.ecx & (1u << 22)))
			return 0;	/* no TopologyExtensions: Fn8000_001D is not valid */
	}
	if (!raw(ld, b, leaf, 0, &r) || (r.eax & 31) == 0)
		return 0;
	assert_string_equal(c.caches_from, amd ? "cpuid_8000001dh" : "cpuid_04h");
	size_t k = 0;
	for (uint32_t sub = 0; raw(ld, b, leaf, sub, &r) && (r.eax & 31); sub++, k++) {
		struct hand h = by_hand(&r);
		if (k >= c.n)
			fail_msg("%s block %zu: subleaf %u missing from the geometry", file, b, sub);
		const struct cache_level *l = &c.lv[k];
		if (l->level != h.level || (unsigned)l->type != h.type || l->size != h.size || l->ways != h.ways ||
		    l->partitions != h.parts || l->line != h.line || l->sets != h.sets || l->shared_by != h.share)
			fail_msg("%s block %zu subleaf %u: L%u type %u %llu B %u-way x %u x %u B x %u sets, shared %u; "
				 "by hand L%u type %u %llu B %u-way x %u x %u B x %u sets, shared %u",
				 file, b, sub, l->level, l->type, (unsigned long long)l->size, l->ways, l->partitions,
				 l->line, l->sets, l->shared_by, h.level, h.type, (unsigned long long)h.size, h.ways,
				 h.parts, h.line, h.sets, h.share);
		/* The rule itself, spelled once more: the size is the product of the four fields. */
		assert_true(l->size == (uint64_t)l->ways * l->partitions * l->line * l->sets);
	}
	assert_int_equal(c.n, k);
	return (unsigned)k;
}

static void every_dump_deterministic_leaf(void **state)
{
	(void)state;
	DIR *dir = opendir(FIXTURE_DIR);
	unsigned files = 0, with_leaf = 0, levels = 0;
	if (!dir)
		fail_msg("%s: cannot open (run from the repository root)", FIXTURE_DIR);
	for (struct dirent *de; (de = readdir(dir));) {
		size_t n = strlen(de->d_name);
		if (n < 4 || strcmp(de->d_name + n - 4, ".txt"))
			continue;
		struct loaded_dump ld;
		load(de->d_name, &ld);
		unsigned here = 0;
		for (size_t b = 0; b < ld.d.ncpus; b++)
			here += check_deterministic(de->d_name, &ld, b);
		with_leaf += here > 0;
		levels += here;
		files++;
		dump_free(&ld);
	}
	closedir(dir);
	/* 45 dumps; leaf 04H from Merom on, Fn8000_001D from Bulldozer on (less Bristol Ridge, which clears TopoExt). */
	assert_true(files >= 45);
	assert_true(with_leaf >= 35);
	assert_true(levels > 1000);	/* every block of every dump, not just the first */
}

static const struct cache_level *level_of(const struct cache_info *c, unsigned level, enum cache_type t)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->lv[i].level == level && c->lv[i].type == t)
			return &c->lv[i];
	return NULL;
}

static void expect_cache(const struct cache_info *c, unsigned level, enum cache_type t, uint64_t kib, unsigned ways,
			 unsigned line)
{
	const struct cache_level *l = level_of(c, level, t);
	if (!l)
		fail_msg("no L%u %s", level, cache_type_name(t));
	if (l->size != kib * 1024 || l->ways != ways || l->line != line ||
	    (uint64_t)l->sets * l->ways * l->line != l->size)
		fail_msg("L%u %s: %llu B %u-way %u B lines %u sets, expected %llu KiB %u-way %u B", level,
			 cache_type_name(t), (unsigned long long)l->size, l->ways, l->line, l->sets,
			 (unsigned long long)kib, ways, line);
}

/* A TLB with exactly these fields must be listed (ways 0: fully associative). */
static void expect_tlb(const struct cache_info *c, unsigned level, enum tlb_type t, uint8_t pages, uint32_t entries,
		       uint32_t ways)
{
	for (size_t i = 0; i < c->ntlb; i++) {
		const struct cache_tlb *x = &c->tlb[i];
		if (x->level == level && x->type == t && x->pages == pages && x->entries == entries &&
		    x->ways == ways && x->fully_associative == (ways == 0))
			return;
	}
	fail_msg("no L%u %s TLB pages 0x%x, %u entries, %u-way among %zu", level, tlb_type_name(t), pages, entries, ways,
		 c->ntlb);
}

static void one(const char *file, struct cache_info *c)
{
	struct loaded_dump ld;
	struct cpu_info ci;
	load(file, &ld);
	identify_block(&ld, 0, &ci, c);
	dump_free(&ld);
}

/* P6 leaf 02H = 03020101 00000000 00000000 06040A42: 01 02 03 | 06 04 0A 42 (SDM Table 3-12). */
static void leaf_02h_pentium_pro(void **state)
{
	(void)state;
	struct cache_info c;
	one("GenuineIntel0000617_P6_CPUID.txt", &c);
	assert_string_equal(c.caches_from, "cpuid_02h");
	assert_string_equal(c.tlbs_from, "cpuid_02h");
	assert_int_equal(c.n, 3);
	expect_cache(&c, 1, CACHE_INSTRUCTION, 8, 4, 32);	/* 06H */
	expect_cache(&c, 1, CACHE_DATA, 8, 2, 32);		/* 0AH */
	expect_cache(&c, 2, CACHE_UNIFIED, 256, 4, 32);		/* 42H */
	assert_int_equal(c.ntlb, 4);
	expect_tlb(&c, 1, TLB_INSTRUCTION, TLB_PAGE_4K, 32, 4);	/* 01H */
	expect_tlb(&c, 1, TLB_INSTRUCTION, TLB_PAGE_4M, 2, 0);	/* 02H */
	expect_tlb(&c, 1, TLB_DATA, TLB_PAGE_4K, 64, 4);	/* 03H */
	expect_tlb(&c, 1, TLB_DATA, TLB_PAGE_4M, 8, 4);		/* 04H */
	/* Sorted by level: L1 first whatever the descriptor order. */
	assert_int_equal(c.lv[0].level, 1);
	assert_int_equal(c.lv[2].level, 2);
	assert_int_equal(cache_data_level(&c, 1)->size, 8192);
	assert_int_equal(cache_last_level(&c)->level, 2);
}

/* Dothan leaf 02H = 02B3B001 000000F0 00000000 2C04307D: B3 B0 02 | F0 | 2C 04 30 7D. */
static void leaf_02h_dothan(void **state)
{
	(void)state;
	struct cache_info c;
	one("GenuineIntel00006D8_PM_Dothan_CPUID.txt", &c);
	assert_string_equal(c.caches_from, "cpuid_02h");
	assert_int_equal(c.n, 3);
	expect_cache(&c, 1, CACHE_DATA, 32, 8, 64);		/* 2CH */
	expect_cache(&c, 1, CACHE_INSTRUCTION, 32, 8, 64);	/* 30H */
	expect_cache(&c, 2, CACHE_UNIFIED, 2048, 8, 64);	/* 7DH */
	expect_tlb(&c, 1, TLB_DATA, TLB_PAGE_4K, 128, 4);	/* B3H */
	expect_tlb(&c, 1, TLB_INSTRUCTION, TLB_PAGE_4K, 128, 4);	/* B0H */
	assert_int_equal(c.ntlb, 4);
}

/* Skylake: caches from leaf 04H (02H says FFH), TLBs from leaf 02H = 76036301 00F0B6FF 00000000 00C30000. */
static void leaf_02h_tlbs_skylake(void **state)
{
	(void)state;
	struct cache_info c;
	one("GenuineIntel00506E3_Skylake_CPUID.txt", &c);
	assert_string_equal(c.caches_from, "cpuid_04h");
	assert_string_equal(c.tlbs_from, "cpuid_02h");
	expect_tlb(&c, 1, TLB_DATA, TLB_PAGE_4K, 64, 4);			/* 03H */
	expect_tlb(&c, 1, TLB_DATA, TLB_PAGE_2M | TLB_PAGE_4M, 32, 4);		/* 63H, first array */
	expect_tlb(&c, 1, TLB_DATA, TLB_PAGE_1G, 4, 4);				/* 63H, second array */
	expect_tlb(&c, 1, TLB_INSTRUCTION, TLB_PAGE_2M | TLB_PAGE_4M, 8, 0);	/* 76H */
	expect_tlb(&c, 1, TLB_INSTRUCTION, TLB_PAGE_4K, 128, 8);		/* B6H */
	expect_tlb(&c, 2, TLB_UNIFIED, TLB_PAGE_4K | TLB_PAGE_2M, 1536, 6);	/* C3H */
	expect_tlb(&c, 2, TLB_UNIFIED, TLB_PAGE_1G, 16, 4);			/* C3H, 1G part */
	assert_int_equal(c.ntlb, 7);
	assert_int_equal(cache_dtlb_entries(&c, 1, TLB_PAGE_4K), 64);
	assert_int_equal(cache_dtlb_entries(&c, 2, TLB_PAGE_4K), 1536);
	expect_cache(&c, 3, CACHE_UNIFIED, 6144, 12, 64);
}

/*
 * Sapphire Rapids leaf 18H (subleaf: EBX ECX EDX):
 *   1: 00080001 00000020 00004022  instruction, L1, 4K, 8 x 32
 *   2: 00080006 00000004 00004022  instruction, L1, 2M/4M, 8 x 4
 *   3: 0010000F 00000001 00004125  store, L1, all sizes, fully associative, 16 x 1
 *   4: 00040001 00000010 00004024  load, L1, 4K, 4 x 16
 *   5: 00040006 00000008 00004024  load, L1, 2M/4M, 4 x 8
 *   6: 00080008 00000001 00004124  load, L1, 1G, fully associative, 8 x 1
 *   7: 00080007 00000080 00004043  unified, L2, 4K/2M/4M, 8 x 128
 *   8: 00080009 00000080 00004043  unified, L2, 4K/1G, 8 x 128
 */
static void leaf_18h_sapphire_rapids(void **state)
{
	(void)state;
	struct cache_info c;
	one("GenuineIntel00806F8_SapphireRapids_05_CPUID.txt", &c);
	assert_string_equal(c.tlbs_from, "cpuid_18h");
	assert_int_equal(c.ntlb, 8);
	expect_tlb(&c, 1, TLB_INSTRUCTION, TLB_PAGE_4K, 256, 8);
	expect_tlb(&c, 1, TLB_INSTRUCTION, TLB_PAGE_2M | TLB_PAGE_4M, 32, 8);
	expect_tlb(&c, 1, TLB_STORE, TLB_PAGE_4K | TLB_PAGE_2M | TLB_PAGE_4M | TLB_PAGE_1G, 16, 0);
	expect_tlb(&c, 1, TLB_LOAD, TLB_PAGE_4K, 64, 4);
	expect_tlb(&c, 1, TLB_LOAD, TLB_PAGE_2M | TLB_PAGE_4M, 32, 4);
	expect_tlb(&c, 1, TLB_LOAD, TLB_PAGE_1G, 8, 0);
	expect_tlb(&c, 2, TLB_UNIFIED, TLB_PAGE_4K | TLB_PAGE_2M | TLB_PAGE_4M, 1024, 8);
	expect_tlb(&c, 2, TLB_UNIFIED, TLB_PAGE_4K | TLB_PAGE_1G, 1024, 8);
	/* The data-side reach for 4K pages: the load TLB, then the larger STLB array (not their sum). */
	assert_int_equal(cache_dtlb_entries(&c, 1, TLB_PAGE_4K), 64);
	assert_int_equal(cache_dtlb_entries(&c, 2, TLB_PAGE_4K), 1024);
	/* The L3: 15 ways x 1 x 64 B x 40960 sets = 37.5 MiB; shared by up to 128 IDs (EAX[25:14] = 127). */
	expect_cache(&c, 3, CACHE_UNIFIED, 38400, 15, 64);
	assert_int_equal(level_of(&c, 3, CACHE_UNIFIED)->shared_by, 128);
	assert_true(c.page_1g);
}

/*
 * Zen 4 (Raphael): Fn8000_0005 EAX FF48FF40 EBX FF48FF40 (L1 TLBs, FFh fully associative),
 * Fn8000_0006 EAX 26006200 EBX 46004200... (as the dump gives, decoded by the APM's layout), Fn8000_0019.
 */
static void amd_tlbs_zen4(void **state)
{
	(void)state;
	struct loaded_dump ld;
	struct cpu_info ci;
	struct cache_info c;
	struct cpuid_regs r5, r6, r19;
	load("AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt", &ld);
	assert_true(raw(&ld, 0, 0x80000005, 0, &r5) && raw(&ld, 0, 0x80000006, 0, &r6) && raw(&ld, 0, 0x80000019, 0, &r19));
	identify_block(&ld, 0, &ci, &c);
	dump_free(&ld);
	assert_string_equal(c.tlbs_from, "cpuid_80000005h_6h_19h");
	/* L1: entries in [23:16] (data) and [7:0] (instruction); FFh associativity: fully associative. */
	assert_int_equal(r5.ebx >> 24, 0xff);
	expect_tlb(&c, 1, TLB_DATA, TLB_PAGE_4K, (r5.ebx >> 16) & 0xff, 0);
	expect_tlb(&c, 1, TLB_INSTRUCTION, TLB_PAGE_4K, r5.ebx & 0xff, 0);
	expect_tlb(&c, 1, TLB_DATA, TLB_PAGE_2M | TLB_PAGE_4M, (r5.eax >> 16) & 0xff, 0);
	assert_int_equal((r5.ebx >> 16) & 0xff, 72);	/* the research notes' 72-entry L1 DTLB */
	/* L2: entries in [27:16] and [11:0], associativity code in [31:28]: 6 = 8 ways, 4 = 4 ways, 5 = 6 ways. */
	assert_int_equal(r6.ebx >> 28, 6);
	expect_tlb(&c, 2, TLB_DATA, TLB_PAGE_4K, (r6.ebx >> 16) & 0xfff, 8);
	assert_int_equal((r6.ebx >> 16) & 0xfff, 3072);
	assert_int_equal(r6.eax >> 28, 5);
	expect_tlb(&c, 2, TLB_DATA, TLB_PAGE_2M | TLB_PAGE_4M, (r6.eax >> 16) & 0xfff, 6);
	assert_int_equal((r6.ebx >> 12) & 0xf, 4);
	expect_tlb(&c, 2, TLB_INSTRUCTION, TLB_PAGE_4K, r6.ebx & 0xfff, 4);
	/* 1G: Fn8000_0019 EAX (L1) and EBX (L2), code Fh fully associative. */
	assert_int_equal(r19.eax >> 28, 0xf);
	expect_tlb(&c, 1, TLB_DATA, TLB_PAGE_1G, (r19.eax >> 16) & 0xfff, 0);
	expect_tlb(&c, 2, TLB_DATA, TLB_PAGE_1G, (r19.ebx >> 16) & 0xfff, 0);
	/* The L3 is the CCD's 32 MiB from Fn8000_001D, not Fn8000_0006's 64 MiB package total. */
	assert_int_equal(r6.edx >> 18, 128);	/* 128 x 512 KiB in Fn8000_0006 */
	expect_cache(&c, 3, CACHE_UNIFIED, 32768, 16, 64);
	assert_int_equal(cache_dtlb_entries(&c, 2, TLB_PAGE_4K), 3072);
}

/* K8 has no Fn8000_001D: caches from Fn8000_0005 ECX/EDX and Fn8000_0006 ECX (L2 KiB, code 8 = 16 ways). */
static void amd_legacy_caches_k8(void **state)
{
	(void)state;
	struct loaded_dump ld;
	struct cpu_info ci;
	struct cache_info c;
	struct cpuid_regs r5, r6;
	load("AuthenticAMD0020FB1_K8_Manchester_CPUID.txt", &ld);
	assert_true(raw(&ld, 0, 0x80000005, 0, &r5) && raw(&ld, 0, 0x80000006, 0, &r6));
	identify_block(&ld, 0, &ci, &c);
	dump_free(&ld);
	assert_string_equal(c.caches_from, "cpuid_80000005h_6h");
	assert_int_equal(c.n, 3);
	expect_cache(&c, 1, CACHE_DATA, r5.ecx >> 24, (r5.ecx >> 16) & 0xff, r5.ecx & 0xff);
	expect_cache(&c, 1, CACHE_INSTRUCTION, r5.edx >> 24, (r5.edx >> 16) & 0xff, r5.edx & 0xff);
	assert_int_equal((r6.ecx >> 12) & 0xf, 8);
	expect_cache(&c, 2, CACHE_UNIFIED, r6.ecx >> 16, 16, r6.ecx & 0xff);
	expect_cache(&c, 1, CACHE_DATA, 64, 2, 64);	/* the K8's 64 KiB two-way L1D */
	assert_null(level_of(&c, 1, CACHE_DATA)->shared_by ? "shared_by given" : NULL);
	assert_int_equal(level_of(&c, 1, CACHE_DATA)->inclusive, -1);
}

/* A CPU with no cache leaf at all: no levels, a reason, and the record says so without inventing one. */
static void no_leaves_no_geometry(void **state)
{
	(void)state;
	struct cpu_info ci;
	struct cache_info c;
	struct rec r = { 0 };
	fake_reset();
	fake_cpuid_set(0, 0, 1, 0x756e6547, 0x6c65746e, 0x49656e69);	/* GenuineIntel, max leaf 1 */
	fake_cpuid_set(1, 0, 0x00000617, 0, 0, 0);
	cpu_identify(&ci);
	cache_identify(&ci, &c);
	assert_int_equal(c.n, 0);
	assert_int_equal(c.ntlb, 0);
	assert_non_null(c.why);
	assert_null(cache_last_level(&c));
	struct capture cap;
	capture_start(&cap);
	cache_report(&c, &r, true, 3);
	const char *rec = capture_find(&cap, "cache");
	assert_non_null(rec);
	assert_non_null(strstr(rec, "\"cpu\":{\"n\":3,\"apic_id\":0}"));
	assert_non_null(strstr(rec, "\"levels\":[],\"tlb\":[]"));
	assert_non_null(strstr(rec, "\"why\":\"CPUID has neither leaf 02H nor leaf 04H\""));
	capture_free(&cap);
}

/* The record of a real geometry: every field, and inside a pass no second "cpu" key. */
static void record_fields(void **state)
{
	(void)state;
	struct cache_info c;
	struct rec r = { 0 };
	one("AuthenticAMD0B40F40_K20_GraniteRidge_02_CPUID.txt", &c);
	struct capture cap;
	capture_start(&cap);
	cache_report(&c, &r, false, -1);
	const char *rec = capture_find(&cap, "cache");
	assert_non_null(rec);
	assert_null(strstr(rec, "\"cpu\""));
	assert_non_null(strstr(rec, "{\"level\":1,\"type\":\"data\",\"size\":49152,\"ways\":12,\"partitions\":1,"
				    "\"line\":64,\"sets\":64,\"shared_by\":2,\"fully_associative\":false,\"inclusive\":false}"));
	assert_non_null(strstr(rec, "{\"level\":3,\"type\":\"unified\",\"size\":33554432,\"ways\":16"));
	assert_non_null(strstr(rec, "{\"level\":1,\"type\":\"data\",\"pages\":[\"4k\"],\"entries\":96,\"ways\":null,"
				    "\"fully_associative\":true,\"shared_by\":null}"));
	assert_non_null(strstr(rec, "\"caches_from\":\"cpuid_8000001dh\""));
	capture_free(&cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_dump_deterministic_leaf),
		cmocka_unit_test(leaf_02h_pentium_pro),
		cmocka_unit_test(leaf_02h_dothan),
		cmocka_unit_test(leaf_02h_tlbs_skylake),
		cmocka_unit_test(leaf_18h_sapphire_rapids),
		cmocka_unit_test(amd_tlbs_zen4),
		cmocka_unit_test(amd_legacy_caches_k8),
		cmocka_unit_test(no_leaves_no_geometry),
		cmocka_unit_test(record_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
