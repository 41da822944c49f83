/* host/host_dump.c - see host_dump.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_dump.h"
#include "linux/hw_linux.h"
#include "lib/decimal.h"

const char *host_file_error(int err)
{
	return err == HOST_ENOTREG ? "not a regular file (a FIFO, device or socket): give a file" : strerror(err);
}

char *host_read_file(const char *path, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;
	struct stat sb;
	/* O_NONBLOCK: opening a FIFO with no writer must not wait; only regular files are read. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		errno = S_ISDIR(sb.st_mode) ? EISDIR : HOST_ENOTREG;
		return NULL;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return NULL;
	}
	for (;;) {
		if (n + 1 >= cap) {
			cap = cap ? cap * 2 : 65536;
			char *nb = cap <= HOST_FILE_MAX ? realloc(buf, cap) : NULL;
			if (!nb) {
				free(buf);
				fclose(f);
				errno = cap > HOST_FILE_MAX ? EFBIG : ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
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
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * With PMUBOOT_CPUID_TRACE set, every question asked of the dump goes to
 * stderr: how tests/host/test_cpuid_fixtures.py proves that a reduced
 * fixture answers exactly as its full dump did.
 */
static void dump_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out)
{
	const struct host_dump *s = ctx;
	bool found = cpuid_dump_query(&s->d, s->cpu, leaf, subleaf, out);
	if (s->trace)
		fprintf(stderr, "cpuid-trace: %08X.%X %s %08X %08X %08X %08X\n", leaf, subleaf,
			found ? "found" : "absent", out->eax, out->ebx, out->ecx, out->edx);
}

bool host_dump_load(const char *cmd, const char *path, size_t cpu, struct host_dump *s)
{
	size_t len;

	s->cpu = cpu;
	s->text = host_read_file(path, &len);
	if (!s->text) {
		fprintf(stderr, "pmuboot-host %s: %s: %s\n", cmd, path, host_file_error(errno));
		return false;
	}
	size_t lines = cpuid_dump_line_count(s->text, len) + 1;
	struct cpuid_dump_leaf *leaves = calloc(lines, sizeof(*leaves));
	struct cpuid_dump_cpu *cpus = calloc(lines, sizeof(*cpus));
	if (!leaves || !cpus) {
		fprintf(stderr, "pmuboot-host %s: %s: out of memory\n", cmd, path);
		return false;
	}
	cpuid_dump_init(&s->d, leaves, lines, cpus, lines);
	if (!cpuid_dump_parse(&s->d, s->text, len)) {
		if (s->d.err_line)
			fprintf(stderr, "pmuboot-host %s: %s:%u: %s\n", cmd, path, s->d.err_line, s->d.err);
		else
			fprintf(stderr, "pmuboot-host %s: %s: %s\n", cmd, path, s->d.err);
		return false;
	}
	if (s->cpu >= s->d.ncpus) {
		fprintf(stderr, "pmuboot-host %s: %s has %zu CPU blocks (0..%zu), no block %zu\n", cmd, path,
			s->d.ncpus, s->d.ncpus - 1, s->cpu);
		return false;
	}
	s->trace = getenv("PMUBOOT_CPUID_TRACE") != NULL;
	hw_linux_set_cpuid_source(dump_cpuid, s);
	return true;
}

bool host_pin_cpu(const char *cmd, long cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, "pmuboot-host %s: cannot run on CPU %ld: %s\n", cmd, cpu, strerror(errno));
		return false;
	}
	return true;
}

bool host_cpu_arg(const char *cmd, const char *arg, long *cpu)
{
	uint64_t n;
	if (!dec_whole(arg, strlen(arg), HOST_CPU_ARG_MAX, &n)) {
		fprintf(stderr, "pmuboot-host %s: --cpu wants a CPU number, not '%s'\n", cmd, arg);
		return false;
	}
	*cpu = (long)n;
	return true;
}
