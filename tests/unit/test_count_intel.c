/*
 * Counting on Intel PMUs: the exact MSR writes for given events on P6,
 * architectural versions 1 to 5 (Core Duo, Core 2, Silvermont, Goldmont,
 * Skylake, Ice Lake), and the counts read back from the modelled counters.
 * Expected values are worked out by hand from the SDM layouts:
 *   PERFEVTSELx = event | umask<<8 | USR(16) | OS(17) | EDGE(18) | ANY(21) | EN(22) | INV(23) | cmask<<24
 *   FIXED_CTR_CTRL field n (bits 4n+3..4n) = OS(1) | USR(2) | ANY(4)
 *   GLOBAL_CTRL bit n = PMCn, bit 32+n = FIXED_CTRn
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tests/fake/capture.h"
#include "tests/fake/fake_pmu.h"
#include "pmu/count/count.h"
#include "pmu/count/msr_save.h"
#include "pmu/count/pmu_model.h"
#include "cpu/cpu.h"
#include "cpu/uarch.h"

#include "tests/unit/count_test.h"
#include "tests/unit/identify_dump_load.h"

static uint64_t rates(void *ctx, uint16_t event, uint8_t umask)
{
	(void)ctx;
	if (event == 0x00)
		return umask == 1 ? 3 : umask == 2 ? 2 : umask == 3 ? 5 : 7;	/* fixed 0..3 */
	if (event == 0xC0)
		return 3;	/* instructions */
	if (event == 0x3C)
		return 2;	/* cycles */
	return 1;
}

/* Every preset here counts at the rates above. */
static void setup_rated(const char *key)
{
	setup(key);
	fake_pmu_set_rate(rates, NULL);
}

#define INST_ANY fake_spec("INST_RETIRED.ANY", 0x00, 0x01, 0, 0)
#define CLK_THREAD fake_spec("CPU_CLK_UNHALTED.THREAD", 0x00, 0x02, 1, 0)
#define REF_TSC fake_spec("CPU_CLK_UNHALTED.REF_TSC", 0x00, 0x03, 2, 0)
#define STLF fake_spec("LD_BLOCKS.STORE_FORWARD", 0x03, 0x02, EV_NO_FIXED, 0)

/* Skylake: v4, 8 x 48-bit general, 3 fixed, full-width writes. */
static void skylake_program(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup_rated("skylake");
	/* init proved writes stick on PERFEVTSEL0 and put it back. */
	FAKE_EXPECT_LOG(0, { 0x186, 0x1 }, { 0x186, 0x0 });
	add(INST_ANY);
	add(CLK_THREAD);
	add(STLF);
	schedule();
	assert_int_equal(set.passes, 1);
	assert_int_equal(set.fixed_of[0], 0);
	assert_int_equal(set.fixed_of[1], 1);
	assert_int_equal(set.counter_of[2], 0);

	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x38f, 0x0 },			/* GLOBAL_CTRL: reset value 0xff (all GP) -> off */
			{ 0x186, 0x430203 },		/* PERFEVTSEL0: 03/02, USR|OS|EN */
			{ 0x38d, 0x33 },		/* FIXED_CTR_CTRL: fixed 0 and 1, USR|OS */
			{ 0x38f, 0x300000001 },		/* start list tried once */
			{ 0x38f, 0x0 },			/* stop list tried once */
			{ 0x4c1, 0x0 },			/* IA32_A_PMC0 (full-width) */
			{ 0x309, 0x0 }, { 0x30a, 0x0 });
	assert_int_equal(set.start.n, 1);
	assert_int_equal(set.start.w[0].msr, 0x38f);
	assert_int_equal(set.start.w[0].value, 0x300000001ull);
	assert_int_equal(set.stop.n, 1);
	assert_int_equal(set.stop.w[0].msr, 0x38f);
	assert_int_equal(set.stop.w[0].value, 0);

	count_toggle_apply(&set.start);
	fake_pmu_run(1000);
	count_toggle_apply(&set.stop);
	fake_pmu_run(1000);	/* stopped: must not count */
	assert_true(count_backend()->read(&set, 0, v, err, sizeof(err)));
	assert_int_equal(v[0], 3000);
	assert_int_equal(v[1], 2000);
	assert_int_equal(v[2], 1000);
	/* A second start/stop in the same pass reads only its own counts. */
	count_toggle_apply(&set.start);
	fake_pmu_run(10);
	count_toggle_apply(&set.stop);
	assert_true(count_backend()->read(&set, 0, v, err, sizeof(err)));
	assert_int_equal(v[0], 30);
	assert_int_equal(v[2], 10);
	count_backend()->pass_end(&set, 0);
	count_restore();
	assert_int_equal(fake_pmu_peek(0x38f), 0xff);	/* reset value back */
	assert_int_equal(fake_pmu_peek(0x38d), 0);
	assert_int_equal(fake_pmu_peek(0x186), 0);
}

