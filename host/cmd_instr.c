/*
 * host/cmd_instr.c - the instruction table of a CPU (issue 31; docs/instr.md).
 *
 *   pmuboot-host instr --list [--cpuid-dump FILE] [--cpu N] [--match REGEX] [--extension E,...]
 *   pmuboot-host instr [--cpu N] [--match REGEX] [--extension E,...] [--reps N] [--minutes M]
 *   pmuboot-host instr pack [--match REGEX] [--extension E,...] [--as PATH] -o FILE
 *
 * --list prints the catalogue's forms this CPU has (instr/select.h: its CPUID bits, the state
 * XCR0 enables), one a line: `asm<TAB>iform<TAB>extension<TAB>status`, status what will be
 * measured (the form's plan, instr/kernel.h) or `excluded: <reason>` (the catalogue's exclusion
 * rule, or state the OS leaves disabled), then a summary on stderr.  Without --list the same forms
 * are measured on this machine (host/instr_measure.h), one `instr` record each.  `pack` assembles the
 * kernels of every form not excluded, for any CPU (the image chooses by its own CPUID), into a kernel
 * pack for the image (instr/pack.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cmd_instr.h"
#include "host/host.h"
#include "host/host_dump.h"
#include "host/instr_measure.h"
#include "instr/catalogue.h"
#include "instr/kernel.h"
#include "instr/pack.h"
#include "instr/select.h"
#include "lib/decimal.h"
#include "lib/record.h"
#include "lib/regex.h"
#include "lib/strbuf.h"
#include "platform/hw.h"

/* How many names --extension takes, and the room for them. */
#define INSTR_EXT_MAX 64
#define INSTR_EXT_TEXT 1024
/* The summary's tallies: distinct extensions and exclusion reasons of one CPU's forms (the catalogue
 * has about 110 extensions and 35 reasons; a name past the last row would go uncounted). */
#define INSTR_TALLY_MAX 256
/* --reps: samples kept per figure, as `bench`'s reps= allows at most. */
#define INSTR_REPS_MAX 255
/* --minutes: a day at most (a longer wait is a typing error, not a plan). */
#define INSTR_MINUTES_MAX (24 * 60)
/* A --list status line's room: every measurement of a plan named. */
#define INSTR_STATUS_MAX 1024

static const char no_state_reason[] = "state not enabled: XCR0 lacks the AVX or AVX-512 state it uses";

static int usage(FILE *f)
{
	fprintf(f,
		"usage: pmuboot-host instr --list [--cpuid-dump FILE] [--cpu N] [--match REGEX] [--extension E,...]\n"
		"       pmuboot-host instr [--cpu N] [--match REGEX] [--extension E,...] [--reps N] [--minutes M]\n"
		"       pmuboot-host instr pack [--match REGEX] [--extension E,...] [--as PATH] -o FILE\n"
		"\n"
		"The instruction forms of the catalogue (instr/forms.tsv.gz, from Intel XED's data) that a CPU\n"
		"has.  --list: one a line, asm, iform, extension and status (what will be measured, or\n"
		"`excluded: why`), then a summary on stderr (forms, excluded, by reason and by extension).\n"
		"Without --list: measure them on this machine, one `instr` record and line each (latency\n"
		"per operand pair, throughput), with progress lines.  pack: assemble the kernels of every\n"
		"form not excluded (whatever this CPU has) into a kernel pack for the image.  docs/instr.md.\n"
		"\n"
		"  --list              list the forms; do not measure\n"
		"  --reps N            samples kept per figure (default 7; 1..255)\n"
		"  --minutes M         forms whose figure was taken beside another thread on the core, or\n"
		"                      with a kernel that kept no sample, are measured again until M\n"
		"                      minutes after the start (default: as long as the first pass took,\n"
		"                      ending by 18 minutes; under an emulator one pass; 0: one pass).  The\n"
		"                      first pass measures every form whatever M (0..1440)\n"
		"  --cpu N             run on CPU N; with --cpuid-dump, use the dump's block N (default 0)\n"
		"  --cpuid-dump FILE   answer CPUID from a dump (docs/cpuid-dumps.md); XCR0 is then the one\n"
		"                      the image would set on that CPU\n"
		"  --match REGEX       only forms whose asm name matches (POSIX ERE subset: lib/regex.h)\n"
		"  --extension E,...   only forms of these XED extensions (BASE, SSE2, AVX512EVEX, ...)\n"
		"  --as PATH           the GNU assembler to use (default: as)\n"
		"  -o FILE             pack: the file to write\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit status: 0 listed or measured, 1 an error (unreadable dump, no form measured), 2 bad\n"
		"arguments (a bad regex, an unknown extension, --cpuid-dump without --list: a dump can be\n"
		"listed, only this machine measured).\n");
	return f == stdout ? 0 : 2;
}

