/*
 * host/cmd_program.c - the MSR writes the counter driver would make.
 *
 *   pmuboot-host program [--cpuid-dump FILE] [--cpu N] [--user|--kernel] SPEC...
 *
 * This CPU (or the CPU of a CPUID dump) is identified as the image would
 * (cpu_identify, pmu_caps_detect), its PMU is modelled at power-on state by
 * pmu/count/pmu_model.h, described to platform/hw.h as the CPU's MSRs
 * (hw_linux_set_msr_source), and the image's own MSR backend
 * (pmu/count/count_msr.c) counts SPEC... against it: every write is printed as
 * `wrmsr 0xMSR 0xVALUE`, in order, under `#` lines saying what each group
 * is for, then the passes the set needs.  SPECs are event names of the
 * CPU's event set or raw specs, as in the `events=` option.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "linux/hw_linux.h"
#include "events/events.h"
#include "pmu/count/count.h"
#include "pmu/count/count_msr.h"
#include "pmu/count/count_sched.h"
#include "cpu/cpu.h"
#include "host/host_dump.h"
#include "pmu/count/msr_save.h"
#include "pmu/caps/pmu_caps.h"
#include "pmu/count/pmu_model.h"

/* Events each counting counter sees while the "kernel" runs, so reads and restores show. */
#define MODEL_UNITS 1000u

/* Print the writes logged since *cursor, under a heading whenever the phase changes. */
static void print_writes(uint64_t *cursor, const char *prefix)
{
	const char *phase = NULL;
	for (; *cursor < msr_log_total(); (*cursor)++) {
		const struct msr_log_entry *e = msr_log_get(*cursor);
		if (!e)
			continue;
		if (!phase || strcmp(phase, e->phase)) {
			phase = e->phase;
			printf("# %s%s\n", prefix, phase[0] ? phase : "other");
		}
		printf("wrmsr 0x%x 0x%llx%s\n", e->msr, (unsigned long long)e->value,
		       e->result == HW_OK ? "" : "   # faulted");
	}
}

static void print_pass(const struct count_set *set, unsigned p)
{
	char name[16];
	const char *sep = " ";
	printf("pass %u:", p);
	for (size_t i = 0; i < set->n; i++)
		if (set->pass_of[i] == p) {
			printf("%s%s -> %s", sep, set->ev[i].name, count_sched_counter_name(set, i, name));
			sep = ", ";
		}
	printf("\n");
}

static void print_cpu(const struct cpu_info *ci, const struct event_set *es, const char *dump)
{
	printf("# cpu: %s family 0x%x model 0x%x stepping %u: %s, event set %s\n", ci->vendor_str, ci->family, ci->model,
	       ci->stepping, ci->uarch ? ci->uarch : "unknown microarchitecture", es ? es->key : "none (raw specs only)");
	if (!dump)
		printf("# from: this CPU (CPU %d); the writes below go to a model of its PMU, not to real MSRs\n",
		       hw_linux_pinned_cpu());
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pmuboot-host program [--cpuid-dump FILE] [--cpu N] [--user|--kernel] SPEC...\n"
		   "\n"
		   "The MSR writes the image's counter driver makes to count SPEC... (start, stop, read,\n"
		   "restore), against a model of the PMU at power-on state, not to real MSRs.  (Describing\n"
		   "this CPU's PMU probes counter 0 and restores it, as `identify` does, when /dev/cpu/N/msr\n"
		   "is open.)\n"
		   "\n"
		   "  SPEC                an event name of the CPU's event set, or event=0x..,umask=0x..\n"
		   "                      [,cmask=N][,inv][,edge][,any][,offcore_rsp=V], or rUUEE\n"
		   "  (no --cpuid-dump)   this CPU, the one the command runs on\n"
		   "  --cpuid-dump FILE   the CPU of a CPUID dump (docs/cpuid-dumps.md)\n"
		   "  --cpu N             this machine: run on CPU N; a dump: its block N (default 0)\n"
		   "  --user, --kernel    count in user or kernel mode only (default both)\n"
		   "  -h, --help          this text\n"
		   "\n"
		   "A set that cannot be counted prints nothing but the reason (stderr).\n"
		   "Exit status: 0, 1 the set cannot be counted on that PMU, 2 bad arguments or dump.\n");
	return f == stdout ? 0 : 2;
}

