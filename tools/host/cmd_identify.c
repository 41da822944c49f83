/* tools/host/cmd_identify.c - identify this CPU, or the CPU of a CPUID dump. */
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "lib/record.h"
#include "pmu/cpu.h"

int cmd_identify(int argc, char **argv)
{
	struct cpu_info ci;

	if (argc != 1) {
		fprintf(stderr, "pmuboot-host identify: unexpected argument '%s'\n", argv[1]);
		return 2;
	}
	host_output_stdout();
	host_stream_begin("identify");
	cpu_identify(&ci);
	cpu_report(&ci);
	rec_stream_end();
	return 0;
}
