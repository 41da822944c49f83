/* run/run.c - the stage table; see run.h. */
#include "run/run.h"
#include "bench/suite.h"
#include "kernel/activity.h"
#include "kernel/selftest.h"
#include "kernel/timing.h"
#include "lib/out.h"
#include "run/ibs_stage.h"
#include "pmu/count/count.h"

struct stage {
	const char *name;
	void (*run)(struct run_env *env);
};

/* One record buffer for the stages' records (REC_MAX bytes: kept off the stack). */
static struct rec stage_rec;

static void stage_identify(struct run_env *env)
{
	cpu_identify(&env->cpu);
	cpu_report(&env->cpu, &stage_rec);
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

/* Last: every MSR the counting code wrote goes back as found (the fault path calls count_restore too). */
static void stage_restore(struct run_env *env)
{
	(void)env;
	count_restore();
}

/* IBS beside the benchmarks (an observer for the bench stage), or its absence reported once. */
static void stage_ibs(struct run_env *env)
{
	if (env->nobservers == BENCH_MAX_OBSERVERS) {
		rec_error("ibs", "observers", "no room for another benchmark observer (BENCH_MAX_OBSERVERS %d)",
			  BENCH_MAX_OBSERVERS);
		return;
	}
	if (ibs_setup(&env->cpu, &env->caps, env->cfg, env->image, &env->observers[env->nobservers]))
		env->nobservers++;
}

/* The `timing` record, in every run: TSC frequency, its source and error, core/TSC calibration. */
static void stage_timing(struct run_env *env)
{
	timing_report(timing_init(env->cpu.exec));
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
	struct bench_params p = {
		.bench = c->bench,
		.events = c->events,
		.iterations = c->iterations,
		.reps = c->reps,
		.warmup = c->warmup,
		.pages = c->arena_page == ARENA_4K   ? BENCH_PAGES_4K
			 : c->arena_page == ARENA_2M ? BENCH_PAGES_2M
						     : BENCH_PAGES_4K | BENCH_PAGES_2M,
		.image = env->image,
		.cpu = &env->cpu,
		.observers = env->observers,
		.nobservers = env->nobservers,
		.listener = env->bench_listener,
	};
	bench_stage(&p);
}

static const struct stage stages[] = {
	{ "identify", stage_identify },
	{ "topology", run_topology_stage },
	{ "timing", stage_timing },
	{ "selftest", stage_selftest },
	{ "pmu", stage_pmu },
	{ "ibs", stage_ibs },
	{ "bench", stage_bench },
	{ "restore", stage_restore },
};

void run_stages(struct run_env *env)
{
	for (size_t i = 0; i < ARRAY_SIZE(stages); i++) {
		activity_set(stages[i].name);
		stages[i].run(env);
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
