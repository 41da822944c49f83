/*
 * host/cmd_metrics.c - the top-down metrics of a core (pmu/metrics/metrics.h): list them, or
 * evaluate them from counts with the image's own evaluator.
 *
 *   pmuboot-host metrics [--cpuid-dump FILE] [--cpu N]                  the table: metrics, inputs, left out
 *   pmuboot-host metrics [--cpuid-dump FILE] [--cpu N] --eval COUNTS    every metric from the counts given
 *   pmuboot-host metrics --cpuid-dump FILE [--cpu N] --run [key=value]  the benchmark stage against a model
 *                                                                      of the dump's PMU (cmd_metrics_run.c)
 *
 * COUNTS is a JSON object of raw counts keyed by the inputs' names as the vendor spells them (Intel: each
 * metric's Events[].Name with its suffixes, and Constants[].Name; AMD: perf's event names), each a
 * non-negative number (a retire latency may be negative: "not measured").  HYPERTHREADING_ON, when not
 * given, is what the run gives pmuboot's own counts: 0, the per-thread form (one thread measured, its
 * sibling parked: metrics_smt_form).  The output is one JSON object, {"uarch":KEY,"source":...,
 * "metrics":{...},"missing":{...},"null_why":{...},"constants":{...},"constants_why":{...}}, values at full
 * precision (17 significant digits from the evaluator's own number type: this is a check of the arithmetic).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "host/host_dump.h"
#include "host/cmd_metrics.h"
#include "lib/json_read.h"
#include "cpu/cpu.h"
#include "pmu/metrics/metrics.h"
#include "pmu/metrics/metrics_table.h"

#define DIGITS 17	/* significant digits printed: a double's round trip, below the evaluator's own ~19 */

static int usage(FILE *f)
{
	fprintf(f, "usage: pmuboot-host metrics [--cpuid-dump FILE] [--cpu N] [--eval COUNTS.json | --run ...]\n"
		   "\n"
		   "The top-down metrics of a core, from the vendors' formulas (docs/topdown.md): Intel's TMA\n"
		   "levels 1 and 2 with the Info_/Bottleneck_ metrics, AMD Zen 4/5 pipeline utilisation.\n"
		   "\n"
		   "  (no option)         list the core's metrics as JSON: each one's level, parent, unit and the\n"
		   "                      inputs it needs, and the metrics left out (their events are not the core's)\n"
		   "  --eval COUNTS.json  evaluate every metric from a JSON object of counts keyed by the inputs'\n"
		   "                      names (the vendor's event and constant names; AMD: perf's event names);\n"
		   "                      HYPERTHREADING_ON not given is 0, the per-thread form of pmuboot's counts\n"
		   "  --run [--perf-caps HEX] [key=value]\n"
		   "                      with --cpuid-dump: the benchmark stage against a model of the dump's PMU,\n"
		   "                      metrics records included (run options, e.g. bench=store_forward reps=3);\n"
		   "                      --perf-caps: IA32_PERF_CAPABILITIES as that machine has it (a dump holds no\n"
		   "                      MSRs; 0xa000: full-width writes and PERF_METRICS)\n"
		   "  --cpuid-dump FILE   the CPU of a CPUID dump (docs/cpuid-dumps.md); default: this CPU\n"
		   "  --cpu N             the dump's block N (a hybrid part's other core type), default 0\n"
		   "  -h, --help          this text\n"
		   "\n"
		   "Exit status: 0 done; 1 the core has no top-down formulas (the cores that have them are named);\n"
		   "2 bad arguments or input (a count that is not a non-negative number, an unknown key: named).\n");
	return f == stdout ? 0 : 2;
}

/* A JSON string's text, escaped. */
static void put_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* The number at DIGITS significant digits, as a JSON number. */
static void put_num(struct mnum v)
{
	int64_t mant;
	int32_t e10;
	char digits[32];
	mnum_to_decimal(v, DIGITS, &mant, &e10);
	if (!mant) {
		printf("0");
		return;
	}
	snprintf(digits, sizeof(digits), "%lld", (long long)(mant < 0 ? -mant : mant));
	size_t n = strlen(digits);
	printf("%s%c", mant < 0 ? "-" : "", digits[0]);
	if (n > 1)
		printf(".%s", digits + 1);
	printf("e%d", (int)(e10 + (int32_t)n - 1));
}

