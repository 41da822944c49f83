/* pmu/audit/audit_model_host.c - the known-answer loop on the PMU model; see audit_model.h. */
#include "pmu/audit/audit_model.h"
#include "events/events.h"

/*
 * What the loop's trip is made of (pmu/audit/audit_loop.asm): jmp, andps,
 * dec, jnz.  Four instructions, two branches (both taken but the loop's
 * last), one conditional, one packed-SSE logical; in the model it takes
 * AUDIT_MODEL_CYCLES_PER_TRIP cycles on a 4-wide core, so 8 issue slots, of
 * which the 4 instructions retire, 1 is lost to the front end and 3 to the
 * back end (a dependent chain through rdi), none to bad speculation.
 */
#define TRIP_INSTRUCTIONS 4u
#define TRIP_BRANCHES 2u
#define TRIP_TAKEN 2u
#define TRIP_CONDITIONAL 1u
#define TRIP_SSE 1u
#define TRIP_SLOTS 8u
#define TRIP_RETIRING 4u
#define TRIP_FRONTEND 1u
#define TRIP_BACKEND 3u

/* By the vendors' names for the event (perfmon, libpfm4): what a trip adds. */
static const struct {
	const char *name;
	uint32_t per_trip;
} by_name[] = {
	{ "INST_RETIRED.ANY_P", TRIP_INSTRUCTIONS },
	{ "INST_RETIRED.PREC_DIST", TRIP_INSTRUCTIONS },
	{ "INSTRUCTIONS_RETIRED", TRIP_INSTRUCTIONS },
	{ "INST_RETIRED", TRIP_INSTRUCTIONS },
	{ "RETIRED_INSTRUCTIONS", TRIP_INSTRUCTIONS },
	{ "BR_INST_RETIRED.ALL_BRANCHES", TRIP_BRANCHES },
	{ "BR_INST_RETIRED.ANY", TRIP_BRANCHES },
	{ "BRANCH_INSTRUCTIONS_RETIRED", TRIP_BRANCHES },
	{ "BR_INST_RETIRED", TRIP_BRANCHES },
	{ "RETIRED_BRANCH_INSTRUCTIONS", TRIP_BRANCHES },
	{ "BR_INST_RETIRED.NEAR_TAKEN", TRIP_TAKEN },
	{ "RETIRED_TAKEN_BRANCH_INSTRUCTIONS", TRIP_TAKEN },
	{ "BR_INST_RETIRED.COND", TRIP_CONDITIONAL },
	{ "BR_INST_RETIRED.CONDITIONAL", TRIP_CONDITIONAL },
	{ "BR_INST_RETIRED.JCC", TRIP_CONDITIONAL },
	{ "BR_INST_RETIRED.COND_TAKEN_BWD", TRIP_CONDITIONAL },	/* the jnz jumps back to the top */
	{ "RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS", TRIP_CONDITIONAL },
	{ "RETIRED_MMX_FP_INSTRUCTIONS.SSE_INSTR", TRIP_SSE },
	{ "RETIRED_MMX_FP_INSTRUCTIONS.SSE", TRIP_SSE },
	{ "RETIRED_MMX_FP_INSTRUCTIONS.ALL", TRIP_SSE },
	{ "RETIRED_MMX_AND_FP_INSTRUCTIONS.PACKED_SSE_AND_SSE2", TRIP_SSE },
	{ "RETIRED_MMX_AND_FP_INSTRUCTIONS.SSE_AND_SSE2", TRIP_SSE },
	{ "RETIRED_MMX_AND_FP_INSTRUCTIONS.SSE", TRIP_SSE },
	{ "RETIRED_MMX_AND_FP_INSTRUCTIONS.ALL", TRIP_SSE },
	{ "RETIRED_FLOATING_POINT_INSTRUCTIONS.SSE", TRIP_SSE },
	{ "RETIRED_FLOATING_POINT_INSTRUCTIONS.ALL", TRIP_SSE },
	{ "TOPDOWN.SLOTS_P", TRIP_SLOTS },
};

/* Intel's architectural encodings (SDM Vol. 3B Table 20-1) and fixed-counter pseudo-encodings
 * (event 00H, unit mask = counter + 1), which hold on every Intel core whatever its table says. */
static const struct {
	uint8_t event, umask;
	uint32_t per_trip;
} intel_enc[] = {
	{ 0x3C, 0x00, AUDIT_MODEL_CYCLES_PER_TRIP },	/* unhalted core cycles: the model's clock */
	{ 0xC0, 0x00, TRIP_INSTRUCTIONS },
	{ 0xC4, 0x00, TRIP_BRANCHES },
	{ 0xA4, 0x01, TRIP_SLOTS },			/* topdown slots */
	{ 0xC2, 0x02, TRIP_RETIRING },
	{ 0x73, 0x00, 0 },				/* bad speculation */
	{ 0x9C, 0x01, TRIP_FRONTEND },
	{ 0xA4, 0x02, TRIP_BACKEND },
	{ 0x00, 0x01, TRIP_INSTRUCTIONS },		/* fixed counter 0 */
	{ 0x00, 0x04, TRIP_SLOTS },			/* fixed counter 3 */
	{ 0x00, 0x05, 0 },				/* fixed counter 4: bad speculation */
	{ 0x00, 0x06, TRIP_FRONTEND },			/* fixed counter 5 */
	{ 0x00, 0x07, TRIP_RETIRING },			/* fixed counter 6 */
};

/* The clocks of the other vendors' cores: AMD PMCx076, P6 79H. */
#define AMD_CYCLES 0x76
#define P6_CYCLES 0x79

static uint64_t loop_rate(void *ctx, uint16_t event, uint8_t umask)
{
	const struct audit_model_runner *mr = ctx;
	if (mr->amd ? event == AMD_CYCLES : event == P6_CYCLES)
		return AUDIT_MODEL_CYCLES_PER_TRIP;
	for (size_t i = 0; !mr->amd && i < ARRAY_SIZE(intel_enc); i++)
		if (intel_enc[i].event == event && intel_enc[i].umask == umask)
			return intel_enc[i].per_trip;
	struct events_iter it;
	struct event_def def, *d = &def;
	for (events_iter_start(&it, mr->es); events_next(&it, &def);) {
		if (d->event != event || d->umask != umask || d->cmask || d->inv || d->edge || d->fixed_only)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(by_name); k++)
			if (!strcmp(by_name[k].name, d->name))
				return by_name[k].per_trip;
	}
	return 0;	/* the loop does nothing else */
}

static uint64_t run_model(void *ctx, uint64_t trips, const struct count_toggle *start, const struct count_toggle *stop)
{
	struct audit_model_runner *mr = ctx;
	if (start)
		count_toggle_apply(start);
	uint64_t t0 = mr->m->tsc;
	pmu_model_run(mr->m, trips);
	uint64_t t1 = mr->m->tsc;
	if (stop)
		count_toggle_apply(stop);
	return t1 - t0;
}

void audit_model_runner_init(struct audit_model_runner *mr, struct pmu_model *m, const struct cpu_info *ci)
{
	memset(mr, 0, sizeof(*mr));
	mr->m = m;
	mr->amd = ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON;
	mr->es = ci->event_set ? events_set_find(ci->event_set) : NULL;
	mr->runner = (struct audit_runner){ "model", COUNT_PRIV_ALL, run_model, mr };
	m->rate = loop_rate;
	m->rate_ctx = mr;
}
