/*
 * Scheduling events onto counters and passes: fixed counters first,
 * `counters` restrictions honoured, the fewest passes, deterministic,
 * impossible sets refused with the event named.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tests/fake/fake_pmu.h"
#include "pmu/count/count_sched.h"

static char err[512];

/* A PMU with n_gp general and n_fixed fixed counters, all free. */
static struct count_slots pmu(unsigned n_gp, unsigned n_fixed)
{
	struct count_slots s = { 0 };
	s.n_gp = n_gp;
	s.n_fixed = n_fixed;
	s.gp_exists = s.gp_usable = (1u << n_gp) - 1;
	s.fixed_exists = s.fixed_usable = (1u << n_fixed) - 1;
	s.event0_fixed_only = true;
	return s;
}

static void add(struct count_set *set, const char *name, uint16_t ev, int8_t fixed, uint32_t counters)
{
	set->ev[set->n++] = fake_spec(name, ev, ev ? 0 : (uint8_t)(fixed + 1), fixed, counters);
}

static unsigned in_pass(const struct count_set *set, unsigned p)
{
	unsigned n = 0;
	for (size_t i = 0; i < set->n; i++)
		n += set->pass_of[i] == p;
	return n;
}

/* No two events of one pass share a counter, and each sits where it may. */
static void check_valid(const struct count_set *set, const struct count_slots *s)
{
	for (size_t i = 0; i < set->n; i++) {
		assert_true(set->pass_of[i] < set->passes);
		assert_true((set->counter_of[i] >= 0) != (set->fixed_of[i] >= 0));
		if (set->counter_of[i] >= 0) {
			assert_true(s->gp_usable & (1u << set->counter_of[i]));
			if (set->ev[i].counters)
				assert_true(set->ev[i].counters & (1u << set->counter_of[i]));
		} else {
			assert_int_equal(set->fixed_of[i], set->ev[i].fixed);
		}
		for (size_t j = i + 1; j < set->n; j++)
			if (set->pass_of[i] == set->pass_of[j]) {
				assert_false(set->counter_of[i] >= 0 && set->counter_of[i] == set->counter_of[j]);
				assert_false(set->fixed_of[i] >= 0 && set->fixed_of[i] == set->fixed_of[j]);
			}
	}
}

static void splits_into_fewest_passes(void **state)
{
	(void)state;
	static struct count_set set, again;
	struct count_slots s = pmu(4, 3);
	for (int i = 0; i < 10; i++)
		add(&set, "gp", (uint16_t)(0x10 + i), EV_NO_FIXED, 0);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 3);
	assert_int_equal(in_pass(&set, 0), 4);
	assert_int_equal(in_pass(&set, 1), 4);
	assert_int_equal(in_pass(&set, 2), 2);
	check_valid(&set, &s);
	/* Deterministic: the same set gives the same assignment. */
	again = set;
	assert_true(count_sched_assign(&again, &s, err, sizeof(err)));
	assert_memory_equal(again.pass_of, set.pass_of, sizeof(set.pass_of));
	assert_memory_equal(again.counter_of, set.counter_of, sizeof(set.counter_of));
	/* In order: the first four events fill pass 0 on counters 0..3. */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(set.pass_of[i], 0);
		assert_int_equal(set.counter_of[i], i);
	}
}

static void fixed_events_go_to_fixed_counters(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(2, 3);
	add(&set, "INST_RETIRED.ANY_P", 0xC0, 0, 0);	/* also countable on a general counter */
	add(&set, "CPU_CLK_UNHALTED.THREAD_P", 0x3C, 1, 0);
	add(&set, "A", 0x03, EV_NO_FIXED, 0);
	add(&set, "B", 0x04, EV_NO_FIXED, 0);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 1);
	assert_int_equal(set.fixed_of[0], 0);
	assert_int_equal(set.fixed_of[1], 1);
	assert_int_equal(set.counter_of[2], 0);
	assert_int_equal(set.counter_of[3], 1);
	check_valid(&set, &s);
}

