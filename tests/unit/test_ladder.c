/*
 * The memory ladder: its sizes from a cache geometry (bench/ladder.c),
 * their names, and the benchmark stage making and measuring its variants
 * (bench/src_ladder.c) against the fakes of tests/unit/suite_test.h, with
 * the real kernels and rings on this CPU.
 *
 * Geometries come from real dumps (tests/fixtures/cpuid-real), whose caches
 * and TLBs are given in the comments as the dump's registers decode them
 * (tests/unit/test_cache.c checks that decoding).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "bench/ladder.h"
#include "bench/kernels.h"
#include "bench/src_ladder.h"
#include "cpu/cache.h"
#include "tests/unit/identify_dump_load.h"
#include "tests/unit/record_asserts.h"
#include "tests/unit/suite_test.h"

#define KIB 1024ull
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)

static void geometry(const char *file, struct cache_info *c)
{
	struct loaded_dump ld;
	struct cpu_info x;
	char path[256], err[512];
	snprintf(path, sizeof(path), "tests/fixtures/cpuid-real/%s", file);
	if (!dump_load(path, &ld, err, sizeof(err)))
		fail_msg("%s", err);
	dump_to_fake(&ld, 0);
	cpu_identify(&x);
	cache_identify(&x, c);
	dump_free(&ld);
}

static bool has(const uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static void sorted_grains(const uint64_t *v, size_t n, uint64_t limit)
{
	for (size_t i = 0; i < n; i++) {
		assert_true(v[i] % LADDER_GRAIN == 0 && v[i] >= LADDER_GRAIN && v[i] <= limit);
		if (i)
			assert_true(v[i] > v[i - 1]);	/* sorted, no repeats */
	}
}

/*
 * Sapphire Rapids: L1D 48 KiB, L2 2 MiB, L3 37.5 MiB (38400 KiB); load TLB 64 x 4K (256 KiB reach),
 * STLB 1024 x 4K (4 MiB).  Latency top: the first power of two >= 4 x 37.5 MiB = 256 MiB.
 */
static void sizes_sapphire_rapids(void **state)
{
	(void)state;
	struct cache_info c;
	uint64_t v[LADDER_MAX_POINTS];
	geometry("GenuineIntel00806F8_SapphireRapids_05_CPUID.txt", &c);
	assert_int_equal(ladder_latency_top(&c), 256 * MIB);
	size_t n = ladder_latency_sizes(&c, UINT64_MAX, v, LADDER_MAX_POINTS);
	sorted_grains(v, n, 256 * MIB);
	assert_int_equal(v[0], 4 * KIB);
	assert_int_equal(v[n - 1], 256 * MIB);
	for (uint64_t p = 4 * KIB; p <= 256 * MIB; p <<= 1)
		assert_true(has(v, n, p));	/* the power-of-two ladder */
	/* Around each level: a quarter inside it, 7/8 just under, 9/8 just over, rounded down / up to 4 KiB
	 * (the ring's pages): 48 KiB gives 12, 40 (42 down) and 56 (54 up). */
	assert_true(has(v, n, 12 * KIB) && has(v, n, 40 * KIB) && has(v, n, 56 * KIB));
	assert_true(has(v, n, 512 * KIB) && has(v, n, 1792 * KIB) && has(v, n, 2304 * KIB));
	assert_true(has(v, n, 9600 * KIB) && has(v, n, 33600 * KIB) && has(v, n, 43200 * KIB));
	/* And the tlb ladder's reach points: 7/8 and 9/8 of 256 KiB and of 4 MiB. */
	assert_true(has(v, n, 224 * KIB) && has(v, n, 288 * KIB) && has(v, n, 3584 * KIB) && has(v, n, 4608 * KIB));
	assert_int_equal(n, 17 + 8 + 4);	/* 512 KiB, a quarter of L2, is also a power of two */

	/* tlb: 64 KiB .. 4 x 4 MiB, plus the reach points. */
	assert_int_equal(ladder_tlb_top(&c), 16 * MIB);
	n = ladder_tlb_sizes(&c, UINT64_MAX, v, LADDER_MAX_POINTS);
	sorted_grains(v, n, 16 * MIB);
	assert_int_equal(v[0], 64 * KIB);
	assert_int_equal(v[n - 1], 16 * MIB);
	assert_int_equal(n, 9 + 4);

	/* An arena of 8 MiB cuts both. */
	n = ladder_latency_sizes(&c, 8 * MIB, v, LADDER_MAX_POINTS);
	sorted_grains(v, n, 8 * MIB);
	assert_int_equal(v[n - 1], 8 * MIB);
	assert_false(has(v, n, 9600 * KIB));
}

