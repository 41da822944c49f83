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
#include "events/events.h"

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


/* ---- issue 22: constraints by code, TakenAlone, merged pairs, AnyThread, offcore forms ---- */

/* A raw spec parsed against a set, as the events= option and pmuboot-host program do. */
static struct event_spec raw(const char *key, const char *text)
{
	struct event_spec e;
	const struct event_set *es = events_set_find(key);
	if (!es || !event_spec_parse(es, es->amd, text, strlen(text), &e, err, sizeof(err)))
		fail_msg("parse '%s' on %s: %s", text, key, es ? err : "no such set");
	return e;
}

/* n hand-built events that may use any of the n_gp counters: their own list (no rule by code),
 * and codes C1H.. (on Family 15h the execution unit, any of the six counters). */
static void add_free(struct count_set *set, unsigned n, unsigned n_gp)
{
	for (unsigned i = 0; i < n; i++)
		add(set, "free", (uint16_t)(0xC1 + i), EV_NO_FIXED, (1u << n_gp) - 1);
}

/* Defect a: a raw spec no row encodes exactly (here: a counter mask of its own) keeps the
 * restriction of its code and unit mask, even behind events that took the low counters first.
 * Without the rule it lands on the last free counter, outside the vendor's list. */
static void raw_specs_keep_their_codes_restrictions(void **state)
{
	(void)state;
	static const struct { const char *key, *spec; unsigned n_gp; uint32_t allowed; } cases[] = {
		{ "icelake", "event=0x03,umask=0x02,cmask=1", 8, 0x0F },	/* LD_BLOCKS.STORE_FORWARD: 0-3 */
		{ "sandybridge", "event=0x48,umask=0x01,cmask=2", 4, 0x04 },	/* L1D_PEND_MISS.PENDING: 2 */
		{ "sapphirerapids", "event=0xd1,umask=0x01,cmask=1", 8, 0x0F },	/* MEM_LOAD_RETIRED.L1_HIT: 0-3 */
		{ "sapphirerapids", "event=0xa3,umask=0x08,cmask=4", 8, 0x04 },	/* CYCLES_L1D_MISS, Linux: 2 */
		{ "lioncove", "event=0x2a,umask=0x01,cmask=1,offcore_rsp=0x10001", 10, 0x0F },	/* OCR, Linux: 0-3 */
	};
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		static struct count_set set;
		memset(&set, 0, sizeof(set));
		struct count_slots s = pmu(cases[k].n_gp, 3);
		s.events = events_set_find(cases[k].key);
		s.offcore = true;
		add_free(&set, cases[k].n_gp - 1, cases[k].n_gp);
		set.ev[set.n++] = raw(cases[k].key, cases[k].spec);
		assert_false(set.ev[set.n - 1].row.found);	/* no row encodes it exactly */
		if (!count_sched_assign(&set, &s, err, sizeof(err)))
			fail_msg("%s %s: %s", cases[k].key, cases[k].spec, err);
		assert_int_equal(set.passes, 1);
		int c = set.counter_of[set.n - 1];
		if (c < 0 || !(cases[k].allowed & (1u << c)))
			fail_msg("%s %s: on counter %d, outside 0x%x", cases[k].key, cases[k].spec, c, cases[k].allowed);
		check_valid(&set, &s);
	}
}

/* Defect a, AMD: the Family 15h rules apply at run time to every event, raw ones too. */
static void amd_family_rules_apply_to_raw_specs(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(6, 0);
	s.event0_fixed_only = false;
	s.events = events_set_find("fam15h");
	s.amd_family = 0x15;
	add_free(&set, 3, 6);
	set.ev[set.n++] = raw("fam15h", "event=0x76,cmask=1");	/* cycles: PERF_CTL[2:0] */
	set.ev[set.n++] = raw("fam15h", "event=0x00f");		/* FP unit, in no table: [5:3] */
	add_free(&set, 1, 6);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 1);
	assert_in_range(set.counter_of[3], 0, 2);
	assert_in_range(set.counter_of[4], 3, 5);
	check_valid(&set, &s);
	/* Without the CPU's table the family rule alone still holds. */
	s.events = NULL;
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_in_range(set.counter_of[3], 0, 2);
	/* 031H with more than one unit-mask bit: no counter counts it (BKDG). */
	memset(&set, 0, sizeof(set));
	set.ev[set.n++] = raw("fam15h", "event=0x031,umask=0x03");
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "Family 15h counts it on no core counter"));
}

