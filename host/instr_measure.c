/* host/instr_measure.c - measuring instruction forms on this machine; see instr_measure.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/instr_measure.h"
#include "host/host_dump.h"
#include "instr/kernel.h"
#include "bench/harness.h"
#include "bench/ukernel.h"
#include "bench/ukernel_code.h"
#include "cpu/cpu.h"
#include "cpu/topo.h"
#include "linux/hw_linux.h"
#include "platform/guard.h"
#include "platform/hw.h"
#include "platform/timing.h"
#include "pmu/audit/ledger.h"
#include "lib/out.h"
#include "lib/record.h"
#include "lib/strbuf.h"

/* Assembler runs per batch at most: each drops the kernels the one before refused. */
#define ASM_ROUNDS 4
#define DROP_BUDGET_MIN 16
#define TRIAL_BOUND_US 1000000u
#define SHELL_NOT_FOUND 127
#define MEASURE_RETAKES 1 /* measurements again when not one sample was kept */
#define MILLI 1000
/* ELF-64 header and section header fields (System V ABI, "ELF Header" and "Sections"; elf(5)). */
#define ELF_SHOFF 0x28
#define ELF_SHENTSIZE 0x3A
#define ELF_SHNUM 0x3C
#define ELF_SHSTRNDX 0x3E
#define SH_NAME 0x00
#define SH_OFFSET 0x18
#define SH_SIZE 0x20
#define ELF_MAGIC "\177ELF"
#define ELF_HEADER_MIN 0x40

static struct {
	struct cpu_info ci;
	struct ledger ledger;
	struct bench_setup hs;
	uint8_t *window;
	struct instr_asm as;
	bool show;
	const char *watchdog;
	/* Connectors measured once per run, by body text. */
	struct conn {
		char body[128];
		int64_t cycles; /* per instance, thousandths */
		bool ok;
	} conn[16];
	size_t nconn;
} S;

static bool setup(const struct instr_measure_opts *o)
{
	static int64_t pool[256 * (3 + COUNT_MAX_EVENTS)];
	char why[160];

	/* Every kernel on one CPU: the one asked for, else the one we start on (as `pmuboot-host run`). */
	long cpu = o->cpu >= 0 ? o->cpu : hw_linux_pinned_cpu();
	if (!host_pin_cpu("instr", cpu)) {
		rec_error("instr", "cpu", "cannot run on CPU %ld: nothing measured", cpu);
		return false;
	}
	hw_linux_cpu_moved();
	cpu_identify(&S.ci);
	const struct timing_info *t = timing_init(S.ci.exec);
	struct ledger_opts lo = { .clear_logs = false };
	ledger_init_opts(&S.ledger, &S.ci, NULL, &lo);
	S.window = aligned_alloc(BENCH_PAGE, BENCH_WINDOW_BYTES);
	if (!S.window) {
		rec_error("instr", "memory", "no scratch window");
		return false;
	}
	struct bench_setup *hs = &S.hs;
	memset(hs, 0, sizeof(*hs));
	hs->reps = o->reps ? o->reps : INSTR_REPS_DEFAULT;
	if (hs->reps > 256)
		hs->reps = 256;
	hs->warmup = o->warmup;
	hs->drop_budget = 2 * hs->reps < DROP_BUDGET_MIN ? DROP_BUDGET_MIN : 2 * hs->reps;
	hs->iterations = o->iterations ? o->iterations : INSTR_ITERATIONS_DEFAULT;
	hs->ledger = &S.ledger;
	hs->emulated_time = S.ci.exec == EXEC_EMULATED;
	hs->pool = pool;
	hs->pool_cap = ARRAY_SIZE(pool);
	if (t && t->core_source && t->core_per_tsc_milli > 0) {
		hs->fallback.source = BENCH_CALIB_TIMING;
		hs->fallback.ppm = t->core_per_tsc_milli * 1000;
		hs->fallback.spread_milli = t->core_spread_milli;
	}
	bench_settle(hs, S.window);
	bool rate = t && t->tsc_hz;
	hs->target_ticks = hs->emulated_time || !rate ? 0 : BENCH_TARGET_TICKS;
	hs->budget_ticks = rate ? t->tsc_hz / 1000 * BENCH_VARIANT_BUDGET_MS : 0;
	hs->window_ticks_max = hs->target_ticks ? t->tsc_hz / 1000000 * hw_platform()->run_us_max : 0;
	S.watchdog = hw_guard_watchdog(why, sizeof(why));
	return true;
}