static void fixed_counter_busy_falls_back(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(2, 3);
	s.fixed_usable &= ~1u;	/* fixed 0 held by firmware */
	s.fixed_in_use = 1;
	add(&set, "INST_RETIRED.ANY_P", 0xC0, 0, 0);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.counter_of[0], 0);
	/* The fixed-only encoding cannot fall back, and says why. */
	memset(&set, 0, sizeof(set));
	add(&set, "INST_RETIRED.ANY", 0x00, 0, 0);
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "'INST_RETIRED.ANY'"));
	assert_non_null(strstr(err, "fixed counter 0, which is in use"));
	assert_non_null(strstr(err, "force_counters=on"));
}

static void duplicates_of_a_fixed_event(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	add(&set, "INST_RETIRED.ANY", 0x00, 0, 0);
	add(&set, "INST_RETIRED.ANY", 0x00, 0, 0);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 2);
	assert_int_not_equal(set.pass_of[0], set.pass_of[1]);
}

static void restrictions_need_matching_not_greed(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(2, 0);
	/* A may use 0 or 1, B only 0: greedy A->0 would need a second pass. */
	add(&set, "A", 0x10, EV_NO_FIXED, 0x3);
	add(&set, "B", 0x11, EV_NO_FIXED, 0x1);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 1);
	assert_int_equal(set.counter_of[0], 1);
	assert_int_equal(set.counter_of[1], 0);
	check_valid(&set, &s);
}

static void restricted_to_one_counter(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 0);
	/* Three "counter 0 only" events need three passes; the others fit beside them. */
	add(&set, "R1", 0x20, EV_NO_FIXED, 0x1);
	add(&set, "R2", 0x21, EV_NO_FIXED, 0x1);
	add(&set, "R3", 0x22, EV_NO_FIXED, 0x1);
	for (int i = 0; i < 6; i++)
		add(&set, "free", (uint16_t)(0x30 + i), EV_NO_FIXED, 0);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 3);
	check_valid(&set, &s);
	for (int i = 0; i < 3; i++)
		assert_int_equal(set.counter_of[i], 0);
	assert_int_not_equal(set.pass_of[0], set.pass_of[1]);
	assert_int_not_equal(set.pass_of[1], set.pass_of[2]);
	assert_int_not_equal(set.pass_of[0], set.pass_of[2]);
}

static void impossible_sets_name_the_event(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 0);
	add(&set, "OK", 0x10, EV_NO_FIXED, 0);
	add(&set, "ON_COUNTER_5", 0x11, EV_NO_FIXED, 1u << 5);
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "'ON_COUNTER_5' may only use counter 5, which this PMU does not have"));

	memset(&set, 0, sizeof(set));
	add(&set, "INST_RETIRED.ANY", 0x00, 0, 0);
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "only by fixed counter 0, which this PMU does not have"));

	/* Restricted to counters held by firmware. */
	memset(&set, 0, sizeof(set));
	s.gp_usable = 0xC;
	s.gp_in_use = 0x3;
	add(&set, "LOW", 0x12, EV_NO_FIXED, 0x3);
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "'LOW' may only use counter 0,1"));
	assert_non_null(strstr(err, "in use"));
}

static void raw_fixed_pseudo_encoding(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	/* A raw event=0x00,umask=0x03 spec names fixed counter 2 (REF_TSC) by Intel's convention. */
	set.ev[set.n++] = fake_spec("event=0x00,umask=0x03", 0x00, 0x03, EV_NO_FIXED, 0);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.fixed_of[0], 2);
}

static void empty_set(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 0);
}

static void full_set_mixed(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	/* 3 fixed + 21 general = 24 events: general ones need 6 passes of 4. */
	add(&set, "INST_RETIRED.ANY", 0x00, 0, 0);
	add(&set, "CPU_CLK_UNHALTED.THREAD", 0x00, 1, 0);
	add(&set, "CPU_CLK_UNHALTED.REF_TSC", 0x00, 2, 0);
	while (set.n < COUNT_MAX_EVENTS)
		add(&set, "gp", (uint16_t)(0x40 + set.n), EV_NO_FIXED, 0);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 6);
	check_valid(&set, &s);
}

