/*
 * run/topology_stage.c - the `topology` stage: list the processors, run
 * identification (CPUID) on each one itself, report them, and choose the
 * ones cpus= asks for (run/cpus.h).
 */
#include "run/run.h"
#include "platform/firmware.h"
#include "lib/out.h"
#include "lib/heap.h"
#include "lib/record.h"
#include "lib/x86/cpuid.h"
#include "run/cpus.h"
#include "lib/strbuf.h"

/* A CPUID probe is a few hundred instructions; an AP that takes longer than this is not answering. */
#define PROBE_TIMEOUT_US 100000u

/* From the heap: the table is ~25 KiB and a static one would be carried in the .efi file (lib/heap.h). */
static struct topology *tp;
#define topo (*tp)
static struct rec topo_rec;

const struct topology *run_topology(void) { return tp; }

static void probe_here(void *arg) { topo_probe(arg); }

static void list_cpus(const struct run_mp *mp)
{
	const char *why = NULL;
	size_t count = mp ? mp->count(&why) : 0;

	memset(&topo, 0, sizeof(topo));
	if (count == 0) {
		struct topo_cpu *c = &topo.cpu[0];
		topo.source = "this processor only";
		topo.neighbours = "none listed";
		topo.n = topo.total = 1;
		c->bsp = c->enabled = c->healthy = true;
		c->package = c->die = c->core = c->thread = TOPO_NONE;
		topo_probe(c);
		c->apic_id = c->cpuid_apic_id;
		topo_locate_from_cpuid(c);
		if (mp)
			out_text("topology: the processors cannot be listed (%s); this one only", why);
		return;
	}
	topo.source = mp->source;
	topo.neighbours = mp->neighbours;
	topo.total = count;
	for (size_t i = 0; i < count && topo.n < TOPO_MAX_CPUS; i++) {
		struct topo_cpu *c = &topo.cpu[topo.n];
		memset(c, 0, sizeof(*c));
		c->package = c->die = c->core = c->thread = TOPO_NONE;
		if (!mp->info(i, c)) {
			out_text("topology: processor %zu: the lister gave no information; left out", i);
			continue;
		}
		c->n = (uint32_t)i;
		topo.n++;
	}
	if (count > TOPO_MAX_CPUS)
		out_text("topology: %zu processors; the first %d are listed", count, TOPO_MAX_CPUS);
}

static void probe_all(const struct run_mp *mp)
{
	for (size_t i = 0; i < topo.n; i++) {
		struct topo_cpu *c = &topo.cpu[i];
		const char *why = "";
		if (c->probed)
			continue;
		if (c->bsp) {
			topo_probe(c);
		} else if (!c->enabled) {
			continue;
		} else {
			int rc = mp->run_on(c->n, probe_here, c, PROBE_TIMEOUT_US, &why);
			if (rc != FW_RUN_OK || !c->probed) {
				c->probed = false;
				out_text("topology: processor %u (APIC ID %u): not identified: %s", c->n, c->apic_id,
					 rc == FW_RUN_OK ? "the probe left no answer" : why);
				continue;
			}
		}
		if (c->apic_id == TOPO_NONE)
			c->apic_id = c->cpuid_apic_id;	/* the lister does not know it (Linux) */
		else if (c->cpuid_apic_id != c->apic_id && c->max_leaf >= CPUID_LEAF_SIGNATURE)
			out_text("topology: processor %u: the lister says APIC ID %u, CPUID on it says %u", c->n,
				 c->apic_id, c->cpuid_apic_id);
		topo_locate_from_cpuid(c);
	}
}

/*
 * Where the measuring stages cannot run on another processor, what was
 * chosen shrinks to this one: said as an error when the user asked for
 * other processors, as a note when it is the default (types on a hybrid part).
 */
static void refuse_elsewhere(struct run_env *env, enum cpus_mode mode)
{
	size_t b = cpus_bsp(&topo);
	bool elsewhere = false;

	for (size_t i = 0; i < env->nsel; i++)
		elsewhere |= env->sel[i] != b;
	if (!elsewhere || (env->mp && env->mp->measure_on))
		return;
	const char *why = env->mp && env->mp->why_not ? env->mp->why_not : "this processor is the only one listed";
	if (mode == CPUS_TYPES)
		out_text("cpus: measuring on application processors is not supported yet (%s): the boot "
			 "processor's core type only", why);
	else
		rec_error("cpus", "option", "measuring on application processors is not supported yet: %s; "
			  "measuring on the boot processor only", why);
	env->nsel = 0;
	if (b < topo.n)
		env->sel[env->nsel++] = b;
}

static void choose(struct run_env *env)
{
	static struct cpus_spec spec;
	char why[200], list[160];
	size_t k = 0;

	env->nsel = 0;
	if (!cpus_parse(env->cfg->cpus, strlen(env->cfg->cpus), &spec, why, sizeof(why))) {
		rec_error("cpus", "option", "%s", why);	/* config.c checked it: a caller that did not */
		spec.mode = CPUS_BSP;
	}
	env->nsel = cpus_select(&spec, &topo, env->sel, ARRAY_SIZE(env->sel), why, sizeof(why));
	if (why[0]) {
		if (spec.mode == CPUS_LIST)
			rec_error("cpus", "option", "cpus=%s: %s", env->cfg->cpus, why);
		else
			out_text("cpus: %s", why);
	}
	list[0] = 0;
	for (size_t i = 0; i < env->nsel; i++)
		k = str_appendf(list, sizeof(list), k, "%s%u", i ? ", " : "", topo.cpu[env->sel[i]].n);
	out_text("cpus: cpus=%s chooses processor%s %s", env->cfg->cpus, env->nsel == 1 ? "" : "s",
		 env->nsel ? list : "none");
	refuse_elsewhere(env, spec.mode);
}

void run_topology_stage(struct run_env *env)
{
	if (!tp)
		tp = heap_alloc(sizeof(*tp), _Alignof(struct topology));
	if (!tp) {
		rec_error("topology", "memory", "no room for the processor table (%zu bytes); this processor only",
			  sizeof(*tp));
		env->nsel = 0;
		return;
	}
	list_cpus(env->mp);
	probe_all(env->mp);
	topo_classify(&topo);
	if (env->mp && env->mp->check)
		env->mp->check(&topo);
	choose(env);
	topo_report(&topo, &topo_rec, env->cfg->cpus, env->sel, env->nsel);
}
