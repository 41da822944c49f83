/* tools/host/cmd_options.c - print the option reference generated from run/config_opts.c. */
#include <stdio.h>
#include <string.h>

#include "tools/host/host.h"
#include "run/config.h"

static void emit(const char *line, void *ctx)
{
	(void)ctx;
	puts(line);
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pmuboot-host options\n"
		   "\n"
		   "Print the reference of every option of pmuboot.cfg and `pmuboot-host run` (the table of\n"
		   "docs/options.md), generated from run/config_opts.c.\n"
		   "\n"
		   "  -h, --help   this text\n");
	return f == stdout ? 0 : 2;
}

int cmd_options(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout);
	if (argc != 1) {
		fprintf(stderr, "pmuboot-host options: takes no arguments\n");
		return usage(stderr);
	}
	config_write_doc(emit, NULL);
	return 0;
}
