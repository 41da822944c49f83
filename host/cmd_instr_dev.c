/*
 * host/cmd_instr_dev.c - `pmuboot-host instr-dev [--form ASM]... [--cpu N] [--reps N] [--show] [--list]`:
 * the instruction measurement (host/instr_measure.h) over the kernel builder's hand-written test forms
 * (instr/kernel_forms.h), for development and tests/host/test_instr_measure.py until the catalogue's
 * `pmuboot-host instr` routes to the same entry point.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "host/host_dump.h"
#include "host/instr_measure.h"
#include "instr/kernel_forms.h"
#include "lib/decimal.h"
#include "lib/record.h"

#define REPS_MAX 255
/* --repeat: the list measured this many times over, to time a catalogue-sized run (1,000+ forms). */
#define REPEAT_MAX 1000

static int usage(FILE *f)
{
	fprintf(f,
		"usage: pmuboot-host instr-dev [--form ASM]... [--cpu N] [--reps N] [--repeat N] [--show] [--list]\n"
		"\n"
		"Measures the kernel builder's test forms on this machine (every one without --form): latency\n"
		"per operand pair, throughput unrolled and in a loop, one `instr` record and line per form.\n"
		"  --form ASM   a form by its asm name, e.g. 'ADD r64, r64' (all of its iforms); repeatable\n"
		"  --cpu N      measure on CPU N          --reps N   samples per figure (default %u)\n"
		"  --repeat N   measure the list N times over (to time a catalogue-sized run)\n"
		"  --show       print each kernel's assembly   --list   the test forms, one a line\n",
		INSTR_REPS_DEFAULT);
	return f == stderr ? 2 : 0;
}

/* A count option's value, 1..max; false after saying what is wrong. */
static bool count_arg(const char *opt, const char *arg, unsigned max, uint64_t *v)
{
	if (dec_whole(arg, strlen(arg), max, v) && *v)
		return true;
	fprintf(stderr, "pmuboot-host instr-dev: %s wants 1..%u, not '%s'\n", opt, max, arg);
	return false;
}

int cmd_instr_dev(int argc, char **argv)
{
	uint64_t v;
	struct instr_measure_opts o = { .cpu = -1, .warmup = INSTR_WARMUP_DEFAULT, .minutes = -1 };
	const struct instr_form **forms = calloc(ikm_test_forms_count, sizeof(*forms));
	size_t n = 0, repeat = 1;
	bool named = false;

	if (!forms)
		return 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return usage(stdout);
		if (!strcmp(a, "--list")) {
			for (size_t k = 0; k < ikm_test_forms_count; k++)
				printf("%s\t%s\t%s\n", ikm_test_forms[k].asm_name, ikm_test_forms[k].iform,
				       ikm_test_forms[k].extension);
			return 0;
		}
		if (!strcmp(a, "--show")) {
			o.show_kernels = true;
		} else if (!strcmp(a, "--cpu") && more) {
			if (!host_cpu_arg("instr-dev", argv[++i], &o.cpu))
				return 2;
		} else if (!strcmp(a, "--reps") && more) {
			if (!count_arg(a, argv[++i], REPS_MAX, &v))
				return 2;
			o.reps = (unsigned)v;
		} else if (!strcmp(a, "--as") && more) {
			o.assembler = argv[++i];
		} else if (!strcmp(a, "--repeat") && more) {
			if (!count_arg(a, argv[++i], REPEAT_MAX, &v))
				return 2;
			repeat = (size_t)v;
		} else if (!strcmp(a, "--form") && more) {
			const char *want = argv[++i];
			size_t before = n;
			named = true;
			for (size_t k = 0; k < ikm_test_forms_count; k++)
				if (!strcmp(ikm_test_forms[k].asm_name, want))
					forms[n++] = &ikm_test_forms[k];
			if (n == before) {
				fprintf(stderr,
					"pmuboot-host instr-dev: no test form '%s' (argument %d; --list lists them)\n",
					want, i);
				return 2;
			}
		} else {
			fprintf(stderr, "pmuboot-host instr-dev: unknown or incomplete argument '%s' (argument %d)\n",
				a, i);
			return usage(stderr);
		}
	}
	if (!named)
		for (size_t k = 0; k < ikm_test_forms_count; k++)
			forms[n++] = &ikm_test_forms[k];
	const struct instr_form **all = calloc(n * repeat, sizeof(*all));
	if (!all)
		return 1;
	for (size_t r = 0; r < repeat; r++)
		memcpy(all + r * n, forms, n * sizeof(*forms));
	host_output_stdout();
	host_stream_begin("instr-dev");
	instr_measure_host(all, n * repeat, &o, NULL);
	rec_stream_end();
	free(all);
	free(forms);
	return rec_stream_errors() ? 1 : 0;
}
