/*
 * The run's IBS step end to end against the fake hardware: absence reported
 * once and plainly; otherwise the observer samples each kernel variant and
 * prints ibs_sample records and one ibs record per variant; reading those
 * ibs_sample records back gives the very same numbers (the path pmuboot-host
 * ibs-report takes).
 *
 * With PMUBOOT_IBS_CAPTURE=FILE set, the full-path test also writes what it
 * printed to FILE as a serial log would hold it (tests/host/test_ibs_report.py
 * runs pmuboot-host ibs-report over it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>

#include "bench/observer.h"
#include "tests/fake/capture.h"
#include "run/config.h"
#include "run/ibs_stage.h"
#include "lib/crc32.h"
#include "lib/record.h"
#include "tests/unit/test_ibs_fake.h"

#define ZEN_CAPS (IBS_CAP_FFV | IBS_CAP_FETCHSAM | IBS_CAP_OPSAM | IBS_CAP_RDWROPCNT | IBS_CAP_OPCNT | \
		  IBS_CAP_OPCNTEXT | IBS_CAP_BRNTRGT | IBS_CAP_RIPINVALIDCHK | IBS_CAP_FETCHCTLEXTD)

static struct config cfg;
static struct cpu_info ci;
static struct pmu_caps caps;
/* The observer ibs_setup hands the run for the bench stage, and whether it did. */
static struct bench_observer obs;
static bool observing;

static void amd(uint32_t family, uint32_t model, uint32_t flags)
{
	memset(&ci, 0, sizeof(ci));
	ci.vendor = VENDOR_AMD;
	strcpy(ci.vendor_str, "AuthenticAMD");
	ci.family = family;
	ci.model = model;
	memset(&caps, 0, sizeof(caps));
	caps.ibs = true;
	caps.ibs_flags_valid = true;
	caps.ibs_flags = flags;
	config_defaults(&cfg);
}

static int reset(void **state)
{
	(void)state;
	ibs_ctl_shutdown();
	memset(&obs, 0, sizeof(obs));
	observing = false;
	return 0;
}

/* The one ibs record printed, which must say unavailable for reason. */
static void expect_absent(const char *reason)
{
	struct capture cap;
	capture_start(&cap);
	observing = ibs_setup(&ci, &caps, &cfg, &obs);
	assert_int_equal(capture_record_count(&cap), 1);
	const char *j = capture_record(&cap, 0);
	if (!strstr(j, "\"type\":\"ibs\",\"available\":false,\"reason\":\"") || !strstr(j, reason))
		fail_msg("%s lacks %s", j, reason);
	assert_false(observing);
	capture_free(&cap);
}

static void absence_is_reported_plainly(void **state)
{
	(void)state;
	ibs_fake_cpu(1, true);

	amd(0x17, 1, ZEN_CAPS);
	cfg.ibs = IBS_MODE_OFF;
	expect_absent("disabled by ibs=off");

	amd(0x17, 1, ZEN_CAPS);
	ci.vendor = VENDOR_INTEL;
	strcpy(ci.vendor_str, "GenuineIntel");
	size_t writes = fake_log_count();
	expect_absent("not attempted: IBS is an AMD feature and this processor's vendor is GenuineIntel");
	assert_int_equal(fake_log_count(), writes);	/* not one MSR touched */

	amd(0x17, 1, ZEN_CAPS);
	caps.ibs = false;
	caps.ibs_absent_reason = "CPUID 8000_0001h ECX[10] clear (IBS disabled in the BIOS?)";
	expect_absent("disabled in the BIOS?");
	caps.ibs_absent_reason = NULL;
	expect_absent("CPUID 8000_0001h ECX[10] (IBS) is clear");

	amd(0x11, 3, IBS_CAP_DEFAULT);
	expect_absent("Family 11h");

	/* pmuboot-host leaves IBS to Linux: a platform that does not own the machine. */
	amd(0x17, 1, ZEN_CAPS);
	fake_platform_set(false, false);
	struct capture cap;
	capture_start(&cap);
	assert_false(ibs_setup(&ci, &caps, &cfg, &obs));
	fake_platform_set(false, true);
	assert_non_null(strstr(capture_record(&cap, 0), "not attempted by pmuboot-host"));
	capture_free(&cap);

	/* The MSRs fault. */
	fake_reset();
	amd(0x17, 1, ZEN_CAPS);
	expect_absent("raised #GP");
}

struct pattern {
	uint64_t d1, d2, d3;
};