/* Which cores have formulas: the tables' keys. */
static void say_which_cores(void)
{
	char key[METRIC_NAME_MAX];
	fprintf(stderr, "pmuboot-host metrics: the cores with top-down formulas are (event sets):");
	for (size_t i = 0; i < metrics_table_count(); i++)
		fprintf(stderr, "%s %s", i ? "," : "", metrics_table_key(metrics_table_at(i), key));
	fprintf(stderr, "\n");
}

static const char *kind_word(enum metric_input_kind k)
{
	static const char *const words[] = { "event", "perf_metrics", "retire_latency", "constant" };
	return (unsigned)k < ARRAY_SIZE(words) ? words[k] : "?";
}

static void header(const struct cpu_info *ci, const struct metrics_table *t)
{
	char buf[METRIC_NAME_MAX];
	printf("{\"uarch\":");
	put_json_str(ci->uarch_key ? ci->uarch_key : "");
	printf(",\"event_set\":");
	put_json_str(metrics_table_key(t, buf));
	printf(",\"source\":");
	put_json_str(metrics_table_source(t, buf));
}

/* The table as JSON: its metrics with their inputs, and those left out. */
static int list_table(const struct cpu_info *ci, const struct metrics_table *t)
{
	static struct metric_info mi;
	static struct metric_input in;
	uint16_t ins[1u << MT_REF_INDEX_BITS];
	size_t ti = 0;

	header(ci, t);
	printf(",\"metrics\":[");
	for (size_t i = 0; i < metrics_count(t); i++) {
		metrics_at(t, i, &mi);
		printf("%s{\"name\":", i ? "," : "");
		put_json_str(mi.name);
		printf(",\"level\":%u,\"parent\":", mi.level);
		if (mi.parent[0])
			put_json_str(mi.parent);
		else
			printf("null");
		printf(",\"unit\":");
		put_json_str(mi.unit);
		printf(",\"tree\":%s,\"inputs\":[", mi.tree ? "true" : "false");
		size_t n = metrics_inputs(t, i, ins, ARRAY_SIZE(ins));
		for (size_t k = 0; k < n && k < ARRAY_SIZE(ins); k++) {
			metrics_input_at(ins[k], &in);
			printf("%s{\"name\":", k ? "," : "");
			put_json_str(in.name);
			printf(",\"kind\":\"%s\"", kind_word(in.kind));
			if (in.kind == METRIC_IN_EVENT && strcmp(in.spec, in.name)) {
				printf(",\"counts\":");
				put_json_str(in.spec);
			}
			printf("}");
		}
		printf("]}");
	}
	printf("],\"left_out\":{");
	for (size_t i = 0, k = 0; mt_left_out[i].name; i++) {
		if (&mt_tables[mt_left_out[i].table] != t)
			continue;
		printf("%s", k++ ? "," : "");
		put_json_str(mt_left_out[i].name);
		putchar(':');
		put_json_str(mt_left_out[i].why);
	}
	(void)ti;
	printf("}}\n");
	return 0;
}

/* ---- --eval ---- */

struct counts {
	bool have[1u << MT_REF_INDEX_BITS];
	struct mnum v[1u << MT_REF_INDEX_BITS];
};

static bool count_of(void *ctx, unsigned input, struct mnum *value)
{
	const struct counts *c = ctx;
	if (input >= ARRAY_SIZE(c->have) || !c->have[input])
		return false;
	*value = c->v[input];
	return true;
}