/* Version 1 (Core Duo): no global control, no fixed counters; EN toggles per select. */
static void v1_program(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup_rated("intel-v1");
	add(fake_spec("INST_RETIRED.ANY_P", 0xC0, 0x00, 0, 0));	/* fixed-capable, but v1 has none */
	add(STLF);
	schedule();
	assert_int_equal(set.passes, 1);
	assert_int_equal(set.counter_of[0], 0);
	assert_int_equal(set.counter_of[1], 1);
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x186, 0x300c0 }, { 0x187, 0x30203 },		/* selects without EN */
			{ 0x186, 0x4300c0 }, { 0x187, 0x430203 },		/* start tried */
			{ 0x186, 0x300c0 }, { 0x187, 0x30203 },		/* stop tried */
			{ 0xc1, 0x0 }, { 0xc2, 0x0 });
	assert_int_equal(set.start.n, 2);
	assert_int_equal(set.start.w[1].msr, 0x187);
	assert_int_equal(set.start.w[1].value, 0x430203);
	assert_int_equal(set.stop.w[0].value, 0x300c0);
	count_backend()->pass_end(&set, 0);
	assert_true(fake_count_pass(&set, 0, 100, v, err, sizeof(err)));
	assert_int_equal(v[0], 300);
	assert_int_equal(v[1], 100);
	/* The fixed-only encoding cannot run on version 1. */
	memset(&set, 0, sizeof(set));
	add(INST_ANY);
	assert_false(count_backend()->schedule(&set, err, sizeof(err)));
	assert_non_null(strstr(err, "INST_RETIRED.ANY"));
	assert_non_null(strstr(err, "fixed counter 0"));
	count_restore();
}

/* Core 2 (Merom): version 2 with CPUID.0AH:EDX = 0; three fixed counters exist all the same. */
static void core2_program(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	static struct rec r;
	struct capture cap;
	setup_rated("core2");
	add(INST_ANY);
	add(CLK_THREAD);
	add(REF_TSC);
	add(STLF);
	schedule();
	assert_int_equal(set.passes, 1);
	assert_int_equal(set.fixed_of[2], 2);
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x38f, 0x0 },			/* reset value 0x3 (2 GP) -> off */
			{ 0x186, 0x430203 },
			{ 0x38d, 0x333 },
			{ 0x38f, 0x700000001 }, { 0x38f, 0x0 },
			{ 0xc1, 0x0 },			/* no full-width alias: legacy address */
			{ 0x309, 0x0 }, { 0x30a, 0x0 }, { 0x30b, 0x0 });
	count_backend()->pass_end(&set, 0);
	assert_true(fake_count_pass(&set, 0, 10, v, err, sizeof(err)));
	assert_int_equal(v[0], 30);
	assert_int_equal(v[1], 20);
	assert_int_equal(v[2], 50);
	assert_int_equal(v[3], 10);
	/* The pmu record says the fixed counters were assumed, and why. */
	capture_start(&cap);
	rec_start(&r, "pmu");
	count_state_fields(&r);
	rec_emit(&r);
	const char *rec = capture_find(&cap, "pmu");
	assert_non_null(rec);
	assert_non_null(strstr(rec, "\"counters_fixed\":3"));
	assert_non_null(strstr(rec, "under-reports"));
	capture_free(&cap);
	count_restore();
}

