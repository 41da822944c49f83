/* tools/host/cmd_run.c - the image's run stages on this machine, with the image's options. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "run/run.h"
#include "tools/host/host.h"
#include "tools/host/hw_linux.h"
#include "run/config.h"
#include "lib/record.h"

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

int cmd_run(int argc, char **argv)
{
	static struct config cfg;
	static struct run_env env;

	pin_to_current_cpu();
	host_output_stdout();
	config_defaults(&cfg);
	host_stream_begin("run");
	for (int i = 1; i < argc; i++) {
		char source[32];
		snprintf(source, sizeof(source), "argument %d", i);
		config_apply_text(&cfg, source, false, argv[i], strlen(argv[i]), report, NULL);
	}
	env.cfg = &cfg;
	env.image = false;
	run_stages(&env);
	rec_stream_end();
	return rec_stream_errors() ? 1 : 0;
}