/* Zen 4: L1D 32 KiB, L2 1 MiB, L3 32 MiB (a CCD's); L1 DTLB 72 x 4K, L2 DTLB 3072 x 4K (12 MiB). */
static void sizes_zen4(void **state)
{
	(void)state;
	struct cache_info c;
	uint64_t v[LADDER_MAX_POINTS];
	struct ladder_level bw[8];
	geometry("AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt", &c);
	assert_int_equal(ladder_latency_top(&c), 128 * MIB);
	assert_int_equal(ladder_tlb_top(&c), 64 * MIB);	/* 4 x 12 MiB, up to a power of two */
	size_t n = ladder_tlb_sizes(&c, UINT64_MAX, v, LADDER_MAX_POINTS);
	assert_true(has(v, n, 252 * KIB) && has(v, n, 324 * KIB));	/* 7/8, 9/8 of 288 KiB */
	assert_true(has(v, n, 10752 * KIB) && has(v, n, 13824 * KIB));	/* of 12 MiB */
	/* Bandwidth: half of L1, L2 and L3, and DRAM at the latency top. */
	n = ladder_bandwidth_sets(&c, UINT64_MAX, bw, 8);
	assert_int_equal(n, 4);
	assert_true(bw[0].level == 1 && bw[0].bytes == 16 * KIB);
	assert_true(bw[1].level == 2 && bw[1].bytes == 512 * KIB);
	assert_true(bw[2].level == 3 && bw[2].bytes == 16 * MIB);
	assert_true(bw[3].level == 0 && bw[3].bytes == 128 * MIB);
	/* Without room for DRAM's set, DRAM is what the arena holds, if that is still past the L3. */
	n = ladder_bandwidth_sets(&c, 64 * MIB, bw, 8);
	assert_true(n == 4 && bw[3].bytes == 64 * MIB);
	n = ladder_bandwidth_sets(&c, 16 * MIB, bw, 8);
	assert_int_equal(n, 3);
}

/* No geometry at all: the documented default tops, power-of-two ladders only. */
static void sizes_without_geometry(void **state)
{
	(void)state;
	struct cache_info c;
	uint64_t v[LADDER_MAX_POINTS];
	memset(&c, 0, sizeof(c));
	assert_int_equal(ladder_latency_top(&c), LADDER_DEFAULT_TOP);
	assert_int_equal(ladder_tlb_top(&c), LADDER_TLB_DEFAULT_TOP);
	size_t n = ladder_latency_sizes(&c, UINT64_MAX, v, LADDER_MAX_POINTS);
	assert_int_equal(n, 17);	/* 4 KiB .. 256 MiB; the tlb ladder's 64 KiB .. 64 MiB are among them */
	n = ladder_tlb_sizes(&c, UINT64_MAX, v, LADDER_MAX_POINTS);
	assert_int_equal(n, 11);
}

static void names_and_parsing(void **state)
{
	(void)state;
	char s[LADDER_NAME_MAX];
	uint64_t b;
	assert_string_equal(ladder_name(4 * KIB, s), "4k");
	assert_string_equal(ladder_name(1536 * KIB, s), "1536k");
	assert_string_equal(ladder_name(2 * MIB, s), "2m");
	assert_string_equal(ladder_name(2 * GIB, s), "2g");
	static const uint64_t sizes[] = { 4 * KIB, 12 * KIB, 33600 * KIB, 120 * MIB, GIB };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ladder_name(sizes[i], s);
		assert_true(ladder_parse(s, strlen(s), &b));
		assert_int_equal(b, sizes[i]);
	}
	assert_true(ladder_parse("16K", 3, &b) && b == 16 * KIB);
	assert_true(ladder_parse("8192", 4, &b) && b == 8192);
	assert_false(ladder_parse("3k", 2, &b));	/* not a multiple of 4 KiB */
	assert_false(ladder_parse("", 0, &b));
	assert_false(ladder_parse("k", 1, &b));
	assert_false(ladder_parse("16x", 3, &b));
	assert_false(ladder_parse("16kk", 4, &b));
	assert_false(ladder_parse("0k", 2, &b));
	assert_false(ladder_parse("99999999999999999g", 18, &b));
	/* A product that would wrap: 2^34 GiB is 0 bytes in 64 bits and 2^34+1 GiB would read as 1 GiB. */
	assert_false(ladder_parse("17179869184g", 12, &b));
	assert_false(ladder_parse("17179869185g", 12, &b));
	/* The largest size taken, and one unit more. */
	assert_true(ladder_parse("1024g", 5, &b) && b == LADDER_BYTES_MAX);
	assert_false(ladder_parse("1025g", 5, &b));
	assert_true(ladder_parse("2G", 2, &b) && b == 2 * GIB);
	assert_false(ladder_parse("016k", 4, &b));	/* the names ladder_name gives have no leading zero */
}

