/*
 * The µops and ports of an instruction form (bench/instr_events.h; docs/instr.md "µops and ports"):
 * the events chosen for a Golden Cove, a Skylake and Zen sets, by name from the generated tables (the
 * test knows the vendor's names, never their codes); a form's unrolled throughput kernel measured by
 * bench/instr_run.c through the real MSR counting backend against the modelled Skylake and Zen 4 PMUs
 * (tests/fake/fake_pmu.h), which count what the test tells them per iteration, and the µops per
 * instance that come back, in the `instr` record and its line; the null-with-reason paths.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bench/instr_events.h"
#include "bench/instr_record.h"
#include "bench/instr_run.h"
#include "events/events.h"
#include "tests/fake/capture.h"
#include "tests/fake/fake_pmu.h"
#include "tests/fake/measure_fake.h"

static uint8_t window[BENCH_WINDOW_BYTES] __attribute__((aligned(4096)));
static int64_t pool[4096];
static struct instr_events ie;

/* The slot of kind (and port), or -1. */
static int slot_of(const struct instr_events *e, enum event_uop_kind kind, const char *port)
{
	for (size_t s = 0; s < e->nslot; s++)
		if (e->slot[s].kind == kind && !strcmp(e->slot[s].port, port ? port : ""))
			return (int)s;
	return -1;
}

/* The events counted into slot s, by name, space-separated. */
static const char *names_of(const struct instr_events *e, int s)
{
	static char buf[256];
	size_t k = 0;
	buf[0] = 0;
	for (size_t i = 0; s >= 0 && i < e->set.n; i++)
		if (e->slot_of[i] == s)
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%s", k ? " " : "", e->set.ev[i].name);
	return buf;
}

/* Every chosen event is the set's own row: the same encoding as the catalogue gives for its name. */
static void assert_catalogue_encodings(const struct event_set *set, const struct instr_events *e)
{
	for (size_t i = 0; i < e->set.n; i++) {
		struct event_def d;
		assert_true(events_find(set, e->set.ev[i].name, &d));
		assert_int_equal(e->set.ev[i].event, d.event);
		assert_int_equal(e->set.ev[i].umask, d.umask);
		assert_int_equal(e->set.ev[i].cmask, d.cmask);
		assert_true(e->set.ev[i].named);
	}
}

static const struct event_set *chosen(const char *key)
{
	const struct event_set *set = events_set_find(key);
	assert_non_null(set);
	instr_events_init(&ie, set, &count_backend_msr, NULL);
	assert_catalogue_encodings(set, &ie);
	return set;
}

static void golden_cove_counts_port_groups(void **state)
{
	(void)state;
	chosen("goldencove");
	assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_RETIRED, NULL)), "UOPS_RETIRED.SLOTS");
	assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_ISSUED, NULL)), "UOPS_ISSUED.ANY");
	assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_DISPATCHED, NULL)), "UOPS_EXECUTED.THREAD");
	/* Ports in the vendor's groups, each named as the group. */
	static const char *const groups[][2] = {
		{ "p0", "UOPS_DISPATCHED.PORT_0" },	      { "p1", "UOPS_DISPATCHED.PORT_1" },
		{ "p2_3_10", "UOPS_DISPATCHED.PORT_2_3_10" }, { "p4_9", "UOPS_DISPATCHED.PORT_4_9" },
		{ "p5_11", "UOPS_DISPATCHED.PORT_5_11" },     { "p6", "UOPS_DISPATCHED.PORT_6" },
		{ "p7_8", "UOPS_DISPATCHED.PORT_7_8" }
	};
	for (size_t i = 0; i < ARRAY_SIZE(groups); i++)
		assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_PORT, groups[i][0])), groups[i][1]);
	assert_int_equal(ie.nslot, 3 + ARRAY_SIZE(groups));
	assert_string_equal(ie.uops_why, "");
	assert_string_equal(ie.ports_why, "");
	/* Sapphire Rapids is the same core: the same names, in its own vendor data. */
	chosen("sapphirerapids");
	assert_int_equal(ie.nslot, 3 + ARRAY_SIZE(groups));
	assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_PORT, "p5_11")), "UOPS_DISPATCHED.PORT_5_11");
}

