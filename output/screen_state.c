/* output/screen_state.c - see screen_state.h.  One handler per record type the screen shows. */
#include "output/screen_state.h"
#include "lib/record.h"
#include "lib/strbuf.h"
#include "platform/activity.h"

struct screen_state *ssp;

/*
 * A field of record o as text ("" when absent or null), in the caller's
 * char tmp[6][SS_LINE]: each use in a function takes the next of the six
 * buffers, so up to six can be passed to one snprintf.
 */
#define T(path) rec_get_str(o, path, tmp[__COUNTER__ % 6], sizeof(tmp[0]))

/* True when the comma-separated list already holds word. */
static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && !strncmp(p, word, n))
			return true;
		p = end ? end + (end[1] == ' ' ? 2 : 1) : p + len;	/* ", " between items */
	}
	return false;
}

/* Appends ", word" (or "word") to a fixed buffer, marking a cut with "...". */
static void list_add(char *list, size_t cap, const char *word)
{
	size_t k = strlen(list);
	if (k + 4 >= cap)
		return;
	if (k + strlen(word) + 6 >= cap)
		str_appendf(list, cap, k, "%s...", k ? ", " : "");	/* cut to the room left */
	else
		str_appendf(list, cap, k, "%s%s", k ? ", " : "", word);
}

static void on_begin(const struct rec *o)
{
	char tmp[6][SS_LINE];
	snprintf(ssp->title, sizeof(ssp->title), "pmuboot %s (build %s)", T("version"), T("build"));
	const char *file = T("results.file");
	if (file[0])
		snprintf(ssp->saved, sizeof(ssp->saved), "%s on the boot medium", file);
	else
		snprintf(ssp->saved, sizeof(ssp->saved), "not saved: %s", T("results.why"));
}

static void on_platform(const struct rec *o)
{
	char tmp[6][SS_LINE];
	const char *cpus = T("cpus");
	snprintf(ssp->machine, sizeof(ssp->machine), "%s %s, %s MiB, %s CPU%s%s", T("smbios.system_manufacturer"),
		 T("smbios.system_product"), T("memory_mib"), cpus[0] ? cpus : "?", strcmp(cpus, "1") ? "s" : "",
		 rec_is_true(o, "secure_boot") ? ", Secure Boot on" : "");
}

/*
 * What a doubted identification says on the screen: the feature that contradicts the model number (the cpu
 * record's uarch_doubt_feature), or, a doubt without one, where to read it; "" for none.
 */
static void doubt_words(const char *doubt, const char *feature, char *buf, size_t cap)
{
	buf[0] = 0;
	if (feature[0])
		snprintf(buf, cap, " (doubted: CPUID has %s)", feature);
	else if (doubt[0])
		snprintf(buf, cap, " (doubted: see the cpu record)");
}

/* The CPU block shows the first processor identified (the boot one); a pass elsewhere has its own line in Passes. */
static void on_cpu(const struct rec *o)
{
	char tmp[6][SS_LINE], doubt[SS_LINE];
	if (ssp->cpu[0])
		return;
	snprintf(ssp->cpu, sizeof(ssp->cpu), "%s family %s model %s stepping %s, %s", T("vendor_string"), T("family"),
		 T("model"), T("stepping"), T("brand"));
	const char *mc = T("microcode");
	bool hv = rec_is_true(o, "hypervisor");
	doubt_words(T("uarch_doubt"), T("uarch_doubt_feature"), doubt, sizeof(doubt));
	snprintf(ssp->cpu2, sizeof(ssp->cpu2), "%s%s, microcode %s%s%s", T("uarch"), doubt, mc[0] ? mc : "unknown",
		 hv ? ", under " : "", hv ? T("hypervisor_name") : "");
}

/* "48K", "2M", "37.5M": short sizes for the one screen line. */
static void short_size(char *buf, size_t cap, uint64_t b)
{
	if (b >= 1024 * 1024 && b % (1024 * 1024) == 0)
		snprintf(buf, cap, "%lluM", (unsigned long long)(b >> 20));
	else if (b >= 1024 * 1024)
		snprintf(buf, cap, "%llu.%lluM", (unsigned long long)(b >> 20),
			 (unsigned long long)((b & 0xfffff) * 10 >> 20));
	else
		snprintf(buf, cap, "%lluK", (unsigned long long)(b >> 10));
}

