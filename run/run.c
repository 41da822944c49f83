/* run/run.c - the stage table; see run.h. */
#include "run/run.h"
#include "bench/stage.h"
#include "platform/activity.h"
#include "platform/selftest.h"
#include "platform/timing.h"
#include "lib/out.h"
#include "run/ibs_stage.h"
#include "pmu/count/count.h"
#include "platform/firmware.h"
#include "lib/record.h"
#include "run/cpus.h"
#include "platform/arena.h"
#include "platform/guard.h"
#include "pmu/ibs/ibs.h"
#include "pmu/freq/freq.h"
#include "cpu/cache.h"
#include "lib/heap.h"
#include "events/events.h"
#include "pmu/metrics/metrics.h"

#define US_PER_S 1000000ull
#define MILLI 1000u
#define PPM 1000000ull		/* the ledger's frequency reference is APERF/MPERF in millionths */

struct stage {
	const char *name;
	void (*run)(struct run_env *env);
};

/* One record buffer for the stages' records (REC_MAX bytes: kept off the stack). */
static struct rec stage_rec;

static void stage_identify(struct run_env *env)
{
	static struct cache_info *cache;	/* heap: the image's stack is the firmware's, its static storage file bytes */
	cpu_identify(&env->cpu);
	cpu_report(&env->cpu, &stage_rec);
	/* The caches of this core; inside a pass (the topology is known then) the record carries its processor. */
	if (!cache && !(cache = heap_alloc(sizeof(*cache), sizeof(uint64_t)))) {
		rec_error("identify", "cache", "no room on the heap for the cache geometry (%zu bytes)", sizeof(*cache));
		return;
	}
	cache_identify(&env->cpu, cache);
	cache_report(cache, &stage_rec, run_topology() == NULL, -1);
}

static void stage_pmu(struct run_env *env)
{
	struct rec *r = &stage_rec;

	pmu_caps_detect(&env->cpu, &env->caps);
	struct count_opts opts = { .force = env->cfg->force_counters, .verbose = env->cfg->verbose };
	count_init(&env->cpu, &env->caps, &opts, NULL, 0);
	rec_start(r, "pmu");
	pmu_caps_fields(r, &env->caps);
	count_state_fields(r);
	rec_emit(r);
	pmu_caps_summary(&env->caps);
	count_summary();
}

/* Known-answer checks of the counters just initialised, before anything is measured with them. */
static void stage_audit(struct run_env *env)
{
	const struct timing_info *t = timing_get();
	/* Where the run owns the processor it clears its thermal logs; a Linux process leaves them to the kernel. */
	struct ledger_opts lo = { .clear_logs = hw_platform()->owns_machine };
	ledger_init_opts(&env->ledger, &env->cpu, &env->caps, &lo);
	/* A clock pinned and proven (freq=) is the reference every window's APERF/MPERF must hold to. */
	const struct freq_result *fr = freq_result();
	uint64_t mperf_mhz = t && fr ? t->tsc_hz / US_PER_S * fr->mperf_per_tsc_milli / MILLI : 0;
	if (fr && fr->pinned && fr->judged && fr->held && mperf_mhz)
		ledger_pin_reference(&env->ledger, (uint64_t)fr->asked_mhz * PPM / mperf_mhz, "freq=");
	struct audit_params p = {
		.ci = &env->cpu,
		.caps = &env->caps,
		/* At ring 0 the start and stop writes go right around the loop; a process makes them through
		 * hw_wrmsr (/dev/cpu/N/msr) and counts user mode only. */
		.runner = hw_platform()->ring0 ? &audit_runner_ring0 : &audit_runner_process,
		.runner_why = "this platform gives no way to run the known-answer loop",
		.tsc_hz = t ? t->tsc_hz : 0,
		.ledger = &env->ledger,
	};
	audit_run(&p, &env->audit);
}

/* Last: every MSR the counting code and the clock wrote goes back as found (the fault path does it too). */
static void stage_restore(struct run_env *env)
{
	(void)env;
	count_restore();
	freq_restore();
}