static void host_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out)
{
	(void)ctx;
	hw_cpuid(leaf, subleaf, out);
}

struct tally {
	size_t n;
	struct {
		const char *name;
		size_t forms, excluded;
	} row[INSTR_TALLY_MAX];
};

static void count(struct tally *t, const char *name, bool excluded)
{
	size_t i = 0;
	while (i < t->n && strcmp(t->row[i].name, name))
		i++;
	if (i == t->n) {
		if (t->n == INSTR_TALLY_MAX)
			return;
		t->row[t->n].name = name;
		t->row[t->n].forms = t->row[t->n].excluded = 0;
		t->n++;
	}
	t->row[i].forms++;
	t->row[i].excluded += excluded;
}

/* "E1,E2" into names (each checked against the catalogue); false after saying which is unknown. */
static bool read_extensions(const char *arg, const char **ext, size_t *n_ext)
{
	static char text[INSTR_EXT_TEXT];
	const char *p = arg, *item;
	size_t len, used = 0;

	while (lc_next_item(&p, ',', &item, &len)) {
		if (*n_ext == INSTR_EXT_MAX || used + len + 1 > sizeof(text)) {
			fprintf(stderr, "pmuboot-host instr: --extension: too many names\n");
			return false;
		}
		memcpy(text + used, item, len);
		text[used + len] = 0;
		if (!instr_extension_known(instr_forms, instr_forms_count, text + used)) {
			fprintf(stderr,
				"pmuboot-host instr: --extension: unknown extension '%s' (the catalogue's "
				"extensions are XED's: BASE, SSE2, AVX, AVX512EVEX, ...)\n",
				text + used);
			return false;
		}
		ext[(*n_ext)++] = text + used;
		used += len + 1;
	}
	if (!*n_ext) {
		fprintf(stderr, "pmuboot-host instr: --extension wants a list of extensions, not '%s'\n", arg);
		return false;
	}
	return true;
}

/* What --list says a form gets: its plan's measurements by name ("latency op1->op1, op2->op1;
 * throughput"), or why nothing can be built. */
static const char *plan_status(const struct instr_form *f, char *buf, size_t cap)
{
	static struct instr_plan plan;
	size_t k = 0, lat = 0;

	if (!instr_plan_build(f, &plan)) {
		snprintf(buf, cap, "no kernel: %s", plan.why);
		return buf;
	}
	k = str_appendf(buf, cap, k, "measure:");
	for (size_t j = 0; j < plan.n; j++)
		if (plan.m[j].kind == IKM_LATENCY)
			k = str_appendf(buf, cap, k, "%s %s->%s", lat++ ? "," : " latency", plan.m[j].from,
					plan.m[j].to);
	for (size_t j = 0; j < plan.n; j++)
		if (plan.m[j].kind == IKM_TP_UNROLLED || plan.m[j].kind == IKM_TP_LOOP) {
			k = str_appendf(buf, cap, k, "%sthroughput", lat ? "; " : " ");
			break;
		}
	for (size_t j = 0; j < plan.n; j++)
		if (plan.m[j].kind == IKM_TP_BROKEN) {
			k = str_appendf(buf, cap, k, " (also with its chain broken)");
			break;
		}
	if (plan.idiom != IKM_IDIOM_NONE)
		k = str_appendf(buf, cap, k, "; %s", ikm_idiom_name((enum ikm_idiom)plan.idiom));
	return buf;
}

static void summary(const struct tally *ext, const struct tally *why, size_t forms, size_t excluded, const char *source,
		    const char *xcr0_source)
{
	fprintf(stderr, "pmuboot-host instr: %zu forms for %s (%s), %zu to measure, %zu excluded (%zu.%zu%%)\n", forms,
		source, xcr0_source, forms - excluded, excluded, forms ? excluded * 100 / forms : 0,
		forms ? excluded * 1000 / forms % 10 : 0);
	for (size_t i = 0; i < why->n; i++)
		fprintf(stderr, "  excluded %6zu  %s\n", why->row[i].forms, why->row[i].name);
	for (size_t i = 0; i < ext->n; i++)
		fprintf(stderr, "  extension %-20s %6zu forms, %zu excluded\n", ext->row[i].name, ext->row[i].forms,
			ext->row[i].excluded);
}