/* Read COUNTS into c: every key an input of t, every value a number (non-negative but for retire latencies). */
static bool read_counts(const char *path, const struct metrics_table *t, struct counts *c)
{
	static struct metric_input in;
	uint16_t ins[1u << MT_REF_INDEX_BITS];
	struct json_doc doc;
	char err[200];
	size_t len;
	char *text = host_read_file(path, &len);

	if (!text) {
		fprintf(stderr, "pmuboot-host metrics: %s: %s\n", path, host_file_error(errno));
		return false;
	}
	if (!json_parse(&doc, text, len, err, sizeof(err))) {
		fprintf(stderr, "pmuboot-host metrics: %s: not JSON: %s\n", path, err);
		free(text);
		return false;
	}
	bool ok = true;
	if (doc.root->type != JSON_OBJECT) {
		fprintf(stderr, "pmuboot-host metrics: %s: want a JSON object of counts, found %s\n", path,
			json_type_name(doc.root->type));
		ok = false;
	}
	size_t n = metrics_inputs(t, METRICS_ALL, ins, ARRAY_SIZE(ins));
	for (const struct json_value *m = ok ? doc.root->child : NULL; m && ok; m = m->next) {
		size_t k = 0;
		for (; k < n; k++) {
			metrics_input_at(ins[k], &in);
			if (strlen(in.name) == m->key_len && !memcmp(in.name, m->key, m->key_len))
				break;
		}
		if (k == n) {
			char key[METRIC_NAME_MAX];
			fprintf(stderr, "pmuboot-host metrics: %s: unknown key '%s' (no metric of %s names it; `pmuboot-host "
				"metrics` lists the inputs)\n", path, m->key, metrics_table_key(t, key));
			ok = false;
			break;
		}
		struct mnum v;
		if (m->type != JSON_NUMBER || !mnum_parse(m->str, m->len, &v) ||
		    (v.neg && in.kind != METRIC_IN_RETIRE_LATENCY)) {
			fprintf(stderr, "pmuboot-host metrics: %s: '%s' is %s, not a %s number\n", path, in.name,
				m->type == JSON_NUMBER ? m->str : json_type_name(m->type),
				in.kind == METRIC_IN_RETIRE_LATENCY ? "" : "non-negative");
			ok = false;
			break;
		}
		c->have[ins[k]] = true;
		c->v[ins[k]] = v;
	}
	json_free(&doc);
	free(text);
	return ok;
}

static int eval_table(const struct cpu_info *ci, const struct metrics_table *t, const char *path)
{
	static struct counts c;
	static struct metric_info mi;
	static struct metric_input in;
	static struct metric_result res[1u << MT_REF_INDEX_BITS];
	uint16_t ins[1u << MT_REF_INDEX_BITS];
	size_t nm = metrics_count(t);

	memset(&c, 0, sizeof(c));
	if (!read_counts(path, t, &c))
		return 2;
	static uint16_t all[1u << MT_REF_INDEX_BITS];	/* every input of t ("ins" is each metric's below) */
	size_t nin = metrics_inputs(t, METRICS_ALL, all, ARRAY_SIZE(all));
	static bool defaulted[1u << MT_REF_INDEX_BITS];
	struct metrics_smt smt;
	memset(defaulted, 0, sizeof(defaulted));
	metrics_smt_form(-1, NULL, &smt);
	for (size_t k = 0; k < nin; k++) {
		metrics_input_at(all[k], &in);
		if (in.kind == METRIC_IN_CONST && in.arg == METRIC_CONST_SMT && !c.have[all[k]]) {
			c.have[all[k]] = defaulted[all[k]] = true;
			c.v[all[k]] = mnum_from_u64(smt.on);
		}
	}
	header(ci, t);
	printf(",\"metrics\":{");
	for (size_t i = 0; i < nm; i++) {
		metrics_at(t, i, &mi);
		metrics_eval(t, i, count_of, &c, &res[i]);
		printf("%s", i ? "," : "");
		put_json_str(mi.name);
		putchar(':');
		if (res[i].why == METRIC_OK)
			put_num(res[i].value);
		else
			printf("null");
	}
	printf("},\"missing\":{");
	for (size_t i = 0, k = 0; i < nm; i++) {
		if (res[i].why != METRIC_MISSING)
			continue;
		metrics_at(t, i, &mi);
		printf("%s", k++ ? "," : "");
		put_json_str(mi.name);
		printf(":[");
		size_t n = metrics_inputs(t, i, ins, ARRAY_SIZE(ins));
		for (size_t j = 0, w = 0; j < n; j++)
			if (!c.have[ins[j]]) {
				metrics_input_at(ins[j], &in);
				printf("%s", w++ ? "," : "");
				put_json_str(in.name);
			}
		printf("]");
	}
	printf("},\"null_why\":{");
	for (size_t i = 0, k = 0; i < nm; i++) {
		if (res[i].why == METRIC_OK)
			continue;
		metrics_at(t, i, &mi);
		printf("%s", k++ ? "," : "");
		put_json_str(mi.name);
		putchar(':');
		put_json_str(metrics_null_text(res[i].why));
	}
	/* The constants the formulas were given, and why for those the counts did not give. */
	printf("},\"constants\":{");
	for (size_t k = 0, w = 0; k < nin; k++) {
		metrics_input_at(all[k], &in);
		if (in.kind != METRIC_IN_CONST)
			continue;
		printf("%s", w++ ? "," : "");
		put_json_str(in.name);
		putchar(':');
		if (c.have[all[k]])
			put_num(c.v[all[k]]);
		else
			printf("null");
	}
	printf("},\"constants_why\":{");
	for (size_t k = 0, w = 0; k < nin; k++) {
		if (!defaulted[all[k]])
			continue;
		metrics_input_at(all[k], &in);
		char why[sizeof(smt.why) + 16];
		snprintf(why, sizeof(why), "not given: %s", smt.why);
		printf("%s", w++ ? "," : "");
		put_json_str(in.name);
		putchar(':');
		put_json_str(why);
	}
	printf("}}\n");
	return 0;
}