/* IBS beside the benchmarks (an observer for the bench stage), or its absence reported once. */
static void stage_ibs(struct run_env *env)
{
	if (env->nobservers == BENCH_MAX_OBSERVERS) {
		rec_error("ibs", "observers", "no room for another benchmark observer (BENCH_MAX_OBSERVERS %d)",
			  BENCH_MAX_OBSERVERS);
		return;
	}
	if (ibs_setup(&env->cpu, &env->caps, env->cfg, &env->observers[env->nobservers]))
		env->nobservers++;
}

/* freq= and boost= as pmu/freq takes them; the config's enums are in its order. */
_Static_assert((int)FREQ_SEL_BASE == (int)FREQ_ASK_BASE && (int)FREQ_SEL_MHZ == (int)FREQ_ASK_MHZ &&
		       (int)BOOST_SEL_ON == (int)FREQ_BOOST_ON && (int)BOOST_SEL_OFF == (int)FREQ_BOOST_OFF,
	       "run/config.h's freq= and boost= enums follow pmu/freq/freq.h's");
static struct freq_opts clock_opts(const struct run_env *env)
{
	const struct config *c = env->cfg;
	return (struct freq_opts){ (enum freq_ask)c->freq.sel, c->freq.mhz, (enum freq_boost)c->boost,
				   hw_platform()->owns_machine ? NULL
							: "pmuboot-host leaves the clock to Linux's cpufreq driver "
							  "(cpupower frequency-set pins it there)" };
}

static bool measured_here_only(const struct run_env *env, const struct topology *t);

/*
 * The `timing` record, in every run: TSC frequency, its source and error, core/TSC calibration.
 * When the first measuring pass is this processor's, its clock is pinned first (freq=), so the
 * figures are taken at it; other processors pin theirs at the start of their pass (pass_here).
 */
static void stage_timing(struct run_env *env)
{
	const struct topology *t = run_topology();
	struct freq_opts o = clock_opts(env);
	if (measured_here_only(env, t) || (env->sel[0] < t->n && t->cpu[env->sel[0]].bsp))
		freq_pin(&env->cpu, &o);
	else
		freq_skip(&o, "each measured processor pins its own clock at the start of its pass");
	const struct timing_info *ti = timing_init(env->cpu.exec);
	freq_prove(ti->tsc_hz);
	timing_report(ti);
}

/* The image's runtime record and self-tests; the host can only say it cannot run them. */
static void stage_selftest(struct run_env *env)
{
	if (env->selftest)
		env->selftest(env->cfg->selftest);
	else
		selftest_skip(env->cfg->selftest, "self-tests exercise the bare-metal runtime: image only");
}

static void stage_bench(struct run_env *env)
{
	const struct config *c = env->cfg;
	struct ukernel_hex hex[CONFIG_HEX_KERNELS];
	for (uint32_t i = 0; i < c->n_hex_kernels && i < CONFIG_HEX_KERNELS; i++)
		hex[i] = (struct ukernel_hex){ c->hex_kernels[i].name, c->hex_kernels[i].hex };
	struct bench_params p = {
		.bench = c->bench,
		.events = c->events,
		.events_source = c->events_source[0] ? c->events_source : NULL,
		.iterations = c->iterations,
		.reps = c->reps,
		.warmup = c->warmup,
		.pages = c->arena_page == ARENA_4K   ? BENCH_PAGES_4K
			 : c->arena_page == ARENA_2M ? BENCH_PAGES_2M
						     : BENCH_PAGES_4K | BENCH_PAGES_2M,
		.cpu = &env->cpu,
		.observers = env->observers,
		.nobservers = env->nobservers,
		.ledger = env->audit.ran ? &env->ledger : NULL,
		.audit = env->audit.ran ? &env->audit : NULL,
		.kernel_files = env->kernel_files,
		.nkernel_files = env->nkernel_files,
		.kernel_hex = hex,
		.nkernel_hex = c->n_hex_kernels,
		.kernel_unroll = c->kernel_unroll,
		.kernel_timeout_ms = c->kernel_timeout_ms,
		.instr = c->instr,
		.instr_pack = env->instr_pack,
		.disasm = env->disasm,
		.topology = run_topology(),
		/* Owning the machine, the run parks every other processor around each pass; a process shares it. */
		.siblings_busy = hw_platform()->owns_machine		 ? NULL
				 : env->mp && env->mp->neighbours ? env->mp->neighbours
								  : "an operating system schedules them",
	};
	bench_stage(&p);
}

