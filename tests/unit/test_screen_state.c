/*
 * The readable screen's model (output/screen_state.c) fed real records (tests/unit/screen_records.h,
 * tests/fixtures/captures), each built again through lib/record.h and emitted to a sink as boot/screen.c
 * registers it, so the screen reads their fields as it does in a run; each rebuilt line is checked to be
 * the real one byte for byte.  The header lines, the rows with their figures and check status, and the
 * counts the summary shows, for a whole run on one processor and on two; the row table overflowing; a
 * record cut to its buffer; records after the run's end; whatever the builder makes of the hostile captures.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/screen_state.h"
#include "tests/unit/rec_rebuild.h"
#include "tests/unit/screen_lines.h"
#include "tests/unit/screen_records.h"

/* The line of the last record the screen's sink was given. */
static char last_line[REC_MAX + 16];
static size_t last_len;

static void screen_text(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	(void)kind;
	ss_text(line, len);
}

static void screen_record(void *ctx, const struct rec *r)
{
	const char *line = rec_line(r, &last_len);
	(void)ctx;
	assert_true(last_len < sizeof(last_line));
	memcpy(last_line, line, last_len);
	ss_record(r);
}

static const struct out_sink screen_sink = { .name = "screen", .write_line = screen_text, .write_record = screen_record };

/* A record line, as the program would write it; the rebuilt line is the real one, byte for byte. */
static void feed_n(const char *line, size_t len)
{
	assert_true(rebuild_emit(line, len));
	assert_int_equal(last_len, len);
	assert_memory_equal(last_line, line, len);
}

static void feed(const char *line)
{
	feed_n(line, strlen(line));
}

static void text(const char *line)
{
	out_line(line, strlen(line));
}

static bool is_record(const char *line, size_t len)
{
	return len > strlen(REC_PREFIX) && !memcmp(line, REC_PREFIX, strlen(REC_PREFIX));
}

/* A real line with one part replaced (a status, a name), for the cases a capture here cannot show. */
static void feed_with(const char *line, const char *from, const char *to)
{
	char buf[8192];
	const char *at = strstr(line, from);
	assert_non_null(at);
	int n = snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - line), line, to, at + strlen(from));
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	feed(buf);
}