/* The bytes of one measurement for the pack, or why it has none. */
static struct instr_pack_code pack_code(const struct instr_result *r)
{
	struct instr_pack_code k = { r->init, r->body, r->init_len, r->body_len, NULL };
	if (!r->assembled)
		k.why = r->why[0] ? r->why : "not assembled";
	else if (r->init_len > INSTR_PACK_CODE_MAX || r->body_len > INSTR_PACK_CODE_MAX || !r->body_len)
		k.why = "init or body outside the harness's limits (1024 bytes each, a body not empty)";
	if (k.why)
		k.init_len = k.body_len = 0;
	return k;
}

/* `instr pack`: forms[0..n) assembled batch by batch into the pack `out`. */
static int write_pack(const struct instr_form *const *forms, size_t n, const char *assembler, const char *out)
{
	static struct instr_result res[INSTR_BATCH_FORMS][IKM_MAX];
	static struct instr_pack_code code[IKM_MAX];
	static struct instr_pack_writer w;
	static struct instr_plan plan[INSTR_BATCH_FORMS];
	struct instr_plan *plans[INSTR_BATCH_FORMS];
	struct instr_asm a;
	size_t refused = 0;
	int rc = 1;

	for (size_t i = 0; i < INSTR_BATCH_FORMS; i++)
		plans[i] = &plan[i];
	if (!instr_asm_open(&a, assembler))
		return 1;
	instr_pack_write_begin(&w);
	for (size_t at = 0; at < n; at += INSTR_BATCH_FORMS) {
		size_t nb = n - at < INSTR_BATCH_FORMS ? n - at : INSTR_BATCH_FORMS;
		memset(res, 0, sizeof(res));
		for (size_t i = 0; i < nb; i++)
			instr_plan_build(forms[at + i], plans[i]);
		uint8_t *obj = instr_assemble(&a, plans, nb, res);
		if (!obj)
			goto out;
		for (size_t i = 0; i < nb; i++) {
			for (size_t j = 0; j < plans[i]->n; j++) {
				code[j] = pack_code(&res[i][j]);
				refused += code[j].why != NULL;
			}
			if (!instr_pack_write_form(&w, plans[i], code))
				break;
		}
		free(obj);
	}
	if (!instr_pack_write_end(&w)) {
		fprintf(stderr, "pmuboot-host instr pack: %s\n", w.why);
		goto out;
	}
	FILE *f = fopen(out, "wb");
	if (!f || fwrite(w.buf, 1, w.len, f) != w.len || fclose(f)) {
		fprintf(stderr, "pmuboot-host instr pack: cannot write %s\n", out);
		goto out;
	}
	printf("instr pack: %u forms, %u kernels (%zu not assembled), %zu bytes (%.1f MiB) in %s\n", w.forms,
	       w.measurements, refused, w.len, (double)w.len / (1024 * 1024), out);
	rc = 0;
out:
	instr_pack_write_free(&w);
	instr_asm_close(&a);
	return rc;
}

