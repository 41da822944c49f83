/*
 * host/cmd_metrics_run.c - `pmuboot-host metrics --cpuid-dump FILE [--cpu N] [--perf-caps HEX] --run
 * [key=value ...]`: the image's benchmark stage, top-down metrics included, against a model of the dump's PMU.
 *
 * The proof without silicon: the CPU is identified from the dump as the image would, its PMU modelled
 * (pmu/count/pmu_model.h, as `program` and `audit` do) behind the image's own MSR counter driver, and
 * the benchmark stage runs the real kernels here while the model counts a "workload" written below: so
 * every step from the metric tables through the scheduler, the counter programming, PERF_METRICS, the
 * harness's differential and the evaluator to the `metrics` records is the image's code.  The counts are
 * the model's, not a measurement of this machine, and the text says so.  A dump holds no MSRs:
 * --perf-caps gives IA32_PERF_CAPABILITIES (0xa000: full-width writes and PERF_METRICS) as audit's does.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cmd_metrics.h"
#include "host/host.h"
#include "linux/hw_linux.h"
#include "bench/stage.h"
#include "platform/timing.h"
#include "lib/out.h"
#include "lib/record.h"
#include "lib/x86/msr_intel.h"
#include "pmu/caps/pmu_caps.h"
#include "pmu/count/count.h"
#include "pmu/count/msr_save.h"
#include "pmu/count/pmu_model.h"
#include "cpu/cpu.h"
#include "cpu/topo.h"
#include "run/config.h"

/*
 * The modelled workload, per iteration of a kernel: 100 core cycles; as many slots as the core's pipeline
 * width would give at four (TOPDOWN.SLOTS on fixed counter 3: 400), split as the architectural top-down
 * events count them: retiring (C2H/02H) 120, bad speculation (73H/00H) 40, frontend (9CH/01H) 100, backend
 * (A4H/02H) 140, with 60 of those memory bound (A4H/10H); instructions 150; every other event 1 + a hash of
 * its code and unit mask below 50 (AMD codes too).  Nothing here claims to be a real core's behaviour.
 */
#define MODEL_CYCLES 100
static uint64_t workload(void *ctx, uint16_t event, uint8_t umask)
{
	static const struct { uint16_t event; uint8_t umask; uint64_t rate; } rates[] = {
		{ 0x3C, 0x00, MODEL_CYCLES }, { 0x00, 0x02, MODEL_CYCLES }, { 0x00, 0x04, 4 * MODEL_CYCLES },
		{ 0x00, 0x01, 150 }, { 0xC0, 0x00, 150 }, { 0xC2, 0x02, 120 }, { 0x73, 0x00, 40 }, { 0x9C, 0x01, 100 },
		{ 0xA4, 0x02, 140 }, { 0xA4, 0x10, 60 }, { 0x76, 0x00, MODEL_CYCLES },
	};
	(void)ctx;
	for (size_t i = 0; i < ARRAY_SIZE(rates); i++)
		if (rates[i].event == event && rates[i].umask == umask)
			return rates[i].rate;
	return 1 + (((uint32_t)event * 2654435761u) ^ ((uint32_t)umask * 40503u)) % 49;
}

static struct pmu_model model;

static void model_work(void *ctx, uint64_t iterations)
{
	pmu_model_run(ctx, iterations);
}

/* Before the model exists: only IA32_PERF_CAPABILITIES, as --perf-caps gave it. */
static uint64_t perf_caps_value;
static int caps_rd(void *ctx, uint32_t msr, uint64_t *val)
{
	(void)ctx;
	*val = msr == MSR_IA32_PERF_CAPABILITIES ? perf_caps_value : 0;
	return msr == MSR_IA32_PERF_CAPABILITIES ? HW_OK : HW_ENODEV;
}

static int caps_wr(void *ctx, uint32_t msr, uint64_t val)
{
	(void)ctx, (void)msr, (void)val;
	return HW_ENODEV;
}

/* The dump's blocks as the processors of a machine: who shares a core gives the threads per core.  The model's
 * sibling runs nothing (bench_params.siblings_busy NULL), so HYPERTHREADING_ON is the per-thread form's 0. */