/* Silvermont: version 3 adds AnyThread, in the select and in the fixed field. */
static void silvermont_any_thread(void **state)
{
	(void)state;
	setup_rated("silvermont");
	struct event_spec e = fake_spec("CPU_CLK_UNHALTED.CORE_P:any", 0x3C, 0x00, EV_NO_FIXED, 0);
	e.any = true;
	add(e);
	struct event_spec f = CLK_THREAD;
	f.any = true;
	add(f);
	struct event_spec g = fake_spec("cmask+inv+edge", 0xC0, 0x00, 0, 0);
	g.cmask = 1;
	g.inv = true;
	g.edge = true;
	add(g);	/* fixed-capable, but qualifiers need a general counter */
	schedule();
	assert_int_equal(set.passes, 1);
	assert_int_equal(set.counter_of[2], 1);
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x38f, 0x0 },
			{ 0x186, 0x63003c },		/* ANY(21) | EN | USR | OS | 3c */
			{ 0x187, 0x1c700c0 },		/* cmask 1 << 24 | INV | EN | EDGE | USR | OS | c0 */
			{ 0x38d, 0x70 },		/* fixed 1: ANY | USR | OS */
			{ 0x38f, 0x200000003 }, { 0x38f, 0x0 },
			{ 0xc1, 0x0 }, { 0xc2, 0x0 }, { 0x30a, 0x0 });
	count_backend()->pass_end(&set, 0);
	count_restore();
}

/* Goldmont: version 4; a stale overflow flag of a counter we use is cleared through STATUS_RESET. */
static void goldmont_status_reset(void **state)
{
	(void)state;
	if (!fake_count_prepare("goldmont", false, false))
		fail_msg("no goldmont preset");
	fake_pmu_poke(0x38e, 0x1);	/* PMC0 overflowed before we came */
	if (!fake_count_init(why, sizeof(why)))
		fail_msg("init: %s", why);
	memset(&set, 0, sizeof(set));
	add(STLF);
	schedule();
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x38f, 0x0 }, { 0x186, 0x430203 },
			{ 0x38f, 0x1 }, { 0x38f, 0x0 },
			{ 0x4c1, 0x0 },
			{ 0x390, 0x1 });		/* IA32_PERF_GLOBAL_STATUS_RESET: PMC0 */
	assert_int_equal(fake_pmu_peek(0x38e), 0);
	count_backend()->pass_end(&set, 0);
	count_restore();
}

/* Ice Lake: version 5, fixed counter 3 (TOPDOWN.SLOTS), AnyThread deprecated. */
static void icelake_v5(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup_rated("icelake");
	add(fake_spec("TOPDOWN.SLOTS", 0x00, 0x04, 3, 0));
	add(INST_ANY);
	schedule();
	assert_int_equal(set.fixed_of[0], 3);
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x38f, 0x0 },
			{ 0x38d, 0x3003 },		/* fields 3 and 0 */
			{ 0x38f, 0x900000000 }, { 0x38f, 0x0 },
			{ 0x309, 0x0 }, { 0x30c, 0x0 });
	count_backend()->pass_end(&set, 0);
	assert_true(fake_count_pass(&set, 0, 4, v, err, sizeof(err)));
	assert_int_equal(v[0], 28);
	assert_int_equal(v[1], 12);

	/* Defect h: AnyThread on a PMU that deprecates it (CPUID.0AH:EDX[15]) is refused by the
	 * scheduler, before a pass plan exists or a register is written. */
	memset(&set, 0, sizeof(set));
	struct event_spec e = fake_spec("any-thread", 0x3C, 0, EV_NO_FIXED, 0);
	e.any = true;
	add(e);
	mark = fake_log_count();
	assert_false(count_backend()->schedule(&set, err, sizeof(err)));
	assert_non_null(strstr(err, "any-thread"));
	assert_non_null(strstr(err, "AnyThread"));
	assert_non_null(strstr(err, "CPUID.0AH:EDX[15]"));
	assert_int_equal(set.passes, 0);
	assert_int_equal(fake_log_count(), mark);
	count_restore();
}

