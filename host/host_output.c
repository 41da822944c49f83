/*
 * host/host_output.c - where a command's records and text go (host.h).
 * Apart from main.c, which dispatches to the commands: they call these,
 * and a call back into main.c would tie every command to the dispatcher.
 */
#include <stdio.h>

#include "host/host.h"
#include "lib/out.h"
#include "lib/record.h"
#include "version.h"

static void stdout_line(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	(void)kind;
	fwrite(line, 1, len, stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

void host_output_stdout(void)
{
	struct out_sink s = { .name = "stdout", .write_line = stdout_line };
	out_reset();
	out_add_sink(&s);
}

void host_stream_begin(const char *command)
{
	struct rec_stream_info info = { PMUBOOT_VERSION, PMUBOOT_BUILD_ID, "host" };
	(void)command;
	rec_stream_begin(&info, NULL, NULL);
}
