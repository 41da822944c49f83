/*
 * IBS records: the exact ibs_sample format, reading it back (noise, errors),
 * and the ibs record's events (null where not available), ratios and averages.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>

#include "tests/fake/capture.h"
#include "lib/record.h"
#include "pmu/ibs/ibs.h"
#include "pmu/ibs/ibs_regs.h"

static struct ibs_sample op_sample(uint64_t d1, uint64_t d2, uint64_t d3)
{
	struct ibs_sample s;
	memset(&s, 0, sizeof(s));
	s.kind = IBS_KIND_OP;
	s.have = (1u << IBS_O_CTL) | (1u << IBS_O_RIP) | (1u << IBS_O_DATA) | (1u << IBS_O_DATA2) |
		 (1u << IBS_O_DATA3);
	s.v[IBS_O_CTL] = IBS_OP_EN | IBS_OP_VAL | 0x400;
	s.v[IBS_O_RIP] = 0x401000;
	s.v[IBS_O_DATA] = d1;
	s.v[IBS_O_DATA2] = d2;
	s.v[IBS_O_DATA3] = d3;
	return s;
}

static void sample_record_is_exact(void **state)
{
	(void)state;
	struct capture cap;
	struct ibs_target t = { 0x10, 0x4, IBS_CAP_DEFAULT };
	struct ibs_sample s;

	memset(&s, 0, sizeof(s));
	s.kind = IBS_KIND_FETCH;
	s.have = (1u << IBS_F_CTL) | (1u << IBS_F_LINAD);
	s.v[IBS_F_CTL] = IBS_FETCH_EN | IBS_FETCH_VAL | IBS_FETCH_COMP | 0x1000;
	s.v[IBS_F_LINAD] = 0xffffffff81000000ull;
	s.v[IBS_F_PHYSAD] = 0xdead;	/* not captured: must not appear */
	capture_start(&cap);
	ibs_report_sample(&t, "split", "load_page", &s);
	assert_string_equal(capture_record(&cap, 0),
			    "{\"type\":\"ibs_sample\",\"kind\":\"fetch\",\"family\":\"0x10\",\"model\":\"0x4\","
			    "\"kernel\":\"split\",\"variant\":\"load_page\",\"regs\":{\"IbsFetchCtl\":\"0x7000000001000\","
			    "\"IbsFetchLinAd\":\"0xffffffff81000000\"}}");
	capture_free(&cap);
}

static enum ibs_line_type parse(const char *line, struct ibs_capture_item *it, char *err, size_t cap)
{
	return ibs_capture_parse(line, strlen(line), it, err, cap);
}

static void samples_read_back_exactly(void **state)
{
	(void)state;
	struct capture cap;
	struct ibs_target t = { 0x19, 0x61, IBS_CAP_DEFAULT };
	struct ibs_sample s = op_sample(IBS_OPD_BRN_RET, 0x83, IBS_OPD3_LD_OP | IBS_OPD3_DC_MISS | (250ull << 32));
	struct ibs_capture_item it;
	char err[200], line[2048];

	s.have |= 1u << IBS_O_BR_TARGET;
	s.v[IBS_O_BR_TARGET] = 0x401234;
	capture_start(&cap);
	ibs_report_sample(&t, "store_forward", "size_mismatch", &s);
	/* The prefix after other text on the line is text, never a record. */
	snprintf(line, sizeof(line), "\x1b[0mBdsDxe: x " REC_PREFIX "%s\r", capture_record(&cap, 0));
	assert_int_equal(parse(line, &it, err, sizeof(err)), IBS_LINE_OTHER);
	/* As a serial log has it: escape sequences before, CR after. */
	snprintf(line, sizeof(line), "\x1b[0m\x1b[37m\x1b[40m" REC_PREFIX "%s\r", capture_record(&cap, 0));
	capture_free(&cap);
	assert_int_equal(parse(line, &it, err, sizeof(err)), IBS_LINE_SAMPLE);
	assert_string_equal(it.kernel, "store_forward");
	assert_string_equal(it.variant, "size_mismatch");
	assert_int_equal(it.family, 0x19);
	assert_int_equal(it.model, 0x61);
	assert_int_equal(it.sample.kind, IBS_KIND_OP);
	assert_int_equal(it.sample.have, s.have);
	for (unsigned i = 0; i < IBS_MAX_REGS; i++)
		if (s.have & (1u << i))
			assert_int_equal(it.sample.v[i], s.v[i]);
}

