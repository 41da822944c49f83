/*
 * tools/host/cmd_identify.c - identify this CPU, or the CPU of a CPUID dump.
 *
 *   pmuboot-host identify [--cpu N]                   this machine (pinned to CPU N)
 *   pmuboot-host identify --cpuid-dump FILE [--cpu N] block N of a dump (default 0)
 *
 * Either way the image's own stages ("identify", "pmu") run, so the records
 * (begin, cpu, pmu, end) are the image's.  With a dump, CPUID is answered
 * from the file (hw_linux_set_cpuid_source) and MSRs read as absent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run.h"
#include "host.h"
#include "hw_linux.h"
#include "lib/config.h"
#include "lib/record.h"
#include "pmu/cpuid_dump.h"

#define DUMP_MAX_BYTES (64u << 20)	/* the largest real dumps are a few hundred KiB */

struct dump_source {
	struct cpuid_dump d;
	size_t cpu;
};

static void dump_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out)
{
	const struct dump_source *s = ctx;
	cpuid_dump_query(&s->d, s->cpu, leaf, subleaf, out);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			char *nb = cap <= DUMP_MAX_BYTES ? realloc(buf, cap) : NULL;
			if (!nb) {
				free(buf);
				fclose(f);
				errno = cap > DUMP_MAX_BYTES ? EFBIG : ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	*len = n;
	return buf;
}

/* Load and parse FILE; on error print "FILE:LINE: message" and return false. */
static bool load_dump(const char *path, struct dump_source *s, char **text)
{
	size_t len;

	*text = read_file(path, &len);
	if (!*text) {
		fprintf(stderr, "pmuboot-host identify: %s: %s\n", path, strerror(errno));
		return false;
	}
	size_t lines = cpuid_dump_line_count(*text, len);
	struct cpuid_dump_leaf *leaves = calloc(lines, sizeof(*leaves));
	struct cpuid_dump_cpu *cpus = calloc(lines, sizeof(*cpus));
	if (!leaves || !cpus) {
		fprintf(stderr, "pmuboot-host identify: %s: out of memory\n", path);
		return false;
	}
	cpuid_dump_init(&s->d, leaves, lines, cpus, lines);
	if (!cpuid_dump_parse(&s->d, *text, len)) {
		if (s->d.err_line)
			fprintf(stderr, "pmuboot-host identify: %s:%u: %s\n", path, s->d.err_line, s->d.err);
		else
			fprintf(stderr, "pmuboot-host identify: %s: %s\n", path, s->d.err);
		return false;
	}
	return true;
}

static bool pin_to(long cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, "pmuboot-host identify: cannot run on CPU %ld: %s\n", cpu, strerror(errno));
		return false;
	}
	return true;
}

static int usage(void)
{
	fprintf(stderr, "usage: pmuboot-host identify [--cpuid-dump FILE] [--cpu N]\n");
	return 2;
}

int cmd_identify(int argc, char **argv)
{
	static struct config cfg;
	static struct run_env env;
	static struct dump_source src;
	static char source[512];
	const char *dump = NULL;
	long cpu = -1;
	char *text = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpuid-dump") && i + 1 < argc) {
			dump = argv[++i];
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			char *end;
			cpu = strtol(argv[++i], &end, 10);
			if (*argv[i] == '\0' || *end || cpu < 0 || cpu > 65535) {
				fprintf(stderr, "pmuboot-host identify: --cpu wants a CPU number, not '%s'\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "pmuboot-host identify: unexpected argument '%s'\n", argv[i]);
			return usage();
		}
	}

	if (dump) {
		if (!load_dump(dump, &src, &text))
			return 1;
		src.cpu = cpu < 0 ? 0 : (size_t)cpu;
		if (src.cpu >= src.d.ncpus) {
			fprintf(stderr, "pmuboot-host identify: %s has %zu CPU blocks (0..%zu), no block %zu\n", dump,
				src.d.ncpus, src.d.ncpus - 1, src.cpu);
			return 1;
		}
		const struct cpuid_dump_cpu *c = &src.d.cpus[src.cpu];
		snprintf(source, sizeof(source), "cpuid dump %s, block %zu (%s %u, line %u)%s%s", dump, src.cpu,
			 c->labelled ? "CPU #" : "unlabelled block", c->label, c->line, c->core_note[0] ? ", " : "",
			 c->core_note);
		hw_linux_set_cpuid_source(dump_cpuid, &src);
		cpu_set_source(source);
	} else if (cpu >= 0 && !pin_to(cpu)) {
		return 1;
	}

	host_output_stdout();
	config_defaults(&cfg);
	host_stream_begin("identify");
	env.cfg = &cfg;
	env.image = false;
	run_stage(&env, "identify");
	run_stage(&env, "pmu");
	rec_stream_end();
	free(text);
	return rec_stream_errors() ? 1 : 0;
}