/* P6: EN exists only in PerfEvtSel0 and switches both counters. */
static void p6_shared_enable(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup_rated("p6");
	add(fake_spec("DATA_MEM_REFS", 0x43, 0x00, EV_NO_FIXED, 0));
	add(fake_spec("LD_BLOCKS", 0x03, 0x00, EV_NO_FIXED, 0));
	schedule();
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x186, 0x30043 }, { 0x187, 0x30003 },
			{ 0x186, 0x430043 }, { 0x186, 0x30043 },
			{ 0xc1, 0x0 }, { 0xc2, 0x0 });
	assert_int_equal(set.start.n, 1);
	assert_int_equal(set.start.w[0].msr, 0x186);
	count_backend()->pass_end(&set, 0);
	assert_true(fake_count_pass(&set, 0, 9, v, err, sizeof(err)));
	assert_int_equal(v[0], 9);
	assert_int_equal(v[1], 9);

	/* Only counter 1 used: select 0 carries just EN (no USR/OS, so counter 0 counts nothing). */
	memset(&set, 0, sizeof(set));
	add(fake_spec("LD_BLOCKS", 0x03, 0x00, EV_NO_FIXED, 0x2));
	schedule();
	assert_int_equal(set.counter_of[0], 1);
	mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			/* select 1 already holds 0x30003 from the last pass; select 0 keeps its stale event */
			{ 0x186, 0x400000 }, { 0x186, 0x0 },
			{ 0xc2, 0x0 });
	count_backend()->pass_end(&set, 0);
	uint64_t before0 = fake_pmu_peek(0xc1);
	assert_true(fake_count_pass(&set, 0, 5, v, err, sizeof(err)));
	assert_int_equal(v[0], 5);
	assert_int_equal(fake_pmu_peek(0xc1), before0);

	/* Only counter 0 used: select 1 still holds USR|OS and would count under select 0's EN: cleared. */
	memset(&set, 0, sizeof(set));
	add(fake_spec("DATA_MEM_REFS", 0x43, 0x00, EV_NO_FIXED, 0x1));
	schedule();
	mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x186, 0x30043 }, { 0x187, 0x0 },
			{ 0x186, 0x430043 }, { 0x186, 0x30043 },
			{ 0xc1, 0x0 });
	count_backend()->pass_end(&set, 0);
	count_restore();
}

/* USR-only and OS-only counting on request. */
static void privilege_levels(void **state)
{
	(void)state;
	setup_rated("skylake");
	add(CLK_THREAD);
	add(STLF);
	set.priv = COUNT_PRIV_USER;
	schedule();
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark, { 0x38f, 0x0 }, { 0x186, 0x410203 }, { 0x38d, 0x20 },
			{ 0x38f, 0x200000001 }, { 0x38f, 0x0 }, { 0x4c1, 0x0 }, { 0x30a, 0x0 });
	count_backend()->pass_end(&set, 0);
	set.priv = COUNT_PRIV_KERNEL;
	mark = fake_log_count();
	begin(0);
	/* Same start/stop lists as last time: not tried again. */
	FAKE_EXPECT_LOG(mark, { 0x186, 0x420203 }, { 0x38d, 0x10 }, { 0x4c1, 0x0 }, { 0x30a, 0x0 });
	count_backend()->pass_end(&set, 0);
	count_restore();
}