/* A caller may narrow a named event's counters further (the audit pins one per counter), never widen them. */
static void narrowed_named_events_stay_narrow(void **state)
{
	(void)state;
	static struct count_set set;
	char perr[160];
	struct count_slots s = pmu(8, 3);
	s.events = events_set_find("icelake");
	const struct event_set *es = s.events;
	for (unsigned c = 0; c < 8; c++) {
		struct event_spec ev;
		memset(&set, 0, sizeof(set));
		/* MEM_INST_RETIRED.ALL_LOADS: perfmon allows 0-3 on Ice Lake. */
		assert_true(event_spec_parse(es, false, "MEM_INST_RETIRED.ALL_LOADS", 26, &ev, perr, sizeof(perr)));
		ev.counters &= 1u << c;
		set.ev[set.n++] = ev;
		bool ok = count_sched_assign(&set, &s, err, sizeof(err));
		if (c < 4) {
			assert_true(ok);
			assert_int_equal(set.counter_of[0], (int)c);
		} else {
			/* Narrowed to nothing the row allows: the row's own list is kept, never widened past it. */
			assert_true(ok);
			assert_in_range(set.counter_of[0], 0, 3);
		}
	}
}

/* A raw encoding whose rows share no counter (Skylake C0H/01H: PREC_DIST on 1, the PS form with
 * inv/cmask on 0,2,3) cannot be placed honestly: refused, saying why. */
static void disjoint_rows_refuse_the_code(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	s.events = events_set_find("skylake");
	set.ev[set.n++] = raw("skylake", "event=0xc0,umask=0x01,cmask=2");
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "no counter in common"));
	/* The rows themselves still schedule, each on its own list. */
	memset(&set, 0, sizeof(set));
	set.ev[set.n++] = raw("skylake", "INST_RETIRED.PREC_DIST");
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.counter_of[0], 1);
}

/* Defect f: a TakenAlone event has its pass's general counters to itself; fixed counters may
 * still count beside it.  Two of them need two passes. */
static void taken_alone_counts_by_itself(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	add(&set, "INST_RETIRED.ANY", 0x00, 0, 0);		/* fixed 0 */
	add_free(&set, 3, 4);
	set.ev[set.n++] = fake_spec("PREC_DIST", 0xC0, 0x01, EV_NO_FIXED, 0x2);
	set.ev[set.n - 1].taken_alone = true;
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	size_t ta = set.n - 1;
	assert_int_equal(set.passes, 2);
	assert_int_equal(set.counter_of[ta], 1);
	for (size_t i = 0; i < set.n; i++)
		if (i != ta && set.counter_of[i] >= 0)
			assert_int_not_equal(set.pass_of[i], set.pass_of[ta]);
	check_valid(&set, &s);
	/* A second TakenAlone event gets a pass of its own as well. */
	set.ev[set.n++] = fake_spec("STORE_LATENCY", 0xD0, 0x06, EV_NO_FIXED, 0);
	set.ev[set.n - 1].taken_alone = true;
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 3);
	assert_int_not_equal(set.pass_of[ta], set.pass_of[set.n - 1]);
	for (size_t i = 0; i < set.n; i++)
		for (size_t t = ta; t < set.n; t++)
			if (i != t && set.counter_of[i] >= 0)
				assert_int_not_equal(set.pass_of[i], set.pass_of[t]);
	/* A raw spec takes TakenAlone from its code's rows (Sandy Bridge C0H/01H, PREC_DIST). */
	memset(&set, 0, sizeof(set));
	s.events = events_set_find("sandybridge");
	add_free(&set, 2, 4);
	set.ev[set.n++] = raw("sandybridge", "event=0xc0,umask=0x01,cmask=1");
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 2);
	assert_int_equal(set.counter_of[2], 1);
	assert_int_not_equal(set.pass_of[2], set.pass_of[0]);
	assert_int_not_equal(set.pass_of[2], set.pass_of[1]);
}

/* Defect g: an AMD large-increment event takes an even counter and the odd one beside it, which
 * nothing else uses in that pass; raw specs with those codes are recognised by the family rule. */
