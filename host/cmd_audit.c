/*
 * host/cmd_audit.c - the audit stage on this CPU or on a CPUID dump's PMU model.
 *
 *   pmuboot-host audit [--cpuid-dump FILE] [--cpu N] [--perf-caps HEX] [--inject FAULT]...
 *
 * With a dump, the CPU is identified from the file as the image would, its
 * PMU is modelled (pmu/count/pmu_model.h, the model `program` uses) with the
 * machine around it (APERF/MPERF, SMI count, thermal status), taught to count
 * the known-answer loop (pmu/audit/audit_model.h), and the image's own audit
 * stage runs against it through the image's own counter driver.  Faults
 * injected into the model show which check catches each.  Without a dump the
 * stage runs on this processor through /dev/cpu/N/msr, or says every check
 * is absent where that is closed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "host/host_dump.h"
#include "linux/hw_linux.h"
#include "pmu/audit/audit.h"
#include "pmu/audit/audit_model.h"
#include "pmu/count/count.h"
#include "pmu/count/msr_save.h"
#include "pmu/count/pmu_model.h"
#include "cpu/cpu.h"
#include "cpu/topo.h"
#include "lib/out.h"
#include "lib/record.h"
#include "lib/x86/msr_intel.h"

#define FAULT_TEXT_MAX 256

static int usage(FILE *f)
{
	fprintf(f, "usage: pmuboot-host audit [--cpuid-dump FILE] [--cpu N] [--perf-caps HEX] [--inject FAULT]...\n"
		   "\n"
		   "Known-answer checks of the counters (docs/audit.md): the image's audit stage, on this CPU\n"
		   "through /dev/cpu/N/msr (every check absent where that is closed), or against a model of a\n"
		   "CPUID dump's PMU. Prints the begin, cpu, pmu, audit and end records and a line per check.\n"
		   "\n"
		   "  --cpuid-dump FILE   the CPU of a CPUID dump (docs/cpuid-dumps.md), its PMU modelled\n"
		   "  --cpu N             this machine: run on CPU N; a dump: its block N (default 0)\n"
		   "  --perf-caps HEX     a dump: IA32_PERF_CAPABILITIES as that machine reports it (a dump\n"
		   "                      holds no MSRs; e.g. 0x2000 full-width writes, 0xa000 with PERF_METRICS)\n"
		   "  --inject FAULT      a dump: give the model a fault (repeat, or comma-separate):\n"
		   "                        stuck:N       general counter N never increments\n"
		   "                        narrow:N      general counter N keeps only 32 bits\n"
		   "                        ignore-umask  every unit mask read as 0\n"
		   "                        no-pmi        an overflow sets its status bit, no interrupt\n"
		   "                        fixed-off:N   fixed counter N never increments\n"
		   "                        smi:K         K SMIs land in the measured windows\n"
		   "                        freq-drift:P  the core clock moves by P percent\n"
		   "                        throttle      the thermal log bit sets, the clock drops\n"
		   "                        frozen-clock  core clocks, fixed counter 1 and APERF stand still\n"
		   "                        stray-nmi     an NMI with no overflow behind it ends every run\n"
		   "  -h, --help          this text\n"
		   "\n"
		   "Exit status: 0 no check failed, 1 a check failed, 2 bad arguments or a bad dump.\n");
	return f == stdout ? 0 : 2;
}


/* The model raises its PMI through the "local APIC": to whoever hw_nmi_route_pmi named. */
static hw_nmi_fn pmi_fn;
static void *pmi_ctx;

static void model_pmi(void *ctx)
{
	(void)ctx;
	if (pmi_fn)
		pmi_fn(pmi_ctx);
}

static bool model_route(void *ctx, hw_nmi_fn fn, void *fn_ctx, char *why, unsigned long why_cap)
{
	(void)ctx;
	(void)why;
	(void)why_cap;
	pmi_fn = fn;
	pmi_ctx = fn_ctx;
	return true;
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
	(void)ctx;
	(void)msr;
	(void)val;
	return HW_ENODEV;
}

static bool parse_faults(const char *arg, char *all, size_t cap)
{
	size_t len = strlen(all), add = strlen(arg);
	if (len + add + 2 > cap) {
		fprintf(stderr, "pmuboot-host audit: too many --inject faults\n");
		return false;
	}
	if (len)
		all[len++] = ',';
	memcpy(all + len, arg, add + 1);
	return true;
}

/* Each fault word, checked against the modelled PMU (a counter it does not have is an error). */
static bool apply_faults(const char *all, struct pmu_model *m)
{
	char buf[FAULT_TEXT_MAX], why[160];
	snprintf(buf, sizeof(buf), "%s", all);
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		struct pmu_model_faults f;
		memset(&f, 0, sizeof(f));
		if (!pmu_model_fault_parse(w, &f, why, sizeof(why))) {
			fprintf(stderr, "pmuboot-host audit: --inject %s\n", why);
			return false;
		}
		uint32_t gp = (uint32_t)((1ull << m->cfg.n_gp) - 1);
		if ((f.stuck_gp | f.narrow_gp) & ~gp) {
			fprintf(stderr, "pmuboot-host audit: --inject %s: this PMU has %u general counters (0-%u)\n", w,
				m->cfg.n_gp, m->cfg.n_gp ? m->cfg.n_gp - 1 : 0);
			return false;
		}
		if (f.fixed_off & ~m->cfg.fixed_mask) {
			fprintf(stderr, "pmuboot-host audit: --inject %s: this PMU has no such fixed counter (fixed mask "
				"0x%x)\n", w, m->cfg.fixed_mask);
			return false;
		}
		m->faults.stuck_gp |= f.stuck_gp;
		m->faults.narrow_gp |= f.narrow_gp;
		m->faults.fixed_off |= f.fixed_off;
		m->faults.ignore_umask |= f.ignore_umask;
		m->faults.no_pmi |= f.no_pmi;
		m->faults.smi += f.smi;
		if (f.freq_drift_pct)
			m->faults.freq_drift_pct = f.freq_drift_pct;
		m->faults.throttle |= f.throttle;
		m->faults.frozen_clock |= f.frozen_clock;
		m->faults.stray_nmi |= f.stray_nmi;
	}
	return true;
}