/* The `program` record (verbose=on) carries the pass's writes and its lists. */
static void program_record(void **state)
{
	(void)state;
	struct capture cap;
	if (!fake_count_setup("skylake", false, true, why, sizeof(why)))
		fail_msg("init: %s", why);
	memset(&set, 0, sizeof(set));
	add(INST_ANY);
	add(STLF);
	schedule();
	capture_start(&cap);
	begin(0);
	count_backend()->pass_end(&set, 0);
	begin(0);	/* again: no second record for the same pass */
	count_backend()->pass_end(&set, 0);
	assert_int_equal(capture_record_count(&cap), 1);
	/* The same count_set holding other events is another program: recorded again. */
	struct count_set saved = set;
	set.ev[1] = fake_spec("LD_BLOCKS.NO_SR", 0x03, 0x08, EV_NO_FIXED, 0);
	begin(0);
	count_backend()->pass_end(&set, 0);
	assert_int_equal(capture_record_count(&cap), 2);
	assert_non_null(strstr(capture_record(&cap, 1), "\"0x430803\""));
	set = saved;
	const char *rec = capture_find(&cap, "program");
	assert_non_null(rec);
	assert_non_null(strstr(rec, "\"flavour\":\"intel-arch-v4\""));
	assert_non_null(strstr(rec, "{\"name\":\"INST_RETIRED.ANY\",\"counter\":\"fixed0\"}"));
	assert_non_null(strstr(rec, "{\"msr\":\"0x186\",\"value\":\"0x430203\",\"phase\":\"program\"}"));
	assert_non_null(strstr(rec, "\"start\":[{\"msr\":\"0x38f\",\"value\":\"0x100000001\"}]"));
	capture_free(&cap);
	count_restore();
}

/* Events by name from the CPU's own set, as the events= option gives them. */
static void add_named(const char *setkey, const char *name)
{
	char e[256];
	if (!event_spec_parse(events_set_find(setkey), false, name, strlen(name), &set.ev[set.n], e, sizeof(e)))
		fail_msg("%s", e);
	set.n++;
}

/* Every counter asked for, the restricted events last: the driver still puts them where the
 * vendor allows, and the model (which zeroes a misplaced event) counts every one. */
static void restricted_events_count(void **state)
{
	(void)state;
	static const char *const names[] = { "BR_INST_RETIRED.ALL_BRANCHES", "UOPS_ISSUED.ANY",
		"BR_MISP_RETIRED.ALL_BRANCHES", "UOPS_RETIRED.SLOTS", "LD_BLOCKS.STORE_FORWARD",
		"LD_BLOCKS_PARTIAL.ADDRESS_ALIAS", "MEM_INST_RETIRED.ALL_LOADS", "MEM_INST_RETIRED.ALL_STORES" };
	uint64_t v[COUNT_MAX_EVENTS];
	setup("icelake");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		add_named("icelake", names[i]);
	schedule();
	assert_int_equal(set.passes, 1);
	for (size_t i = 4; i < 8; i++)
		assert_true(set.counter_of[i] >= 0 && set.counter_of[i] < 4);
	if (!fake_count_pass(&set, 0, 7, v, err, sizeof(err)))
		fail_msg("%s", err);
	for (size_t i = 0; i < set.n; i++)
		if (v[i] != 7)
			fail_msg("%s counted %llu, not 7", set.ev[i].name, (unsigned long long)v[i]);
	count_restore();
}

/* Offcore events program OFFCORE_RSP_0/1 with their values, two per pass, restored after. */
static void offcore_events_program_their_msrs(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS];
	setup("icelake");
	fake_pmu_poke(0x1A6, 0x5);		/* as something else left it */
	add_named("icelake", "OCR.DEMAND_DATA_RD.L3_HIT.SNOOP_MISS");
	add_named("icelake", "OCR.DEMAND_RFO.L3_MISS");
	add_named("icelake", "OCR.DEMAND_DATA_RD.DRAM");
	schedule();
	assert_int_equal(set.passes, 2);
	for (unsigned p = 0; p < 2; p++) {
		if (!fake_count_pass(&set, p, 5, v, err, sizeof(err)))
			fail_msg("%s", err);
		if (p == 0) {
			assert_int_equal(fake_pmu_peek(0x1A6), set.ev[0].msr_value);
			assert_int_equal(fake_pmu_peek(0x1A7), set.ev[1].msr_value);
		}
	}
	for (size_t i = 0; i < set.n; i++)
		assert_int_equal(v[i], 5);
	count_restore();
	assert_int_equal(fake_pmu_peek(0x1A6), 0x5);
	assert_int_equal(fake_pmu_peek(0x1A7), 0);
}

