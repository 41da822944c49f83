/*
 * host/cmd_kernel.c - user kernels: build a kernel file from its text, show one.
 *
 *   pmuboot-host kernel build FILE [-o OUT]   assemble FILE (docs/kernels.md) into OUT
 *                                             (default: FILE with its extension replaced by .pmuk)
 *   pmuboot-host kernel show FILE             a kernel file's fields and a disassembly
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "host/host_dump.h"
#include "host/kernel_tools.h"

#define PATH_MAX_CHARS 4096
#define DISASM_MAX (64u * 1024)

static int usage_to(FILE *f)
{
	fprintf(f, "usage: pmuboot-host kernel build FILE [-o OUT]\n"
		   "       pmuboot-host kernel show FILE\n"
		   "\n"
		   "Your own kernels (docs/kernels.md): build assembles a kernel text file (NASM syntax,\n"
		   "with ; name:, ; control:, ; unroll:, init: and body:) into a kernel file (default: FILE\n"
		   "with .pmuk); show prints a kernel file's fields and a disassembly of its body.\n"
		   "\n"
		   "Exit status: 0, 1 a kernel that does not build or a damaged kernel file, 2 bad arguments.\n");
	return f == stdout ? 0 : 2;
}

static int usage(void) { return usage_to(stderr); }

/* FILE.s -> FILE.pmuk beside it; false when that path does not fit. */
static bool default_out(const char *in, char *out, size_t cap)
{
	static const char ext[] = ".pmuk";
	const char *slash = strrchr(in, '/'), *dot = strrchr(in, '.');
	size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - in) : strlen(in);

	if (stem + sizeof(ext) > cap)
		return false;
	memcpy(out, in, stem);
	memcpy(out + stem, ext, sizeof(ext));
	return true;
}

static int build(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	char out_buf[PATH_MAX_CHARS];
	static struct ukernel k;
	static uint8_t file[UK_FILE_MAX];
	char why[192];

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (argv[i][0] == '-' || in)
			return usage();
		else
			in = argv[i];
	}
	if (!in)
		return usage();
	if (!out) {
		if (!default_out(in, out_buf, sizeof(out_buf))) {
			fprintf(stderr, "pmuboot-host kernel: %s: the path is too long for the kernel file beside it; "
					"name one with -o\n", in);
			return 2;
		}
		out = out_buf;
	}
	if (!kt_build(in, &k))
		return 1;
	size_t n = ukernel_encode(&k, file, sizeof(file), why, sizeof(why));
	if (!n) {
		fprintf(stderr, "pmuboot-host kernel: %s: %s\n", in, why);
		return 1;
	}
	FILE *f = fopen(out, "wb");
	if (!f || fwrite(file, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "pmuboot-host kernel: %s: %s\n", out, strerror(errno));
		return 1;
	}
	printf("%s: kernel %s, init %u bytes, body %u bytes, unroll %u%s%s, %zu bytes\n", out, k.name, k.init_len,
	       k.body_len, ukernel_unroll(&k), k.control[0] ? ", control " : "", k.control, n);
	return 0;
}

static void show_part(const char *title, const uint8_t *bytes, size_t n)
{
	static char text[DISASM_MAX];
	printf("%s (%zu bytes):\n", title, n);
	if (!n)
		return;
	if (!kt_disasm(bytes, n, text, sizeof(text))) {
		char hex[2 * UK_BODY_MAX + 1];
		ukernel_hex(bytes, n, hex, sizeof(hex));
		printf("  %s\n  (%s)\n", hex, text);
		return;
	}
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n"))
		printf("  %s\n", l);
}

static int show(int argc, char **argv)
{
	static struct ukernel k;
	char why[192], hex[2 * UK_BODY_MAX + 1];
	size_t len;

	if (argc != 1)
		return usage();
	char *data = host_read_file(argv[0], &len);
	if (!data) {
		fprintf(stderr, "pmuboot-host kernel: %s: %s\n", argv[0], strerror(errno));
		return 1;
	}
	bool ok = ukernel_parse((const uint8_t *)data, len, &k, why, sizeof(why));
	free(data);
	if (!ok) {
		fprintf(stderr, "pmuboot-host kernel: %s: %s\n", argv[0], why);
		return 1;
	}
	printf("name: %s\ncontrol: %s\nunroll: %u%s\n", k.name, k.control[0] ? k.control : "(none)", ukernel_unroll(&k),
	       k.unroll ? "" : " (default)");
	ukernel_hex(k.body, k.body_len, hex, sizeof(hex));
	printf("body hex: %s\n", hex);
	show_part("init", k.init, k.init_len);
	show_part("body, one copy", k.body, k.body_len);
	return 0;
}

int cmd_kernel(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage_to(stdout);
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "build"))
		return build(argc - 2, argv + 2);
	if (!strcmp(argv[1], "show"))
		return show(argc - 2, argv + 2);
	return usage();
}
