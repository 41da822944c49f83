/* pmu/audit/audit_model_host.c - the known-answer loop on the PMU model; see audit_model.h. */
#include "pmu/audit/audit_model.h"
#include "events/events.h"
#include "pmu/count/pmu_oracle.h"

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

/* What a trip adds to an event that counts each kind the vendors' descriptions name (pmu_oracle.h):
 * the jnz is a taken backward conditional branch, the jmp a taken unconditional one; nothing is
 * mispredicted, nothing waits on memory, nothing is a multi-uop instruction. */
static const uint32_t per_trip[PO_COUNTS_N] = {
	[PO_INSTRUCTIONS] = TRIP_INSTRUCTIONS,
	[PO_BRANCHES] = TRIP_BRANCHES,
	[PO_TAKEN_BRANCHES] = TRIP_TAKEN,
	[PO_COND_BRANCHES] = TRIP_CONDITIONAL,
	[PO_COND_TAKEN] = TRIP_CONDITIONAL,
	[PO_COND_TAKEN_BWD] = TRIP_CONDITIONAL,
	[PO_SSE] = TRIP_SSE,
	[PO_MMX_FP_ALL] = TRIP_SSE,
	[PO_CORE_CLOCKS] = AUDIT_MODEL_CYCLES_PER_TRIP,
	[PO_SLOTS] = TRIP_SLOTS,
	[PO_TD_RETIRING] = TRIP_RETIRING,
	[PO_TD_FE_BOUND] = TRIP_FRONTEND,
	[PO_TD_BE_BOUND] = TRIP_BACKEND,
};

/*
 * The fallback event sets (intel_arch, amd_legacy) have no vendor file, so no oracle rows: their
 * events are the SDM's architectural encodings (Vol. 3B Table 20-1) and the events AMD's BKDG 26094
 * gives every family since K8 (PMCx0C0 retired instructions, PMCx0C2 retired branches).
 */
static const struct {
	bool amd;
	uint16_t event;
	uint8_t umask;
	uint8_t counts;
} fallback[] = {
	{ false, 0x3C, 0x00, PO_CORE_CLOCKS }, { false, 0xC0, 0x00, PO_INSTRUCTIONS }, { false, 0xC4, 0x00, PO_BRANCHES },
	{ false, 0x00, 0x01, PO_INSTRUCTIONS }, { false, 0x00, 0x02, PO_CORE_CLOCKS },
	{ true, 0x76, 0x00, PO_CORE_CLOCKS }, { true, 0xC0, 0x00, PO_INSTRUCTIONS }, { true, 0xC2, 0x00, PO_BRANCHES },
};

static uint64_t loop_rate(void *ctx, uint16_t event, uint8_t umask)
{
	const struct audit_model_runner *mr = ctx;
	/* Intel's fixed counters come as event 00H, unit mask counter + 1 (AMD has none). */
	int fixed = !mr->amd && event == 0 && umask ? umask - 1 : -1;
	const char *set = mr->es ? mr->es->key : NULL;
	if (pmu_oracle_has_set(set)) {
		const struct pmu_oracle_row *o = pmu_oracle_find(set, fixed, event, umask, 0, false);
		return o ? per_trip[o->counts] : 0;	/* the loop does nothing else */
	}
	for (size_t i = 0; i < ARRAY_SIZE(fallback); i++)
		if (fallback[i].amd == mr->amd && fallback[i].event == event && fallback[i].umask == umask)
			return per_trip[fallback[i].counts];
	return 0;
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