static struct bench_params params(const char *bench)
{
	return (struct bench_params){ .bench = bench, .events = "", .iterations = ITERATIONS, .reps = 3, .warmup = 1,
				      .pages = BENCH_PAGES_4K | BENCH_PAGES_2M, .cpu = &ci };
}

/* The chosen sizes are made and measured in ladder order, with the memory object and the comparison. */
static void stage_measures_the_chosen_sizes(void **state)
{
	(void)state;
	const char *b[16], *s[2];
	machine(false);
	fake_arena_large(16 * MIB);
	struct bench_params p = params("tlb.64k,latency.1m,latency.64k,latency.16k");
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "bench_setup", s, 2), 1);
	record_has(s[0], "\"ladder\":{\"latency\":{\"arena\":\"2m\",\"page\":2097152,\"size\":16777216");
	record_has(s[0], "\"tlb\":{\"arena\":\"4k\",\"page\":4096,");
	record_has(s[0], "\"bandwidth\":null");
	record_has(s[0], "\"variants\":6,\"rows\":6,");
	/* Two reference kernels, three latency sizes in order, then tlb. */
	size_t n = records_of_type(&cap, "bench", b, 16);
	assert_int_equal(n, 6);
	record_has(b[2], "\"kernel\":\"latency\",\"variant\":\"16k\"");
	record_has(b[2], "\"arena\":\"2m\",\"arena_page\":2097152");
	/* ns: null, as the unit machine has no TSC rate (tests/unit/suite_test.h); the host ladder test reads ns. */
	record_has(b[2], "\"memory\":{\"size\":16384,\"arena_size\":16777216,\"ns\":null");
	record_has(b[2], "\"lines\":256,\"pages_4k\":4,\"versus\":null");
	record_has(b[3], "\"variant\":\"64k\"");
	record_has(b[4], "\"variant\":\"1m\"");
	record_has(b[5], "\"kernel\":\"tlb\",\"variant\":\"64k\"");
	record_has(b[5], "\"arena\":\"4k\"");
	record_has(b[5], "\"versus\":{\"variant\":\"latency\",\"latency_median\":");
	/* A chain of loads: never faster than one cycle per load (the harness's floor, judged on each sample). */
	record_has(b[2], "\"chain_min\":1.000");
	assert_int_equal(records_of_type(&cap, "error", s, 2), 0);
}

static void stage_refuses_bad_sizes(void **state)
{
	(void)state;
	const char *e[4], *b[8];
	machine(false);
	fake_arena_large(8 * MIB);
	struct bench_params p = params("latency.3k,latency.64m,latency.8k,bandwidth.read_l9");
	bench_stage(&p);
	size_t n = records_of_type(&cap, "error", e, 4);
	assert_int_equal(n, 3);
	record_has(e[0], "latency.3k: not a size");
	record_has(e[1], "latency.64m: larger than the arena (8192 KiB)");
	record_has(e[2], "bandwidth.read_l9: not a variant here");
	/* Any bad size is an error and the ladder measures nothing of that kind; the rest of the run goes on. */
	n = records_of_type(&cap, "bench", b, 8);
	assert_true(n >= 2);
	record_has(b[0], "\"variant\":\"add_chain\"");
}

/* A variant the core lacks is an error, never a silent nothing: a cache level's write_nt (non-temporal
 * stores bypass the caches), and the message names the levels there are. */
