/*
 * Counting on AMD and Hygon PMUs: legacy four counters (Family 10h), the
 * six-counter core extension with stride 2 (Zen, Hygon), PerfMonV2's global
 * control (Zen 4), the 12-bit event select (bits 11:8 in PERF_CTL[35:32]).
 *   PERF_CTL = event[7:0] | umask<<8 | USR(16) | OS(17) | EDGE(18) | EN(22) | INV(23) | cmask<<24 | event[11:8]<<32
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tests/fake/fake_pmu.h"
#include "pmu/count/count.h"

#include "tests/unit/count_test.h"

#define RETIRED fake_spec("EX_RET_INSTR", 0x0C0, 0x00, EV_NO_FIXED, 0)
#define WIDE fake_spec("event=0x12e,umask=0x05", 0x12E, 0x05, EV_NO_FIXED, 0)

static void fam10h_legacy(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup("fam10h");
	FAKE_EXPECT_LOG(0, { 0xC0010000, 0x1 }, { 0xC0010000, 0x0 });
	add(fake_spec("DRAM_ACCESSES", 0x4E0, 0x07, EV_NO_FIXED, 0));
	add(RETIRED);
	schedule();
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0xC0010000, 0x4000307E0 },		/* EventSelect[11:8]=4 in bits 35:32 */
			{ 0xC0010001, 0x300C0 },
			{ 0xC0010000, 0x4004307E0 }, { 0xC0010001, 0x4300C0 },	/* start tried */
			{ 0xC0010000, 0x4000307E0 }, { 0xC0010001, 0x300C0 },	/* stop tried */
			{ 0xC0010004, 0x0 }, { 0xC0010005, 0x0 });
	assert_int_equal(set.start.n, 2);
	assert_int_equal(set.start.w[0].value, 0x4004307E0ull);
	count_backend()->pass_end(&set, 0);
	assert_true(fake_count_pass(&set, 0, 77, v, err, sizeof(err)));
	assert_int_equal(v[0], 77);
	assert_int_equal(v[1], 77);
	/* The core extension's addresses do not exist on Family 10h. */
	assert_int_equal(fake_pmu_peek(0xC0010200), 0);
	assert_int_equal(hw_wrmsr(0xC0010200, 0), HW_FAULT_GP);
	count_restore();
}

static void zen_core_extension(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup("zen");
	FAKE_EXPECT_LOG(0, { 0xC0010200, 0x1 }, { 0xC0010200, 0x0 });
	add(RETIRED);
	add(WIDE);
	schedule();
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0xC0010200, 0x300C0 }, { 0xC0010202, 0x10003052E },
			{ 0xC0010200, 0x4300C0 }, { 0xC0010202, 0x10043052E },
			{ 0xC0010200, 0x300C0 }, { 0xC0010202, 0x10003052E },
			{ 0xC0010201, 0x0 }, { 0xC0010203, 0x0 });
	/* The legacy addresses alias counters 0-3. */
	assert_int_equal(fake_pmu_peek(0xC0010000), 0x300C0);
	assert_int_equal(fake_pmu_peek(0xC0010001), 0x10003052Eull);
	count_backend()->pass_end(&set, 0);
	assert_true(fake_count_pass(&set, 0, 5, v, err, sizeof(err)));
	assert_int_equal(v[1], 5);

	/* Seven events on six counters: two passes. */
	memset(&set, 0, sizeof(set));
	for (int i = 0; i < 7; i++)
		add(fake_spec("ev", (uint16_t)(0x40 + i), 0, EV_NO_FIXED, 0));
	schedule();
	assert_int_equal(set.passes, 2);
	assert_int_equal(set.pass_of[6], 1);
	assert_int_equal(set.counter_of[6], 0);
	begin(1);
	assert_int_equal(set.start.n, 1);
	assert_int_equal(set.start.w[0].msr, 0xC0010200);
	assert_int_equal(set.start.w[0].value, 0x430046);
	count_backend()->pass_end(&set, 1);
	count_restore();
}

static void zen4_perfmon_v2(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup("zen4");
	add(RETIRED);
	add(WIDE);
	schedule();
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0xC0000301, 0x0 },			/* PerfCntrGlobalCtl: reset 0x3f -> off */
			{ 0xC0010200, 0x4300C0 }, { 0xC0010202, 0x10043052E },	/* EN set, gated globally */
			{ 0xC0000301, 0x3 }, { 0xC0000301, 0x0 },
			{ 0xC0010201, 0x0 }, { 0xC0010203, 0x0 });
	assert_int_equal(set.start.n, 1);
	assert_int_equal(set.start.w[0].msr, 0xC0000301);
	assert_int_equal(set.start.w[0].value, 0x3);
	assert_int_equal(set.stop.w[0].value, 0x0);
	count_backend()->pass_end(&set, 0);

	/* Overflow across the wrap, cleared through PerfCntrGlobalStatusClr. */
	set.preset = (1ull << 48) - 5;
	mark = fake_log_count();
	assert_true(fake_count_pass(&set, 0, 10, v, err, sizeof(err)));
	assert_int_equal(v[0], 10);
	assert_int_equal(v[1], 10);
	size_t n = fake_log_count();
	bool cleared = false;
	for (size_t i = mark; i < n; i++)
		if (fake_log_at(i)->msr == 0xC0000302 && fake_log_at(i)->value == 0x3)
			cleared = true;
	assert_true(cleared);
	assert_int_equal(fake_pmu_peek(0xC0000300), 0);
	count_restore();
	assert_int_equal(fake_pmu_peek(0xC0000301), 0x3F);
}

