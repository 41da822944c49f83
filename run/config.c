/* run/config.c - the option table and its parser; see config.h. */
#include "run/config.h"
#include "bench/ukernel.h"
#include "lib/strbuf.h"

/* A value quoted in an error message: enough to recognise it, never a whole long line. */
#define QUOTE_MAX 48
#define QUOTED(len) ((int)((len) > QUOTE_MAX ? QUOTE_MAX : (len)))
#include "bench/select.h"
#include "lib/heap.h"
#include "bench/kernels.h"
#include "run/cpus.h"
#include "kernel/selftest.h"

struct bad_bench {
	char *why;
	size_t cap;
	bool bad;
};

static void note_bad_bench(const char *w, size_t len, void *ctx)
{
	struct bad_bench *b = ctx;
	if (!b->bad && b->why)
		snprintf(b->why, b->cap, "unknown benchmark '%.*s' (a kernel, kernel.variant, all, none or list)",
			 (int)(len > 60 ? 60 : len), w);
	b->bad = true;
}

/* The value as given, cut to what fits (an over-long value was already refused or is checked later). */
static void copy_value(char *out, size_t out_cap, const char *v, size_t len)
{
	size_t n = len < out_cap ? len : out_cap - 1;
	memcpy(out, v, n);
	out[n] = 0;
}

/*
 * bench=: every word must name a kernel or variant (bench/select.c
 * decides); `list` is a request, not a name.  The good words are kept in
 * out, so the rest of a list still runs.
 */
static bool check_bench(const char *v, size_t len, char *out, size_t out_cap, char *why, size_t cap)
{
	static bool sel[128];
	char spec[CONFIG_STR_MAX], one[CONFIG_STR_MAX];
	const char *p, *w;
	size_t wl, k = 0;
	bool ok = true;

	out[0] = 0;
	if (bench_def_count() > ARRAY_SIZE(sel) || len >= sizeof(spec) || out_cap < len + 1) {
		copy_value(out, out_cap, v, len);
		return true;	/* the stage checks again */
	}
	memcpy(spec, v, len);
	spec[len] = 0;
	p = spec;
	while (lc_next_item(&p, ',', &w, &wl)) {
		struct bad_bench b = { ok ? why : NULL, cap, false };
		size_t n1 = wl < sizeof(one) ? wl : sizeof(one) - 1;	/* wl <= len < sizeof(one) */
		memcpy(one, w, n1);
		one[n1] = 0;
		if (strcmp(one, "list"))
			bench_select(one, sel, note_bad_bench, &b);
		if (b.bad)
			ok = false;	/* the first bad word is the one named in why */
		else
			k += (size_t)snprintf(out + k, out_cap - k, "%s%s", k ? "," : "", one);
	}
	if (!ok && k)
		snprintf(why + strlen(why), cap - strlen(why), "; running the rest: %s", out);
	return ok;
}

_Static_assert(CONFIG_KERNEL_NAME_MAX == UK_NAME_MAX, "kernel names: config and kernel files agree");

/* cpus=: the whole value must parse (run/cpus.c); a bad one keeps the previous value. */
static bool check_cpus(const char *v, size_t len, char *out, size_t out_cap, char *why, size_t cap)
{
	static struct cpus_spec spec;
	out[0] = 0;
	if (!cpus_parse(v, len, &spec, why, cap))
		return false;
	copy_value(out, out_cap, v, len);
	return true;
}

/* selftest=: each word must name a self-test (kernel/selftest.h); the good ones are kept, as for bench=. */
static bool check_selftest(const char *v, size_t len, char *out, size_t out_cap, char *why, size_t cap)
{
	char one[CONFIG_STR_MAX], spec[CONFIG_STR_MAX], one_why[160];
	const char *p, *w;
	size_t wl, k = 0;
	unsigned mask;
	bool ok = true;

	out[0] = 0;
	if (len >= sizeof(spec) || out_cap < len + 1) {
		copy_value(out, out_cap, v, len);
		return true;	/* cannot happen: OPT_STR refused it; the stage checks again */
	}
	memcpy(spec, v, len);
	spec[len] = 0;
	p = spec;
	while (lc_next_item(&p, ',', &w, &wl)) {
		memcpy(one, w, wl);
		one[wl] = 0;
		if (selftest_parse(one, &mask, one_why, sizeof(one_why))) {
			k += (size_t)snprintf(out + k, out_cap - k, "%s%s", k ? "," : "", one);
		} else {
			if (ok)
				snprintf(why, cap, "%s", one_why);
			ok = false;
		}
	}
	if (!ok && k)
		str_appendf(why, cap, strlen(why), "; running the rest: %s", out);
	return ok;
}

enum opt_type { OPT_ENUM, OPT_BOOL, OPT_U32, OPT_U64, OPT_STR, OPT_SERIAL, OPT_COUNTDOWN, OPT_HEX_KERNEL, OPT_FREQ };