/* ---- assembling ------------------------------------------------------------------------------------ */

bool instr_asm_open(struct instr_asm *a, const char *assembler)
{
	a->as = assembler ? assembler : "as";
	snprintf(a->dir, sizeof(a->dir), "/tmp/pmuboot-instr-XXXXXX");
	if (!mkdtemp(a->dir)) {
		rec_error("instr", "assembler", "cannot make a temporary directory: %s", strerror(errno));
		return false;
	}
	return true;
}

void instr_asm_close(struct instr_asm *a)
{
	char path[128];
	static const char *const files[] = { "k.s", "k.o", "k.err" };
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", a->dir, files[i]);
		unlink(path);
	}
	rmdir(a->dir);
}

/* The label of measurement j of batch form i: k<i>_<j>_{i,b,e} (init, body, end). */
static void write_source(FILE *f, struct instr_plan *const *plans, size_t n, bool (*dropped)[IKM_MAX], int *line_of,
			 size_t lines_cap)
{
	int line = 1;
	fprintf(f, ".intel_syntax noprefix\n.text\n.Lbase:\n");
	line += 3;
	/* The table first: three offsets per measurement, so one section holds everything (no symbol table). */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < plans[i]->n; j++, line++)
			fprintf(f, ".long k%zu_%zu_i-.Lbase, k%zu_%zu_b-.Lbase, k%zu_%zu_e-.Lbase\n", i, j, i, j, i, j);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < plans[i]->n; j++) {
			const struct ikm *m = &plans[i]->m[j];
			size_t id = i * IKM_MAX + j;
			if (id < lines_cap)
				line_of[id] = line;
			/* Each part after its label: init, body, then the end label (a dropped kernel's parts are empty). */
			const char *parts[] = { m->init, m->body, "" };
			for (size_t t = 0; t < ARRAY_SIZE(parts); t++) {
				fprintf(f, "k%zu_%zu_%c:\n", i, j, "ibe"[t]);
				line++;
				if (dropped[i][j])
					continue;
				fputs(parts[t], f);
				for (const char *c = parts[t]; *c; c++)
					line += *c == '\n';
			}
		}
}

/* The .text section of an ELF-64 object in buf, or NULL. */
static const uint8_t *elf_text(const uint8_t *buf, size_t len, size_t *text_len)
{
#define RD(T, off) (*(const T *)(const void *)(buf + (off)))
	if (len < ELF_HEADER_MIN || memcmp(buf, ELF_MAGIC, 4))
		return NULL;
	uint64_t shoff = RD(uint64_t, ELF_SHOFF);
	unsigned shentsize = RD(uint16_t, ELF_SHENTSIZE), shnum = RD(uint16_t, ELF_SHNUM),
		 shstrndx = RD(uint16_t, ELF_SHSTRNDX);
	if (shoff + (uint64_t)shnum * shentsize > len || shstrndx >= shnum)
		return NULL;
	uint64_t strs = RD(uint64_t, shoff + (uint64_t)shstrndx * shentsize + SH_OFFSET);
	for (unsigned s = 0; s < shnum; s++) {
		uint64_t h = shoff + (uint64_t)s * shentsize;
		uint64_t name = strs + RD(uint32_t, h + SH_NAME), off = RD(uint64_t, h + SH_OFFSET),
			 size = RD(uint64_t, h + SH_SIZE);
		if (name + 6 <= len && !memcmp(buf + name, ".text", 6) && off + size <= len) {
			*text_len = size;
			return buf + off;
		}
	}
	return NULL;
#undef RD
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(n > 0 ? (size_t)n + 1 : 1);
	if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b)
		b[n > 0 ? n : 0] = 0;
	*len = n > 0 ? (size_t)n : 0;
	return b;
}

