/* bench/run.c - the stage table; see run.h. */
#include "run.h"
#include "suite.h"
#include "../lib/out.h"

struct stage {
	const char *name;
	void (*run)(struct run_env *env);
};

/* One record buffer for the stages' records (8 KiB: not on the stack). */
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
	rec_start(r, "pmu");
	pmu_caps_fields(r, &env->caps);
	rec_emit(r);
	pmu_caps_summary(&env->caps);
}

static const struct stage stages[] = {
	{ "identify", stage_identify },
	{ "pmu", stage_pmu },
	{ "bench", bench_stage },
};

void run_stages(struct run_env *env)
{
	for (size_t i = 0; i < ARRAY_SIZE(stages); i++)
		stages[i].run(env);
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