static void skylake_counts_eight_ports(void **state)
{
	(void)state;
	char port[8];
	chosen("skylake");
	assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_RETIRED, NULL)), "UOPS_RETIRED.RETIRE_SLOTS");
	assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_DISPATCHED, NULL)), "UOPS_EXECUTED.THREAD");
	for (unsigned p = 0; p < 8; p++) {
		char want[40];
		snprintf(port, sizeof(port), "p%u", p);
		snprintf(want, sizeof(want), "UOPS_DISPATCHED_PORT.PORT_%u", p);
		assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_PORT, port)), want);
	}
	assert_int_equal(ie.set.n, 11);
	/* Haswell has no thread-level dispatched event in its vendor data: none is counted. */
	chosen("haswell");
	assert_int_equal(slot_of(&ie, EV_UOP_DISPATCHED, NULL), -1);
	assert_int_not_equal(slot_of(&ie, EV_UOP_PORT, "p7"), -1);
}

static void zen_counts_ops_and_fp_pipes(void **state)
{
	(void)state;
	chosen("zen1");
	assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_RETIRED, NULL)), "RETIRED_UOPS");
	/* Ops from the decoder and the op cache are counted apart and summed into one figure. */
	assert_string_equal(
		names_of(&ie, slot_of(&ie, EV_UOP_ISSUED, NULL)),
		"UOPS_DISPATCHED_FROM_DECODER.DECODER_DISPATCHED UOPS_DISPATCHED_FROM_DECODER.OPCACHE_DISPATCHED");
	for (unsigned p = 0; p < 4; p++) {
		char port[8], want[40];
		snprintf(port, sizeof(port), "fp%u", p);
		snprintf(want, sizeof(want), "FPU_PIPE_ASSIGNMENT.TOTAL%u", p);
		assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_PORT, port)), want);
	}
	/* Zen 4's data has no pipe events: µops, and ports null with the reason. */
	chosen("zen4");
	assert_string_equal(names_of(&ie, slot_of(&ie, EV_UOP_RETIRED, NULL)), "RETIRED_OPS");
	assert_int_equal(ie.nslot, 2);
	assert_string_equal(ie.uops_why, "");
	assert_non_null(strstr(ie.ports_why, "no port events"));
	assert_non_null(strstr(ie.ports_why, "zen4"));
}

static void no_counters_no_set_and_no_events_say_why(void **state)
{
	(void)state;
	instr_events_init(&ie, events_set_find("skylake"), NULL, "perf_event_open: no PMU exposed to this VM");
	assert_null(instr_events_set(&ie));
	assert_string_equal(ie.uops_why, "no counters: perf_event_open: no PMU exposed to this VM");
	assert_string_equal(ie.ports_why, ie.uops_why);
	instr_events_init(&ie, NULL, &count_backend_msr, NULL);
	assert_null(instr_events_set(&ie));
	assert_non_null(strstr(ie.uops_why, "no event set"));
	/* A core the table names nothing for (Core 2): null with the reason, nothing counted. */
	instr_events_init(&ie, events_set_find("core"), &count_backend_msr, NULL);
	assert_null(instr_events_set(&ie));
	assert_non_null(strstr(ie.uops_why, "no uop events"));
	assert_non_null(strstr(ie.ports_why, "no port events"));
}

/* ---- counted through the harness and the modelled PMU ---------------------------------------------- */

#define PER_ITER 4 /* instances of the form per body copy */

/* The model's counts per iteration (one body copy), by event name: looked up in the set by the test. */
static struct {
	const struct event_set *set;
	struct {
		const char *name;
		uint64_t per_iter;
	} rate[8];
} mdl;

static uint64_t rate_of(void *ctx, uint16_t event, uint8_t umask)
{
	(void)ctx;
	struct event_def d;
	for (size_t i = 0; i < ARRAY_SIZE(mdl.rate) && mdl.rate[i].name; i++)
		if (events_find(mdl.set, mdl.rate[i].name, &d) && d.event == event && d.umask == umask)
			return mdl.rate[i].per_iter;
	return 0;
}

static void model_work(void *ctx, uint64_t iterations)
{
	(void)ctx;
	fake_pmu_run(iterations);
}

/* ADD r64, r64 four times (rax += rcx ...: 48 01 c8, REX.W 01 /r, Intel SDM Vol. 2A "ADD"). */
static const uint8_t ADDS[] = { 0x48, 0x01, 0xc8, 0x48, 0x01, 0xcb, 0x48, 0x01, 0xca, 0x48, 0x01, 0xcd };