/* Bloomfield: CPUID.0AH:EBX bit 6 - branch mispredicts retired is refused, naming the bit. */
static void bloomfield_refuses_branch_misses(void **state)
{
	(void)state;
	setup("nehalem");
	add_named("nehalem", "BR_MISP_RETIRED.ALL_BRANCHES");
	assert_false(count_backend()->schedule(&set, err, sizeof(err)));
	assert_non_null(strstr(err, "CPUID.0AH:EBX bit 6"));
	count_restore();
}


/* ---- issue 22 ---- */

/* The writes from log entry `from` to MSR msr, as a list of values, in order. */
static size_t writes_to(size_t from, uint32_t msr, uint64_t *vals, size_t max)
{
	size_t n = 0;
	for (size_t i = from; i < fake_log_count(); i++)
		if (fake_log_at(i)->msr == msr && n < max)
			vals[n++] = fake_log_at(i)->value;
	return n;
}

/* The index of the first write to msr from log entry `from`, or -1. */
static long first_write(size_t from, uint32_t msr)
{
	for (size_t i = from; i < fake_log_count(); i++)
		if (fake_log_at(i)->msr == msr)
			return (long)i;
	return -1;
}

/* Defect b: a raw spec in the second offcore form (BBH/01H on Skylake) programs OFFCORE_RSP_1;
 * with two of them the second moves to the first form, its code and its MSR together. */
static void offcore_second_form_programs_rsp1(void **state)
{
	(void)state;
	uint64_t v[COUNT_MAX_EVENTS], vals[4];
	setup("skylake");
	add_named("skylake", "event=0xbb,umask=0x01,offcore_rsp=0x10001");
	schedule();
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x38f, 0x0 },
			{ 0x186, 0x4301bb },		/* BBH/01H, USR | OS | EN */
			{ 0x1a7, 0x10001 },		/* OFFCORE_RSP_1: the MSR BBH reads */
			{ 0x38f, 0x1 }, { 0x38f, 0x0 },
			{ 0x4c1, 0x0 });
	count_backend()->pass_end(&set, 0);
	/* The model counts BBH only while OFFCORE_RSP_1 selects something. */
	assert_true(fake_count_pass(&set, 0, 5, v, err, sizeof(err)));
	assert_int_equal(v[0], 5);
	count_restore();

	setup("skylake");
	add_named("skylake", "event=0xbb,umask=0x01,offcore_rsp=0x10001");
	add_named("skylake", "event=0xbb,umask=0x01,offcore_rsp=0x10002");
	schedule();
	assert_int_equal(set.passes, 1);
	mark = fake_log_count();
	begin(0);
	assert_int_equal(writes_to(mark, 0x1a7, vals, 4), 1);
	assert_int_equal(vals[0], 0x10001);
	assert_int_equal(writes_to(mark, 0x1a6, vals, 4), 1);
	assert_int_equal(vals[0], 0x10002);
	assert_int_equal(fake_pmu_peek(0x186 + (unsigned)set.counter_of[0]) & 0xFFFF, 0x01BB);
	assert_int_equal(fake_pmu_peek(0x186 + (unsigned)set.counter_of[1]) & 0xFFFF, 0x01B7);
	count_backend()->pass_end(&set, 0);
	assert_true(fake_count_pass(&set, 0, 5, v, err, sizeof(err)));
	assert_int_equal(v[0], 5);
	assert_int_equal(v[1], 5);
	count_restore();
}