/* One line for the cache record (the first: the boot processor's, or the first pass's). */
static void on_cache(const struct rec *o)
{
	char tmp[6][SS_LINE], sz[24];
	int levels = rec_find(o, REC_ROOT, "levels"), lv;
	size_t k = 0;
	if (ssp->cache[0])
		return;
	if (!rec_count(o, levels)) {
		snprintf(ssp->cache, sizeof(ssp->cache), "not known: %s", T("why"));
		return;
	}
	for (size_t i = 0; (lv = rec_child(o, levels, i)) >= 0 && k < sizeof(ssp->cache); i++) {
		char lt[3][SS_LINE];
		const char *type = rec_text(o, rec_find(o, lv, "type"), lt[0], sizeof(lt[0]));
		uint64_t size = 0;
		if (!rec_u64_of(o, rec_find(o, lv, "size"), &size))
			continue;
		short_size(sz, sizeof(sz), size);
		k = str_appendf(ssp->cache, sizeof(ssp->cache), k, "%sL%s%s %s %s-way", k ? ", " : "",
				rec_text(o, rec_find(o, lv, "level"), lt[1], sizeof(lt[1])),
				!strcmp(type, "data") ? "d" : !strcmp(type, "instruction") ? "i" : "", sz,
				rec_text(o, rec_find(o, lv, "ways"), lt[2], sizeof(lt[2])));
	}
}

static void on_timing(const struct rec *o)
{
	uint64_t hz = 0;
	if (rec_has(o, "cpu"))
		return;	/* a pass's own calibration: the TSC is the run's */
	if (!rec_get_u64(o, "tsc_hz", &hz) || !hz)
		return;
	size_t k = strlen(ssp->cpu2);
	snprintf(ssp->cpu2 + k, sizeof(ssp->cpu2) - k, ", TSC %llu MHz", (unsigned long long)(hz / 1000000));
}

static void on_pmu(const struct rec *o)
{
	char tmp[6][SS_LINE];
	if (ssp->pmu[0])
		return;	/* the first pass's; each pass's own is in its pmu record */
	if (!rec_is_true(o, "present")) {
		snprintf(ssp->pmu, sizeof(ssp->pmu), "none: %s", T("absent_reason"));
		return;
	}
	snprintf(ssp->pmu, sizeof(ssp->pmu), "%s version %s: %s general counters x %s bits, %s fixed", T("kind"),
		 T("version"), T("gp.count"), T("gp.width"), T("fixed.count"));
}

static void on_ibs(const struct rec *o)
{
	char tmp[6][SS_LINE];
	if (ssp->ibs[0])
		return;	/* one per variant when IBS is used: the first says enough */
	if (rec_is_true(o, "available"))
		snprintf(ssp->ibs, sizeof(ssp->ibs), "sampling beside each benchmark");
	else
		snprintf(ssp->ibs, sizeof(ssp->ibs), "not used: %s", T("reason"));
}

/* Figures to run: the rows the stage planned (bench/plan.h: split variants once per arena, ladder points, user
 * kernels); a record without them (an older build's) gives its variants. */
static void on_bench_setup(const struct rec *o)
{
	char tmp[6][SS_LINE];
	uint64_t v = 0;
	const char *s = T("variants"), *rows = T("rows");

	ssp->variants = lc_parse_u64(s, strlen(s), &v) ? (unsigned)v : 0;
	ssp->bench_total = lc_parse_u64(rows, strlen(rows), &v) ? (unsigned)v : ssp->variants;
}

#define SS_WHO 12	/* "4294967295:" */

/* "3:" when several processors are measured and the record is one processor's, else "". */
static const char *who_of(const struct rec *o, char who[SS_WHO])
{
	char n[SS_WHO];
	rec_get_str(o, "cpu.n", n, sizeof(n));
	who[0] = 0;
	if (ssp->multi && n[0])
		snprintf(who, SS_WHO, "%.*s:", SS_WHO - 2, n);
	return who;
}

/* The row's name: [cpu:]kernel.variant[ @arena]. */
static void row_name(const struct rec *o, char name[SS_NAME])
{
	char tmp[6][SS_LINE], who[SS_WHO];
	const char *arena = T("arena");
	snprintf(name, SS_NAME, "%s%s.%s%s%s", who_of(o, who), T("kernel"), T("variant"), arena[0] ? " @" : "", arena);
}