struct opt_def {
	const char *key;
	enum opt_type type;
	size_t offset;
	const char *const *choices;	/* OPT_ENUM: value i is choices[i] */
	uint64_t min, max;		/* OPT_U32 / OPT_U64 */
	const char *def;		/* default, parsed like any other value */
	const char *example;
	const char *help;
};

/* kernel.NAME=HEX: one table row documents the family of keys. */
#define KERNEL_KEY_PREFIX "kernel."
#define KERNEL_KEY_DOC "kernel.NAME"

static const char *const finish_choices[] = { "auto", "shutdown", "reboot", "halt", "return", NULL };
static const char *const tri_choices[] = { "auto", "on", "off", NULL };
static const char *const arena_choices[] = { "both", "4k", "2m", NULL };
static const char *const park_choices[] = { "auto", "mwait", "hlt", "pause", NULL };
static const char *const ibs_choices[] = { "both", "off", "fetch", "op", NULL };
static const char *const screen_choices[] = { "readable", "records", NULL };
static const char *const boost_choices[] = { "keep", "on", "off", NULL };
/* freq='s words, in enum freq_sel's order; any other value is a frequency in MHz. */
static const char *const freq_words[] = { "keep", "base", "max" };
_Static_assert(ARRAY_SIZE(freq_words) == FREQ_SEL_MHZ, "freq=: one word per enum freq_sel value before MHz");

#define OFF(f) offsetof(struct config, f)

/*
 * The option reference's long form, each option's example and help text, is what
 * config_write_doc prints for `pmuboot-host options` (docs/options.md); nothing in the image
 * reads it, so the image carries "" in its place.
 */
#ifdef PMUBOOT_HOSTED
#define DOC(text) text
#else
#define DOC(text) ""
#endif