static struct ss_row *row(const char *name)
{
	for (unsigned i = 0; i < ssp->nrows; i++)
		if (!strcmp(ssp->rows[i].name, name))
			return &ssp->rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

static struct config cfg;

static int fresh(void **state)
{
	(void)state;
	ssp = calloc(1, sizeof(*ssp));
	assert_non_null(ssp);
	config_defaults(&cfg);
	ssp->cfg = &cfg;
	out_reset();
	assert_true(out_add_sink(&screen_sink));
	return 0;
}

static int done(void **state)
{
	(void)state;
	out_reset();
	free(ssp);
	ssp = NULL;
	return 0;
}

static void run_on_one_processor(void)
{
	static const char *const run[] = {
		QEMU_BEGIN, QEMU_PLATFORM, QEMU_CPU, QEMU_CACHE, QEMU_TOPOLOGY, QEMU_TIMING, QEMU_PMU,
		QEMU_AUDIT_ABSENT, QEMU_IBS, QEMU_BENCH_SETUP, QEMU_BENCH_ADD_CHAIN, QEMU_CHECK_ADD_CHAIN,
		QEMU_BENCH_LOAD_CHAIN, QEMU_CHECK_LOAD_CHAIN, QEMU_BENCH_FORWARD, QEMU_BENCH_SIZE_MISMATCH,
		QEMU_CHECK_SIZE_MISMATCH, QEMU_END,
	};
	for (size_t i = 0; i < ARRAY_SIZE(run); i++)
		feed(run[i]);
}

/* The image's own run under QEMU: one processor, no PMU, every check skipped. */
static void a_run_on_one_processor(void **state)
{
	(void)state;
	struct config_error err;
	const char *sel = "bench=store_forward,ref";
	assert_true(config_apply_word(&cfg, "test", sel, strlen(sel), &err));

	run_on_one_processor();
	assert_string_equal(ssp->title, "pmuboot 0.1.0 (build af0605f817b9)");
	assert_string_equal(ssp->saved, "\\pmuboot\\results-0001.jsonl on the boot medium");
	assert_string_equal(ssp->machine, "QEMU Standard PC (Q35 + ICH9, 2009), 511 MiB, 1 CPU");
	assert_string_equal(ssp->cpu, "AuthenticAMD family 0xf model 0x6b stepping 1, QEMU TCG CPU version 2.5+");
	assert_string_equal(ssp->cpu2, "K8 (Family 0Fh), microcode 0x1000065, under QEMU TCG, TSC 2599 MHz");
	assert_string_equal(ssp->cache, "L1d 64K 2-way, L1i 64K 2-way, L2 512K 16-way, L3 16M 16-way");
	assert_string_equal(ssp->pmu, "none: the counters CPUID implies do not hold a value written to them: no "
				      "working PMU (QEMU TCG exposes none)");
	assert_string_equal(ssp->ibs, "not used: CPUID 8000_0001h:ECX[10] (IBS) is clear");
	assert_false(ssp->multi);
	assert_int_equal(ssp->audit_absent, 1);
	assert_int_equal(ssp->audit_pass + ssp->audit_fail, 0);

	/* bench_setup's 17 variants of the two kernels; progress counts the figures as they come. */
	assert_int_equal(ssp->variants, 17);
	assert_int_equal(ssp->bench_total, 17);
	assert_int_equal(ssp->bench_done, 4);
	assert_string_equal(ssp->bench_last, "store_forward.size_mismatch");
	assert_string_equal(ssp->kernels, "ref, store_forward");

	assert_int_equal(ssp->nrows, 4);
	assert_int_equal(ssp->rows_dropped, 0);
	struct ss_row *r = row("ref.add_chain");
	assert_string_equal(r->cycles, "0.987");
	assert_string_equal(r->penalty, "");
	assert_int_equal(r->check, SS_SKIP);
	/* An unstable figure is never shown as a plain one. */
	r = row("ref.load_chain");
	assert_string_equal(r->cycles, "2.032~");
	assert_int_equal(ssp->bench_unstable, 1);
	r = row("store_forward.forward");
	assert_string_equal(r->cycles, "5.083");
	assert_int_equal(r->check, SS_NONE);	/* a control has no check of its own */
	r = row("store_forward.size_mismatch");
	assert_string_equal(r->cycles, "15.692");
	assert_string_equal(r->penalty, "+10.609");
	assert_int_equal(r->check, SS_SKIP);

	assert_int_equal(ssp->checks[SS_SKIP], 3);
	assert_int_equal(ssp->checks[SS_PASS] + ssp->checks[SS_FAIL] + ssp->checks[SS_UNSTABLE], 0);
	assert_string_equal(ssp->skip_reason, "timing under an emulator is meaningless");
	assert_false(ssp->skip_reasons_differ);
	assert_string_equal(ssp->failed, "");
	assert_int_equal(ssp->nerrors, 0);
	assert_string_equal(ssp->end_status, "ok");
}

/* The committed capture, whole: its figures, read here without the reader under test. */
static void the_committed_capture_whole(void **state)
{
	(void)state;
	struct lines l;
	unsigned benches = 0, skips = 0;
	assert_true(read_lines(CAPTURES "/qemu-usb-serial.log", &l));
	for (size_t i = 0; i < l.n; i++) {
		if (is_record(l.line[i], l.len[i]))
			feed_n(l.line[i], l.len[i]);
		else
			out_line(l.line[i], l.len[i]);
	}
	for (size_t i = 0; i < l.n; i++) {
		char line[4096], name[64], cycles[16], arena[24] = "";
		snprintf(line, sizeof(line), "%.*s", (int)l.len[i], l.line[i]);
		skips += strstr(line, "\"type\":\"check\"") && strstr(line, "\"status\":\"skip\"");
		if (!strstr(line, "@pmuboot {\"type\":\"bench\""))
			continue;
		benches++;
		/* Every bench record of this capture has "kernel", "variant", "arena" and "cycles":{"min":..,"median":. */
		const char *k = strstr(line, "\"kernel\":\"") + 10, *v = strstr(line, "\"variant\":\"") + 11;
		const char *a = strstr(line, "\"arena\":") + 8;
		const char *m = strstr(strstr(line, "\"cycles\":{"), "\"median\":") + 9;
		if (*a == '"')
			snprintf(arena, sizeof(arena), " @%.*s", (int)strcspn(a + 1, "\""), a + 1);
		snprintf(name, sizeof(name), "%.*s.%.*s%s", (int)strcspn(k, "\""), k, (int)strcspn(v, "\""), v, arena);
		snprintf(cycles, sizeof(cycles), "%.*s", (int)strcspn(m, ",}"), m);
		assert_string_equal(row(name)->cycles, cycles);
	}
	free_lines(&l);
	assert_int_equal(benches, 23);
	assert_int_equal(ssp->bench_done, benches);
	assert_int_equal(ssp->nrows, benches);
	assert_int_equal(ssp->checks[SS_SKIP], skips);
	assert_string_equal(ssp->end_status, "ok");
	assert_string_equal(ssp->title, "pmuboot 0.1.0 (build 0cb4266ba3f1)");
	assert_string_equal(ssp->message, "pmuboot: run finished (clean); on_finish=shutdown");
}

static void a_pmu_and_the_audit(void **state)
{
	(void)state;
	feed(HOST_PMU_SKX);
	assert_string_equal(ssp->pmu, "intel_arch version 4: 8 general counters x 48 bits, 3 fixed");
	feed(QEMU_PMU);		/* a later pass's: the first is kept */
	assert_string_equal(ssp->pmu, "intel_arch version 4: 8 general counters x 48 bits, 3 fixed");
	feed(HOST_AUDIT_FAIL);
	feed(HOST_AUDIT_PASS);
	feed(HOST_AUDIT_FAIL2);
	feed(HOST_AUDIT_ABSENT);
	feed(QEMU_AUDIT_ABSENT);
	assert_int_equal(ssp->audit_pass, 1);
	assert_int_equal(ssp->audit_fail, 2);
	assert_int_equal(ssp->audit_absent, 2);
	assert_string_equal(ssp->audit_failed, "instructions pmc1, full-width pmc1");
	/* A failed check that names no counter is listed by its name alone. */
	feed_with(HOST_AUDIT_FAIL, "\"counter\":\"pmc1\"", "\"counter\":null");
	assert_string_equal(ssp->audit_failed, "instructions pmc1, full-width pmc1, instructions");
}

/*
 * Instruction forms (instr=): a row each, named by the form, its headline latency under cycles (the
 * destination's own chain, else the largest exact pair; <= a bound, ~ unstable) and beside it which pair
 * that is and the throughput; a fault says so; the image's emulated figures say so.  Issue 31 asks for a
 * line per form on the screen; the screen had none and said "no benchmarks ran".
 */
static void instruction_forms_a_row_each(void **state)
{
	(void)state;
	feed(QEMU_INSTR_ADD);
	feed(INSTR_POPCNT);
	feed(INSTR_BT_IMM8);
	feed(INSTR_RDPMC);
	feed(QEMU_INSTR_ADD); /* the same name again: its own row (VEX and EVEX forms share names) */
	assert_int_equal(ssp->instr_done, 5);
	assert_int_equal(ssp->nrows, 5);
	const struct ss_row *r = row("ADD r64, r64");
	assert_string_equal(r->cycles, "1.035~");
	assert_string_equal(r->events, "emulated: op1->op1; tp 0.137 (unrolled)");
	r = row("POPCNT r64, r64");
	assert_string_equal(r->cycles, "2.981");
	assert_string_equal(r->events, "op2->op1; tp 0.998 (unrolled)");
	r = row("BT r64, imm8");
	assert_string_equal(r->cycles, "<=1.987");
	assert_string_equal(r->events, "op1->flags; tp 0.993 (unrolled)");
	r = row("RDPMC");
	assert_string_equal(r->cycles, "fault");
	assert_string_equal(r->events, "FAULT #GP");
	assert_int_equal(ssp->bench_unstable, 2);
	assert_int_equal(ssp->bench_done, 0);
}

/*
 * A doubted identification says so on the CPU line, by the feature that contradicts the model number (the
 * default QEMU CPU: K8's family with AVX2); a doubt that names none points to the record.
 */
static void a_doubted_identification_on_the_cpu_line(void **state)
{
	(void)state;
	feed_with(QEMU_CPU, "\"source\":", "\"uarch_doubt\":\"CPUID enumerates AVX2 (leaf 0x7 subleaf 0 EBX[5]), "
					   "which no K8 (Family 0Fh) has (only excavator, fam15h, zen): the hypervisor "
					   "reports a model number that is not its core's\",\"uarch_doubt_feature\":"
					   "\"AVX2\",\"source\":");
	assert_string_equal(ssp->cpu2, "K8 (Family 0Fh) (doubted: CPUID has AVX2), microcode 0x1000065, under QEMU TCG");
	ssp->cpu[0] = 0;
	feed_with(QEMU_CPU, "\"source\":", "\"uarch_doubt\":\"the signature is not the core's\",\"source\":");
	assert_string_equal(ssp->cpu2, "K8 (Family 0Fh) (doubted: see the cpu record), microcode 0x1000065, under QEMU TCG");
	ssp->cpu[0] = 0;
	feed(QEMU_CPU); /* no doubt: the line as ever */
	assert_string_equal(ssp->cpu2, "K8 (Family 0Fh), microcode 0x1000065, under QEMU TCG");
}

static void checks_by_status(void **state)
{
	(void)state;
	feed(QEMU_BENCH_FORWARD);
	feed(QEMU_BENCH_SIZE_MISMATCH);
	feed_with(QEMU_CHECK_SIZE_MISMATCH, "\"status\":\"skip\"", "\"status\":\"pass\"");
	struct ss_row *r = row("store_forward.size_mismatch");
	assert_int_equal(r->check, SS_PASS);
	/* An events check, in bench/check.c's field order: its role and value join the row's events. */
	feed("@pmuboot {\"type\":\"check\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"store_forward\",\"variant\":"
	     "\"size_mismatch\",\"control\":\"forward\",\"arena\":null,\"what\":\"events\",\"role\":\"stlf_block\",\"event\":"
	     "\"LD_BLOCKS.STORE_FORWARD\",\"value\":1.002,\"control_value\":0.000,\"expected\":\"variant 0.750..1.500 per "
	     "iteration, control <= 0.100\",\"reason\":null,\"status\":\"unstable\"}");
	assert_string_equal(r->events, "stlf_block 1.002");
	assert_int_equal(r->check, SS_UNSTABLE);	/* the worst of the row's checks */
	feed_with(QEMU_CHECK_SIZE_MISMATCH, "\"status\":\"skip\"", "\"status\":\"fail\"");
	assert_int_equal(r->check, SS_FAIL);
	feed_with(QEMU_CHECK_SIZE_MISMATCH, "\"status\":\"skip\"", "\"status\":\"pass\"");
	assert_int_equal(r->check, SS_FAIL);		/* a later pass does not hide the failure */
	/* A status the screen does not know is shown as written, and counted apart. */
	feed_with(QEMU_CHECK_SIZE_MISMATCH, "\"status\":\"skip\"", "\"status\":\"maybe\"");
	assert_string_equal(r->status_text, "maybe");
	assert_int_equal(ssp->checks[SS_PASS], 2);
	assert_int_equal(ssp->checks[SS_FAIL], 1);
	assert_int_equal(ssp->checks[SS_UNSTABLE], 1);
	assert_int_equal(ssp->checks[SS_NONE], 1);
	assert_string_equal(ssp->failed, "store_forward.size_mismatch");
	assert_string_equal(ssp->unstable, "store_forward.size_mismatch");
	/* Skips with different reasons: the first is kept, and that they differ is said. */
	feed(QEMU_CHECK_ADD_CHAIN);
	feed_with(QEMU_CHECK_ADD_CHAIN, "timing under an emulator", "something else");
	assert_string_equal(ssp->skip_reason, "timing under an emulator is meaningless");
	assert_true(ssp->skip_reasons_differ);
}

/* pmuboot-host with cpus=all on two processors: rows per processor, the passes, an unstable check. */
static void a_run_on_two_processors(void **state)
{
	(void)state;
	feed(HOST2_TOPOLOGY);
	assert_true(ssp->multi);
	feed(HOST2_BENCH0_ADD);
	feed(HOST2_CHECK0_ADD);
	feed(HOST2_PASS0);
	feed(HOST2_BENCH1_LOAD);
	feed(HOST2_CHECK1_LOAD);
	feed(HOST2_PASS1);
	assert_int_equal(ssp->nrows, 2);
	assert_string_equal(row("0:ref.add_chain")->cycles, "1.002");
	assert_int_equal(row("0:ref.add_chain")->check, SS_PASS);
	assert_string_equal(row("1:ref.load_chain")->cycles, "5.004~");	/* unstable: budget */
	assert_int_equal(row("1:ref.load_chain")->check, SS_UNSTABLE);
	assert_string_equal(ssp->unstable, "1:ref.load_chain");
	assert_int_equal(ssp->checks[SS_PASS], 1);
	assert_int_equal(ssp->checks[SS_UNSTABLE], 1);
	assert_string_equal(ssp->passes, "0 measured, 1 measured");
	assert_string_equal(ssp->kernels, "ref");	/* each kernel once, whichever processor ran it */
	/* A pass the self-test asked to hang says it was expected. */
	feed_with(HOST2_PASS1, "\"outcome\":\"measured\",\"why\":null,\"expected_because\":null",
		  "\"outcome\":\"timeout\",\"why\":\"did not come back\",\"expected_because\":\"selftest=aphang\"");
	assert_string_equal(ssp->passes, "0 measured, 1 measured, 1 timeout (expected)");
}

static void errors_and_an_end_with_errors(void **state)
{
	(void)state;
	feed(HOST_ERROR_OPTION);
	feed(HOST_ERROR_BENCH);
	assert_int_equal(ssp->nerrors, 2);
	assert_string_equal(ssp->errors[0], "argument 1: bogus: unknown option 'bogus' (see docs/options.md)");
	assert_string_equal(ssp->errors[1], "argument 2: bench: unknown benchmark 'nothing_such' (a kernel, "
					    "kernel.variant, all, none or list)");
	/* Past SS_ERRORS the screen says how many more; the shown ones stay the first. */
	for (int i = 0; i < 4; i++)
		feed(HOST_ERROR_OPTION);
	assert_int_equal(ssp->nerrors, 6);
	assert_string_equal(ssp->errors[SS_ERRORS - 1], "argument 1: bogus: unknown option 'bogus' (see docs/options.md)");
	assert_string_equal(ssp->errors[1], "argument 2: bench: unknown benchmark 'nothing_such' (a kernel, "
					    "kernel.variant, all, none or list)");
	feed(HOST_END_ERROR);
	assert_string_equal(ssp->end_status, "error");
}

/* platform/metal/runtime.c's fault record: a fault the self-test asked for is shown apart, not as an error. */
static void faults_of_the_run(void **state)
{
	(void)state;
	static const char fault[] = "@pmuboot {\"type\":\"fault\",\"vector\":6,\"name\":\"#UD\",\"error_code\":\"0x0\","
				    "\"rip\":\"0x1e5a3b2c\",\"image_offset\":\"0x52b2c\",\"activity\":\"selftest fault\","
				    "\"in_window\":false,\"expected\":true,\"expected_because\":\"selftest=fault\"}";
	feed(fault);
	assert_int_equal(ssp->nerrors, 0);
	assert_int_equal(ssp->nexpected, 1);
	assert_string_equal(ssp->expected, "#UD at 0x1e5a3b2c during selftest fault");
	feed_with(fault, "\"expected\":true,\"expected_because\":\"selftest=fault\"",
		  "\"expected\":false,\"expected_because\":null");
	assert_int_equal(ssp->nerrors, 1);
	assert_string_equal(ssp->errors[0], "fault: #UD at 0x1e5a3b2c during selftest fault");
}

/* A user kernel that faults is not measured and the run goes on: not a run error (docs/results-format.md). */
static void a_user_kernel_fault_is_not_a_run_error(void **state)
{
	(void)state;
	feed(HOST_USER_FAULT);
	assert_int_equal(ssp->nerrors, 0);
	assert_int_equal(ssp->nexpected, 0);
	struct ss_row *r = row("user.bad");
	assert_string_equal(r->cycles, "fault");
	assert_string_equal(r->penalty, "");
	/* With several processors measured, the row is the processor's, as its bench rows are. */
	feed(HOST2_TOPOLOGY);
	feed(HOST_USER_FAULT);
	assert_string_equal(row("0:user.bad")->cycles, "fault");
	assert_int_equal(ssp->nerrors, 0);
}

/* A figure the audit refused, and top-down shares too large to be percent, are not shown as figures. */
static void figures_that_are_not_measurements(void **state)
{
	(void)state;
	feed_with(QEMU_BENCH_ADD_CHAIN, "\"cycles_invalid\":null", "\"cycles_invalid\":\"the audit refused pmc0\"");
	assert_string_equal(row("ref.add_chain")->cycles, "invalid");
	/* The largest shares rec_milli writes, a null one, and a level 2 node with no figure: none is a percent. */
	feed("@pmuboot {\"type\":\"metrics\",\"kernel\":\"ref\",\"variant\":\"add_chain\",\"arena\":null,"
	     "\"values\":{\"Frontend_Bound\":9223372036854775.807,\"Backend_Bound\":-9223372036854775.807,"
	     "\"Retiring\":95.500,\"Memory_Bound\":null},"
	     "\"levels\":{\"Frontend_Bound\":1,\"Backend_Bound\":1,\"Retiring\":1,\"Memory_Bound\":2}}");
	assert_string_equal(row("ref.add_chain")->topdown, "-/-/96");
}

static void the_row_table_overflows(void **state)
{
	(void)state;
	char variant[48];
	for (unsigned i = 0; i < SS_ROWS + 10; i++) {
		snprintf(variant, sizeof(variant), "\"variant\":\"v%u\"", i);
		feed_with(QEMU_BENCH_ADD_CHAIN, "\"variant\":\"add_chain\"", variant);
	}
	assert_int_equal(ssp->nrows, SS_ROWS);
	assert_int_equal(ssp->rows_dropped, 10);
	assert_int_equal(ssp->bench_done, SS_ROWS + 10);
	assert_string_equal(ssp->rows[SS_ROWS - 1].name, "ref.v511");
	/* A row already held is still updated. */
	feed_with(QEMU_BENCH_LOAD_CHAIN, "\"variant\":\"load_chain\"", "\"variant\":\"v3\"");
	assert_string_equal(row("ref.v3")->cycles, "2.032~");
	/* A failed check is counted and named in the summary's list, whether its row fitted or not. */
	feed_with(QEMU_CHECK_ADD_CHAIN, "\"variant\":\"add_chain\",\"control\":null,\"arena\":null,\"what\":\"reference\"",
		  "\"variant\":\"v3\",\"control\":null,\"arena\":null,\"what\":\"reference\"");
	assert_int_equal(row("ref.v3")->check, SS_SKIP);
	static const char fail_v3[] = "@pmuboot {\"type\":\"check\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"ref\","
				      "\"variant\":\"v3\",\"control\":null,\"arena\":null,\"what\":\"reference\","
				      "\"value\":9.000,\"expected_min\":0.950,\"expected_max\":1.050,\"reason\":null,"
				      "\"status\":\"fail\"}";
	feed(fail_v3);
	feed_with(fail_v3, "\"v3\"", "\"v515\"");
	assert_int_equal(ssp->checks[SS_FAIL], 2);
	assert_string_equal(ssp->failed, "ref.v3, ref.v515");
	assert_int_equal(row("ref.v3")->check, SS_FAIL);
	assert_int_equal(ssp->rows_dropped, 10);	/* rows, not records: the check added none */
	assert_int_equal(ssp->nrows, SS_ROWS);
}

/* A record cut to its buffer (lib/record.c): the fields before the cut are read, the ones after it are absent. */
static void a_record_cut_to_its_buffer(void **state)
{
	(void)state;
	static char body[REC_MAX];
	struct rec r = { 0 };
	memset(body, 'x', sizeof(body) - 1);

	rec_start(&r, "bench");
	rec_str(&r, "kernel", "store_forward");
	rec_str(&r, "variant", "size_mismatch");
	rec_null(&r, "arena");
	rec_obj(&r, "cycles");
	rec_milli(&r, "median", 15692);
	rec_obj_end(&r);
	rec_str(&r, "body", body);
	rec_obj(&r, "penalty");
	rec_milli(&r, "median", 10609);
	rec_obj_end(&r);
	rec_emit(&r);
	assert_non_null(strstr(last_line, "\"median\":15.692},\"truncated\":true}"));
	assert_int_equal(ssp->nrows, 1);
	assert_string_equal(row("store_forward.size_mismatch")->cycles, "15.692");
	assert_string_equal(row("store_forward.size_mismatch")->penalty, "");	/* written after the cut: not there */

	/* Cut inside an object: the object is gone, the fields before it stay. */
	rec_start(&r, "bench");
	rec_str(&r, "kernel", "ref");
	rec_str(&r, "variant", "add_chain");
	rec_obj(&r, "cycles");
	rec_str(&r, "body", body);
	rec_milli(&r, "median", 987);
	rec_obj_end(&r);
	rec_emit(&r);
	assert_int_equal(ssp->nrows, 2);
	assert_string_equal(row("ref.add_chain")->cycles, "");
	assert_int_equal(ssp->bench_done, 2);
}

/* After the run's end record only the upload trailer may follow; another run's records change nothing. */
static void records_after_the_end(void **state)
{
	(void)state;
	run_on_one_processor();
	struct screen_state before = *ssp;
	struct lines l;
	assert_true(read_lines(CAPTURES "/qemu-usb-serial.log", &l));
	for (size_t i = 0; i < l.n; i++)
		if (is_record(l.line[i], l.len[i]))
			feed_n(l.line[i], l.len[i]);
	free_lines(&l);
	feed(HOST_ERROR_OPTION);
	feed(HOST_END_ERROR);
	feed("@pmuboot {\"type\":\"upload\",\"final\":true,\"after\":null,\"ok\":false,\"url\":\"http://10.0.2.2:8080/api/runs\"}");
	assert_string_equal(ssp->title, before.title);
	assert_int_equal(ssp->nrows, before.nrows);
	assert_int_equal(ssp->bench_done, before.bench_done);
	assert_int_equal(ssp->checks[SS_SKIP], before.checks[SS_SKIP]);
	assert_int_equal(ssp->nerrors, 0);
	assert_string_equal(ssp->end_status, "ok");
	assert_string_equal(row("ref.add_chain")->cycles, "0.987");
	/* Text lines still come: the countdown after the summary. */
	text("rebooting in 5 s; press any key to stay");
	assert_string_equal(ssp->message, "rebooting in 5 s; press any key to stay");
}

static void text_lines(void **state)
{
	(void)state;
	text("pmuboot: identify");
	assert_string_equal(ssp->message, "pmuboot: identify");
	text("  ref add_chain      0.987");	/* the text table's rows: the screen's table shows them */
	assert_string_equal(ssp->message, "pmuboot: identify");
	assert_false(ssp->message_after_summary);
	ssp->finished = true;
	text("halting in 3 s");
	assert_true(ssp->message_after_summary);
	/* A text line longer than the screen's line is cut, not overrun. */
	char longline[SS_LINE * 2];
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = 0;
	text(longline);
	assert_int_equal(strlen(ssp->message), SS_LINE - 1);
	/* Nothing to fold into before screen_start. */
	struct screen_state *keep = ssp;
	ssp = NULL;
	feed(QEMU_BEGIN);
	ssp = keep;
	assert_string_equal(ssp->title, "");
}

/* Every string the screen keeps stays inside its array, whatever came in. */
static void assert_bounded(void)
{
#define BOUNDED(f) assert_non_null(memchr(f, 0, sizeof(f)))
	BOUNDED(ssp->title); BOUNDED(ssp->machine); BOUNDED(ssp->cpu); BOUNDED(ssp->cpu2); BOUNDED(ssp->pmu);
	BOUNDED(ssp->cache); BOUNDED(ssp->ibs); BOUNDED(ssp->saved); BOUNDED(ssp->activity);
	BOUNDED(ssp->bench_last); BOUNDED(ssp->kernels); BOUNDED(ssp->passes); BOUNDED(ssp->expected);
	BOUNDED(ssp->last_kernel); BOUNDED(ssp->audit_failed); BOUNDED(ssp->skip_reason); BOUNDED(ssp->failed);
	BOUNDED(ssp->unstable); BOUNDED(ssp->message); BOUNDED(ssp->end_status); BOUNDED(ssp->next);
	for (unsigned i = 0; i < SS_ERRORS; i++)
		BOUNDED(ssp->errors[i]);
	assert_true(ssp->nrows <= SS_ROWS);
	for (unsigned i = 0; i < ssp->nrows; i++) {
		struct ss_row *r = &ssp->rows[i];
		BOUNDED(r->name); BOUNDED(r->cycles); BOUNDED(r->penalty); BOUNDED(r->events);
		BOUNDED(r->status_text); BOUNDED(r->topdown);
		assert_true(r->check <= SS_FAIL);
	}
#undef BOUNDED
}

/*
 * The hostile captures (tests/fixtures/captures/hostile), each fed whole into a fresh screen: every
 * record the builder can make of them (deep nesting cut to REC_MAX_DEPTH, long strings cut to REC_MAX,
 * fields of the wrong kind), and the text lines escaped as out_line does.
 */
static void feed_hostile(const char *path, void *state)
{
	struct lines l;
	assert_true(read_lines(path, &l));
	done(state);
	fresh(state);
	for (size_t i = 0; i < l.n; i++) {
		if (is_record(l.line[i], l.len[i]))
			rebuild_emit(l.line[i], l.len[i]);
		else
			out_line(l.line[i], l.len[i]);
	}
	assert_bounded();
	assert_true(ssp->bench_done <= l.n);
	free_lines(&l);
}

static void hostile_captures(void **state)
{
	assert_true(each_hostile_capture(feed_hostile, state) >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_run_on_one_processor, fresh, done),
		cmocka_unit_test_setup_teardown(the_committed_capture_whole, fresh, done),
		cmocka_unit_test_setup_teardown(a_pmu_and_the_audit, fresh, done),
		cmocka_unit_test_setup_teardown(checks_by_status, fresh, done),
		cmocka_unit_test_setup_teardown(a_doubted_identification_on_the_cpu_line, fresh, done),
		cmocka_unit_test_setup_teardown(instruction_forms_a_row_each, fresh, done),
		cmocka_unit_test_setup_teardown(a_run_on_two_processors, fresh, done),
		cmocka_unit_test_setup_teardown(errors_and_an_end_with_errors, fresh, done),
		cmocka_unit_test_setup_teardown(faults_of_the_run, fresh, done),
		cmocka_unit_test_setup_teardown(a_user_kernel_fault_is_not_a_run_error, fresh, done),
		cmocka_unit_test_setup_teardown(figures_that_are_not_measurements, fresh, done),
		cmocka_unit_test_setup_teardown(the_row_table_overflows, fresh, done),
		cmocka_unit_test_setup_teardown(a_record_cut_to_its_buffer, fresh, done),
		cmocka_unit_test_setup_teardown(records_after_the_end, fresh, done),
		cmocka_unit_test_setup_teardown(text_lines, fresh, done),
		cmocka_unit_test_setup_teardown(hostile_captures, fresh, done),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
