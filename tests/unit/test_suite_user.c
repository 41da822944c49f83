/*
 * User kernels in the benchmark stage (bench/src_user.c) end to end
 * against fakes: arenas and timing (tests/fake), a counting backend whose
 * counts follow each event's role, the guard of tests/fake/guard_fake.c (a
 * plain call, no watchdog) - and the kernels' generated code really runs on
 * this CPU.  Asserts on the records: what is chosen, in which order, what
 * the bench record says about a user kernel, and the errors for bad input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "bench/stage.h"
#include "bench/ukernel.h"
#include "events/events.h"
#include "pmu/count/count.h"
#include "tests/fake/arena_fake.h"
#include "tests/fake/capture.h"
#include "tests/fake/hw_fake.h"
#include "tests/fake/timing_fake.h"
#include "tests/unit/record_asserts.h"
#include "tests/unit/suite_test.h"

/* A kernel file: body `add qword [rsi], 1` (48 83 06 01), so running it leaves a trace in the window. */
static size_t file_of(const char *name, const char *control, uint16_t unroll, uint8_t *out, size_t cap_n)
{
	static struct ukernel k;
	char why[128];
	memset(&k, 0, sizeof(k));
	snprintf(k.name, sizeof(k.name), "%s", name);
	snprintf(k.control, sizeof(k.control), "%s", control);
	k.unroll = unroll;
	memcpy(k.body, "\x48\x83\x06\x01", 4);
	k.body_len = 4;
	size_t n = ukernel_encode(&k, out, cap_n, why, sizeof(why));
	assert_true(n > 0);
	return n;
}

static void user_kernels_measured_after_builtins_controls_first(void **state)
{
	(void)state;
	static uint8_t a[UK_FILE_MAX], b[UK_FILE_MAX];
	const char *r[8], *u[2], *e[4];
	machine(true);
	struct ukernel_file files[] = {
		{ "k/b.pmuk", b, file_of("inc_b", "inc_a", 4, b, sizeof(b)), NULL },
		{ "k/a.pmuk", a, file_of("inc_a", "", 0, a, sizeof(a)), NULL },
		{ "k/broken.pmuk", (const uint8_t *)"PMUK", 4, NULL },
	};
	struct ukernel_hex hex[] = { { "addhex", "4801c8" } };
	struct bench_params p = { .bench = "ref.add_chain,user.inc_b,user.addhex,user.nope", .events = "",
				  .iterations = ITERATIONS, .reps = 5, .warmup = 1, .pages = BENCH_PAGES_4K,
				  .cpu = &ci, .kernel_files = files, .nkernel_files = 3,
				  .kernel_hex = hex, .nkernel_hex = 1, .kernel_timeout_ms = 50 };
	bench_stage(&p);

	/* The broken file and the unknown name are errors naming them; the rest runs. */
	assert_int_equal(records_of_type(&cap, "error", e, 4), 2);
	record_has(e[0], "\"what\":\"k/broken.pmuk\"");
	record_has(e[0], "too short");
	record_has(e[1], "no user kernel 'user.nope' (loaded: inc_b, inc_a, addhex)");

	assert_int_equal(records_of_type(&cap, "user_kernels", u, 2), 1);
	record_has(u[0], "\"chosen\":3");
	record_has(u[0], "\"watchdog\":null,\"watchdog_why\":\"unit tests have no watchdog\"");

	/* Built-ins first (the references), then the control inc_a before inc_b, then addhex. */
	assert_int_equal(records_of_type(&cap, "bench", r, 8), 5);
	/* The setup's count is every variant the stage measures, the user's included. */
	const char *setup[1];
	assert_int_equal(records_of_type(&cap, "bench_setup", setup, 1), 1);
	record_has(setup[0], "\"variants\":5,\"rows\":5,");
	record_has(r[0], "\"kernel\":\"ref\",\"variant\":\"add_chain\"");
	record_has(r[2], "\"kernel\":\"user\",\"variant\":\"inc_a\",\"control\":null");
	record_has(r[3], "\"kernel\":\"user\",\"variant\":\"inc_b\",\"control\":\"inc_a\"");
	record_has(r[4], "\"kernel\":\"user\",\"variant\":\"addhex\"");
	for (size_t i = 2; i < 5; i++) {
		record_has(r[i], "\"method\":\"differential_n_2n\"");
		record_has(r[i], "\"iterations\":256");
		record_has(r[i], "\"cycles\":{\"min\":1.000,\"median\":1.000");
		record_has(r[i], "\"instructions\":{\"min\":2.000");
		record_has(r[i], "\"expect\":\"sweep\"");
	}
	record_has(r[3], "\"penalty\":{\"median\":0.000");
	record_has(r[3], "\"body\":\"bytes 48830601\",\"body_hex\":\"48830601\"");
	record_has(r[4], "\"body_hex\":\"4801c8\"");
	assert_null(strstr(r[0], "body_hex"));
}

/* A user kernel's figures go through the audit's verdict like a built-in's: a blamed counter's are refused. */
static void user_kernels_obey_the_audit(void **state)
{
	(void)state;
	const char *r[4];
	static struct audit_verdict v;
	machine(true);
	memset(&v, 0, sizeof(v));
	v.ran = true;
	v.bad_gp = 0xF;
	snprintf(v.why, sizeof(v.why), "audit: instructions failed on pmc1");
	struct ukernel_hex hex[] = { { "addhex", "4801c8" } };
	struct bench_params p = { .bench = "user.addhex", .events = "", .iterations = ITERATIONS, .reps = 3,
				  .warmup = 0, .pages = BENCH_PAGES_4K, .cpu = &ci, .kernel_hex = hex, .nkernel_hex = 1,
				  .kernel_timeout_ms = 50, .audit = &v };
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "bench", r, 4), 1);
	record_has(r[0], "\"kernel\":\"user\",\"variant\":\"addhex\"");
	record_has(r[0], "\"cycles\":null,\"cycles_invalid\":\"audit: instructions failed on pmc1\"");
	record_has(r[0], "\"instructions\":null");
}

static void nothing_loaded_and_none_chosen(void **state)
{
	(void)state;
	const char *e[2], *u[2];
	machine(true);
	struct bench_params p = { .bench = "user.x", .events = "", .iterations = ITERATIONS, .reps = 3, .warmup = 0,
				  .pages = BENCH_PAGES_4K, .cpu = &ci, .kernel_timeout_ms = 50 };
	bench_stage(&p);
	assert_int_equal(records_of_type(&cap, "error", e, 2), 1);
	record_has(e[0], "no user kernel 'user.x' (loaded: none");
	assert_int_equal(records_of_type(&cap, "user_kernels", u, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(user_kernels_measured_after_builtins_controls_first, teardown),
		cmocka_unit_test_teardown(nothing_loaded_and_none_chosen, teardown),
		cmocka_unit_test_teardown(user_kernels_obey_the_audit, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