static const struct stage stages[] = {
	{ "identify", stage_identify },
	{ "topology", run_topology_stage },
	{ "timing", stage_timing },
	{ "selftest", stage_selftest },
	{ "pmu", stage_pmu },
	{ "audit", stage_audit },
	{ "ibs", stage_ibs },
	{ "bench", stage_bench },
	{ "restore", stage_restore },
};

/* The stages from `pmu` on measure; with cpus= they run once on each chosen processor. */
#define FIRST_MEASURING "pmu"

struct pass {
	struct run_env *env;
	size_t first;
	bool again_identify;
	bool elsewhere;		/* on a processor other than the boot CPU */
};

static void after_stage(const struct run_env *env, const char *name)
{
	if (env->after_stage)
		env->after_stage(name);
}

static void run_from(struct run_env *env, size_t first)
{
	for (size_t i = first; i < ARRAY_SIZE(stages); i++) {
		activity_set(stages[i].name);
		stages[i].run(env);
		after_stage(env, stages[i].name);
	}
}

/* On the chosen processor: who it is (its own identification and event set), then the measuring stages. */
static void pass_here(void *arg)
{
	struct pass *p = arg;
	p->env->nobservers = 0;
	if (p->again_identify) {
		struct freq_opts o = clock_opts(p->env);
		stage_identify(p->env);
		/* Its clock pinned first (freq=), then core cycles per TSC tick, this core's own (a hybrid
		 * part's E-core runs at another clock). */
		freq_pin(&p->env->cpu, &o);
		const struct timing_info *t = timing_recalibrate();
		freq_prove(t->tsc_hz);
		timing_report(t);
	}
	if (p->elsewhere && p->env->pass_selftest)
		p->env->pass_selftest(p->env->cfg->selftest);
	run_from(p->env, p->first);
}

void run_after_fault(void)
{
	ibs_ctl_shutdown();
	count_restore();
	freq_restore();
}

/* After a fault in a pass on another processor, on that processor: its MSRs back as found. */
static void pass_cleanup(void *arg)
{
	(void)arg;
	run_after_fault();
}

/*
 * The benchmark arenas and the code pages of user kernels exist before a
 * pass elsewhere: another processor may not ask the firmware for memory,
 * and it runs on the page tables the boot CPU built for the arenas
 * (platform/metal/ap.h).  Once made, they serve every later pass.
 */
static void prepare_elsewhere(const struct config *c)
{
	char why[160];
	struct arena a;
	if (c->arena_page != ARENA_2M && !arena_get(ARENA_PAGE_4K, &a, why, sizeof(why)))
		out_text("cpus: no 4 KiB arena for the other processors: %s", why);
	if (c->arena_page != ARENA_4K && !arena_get(ARENA_PAGE_2M, &a, why, sizeof(why)))
		out_text("cpus: no 2 MiB arena for the other processors: %s", why);
	if (!hw_xmem_prepare(why, sizeof(why)))
		out_text("cpus: no code pages for user kernels on the other processors: %s", why);
}

/* The pass record's outcome. */
static const char *pass_outcome(int rc, bool faulted)
{
	return rc == FW_RUN_OK ? (faulted ? "fault" : "measured") : rc == FW_RUN_TIMEOUT ? "timeout" : "not run";
}