static void dump_topology(struct host_dump *src, struct topology *t)
{
	size_t keep = src->cpu;
	memset(t, 0, sizeof(*t));
	t->source = "cpuid dump";
	t->total = src->d.ncpus;
	for (size_t i = 0; i < src->d.ncpus && t->n < TOPO_MAX_CPUS; i++) {
		struct topo_cpu *c = &t->cpu[t->n++];
		c->n = (uint32_t)i;
		c->package = c->die = c->core = c->thread = TOPO_NONE;
		src->cpu = i;
		topo_probe(c);
		c->apic_id = c->cpuid_apic_id;
		c->enabled = c->healthy = true;
		topo_locate_from_cpuid(c);
	}
	src->cpu = keep;
}

static void report(const struct config_error *e, void *ctx)
{
	(void)ctx;
	rec_error(e->source, e->key, "%s", e->message);
}

int cmd_metrics_run(struct host_dump *src, int argc, char **argv)
{
	static struct cpu_info ci;
	static struct pmu_caps caps;
	static struct config cfg;
	static struct topology topo;
	static struct rec rec;
	struct count_opts opts = { 0 };
	char why[192];
	int first = 0;

	if (argc >= 2 && !strcmp(argv[0], "--perf-caps")) {
		char *end;
		perf_caps_value = strtoull(argv[1], &end, 16);
		if (!*argv[1] || *end || strlen(argv[1]) > 18) {
			fprintf(stderr, "pmuboot-host metrics: --perf-caps wants a hex value, not '%s'\n", argv[1]);
			return 2;
		}
		first = 2;
	}
	const struct hw_msr_source caps_src = { .rdmsr = caps_rd, .wrmsr = caps_wr };
	if (first)
		hw_linux_set_msr_source(&caps_src);
	cpu_identify(&ci);
	pmu_caps_detect(&ci, &caps);
	hw_linux_set_msr_source(NULL);
	dump_topology(src, &topo);

	host_output_stdout();
	config_defaults(&cfg);
	host_stream_begin("metrics");
	for (int i = first; i < argc; i++) {
		char source[32];
		snprintf(source, sizeof(source), "argument %d", i + 1);
		config_apply_text(&cfg, source, false, argv[i], strlen(argv[i]), report, NULL);
	}
	rec_set_cpu(true, (uint32_t)src->cpu, src->cpu < topo.n ? topo.cpu[src->cpu].cpuid_apic_id : 0);
	cpu_report(&ci, &rec);
	out_text("metrics: the benchmark stage against a model of this dump's PMU: its counts are the model's workload "
		 "(host/cmd_metrics_run.c), not a measurement of this machine");

	struct pmu_model_cfg mcfg;
	pmu_model_cfg_from_caps(&mcfg, &ci, &caps);
	pmu_model_cfg_machine(&mcfg, &ci, &caps);
	memset(&model, 0, sizeof(model));
	model.rate = workload;
	pmu_model_reset(&model, &mcfg);
	static const struct hw_msr_source msrs = { .rdmsr = pmu_model_msr_read, .wrmsr = pmu_model_msr_write,
						   .ctx = &model, .own_windows = true };
	hw_linux_set_msr_source(&msrs);
	msr_save_forget();
	count_use_backend(&count_backend_msr);
	count_init(&ci, &caps, &opts, why, sizeof(why));
	rec_start(&rec, "pmu");
	pmu_caps_fields(&rec, &caps);
	count_state_fields(&rec);
	rec_emit(&rec);
	count_summary();
	timing_report(timing_init(ci.exec));

	struct bench_params p = {
		.bench = cfg.bench,
		.events = cfg.events,
		.iterations = cfg.iterations,
		.reps = cfg.reps,
		.warmup = cfg.warmup,
		.pages = BENCH_PAGES_4K,
		.cpu = &ci,
		.topology = &topo,
		.model_work = model_work,
		.model_ctx = &model,
	};
	bench_stage(&p);
	count_restore();
	rec_set_cpu(false, 0, 0);
	rec_stream_end();
	hw_linux_set_msr_source(NULL);
	free(src->text);
	return rec_stream_errors() ? 1 : 0;
}