int cmd_audit(int argc, char **argv)
{
	static struct host_dump src;
	static struct cpu_info ci;
	static struct pmu_caps caps;
	static struct pmu_model model;
	static struct audit_model_runner mr;
	static struct audit_verdict verdict;
	static struct rec rec;
	static char faults[FAULT_TEXT_MAX], source[512];
	const char *dump = NULL;
	bool have_caps = false;
	long cpu = -1;
	char why[192];

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i];
		if (i + 1 >= argc && (!strcmp(opt, "--cpuid-dump") || !strcmp(opt, "--cpu") || !strcmp(opt, "--perf-caps") ||
				      !strcmp(opt, "--inject"))) {
			fprintf(stderr, "pmuboot-host audit: %s wants a value\n", opt);
			return 2;
		}
		if (!strcmp(opt, "--cpuid-dump")) {
			dump = argv[++i];
		} else if (!strcmp(opt, "--cpu")) {
			if (!host_cpu_arg("audit", argv[++i], &cpu))
				return 2;
		} else if (!strcmp(opt, "--perf-caps")) {
			char *end;
			perf_caps_value = strtoull(argv[++i], &end, 16);
			if (!*argv[i] || *end || strlen(argv[i]) > 18) {
				fprintf(stderr, "pmuboot-host audit: --perf-caps wants a hex value, not '%s'\n", argv[i]);
				return 2;
			}
			have_caps = true;
		} else if (!strcmp(opt, "--inject")) {
			if (!parse_faults(argv[++i], faults, sizeof(faults)))
				return 2;
		} else {
			fprintf(stderr, "pmuboot-host audit: unexpected argument '%s'\n", opt);
			return usage(stderr);
		}
	}
	if (!dump && (faults[0] || have_caps)) {
		fprintf(stderr, "pmuboot-host audit: %s applies to the model of a dump's PMU: give --cpuid-dump\n",
			faults[0] ? "--inject" : "--perf-caps");
		return 2;
	}
	if (dump) {
		if (!host_dump_load("audit", dump, cpu < 0 ? 0 : (size_t)cpu, &src))
			return 2;
		snprintf(source, sizeof(source), "cpuid dump %s, block %zu", dump, src.cpu);
		cpu_set_source(source);
	} else if (cpu >= 0 && !host_pin_cpu("audit", cpu)) {
		return 2;
	}

	/* Identify as the image would; a dump's IA32_PERF_CAPABILITIES comes from --perf-caps. */
	const struct hw_msr_source caps_src = { .rdmsr = caps_rd, .wrmsr = caps_wr };
	if (have_caps)
		hw_linux_set_msr_source(&caps_src);
	cpu_identify(&ci);
	pmu_caps_detect(&ci, &caps);
	hw_linux_set_msr_source(NULL);

	struct audit_params p = { .ci = &ci, .caps = &caps };
	if (dump) {
		struct pmu_model_cfg cfg;
		pmu_model_cfg_from_caps(&cfg, &ci, &caps);
		pmu_model_cfg_machine(&cfg, &ci, &caps);
		memset(&model, 0, sizeof(model));
		pmu_model_reset(&model, &cfg);
		if (!apply_faults(faults, &model))
			return 2;
		model.pmi = model_pmi;
		audit_model_runner_init(&mr, &model, &ci);
		p.runner = &mr.runner;
		static const struct hw_msr_source msrs = { .rdmsr = pmu_model_msr_read, .wrmsr = pmu_model_msr_write,
							   .ctx = &model, .route_pmi = model_route, .own_windows = true };
		hw_linux_set_msr_source(&msrs);
	} else {
		p.runner = &audit_runner_process;
	}

	host_output_stdout();
	host_stream_begin("audit");
	static struct topo_cpu here;
	topo_probe(&here);
	rec_set_cpu(true, dump ? (uint32_t)src.cpu : (uint32_t)hw_linux_pinned_cpu(), here.cpuid_apic_id);
	cpu_report(&ci, &rec);
	if (dump)
		out_text("audit: against a model of this dump's PMU%s%s (the loop counted by the model, not a core)",
			 faults[0] ? ", with faults: " : "", faults);
	msr_save_forget();
	count_use_backend(&count_backend_msr);
	struct count_opts opts = { 0 };
	count_init(&ci, &caps, &opts, why, sizeof(why));
	rec_start(&rec, "pmu");
	pmu_caps_fields(&rec, &caps);
	count_state_fields(&rec);
	rec_emit(&rec);
	pmu_caps_summary(&caps);
	count_summary();
	audit_run(&p, &verdict);
	count_restore();
	rec_set_cpu(false, 0, 0);
	rec_stream_end();
	hw_linux_set_msr_source(NULL);
	free(src.text);
	return verdict.failed ? 1 : 0;
}
