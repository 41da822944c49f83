/* host/instr_measure.c - measuring instruction forms on this machine; see instr_measure.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/instr_measure.h"
#include "host/host_dump.h"
#include "instr/kernel.h"
#include "instr/pack.h"
#include "bench/instr_passes.h"
#include "bench/instr_run.h"
#include "bench/harness.h"
#include "bench/stats.h"
#include "bench/ukernel.h"
#include "bench/ukernel_code.h"
#include "cpu/cpu.h"
#include "cpu/topo.h"
#include "linux/hw_linux.h"
#include "platform/guard.h"
#include "platform/hw.h"
#include "platform/timing.h"
#include "pmu/audit/ledger.h"
#include "pmu/caps/pmu_caps.h"
#include "pmu/count/count.h"
#include "lib/out.h"
#include "lib/record.h"
#include "lib/strbuf.h"

/* Assembler runs per batch at most: each drops the kernels the one before refused. */
#define ASM_ROUNDS 4
#define DROP_BUDGET_MIN 16
#define SHELL_NOT_FOUND 127
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
	struct instr_runner run;
	struct bench_contention contention;
	struct instr_events events;
} S;

static void show_kernel(void *ctx, const struct instr_pack_form *f, size_t j);

/*
 * The scratch window between two pages nothing may touch.  A kernel writes where its form's memory operands
 * point; where one points outside the window, the write lands in whatever the heap put beside it and shows
 * up later as someone else's damage (a full table ended in glibc's `malloc(): invalid next size (unsorted)`
 * after 686 s, with nothing to say which kernel: the BT family's bit offset, instr/kernel_host.c
 * bit_offset_into_memory).  Beside a page with no access it faults at once, named against its form.
 */