static const struct opt_def opts[] = {
	{ "serial", OPT_SERIAL, OFF(serial), NULL, 0, 0, "auto", DOC("serial=0x2f8,57600"),
	  DOC("Console UART. `auto`: the UART the firmware's ACPI SPCR table names, else COM1 (I/O port 0x3f8). "
	  "`off`: no serial output. `0xPORT[,baud]` or `com1`..`com4[,baud]`: a 16550 at an I/O port. "
	  "`mmio,0xADDR[,baud]` / `mmio32,0xADDR[,baud]`: a memory-mapped 16550 with 1- or 4-byte register "
	  "spacing. Baud defaults to 115200; the frame is always 8N1.") },
	{ "on_finish", OPT_ENUM, OFF(on_finish), finish_choices, 0, 0, "auto", DOC("on_finish=reboot"),
	  DOC("What to do when the run is over. `auto` is `shutdown` under a hypervisor and `halt` on bare "
	  "metal, so the screen stays readable. `return` goes back to the firmware (boot menu or shell).") },
	{ "countdown", OPT_COUNTDOWN, OFF(countdown), NULL, 0, 3600, "auto", DOC("countdown=10"),
	  DOC("Seconds shown on screen before on_finish, interrupted by any key. `auto` is 5 on bare metal and "
	  "0 under a hypervisor; there is no wait when the firmware offers no console input.") },
	{ "qemu_exit", OPT_ENUM, OFF(qemu_exit), tri_choices, 0, 0, "auto", DOC("qemu_exit=off"),
	  DOC("Report the run's status through QEMU's isa-debug-exit device (I/O port 0xf4). `auto` does so "
	  "only when CPUID names the QEMU TCG or KVM hypervisor.") },
	{ "screen", OPT_ENUM, OFF(screen), screen_choices, 0, 0, "readable", DOC("screen=records"),
	  DOC("What the screen shows. `readable`: the CPU and PMU in one block, a progress line, the results "
	  "as a table (variant, cycles, penalty against its control, key events, check) and, at the end, a "
	  "summary that stays (checks passed, failed and unstable, errors, where the results were saved, "
	  "what happens next). `records`: every text line and `@pmuboot` record as the serial port gets "
	  "them. Serial and the results file always get every record.") },
	{ "verbose", OPT_BOOL, OFF(verbose), NULL, 0, 0, "off", DOC("verbose=on"),
	  DOC("Emit extra records (for example a `program` record with the MSR writes for each pass).") },
	{ "save", OPT_BOOL, OFF(save), NULL, 0, 0, "on", DOC("save=off"),
	  DOC("Write the records to \\pmuboot\\results-NNNN.jsonl on the boot medium as the run goes.") },
	{ "force_counters", OPT_BOOL, OFF(force_counters), NULL, 0, 0, "off", DOC("force_counters=on"),
	  DOC("Use performance counters that were already enabled when pmuboot started (by firmware or a "
	  "BMC). Their state is still restored at the end.") },
	{ "selftest", OPT_STR, OFF(selftest), NULL, 0, 0, "", DOC("selftest=fixup,nmi"),
	  DOC("Runtime self-tests to run first, comma-separated: `fixup`, `window`, `nmi`, `paging`, `fault`, or "
	  "`all` (see docs/runtime.md). `fault` runs last and ends the run through the fault path on purpose. "
	  "Not in `all`: `apfault` and `aphang` act at the start of each measuring pass on a processor other "
	  "than the boot CPU (a deliberate #UD there; in the first such pass only, a spin with interrupts off "
	  "that pass_timeout_s stops), "
	  "to show that the run goes on.") },
	{ "bench", OPT_STR, OFF(bench), NULL, 0, 0, "all", DOC("bench=store_forward,split.load_page"),
	  DOC("Benchmarks to run: `all`, `none`, or a comma-separated list of `kernel` or `kernel.variant`.") },
	{ "cpus", OPT_STR, OFF(cpus), NULL, 0, 0, "types", DOC("cpus=all"),
	  DOC("Processors to measure on. `types`: one of each core type (on a hybrid part one P-core and one "
	  "E-core; elsewhere the boot CPU alone). `bsp`: the boot CPU. `all`: every enabled processor. Or a "
	  "comma-separated list of processor numbers, `N-M` ranges and `apic:ID` (numbers as the `topology` "
	  "record prints them). While one processor measures, the others are parked (docs/runtime.md); "
	  "each `pass` record says what they did.") },
	{ "park", OPT_ENUM, OFF(park), park_choices, 0, 0, "auto", DOC("park=hlt"),
	  DOC("How the processors that are not measuring wait, interrupts off. `auto`: MWAIT on a flag where the "
	  "core has MONITOR (not under an emulator, whose MWAIT is a spin), else HLT woken by an NMI, else "
	  "PAUSE. `mwait`, `hlt`, `pause` ask for one (falling back in that order where it is missing), to "
	  "compare what the neighbours' sleep does to a measurement. The boot processor waits the same way "
	  "(HLT between the firmware's timer ticks). Each `pass` record says what they did.") },
	{ "pass_timeout_s", OPT_U32, OFF(pass_timeout_s), NULL, 1, 86400, "1800", DOC("pass_timeout_s=600"),
	  DOC("Seconds a measuring pass on a processor other than the boot CPU may take. One that takes longer "
	  "is stopped by the firmware, reported in its `pass` record and an error, and the run goes on.") },
	{ "reps", OPT_U32, OFF(reps), NULL, 3, 10000, "11", DOC("reps=31"),
	  DOC("Measured repetitions per figure (min, median and max are reported over these).") },
	{ "iterations", OPT_U32, OFF(iterations), NULL, 16, 100000000, "1000", DOC("iterations=10000"),
	  DOC("Kernel loop iterations per repetition.") },
	{ "warmup", OPT_U32, OFF(warmup), NULL, 0, 1000, "3", DOC("warmup=5"),
	  DOC("Unmeasured repetitions before measuring.") },
	{ "events", OPT_STR, OFF(events), NULL, 0, 0, "", DOC("events=INST_RETIRED.ANY;event=0x24,umask=0x02"),
	  DOC("Extra events counted alongside every benchmark, separated by `;`: names from the event tables "
	  "of this core, or raw specs (`event=0x03,umask=0x02[,cmask=N][,inv][,edge]`, `r0203`).") },
	{ "freq", OPT_FREQ, OFF(freq), NULL, CONFIG_FREQ_MHZ_MIN, CONFIG_FREQ_MHZ_MAX, "keep", DOC("freq=base"),
	  DOC("The clock of each measured processor, pinned at the start of its pass, before its `timing` figures "
	  "are taken, and put back at the end of the pass and on the fault path. `keep`: as found. `base`: the "
	  "nominal (non-turbo) frequency. `max`: the highest the part allows, turbo included when `boost` "
	  "allows it. A number, 100..10000: that many MHz, or the highest level below it. Intel: the HWP "
	  "request (min = max) where firmware enabled HWP, else IA32_PERF_CTL; AMD: the CPPC request where "
	  "firmware enabled CPPC, else P-state control. APERF/MPERF proves it: the `timing` record gives the "
	  "frequency asked for and the one measured (docs/runtime.md). Image only: pmuboot-host leaves the "
	  "clock to Linux, and under an emulator there is none to pin.") },
	{ "boost", OPT_ENUM, OFF(boost), boost_choices, 0, 0, "keep", DOC("boost=off"),
	  DOC("Turbo (Intel) or core performance boost (AMD) while measuring: `keep` (as found), `off` or `on`. Intel: "
	  "IA32_PERF_CTL[32] for the processor, or with HWP the request held at or below base; AMD: HWCR[25] "
	  "CpbDis. The package-wide IA32_MISC_ENABLE[38] is never written. Put back with the clock.") },
	{ "arena_page", OPT_ENUM, OFF(arena_page), arena_choices, 0, 0, "both", DOC("arena_page=4k"),
	  DOC("Page size of the benchmark memory for the split kernels: `4k`, `2m` or `both`.") },
	{ "ibs", OPT_ENUM, OFF(ibs), ibs_choices, 0, 0, "both", DOC("ibs=op"),
	  DOC("AMD Instruction-Based Sampling alongside each benchmark: `both`, `fetch`, `op` or `off`. "
	  "Ignored, with a note, where IBS is absent.") },
	{ "ibs_period", OPT_U64, OFF(ibs_period), NULL, 0x10, 0x7FFFFFF0ull, "0x4000", DOC("ibs_period=0x10000"),
	  DOC("IBS sampling period in ops (op sampling) or fetches (fetch sampling).") },
	{ "ibs_raw", OPT_BOOL, OFF(ibs_raw), NULL, 0, 0, "off", DOC("ibs_raw=on"),
	  DOC("Emit one `ibs_sample` record per IBS sample with the raw registers.") },
	/* User kernels (docs/kernels.md). */
	{ "kernels", OPT_STR, OFF(kernels), NULL, 0, 0, "", DOC("kernels=my-kernels"),
	  DOC("pmuboot-host only: the directory whose kernel files (`*.pmuk`, from `pmuboot-host kernel build`) "
	  "`bench=user.NAME` can choose. The image always reads `\\pmuboot\\kernels\\` on the boot medium.") },
	{ "kernel_unroll", OPT_U32, OFF(kernel_unroll), NULL, 0, UK_UNROLL_MAX, "0", DOC("kernel_unroll=32"),
	  DOC("Copies of a user kernel's body per loop trip; `0`: the kernel's own `unroll` (8 when it gives none).") },
	{ "kernel_timeout_ms", OPT_U32, OFF(kernel_timeout_ms), NULL, 1, 3600000, "1000", DOC("kernel_timeout_ms=5000"),
	  DOC("A user kernel still running after this many milliseconds (in its trial run, before it is measured) is "
	  "stopped by the watchdog and reported with a `timeout` record.") },
	{ KERNEL_KEY_DOC, OPT_HEX_KERNEL, 0, NULL, 0, 0, "", DOC("kernel.add=4801c8"),
	  DOC("A user kernel given as the hex bytes of its body (no init, no control), chosen by `bench=user.NAME`; "
	  "at most 4, each up to 127 bytes. A name given again replaces the body.") },
};