/* The first source line of the kernel after kernel id (a form without kernels has none), or past the end. */
static int next_line(struct instr_plan *const *plans, size_t n, size_t id, const int *line_of)
{
	for (size_t k = id + 1; k < n * IKM_MAX; k++)
		if (k % IKM_MAX < plans[k / IKM_MAX]->n)
			return line_of[k];
	return 1 << 30;
}

uint8_t *instr_assemble(const struct instr_asm *a, struct instr_plan *const *plans, size_t n,
		       struct instr_result (*res)[IKM_MAX])
{
	static bool dropped[INSTR_BATCH_FORMS][IKM_MAX];
	static int line_of[INSTR_BATCH_FORMS * IKM_MAX];
	char src[96], obj[96], err[96], cmd[512];
	uint8_t *o = NULL;

	memset(dropped, 0, sizeof(dropped));
	snprintf(src, sizeof(src), "%s/k.s", a->dir);
	snprintf(obj, sizeof(obj), "%s/k.o", a->dir);
	snprintf(err, sizeof(err), "%s/k.err", a->dir);
	for (unsigned round = 0; round < ASM_ROUNDS; round++) {
		FILE *f = fopen(src, "w");
		if (!f)
			return NULL;
		write_source(f, plans, n, dropped, line_of, ARRAY_SIZE(line_of));
		fclose(f);
		snprintf(cmd, sizeof(cmd), "%s --64 -msyntax=intel -mnaked-reg -o %s %s 2> %s", a->as, obj, src, err);
		int rc = system(cmd);
		size_t elen;
		char *e = (char *)read_file(err, &elen);
		bool refused = false;
		/* "FILE:LINE: Error: message": the line falls in one kernel's text. */
		for (char *l = e; l && *l;) {
			char *nl = strchr(l, '\n');
			if (nl)
				*nl = 0;
			char *p = strstr(l, ".s:");
			char *msg = p ? strstr(p, "Error: ") : NULL;
			if (msg) {
				int line = atoi(p + 3);
				for (size_t id = 0; id < n * IKM_MAX; id++) {
					size_t i = id / IKM_MAX, j = id % IKM_MAX;
					if (j >= plans[i]->n || dropped[i][j])
						continue;
					int next = next_line(plans, n, id, line_of);
					if (line > line_of[id] && line < next) {
						dropped[i][j] = refused = true;
						snprintf(res[i][j].why, sizeof(res[i][j].why), "not assembled: %.160s",
							 msg + 7);
					}
				}
			}
			l = nl ? nl + 1 : NULL;
		}
		free(e);
		if (refused)
			continue;
		if (rc != 0) {
			/* 127: the shell found no such program (POSIX sh, "Command Search and Execution"). */
			if (WIFEXITED(rc) && WEXITSTATUS(rc) == SHELL_NOT_FOUND)
				rec_error("instr", "assembler", "'%s' not found (GNU as: Debian package binutils)",
					  a->as);
			else
				rec_error("instr", "assembler", "'%s' failed (status %d) without naming a line", a->as,
					  rc);
			return NULL;
		}
		size_t olen, tlen = 0;
		o = read_file(obj, &olen);
		const uint8_t *text = o ? elf_text(o, olen, &tlen) : NULL;
		if (!text) {
			rec_error("instr", "assembler", "%s: no .text section in the assembler's output", obj);
			free(o);
			return NULL;
		}
		const uint32_t *table = (const uint32_t *)(const void *)text;
		size_t t = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < plans[i]->n; j++, t += 3) {
				struct instr_result *r = &res[i][j];
				if (dropped[i][j] || (t + 3) * 4 > tlen || table[t + 2] > tlen)
					continue;
				r->assembled = true;
				r->init = text + table[t];
				r->init_len = table[t + 1] - table[t];
				r->body = text + table[t + 1];
				r->body_len = table[t + 2] - table[t + 1];
			}
		return o;
	}
	rec_error("instr", "assembler", "still refusing kernels after %u runs", ASM_ROUNDS);
	return NULL;
}