static uint8_t *guarded_window(void)
{
	size_t len = BENCH_WINDOW_BYTES + 2 * BENCH_PAGE;
	uint8_t *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + BENCH_PAGE, BENCH_WINDOW_BYTES, PROT_READ | PROT_WRITE) != 0) {
		munmap(p, len);
		return NULL;
	}
	return p + BENCH_PAGE;
}

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
	if (!S.window)
		S.window = guarded_window();
	if (!S.window) {
		rec_error("instr", "memory", "no scratch window: mmap: %s", strerror(errno));
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
	hs->contention = &S.contention;
	hs->tight_runs = true;
	bool rate = t && t->tsc_hz;
	hs->target_ticks = hs->emulated_time || !rate ? 0 : BENCH_TARGET_TICKS;
	hs->budget_ticks = rate ? t->tsc_hz / 1000 * BENCH_VARIANT_BUDGET_MS : 0;
	hs->clock_reuse_ticks = rate ? t->tsc_hz / 1000 * BENCH_CLOCK_REUSE_MS : 0;
	hs->window_ticks_max = hs->target_ticks ? t->tsc_hz / 1000000 * hw_platform()->run_us_max : 0;
	/* The µop events where perf_event_open counts (docs/instr.md "µops and ports"). */
	static struct pmu_caps caps;
	struct count_opts co = { .force = false };
	pmu_caps_detect(&S.ci, &caps);
	if (count_init(&S.ci, &caps, &co, why, sizeof(why)))
		hs->cb = count_backend();
	instr_events_init(&S.events, S.ci.event_set ? events_set_find(S.ci.event_set) : NULL, hs->cb, why);
	S.run = (struct instr_runner){ .hs = hs,
				       .window = S.window,
				       .watchdog = hw_guard_watchdog(why, sizeof(why)),
				       .before = o->show_kernels ? show_kernel : NULL,
				       .events = &S.events };
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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --show-kernels: a measurement's assembly before it is measured. */
static void show_kernel(void *ctx, const struct instr_pack_form *f, size_t j)
{
	const struct instr_plan *p = ctx;
	out_text("  %s %s:", f->asm_name, f->m[j].name);
	for (const char *l = p->m[j].body; *l;) {
		size_t len = strcspn(l, "\n");
		out_text("    %.*s", (int)len, l);
		l += len + (l[len] == '\n');
	}
}

enum plan_outcome { PLAN_FIGURE, PLAN_NO_FIGURE, PLAN_DEFERRED };

/* Plan p as the pack would give it, its kernels' bytes and words in res (pointers into static room). */
static struct instr_pack_form *form_of(const struct instr_plan *p, const struct instr_result *res)
{
	static struct instr_pack_form f;
	static struct instr_pack_code code[IKM_MAX];
	static char via[IKM_MAX][IKM_BODY_MAX];
	/* The assembler's words for a kernel it refused, copied out of res: instr_run_form clears res before it
	 * reads the form's whys, which pointing into res lost (68 forms of a full run had no why). */
	static char refused[IKM_MAX][sizeof(res->why)];

	for (size_t j = 0; j < p->n; j++) {
		code[j] = (struct instr_pack_code){ res[j].init, res[j].body, res[j].init_len, res[j].body_len, NULL };
		if (!res[j].assembled) {
			snprintf(refused[j], sizeof(refused[j]), "%s", res[j].why[0] ? res[j].why : "not assembled");
			code[j].why = refused[j];
		}
	}
	instr_pack_form_from_plan(p, code, &f, via);
	return &f;
}

static enum plan_outcome emit(struct instr_plan *p, const struct instr_pack_form *f, const struct instr_result *res,
			      int64_t seconds_milli)
{
	struct instr_record_ctx c = {
		.emulated = S.ci.exec == EXEC_EMULATED,
		.core_per_tsc_ppm = (int64_t)S.hs.clock.ppm,
		.watchdog = S.run.watchdog,
		.trial_bound_ms = INSTR_TRIAL_BOUND_US / 1000,
		.events = &S.events,
	};
	S.run.ctx = p;
	return instr_record_emit(f, res, &c, seconds_milli) ? PLAN_FIGURE : PLAN_NO_FIGURE;
}

/*
 * Measure plan p (its bytes in res) as the image measures a form of its pack, keeping an earlier pass's
 * better results (before, or NULL), and emit its record; with may_defer, a form to measure again
 * (instr_passes_again) is not emitted but left for the next pass (*ms: how long its measuring took).
 */
static enum plan_outcome measure_plan(struct instr_plan *p, struct instr_result *res, const struct instr_result *before,
				      bool assembled, bool may_defer, int64_t *ms)
{
	double t0 = now();

	if (!assembled)
		snprintf(p->why, sizeof(p->why), "the assembler could not be run (its error record says why)");
	struct instr_pack_form *f = form_of(p, res);
	if (assembled)
		instr_run_form(&S.run, f, res);
	else
		memset(res, 0, p->n * sizeof(*res));
	*ms = (int64_t)((now() - t0) * 1000);
	if (assembled)
		instr_passes_keep_better(res, before, p->n);
	if (may_defer && instr_passes_again(res, p->n))
		return PLAN_DEFERRED;
	return emit(p, f, res, *ms);
}

/* A form left for a later pass, with what its latest measurement gave: written as it is when time is up. */
struct left {
	const struct instr_form *form;
	struct instr_result *res; /* its plan's results, on the heap (NULL in the first pass's list) */
	int64_t ms;
	enum instr_rank need;	  /* instr_passes_need(res) */
};

/* left[0..n) in order of need, most first, in their order otherwise (into scratch, then back). */
static void order_by_need(struct left *left, size_t n, struct left *scratch)
{
	size_t k = 0;
	for (enum instr_rank need = INSTR_RANK_NONE; need <= INSTR_RANK_ALONE; need++)
		for (size_t i = 0; i < n; i++)
			if (left[i].need == need)
				scratch[k++] = left[i];
	if (k == n)
		memcpy(left, scratch, n * sizeof(*left));
}

static void tally(enum plan_outcome o, size_t *good, size_t *bad)
{
	if (o == PLAN_FIGURE)
		++*good;
	else
		++*bad;
}

/* Write form l's record from its kept results (its plan built again: plans are made the same way each time). */
static enum plan_outcome emit_kept(struct instr_plan *p, const struct left *l)
{
	static struct instr_result res[IKM_MAX];
	instr_plan_build(l->form, p);
	memcpy(res, l->res, p->n * sizeof(*res));
	for (size_t j = 0; j < p->n; j++) {
		res[j].init = res[j].body = NULL; /* the batch's object they pointed into is gone */
		res[j].init_len = res[j].body_len = 0;
	}
	return emit(p, form_of(p, res), res, l->ms);
}

/* Write the forms left[0..n) from their kept results (p: room for a plan); returns n. */
static size_t write_kept(struct instr_plan *p, const struct left *left, size_t n, size_t *good, size_t *bad)
{
	for (size_t i = 0; i < n; i++)
		tally(emit_kept(p, &left[i]), good, bad);
	return n;
}

size_t instr_measure_host(const struct instr_form *const *forms, size_t n, const struct instr_measure_opts *o,
			  size_t *failed)
{
	static struct instr_result res[INSTR_BATCH_FORMS][IKM_MAX];
	struct instr_plan **plans = calloc(INSTR_BATCH_FORMS, sizeof(*plans));
	size_t good = 0, bad = 0;
	double start = now();

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
	/*
	 * Up to INSTR_PASSES passes (bench/instr_passes.h): a form with a figure that could only be taken beside
	 * another thread on the core is not written but measured again after every other form of its pass, until
	 * the passes' time is up; then what it has is written.  Records of a later pass follow the earlier ones'.
	 */
	struct left *later = malloc((n ? n : 1) * sizeof(*later));
	struct left *list = malloc((n ? n : 1) * sizeof(*list));
	size_t count = n, nlater = 0, again = 0, kept = 0;
	if (list && later)
		for (size_t i = 0; i < n; i++)
			list[i] = (struct left){ forms[i], NULL, 0, INSTR_RANK_NONE };
	else {
		rec_error("instr", "memory", "no room for the lists of %zu forms: none measured", n);
		count = 0;
	}
	struct instr_passes ps;
	/* Under an emulator a figure is its time, not a core's: measuring a form again cannot make it one. */
	double budget = o->minutes < 0 ? (S.hs.emulated_time ? 0 : -1.0) : (double)o->minutes * 60;
	if (S.hs.emulated_time && o->minutes < 0)
		out_text("instr: one pass (an emulator's figures are its time, not a core's: none is measured again)");
	instr_passes_begin(&ps, start, budget);
	for (bool more = count != 0; more; more = count && instr_passes_next(&ps, now())) {
		double pass_start = now();
		nlater = 0;
		if (ps.pass)
			out_text("instr: pass %u: %zu forms with a figure taken beside another thread or a kernel "
				 "that kept no sample, measured again",
				 ps.pass + 1, count);
		for (size_t at = 0; at < count; at += INSTR_BATCH_FORMS) {
			size_t nb = count - at < INSTR_BATCH_FORMS ? count - at : INSTR_BATCH_FORMS;
			if (!instr_passes_measure_again(&ps, now())) {
				kept += write_kept(plans[0], list + at, count - at, &good, &bad);
				break;
			}
			memset(res, 0, sizeof(res));
			for (size_t i = 0; i < nb; i++)
				instr_plan_build(list[at + i].form, plans[i]);
			uint8_t *obj = instr_assemble(&S.as, plans, nb, res);
			for (size_t i = 0; i < nb; i++) {
				struct left *l = &list[at + i];
				S.run.ctx = plans[i];
				int64_t ms = 0;
				enum plan_outcome outcome =
					measure_plan(plans[i], res[i], l->res, obj != NULL, instr_passes_defer(&ps, now()),
						     &ms);
				switch (outcome) {
				case PLAN_FIGURE:
				case PLAN_NO_FIGURE:
					tally(outcome, &good, &bad);
					break;
				case PLAN_DEFERRED: {
					size_t bytes = plans[i]->n * sizeof(res[i][0]);
					struct instr_result *copy = malloc(bytes ? bytes : 1);
					if (!copy) { /* no room to keep it: written now, as it is */
						tally(emit(plans[i], form_of(plans[i], res[i]), res[i], ms), &good, &bad);
						break;
					}
					memcpy(copy, res[i], bytes);
					enum instr_rank need = instr_passes_need(copy, plans[i]->n);
					later[nlater++] = (struct left){ l->form, copy, ms, need };
					break;
				}
				}
			}
			free(obj);
			if (count > INSTR_BATCH_FORMS) {
				double spent = now() - pass_start;
				out_text("instr: %s%zu of %zu forms, %.0f s, about %.0f min left at this rate; %llu of %llu "
					 "samples contended",
					 ps.pass ? "again: " : "", at + nb, count, now() - start,
					 spent * (double)(count - at - nb) / (double)(at + nb) / 60,
					 (unsigned long long)S.contention.contended, (unsigned long long)S.contention.probed);
			}
		}
		for (size_t i = 0; i < count; i++)
			free(list[i].res);
		/* The forms left for the next pass become its list, most in need first. */
		struct left *t = list;
		list = later;
		later = t;
		count = nlater;
		order_by_need(list, count, later);
		if (!ps.pass)
			again = nlater; /* forms left for later passes: each later pass's are among the first's */
	}
	/* The last pass defers nothing; were a form still left, it is written with what it has, never lost. */
	kept += write_kept(plans[0], list, count, &good, &bad);
	for (size_t i = 0; i < count; i++)
		free(list[i].res);
	free(list);
	free(later);
	double secs = now() - start;
	out_text("instr: %zu forms measured, %zu without a figure, in %.1f s (%.0f forms per minute); %zu left for "
		 "later passes, %zu of them written with an earlier pass's figure when the passes' time was up",
		 good, bad, secs, secs > 0 ? (double)n * 60 / secs : 0.0, again, kept);
	/* How often another thread shared the core: the samples the harness threw away for it and took again. */
	if (!S.contention.probed)
		out_text("instr: contention probe: not run (%s)",
			 S.hs.emulated_time ? "an emulator's clock is no core's to share"
					    : "no sample carried a calibration of its own to guard");
	else
		out_text("instr: contention probe: %llu of %llu samples thrown away as contended (the probe's "
			 "reference %.3f cycles an add, learned again %u times; %u episodes of another thread coming "
			 "and going kept it)",
			 (unsigned long long)S.contention.contended, (unsigned long long)S.contention.probed,
			 (double)bench_contention_reference(&S.contention) / 1000, S.contention.relearned,
			 S.contention.episodes);
	for (size_t i = 0; i < INSTR_BATCH_FORMS; i++)
		free(plans[i]);
	free(plans);
	instr_asm_close(&S.as);
	count_restore();
	rec_set_cpu(false, 0, 0);
	if (failed)
		*failed = bad;
	return good;
}