/* A new row called name; NULL when the table is full (the caller counts what is dropped). */
static struct ss_row *row_new(const char *name)
{
	if (ssp->nrows == SS_ROWS)
		return NULL;
	struct ss_row *r = &ssp->rows[ssp->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	return r;
}

/* The row called name, made when new; NULL when the table is full. */
static struct ss_row *row_named(const char *name)
{
	for (unsigned i = ssp->nrows; i-- > 0;)
		if (!strcmp(ssp->rows[i].name, name))
			return &ssp->rows[i];
	return row_new(name);
}

static struct ss_row *row_for(const struct rec *o)
{
	char name[SS_NAME];
	row_name(o, name);
	return row_named(name);
}

static void on_bench(const struct rec *o)
{
	char tmp[6][SS_LINE];
	struct ss_row *r = row_for(o);
	ssp->bench_done++;
	const char *k = T("kernel");
	/* Kernels run one after another (and again on each processor): list each once. */
	if (strcmp(ssp->last_kernel, k) && !list_has(ssp->kernels, k)) {
		snprintf(ssp->last_kernel, sizeof(ssp->last_kernel), "%s", k);
		list_add(ssp->kernels, sizeof(ssp->kernels), k);
	}
	if (!r) {
		ssp->rows_dropped++;	/* one bench record per row */
		return;
	}
	snprintf(ssp->bench_last, sizeof(ssp->bench_last), "%s", r->name);
	/* A figure that could not be measured stably is never shown as a plain one (docs/benchmarks.md). */
	bool shaky = rec_has(o, "unstable") && !rec_is_null(o, "unstable");
	ssp->bench_unstable += shaky;
	/* A cycles figure the audit refused is not printed (the bench record's cycles_invalid says why). */
	if (rec_has(o, "cycles_invalid") && !rec_is_null(o, "cycles_invalid"))
		snprintf(r->cycles, sizeof(r->cycles), "invalid");
	else
		snprintf(r->cycles, sizeof(r->cycles), "%s%s", T("cycles.median"), shaky ? "~" : "");
	const char *pen = T("penalty.median");
	if (pen[0])
		snprintf(r->penalty, sizeof(r->penalty), "%s%s", pen[0] == '-' ? "" : "+", pen);
}

/*
 * The latency an instruction form's row shows (docs/instr.md "The record"): the destination's own chain
 * (op1 -> op1) where measured, else the largest exact pair, else the first pair with a figure; -1 if none.
 */
static int headline_latency(const struct rec *o, int lat)
{
	char from[8], to[8], b[16];
	int best = -1, exact = -1, any = -1;
	int64_t m, best_m = -1;
	for (size_t i = 0; i < rec_count(o, lat); i++) {
		int e = rec_child(o, lat, i);
		int c = rec_find(o, e, "cycles");
		if (!rec_milli_of(o, c, &m))
			continue;
		if (any < 0)
			any = e;
		rec_text(o, rec_find(o, e, "from"), from, sizeof(from));
		rec_text(o, rec_find(o, e, "to"), to, sizeof(to));
		if (!strcmp(from, "op1") && !strcmp(to, "op1"))
			return e;
		if (!strcmp(rec_text(o, rec_find(o, e, "bound"), b, sizeof(b)), "exact") && m > best_m) {
			best_m = m;
			exact = e;
		}
	}
	best = exact >= 0 ? exact : any;
	return best;
}

/*
 * An instruction form (instr=, bench/src_instr.c): a row named by its asm, its headline latency under
 * cycles ("<=" an upper bound, "~" unstable), and under events which pair that is and the throughput.
 */
static void on_instr(const struct rec *o)
{
	char tmp[6][SS_LINE], who[SS_WHO], name[SS_NAME], c[12], from[8], to[8], b[16];
	snprintf(name, sizeof(name), "%s%s", who_of(o, who), T("asm"));
	/* A row of its own: forms of one name (VEX and EVEX encodings) are different forms. */
	struct ss_row *r = row_new(name);
	ssp->instr_done++;
	if (!r) {
		ssp->rows_dropped++;
		return;
	}
	snprintf(ssp->bench_last, sizeof(ssp->bench_last), "%s", r->name);
	if (rec_has(o, "fault") && !rec_is_null(o, "fault")) {
		snprintf(r->cycles, sizeof(r->cycles), "fault");
		snprintf(r->events, sizeof(r->events), "FAULT %s", T("fault.name"));
		return;
	}
	int e = headline_latency(o, rec_find(o, REC_ROOT, "latency"));
	bool shaky = false;
	if (e >= 0) {
		rec_text(o, rec_find(o, e, "cycles"), c, sizeof(c));
		bool upper = !strcmp(rec_text(o, rec_find(o, e, "bound"), b, sizeof(b)), "upper");
		int u = rec_find(o, e, "unstable");
		shaky = u >= 0 && rec_type_of(o, u) != REC_NULL;
		snprintf(r->cycles, sizeof(r->cycles), "%s%s%s", upper ? "<=" : "", c, shaky ? "~" : "");
	}
	const char *tp = T("throughput.cycles");
	size_t k = rec_is_true(o, "emulated") ? str_appendf(r->events, sizeof(r->events), 0, "emulated: ") : 0;
	if (e >= 0)
		k = str_appendf(r->events, sizeof(r->events), k, "%s->%s",
				rec_text(o, rec_find(o, e, "from"), from, sizeof(from)),
				rec_text(o, rec_find(o, e, "to"), to, sizeof(to)));
	if (tp[0])
		k = str_appendf(r->events, sizeof(r->events), k, "%stp %s (%s)", e >= 0 ? "; " : "", tp, T("throughput.how"));
	if (e < 0 && !tp[0])
		snprintf(r->cycles, sizeof(r->cycles), "-");
	ssp->bench_unstable += shaky;
}

/* Far above any share in percent: a node beyond it is shown as not known. */
#define WHOLE_MAX 100000000L

/* A share in thousandths of a percent (the metrics record's 12.345) as whole percent, rounded; -1 when not one. */
static long whole(const struct rec *o, int f)
{
	int64_t m;
	if (!rec_milli_of(o, f, &m))
		return -1;
	uint64_t mag = m < 0 ? 0 - (uint64_t)m : (uint64_t)m, v = (mag + 500) / 1000;
	if (v > WHOLE_MAX)
		return -1;
	return m < 0 ? -(long)v : (long)v;
}

/* The top-down column: the level 1 nodes in percent, and the level 2 node with the most ("25/18/27/30 Memory_Bound 60"). */
static void on_metrics(const struct rec *o)
{
	char key[64];
	int levels = rec_find(o, REC_ROOT, "levels"), values = rec_find(o, REC_ROOT, "values"), lv;
	struct ss_row *r = row_for(o);
	long best = -1;
	char best_name[32] = "";
	size_t len = 0;
	uint64_t level;

	if (!r || rec_type_of(o, levels) != REC_OBJECT)
		return;
	ssp->topdown = true;
	r->topdown[0] = 0;
	for (size_t i = 0; (lv = rec_child(o, levels, i)) >= 0; i++) {
		rec_key(o, lv, key, sizeof(key));
		long v = whole(o, rec_find(o, values, key));
		if (rec_u64_of(o, lv, &level) && level == 1) {
			len = str_appendf(r->topdown, sizeof(r->topdown), len, v < 0 ? "%s-" : "%s%ld", len ? "/" : "", v);
		} else if (v > best) {
			best = v;
			snprintf(best_name, sizeof(best_name), "%.*s", (int)sizeof(best_name) - 1, key);
		}
	}
	if (best >= 0)
		str_appendf(r->topdown, sizeof(r->topdown), len, " %s %ld", best_name, best);
}

static enum ss_check status_of(const char *s)
{
	static const char *const names[] = { [SS_PASS] = "pass", [SS_SKIP] = "skip", [SS_UNSTABLE] = "unstable",
					      [SS_FAIL] = "fail" };
	for (size_t i = SS_PASS; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i]))
			return (enum ss_check)i;
	return SS_NONE;
}