/*
 * String options whose words are checked against what exists while the
 * option is read, so that a bad word is reported with its file and line.
 */
static const struct {
	const char *key;
	bool (*check)(const char *v, size_t len, char *out, size_t out_cap, char *why, size_t cap);
} str_checks[] = {
	{ "bench", check_bench },
	{ "cpus", check_cpus },
	{ "selftest", check_selftest },
};

/*
 * String options whose words can only be checked later (event names: per
 * core, by the bench stage): where each was set is kept, so that the error
 * found then still names the file and line.
 */
static const struct {
	const char *key;
	size_t source;	/* offset of its char[CONFIG_SOURCE_MAX] in struct config */
} later_checks[] = {
	{ "events", OFF(events_source) },
};

static void note_source(const struct opt_def *o, struct config *c, const char *source)
{
	for (size_t i = 0; i < ARRAY_SIZE(later_checks); i++)
		if (!strcmp(later_checks[i].key, o->key))
			snprintf((char *)c + later_checks[i].source, CONFIG_SOURCE_MAX, "%s", source);
}

/*
 * Writes the words worth keeping to out.  False with why when a word is
 * bad; out then holds the good ones, or "" when none is left.
 */
static bool check_str(const struct opt_def *o, const char *v, size_t len, char *out, size_t out_cap, char *why,
		      size_t cap)
{
	for (size_t i = 0; i < ARRAY_SIZE(str_checks); i++)
		if (!strcmp(str_checks[i].key, o->key))
			return str_checks[i].check(v, len, out, out_cap, why, cap);
	copy_value(out, out_cap, v, len);
	return true;
}

static const struct opt_def *find_opt(const char *key, size_t len)
{
	size_t plen = sizeof(KERNEL_KEY_PREFIX) - 1;
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (opts[i].type == OPT_HEX_KERNEL && len > plen && !strncmp(key, KERNEL_KEY_PREFIX, plen))
			return &opts[i];
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (strlen(opts[i].key) == len && strncmp(opts[i].key, key, len) == 0)
			return &opts[i];
	return NULL;
}

static bool eq_ci(const char *a, size_t alen, const char *b)
{
	if (alen != strlen(b))
		return false;
	for (size_t i = 0; i < alen; i++)
		if (lc_tolower((unsigned char)a[i]) != lc_tolower((unsigned char)b[i]))
			return false;
	return true;
}

#define UART_DEFAULT_BAUD 115200
#define UART_MAX_BAUD 115200	/* 1.8432 MHz clock / 16, divisor 1 */
#define IO_PORT_MAX 0xffff