int cmd_metrics(int argc, char **argv)
{
	static struct host_dump src;
	static struct cpu_info ci;
	static char source[512];
	const char *dump = NULL, *counts = NULL;
	long cpu = -1;
	int run_at = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--run")) {
			run_at = i;
			break;	/* what follows is the run's options */
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
	}
	int last = run_at ? run_at : argc;
	for (int i = 1; i < last; i++) {
		const char *opt = argv[i];
		if ((!strcmp(opt, "--cpuid-dump") || !strcmp(opt, "--cpu") || !strcmp(opt, "--eval")) && i + 1 >= last) {
			fprintf(stderr, "pmuboot-host metrics: %s wants a value\n", opt);
			return 2;
		}
		if (!strcmp(opt, "--cpuid-dump")) {
			dump = argv[++i];
		} else if (!strcmp(opt, "--eval")) {
			counts = argv[++i];
		} else if (!strcmp(opt, "--cpu")) {
			if (!host_cpu_arg("metrics", argv[++i], &cpu))
				return 2;
		} else {
			fprintf(stderr, "pmuboot-host metrics: unexpected argument '%s'\n", opt);
			return usage(stderr);
		}
	}
	if (run_at && counts) {
		fprintf(stderr, "pmuboot-host metrics: --eval and --run are two different things: give one\n");
		return 2;
	}
	if (run_at && !dump) {
		fprintf(stderr, "pmuboot-host metrics: --run measures against a model of a dump's PMU: give --cpuid-dump "
			"(`pmuboot-host run` measures on this machine)\n");
		return 2;
	}
	if (dump) {
		if (!host_dump_load("metrics", dump, cpu < 0 ? 0 : (size_t)cpu, &src))
			return 2;
		snprintf(source, sizeof(source), "cpuid dump %s, block %zu", dump, src.cpu);
		cpu_set_source(source);
	} else if (cpu >= 0 && !host_pin_cpu("metrics", cpu)) {
		return 2;
	}
	if (run_at)
		return cmd_metrics_run(&src, argc - run_at - 1, argv + run_at + 1);

	cpu_identify(&ci);
	const char *why;
	const struct metrics_table *t = metrics_for_cpu(&ci, &why);
	int rc;
	if (!t) {
		fprintf(stderr, "pmuboot-host metrics: no top-down formulas for %s (%s): %s\n", ci.uarch ? ci.uarch : "this core",
			ci.uarch_key ? ci.uarch_key : "?", why);
		say_which_cores();
		rc = 1;
	} else {
		rc = counts ? eval_table(&ci, t, counts) : list_table(&ci, t);
	}
	free(src.text);
	return rc;
}
