/*
 * host/host_dump.h - where pmuboot-host commands take a CPU from:
 * reading a whole file, answering CPUID from a CPUID dump (identify,
 * program, events), or pinning to one CPU of this machine.
 */
#ifndef PMUBOOT_HOST_HOST_DUMP_H
#define PMUBOOT_HOST_HOST_DUMP_H

#include <errno.h>

#include "lib/libc.h"
#include "cpu/cpuid_dump.h"

/* The largest real dumps are a few hundred KiB; captures can be larger. */
#define HOST_FILE_MAX ((size_t)64 << 20)

/* The whole file, NUL-terminated; NULL with errno set (EFBIG past HOST_FILE_MAX). */
char *host_read_file(const char *path, size_t *len);
/*
 * Only regular files are read: a FIFO or device is refused at once (it could
 * block or never end) with errno HOST_ENOTREG; host_file_error names it.
 */
#define HOST_ENOTREG ENODEV
const char *host_file_error(int err);

struct host_dump {
	struct cpuid_dump d;
	size_t cpu;	/* the logical-CPU block CPUID answers from */
	bool trace;	/* PMUBOOT_CPUID_TRACE: print each CPUID question and answer to stderr */
	char *text;
};

/*
 * Read and parse a dump and make CPUID answer from block `cpu` of it (MSRs
 * then read as absent).  On error prints "pmuboot-host CMD: FILE[:LINE]:
 * message" and returns false.
 */
bool host_dump_load(const char *cmd, const char *path, size_t cpu, struct host_dump *s);

/* The largest CPU number `--cpu` takes: far past any dump's block count or any host's CPUs. */
#define HOST_CPU_ARG_MAX 65535
/*
 * `--cpu N` as every subcommand reads it (a dump's block, or the CPU to run
 * on): all digits, at most HOST_CPU_ARG_MAX.  False after printing
 * "pmuboot-host CMD: --cpu wants a CPU number, not 'ARG'".
 */
bool host_cpu_arg(const char *cmd, const char *arg, long *cpu);

/* Run this thread on CPU `cpu` only; false with "pmuboot-host CMD: cannot run on CPU N: why" printed. */
bool host_pin_cpu(const char *cmd, long cpu);

#endif