static bool parse_serial(struct serial_cfg *s, const char *v, size_t len, char *why, size_t cap)
{
	static const uint16_t com_ports[] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 }; /* PC/AT convention */
	const char *comma = NULL;
	struct serial_cfg out = { SERIAL_IO, 0, 0 };

	if (eq_ci(v, len, "auto") || eq_ci(v, len, "off")) {
		out.kind = eq_ci(v, len, "auto") ? SERIAL_AUTO : SERIAL_OFF;
		*s = out;
		return true;
	}
	for (size_t i = 0; i < len; i++)
		if (v[i] == ',') {
			comma = v + i;
			break;
		}
	size_t head = comma ? (size_t)(comma - v) : len;
	const char *rest = comma ? comma + 1 : NULL;
	size_t rest_len = comma ? len - head - 1 : 0;

	if (eq_ci(v, head, "mmio") || eq_ci(v, head, "mmio32")) {
		out.kind = eq_ci(v, head, "mmio") ? SERIAL_MMIO8 : SERIAL_MMIO32;
		if (!rest) {
			snprintf(why, cap, "'%.*s' needs an address: %.*s,0xADDR[,baud]", QUOTED(head), v, QUOTED(head), v);
			return false;
		}
		const char *c2 = NULL;
		for (size_t i = 0; i < rest_len; i++)
			if (rest[i] == ',') {
				c2 = rest + i;
				break;
			}
		size_t alen = c2 ? (size_t)(c2 - rest) : rest_len;
		if (!lc_parse_u64(rest, alen, &out.base) || out.base == 0) {
			snprintf(why, cap, "bad MMIO address '%.*s' (expected 0x followed by hex digits)", QUOTED(alen), rest);
			return false;
		}
		rest = c2 ? c2 + 1 : NULL;
		rest_len = c2 ? rest_len - alen - 1 : 0;
	} else if (head == 4 && eq_ci(v, 3, "com") && v[3] >= '1' && v[3] <= '4') {
		out.base = com_ports[v[3] - '1'];
	} else {
		if (!lc_parse_u64(v, head, &out.base) || out.base == 0 || out.base > IO_PORT_MAX) {
			snprintf(why, cap,
				 "'%.*s' is not a serial port (expected auto, off, com1..com4, an I/O port 0x1..0xffff, "
				 "mmio,0xADDR or mmio32,0xADDR)", QUOTED(head), v);
			return false;
		}
	}
	if (rest) {
		uint64_t baud;
		if (!lc_parse_u64(rest, rest_len, &baud) || baud == 0 || baud > UART_MAX_BAUD ||
		    (UART_MAX_BAUD % baud) != 0) {
			snprintf(why, cap, "bad baud rate '%.*s' (expected a divisor of 115200, e.g. 115200, 57600, 9600)",
				 QUOTED(rest_len), rest);
			return false;
		}
		out.baud = (uint32_t)baud;
	}
	if (!out.baud)
		out.baud = UART_DEFAULT_BAUD;
	*s = out;
	return true;
}

/* freq=: keep, base, max, or MHz in the option's range. */
static bool parse_freq(const struct opt_def *o, struct freq_cfg *f, const char *v, size_t len, char *why, size_t cap)
{
	uint64_t n;
	for (size_t i = 0; i < ARRAY_SIZE(freq_words); i++)
		if (eq_ci(v, len, freq_words[i])) {
			*f = (struct freq_cfg){ (enum freq_sel)i, 0 };
			return true;
		}
	if (!lc_parse_u64(v, len, &n) || n < o->min || n > o->max) {
		snprintf(why, cap, "'%.*s' is not keep, base, max or a frequency in MHz (%llu..%llu)", QUOTED(len), v,
			 (unsigned long long)o->min, (unsigned long long)o->max);
		return false;
	}
	*f = (struct freq_cfg){ FREQ_SEL_MHZ, (uint32_t)n };
	return true;
}

