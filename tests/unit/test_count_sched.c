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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
