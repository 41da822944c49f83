/* host/main.c - pmuboot-host: dispatch to a command. */
#include <stdio.h>
#include <string.h>

#include "host/host.h"
#include "host/cmd_instr.h"
#include "host/instr_measure.h"
#include "version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
};

static const struct command commands[] = {
	{ "audit", cmd_audit, "audit [--cpuid-dump FILE] [--inject FAULT]  known-answer checks of the counters (this CPU, or a dump's PMU model)" },
	{ "events", cmd_events, "events [--uarch KEY|all|list|ibs] [--grep W]  the event vocabulary as CSV (default: this CPU's set)" },
	{ "ibs-report", cmd_ibs_report, "ibs-report LOGFILE              IBS derived events from a capture's ibs_sample records" },
	{ "identify", cmd_identify, "identify [--cpuid-dump FILE] [--cpu N]  identify this CPU (or a dump block) and its PMU" },
	{ "instr", cmd_instr, "instr [--list] [--cpuid-dump FILE] [--cpu N] [--match RE] [--extension E,...]  a CPU's instruction forms: list, or measure here" },
	{ "metrics", cmd_metrics, "metrics [--cpuid-dump FILE] [--cpu N] [--eval COUNTS.json]  top-down metrics: list, or evaluate counts" },
	{ "program", cmd_program, "program [--cpuid-dump FILE] SPEC... the MSR writes that count SPEC... on that CPU's PMU" },
	{ "instr-dev", cmd_instr_dev, "instr-dev [--form ASM]... [--cpu N]  measure the kernel builder's test forms (development)" },
	{ "kernel", cmd_kernel, "kernel build FILE [-o OUT] | show FILE  user kernels: assemble a kernel text file, show a kernel file" },
	{ "options", cmd_options, "options [KEY]                   print the option reference (--markdown: docs/options.md)" },
	{ "run", cmd_run, "run [key=value ...]             run the image's stages on this machine" },
};

static int usage(FILE *f)
{
	fprintf(f, "usage: pmuboot-host COMMAND [ARGS]\n\n"
		   "The image's portable code on Linux: the same identification, counting and benchmarks,\n"
		   "the same text lines and @pmuboot records, on stdout.\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %s\n", commands[i].usage);
	fprintf(f, "\n`pmuboot-host COMMAND --help` describes a command; `pmuboot-host --version` the build.\n");
	return f == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout);
	if (!strcmp(argv[1], "--version")) {
		printf("pmuboot-host %s (build %s)\n", PMUBOOT_VERSION, PMUBOOT_BUILD_ID);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "pmuboot-host: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