static void one_form(struct instr_pack_form *f)
{
	memset(f, 0, sizeof(*f));
	f->asm_name = "ADD r64, r64";
	f->iform = "ADD_GPRv_GPRv_01";
	f->extension = "BASE";
	f->isa_set = "I86";
	f->n = 1;
	f->m[0] = (struct instr_pack_meas){ .kind = IKM_TP_UNROLLED,
					    .per_iter = PER_ITER,
					    .unroll = 8,
					    .name = "tp",
					    .body = ADDS,
					    .body_len = sizeof(ADDS) };
	memset(f->m[0].sub, IKM_NO_SUB, sizeof(f->m[0].sub));
}

/* The harness's set-up over the fake CPU whose PMU is modelled, counting with the real MSR backend. */
static void harness_on(const char *fake_cpu, struct bench_setup *s, struct instr_runner *rn)
{
	char why[192];
	if (!fake_count_setup(fake_cpu, false, false, why, sizeof(why)))
		fail_msg("count_init: %s", why);
	mdl.set = events_set_find(fake_cpu);
	assert_non_null(mdl.set);
	fake_pmu_set_rate(rate_of, NULL);
	memset(s, 0, sizeof(*s));
	s->iterations = 512;
	s->reps = 3;
	s->warmup = 1;
	s->drop_budget = 1;
	s->cb = count_backend();
	s->pool = pool;
	s->pool_cap = ARRAY_SIZE(pool);
	s->model_work = model_work;
	fake_measure_reset();
	instr_events_init(&ie, mdl.set, s->cb, NULL);
	*rn = (struct instr_runner){ .hs = s, .window = window, .events = &ie };
}

static struct instr_pack_form form;
static struct instr_result res[IKM_MAX];

/*
 * The form measured by instr_run_form on the fake CPU of that event set's name (no_counters: with counting
 * off, and that as why), and its record, captured into cap.
 */
static const char *measured(const char *fake_cpu, const char *no_counters, struct capture *cap)
{
	struct bench_setup s;
	struct instr_runner rn;
	harness_on(fake_cpu, &s, &rn);
	if (no_counters) {
		s.cb = NULL;
		instr_events_init(&ie, mdl.set, NULL, no_counters);
	}
	one_form(&form);
	instr_run_form(&rn, &form, res);
	assert_true(res[0].measured);
	struct instr_record_ctx c = { .core_per_tsc_ppm = 1000000, .events = &ie };
	capture_start(cap);
	assert_true(instr_record_emit(&form, res, &c, 0));
	const char *r = capture_find(cap, "instr");
	assert_non_null(r);
	return r;
}

static void skylake_uops_per_instance_over_two_passes(void **state)
{
	(void)state;
	struct capture cap;

	memset(&mdl, 0, sizeof(mdl));
	/* Per body copy of 4 instances: retired 4 (1 each), issued 8, dispatched 12, p0 2, p1 2, p5 1. */
	mdl.rate[0].name = "UOPS_RETIRED.RETIRE_SLOTS", mdl.rate[0].per_iter = 1 * PER_ITER;
	mdl.rate[1].name = "UOPS_ISSUED.ANY", mdl.rate[1].per_iter = 2 * PER_ITER;
	mdl.rate[2].name = "UOPS_EXECUTED.THREAD", mdl.rate[2].per_iter = 3 * PER_ITER;
	mdl.rate[3].name = "UOPS_DISPATCHED_PORT.PORT_0", mdl.rate[3].per_iter = 2;
	mdl.rate[4].name = "UOPS_DISPATCHED_PORT.PORT_1", mdl.rate[4].per_iter = 2;
	mdl.rate[5].name = "UOPS_DISPATCHED_PORT.PORT_5", mdl.rate[5].per_iter = 1;
	const char *r = measured("skylake", NULL, &cap);
	assert_true(res[0].uops.counted);
	/* Eleven events on the model's eight general counters: two passes, each kind back as told. */
	assert_int_equal(ie.set.passes, 2);
	assert_int_equal(res[0].uops.v[slot_of(&ie, EV_UOP_RETIRED, NULL)], 1000);
	assert_int_equal(res[0].uops.v[slot_of(&ie, EV_UOP_ISSUED, NULL)], 2000);
	assert_int_equal(res[0].uops.v[slot_of(&ie, EV_UOP_DISPATCHED, NULL)], 3000);
	assert_int_equal(res[0].uops.v[slot_of(&ie, EV_UOP_PORT, "p0")], 500);
	assert_int_equal(res[0].uops.v[slot_of(&ie, EV_UOP_PORT, "p1")], 500);
	assert_int_equal(res[0].uops.v[slot_of(&ie, EV_UOP_PORT, "p5")], 250);
	assert_int_equal(res[0].uops.v[slot_of(&ie, EV_UOP_PORT, "p6")], 0);
	/* The record and its line. */
	assert_non_null(strstr(r, "\"uops\":{\"retired\":1.000,\"issued\":2.000,\"dispatched\":3.000},"
				  "\"ports\":{\"p0\":0.500,\"p1\":0.500,\"p2\":0.000,\"p3\":0.000,\"p4\":0.000,"
				  "\"p5\":0.250,\"p6\":0.000,\"p7\":0.000},\"uops_why\":null,\"ports_why\":null"));
	const char *line = NULL;
	for (size_t i = 0; i < cap.n; i++)
		if (cap.kinds[i] == OUT_TEXT && strstr(cap.lines[i], "instr ADD r64, r64"))
			line = cap.lines[i];
	assert_non_null(line);
	/* Ports that took no µop are left off the line (0.25 is written with two decimals, rounded). */
	assert_non_null(strstr(line, "  uops r1.00 i2.00 d3.00  ports p0:0.50 p1:0.50 p5:0.25"));
	assert_null(strstr(line, "p6:"));
	capture_free(&cap);
	count_restore();
}