/* Op samples the "hardware" produces, in turn. */
static const struct pattern ops[] = {
	{ IBS_OPD_BRN_RET | IBS_OPD_BRN_MISP | IBS_OPD_BRN_TAKEN | (12 << 16) | 2, 0, 0 },
	{ 8 << 16, IBS_ZEN_SRC_DRAM, IBS_OPD3_LD_OP | IBS_OPD3_DC_MISS | IBS_OPD3_L2_MISS | IBS_OPD3_LIN_VALID |
	  IBS_OPD3_L1TLB_HIT_2M | (410ull << 32) },
	{ 5 << 16, 0, IBS_OPD3_ST_OP | IBS_OPD3_MISALIGNED | IBS_OPD3_LIN_VALID | IBS_OPD3_L1TLB_MISS },
	{ 3 << 16, IBS_ZEN_SRC_REMOTE_CACHE | IBS_OPD2_HIT_OWNED,
	  IBS_OPD3_LD_OP | IBS_OPD3_DC_MISS | IBS_OPD3_L2_MISS | IBS_OPD3_LIN_VALID | (900ull << 32) },
	{ IBS_OPD_RIP_INVALID, 0, IBS_OPD3_LD_OP },
};
static const uint64_t fetches[] = {
	0,
	IBS_FETCH_COMP | IBS_FETCH_PHY_VALID | (3ull << 32),
	IBS_FETCH_IC_MISS | IBS_FETCH_L1TLB_MISS | IBS_FETCH_PHY_VALID | (1ull << IBS_FETCH_PGSZ_SHIFT) | (60ull << 32),
};

static void run_variant(const char *kernel, const char *variant, uint32_t page, unsigned nop, unsigned nfetch)
{
	const struct bench_observer *o = observing ? &obs : NULL;
	struct bench_variant_id id = { kernel, variant, page };

	assert_non_null(o);
	o->variant_begin(o->ctx, &id);
	for (unsigned sl = 0; sl < o->slices; sl++) {
		o->slice_begin(o->ctx);
		if (sl < nop) {
			const struct pattern *p = &ops[sl % (sizeof(ops) / sizeof(ops[0]))];
			assert_true(ibs_hw_op_sample(0x400000 + sl, p->d1, p->d2, p->d3));
			fake_nmi_fire();
		}
		/* Only while fetch sampling is enabled does the hardware make fetch samples. */
		if (sl < nfetch && ibs_hw_fetch_sample(0x400000 + 64 * sl, fetches[sl % 3]))
			fake_nmi_fire();
		o->slice_end(o->ctx);
	}
	o->variant_end(o->ctx, &id);
}

static void save_capture(const struct capture *cap)
{
	const char *path = getenv("PMUBOOT_IBS_CAPTURE");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	assert_non_null(f);
	/*
	 * As a serial port gives it: CRLF, firmware chatter before the run, and
	 * the run whole -- begin to end, with the count and CRC a reader checks.
	 */
	static const char begin[] = "{\"type\":\"begin\",\"format\":1,\"program\":\"test\",\"version\":\"0\"}";
	uint32_t crc = crc32_update(crc32_update(CRC32_INIT, begin, strlen(begin)), "\n", 1);
	fputs("BdsDxe: starting Boot0001 \"UEFI pmuboot\"\r\n", f);
	fprintf(f, "%s%s\r\n", REC_PREFIX, begin);
	for (size_t i = 0; i < cap->n; i++) {
		fprintf(f, "%s\r\n", cap->lines[i]);
		if (cap->kinds[i] == OUT_RECORD) {
			const char *js = cap->lines[i] + strlen(REC_PREFIX);
			crc = crc32_update(crc32_update(crc, js, strlen(js)), "\n", 1);
		}
	}
	fprintf(f, "%s{\"type\":\"end\",\"status\":\"ok\",\"errors\":0,\"records\":%zu,\"crc32\":\"%08x\"}\r\n",
		REC_PREFIX, capture_record_count(cap) + 1, crc);
	fclose(f);
}

/* The tail of an ibs record from "samples" on: what is computed from the samples alone. */
static const char *computed_part(const char *json)
{
	const char *p = strstr(json, "\"samples\":");
	assert_non_null(p);
	return p;
}