static void on_check(const struct rec *o)
{
	char tmp[6][SS_LINE], name[SS_NAME];
	row_name(o, name);
	struct ss_row *r = row_named(name);
	const char *st = T("status");
	enum ss_check c = status_of(st);

	ssp->checks[c]++;
	if (c == SS_SKIP) {
		const char *why = T("reason");
		if (!ssp->skip_reason[0])
			snprintf(ssp->skip_reason, sizeof(ssp->skip_reason), "%s", why);
		else if (strcmp(ssp->skip_reason, why))
			ssp->skip_reasons_differ = true;
	}
	/* Named in the summary even when its row did not fit in the table. */
	if (c == SS_FAIL)
		list_add(ssp->failed, sizeof(ssp->failed), name);
	if (c == SS_UNSTABLE)
		list_add(ssp->unstable, sizeof(ssp->unstable), name);
	if (!r)
		return;
	if (c == SS_NONE)
		snprintf(r->status_text, sizeof(r->status_text), "%s", st);
	if (c > r->check)
		r->check = c;
	if (!strcmp(T("what"), "events")) {
		size_t k = strlen(r->events);
		snprintf(r->events + k, sizeof(r->events) - k, "%s%s %s", k ? " " : "", T("role"), T("value"));
	}
}

static void add_error(const char *text)
{
	if (ssp->nerrors < SS_ERRORS)
		snprintf(ssp->errors[ssp->nerrors], SS_LINE, "%s", text);
	ssp->nerrors++;
}

static void on_error(const struct rec *o)
{
	char tmp[6][SS_LINE], e[SS_LINE];
	snprintf(e, sizeof(e), "%s: %s: %s", T("source"), T("what"), T("message"));
	add_error(e);
}