/* The `pass` record: where the measuring stages ran, how it ended, what the other processors did. */
static void pass_record(const struct topo_cpu *c, int rc, const struct run_pass *rp)
{
	struct rec *r = &stage_rec;
	/* Declared by the pass before it stopped answering (selftest=aphang): not a run error. */
	const char *expected = activity_hang_expected();
	if (rc != FW_RUN_TIMEOUT)
		expected = NULL;
	rec_start(r, "pass");
	rec_str(r, "outcome", pass_outcome(rc, rp->faulted));
	rec_str(r, "why", rp->why);
	rec_str(r, "expected_because", expected);
	rec_bool(r, "boot_processor", c->bsp);
	rec_str(r, "neighbours", rp->neighbours);
	rec_emit(r);
	if (expected)
		out_text("cpus: processor %u (APIC ID %u): %s; EXPECTED, not a run error: %s", c->n, c->apic_id,
			 rp->why, expected);
	else if (rc != FW_RUN_OK)
		rec_error("cpus", "pass", "processor %u (APIC ID %u): %s; skipped", c->n, c->apic_id,
			  rp->why ? rp->why : "no reason given");
	else if (rp->faulted)
		out_text("cpus: processor %u (APIC ID %u): the pass ended with a fault (see the fault record); its "
			 "MSRs were restored there and the run goes on", c->n, c->apic_id);
}

/* One processor known, or no way to run elsewhere (then the choice was cut to this one): run here. */
static bool measured_here_only(const struct run_env *env, const struct topology *t)
{
	return !t || t->n < 2 || env->nsel == 0 || !env->mp || !env->mp->measure_on;
}

static void run_measuring(struct run_env *env, size_t first)
{
	const struct topology *t = run_topology();
	struct cpu_info boot_cpu = env->cpu;
	uint64_t pass_timeout_us = (uint64_t)env->cfg->pass_timeout_s * US_PER_S;

	if (measured_here_only(env, t)) {
		if (t && env->nsel == 1 && env->sel[0] < t->n)
			rec_set_cpu(true, t->cpu[env->sel[0]].n, t->cpu[env->sel[0]].apic_id);
		run_from(env, first);
		rec_set_cpu(false, 0, 0);
		return;
	}
	for (size_t k = 0; k < env->nsel; k++) {
		const struct topo_cpu *c = &t->cpu[env->sel[k]];
		struct pass p = { env, first, !(k == 0 && c->bsp), !c->bsp };
		static struct run_pass rp;
		char who[64];
		snprintf(who, sizeof(who), "processor %u (APIC ID %u)", c->n, c->apic_id);
		out_text("cpus: measuring on %s, %s", who, c->uarch ? c->uarch : "not identified");
		rec_set_cpu(true, c->n, c->apic_id);
		memset(&rp, 0, sizeof(rp));
		rp.body = pass_here;
		rp.cleanup = pass_cleanup;
		rp.arg = &p;
		rp.who = who;
		rp.exec = boot_cpu.exec;
		rp.park = env->cfg->park;
		if (!c->bsp)
			prepare_elsewhere(env->cfg);
		int rc = env->mp->measure_on(c->n, &rp, pass_timeout_us);
		if (rc == FW_RUN_TIMEOUT) {
			ibs_ctl_forget();
			count_forget();
			freq_forget();
		} else if (rc != FW_RUN_OK && c->bsp) {
			freq_restore();	/* the timing stage pinned this, the boot processor, for a pass that never ran */
		}
		pass_record(c, rc, &rp);
		rec_set_cpu(false, 0, 0);
		after_stage(env, "pass");
	}
	/* What the run finishes with (boot/finish.c) is the boot processor's. */
	env->cpu = boot_cpu;
}

void run_stages(struct run_env *env)
{
	for (size_t i = 0; i < ARRAY_SIZE(stages); i++) {
		if (strcmp(stages[i].name, FIRST_MEASURING) == 0) {
			/* The event catalogue and the metric tables are inflated into the heap at first use; the
			 * heap has no locking and is the boot processor's, and a pass may run elsewhere (cpus=). */
			events_ready();
			metrics_ready();
			run_measuring(env, i);
			return;
		}
		activity_set(stages[i].name);
		stages[i].run(env);
		after_stage(env, stages[i].name);
	}
}

bool run_stage(struct run_env *env, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(stages); i++) {
		if (strcmp(stages[i].name, name) == 0) {
			stages[i].run(env);
			return true;
		}
	}
	return false;
}

size_t run_stage_count(void) { return ARRAY_SIZE(stages); }
const char *run_stage_name(size_t i) { return i < ARRAY_SIZE(stages) ? stages[i].name : NULL; }
