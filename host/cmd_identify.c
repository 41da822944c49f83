/*
 * host/cmd_identify.c - identify this CPU, or the CPU of a CPUID dump.
 *
 *   pmuboot-host identify [--cpu N]                   this machine (pinned to CPU N)
 *   pmuboot-host identify --cpuid-dump FILE [--cpu N] block N of a dump (default 0)
 *
 * Either way the image's own code identifies the CPU (cpu_identify,
 * cpu_report, cache_identify, cache_report: the "identify" stage) and runs the
 * "pmu" stage, so the records (begin, cpu, cache, pmu, end) are the image's.  With a dump, CPUID is answered
 * from the file (hw_linux_set_cpuid_source) and MSRs read as absent.  On this
 * machine without MSR access (no root or no msr module) the microcode
 * revision is /proc/cpuinfo's (platform/hw.h hw_os_microcode), named as its
 * source, as in `pmuboot-host run`.  A dump
 * with several CPU blocks read without --cpu also gets a `topology` record:
 * every block probed as its own processor, each distinct core type with its
 * uarch and event set (a hybrid part's P- and E-cores).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "host/host.h"
#include "linux/hw_linux.h"
#include "run/config.h"
#include "lib/record.h"
#include "host/host_dump.h"
#include "lib/out.h"
#include "cpu/cpu.h"
#include "cpu/topo.h"
#include "cpu/cache.h"


static int usage(FILE *f)
{
	fprintf(f, "usage: pmuboot-host identify [--cpuid-dump FILE] [--cpu N]\n"
		   "\n"
		   "Identify a CPU, its caches and TLBs and its PMU with the image's own code; prints the\n"
		   "text lines and the begin, cpu, cache, pmu and end records.\n"
		   "\n"
		   "  (no options)        this CPU, the one the command runs on\n"
		   "  --cpu N             run on CPU N; with --cpuid-dump, use the dump's block N (default 0)\n"
		   "  --cpuid-dump FILE   answer CPUID from a dump instead: `cpuid -r` output, an AIDA64 /\n"
		   "                      InstLatx64 CPUID dump or a pmuboot fixture (docs/cpuid-dumps.md);\n"
		   "                      MSRs then read as absent\n"
		   "  -h, --help          this text\n"
		   "\n"
		   "The microcode revision is MSR 0x8B (/dev/cpu/N/msr: root and the msr module), else the\n"
		   "\"microcode\" line of /proc/cpuinfo; the cpu record's microcode_source says which.\n"
		   "Exit status: 0 identified, 1 an error (unreadable dump, error record), 2 bad arguments.\n");
	return f == stdout ? 0 : 2;
}

/* Every block of the dump as one processor; CPUID answers from each block in turn. */
static void dump_topology(struct host_dump *src, const char *path)
{
	static struct topology t;
	static struct rec r;
	static char source[600];
	size_t keep = src->cpu;

	memset(&t, 0, sizeof(t));
	snprintf(source, sizeof(source), "cpuid dump %s", path);
	t.source = source;
	t.total = src->d.ncpus;
	for (size_t i = 0; i < src->d.ncpus && t.n < TOPO_MAX_CPUS; i++) {
		struct topo_cpu *c = &t.cpu[t.n++];
		c->n = (uint32_t)i;
		c->package = c->die = c->core = c->thread = TOPO_NONE;
		src->cpu = i;
		topo_probe(c);
		c->apic_id = c->cpuid_apic_id;
		c->bsp = i == 0;
		c->enabled = c->healthy = true;
		topo_locate_from_cpuid(c);
	}
	src->cpu = keep;
	topo_classify(&t);
	topo_report(&t, &r, NULL, NULL, 0);
}

int cmd_identify(int argc, char **argv)
{
	static struct config cfg;
	static struct run_env env;
	static struct host_dump src;
	static char source[512];
	static struct rec rec;
	const char *dump = NULL;
	long cpu = -1;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpuid-dump") && i + 1 < argc) {
			dump = argv[++i];
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			if (!host_cpu_arg("identify", argv[++i], &cpu))
				return 2;
		} else {
			fprintf(stderr, "pmuboot-host identify: unexpected argument '%s'\n", argv[i]);
			return usage(stderr);
		}
	}

	if (dump) {
		if (!host_dump_load("identify", dump, cpu < 0 ? 0 : (size_t)cpu, &src))
			return 1;
		const struct cpuid_dump_cpu *c = &src.d.cpus[src.cpu];
		snprintf(source, sizeof(source), "cpuid dump %s, block %zu (%s %u, line %u)%s%s", dump, src.cpu,
			 c->labelled ? "CPU #" : "unlabelled block", c->label, c->line, c->core_note[0] ? ", " : "",
			 c->core_note);
		cpu_set_source(source);
	} else if (cpu >= 0 && !host_pin_cpu("identify", cpu)) {
		return 1;
	}

	host_output_stdout();
	config_defaults(&cfg);
	host_stream_begin("identify");
	env.cfg = &cfg;
	cpu_identify(&env.cpu);
	cpu_report(&env.cpu, &rec);
	static struct cache_info cache;
	cache_identify(&env.cpu, &cache);
	/* The processor: the dump's block, else the CPU this was pinned to (unknown when not pinned). */
	cache_report(&cache, &rec, true, dump ? (int64_t)src.cpu : hw_linux_pinned_cpu());
	run_stage(&env, "pmu");
	if (dump && cpu < 0 && src.d.ncpus > 1)
		dump_topology(&src, dump);
	rec_stream_end();
	free(src.text);
	return rec_stream_errors() ? 1 : 0;
}