static void stage_refuses_write_nt_at_a_cache_level(void **state)
{
	(void)state;
	const char *e[4], *b[8];
	struct loaded_dump ld;
	char err[512];
	machine(false);
	if (!dump_load("tests/fixtures/cpuid-real/AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt", &ld, err, sizeof(err)))
		fail_msg("%s", err);
	dump_to_fake(&ld, 0);	/* its cache levels: the bandwidth sets come from them */
	dump_free(&ld);
	cpu_identify(&ci);	/* the stage's processor is the dump's (AMD: Fn8000_001D gives the levels) */
	fake_arena_large(256 * MIB);
	struct bench_params p = params("bandwidth.write_nt_l1,bandwidth.read_l1");
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "error", e, 4), 1);
	record_has(e[0], "bandwidth.write_nt_l1: not a variant here");
	record_has(e[0], "_l1.._l3 or _dram");
	/* An error ends that kind's choice, as for a bad size; the rest of the run goes on. */
	assert_true(records_of_type(&cap, "bench", b, 8) >= 2);
}

/* "none" undoes what came before it, for the ladder as for every kernel (bench/plan.c). */
static void none_undoes_the_ladder_too(void **state)
{
	(void)state;
	const char *b[16];
	machine(false);
	fake_arena_large(16 * MIB);
	struct bench_params p = params("all,none,latency.16k");
	bench_stage(&p);
	size_t n = records_of_type(&cap, "bench", b, 16);
	/* The two reference kernels and latency.16k: not the whole ladder "all" named before "none". */
	assert_int_equal(n, 3);
	record_has(b[2], "\"kernel\":\"latency\",\"variant\":\"16k\"");
}

/* What a rate (bytes per cycle) or a TLB-minus-latency difference may be made of, and what not. */
static void only_kept_core_cycles_make_rates(void **state)
{
	(void)state;
	struct bench_figures f;
	memset(&f, 0, sizeof(f));
	f.cycles.n = 11;
	f.cycles_source = BENCH_CYCLES_TSC_CALIBRATED;
	assert_true(sweep_cycles_valid(&f));
	f.cycles_source = BENCH_CYCLES_TSC;	/* raw ticks are not cycles */
	assert_false(sweep_cycles_valid(&f));
	f.cycles_source = BENCH_CYCLES_FIXED;
	f.cycles.n = 0;				/* no sample kept: the median is 0, no figure */
	assert_false(sweep_cycles_valid(&f));
	f.cycles.n = 11;
	f.cycles_invalid = "the clock check failed";
	assert_false(sweep_cycles_valid(&f));
	/* write_nt exists at DRAM only. */
	assert_true(bw_variant_exists(BW_WRITE_NT, 0) && !bw_variant_exists(BW_WRITE_NT, 1));
	assert_true(bw_variant_exists(BW_COPY, 2));
}

/* No large arena (another processor's pass may not allocate): the 4 MiB arena, and the record says so. */
static void stage_falls_back_to_the_small_arena(void **state)
{
	(void)state;
	const char *s[2], *b[8];
	machine(false);
	struct bench_params p = params("latency.16k,latency.4m,bandwidth.read_l1,bandwidth.copy_dram");
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "bench_setup", s, 2), 1);
	record_has(s[0], "\"size\":4194304,\"wanted\":0");
	record_has(s[0], "fake: no large arenas; the 4 MiB arena instead");
	size_t n = records_of_type(&cap, "bench", b, 8);
	/* bandwidth needs the geometry's levels; this fake CPU has none, so only DRAM's set, at the arena's 4 MiB. */
	assert_int_equal(n, 5);
	record_has(b[3], "\"variant\":\"4m\"");
	record_has(b[4], "\"kernel\":\"bandwidth\",\"variant\":\"copy_dram\"");
	record_has(b[4], "\"op\":\"copy\",\"cache_level\":null");
	record_has(b[4], "\"bytes_per_iteration\":512");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes_sapphire_rapids),
		cmocka_unit_test(sizes_zen4),
		cmocka_unit_test(sizes_without_geometry),
		cmocka_unit_test(names_and_parsing),
		cmocka_unit_test_teardown(stage_measures_the_chosen_sizes, teardown),
		cmocka_unit_test_teardown(stage_refuses_bad_sizes, teardown),
		cmocka_unit_test_teardown(stage_falls_back_to_the_small_arena, teardown),
		cmocka_unit_test_teardown(stage_refuses_write_nt_at_a_cache_level, teardown),
		cmocka_unit_test(only_kept_core_cycles_make_rates),
		cmocka_unit_test_teardown(none_undoes_the_ladder_too, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
