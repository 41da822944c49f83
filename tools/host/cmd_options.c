/* tools/host/cmd_options.c - print the option reference generated from run/config.c. */
#include <stdio.h>

#include "tools/host/host.h"
#include "run/config.h"

static void emit(const char *line, void *ctx)
{
	(void)ctx;
	puts(line);
}

int cmd_options(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "pmuboot-host options: takes no arguments\n");
		return 2;
	}
	config_write_doc(emit, NULL);
	return 0;
}