static void zen4_sums_the_ops_dispatched_from_the_front_end(void **state)
{
	(void)state;
	struct capture cap;

	memset(&mdl, 0, sizeof(mdl));
	mdl.rate[0].name = "RETIRED_OPS", mdl.rate[0].per_iter = 1 * PER_ITER;
	mdl.rate[1].name = "OPS_SOURCE_DISPATCHED_FROM_DECODER.DECODER", mdl.rate[1].per_iter = 1;
	mdl.rate[2].name = "OPS_SOURCE_DISPATCHED_FROM_DECODER.OPCACHE", mdl.rate[2].per_iter = 3;
	const char *r = measured("zen4", NULL, &cap);
	assert_true(res[0].uops.counted);
	assert_int_equal(res[0].uops.v[slot_of(&ie, EV_UOP_RETIRED, NULL)], 1000);
	assert_int_equal(res[0].uops.v[slot_of(&ie, EV_UOP_ISSUED, NULL)], 1000); /* (1 + 3 + 0) / 4 */
	assert_non_null(strstr(r, "\"uops\":{\"retired\":1.000,\"issued\":1.000},\"ports\":null,\"uops_why\":null,"
				  "\"ports_why\":\"no port events: "));
	capture_free(&cap);
	count_restore();
}

/* No counters (this host, a VM without a PMU): the form is measured, its µops and ports null with why. */
static void without_counters_the_record_says_why(void **state)
{
	(void)state;
	struct capture cap;

	memset(&mdl, 0, sizeof(mdl));
	const char *r =
		measured("skylake", "perf_event_open: No such file or directory (no PMU exposed to this VM)", &cap);
	assert_false(res[0].uops.counted);
	assert_non_null(strstr(r, "\"uops\":null,\"ports\":null,\"uops_why\":\"no counters: perf_event_open: No such "
				  "file or directory (no PMU exposed to this VM)\",\"ports_why\":\"no counters: "));
	for (size_t i = 0; i < cap.n; i++)
		assert_null(strstr(cap.lines[i], "  uops "));
	capture_free(&cap);
	/* A record written without the run's events (an older caller) says so too. */
	struct instr_record_ctx c = { .core_per_tsc_ppm = 1000000 };
	capture_start(&cap);
	instr_record_emit(&form, res, &c, 0);
	assert_non_null(
		strstr(capture_find(&cap, "instr"), "\"uops\":null,\"ports\":null,\"uops_why\":\"no counters: "));
	capture_free(&cap);
	count_restore();
}

/*
 * A register chain link measured under a cycle (Raptor Cove's `add r64, imm8`: 0.19) is said to be resolved at
 * rename; one whose every sample ran under half a cycle has no latency at all: 0, with the rate the chain ran at.
 * A one-cycle link, a link through a connector, an upper bound and one with the kernel's own note keep their
 * figure (the note stays the kernel's).
 */