static void other_lines_are_not_ours(void **state)
{
	(void)state;
	struct ibs_capture_item it;
	char err[200];

	assert_int_equal(parse("BdsDxe: loading Boot0001", &it, err, sizeof(err)), IBS_LINE_OTHER);
	assert_int_equal(parse("@pmuboot {\"type\":\"cpu\",\"vendor\":\"amd\"}", &it, err, sizeof(err)),
			 IBS_LINE_OTHER);
	/* A damaged record of another type is not our business either. */
	assert_int_equal(parse("@pmuboot {\"type\":\"bench\",\"kern", &it, err, sizeof(err)), IBS_LINE_OTHER);
	assert_int_equal(parse("@pmuboot {\"type\":\"ibs\",\"available\":false,\"reason\":\"x\"}", &it, err,
			       sizeof(err)), IBS_LINE_ABSENT);
}

static void variant_record_gives_caps_and_modes(void **state)
{
	(void)state;
	struct ibs_capture_item it;
	char err[200];
	const char *line = "@pmuboot {\"type\":\"ibs\",\"available\":true,\"source\":\"image\",\"kernel\":\"split\","
			   "\"variant\":\"load_page\",\"arena_page\":2097152,\"family\":\"0x19\",\"model\":\"0x61\","
			   "\"ibs_caps\":\"0x7ff\",\"sampled\":[\"op\"],\"period\":{\"op\":16384},"
			   "\"events\":{\"0xF000\":null,\"0xF100\":3},\"not_available\":[],\"ratios\":{\"ic_miss\":null}}";

	assert_int_equal(parse(line, &it, err, sizeof(err)), IBS_LINE_VARIANT);
	assert_true(it.have_caps);
	assert_int_equal(it.caps, 0x7ff);
	assert_true(it.have_sampled);
	assert_false(it.sampled[IBS_KIND_FETCH]);
	assert_true(it.sampled[IBS_KIND_OP]);
	assert_int_equal(it.arena_page, 2097152);
	assert_string_equal(it.variant, "load_page");
}

static void damaged_records_are_named(void **state)
{
	(void)state;
	static const struct {
		const char *line, *expect;
	} bad[] = {
		{ "@pmuboot {\"type\":\"ibs_sample\",\"kind\":\"op\",\"family\":\"0x17\",\"model\":\"0x1\",\"kernel\":\"k\","
		  "\"variant\":\"v\",\"regs\":{\"IbsOpCtl\":\"0x60000\",\"IbsFetchLinAd\":\"0x1\"}}",
		  "'IbsFetchLinAd' is not an IBS op register" },
		{ "@pmuboot {\"type\":\"ibs_sample\",\"kind\":\"op\",\"family\":\"0x17\",\"model\":\"0x1\",\"kernel\":\"k\","
		  "\"variant\":\"v\",\"regs\":{\"IbsOpCtl\":\"0xZZ\"}}",
		  "IbsOpCtl '0xZZ' is not a number" },
		{ "@pmuboot {\"type\":\"ibs_sample\",\"family\":\"0x17\",\"model\":\"0x1\",\"kernel\":\"k\",\"variant\":\"v\","
		  "\"regs\":{\"IbsOpCtl\":\"0x1\"}}",
		  "\"kind\" is missing" },
		{ "@pmuboot {\"type\":\"ibs_sample\",\"kind\":\"load\",\"family\":\"0x17\",\"model\":\"0x1\",\"kernel\":\"k\","
		  "\"variant\":\"v\",\"regs\":{\"IbsOpCtl\":\"0x1\"}}",
		  "kind 'load' is neither fetch nor op" },
		{ "@pmuboot {\"type\":\"ibs_sample\",\"kind\":\"op\",\"family\":\"0x17\",\"model\":\"0x1\",\"kernel\":\"k\","
		  "\"variant\":\"v\",\"regs\":{\"IbsOpRip\":\"0x1\"}}",
		  "the control register (IbsOpCtl) is missing" },
		{ "@pmuboot {\"type\":\"ibs_sample\",\"kind\":\"op\",\"family\":\"0x17\",\"kernel\":\"k\",\"variant\":\"v\","
		  "\"regs\":{\"IbsOpCtl\":\"0x1\"}}",
		  "\"model\" is missing" },
		/* Cut off mid-line, as a lost serial connection leaves it. */
		{ "@pmuboot {\"type\":\"ibs_sample\",\"kind\":\"op\",\"family\":\"0x17\",\"model\":\"0x1\",\"kernel\":\"k\","
		  "\"variant\":\"v\",\"regs\":{\"IbsOpCtl\":\"0x600",
		  "ibs_sample record is malformed" },
		{ "@pmuboot {\"type\":\"ibs\",\"available\":true,\"variant\":\"v\",\"family\":\"0x17\",\"model\":\"0x1\"}",
		  "\"kernel\" is missing" },
	};
	struct ibs_capture_item it;
	char err[200];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum ibs_line_type t = parse(bad[i].line, &it, err, sizeof(err));
		if (t != IBS_LINE_ERROR || !strstr(err, bad[i].expect))
			fail_msg("case %zu: type %d, error \"%s\", expected \"%s\"", i, (int)t, err, bad[i].expect);
	}
}