/* count_set.pmi: every counter of the pass gets its interrupt bit (select bit 20, field bit 3). */
static void pmi_sets_interrupt_bits(void **state)
{
	(void)state;
	setup("skylake");
	set.pmi = true;
	add(INST_ANY);
	add(STLF);
	schedule();
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x38f, 0x0 },
			{ 0x186, 0x530203 },		/* INT(20) | EN | USR | OS */
			{ 0x38d, 0xb },			/* fixed 0: PMI(3) | USR | OS */
			{ 0x38f, 0x100000001 }, { 0x38f, 0x0 },
			{ 0x4c1, 0x0 }, { 0x309, 0x0 });
	count_backend()->pass_end(&set, 0);
	count_restore();
}

/* An Ice Lake whose IA32_PERF_CAPABILITIES reports PERF_METRICS (bit 15). */
static void setup_metrics(void)
{
	static struct cpu_info ci;
	static struct pmu_caps caps;
	const struct fake_cpu *icl = fake_cpu_find("icelake");
	struct count_opts opts = { 0 };
	ci = icl->ci;
	ci.event_set = "icelake";
	caps = icl->caps;
	caps.perf_metrics = true;
	caps.perf_caps |= 1ull << 15;
	/* The model with its IA32_PERF_METRICS (and GLOBAL_CTRL bit 48). */
	struct pmu_model_cfg cfg;
	pmu_model_cfg_from_caps(&cfg, &ci, &caps);
	pmu_model_cfg_machine(&cfg, &ci, &caps);
	fake_pmu_install_cfg(&cfg);
	fake_pmu_poke(0x329, 0x1234);	/* as an earlier user left it */
	msr_save_forget();
	count_use_backend(&count_backend_msr);
	if (!count_init(&ci, &caps, &opts, why, sizeof(why)))
		fail_msg("init: %s", why);
	memset(&set, 0, sizeof(set));
}

/* count_set.metrics: GLOBAL_CTRL bit 48 in the start list, fixed counter 3 zeroed before
 * IA32_PERF_METRICS, both put back (fixed counter 3 first); refused without PERF_METRICS or
 * without fixed counter 3 in the pass. */
static void metrics_enable_and_reset_order(void **state)
{
	(void)state;
	setup_metrics();
	set.metrics = true;
	add(fake_spec("TOPDOWN.SLOTS", 0x00, 0x04, 3, 0));
	add(STLF);
	schedule();
	size_t mark = fake_log_count();
	begin(0);
	FAKE_EXPECT_LOG(mark,
			{ 0x38f, 0x0 },
			{ 0x186, 0x430203 },
			{ 0x38d, 0x3000 },			/* fixed 3: USR | OS */
			{ 0x38f, 0x1000800000001 },		/* EN_PERF_METRICS(48) | fixed 3 | PMC0 */
			{ 0x38f, 0x0 },
			{ 0x4c1, 0x0 }, { 0x30c, 0x0 },		/* fixed counter 3 ... */
			{ 0x329, 0x0 });			/* ... before PERF_METRICS */
	assert_int_equal(set.start.w[0].value, 0x1000800000001ull);
	count_backend()->pass_end(&set, 0);
	mark = fake_log_count();
	count_restore();
	long fc3 = first_write(mark, 0x30c), metrics = first_write(mark, 0x329);
	assert_true(metrics > fc3);		/* restored after fixed counter 3 ... */
	assert_int_equal(fake_pmu_peek(0x329), 0x1234);	/* ... to what it held */

	/* No TOPDOWN.SLOTS in the pass: refused when scheduled, nothing written. */
	setup_metrics();
	set.metrics = true;
	add(STLF);
	mark = fake_log_count();
	assert_false(count_backend()->schedule(&set, err, sizeof(err)));
	assert_non_null(strstr(err, "fixed counter 3"));
	assert_int_equal(fake_log_count(), mark);
	count_restore();

	/* A PMU without PERF_METRICS (Skylake): refused. */
	setup("skylake");
	set.metrics = true;
	add(INST_ANY);
	assert_false(count_backend()->schedule(&set, err, sizeof(err)));
	assert_non_null(strstr(err, "PERF_METRICS"));
	count_restore();
}