static bool parse_value(const struct opt_def *o, struct config *c, const char *v, size_t len, char *why,
			size_t cap)
{
	char *field = (char *)c + o->offset;
	uint64_t n;

	switch (o->type) {
	case OPT_ENUM:
		for (int i = 0; o->choices[i]; i++) {
			if (eq_ci(v, len, o->choices[i])) {
				*(int *)field = i;
				return true;
			}
		}
		{
			size_t k = (size_t)snprintf(why, cap, "'%.*s' is not one of:", QUOTED(len), v);
			for (int i = 0; o->choices[i] && k < cap; i++)
				k = str_appendf(why, cap, k, " %s", o->choices[i]);
		}
		return false;
	case OPT_BOOL:
		if (eq_ci(v, len, "on") || eq_ci(v, len, "yes") || eq_ci(v, len, "true") || eq_ci(v, len, "1")) {
			*(bool *)field = true;
			return true;
		}
		if (eq_ci(v, len, "off") || eq_ci(v, len, "no") || eq_ci(v, len, "false") || eq_ci(v, len, "0")) {
			*(bool *)field = false;
			return true;
		}
		snprintf(why, cap, "'%.*s' is not on or off", QUOTED(len), v);
		return false;
	case OPT_COUNTDOWN:
		if (eq_ci(v, len, "auto")) {
			*(int32_t *)field = -1;
			return true;
		}
		/* fall through */
	case OPT_U32:
	case OPT_U64:
		if (!lc_parse_u64(v, len, &n)) {
			snprintf(why, cap, "'%.*s' is not a number (decimal, or hex with 0x)", QUOTED(len), v);
			return false;
		}
		if (n < o->min || n > o->max) {
			snprintf(why, cap, "%llu is out of range %llu..%llu", (unsigned long long)n,
				 (unsigned long long)o->min, (unsigned long long)o->max);
			return false;
		}
		if (o->type == OPT_U64)
			*(uint64_t *)field = n;
		else if (o->type == OPT_U32)
			*(uint32_t *)field = (uint32_t)n;
		else
			*(int32_t *)field = (int32_t)n;
		return true;
	case OPT_STR:
		if (len >= CONFIG_STR_MAX) {
			snprintf(why, cap, "value is %zu characters long; at most %d fit", len, CONFIG_STR_MAX - 1);
			return false;
		}
		for (size_t i = 0; i < len; i++) {
			if ((unsigned char)v[i] < 0x21 || (unsigned char)v[i] > 0x7e) {
				snprintf(why, cap, "character %zu is not printable ASCII", i + 1);
				return false;
			}
		}
		{
			char kept[CONFIG_STR_MAX];
			bool ok = check_str(o, v, len, kept, sizeof(kept), why, cap);
			/* A list with some bad words keeps its good ones; with none left, the previous value stays. */
			if (ok || kept[0])
				memcpy(field, kept, strlen(kept) + 1);
			return ok;
		}
	case OPT_SERIAL:
		return parse_serial((struct serial_cfg *)field, v, len, why, cap);
	case OPT_HEX_KERNEL:
		return len == 0;	/* the default: none (kernel.NAME words go through set_hex_kernel) */
	case OPT_FREQ:
		return parse_freq(o, (struct freq_cfg *)field, v, len, why, cap);
	}
	return false;
}

/* kernel.NAME=HEX: checked as a kernel now, so a bad one is an error naming its line. */
static bool set_hex_kernel(struct config *c, const char *name, size_t nlen, const char *hex, size_t hlen, char *why,
			   size_t cap)
{
	/* 2 KiB: neither on the stack nor static (the image's .bss is file bytes). */
	static struct ukernel *kp;
	if (!kp && !(kp = heap_alloc(sizeof(*kp), 16))) {
		snprintf(why, cap, "no memory to check the kernel");
		return false;
	}
	struct ukernel *k = kp;
	if (hlen >= CONFIG_STR_MAX) {
		snprintf(why, cap, "%zu hex digits; at most %d fit here (longer kernels go in a kernel file)", hlen,
			 CONFIG_STR_MAX - 1);
		return false;
	}
	if (!ukernel_from_hex(name, nlen, hex, hlen, k, why, cap))
		return false;
	uint32_t i = 0;
	while (i < c->n_hex_kernels && strcmp(c->hex_kernels[i].name, k->name))
		i++;
	if (i == CONFIG_HEX_KERNELS) {
		snprintf(why, cap, "at most %d kernels can be given as hex", CONFIG_HEX_KERNELS);
		return false;
	}
	memcpy(c->hex_kernels[i].name, k->name, sizeof(c->hex_kernels[i].name));
	memcpy(c->hex_kernels[i].hex, hex, hlen);
	c->hex_kernels[i].hex[hlen] = 0;
	if (i == c->n_hex_kernels)
		c->n_hex_kernels++;
	return true;
}

void config_defaults(struct config *c)
{
	char why[192];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		(void)parse_value(&opts[i], c, opts[i].def, strlen(opts[i].def), why, sizeof(why));
}

static void set_err(struct config_error *err, const char *source, const char *key, size_t klen, const char *msg)
{
	snprintf(err->source, sizeof(err->source), "%s", source);
	snprintf(err->key, sizeof(err->key), "%.*s", (int)(klen < sizeof(err->key) ? klen : sizeof(err->key) - 1),
		 key);
	snprintf(err->message, sizeof(err->message), "%s", msg);
}

bool config_apply_word(struct config *c, const char *source, const char *word, size_t len,
		       struct config_error *err)
{
	const char *eq = NULL;
	char why[192];

	for (size_t i = 0; i < len; i++)
		if (word[i] == '=') {
			eq = word + i;
			break;
		}
	if (!eq) {
		snprintf(why, sizeof(why), "'%.*s' is not key=value", (int)(len > 60 ? 60 : len), word);
		set_err(err, source, word, len, why);
		return false;
	}
	size_t klen = (size_t)(eq - word);
	const struct opt_def *o = find_opt(word, klen);
	if (!o) {
		snprintf(why, sizeof(why), "unknown option '%.*s' (see docs/options.md)", (int)(klen > 40 ? 40 : klen),
			 word);
		set_err(err, source, word, klen, why);
		return false;
	}
	if (o->type == OPT_HEX_KERNEL) {
		size_t plen = sizeof(KERNEL_KEY_PREFIX) - 1;
		if (!set_hex_kernel(c, word + plen, klen - plen, eq + 1, len - klen - 1, why, sizeof(why))) {
			set_err(err, source, word, klen, why);
			return false;
		}
		return true;
	}
	if (!parse_value(o, c, eq + 1, len - klen - 1, why, sizeof(why))) {
		set_err(err, source, word, klen, why);
		return false;
	}
	note_source(o, c, source);
	return true;
}

