/*
 * A form's connectors (bench/instr_run.h; docs/instr.md "Running the kernels"): measured once per run and
 * subtracted from the kernels that name them; one whose every sample was thrown away leaves those kernels
 * without a figure, says why in the record, and is measured again for the next form that needs it (CI once
 * lost MOVSB's this way under the parallel test load); a kernel that kept no sample says so (unkept, which
 * pmuboot-host's later passes go by).  Run by instr_run_form on the fake CPU, whose clock
 * (tests/fake/measure_fake.h) the test disturbs: the kernels really run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bench/instr_record.h"
#include "bench/instr_run.h"
#include "platform/calib.h"
#include "tests/fake/capture.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/measure_fake.h"

static uint8_t window[BENCH_WINDOW_BYTES] __attribute__((aligned(4096)));
static int64_t pool[4096];

#define PER_ITER 4 /* instances per body copy */

/* ADD r64, r64 four times (REX.W 01 /r, Intel SDM Vol. 2A "ADD"): the form's kernel. */
static const uint8_t ADDS[] = { 0x48, 0x01, 0xc8, 0x48, 0x01, 0xcb, 0x48, 0x01, 0xca, 0x48, 0x01, 0xcd };
/* MOV r64, r64 four times (REX.W 89 /r, SDM Vol. 2B "MOV"): the connector alone. */
static const uint8_t MOVS[] = { 0x48, 0x89, 0xc8, 0x48, 0x89, 0xcb, 0x48, 0x89, 0xca, 0x48, 0x89, 0xcd };

/*
 * While set, every other run of the fake clock is slow: each sample's N or 2N run, so none is kept.  It
 * passes before the form's own kernels (the runner's `before` hook), so only the connector meets it.
 */
static bool storm;
static uint64_t stormy(unsigned run, const struct bench_call *c) { return storm && run % 2 ? c->trips * 1000 : 0; }
static void storm_passes(void *ctx, const struct instr_pack_form *f, size_t j)
{
	(void)ctx, (void)f, (void)j;
	storm = false;
}

/* A form of a connector "conn" and a latency that subtracts it per instance. */
static void form_with_connector(struct instr_pack_form *f, const char *asm_name)
{
	memset(f, 0, sizeof(*f));
	f->asm_name = asm_name;
	f->iform = "ADD_GPRv_GPRv_01";
	f->extension = "BASE";
	f->isa_set = "I86";
	f->n = 2;
	f->m[0] = (struct instr_pack_meas){ .kind = IKM_CONNECTOR,
					    .per_iter = PER_ITER,
					    .unroll = 8,
					    .name = "conn",
					    .via = "mov rax, rcx",
					    .body = MOVS,
					    .body_len = sizeof(MOVS) };
	f->m[1] = (struct instr_pack_meas){ .kind = IKM_LATENCY,
					    .from = "op2",
					    .to = "op1",
					    .per_iter = PER_ITER,
					    .unroll = 8,
					    .name = "lat",
					    .body = ADDS,
					    .body_len = sizeof(ADDS) };
	memset(f->m[0].sub, IKM_NO_SUB, sizeof(f->m[0].sub));
	memset(f->m[1].sub, IKM_NO_SUB, sizeof(f->m[1].sub));
	f->m[1].sub[0] = 0;
}

static struct bench_setup hs;
static struct instr_runner rn;
static struct instr_pack_form form;
static struct instr_result res[IKM_MAX];

static int setup(void **state)
{
	(void)state;
	fake_reset();
	fake_measure_reset();
	fake_measure_extra(stormy);
	memset(&hs, 0, sizeof(hs));
	hs.iterations = 256;
	hs.reps = 3;
	hs.warmup = 1;
	hs.drop_budget = 2;
	hs.pool = pool;
	hs.pool_cap = ARRAY_SIZE(pool);
	rn = (struct instr_runner){ .hs = &hs, .window = window, .before = storm_passes };
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_measure_extra(NULL);
	storm = false;
	return 0;
}

/* The form measured and its record (which has a figure when res[1] was measured), captured into cap. */
static const char *run_and_record(const char *asm_name, struct capture *cap)
{
	form_with_connector(&form, asm_name);
	instr_run_form(&rn, &form, res);
	struct instr_record_ctx c = { .core_per_tsc_ppm = 1000000 };
	capture_start(cap);
	assert_int_equal(instr_record_emit(&form, res, &c, 0), res[1].measured);
	const char *r = capture_find(cap, "instr");
	assert_non_null(r);
	return r;
}

static void a_measured_connector_is_subtracted_and_kept_for_the_run(void **state)
{
	(void)state;
	struct capture cap;
	run_and_record("ADD r64, r64", &cap);
	assert_true(res[0].measured && res[1].measured);
	assert_true(res[0].per_instance > 0);
	int64_t conn = res[0].per_instance;
	unsigned first = fake_measure_runs();
	capture_free(&cap);
	/* The next form names the same connector: the run's figure, not measured again (fewer runs). */
	const char *r = run_and_record("ADD r64, r64 (again)", &cap);
	assert_true(res[0].measured && res[1].measured);
	assert_int_equal(res[0].per_instance, conn);
	assert_non_null(strstr(r, "\"connectors\":[{\"name\":\"conn\",\"asm\":\"mov rax, rcx\",\"cycles\":"));
	assert_true(fake_measure_runs() - first < first);
	capture_free(&cap);
}