static void on_fault(const struct rec *o)
{
	char tmp[6][SS_LINE], e[SS_LINE], who[SS_WHO];
	/* A user kernel's fault (bench/src_user.c): it is not measured and the run goes on; not a run error. */
	if (rec_has(o, "kernel")) {
		snprintf(e, SS_NAME, "%s%s", who_of(o, who), T("kernel"));	/* "user.NAME", its bench rows' name */
		struct ss_row *r = row_named(e);
		if (r)
			snprintf(r->cycles, sizeof(r->cycles), "fault");
		return;
	}
	/* A fault a self-test asks for is shown apart: it is not a run error. */
	snprintf(e, sizeof(e), "%s at %s during %s", T("name"), T("rip"), T("activity"));
	if (rec_is_true(o, "expected")) {
		if (!ssp->nexpected++)
			snprintf(ssp->expected, sizeof(ssp->expected), "%s", e);
		return;
	}
	snprintf(e, sizeof(e), "fault: %s at %s during %s", T("name"), T("rip"), T("activity"));
	add_error(e);
}

static void on_selftest(const struct rec *o)
{
	if (rec_is(o, "status", "pass"))
		ssp->selftests_pass++;
	else if (rec_is(o, "status", "fail"))
		ssp->selftests_fail++;
}

/* The self-audit's checks: tallied, the failed ones listed with the counter they name. */
static void on_audit(const struct rec *o)
{
	char tmp[6][SS_LINE], item[48];
	if (rec_is(o, "status", "pass"))
		ssp->audit_pass++;
	else if (rec_is(o, "status", "absent"))
		ssp->audit_absent++;
	else if (rec_is(o, "status", "fail")) {
		ssp->audit_fail++;
		const char *counter = T("counter");
		snprintf(item, sizeof(item), "%s%s%s", T("check"), counter[0] ? " " : "", counter);
		list_add(ssp->audit_failed, sizeof(ssp->audit_failed), item);
	}
}

static void on_topology(const struct rec *o)
{
	uint64_t v = 0;
	ssp->multi = rec_get_u64(o, "chosen_count", &v) && v > 1;
}

/* "1 fault": how each processor's pass ended. */
static void on_pass(const struct rec *o)
{
	char tmp[6][SS_LINE], item[48];
	snprintf(item, sizeof(item), "%s %s%s", T("cpu.n"), T("outcome"),
		 T("expected_because")[0] ? " (expected)" : "");
	list_add(ssp->passes, sizeof(ssp->passes), item);
}

static void on_end(const struct rec *o)
{
	char tmp[6][SS_LINE];
	const char *status = T("status");
	snprintf(ssp->end_status, sizeof(ssp->end_status), "%s", status[0] ? status : "?");
}

static const struct {
	const char *type;
	void (*fn)(const struct rec *o);
} handlers[] = {
	{ "begin", on_begin },	 { "platform", on_platform },	{ "cpu", on_cpu },	   { "timing", on_timing },
	{ "cache", on_cache },
	{ "pmu", on_pmu },	 { "ibs", on_ibs },		{ "bench_setup", on_bench_setup },
	{ "bench", on_bench },	 { "check", on_check },		{ "error", on_error },	   { "fault", on_fault },
	{ "selftest", on_selftest }, { "end", on_end },		{ "topology", on_topology }, { "pass", on_pass },
	{ "audit", on_audit },	 { "metrics", on_metrics },	{ "instr", on_instr },
};

static void note_activity(void)
{
	const char *act = activity_get();
	snprintf(ssp->activity, sizeof(ssp->activity), "%s", act ? act : "");
}

void ss_text(const char *line, size_t len)
{
	if (!ssp)
		return;
	note_activity();
	/* The benchmark table's own text rows would only flicker past: the table shows them. */
	if (len > 2 && line[0] == ' ' && line[1] == ' ')
		return;
	len = len < sizeof(ssp->message) ? len : sizeof(ssp->message) - 1;	/* the screen shows what fits */
	memcpy(ssp->message, line, len);
	ssp->message[len] = '\0';
	ssp->message_after_summary = ssp->finished;
}

void ss_record(const struct rec *o)
{
	if (!ssp)
		return;
	note_activity();
	/* The run is over at its end record: only the upload trailer follows, which the screen does not show. */
	if (ssp->end_status[0])
		return;
	for (size_t i = 0; i < ARRAY_SIZE(handlers); i++)
		if (rec_is(o, "type", handlers[i].type))
			handlers[i].fn(o);
}