unsigned config_apply_text(struct config *c, const char *name, bool is_file, const char *text, size_t len,
			   void (*report)(const struct config_error *err, void *ctx), void *ctx)
{
	unsigned errors = 0, line = 1;
	char source[64];
	struct config_error err;
	size_t i = 0;

	while (i < len) {
		/* One line at a time; load options are a single line. */
		size_t end = i;
		while (end < len && text[end] != '\n')
			end++;
		size_t stop = end;
		for (size_t k = i; k < end; k++)
			if (text[k] == '#') {
				stop = k;
				break;
			}
		if (is_file)
			snprintf(source, sizeof(source), "%s:%u", name, line);
		else
			snprintf(source, sizeof(source), "%s", name);
		const char *nul = NULL;
		for (size_t z = i; z < end && !nul; z++)
			if (!text[z])
				nul = text + z;
		if (nul) {
			/* Not text: a word cut at the NUL would be read as something the file did not say. */
			char why[160];
			snprintf(why, sizeof(why), "a NUL byte at column %zu: this line was not read (is the file text?)",
				 (size_t)(nul - (text + i)) + 1);
			set_err(&err, source, "-", 1, why);
			errors++;
			if (report)
				report(&err, ctx);
			i = end + 1;
			line++;
			continue;
		}
		size_t k = i;
		while (k < stop) {
			while (k < stop && lc_isspace((unsigned char)text[k]))
				k++;
			size_t w = k;
			while (k < stop && !lc_isspace((unsigned char)text[k]))
				k++;
			if (k > w && !config_apply_word(c, source, text + w, k - w, &err)) {
				errors++;
				if (report)
					report(&err, ctx);
			}
		}
		i = end + 1;
		line++;
	}
	return errors;
}

/*
 * Unicode 15.0 §23.8 (byte order mark): U+FEFF at the start of a file is
 * EF BB BF in UTF-8, FF FE in UTF-16LE and FE FF in UTF-16BE.
 */
static const char bom_utf8[] = "\xef\xbb\xbf";
#define BOM_UTF8_LEN 3

/*
 * Without a byte order mark, ASCII text in UTF-16 is a NUL beside every
 * ASCII byte.  The pattern must hold for this many leading characters (or
 * the whole text when shorter), so that a UTF-8 file with a stray NUL is
 * read as the text it is and its NUL reported by line.
 */
#define UTF16_SNIFF_CHARS 8

/* True when the first characters are ASCII code units, the ASCII byte at `lo` (0 LE, 1 BE) of each pair. */
static bool ascii_utf16(const unsigned char *t, size_t len, unsigned lo)
{
	size_t pairs = len / 2 < UTF16_SNIFF_CHARS ? len / 2 : UTF16_SNIFF_CHARS;
	for (size_t i = 0; i < pairs; i++) {
		unsigned char a = t[2 * i + lo], z = t[2 * i + (lo ^ 1)];
		if (z || !a || a >= 0x80)
			return false;
	}
	return pairs > 0;
}

/* Which UTF-16 a text is, or NULL: by its byte order mark, or by NULs beside its ASCII bytes. */
static const char *utf16_kind(const unsigned char *t, size_t len)
{
	if (len < 2)
		return NULL;
	if (t[0] == 0xff && t[1] == 0xfe)
		return "UTF-16LE, byte order mark FF FE";
	if (t[0] == 0xfe && t[1] == 0xff)
		return "UTF-16BE, byte order mark FE FF";
	if (ascii_utf16(t, len, 0))
		return "UTF-16LE without a byte order mark";
	if (ascii_utf16(t, len, 1))
		return "UTF-16BE without a byte order mark";
	return NULL;
}

unsigned config_apply_file(struct config *c, const char *name, const char *text, size_t len,
			   void (*report)(const struct config_error *err, void *ctx), void *ctx)
{
	if (len >= BOM_UTF8_LEN && memcmp(text, bom_utf8, BOM_UTF8_LEN) == 0) {
		text += BOM_UTF8_LEN;
		len -= BOM_UTF8_LEN;
	}
	const char *u16 = utf16_kind((const unsigned char *)text, len);
	if (u16) {
		struct config_error err;
		char why[160];
		snprintf(why, sizeof(why), "is UTF-16 text (%s): no option was read; save it as ASCII or UTF-8", u16);
		set_err(&err, name, "-", 1, why);
		if (report)
			report(&err, ctx);
		return 1;
	}
	return config_apply_text(c, name, true, text, len, report, ctx);
}