/* ---- the vendors' constraints ---- */

/* An Ice Lake-like PMU: LD_BLOCKS on 0-3 only; with every counter asked for, the restricted
 * events land on 0-3 even when they come last. */
static void restricted_events_get_allowed_counters(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(8, 4);
	for (int i = 0; i < 4; i++)
		add(&set, "free", (uint16_t)(0x50 + i), EV_NO_FIXED, 0);
	for (int i = 0; i < 4; i++)
		add(&set, "low", (uint16_t)(0x03 + i), EV_NO_FIXED, 0x0F);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 1);
	for (int i = 4; i < 8; i++)
		assert_true(set.counter_of[i] >= 0 && set.counter_of[i] < 4);
	check_valid(&set, &s);
	/* A fifth one needs a second pass rather than a forbidden counter. */
	add(&set, "low5", 0x08, EV_NO_FIXED, 0x0F);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 2);
	check_valid(&set, &s);
}

/* CounterHTOff applies when a thread has all 8 counters (SMT off), Counter otherwise. */
static void smt_off_list(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s4 = pmu(4, 3), s8 = pmu(8, 3);
	for (int i = 0; i < 6; i++) {
		add(&set, "ld", (uint16_t)(0x50 + i), EV_NO_FIXED, 0x0F);
		set.ev[i].counters_htoff = 0xFF;
	}
	assert_true(count_sched_assign(&set, &s8, err, sizeof(err)));
	assert_int_equal(set.passes, 1);
	assert_true(count_sched_assign(&set, &s4, err, sizeof(err)));
	assert_int_equal(set.passes, 2);
}

/* Family 15h: cycles on PERF_CTL[2:0], floating point on [5:3]. */
static void amd_groups(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(6, 0);
	s.event0_fixed_only = false;
	add(&set, "fp0", 0x00, EV_NO_FIXED, 0x38);
	set.ev[0].umask = 1;
	add(&set, "fp1", 0x01, EV_NO_FIXED, 0x38);
	add(&set, "ls", 0x29, EV_NO_FIXED, 0x3F);
	add(&set, "ls2", 0x2A, EV_NO_FIXED, 0x3F);
	add(&set, "ls3", 0x47, EV_NO_FIXED, 0x3F);
	add(&set, "cycles", 0x76, EV_NO_FIXED, 0x07);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 1);
	assert_true(set.counter_of[5] <= 2);
	assert_true(set.counter_of[0] >= 3 && set.counter_of[1] >= 3);
	check_valid(&set, &s);
}

static void architectural_unavailable(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	s.arch_pmu = true;
	s.arch_len = 7;
	s.arch_absent = 0x40;		/* Bloomfield: branch mispredicts retired */
	add(&set, "br_misp", 0xC5, EV_NO_FIXED, 0);
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "CPUID.0AH:EBX bit 6"));
	assert_non_null(strstr(err, "branch_misses_retired"));
	/* With a counter mask it is a different event. */
	set.ev[0].cmask = 1;
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	/* Instructions (bit 1) absent: fixed counter 0 still counts it, a general counter not. */
	memset(&set, 0, sizeof(set));
	s.arch_absent = 0x02;
	add(&set, "ins", 0xC0, 0, 0);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.fixed_of[0], 0);
	s.fixed_usable = 0;
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "CPUID.0AH:EBX bit 1"));
	/* Past EAX[31:24]: unknown only where the CPU has no table of its own. */
	memset(&set, 0, sizeof(set));
	s = pmu(8, 4);
	s.arch_pmu = true;
	s.arch_len = 8;
	add(&set, "uops_retired.slots", 0xC2, EV_NO_FIXED, 0);
	set.ev[0].umask = 2;
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	s.arch_only = true;
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "EAX[31:24]"));
}

