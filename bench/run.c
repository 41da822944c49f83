/* bench/run.c - the stage table; see run.h. */
#include "run.h"
#include "suite.h"
#include "../lib/out.h"

struct stage {
	const char *name;
	void (*run)(struct run_env *env);
};

static void stage_identify(struct run_env *env)
{
	cpu_identify(&env->cpu);
	cpu_report(&env->cpu);
}

static const struct stage stages[] = {
	{ "identify", stage_identify },
	{ "bench", bench_stage },
};

void run_stages(struct run_env *env)
{
	for (size_t i = 0; i < ARRAY_SIZE(stages); i++)
		stages[i].run(env);
}