/* Defect d: Meteor Lake's CPUID.0AH (common to both core types) lists fixed counters 0-2;
 * CPUID.(23H,1):EBX gives the P-core fixed counter 3, where TOPDOWN.SLOTS counts, and the
 * E-core not.  The whole path: the dump's CPUID, identification, the model, the driver. */
static void meteor_lake_fixed_counter_3(void **state)
{
	(void)state;
	static struct loaded_dump ld;
	static struct cpu_info ci;
	static struct pmu_caps caps;
	struct pmu_model_cfg cfg;
	struct count_opts opts = { 0 };
	uint64_t v[COUNT_MAX_EVENTS];
	static char e[1024];

	if (!dump_load("tests/fixtures/cpuid-real/GenuineIntel00A06A4_MeteorLake_10_CPUID.txt", &ld, e, sizeof(e)))
		fail_msg("%s", e);
	for (size_t block = 0; block < 3; block += 2) {		/* CPU 0: P-core; CPU 2: E-core */
		dump_to_fake(&ld, block);
		cpu_identify(&ci);
		pmu_caps_detect(&ci, &caps);
		assert_int_equal(caps.fixed_mask, 0x7);			/* CPUID.0AH */
		assert_int_equal(pmu_caps_fixed_mask(&caps), block ? 0x7 : 0xF);	/* CPUID.(23H,1):EBX */
		pmu_model_cfg_from_caps(&cfg, &ci, &caps);
		assert_int_equal(cfg.fixed_mask, block ? 0x7 : 0xF);
		fake_pmu_install_cfg(&cfg);
		msr_save_forget();
		count_use_backend(&count_backend_msr);
		if (!count_init(&ci, &caps, &opts, why, sizeof(why)))
			fail_msg("init: %s", why);
		memset(&set, 0, sizeof(set));
		add(fake_spec("TOPDOWN.SLOTS", 0x00, 0x04, 3, 0));
		if (block) {
			assert_false(count_backend()->schedule(&set, err, sizeof(err)));
			assert_non_null(strstr(err, "fixed counter 3, which this PMU does not have"));
			count_restore();
			continue;
		}
		assert_string_equal(ci.event_set, "redwoodcove");
		schedule();
		assert_int_equal(set.fixed_of[0], 3);
		size_t mark = fake_log_count();
		begin(0);
		FAKE_EXPECT_LOG(mark,
				{ 0x38f, 0x0 },
				{ 0x38d, 0x3000 },		/* field 3: USR | OS */
				{ 0x38f, 0x800000000 },		/* GLOBAL_CTRL bit 35: fixed counter 3 */
				{ 0x38f, 0x0 },
				{ 0x30c, 0x0 });		/* IA32_FIXED_CTR3 */
		count_backend()->pass_end(&set, 0);
		assert_true(fake_count_pass(&set, 0, 9, v, err, sizeof(err)));
		assert_int_equal(v[0], 9);
		count_restore();
	}
	dump_free(&ld);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(skylake_program),
		cmocka_unit_test(v1_program),
		cmocka_unit_test(core2_program),
		cmocka_unit_test(silvermont_any_thread),
		cmocka_unit_test(goldmont_status_reset),
		cmocka_unit_test(icelake_v5),
		cmocka_unit_test(p6_shared_enable),
		cmocka_unit_test(privilege_levels),
		cmocka_unit_test(program_record),
		cmocka_unit_test(restricted_events_count),
		cmocka_unit_test(offcore_events_program_their_msrs),
		cmocka_unit_test(bloomfield_refuses_branch_misses),
		cmocka_unit_test(offcore_second_form_programs_rsp1),
		cmocka_unit_test(pmi_sets_interrupt_bits),
		cmocka_unit_test(metrics_enable_and_reset_order),
		cmocka_unit_test(meteor_lake_fixed_counter_3),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