int cmd_instr(int argc, char **argv)
{
	static struct host_dump src;
	static struct instr_cpu cpu;
	static struct regex re;
	static struct tally by_ext, by_why;
	static const char *ext[INSTR_EXT_MAX];
	struct instr_filter flt = { NULL, ext, 0 };
	const char *dump = NULL, *match = NULL, *ext_arg = NULL, *out = NULL, *assembler = NULL;
	bool list = false, pack = argc > 1 && !strcmp(argv[1], "pack");
	long cpu_n = -1;
	uint64_t reps = 0, minutes = 0;
	bool minutes_given = false;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
	for (int i = pack ? 2 : 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			list = true;
		} else if (!strcmp(argv[i], "--cpuid-dump") && i + 1 < argc) {
			dump = argv[++i];
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			if (!host_cpu_arg("instr", argv[++i], &cpu_n))
				return 2;
		} else if (!strcmp(argv[i], "--match") && i + 1 < argc) {
			match = argv[++i];
		} else if (!strcmp(argv[i], "--extension") && i + 1 < argc) {
			ext_arg = argv[++i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--as") && i + 1 < argc) {
			assembler = argv[++i];
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			i++;
			if (!dec_whole(argv[i], strlen(argv[i]), INSTR_REPS_MAX, &reps) || !reps) {
				fprintf(stderr, "pmuboot-host instr: --reps wants 1..%u, not '%s'\n", INSTR_REPS_MAX,
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--minutes") && i + 1 < argc) {
			i++;
			if (!dec_whole(argv[i], strlen(argv[i]), INSTR_MINUTES_MAX, &minutes)) {
				fprintf(stderr, "pmuboot-host instr: --minutes wants 0..%u, not '%s'\n",
					INSTR_MINUTES_MAX, argv[i]);
				return 2;
			}
			minutes_given = true;
		} else {
			fprintf(stderr, "pmuboot-host instr: unexpected argument '%s'\n", argv[i]);
			return usage(stderr);
		}
	}
	if (match) {
		struct regex_error err;
		if (!regex_compile(&re, match, 0, &err)) {
			fprintf(stderr, "pmuboot-host instr: --match '%s': at position %zu: %s\n", match, err.pos + 1,
				err.what);
			return 2;
		}
		flt.match = &re;
	}
	if (ext_arg && !read_extensions(ext_arg, ext, &flt.n_ext))
		return 2;
	if (pack != (out != NULL) || (pack && (list || dump || cpu_n >= 0 || reps || minutes_given))) {
		fprintf(stderr, "pmuboot-host instr: pack wants -o FILE (and -o is for pack alone); --list, "
				"--cpuid-dump, --cpu, --reps and --minutes are not for pack\n");
		return 2;
	}
	if (pack) {
		/* Every form not excluded, whatever this CPU has: the image chooses by its own CPUID. */
		const struct instr_form **all = calloc(instr_forms_count, sizeof(*all));
		size_t n = 0;
		if (!all) {
			fprintf(stderr, "pmuboot-host instr: out of memory\n");
			return 1;
		}
		for (size_t i = 0; i < instr_forms_count; i++)
			if (!instr_forms[i].excluded && instr_form_matches(&instr_forms[i], &flt))
				all[n++] = &instr_forms[i];
		host_output_stdout(); /* the assembler's errors (error records and lines) */
		int rc = write_pack(all, n, assembler, out);
		free(all);
		return rc;
	}
	if (!list && dump) {
		fprintf(stderr,
			"pmuboot-host instr: --cpuid-dump %s: a dump's forms can be listed (--list), only this "
			"machine's measured\n",
			dump);
		return 2;
	}

	static char source[600];
	if (dump) {
		if (!host_dump_load("instr", dump, cpu_n < 0 ? 0 : (size_t)cpu_n, &src))
			return 1;
		snprintf(source, sizeof(source), "cpuid dump %s, block %zu", dump, src.cpu);
	} else {
		if (cpu_n >= 0 && !host_pin_cpu("instr", cpu_n))
			return 1;
		if (cpu_n >= 0)
			snprintf(source, sizeof(source), "this machine's CPU %ld", cpu_n);
		else
			snprintf(source, sizeof(source), "this CPU");
	}
	struct hw_vector_state vs;
	hw_vector_state(&vs);
	instr_cpu_init(&cpu, host_cpuid, NULL, vs.known, vs.xcr0);

	size_t forms = 0, excluded = 0;
	const struct instr_form **chosen = list ? NULL : calloc(instr_forms_count, sizeof(*chosen));
	static char status[INSTR_STATUS_MAX];
	if (!list && !chosen) {
		fprintf(stderr, "pmuboot-host instr: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < instr_forms_count; i++) {
		const struct instr_form *f = &instr_forms[i];
		if (!instr_form_matches(f, &flt))
			continue;
		enum instr_avail a = instr_form_avail(&cpu, f);
		if (a == INSTR_ABSENT)
			continue;
		const char *why = a == INSTR_NO_STATE ? no_state_reason : f->excluded;
		if (!list && !why)
			chosen[forms - excluded] = f;
		else if (list)
			printf("%s\t%s\t%s\t%s%s\n", f->asm_name, f->iform, f->extension, why ? "excluded: " : "",
			       why ? why : plan_status(f, status, sizeof(status)));
		forms++;
		excluded += why != NULL;
		count(&by_ext, f->extension, why != NULL);
		if (why)
			count(&by_why, why, true);
	}
	summary(&by_ext, &by_why, forms, excluded, source, cpu.xcr0_source);
	free(src.text);
	if (list)
		return 0;
	struct instr_measure_opts o = { .cpu = cpu_n,
					.reps = (unsigned)reps,
					.warmup = INSTR_WARMUP_DEFAULT,
					.assembler = assembler,
					.minutes = minutes_given ? (long)minutes : -1 };
	size_t failed = 0;
	host_output_stdout();
	host_stream_begin("instr");
	size_t good = instr_measure_host(chosen, forms - excluded, &o, &failed);
	rec_stream_end();
	free(chosen);
	return rec_stream_errors() || (!good && forms > excluded) ? 1 : 0;
}