static void offcore_msrs(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	s.offcore = true;
	for (int i = 0; i < 3; i++) {
		add(&set, "ocr", 0xB7, EV_NO_FIXED, 0x0F);
		set.ev[i].umask = 1;
		set.ev[i].msr = 0x1A6;
		set.ev[i].msr_alt = 0x1A7;
		set.ev[i].msr_value = 0x10001ull + (uint64_t)i;
		set.ev[i].has_alt = true;
		set.ev[i].alt_event = 0xBB;
		set.ev[i].alt_umask = 1;
	}
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	/* Two share pass 0 through the two forms; the third waits for pass 1. */
	assert_int_equal(set.passes, 2);
	assert_true(set.pass_of[0] == 0 && set.form_of[0] == 0);
	assert_true(set.pass_of[1] == 0 && set.form_of[1] == 1);
	assert_true(set.pass_of[2] == 1 && set.form_of[2] == 0);
	check_valid(&set, &s);
	/* Without a second form, one per pass. */
	set.ev[1].has_alt = false;
	set.ev[1].msr_alt = 0;
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_true(set.pass_of[0] != set.pass_of[1]);
	/* No offcore MSRs on this PMU: refused, saying so. */
	s.offcore = false;
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "offcore response MSRs"));
}

static void machinery_not_driven(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	static const struct { uint16_t msr; bool pair, bare; uint8_t ext; const char *expect; } cases[] = {
		{ 0x3F6, false, false, 0, "MSR_PEBS_LD_LAT" },
		{ 0x3F7, false, false, 0, "MSR_PEBS_FRONTEND" },
		{ 0x3E0, false, false, 0, "MSR 0x3E0" },
		{ 0, true, false, 0, "Merge event" },
		{ 0, false, true, 0, "offcore_rsp=" },
		{ 0, false, false, 0x80, "extended unit mask 0x80" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&set, 0, sizeof(set));
		add(&set, "x", 0xB7, EV_NO_FIXED, 0);
		set.ev[0].msr = cases[i].msr;
		set.ev[0].pair = cases[i].pair;
		set.ev[0].has_alt = cases[i].bare;
		set.ev[0].umask_ext = cases[i].ext;
		assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
		if (!strstr(err, cases[i].expect) || !strstr(err, "'x'"))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].expect);
	}
}

/* Fixed-only and counter-1-only events (INST_RETIRED.PREC_DIST on Skylake). */
static void fixed_only_and_counter1(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	add(&set, "prec_dist", 0xC0, EV_NO_FIXED, 0x02);
	set.ev[0].umask = 1;
	add(&set, "other", 0x51, EV_NO_FIXED, 0);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.counter_of[0], 1);
	memset(&set, 0, sizeof(set));
	add(&set, "fixed_only", 0xC0, 0, 0);
	set.ev[0].fixed_only = true;
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.fixed_of[0], 0);
	s.fixed_usable = 0;
	s.fixed_in_use = 1;
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "only by fixed counter 0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(splits_into_fewest_passes),
		cmocka_unit_test(fixed_events_go_to_fixed_counters),
		cmocka_unit_test(fixed_counter_busy_falls_back),
		cmocka_unit_test(duplicates_of_a_fixed_event),
		cmocka_unit_test(restrictions_need_matching_not_greed),
		cmocka_unit_test(restricted_to_one_counter),
		cmocka_unit_test(impossible_sets_name_the_event),
		cmocka_unit_test(raw_fixed_pseudo_encoding),
		cmocka_unit_test(empty_set),
		cmocka_unit_test(full_set_mixed),
		cmocka_unit_test(restricted_events_get_allowed_counters),
		cmocka_unit_test(smt_off_list),
		cmocka_unit_test(amd_groups),
		cmocka_unit_test(architectural_unavailable),
		cmocka_unit_test(offcore_msrs),
		cmocka_unit_test(machinery_not_driven),
		cmocka_unit_test(fixed_only_and_counter1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