/* ---- measuring --------------------------------------------------------------------------------------- */

static void fill(uint64_t v)
{
	uint64_t *w = (uint64_t *)(void *)S.window;
	for (size_t i = 0; i < BENCH_WINDOW_BYTES / sizeof(*w); i++)
		w[i] = v;
}

struct trial {
	struct bench_call call;
};

static void trial_fn(void *p) { bench_measure(&((struct trial *)p)->call); }

/* The runs the measurement will make (1 trip, N, 2N), under the guard, in a window: false on a fault. */
static bool try_kernel(const struct bench_def *d, uint32_t iterations, struct hw_guard_result *g)
{
	const uint64_t trips[] = { 1, iterations / d->unroll, 2ull * iterations / d->unroll };
	struct trial t;

	memset(&t, 0, sizeof(t));
	t.call.kernel = d->fn;
	t.call.p = S.window + d->p_off;
	t.call.q = S.window + d->q_off;
	for (size_t i = 0; i < ARRAY_SIZE(trips); i++) {
		struct hw_window w;
		memset(&w, 0, sizeof(w));
		bool windowed = hw_window_enter(&w);
		t.call.trips = trips[i];
		hw_guarded_call(trial_fn, &t, S.watchdog ? TRIAL_BOUND_US : 0, g);
		if (windowed)
			hw_window_leave(&w);
		if (g->outcome != HW_GUARD_OK)
			return false;
	}
	return true;
}

/* Measure one assembled kernel: cycles per body copy (thousandths) into *fig. */
static bool measure(const struct ikm *m, struct instr_result *r, struct bench_figure *fig)
{
	static struct ukernel k;
	static struct bench_figures figs;
	char why[128];

	if (r->init_len > UK_INIT_MAX || r->body_len > UK_BODY_MAX || !r->body_len) {
		snprintf(r->why, sizeof(r->why), "init %zu or body %zu bytes: outside the harness's limits (%u, %u)",
			 r->init_len, r->body_len, UK_INIT_MAX, UK_BODY_MAX);
		return false;
	}
	memset(&k, 0, sizeof(k));
	snprintf(k.name, sizeof(k.name), "%.31s", m->name);
	unsigned unroll = m->unroll ? m->unroll : UK_UNROLL_DEFAULT;
	if (unroll > UK_UNROLL_MAX)
		unroll = UK_UNROLL_MAX;
	while (unroll > 1 && unroll * r->body_len > UK_UNROLLED_MAX)
		unroll--;
	k.unroll = (uint16_t)unroll;
	k.init_len = (uint16_t)r->init_len;
	k.body_len = (uint16_t)r->body_len;
	memcpy(k.init, r->init, r->init_len);
	memcpy(k.body, r->body, r->body_len);
	size_t len = ukernel_code_size(&k, unroll);
	uint8_t *code = hw_xmem_alloc(len, why, sizeof(why));
	if (!code) {
		snprintf(r->why, sizeof(r->why), "no executable memory: %s", why);
		return false;
	}
	ukernel_code_write(&k, unroll, code, len, NULL, NULL);
	bool ok = hw_xmem_seal(code, len, why, sizeof(why));
	if (!ok)
		snprintf(r->why, sizeof(r->why), "code not executable: %s", why);
	struct bench_def d = {
		.kernel = "instr",
		.variant = k.name,
		.fn = (bench_kernel_fn)(void *)code,
		.fn_end = code + len,
		.p_off = 0,
		.q_off = BENCH_PAGE,
		.expect = BENCH_SWEEP,
		.body = m->body,
		.unroll = unroll,
	};
	uint32_t saved = S.hs.iterations, it = (saved + unroll - 1) / unroll * unroll;
	S.hs.iterations = it;
	fill(m->fill);
	if (ok && !try_kernel(&d, it, &r->guard)) {
		r->faulted = true;
		snprintf(r->why, sizeof(r->why), "%s in its trial run (signal %s)",
			 r->guard.outcome == HW_GUARD_TIMEOUT ? "timed out" : "faulted",
			 r->guard.what ? r->guard.what : "?");
		ok = false;
	}
	/*
	 * Once more when no sample could be kept: wide vector code moves the core's clock (AVX-512 licences,
	 * the upper lanes powering up), which the per-sample calibration sees as a moving clock and rejects;
	 * the first measurement is then the warm-up the second needs.
	 */
	for (unsigned attempt = 0; ok && attempt <= MEASURE_RETAKES; attempt++) {
		fill(m->fill);
		memset(&figs, 0, sizeof(figs));
		bool kept = bench_measure_variant(&S.hs, &d, S.window, NULL, &figs) && figs.cycles.n > 0;
		*fig = figs.cycles;
		if (kept) {
			r->why[0] = 0;
			break;
		}
		size_t k = str_appendf(r->why, sizeof(r->why), 0, "not measured: %s",
				       figs.problem[0] ? figs.problem : "no samples");
		const char *sep = " (rejected: ";
		for (unsigned fate = STATS_REJECT_NEGATIVE; fate < STATS_REJECT_DISTURBED; fate++)
			if (figs.rejected[fate]) {
				k = str_appendf(r->why, sizeof(r->why), k, "%s%s %u", sep,
						stats_fate_name((enum stats_fate)fate), figs.rejected[fate]);
				sep = ", ";
			}
		if (sep[0] == ',')
			str_appendf(r->why, sizeof(r->why), k, ")");
		ok = attempt < MEASURE_RETAKES;
	}
	S.hs.iterations = saved;
	hw_xmem_free(code, len);
	return ok;
}