static void hygon_like_zen(void **state)
{
	(void)state;
	setup("hygon");
	add(RETIRED);
	schedule();
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0xC0010200, 0x300C0 },
			{ 0xC0010200, 0x4300C0 }, { 0xC0010200, 0x300C0 },
			{ 0xC0010201, 0x0 });
	count_backend()->pass_end(&set, 0);
	count_restore();
}

static void event_select_width(void **state)
{
	(void)state;
	setup("fam10h");
	add(fake_spec("too-wide", 0x1000, 0, EV_NO_FIXED, 0));
	schedule();
	assert_false(count_backend()->pass_begin(&set, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "too-wide"));
	assert_non_null(strstr(err, "12-bit"));
	count_restore();

	/* So is K8's: PERF_CTL[63:32] are reserved there. */
	setup("k8");
	add(fake_spec("event=0x4e0", 0x4E0, 0, EV_NO_FIXED, 0));
	schedule();
	assert_false(count_backend()->pass_begin(&set, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "8-bit"));
	count_restore();

	/* Intel's select is 8 bits wide. */
	setup("skylake");
	add(fake_spec("event=0x1c0", 0x1C0, 0, EV_NO_FIXED, 0));
	schedule();
	assert_false(count_backend()->pass_begin(&set, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "8-bit"));
	/* AnyThread is Intel's: refused when the set is scheduled, before anything is programmed. */
	setup("zen");
	struct event_spec e = RETIRED;
	e.any = true;
	add(e);
	assert_false(count_backend()->schedule(&set, err, sizeof(err)));
	assert_non_null(strstr(err, "AnyThread"));
	count_restore();
}


/* Defect g, PerfMonV2 (Zen 4): a large-increment event (retired FLOPs, 003H) runs on an even
 * counter with the Merge event (0xFFF: EventSelect[7:0] FFh, [11:8] Fh, EN) on the odd one, which
 * is programmed first (PPR 2.1.15.3; Linux 5738891229a2).  Both counters are zeroed - bits 47:0
 * in the even PERF_CTR, 63:48 in the odd one's 15:0 - and the even one is read as 64 bits. */
static void zen4_merged_pair(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup("zen4");
	add(RETIRED);
	add(fake_spec("RETIRED_SSE_AVX_FLOPS.ANY", 0x003, 0x1F, EV_NO_FIXED, 0));	/* by the family rule */
	schedule();
	assert_true(set.merged_of[1]);
	assert_false(set.merged_of[0]);
	assert_int_equal(set.counter_of[1], 0);		/* pairs are placed first */
	assert_int_equal(set.counter_of[0], 2);
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0xC0000301, 0x0 },
			{ 0xC0010202, 0xF004000FF },		/* PERF_CTL1: Merge | EN, before ... */
			{ 0xC0010200, 0x431F03 },		/* ... PERF_CTL0: 003H/1FH */
			{ 0xC0010204, 0x4300C0 },
			{ 0xC0000301, 0x7 }, { 0xC0000301, 0x0 },	/* counters 0, 1 and 2 */
			{ 0xC0010201, 0x0 }, { 0xC0010203, 0x0 }, { 0xC0010205, 0x0 });
	count_backend()->pass_end(&set, 0);
	assert_true(fake_count_pass(&set, 0, 11, v, err, sizeof(err)));
	assert_int_equal(v[0], 11);
	assert_int_equal(v[1], 11);		/* the model counts 003H only merged */
	/* A 64-bit preset: bits 47:0 to the even counter, 63:48 to the odd one. */
	set.preset = 0x1234000000000005ull;
	mark = fake_log_count();
	begin(0);
	uint64_t even = 0, odd = 0;
	for (size_t i = mark; i < fake_log_count(); i++) {
		if (fake_log_at(i)->msr == 0xC0010201)
			even = fake_log_at(i)->value;
		if (fake_log_at(i)->msr == 0xC0010203)
			odd = fake_log_at(i)->value;
	}
	assert_int_equal(even, 0x5);
	assert_int_equal(odd, 0x1234);
	count_backend()->pass_end(&set, 0);
	count_restore();
	assert_int_equal(fake_pmu_peek(0xC0010202), 0);	/* the Merge select goes back too */
}

/* Defect g, core extension without a global switch (Zen): the start list enables the Merge
 * event before its even counter; the stop list stops the even counter first. */
static void zen_merged_pair_toggles(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup("zen");
	add(fake_spec("RETIRED_SSE_AVX_OPERATIONS.ALL", 0x003, 0xFF, EV_NO_FIXED, 0));
	schedule();
	assert_int_equal(set.counter_of[0], 0);
	begin(0);
	assert_int_equal(set.start.n, 2);
	assert_int_equal(set.start.w[0].msr, 0xC0010202);
	assert_int_equal(set.start.w[0].value, 0xF004000FFull);
	assert_int_equal(set.start.w[1].msr, 0xC0010200);
	assert_int_equal(set.start.w[1].value, 0x43FF03);
	assert_int_equal(set.stop.w[0].msr, 0xC0010200);
	assert_int_equal(set.stop.w[1].msr, 0xC0010202);
	assert_int_equal(set.stop.w[1].value, 0xF000000FFull);
	count_backend()->pass_end(&set, 0);
	assert_true(fake_count_pass(&set, 0, 6, v, err, sizeof(err)));
	assert_int_equal(v[0], 6);
	count_restore();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fam10h_legacy),
		cmocka_unit_test(zen_core_extension),
		cmocka_unit_test(zen4_perfmon_v2),
		cmocka_unit_test(hygon_like_zen),
		cmocka_unit_test(event_select_width),
		cmocka_unit_test(zen4_merged_pair),
		cmocka_unit_test(zen_merged_pair_toggles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
