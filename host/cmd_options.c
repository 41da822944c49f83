/* host/cmd_options.c - print the option reference generated from run/config_opts.c. */
#include <stdio.h>
#include <string.h>

#include "host/host.h"
#include "run/config.h"

static void emit(const char *line, void *ctx)
{
	(void)ctx;
	puts(line);
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pmuboot-host options [KEY | --markdown]\n"
		   "\n"
		   "Print the reference of every option of pmuboot.cfg and `pmuboot-host run`, generated from\n"
		   "run/config_opts.c: for a terminal, or one option's entry (KEY), or as the Markdown of\n"
		   "docs/options.md (--markdown).\n"
		   "\n"
		   "  --markdown   the Markdown reference (docs/options.md is this output)\n"
		   "  -h, --help   this text\n");
	return f == stdout ? 0 : 2;
}

int cmd_options(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout);
	if (argc > 2 || (argc == 2 && argv[1][0] == '-' && strcmp(argv[1], "--markdown"))) {
		fprintf(stderr, "pmuboot-host options: %s\n", argc > 2 ? "takes one KEY or --markdown at most" :
			"unknown flag");
		return usage(stderr);
	}
	if (argc == 2 && !strcmp(argv[1], "--markdown")) {
		config_write_doc(emit, NULL);
		return 0;
	}
	if (!config_write_text(emit, NULL, argc == 2 ? argv[1] : NULL)) {
		fprintf(stderr, "pmuboot-host options: no option '%s' (pmuboot-host options lists them)\n", argv[1]);
		return 2;
	}
	return 0;
}