static void variants_are_sampled_and_read_back_identically(void **state)
{
	(void)state;
	struct capture cap;
	const unsigned nop = 37, nfetch = 11;

	ibs_fake_cpu(1, true);
	amd(0x17, 0x31, ZEN_CAPS);
	cfg.ibs_raw = true;
	capture_start(&cap);
	observing = ibs_setup(&ci, &caps, &cfg, &obs);
	assert_int_equal(capture_record_count(&cap), 0);	/* present: nothing to say before a variant */
	assert_true(observing);
	assert_string_equal(obs.name, "ibs");
	assert_true(obs.slices >= nop);

	run_variant("split", "load_page", 4096, nop, nfetch);
	run_variant("split", "load_page", 2u * 1024 * 1024, 5, 0);
	run_variant("ref", "add_chain", 0, 0, 0);

	/* Records: 48 + 5 samples and three ibs records, each after its variant's samples. */
	size_t nrec = capture_record_count(&cap);
	assert_int_equal(nrec, nop + nfetch + 1 + 5 + 1 + 1);
	const char *v1 = capture_record(&cap, nop + nfetch);
	const char *v2 = capture_record(&cap, nop + nfetch + 1 + 5);
	const char *v3 = capture_record(&cap, nrec - 1);
	assert_non_null(strstr(v1, "\"type\":\"ibs\",\"available\":true,\"source\":\"image\",\"kernel\":\"split\","
				   "\"variant\":\"load_page\",\"arena_page\":4096"));
	assert_non_null(strstr(v1, "\"delivery\":\"nmi\",\"lvt_offset\":1"));
	assert_non_null(strstr(v1, "\"samples\":{\"fetch\":11,\"op\":37}"));
	assert_non_null(strstr(v1, "\"dropped\":{\"fetch\":0,\"op\":7}"));	/* RIP-invalid ops */
	assert_non_null(strstr(v1, "\"0xF100\":30,"));
	assert_non_null(strstr(v1, "\"0xF000\":11,"));
	assert_non_null(strstr(v1, "\"0xF001\":4,"));
	assert_non_null(strstr(v1, "\"0xF244\":7,"));	/* Zen remote node cache */
	assert_non_null(strstr(v1, "\"0xF24A\":7,"));	/* ... in O state */
	assert_non_null(strstr(v1, "\"overflow\":0"));
	assert_non_null(strstr(v2, "\"arena_page\":2097152"));
	assert_non_null(strstr(v2, "\"samples\":{\"fetch\":0,\"op\":5}"));
	assert_non_null(strstr(v3, "\"samples\":{\"fetch\":0,\"op\":0}"));
	assert_non_null(strstr(v3, "\"mispredict\":null"));
	/* The raw records carry the registers by AMD's names. */
	const char *s0 = capture_record(&cap, 0);
	assert_non_null(strstr(s0, "{\"type\":\"ibs_sample\",\"kind\":\"op\",\"family\":\"0x17\",\"model\":\"0x31\","
				   "\"kernel\":\"split\",\"variant\":\"load_page\",\"regs\":{\"IbsOpCtl\":\"0x"));
	assert_non_null(strstr(s0, "\"IbsBrTarget\":\"0x400010\""));
	assert_null(strstr(s0, "IbsOpData4"));	/* not in the capabilities */

	/* Read the samples back as ibs-report does and compare with the image's records. */
	struct ibs_counts c;
	struct ibs_target t = { 0x17, 0x31, ZEN_CAPS };
	struct ibs_profile p;
	struct ibs_capture_item it;
	char err[200], line[REC_MAX + 16];
	assert_true(ibs_profile_get(&t, &p));
	ibs_counts_clear(&c);
	for (size_t i = 0; i < nop + nfetch; i++) {
		snprintf(line, sizeof(line), REC_PREFIX "%s", capture_record(&cap, i));
		assert_int_equal(ibs_capture_parse(line, strlen(line), &it, err, sizeof(err)), IBS_LINE_SAMPLE);
		ibs_decode(&p, &it.sample, &c);
	}
	struct ibs_variant_report back = { "capture", "split", "load_page", 4096, t, { true, true }, &c, NULL, NULL };
	struct capture cap2;
	save_capture(&cap);
	char *image_part = strdup(computed_part(v1));
	capture_free(&cap);
	capture_start(&cap2);
	ibs_report_variant(&back);
	assert_string_equal(computed_part(capture_record(&cap2, 0)), image_part);
	free(image_part);
	capture_free(&cap2);
}

static void polled_run_says_why(void **state)
{
	(void)state;
	struct capture cap;

	ibs_fake_cpu(-1, true);
	amd(0x15, 0x02, IBS_CAP_DEFAULT | IBS_CAP_OPCNT);
	cfg.ibs = IBS_MODE_OP;
	capture_start(&cap);
	observing = ibs_setup(&ci, &caps, &cfg, &obs);
	run_variant("store_forward", "size_mismatch", 0, 3, 3);	/* fetch samples: not armed, none made */
	const char *j = capture_record(&cap, capture_record_count(&cap) - 1);
	assert_non_null(strstr(j, "\"delivery\":\"polled\",\"delivery_note\":\"the firmware assigned no APIC LVT"));
	assert_non_null(strstr(j, "\"sampled\":[\"op\"]"));
	assert_non_null(strstr(j, "\"samples\":{\"fetch\":0,\"op\":3}"));
	assert_non_null(strstr(j, "\"0xF000\":null"));
	assert_non_null(strstr(j, "\"0xF20A\":null"));	/* store bank conflicts: 10h and 12h only */
	assert_non_null(strstr(j, "\"0xF209\":0,"));	/* load bank conflicts exist on 15h 00h-0Fh */
	assert_non_null(strstr(j, "\"op_count\":\"ops\""));
	assert_null(strstr(j, "ibs_sample"));
	capture_free(&cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(absence_is_reported_plainly, reset),
		cmocka_unit_test_teardown(variants_are_sampled_and_read_back_identically, reset),
		cmocka_unit_test_teardown(polled_run_says_why, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
