/* host/cmd_run.c - the image's run stages on this machine, with the image's options. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "bench/stage.h"
#include "run/run.h"
#include "host/host.h"
#include "linux/hw_linux.h"
#include "run/config.h"
#include "lib/record.h"
#include "host/kernel_tools.h"

extern const struct run_mp linux_mp;	/* host/mp_linux.c */
void linux_mp_init(void);

static void report(const struct config_error *e, void *ctx)
{
	(void)ctx;
	rec_error(e->source, e->key, "%s", e->message);
}

/* Measurements stay on one CPU: the one we start on. */
static void pin_to_current_cpu(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(hw_linux_pinned_cpu(), &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("pmuboot-host run: sched_setaffinity");
}

static int usage(void)
{
	printf("usage: pmuboot-host run [key=value ...]\n"
	       "\n"
	       "Runs the image's stages on this machine (identify, timing, pmu, ibs, bench, restore),\n"
	       "pinned to the CPU it starts on, and prints their text lines and @pmuboot records.\n"
	       "The options are the image's (pmuboot.cfg); `pmuboot-host options` lists them all.\n"
	       "\n"
	       "  bench=list                   list every kernel.variant and exit\n"
	       "  bench=KERNEL[.VARIANT],...   measure only these (all, none)\n"
	       "  reps=N iterations=N warmup=N samples per figure, loop iterations per run, unmeasured samples\n"
	       "  events=SPEC;...              extra events to count beside each variant\n"
	       "  cpus=types|bsp|all|LIST      where to measure: one CPU of each core type (default), the CPU\n"
	       "                               it starts on, every online CPU, or numbers, N-M, apic:ID; each\n"
	       "                               measurement runs pinned (sched_setaffinity) to its CPU\n"
	       "\n"
	       "Exit status: 0 when the run recorded no error, 1 otherwise.\n");
	return 0;
}

int cmd_run(int argc, char **argv)
{
	static struct config cfg;
	static struct run_env env;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage();
	host_output_stdout();
	config_defaults(&cfg);
	/* bench=list is a question about the table, answered before anything runs. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "bench=" BENCH_LIST_WORD)) {
			bench_list();
			return 0;
		}
	linux_mp_init();	/* the CPUs we may use, before pinning narrows them to one */
	pin_to_current_cpu();
	host_stream_begin("run");
	for (int i = 1; i < argc; i++) {
		char source[32];
		snprintf(source, sizeof(source), "argument %d", i);
		config_apply_text(&cfg, source, false, argv[i], strlen(argv[i]), report, NULL);
	}
	env.cfg = &cfg;
	/* User kernels: kernels=DIR is this machine's directory (the image reads \pmuboot\kernels\). */
	static struct ukernel_file kfiles[UK_SET_MAX];
	if (cfg.kernels[0]) {
		char why[256];
		env.nkernel_files = kt_read_dir(cfg.kernels, kfiles, UK_SET_MAX, why, sizeof(why));
		if (why[0])
			rec_error("kernels", "kernels", "%s", why);
		env.kernel_files = kfiles;
	}
	env.disasm = kt_disasm_brief;
	env.mp = &linux_mp;
	run_stages(&env);
	rec_stream_end();
	return rec_stream_errors() ? 1 : 0;
}