static void amd_pairs_take_two_counters(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(6, 0);
	s.event0_fixed_only = false;
	s.events = events_set_find("zen3");
	s.amd_family = 0x19;
	add_free(&set, 1, 6);
	set.ev[set.n++] = raw("zen3", "RETIRED_SSE_AVX_FLOPS.ANY");
	set.ev[set.n++] = raw("zen3", "event=0x5f");
	set.ev[set.n++] = raw("zen3", "event=0x03,umask=0x01,cmask=2");	/* a raw FLOPs count */
	add_free(&set, 1, 6);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	for (size_t i = 1; i <= 3; i++) {
		int c = set.counter_of[i];
		assert_true(set.merged_of[i]);
		assert_true(c >= 0 && c % 2 == 0);
		for (size_t j = 0; j < set.n; j++)
			if (j != i && set.pass_of[j] == set.pass_of[i])
				assert_true(set.counter_of[j] != c && set.counter_of[j] != c + 1);
	}
	assert_false(set.merged_of[0]);
	assert_false(set.merged_of[4]);
	assert_int_equal(set.passes, 2);	/* three pairs fill six counters */
	char name[16];
	assert_string_equal(count_sched_counter_name(&set, 1, name), "pmc0+1");
	/* Zen 5 (Family 1Ah): 05FH counts exactly on its own, no pair. */
	s.amd_family = 0x1A;
	s.events = events_set_find("zen5");
	memset(&set, 0, sizeof(set));
	set.ev[set.n++] = raw("zen5", "event=0x5f");
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_false(set.merged_of[0]);
	/* With only odd counters free there is no pair: refused, saying why. */
	s.gp_usable = 0x2A;
	s.gp_in_use = 0x15;
	set.ev[0] = raw("zen5", "RETIRED_SSE_AVX_FLOPS.ANY");
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "large-increment"));
}

/* Defect h: AnyThread is refused when the set is scheduled, where the PMU deprecates it or has no
 * such bit, so nothing is planned or programmed first. */
static void any_thread_refused_when_scheduling(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(8, 4);
	add(&set, "any", 0x3C, EV_NO_FIXED, 0);
	set.ev[0].any = true;
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	s.any_deprecated = true;
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "CPUID.0AH:EDX[15]"));
	assert_int_equal(set.passes, 0);
	s.any_deprecated = false;
	s.any_absent = true;
	assert_false(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "AnyThread"));
}

/* Defect b: a raw spec in an offcore event's second form keeps OFFCORE_RSP_1 with its code; a
 * second one in the same pass takes the first form, code and MSR together. */
static void offcore_second_form_raw(void **state)
{
	(void)state;
	static struct count_set set;
	struct count_slots s = pmu(4, 3);
	s.offcore = true;
	s.events = events_set_find("skylake");
	set.ev[set.n++] = raw("skylake", "event=0xbb,umask=0x01,offcore_rsp=0x10001");
	set.ev[set.n++] = raw("skylake", "event=0xbb,umask=0x01,offcore_rsp=0x10002");
	assert_int_equal(set.ev[0].msr, 0x1A7);
	assert_int_equal(set.ev[0].msr_alt, 0x1A6);
	assert_int_equal(set.ev[0].alt_event, 0xB7);
	assert_true(count_sched_assign(&set, &s, err, sizeof(err)));
	assert_int_equal(set.passes, 1);
	assert_int_equal(set.form_of[0], 0);	/* as given: BBH with OFFCORE_RSP_1 */
	assert_int_equal(set.form_of[1], 1);	/* the other form: B7H with OFFCORE_RSP_0 */
	/* Golden Cove's second form is 2BH, the Atoms' B7H umask 02H. */
	assert_int_equal(raw("sapphirerapids", "event=0x2b,umask=0x01,offcore_rsp=1").msr, 0x1A7);
	assert_int_equal(raw("gracemont", "event=0xb7,umask=0x02,offcore_rsp=1").msr, 0x1A7);
	assert_int_equal(raw("gracemont", "event=0xb7,umask=0x01,offcore_rsp=1").msr, 0x1A6);
	/* Without a response value the offcore code is refused when parsed. */
	const struct event_set *es = events_set_find("skylake");
	struct event_spec e;
	assert_false(event_spec_parse(es, false, "event=0xbb,umask=0x01", 21, &e, err, sizeof(err)));
	assert_non_null(strstr(err, "OFFCORE_RSP_1"));
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
		cmocka_unit_test(raw_specs_keep_their_codes_restrictions),
		cmocka_unit_test(amd_family_rules_apply_to_raw_specs),
		cmocka_unit_test(disjoint_rows_refuse_the_code),
		cmocka_unit_test(taken_alone_counts_by_itself),
		cmocka_unit_test(amd_pairs_take_two_counters),
		cmocka_unit_test(any_thread_refused_when_scheduling),
		cmocka_unit_test(narrowed_named_events_stay_narrow),
		cmocka_unit_test(offcore_second_form_raw),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
