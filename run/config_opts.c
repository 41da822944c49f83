/* run/config_opts.c - the options as data, and the checks their words get as they are read; see config_int.h. */
#include "run/config_int.h"
#include "bench/plan.h"
#include "bench/instr_choice.h"
#include "bench/ukernel.h"
#include "platform/selftest.h"
#include "lib/heap.h"
#include "lib/strbuf.h"
#include "net/upload_spec.h"
#include "run/cpus.h"

/* The value as given, cut to what fits (an over-long value was already refused or is checked later). */
void config_copy_value(char *out, size_t out_cap, const char *v, size_t len)
{
	size_t n = len < out_cap ? len : out_cap - 1;
	memcpy(out, v, n);
	out[n] = 0;
}

/*
 * A comma-separated list whose every word must pass word_ok (bench=, selftest=): the good words are
 * kept in out, so the rest of a list still runs, and why names the first bad one.
 */
typedef bool (*word_check)(const char *one, char *why, size_t cap);

static bool check_words(word_check word_ok, const char *v, size_t len, char *out, size_t out_cap, char *why,
			size_t cap)
{
	char spec[CONFIG_STR_MAX], one[CONFIG_STR_MAX], one_why[200];
	const char *p, *w;
	size_t wl, k = 0;
	bool ok = true;

	out[0] = 0;
	if (len >= sizeof(spec) || out_cap < len + 1) {
		config_copy_value(out, out_cap, v, len);
		return true;	/* cannot happen: OPT_STR refused it; the stage checks again */
	}
	memcpy(spec, v, len);
	spec[len] = 0;
	p = spec;
	while (lc_next_item(&p, ',', &w, &wl)) {
		size_t n1 = wl < sizeof(one) ? wl : sizeof(one) - 1;	/* wl <= len < sizeof(one) */
		memcpy(one, w, n1);
		one[n1] = 0;
		if (word_ok(one, one_why, sizeof(one_why))) {
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

/* bench=: a word must name a kernel or variant (bench/plan.c decides); `list` is a request, not a name. */
static bool bench_word_ok(const char *one, char *why, size_t cap)
{
	static struct bench_plan plan;	/* BENCH_PLAN_WORDS words: kept off the stack */
	return bench_plan_parse(&plan, one, why, cap);
}

static bool check_bench(const char *v, size_t len, char *out, size_t out_cap, char *why, size_t cap)
{
	return check_words(bench_word_ok, v, len, out, out_cap, why, cap);
}

_Static_assert(CONFIG_KERNEL_NAME_MAX == UK_NAME_MAX, "kernel names: config and kernel files agree");

/*
 * A value that must parse whole (cpus=: run/cpus.c, upload=: net/upload_spec.c); a bad one keeps the
 * previous value.  The parsers' own spec types differ, so each is wrapped to drop its result.
 */
typedef bool (*whole_parser)(const char *v, size_t len, char *why, size_t cap);

static bool parse_cpus(const char *v, size_t len, char *why, size_t cap)
{
	static struct cpus_spec spec;	/* CPUS_LIST_MAX items: kept off the stack */
	return cpus_parse(v, len, &spec, why, cap);
}

static bool parse_instr(const char *v, size_t len, char *why, size_t cap)
{
	static struct instr_choice ch; /* a compiled regex: kept off the stack */
	return instr_choice_parse(&ch, v, len, why, cap);
}

static bool parse_upload(const char *v, size_t len, char *why, size_t cap)
{
	struct upload_spec spec;
	return upload_spec_parse(v, len, &spec, why, cap);
}

static bool check_whole(whole_parser parse, const char *v, size_t len, char *out, size_t out_cap, char *why,
			size_t cap)
{
	out[0] = 0;
	if (!parse(v, len, why, cap))
		return false;
	config_copy_value(out, out_cap, v, len);
	return true;
}

/* selftest=: a word must name a self-test (platform/selftest.h). */
static bool selftest_word_ok(const char *one, char *why, size_t cap)
{
	unsigned mask;
	return selftest_parse(one, &mask, why, cap);
}

static bool check_selftest(const char *v, size_t len, char *out, size_t out_cap, char *why, size_t cap)
{
	return check_words(selftest_word_ok, v, len, out, out_cap, why, cap);
}

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
const char *const *const config_freq_words = freq_words;

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

const struct opt_def config_opts[] = {
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
	{ "instr", OPT_STR, OFF(instr), NULL, 0, 0, "none", DOC("instr=\"^ADD r64\""),
	  DOC("Instruction forms to measure from the kernel pack on the boot medium (`\\pmuboot\\instr.pack`, "
	  "put there by `make usb`, `make iso`, `make netboot`; docs/instr.md, \"In the image\"): `none`, `all` "
	  "(every form this CPU has), a comma-separated list of XED extensions (`BASE,AVX2,SSE4a`: letters, digits "
	  "and `_`, each name with a capital, so that `BASE` is an extension and `^ADD` and `xmm` are not), or "
	  "anything else: a regular expression on "
	  "the form's asm name (lib/regex.h's POSIX ERE subset), quoted where it has a space "
	  "(`instr=\"^ADD r64\"`, or `^ADD.r64`). An extension no form of the pack has is an `error` naming it "
	  "and listing the pack's, and the forms of the others are measured. One `instr` record per form, after "
	  "the benchmarks; first a time estimate from the chosen forms' measurements and the harness's budget, "
	  "then progress lines at the measured rate. A missing or damaged pack is reported and the run goes "
	  "on.") },
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
	  DOC("Kernel loop iterations per run, at least: where the TSC rate is known each variant chooses more, so "
	      "that one run spans 20,000 TSC ticks whatever the kernel's speed (its `bench` record gives the count; "
	      "docs/benchmarks.md). pmuboot-host, which cannot hold interrupts off, cuts a run longer than 50 us "
	      "(`iterations_window`).") },
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
	/* A fleet: the records POSTed to a collector (docs/lab.md, "A fleet"). */
	{ "upload", OPT_STR, OFF(upload), NULL, 0, 0, "", DOC("upload=http://10.0.0.5:8080/api/runs,live"),
	  DOC("Image only: POST the run's records, exactly the lines of the results file from `begin` to `end` "
	  "(JSON Lines, `Content-Type: application/x-ndjson`), to a collector at the end of the run, through the "
	  "firmware's network stack: `http://HOST[:PORT]/PATH` (plain HTTP; the host a name or an IPv4 address). "
	  "Words after the URL, comma-separated: `live` also uploads the records so far after each stage; "
	  "`http` or `tcp4` chooses the firmware's EFI_HTTP_PROTOCOL or pmuboot's own HTTP/1.1 client over "
	  "EFI_TCP4_PROTOCOL (default: the firmware's where it has one, else pmuboot's); `timeout=S` bounds "
	  "the final upload, attempts and waits together (default 30). Failed attempts are retried after 1, 2, "
	  "4 s. The outcome is an `upload` record after `end`; a failed upload is not a run error and the "
	  "results file and serial capture keep everything.") },
	{ "upload_token", OPT_STR, OFF(upload_token), NULL, 0, 0, "", DOC("upload_token=s3cret"),
	  DOC("Sent with every upload as `Authorization: Bearer TOKEN`. The `begin` record shows `(set)`, never "
	  "the token.") },
};
const size_t config_opts_n = ARRAY_SIZE(config_opts);

/*
 * String options whose words are checked against what exists while the
 * option is read, so that a bad word is reported with its file and line.
 */
static const struct {
	const char *key;
	bool (*check)(const char *v, size_t len, char *out, size_t out_cap, char *why, size_t cap);
	whole_parser parse;	/* instead of check: the value must parse whole */
} str_checks[] = {
	{ "bench", check_bench, NULL },
	{ "cpus", NULL, parse_cpus },
	{ "instr", NULL, parse_instr },
	{ "selftest", check_selftest, NULL },
	{ "upload", NULL, parse_upload },
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

void config_note_source(const struct opt_def *o, struct config *c, const char *source)
{
	for (size_t i = 0; i < ARRAY_SIZE(later_checks); i++)
		if (!strcmp(later_checks[i].key, o->key))
			snprintf((char *)c + later_checks[i].source, CONFIG_SOURCE_MAX, "%s", source);
}

/*
 * Writes the words worth keeping to out.  False with why when a word is
 * bad; out then holds the good ones, or "" when none is left.
 */
bool config_check_str(const struct opt_def *o, const char *v, size_t len, char *out, size_t out_cap, char *why,
		      size_t cap)
{
	for (size_t i = 0; i < ARRAY_SIZE(str_checks); i++)
		if (!strcmp(str_checks[i].key, o->key))
			return str_checks[i].parse ? check_whole(str_checks[i].parse, v, len, out, out_cap, why, cap)
						   : str_checks[i].check(v, len, out, out_cap, why, cap);
	config_copy_value(out, out_cap, v, len);
	return true;
}

const struct opt_def *config_opt_find(const char *key, size_t len)
{
	size_t plen = sizeof(KERNEL_KEY_PREFIX) - 1;
	for (size_t i = 0; i < config_opts_n; i++)
		if (config_opts[i].type == OPT_HEX_KERNEL && len > plen && !strncmp(key, KERNEL_KEY_PREFIX, plen))
			return &config_opts[i];
	for (size_t i = 0; i < config_opts_n; i++)
		if (strlen(config_opts[i].key) == len && strncmp(config_opts[i].key, key, len) == 0)
			return &config_opts[i];
	return NULL;
}