static bool has(const char *json, const char *needle)
{
	if (strstr(json, needle))
		return true;
	print_error("%s\n  lacks %s\n", json, needle);
	return false;
}

static void variant_record_events_ratios_and_null(void **state)
{
	(void)state;
	struct capture cap;
	struct ibs_target t = { 0x17, 0x31, IBS_CAP_DEFAULT };
	struct ibs_profile p;
	struct ibs_counts c;
	struct ibs_sample s[4] = {
		op_sample(IBS_OPD_BRN_RET | IBS_OPD_BRN_MISP | (20 << 16), 0, 0),
		op_sample(IBS_OPD_BRN_RET | (10 << 16), 0, 0),
		op_sample(0, IBS_ZEN_SRC_DRAM, IBS_OPD3_LD_OP | IBS_OPD3_DC_MISS | IBS_OPD3_L2_MISS |
			  IBS_OPD3_LIN_VALID | IBS_OPD3_L1TLB_HIT_2M | (300ull << 32)),
		op_sample(0, 0, IBS_OPD3_ST_OP | IBS_OPD3_MISALIGNED | IBS_OPD3_LIN_VALID),
	};

	assert_true(ibs_profile_get(&t, &p));
	ibs_counts_clear(&c);
	for (int i = 0; i < 4; i++)
		ibs_decode(&p, &s[i], &c);
	struct ibs_variant_report v = { "capture", "split", "load_page", 2097152, t, { false, true }, &c, NULL, NULL };
	capture_start(&cap);
	ibs_report_variant(&v);
	const char *j = capture_record(&cap, 0);
	assert_non_null(j);
	assert_true(has(j, "\"type\":\"ibs\",\"available\":true,\"source\":\"capture\",\"kernel\":\"split\","
			   "\"variant\":\"load_page\",\"arena_page\":2097152,\"family\":\"0x17\",\"model\":\"0x31\""));
	assert_true(has(j, "\"sampled\":[\"op\"]"));
	assert_true(has(j, "\"samples\":{\"fetch\":0,\"op\":4}"));
	assert_true(has(j, "\"0xF100\":4,"));
	assert_true(has(j, "\"0xF101\":30,"));
	assert_true(has(j, "\"0xF103\":2,"));
	assert_true(has(j, "\"0xF104\":1,"));
	assert_true(has(j, "\"0xF200\":2,"));
	assert_true(has(j, "\"0xF212\":1,"));
	assert_true(has(j, "\"0xF219\":300,"));
	assert_true(has(j, "\"0xF245\":1,"));
	/* Fetch not sampled: null, not zero.  Not on this family: null, and listed. */
	assert_true(has(j, "\"0xF000\":null,"));
	assert_true(has(j, "\"0xF109\":null,"));
	assert_true(has(j, "\"0xF210\":null,"));
	assert_true(has(j, "\"not_available\":[\"0xF109\",\"0xF209\",\"0xF20A\",\"0xF20B\",\"0xF20C\",\"0xF210\","
			   "\"0xF242\"]"));
	assert_true(has(j, "\"mispredict\":0.500"));
	assert_true(has(j, "\"misaligned\":0.500"));
	assert_true(has(j, "\"dtlb_l1_2m\":0.500"));
	assert_true(has(j, "\"ic_miss\":null"));
	assert_true(has(j, "\"dc_miss_load_latency\":300.000"));
	assert_true(has(j, "\"tag_to_retire\":7.500"));
	assert_true(has(j, "\"nb_remote_latency\":null"));	/* no remote sample: 0/0 */
	/* The readable line says the same. */
	ibs_report_line(&v);
	bool seen = false;
	for (size_t i = 0; i < cap.n; i++)
		if (cap.kinds[i] == OUT_TEXT && strstr(cap.lines[i], "split.load_page [2 MiB pages]") &&
		    strstr(cap.lines[i], "mispredict 0.500"))
			seen = true;
	assert_true(seen);
	capture_free(&cap);
}

static void absent_record(void **state)
{
	(void)state;
	struct capture cap;
	capture_start(&cap);
	ibs_report_absent("disabled by ibs=off");
	assert_string_equal(capture_record(&cap, 0),
			    "{\"type\":\"ibs\",\"available\":false,\"reason\":\"disabled by ibs=off\"}");
	capture_free(&cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_record_is_exact),
		cmocka_unit_test(samples_read_back_exactly),
		cmocka_unit_test(other_lines_are_not_ours),
		cmocka_unit_test(variant_record_gives_caps_and_modes),
		cmocka_unit_test(damaged_records_are_named),
		cmocka_unit_test(variant_record_events_ratios_and_null),
		cmocka_unit_test(absent_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