int cmd_program(int argc, char **argv)
{
	static struct host_dump src;
	long block = -1;
	static struct cpu_info ci;
	static struct pmu_caps caps;
	static struct pmu_model model;
	static struct count_set set;
	struct pmu_model_cfg mcfg;
	struct count_opts opts = { 0 };
	const char *dump = NULL;
	char err[256], line[256];
	enum count_priv priv = COUNT_PRIV_ALL;
	int first_spec = argc;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpuid-dump") && i + 1 < argc) {
			dump = argv[++i];
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			long n;
			if (!host_cpu_arg("program", argv[++i], &n))
				return 2;
			block = n;
		} else if (!strcmp(argv[i], "--user")) {
			priv = COUNT_PRIV_USER;
		} else if (!strcmp(argv[i], "--kernel")) {
			priv = COUNT_PRIV_KERNEL;
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			fprintf(stderr, "pmuboot-host program: unknown option '%s'\n", argv[i]);
			return usage(stderr);
		} else {
			first_spec = i;
			break;
		}
	}
	if (first_spec >= argc) {
		fprintf(stderr, "pmuboot-host program: no events given\n");
		return usage(stderr);
	}
	if (argc - first_spec > COUNT_MAX_EVENTS) {
		fprintf(stderr, "pmuboot-host program: %d events; at most %d per set\n", argc - first_spec,
			COUNT_MAX_EVENTS);
		return 2;
	}
	if (dump && !host_dump_load("program", dump, block < 0 ? 0 : (size_t)block, &src))
		return 2;
	if (!dump && block >= 0 && !host_pin_cpu("program", block))
		return 2;
	cpu_identify(&ci);
	pmu_caps_detect(&ci, &caps);

	bool amd = ci.vendor == VENDOR_AMD || ci.vendor == VENDOR_HYGON;
	const struct event_set *es = ci.event_set ? events_set_find(ci.event_set) : NULL;
	memset(&set, 0, sizeof(set));
	set.priv = priv;
	for (int i = first_spec; i < argc; i++) {
		struct event_spec *sp = &set.ev[set.n];
		if (!event_spec_parse(es, amd, argv[i], strlen(argv[i]), sp, err, sizeof(err))) {
			fprintf(stderr, "pmuboot-host program: %s\n", err);
			return 2;
		}
		set.n++;
	}

	if (caps.kind == PMU_NONE) {
		print_cpu(&ci, es, dump);
		printf("# pmu: none: %s\n", caps.absent_reason ? caps.absent_reason : "no counters identified");
		fprintf(stderr, "pmuboot-host program: no counters to program: %s\n",
			caps.absent_reason ? caps.absent_reason : "no counters identified");
		return 1;
	}

	/* The PMU of this CPU or the dump, at power-on state, behind the MSR backend. */
	pmu_model_cfg_from_caps(&mcfg, &ci, &caps);
	pmu_model_reset(&model, &mcfg);
	const struct hw_msr_source msrs = { .rdmsr = pmu_model_msr_read, .wrmsr = pmu_model_msr_write, .ctx = &model };
	hw_linux_set_msr_source(&msrs);
	msr_save_forget();
	count_use_backend(&count_backend_msr);
	const struct count_backend *b = count_backend();
	uint64_t cursor = msr_log_total();

	/* A set that cannot be counted (AnyThread where it is deprecated, a constraint nothing meets)
	 * is refused before anything is printed: no plan, no writes, only the reason. */
	bool ok = count_init(&ci, &caps, &opts, err, sizeof(err));
	if (ok && !b->schedule(&set, err, sizeof(err))) {
		fprintf(stderr, "pmuboot-host program: %s\n", err);
		count_restore();
		hw_linux_set_msr_source(NULL);
		return 1;
	}
	print_cpu(&ci, es, dump);
	count_msr_describe(line, sizeof(line));
	printf("# pmu: %s\n", line);
	if (caps.pdcm && !caps.perf_caps_read)
		printf("# note: %s: full-width counter writes not assumed\n",
		       dump ? "a CPUID dump has no IA32_PERF_CAPABILITIES" : "IA32_PERF_CAPABILITIES is not readable here");
	printf("# the model starts at power-on state: no counter in use\n");
	print_writes(&cursor, "");
	if (!ok) {
		fprintf(stderr, "pmuboot-host program: %s\n", err);
		hw_linux_set_msr_source(NULL);
		return 1;
	}
	int status = 0;
	for (unsigned p = 0; p < set.passes && !status; p++) {
		char prefix[32];
		uint64_t values[COUNT_MAX_EVENTS];
		snprintf(prefix, sizeof(prefix), "pass %u: ", p);
		if (!b->pass_begin(&set, p, err, sizeof(err))) {
			print_writes(&cursor, prefix);
			fprintf(stderr, "pmuboot-host program: %s\n", err);
			status = 1;
			break;
		}
		print_writes(&cursor, prefix);
		/* What the harness's measuring routine does around the kernel. */
		msr_log_phase("start list (right before the kernel)");
		count_toggle_apply(&set.start);
		pmu_model_run(&model, MODEL_UNITS);
		msr_log_phase("stop list (right after the kernel)");
		count_toggle_apply(&set.stop);
		msr_log_phase("");
		bool read_ok = b->read(&set, p, values, err, sizeof(err));
		b->pass_end(&set, p);
		print_writes(&cursor, prefix);
		if (!read_ok) {
			fprintf(stderr, "pmuboot-host program: %s\n", err);
			status = 1;
			break;
		}
		printf("# pass %u: read back after %u modelled events:", p, MODEL_UNITS);
		for (size_t i = 0; i < set.n; i++)
			if (set.pass_of[i] == p)
				printf(" %s=%llu", set.ev[i].name, (unsigned long long)values[i]);
		printf("\n");
	}
	count_restore();
	print_writes(&cursor, "end of run: ");
	hw_linux_set_msr_source(NULL);
	if (status)
		return status;	/* a plan that could not be carried out is not printed as one */
	printf("passes: %u\n", set.passes);
	for (unsigned p = 0; p < set.passes; p++)
		print_pass(&set, p);
	return status;
}