static void a_connector_without_a_figure_says_why_and_is_measured_again(void **state)
{
	(void)state;
	struct capture cap;
	storm = true;
	const char *r = run_and_record("ADD r64, r64", &cap);
	assert_false(res[0].measured);
	assert_false(res[1].measured);
	assert_non_null(strstr(res[0].why, "not measured: "));
	assert_string_equal(res[1].why, "its connector could not be measured");
	/* Both were run and kept nothing: pmuboot-host measures such a form again in a later pass. */
	assert_true(res[0].unkept && res[1].unkept);
	/* The record: null cycles, never a figure, and why. */
	assert_non_null(
		strstr(r, "{\"name\":\"conn\",\"asm\":\"mov rax, rcx\",\"cycles\":null,\"why\":\"not measured: "));
	capture_free(&cap);
	/* The next form that needs the connector measures it, and gets its own figure. */
	assert_false(storm);
	r = run_and_record("ADD r64, r64 (later)", &cap);
	assert_true(res[0].measured);
	assert_true(res[1].measured);
	assert_false(res[0].unkept || res[1].unkept);
	assert_null(strstr(r, "could not be measured"));
	capture_free(&cap);
}

/*
 * A connecting instruction that cannot be measured alone is counted at its least, a cycle, and taken off the
 * figure, which stays an upper bound (instr/kernel.h IKM_LEAST_MILLI): the same kernel reads that much less.
 */
/* Whether c runs a form's kernel, not the harness's calibration chain or contention probe. */
static bool form_kernel(const struct bench_call *c)
{
	return c->kernel != (bench_kernel_fn)(void (*)(void))calib_add_chain &&
	       c->kernel != (bench_kernel_fn)(void (*)(void))calib_add_block;
}
/* Each instance of the form's kernels a little more than IKM_LEAST_MAX cycles. */
static uint64_t long_trips(unsigned run, const struct bench_call *c)
{
	(void)run;
	return form_kernel(c) ? c->trips * 8 * PER_ITER * IKM_LEAST_MAX : 0;
}
static void cycles_counted_at_their_least_are_subtracted(void **state)
{
	(void)state;
	fake_measure_extra(long_trips);
	form_with_connector(&form, "MOVQ xmm, r64");
	form.m[1].sub[0] = IKM_NO_SUB;
	form.m[1].bound = IKM_UPPER;
	instr_run_form(&rn, &form, res);
	assert_true(res[1].measured);
	int64_t whole = res[1].per_instance, lo = res[1].lo, hi = res[1].hi;
	form.m[1].least = IKM_LEAST_MAX;
	instr_run_form(&rn, &form, res);
	assert_true(res[1].measured);
	assert_int_equal(res[1].per_instance, whole - IKM_LEAST_MAX * IKM_LEAST_MILLI);
	assert_int_equal(res[1].lo, lo - IKM_LEAST_MAX * IKM_LEAST_MILLI);
	assert_int_equal(res[1].hi, hi - IKM_LEAST_MAX * IKM_LEAST_MILLI);
	struct capture cap;
	struct instr_record_ctx c = { .core_per_tsc_ppm = 1000000 };
	capture_start(&cap);
	assert_true(instr_record_emit(&form, res, &c, 0));
	const char *r = capture_find(&cap, "instr");
	assert_non_null(r);
	assert_non_null(strstr(r, "\"bound\":\"upper\""));
	capture_free(&cap);
}

/* While set, each trip costs this much more: the connector, measured before the `before` hook clears it. */
static bool slow_connector;
static uint64_t slow_first(unsigned run, const struct bench_call *c)
{
	(void)run;
	return slow_connector && form_kernel(c) ? c->trips * 8 * PER_ITER : 0;
}
static void connector_done(void *ctx, const struct instr_pack_form *f, size_t j)
{
	(void)ctx, (void)f, (void)j;
	slow_connector = false;
}

/*
 * A round trip that took less than its connector alone leaves no latency for the pair: the record has no
 * figure and why names both numbers, never a negative latency (under QEMU's TCG, ANDN's op2->flags read
 * "<=-0.84" before this).
 */
static void a_round_trip_shorter_than_its_connectors_is_no_figure(void **state)
{
	(void)state;
	fake_measure_extra(slow_first);
	rn.before = connector_done;
	rn.nconn = 0;
	slow_connector = true;
	struct capture cap;
	const char *r = run_and_record("ADD r64, r64 (slow connector)", &cap);
	assert_true(res[0].measured);
	assert_false(res[1].measured);
	assert_false(res[1].unkept);
	assert_true(res[0].per_instance > 0);
	assert_non_null(strstr(res[1].why, "round trip "));
	assert_non_null(strstr(res[1].why, "< its connectors' "));
	assert_null(strstr(r, "\"cycles\":-"));
	assert_non_null(strstr(r, "no latency left"));
	capture_free(&cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_measured_connector_is_subtracted_and_kept_for_the_run, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_connector_without_a_figure_says_why_and_is_measured_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(cycles_counted_at_their_least_are_subtracted, setup, teardown),
		cmocka_unit_test_setup_teardown(a_round_trip_shorter_than_its_connectors_is_no_figure, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