static int64_t per_instance(int64_t v, const struct ikm *m) { return m->per_iter ? v / m->per_iter : v; }

/* A connector's cycles per instance (measured once per run): false when it could not be measured. */
static bool connector(const struct ikm *m, struct instr_result *r, int64_t *cycles)
{
	struct bench_figure fig;
	for (size_t i = 0; i < S.nconn; i++)
		if (!strcmp(S.conn[i].body, m->body)) {
			*cycles = S.conn[i].cycles;
			return S.conn[i].ok;
		}
	bool ok = r->assembled && measure(m, r, &fig);
	*cycles = ok ? per_instance(fig.median, m) : 0;
	if (S.nconn < ARRAY_SIZE(S.conn) && strlen(m->body) < sizeof(S.conn[0].body)) {
		snprintf(S.conn[S.nconn].body, sizeof(S.conn[0].body), "%s", m->body);
		S.conn[S.nconn].cycles = *cycles;
		S.conn[S.nconn++].ok = ok;
	}
	return ok;
}

/* ---- the record ------------------------------------------------------------------------------------- */

static const char *vector_name(unsigned v)
{
	static const char names[][5] = { "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "CSO",
					 "#TS", "#NP", "#SS", "#GP", "#PF", "?",   "#MF", "#AC", "#MC", "#XM" };
	return v < ARRAY_SIZE(names) ? names[v] : "?";
}

static void figure_fields(struct rec *rec, const struct instr_result *r)
{
	rec_milli(rec, "cycles", r->per_instance);
	rec_obj(rec, "spread");
	rec_milli(rec, "min", r->lo);
	rec_milli(rec, "max", r->hi);
	rec_obj_end(rec);
	rec_str(rec, "unstable", r->unstable);
}