static void a_link_under_a_cycle_is_said_to_be_resolved_at_rename(void **state)
{
	(void)state;
	static const struct {
		int64_t milli, hi;
		const char *via, *note;
		enum ikm_bound bound;
		const char *cycles, *note_want;
	} cases[] = {
		{ 187, 187, NULL, NULL, IKM_EXACT,
		  "\"cycles\":0.000,\"spread\":{\"min\":0.000,\"max\":0.000},\"unstable\":null,"
		  "\"chain_rate\":0.187",
		  "\"note\":\"resolved at rename: no execution unit on the chain, so no latency; chain_rate is the "
		  "renamer's rate\"" },
		{ 480, 499, NULL, NULL, IKM_EXACT, "\"cycles\":0.000,", "\"note\":\"resolved at rename: " },
		{ 480, 500, NULL, NULL, IKM_EXACT, "\"cycles\":0.480,",
		  "\"note\":\"under a cycle: no execution unit is that "
		  "fast, the core resolved the chain at rename\"" },
		{ 899, 899, NULL, NULL, IKM_EXACT, "\"chain_rate\":null", "\"note\":\"under a cycle: " },
		{ 900, 900, NULL, NULL, IKM_EXACT, "\"cycles\":0.900,", "\"note\":null" },
		{ 1000, 1000, NULL, NULL, IKM_EXACT, "\"cycles\":1.000,", "\"note\":null" },
		{ 187, 187, "movq r64, xmm (measured alone, subtracted)", NULL, IKM_EXACT, "\"cycles\":0.187,",
		  "\"note\":null" },
		{ 187, 187, NULL, NULL, IKM_UPPER, "\"cycles\":0.187,", "\"note\":\"under a cycle: " },
		{ 172, 172, NULL, "move elimination may make this 0", IKM_EXACT, "\"cycles\":0.000,",
		  "\"note\":\"move elimination may make this 0\"" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct capture cap;
		memset(&form, 0, sizeof(form));
		memset(res, 0, sizeof(res));
		form.asm_name = "ADD r64, imm8";
		form.iform = "ADD_GPRv_IMMb";
		form.extension = "BASE";
		form.isa_set = "I86";
		form.n = 1;
		form.m[0] = (struct instr_pack_meas){ .kind = IKM_LATENCY,
						      .from = "op1",
						      .to = "op1",
						      .via = cases[i].via,
						      .note = cases[i].note,
						      .bound = cases[i].bound };
		res[0].measured = true;
		res[0].per_instance = res[0].lo = cases[i].milli;
		res[0].hi = cases[i].hi;
		struct instr_record_ctx c = { .core_per_tsc_ppm = 1000000 };
		capture_start(&cap);
		assert_true(instr_record_emit(&form, res, &c, 0));
		const char *r = capture_find(&cap, "instr");
		assert_non_null(r);
		if (!strstr(r, cases[i].cycles) || !strstr(r, cases[i].note_want))
			fail_msg("case %zu: no %s or no %s in %s", i, cases[i].cycles, cases[i].note_want, r);
		capture_free(&cap);
	}
	/* Under an emulator the time is the emulator's: no renamer is inferred from it. */
	struct capture cap;
	res[0].per_instance = res[0].lo = res[0].hi = 187;
	form.m[0].bound = IKM_EXACT;
	form.m[0].via = form.m[0].note = NULL;
	struct instr_record_ctx emu = { .core_per_tsc_ppm = 1000000, .emulated = true };
	capture_start(&cap);
	assert_true(instr_record_emit(&form, res, &emu, 0));
	const char *r = capture_find(&cap, "instr");
	assert_non_null(strstr(r, "\"cycles\":0.187,"));
	assert_non_null(strstr(r, "\"chain_rate\":null"));
	assert_non_null(strstr(r, "\"note\":null"));
	capture_free(&cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_link_under_a_cycle_is_said_to_be_resolved_at_rename),
		cmocka_unit_test(golden_cove_counts_port_groups),
		cmocka_unit_test(skylake_counts_eight_ports),
		cmocka_unit_test(zen_counts_ops_and_fp_pipes),
		cmocka_unit_test(no_counters_no_set_and_no_events_say_why),
		cmocka_unit_test(skylake_uops_per_instance_over_two_passes),
		cmocka_unit_test(zen4_sums_the_ops_dispatched_from_the_front_end),
		cmocka_unit_test(without_counters_the_record_says_why),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