static void value_text(const struct opt_def *o, const struct config *c, char *buf, size_t cap)
{
	const char *field = (const char *)c + o->offset;

	switch (o->type) {
	case OPT_ENUM:
		snprintf(buf, cap, "%s", o->choices[*(const int *)field]);
		break;
	case OPT_BOOL:
		snprintf(buf, cap, "%s", *(const bool *)field ? "on" : "off");
		break;
	case OPT_COUNTDOWN:
		if (*(const int32_t *)field < 0)
			snprintf(buf, cap, "auto");
		else
			snprintf(buf, cap, "%d", *(const int32_t *)field);
		break;
	case OPT_U32:
		snprintf(buf, cap, "%u", *(const uint32_t *)field);
		break;
	case OPT_U64:
		snprintf(buf, cap, "0x%llx", (unsigned long long)*(const uint64_t *)field);
		break;
	case OPT_STR:
		snprintf(buf, cap, "%s", field);
		break;
	case OPT_HEX_KERNEL: {
		size_t k = 0;
		buf[0] = 0;
		for (uint32_t i = 0; i < c->n_hex_kernels; i++)
			k = str_appendf(buf, cap, k, "%s%s=%s", i ? "," : "", c->hex_kernels[i].name,
					c->hex_kernels[i].hex);
		break;
	}
	case OPT_FREQ: {
		const struct freq_cfg *f = (const struct freq_cfg *)field;
		if (f->sel == FREQ_SEL_MHZ)
			snprintf(buf, cap, "%u", f->mhz);
		else
			snprintf(buf, cap, "%s", freq_words[f->sel]);
		break;
	}
	case OPT_SERIAL: {
		const struct serial_cfg *s = (const struct serial_cfg *)field;
		if (s->kind == SERIAL_AUTO || s->kind == SERIAL_OFF)
			snprintf(buf, cap, "%s", s->kind == SERIAL_AUTO ? "auto" : "off");
		else
			snprintf(buf, cap, "%s0x%llx,%u",
				 s->kind == SERIAL_MMIO8 ? "mmio," : s->kind == SERIAL_MMIO32 ? "mmio32," : "",
				 (unsigned long long)s->base, s->baud);
		break;
	}
	}
}

/*
 * kernel.NAME is a family of keys.  Its table row's own key (KERNEL_KEY_DOC,
 * which no kernel can be named: names are lower case) stands for the whole
 * family: NAME=HEX for each, comma-separated, as the `begin` record shows
 * them.  A real key, kernel.add, has its one kernel's HEX ("" when none).
 */
static void hex_kernel_text(const struct config *c, const char *key, char *buf, size_t cap)
{
	size_t plen = sizeof(KERNEL_KEY_PREFIX) - 1;
	buf[0] = 0;
	for (uint32_t i = 0; i < c->n_hex_kernels; i++)
		if (!strcmp(c->hex_kernels[i].name, key + plen))
			snprintf(buf, cap, "%s", c->hex_kernels[i].hex);
}

bool config_value_text(const struct config *c, const char *key, char *buf, size_t cap)
{
	const struct opt_def *o = find_opt(key, strlen(key));
	if (!o)
		return false;
	if (o->type == OPT_HEX_KERNEL && strcmp(key, KERNEL_KEY_DOC))
		hex_kernel_text(c, key, buf, cap);
	else
		value_text(o, c, buf, cap);
	return true;
}

size_t config_key_count(void) { return ARRAY_SIZE(opts); }
const char *config_key_at(size_t i) { return i < ARRAY_SIZE(opts) ? opts[i].key : NULL; }

#ifdef PMUBOOT_HOSTED
void config_write_doc(void (*emit)(const char *line, void *ctx), void *ctx)
{
	char line[1024];

	emit("# pmuboot options", ctx);
	emit("", ctx);
	emit("<!-- Generated by `build/pmuboot-host options` from run/config.c; a test keeps them equal. -->", ctx);
	emit("", ctx);
	emit("Options are `key=value` words. They are read from `pmuboot.cfg` beside the image on the boot medium "
	     "(any number of words per line; `#` starts a comment; ASCII or UTF-8, a byte order mark is skipped; "
	     "a UTF-16 file is refused with an error saying so, and so is a directory of that name; a line holding a NUL byte is "
	     "not read, with an error naming it; up to 1 MiB) and then from the image's load options (the "
	     "UEFI shell command line or a boot entry's optional data), so load options win. Keys are "
	     "case-sensitive; values are not. An unknown key or a bad value is an `error` record naming the file "
	     "and line (or `load-options`), the key and the reason; the run goes on with the default for that key "
	     "and ends with status `error`.", ctx);
	emit("", ctx);
	emit("| key | default | example | meaning |", ctx);
	emit("| --- | --- | --- | --- |", ctx);
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		snprintf(line, sizeof(line), "| `%s` | `%s` | `%s` | %s |", opts[i].key,
			 opts[i].def[0] ? opts[i].def : "(empty)", opts[i].example, opts[i].help);
		emit(line, ctx);
	}
}
#endif