/* The figures of one form, its record and its line. */
static bool emit(const struct instr_plan *p, const struct instr_result *res, double seconds)
{
	static struct rec rec;
	const struct instr_form *f = p->f;
	const struct instr_result *fault = NULL, *tp_u = NULL, *tp_l = NULL, *id_l = NULL, *id_t = NULL;
	char line[512], why[IKP_TEXT_MAX];
	size_t k = 0, figures = 0;
	const char *unstable = NULL;

	why[0] = 0;
	for (size_t j = 0; j < p->n; j++)
		if (res[j].faulted && !fault)
			fault = &res[j];
	rec_start(&rec, "instr");
	rec_str(&rec, "asm", f->asm_name);
	rec_str(&rec, "iform", f->iform);
	rec_str(&rec, "extension", f->extension);
	rec_str(&rec, "isa_set", f->isa_set);
	k = str_appendf(line, sizeof(line), k, "instr %-28s", f->asm_name);
	rec_arr(&rec, "latency");
	for (size_t j = 0; j < p->n; j++) {
		const struct ikm *m = &p->m[j];
		const struct instr_result *r = &res[j];
		if (m->kind == IKM_TP_UNROLLED && r->measured)
			tp_u = r;
		if (m->kind == IKM_TP_LOOP && r->measured)
			tp_l = r;
		if (m->kind == IKM_IDIOM_LATENCY)
			id_l = r;
		if (m->kind == IKM_IDIOM_TP)
			id_t = r;
		if (m->kind != IKM_LATENCY)
			continue;
		rec_obj(&rec, NULL);
		rec_str(&rec, "from", m->from);
		rec_str(&rec, "to", m->to);
		if (r->measured) {
			figure_fields(&rec, r);
			figures++;
			unstable = unstable ? unstable : r->unstable;
			k = str_appendf(line, sizeof(line), k, " %s->%s %s%.2f", m->from, m->to,
					m->bound == IKM_UPPER ? "<=" : "", (double)r->per_instance / MILLI);
		} else {
			rec_null(&rec, "cycles");
			rec_str(&rec, "why", r->why[0] ? r->why : "not measured");
		}
		rec_str(&rec, "bound", m->bound == IKM_UPPER ? "upper" : "exact");
		rec_str(&rec, "via", m->via);
		rec_str(&rec, "note", m->note);
		rec_obj_end(&rec);
	}
	rec_arr_end(&rec);
	rec_str(&rec, "latency_skipped", p->skipped[0] ? p->skipped : NULL);
	/* The connectors subtracted above, with their own figures (measured once per run). */
	rec_arr(&rec, "connectors");
	for (size_t j = 0; j < p->n; j++) {
		if (p->m[j].kind != IKM_CONNECTOR)
			continue;
		rec_obj(&rec, NULL);
		rec_str(&rec, "name", p->m[j].name);
		rec_strn(&rec, "asm", p->m[j].body, strcspn(p->m[j].body, "\n"));
		if (res[j].measured)
			rec_milli(&rec, "cycles", res[j].per_instance);
		else
			rec_null(&rec, "cycles");
		rec_obj_end(&rec);
	}
	rec_arr_end(&rec);
	const struct instr_result *best = tp_u && (!tp_l || tp_u->per_instance <= tp_l->per_instance) ? tp_u : tp_l;
	if (best) {
		rec_obj(&rec, "throughput");
		figure_fields(&rec, best);
		rec_str(&rec, "how", best == tp_u ? "unrolled" : "loop");
		if (tp_u)
			rec_milli(&rec, "unrolled", tp_u->per_instance);
		else
			rec_null(&rec, "unrolled");
		if (tp_l)
			rec_milli(&rec, "loop", tp_l->per_instance);
		else
			rec_null(&rec, "loop");
		rec_str(&rec, "chain", p->chain[0] ? p->chain : NULL);
		rec_obj_end(&rec);
		figures++;
		unstable = unstable ? unstable : best->unstable;
		k = str_appendf(line, sizeof(line), k, "  tp %.2f (%s)", (double)best->per_instance / MILLI,
				best == tp_u ? "unrolled" : "loop");
		rec_null(&rec, "throughput_why");
	} else {
		rec_null(&rec, "throughput");
		const char *tw = "no throughput kernel could be built";
		for (size_t j = 0; j < p->n; j++)
			if (p->m[j].kind == IKM_TP_UNROLLED || p->m[j].kind == IKM_TP_LOOP)
				tw = res[j].why[0] ? res[j].why : "not measured";
		rec_str(&rec, "throughput_why", tw);
	}
	const char *idiom = ikm_idiom_name((enum ikm_idiom)p->idiom);
	if (idiom) {
		rec_obj(&rec, "idiom");
		rec_str(&rec, "kind", idiom);
		if (id_l && id_l->measured)
			rec_milli(&rec, "latency", id_l->per_instance);
		else
			rec_null(&rec, "latency");
		if (id_t && id_t->measured)
			rec_milli(&rec, "throughput", id_t->per_instance);
		else
			rec_null(&rec, "throughput");
		rec_obj_end(&rec);
		if (id_l && id_l->measured)
			k = str_appendf(line, sizeof(line), k, "  [%s: same register %.2f]", idiom,
					(double)id_l->per_instance / MILLI);
		else
			k = str_appendf(line, sizeof(line), k, "  [%s]", idiom);
	} else {
		rec_null(&rec, "idiom");
	}
	rec_str(&rec, "values", p->values[0] ? p->values : NULL);
	rec_null(&rec, "uops");
	rec_null(&rec, "ports");
	rec_str(&rec, "uops_why",
		"not counted: the instr measurement counts no events yet (uops retired and the "
		"per-port or per-pipe events where the core has them are to come); cycles are TSC ticks x the "
		"harness's calibration");
	rec_str(&rec, "cycles_source", S.hs.emulated_time ? "tsc" : "tsc_calibrated");
	rec_milli(&rec, "core_per_tsc", S.hs.clock.ppm / MILLI);
	if (fault) {
		bool timeout = fault->guard.outcome == HW_GUARD_TIMEOUT;
		const char *name = timeout ? "timeout" : vector_name(fault->guard.vector);
		rec_obj(&rec, "fault");
		if (timeout)
			rec_null(&rec, "vector");
		else
			rec_u64(&rec, "vector", fault->guard.vector);
		rec_str(&rec, "name", name);
		rec_str(&rec, "signal", timeout ? NULL : fault->guard.what);
		rec_hex(&rec, "rip", fault->guard.rip);
		rec_obj_end(&rec);
		if (timeout)
			snprintf(why, sizeof(why),
				 "still running after %u ms in its trial run, stopped (%s): not measured",
				 TRIAL_BOUND_US / MILLI, S.watchdog);
		else
			snprintf(why, sizeof(why), "faulted: %s (%s): not measured", name,
				 fault->guard.what ? fault->guard.what : "?");
		k = str_appendf(line, sizeof(line), k, "  %s %s", timeout ? "TIMEOUT" : "FAULT", name);
	} else {
		rec_null(&rec, "fault");
		if (p->why[0])
			snprintf(why, sizeof(why), "%s", p->why);
		else if (!figures)
			for (size_t j = 0; j < p->n && !why[0]; j++)
				if (res[j].why[0])
					snprintf(why, sizeof(why), "%s", res[j].why);
	}
	rec_str(&rec, "why", why[0] ? why : NULL);
	rec_str(&rec, "unstable", unstable);
	rec_bool(&rec, "emulated", S.ci.exec == EXEC_EMULATED);
	rec_milli(&rec, "seconds", (int64_t)(seconds * MILLI));
	rec_emit(&rec);
	if (why[0] && !fault)
		k = str_appendf(line, sizeof(line), k, "  not measured: %s", why);
	if (unstable)
		k = str_appendf(line, sizeof(line), k, "  (unstable: %s)", unstable);
	out_text("%s", line);
	return figures > 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Measure every measurement of plan p (connectors first: latencies subtract them). */
static void measure_plan(const struct instr_plan *p, struct instr_result *res)
{
	int64_t conn[IKM_MAX] = { 0 };
	bool conn_ok[IKM_MAX] = { false };

	for (size_t j = 0; j < p->n; j++)
		if (p->m[j].kind == IKM_CONNECTOR) {
			conn_ok[j] = res[j].measured = connector(&p->m[j], &res[j], &conn[j]);
			res[j].per_instance = conn[j];
		}
	for (size_t j = 0; j < p->n; j++) {
		const struct ikm *m = &p->m[j];
		struct instr_result *r = &res[j];
		struct bench_figure fig;
		if (m->kind == IKM_CONNECTOR || !r->assembled)
			continue;
		if (S.show) {
			out_text("  %s %s:", p->f->asm_name, m->name);
			for (const char *l = m->body; *l;) {
				size_t len = strcspn(l, "\n");
				out_text("    %.*s", (int)len, l);
				l += len + (l[len] == '\n');
			}
		}
		if (!measure(m, r, &fig)) {
			if (r->faulted)
				return; /* the form faults: its other kernels would too */
			continue;
		}
		int64_t sub = 0;
		bool sub_ok = true;
		for (size_t s = 0; s < IKM_SUB_MAX; s++)
			if (m->sub[s] != IKM_NO_SUB) {
				sub += conn[(size_t)m->sub[s]];
				sub_ok = sub_ok && conn_ok[(size_t)m->sub[s]];
			}
		if (!sub_ok) {
			snprintf(r->why, sizeof(r->why), "its connector could not be measured");
			continue;
		}
		r->measured = true;
		r->per_instance = per_instance(fig.median, m) - sub;
		r->lo = per_instance(fig.min, m) - sub;
		r->hi = per_instance(fig.max, m) - sub;
		r->unstable = fig.unstable == STATS_STABLE ? NULL : stats_unstable_name(fig.unstable);
	}
}

size_t instr_measure_host(const struct instr_form *const *forms, size_t n, const struct instr_measure_opts *o,
			  size_t *failed)
{
	static struct instr_result res[INSTR_BATCH_FORMS][IKM_MAX];
	struct instr_plan **plans = calloc(INSTR_BATCH_FORMS, sizeof(*plans));
	size_t good = 0, bad = 0;
	double start = now();

	S.show = o->show_kernels;
	for (size_t i = 0; plans && i < INSTR_BATCH_FORMS; i++)
		if (!(plans[i] = malloc(sizeof(**plans))))
			plans = NULL;
	if (!plans || !setup(o) || !instr_asm_open(&S.as, o->assembler)) {
		if (failed)
			*failed = n;
		return 0;
	}
	static struct topo_cpu here;
	static struct rec cpu_rec;
	topo_probe(&here);
	/* The processor the table belongs to, as every run names it: pmucap and the collector file the
	 * table under it (the SKU page compares tables of one processor). */
	cpu_report(&S.ci, &cpu_rec);
	rec_set_cpu(true, (uint32_t)hw_linux_pinned_cpu(), here.cpuid_apic_id);
	out_text("instr: %zu forms on CPU %d; cycles from the TSC x %.3f (the harness's add-chain calibration: no "
		 "counters here)",
		 n, hw_linux_pinned_cpu(), (double)S.hs.clock.ppm / 1e6);
	for (size_t at = 0; at < n; at += INSTR_BATCH_FORMS) {
		size_t nb = n - at < INSTR_BATCH_FORMS ? n - at : INSTR_BATCH_FORMS;
		memset(res, 0, sizeof(res));
		for (size_t i = 0; i < nb; i++)
			instr_plan_build(forms[at + i], plans[i]);
		uint8_t *obj = instr_assemble(&S.as, plans, nb, res);
		for (size_t i = 0; i < nb; i++) {
			double t0 = now();
			if (obj)
				measure_plan(plans[i], res[i]);
			else
				snprintf(plans[i]->why, sizeof(plans[i]->why),
					 "the assembler could not be run (its error "
					 "record says why)");
			if (emit(plans[i], res[i], now() - t0))
				good++;
			else
				bad++;
		}
		free(obj);
		if (n > INSTR_BATCH_FORMS) {
			double spent = now() - start;
			out_text("instr: %zu of %zu forms, %.0f s, about %.0f min left at this rate", at + nb, n, spent,
				 spent * (double)(n - at - nb) / (double)(at + nb) / 60);
		}
	}
	double secs = now() - start;
	out_text("instr: %zu forms measured, %zu without a figure, in %.1f s (%.0f forms per minute)", good, bad, secs,
		 secs > 0 ? (double)n * 60 / secs : 0.0);
	for (size_t i = 0; i < INSTR_BATCH_FORMS; i++)
		free(plans[i]);
	free(plans);
	instr_asm_close(&S.as);
	rec_set_cpu(false, 0, 0);
	if (failed)
		*failed = bad;
	return good;
}
