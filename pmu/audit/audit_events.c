/*
 * pmu/audit/audit_events.c - which encoding each core counts the known-answer
 * events with.
 *
 * Intel: the architectural encodings (SDM Vol. 3B Table 20-1, "UnHalted Core
 * Cycles" 3CH/00H, "Instructions Retired" C0H/00H, "UnHalted Reference
 * Cycles" 3CH/01H, "Branch Instructions Retired" C4H/00H) wherever
 * CPUID.0AH:EBX says the event is there; otherwise, and for the events with a
 * unit mask, the core's own table by name (perfmon, libpfm4: events/vendor/).
 * AMD: the core's table by name (PMCx0C0, PMCx0C2, PMCx076 are the same on
 * every family; PMCx0CB's SSE unit mask is not, so it is found by name).
 * Tables, not code: add a row or a name.
 */
#include "pmu/audit/audit_int.h"
#include "pmu/count/count_sched.h"

#define NO_ARCH (-1)
#define NAMES_MAX 6

struct known_row {
	enum audit_known which;
	bool amd;			/* a row for AMD (and Hygon) cores, else for Intel */
	int arch_bit;			/* Intel architectural event (CPUID.0AH:EBX bit), or NO_ARCH */
	uint32_t per_trip;		/* what a trip of the loop adds (0: a clock, compared, not predicted) */
	bool needs_umask;		/* it proves unit masks work: only a name with a non-zero unit mask will do */
	const char *names[NAMES_MAX];	/* tried in order in the core's table */
};

/* CPUID.0AH:EBX bits (SDM Vol. 3B Table 20-1; pmu/count/count_sched.c holds the encodings). */
#define ARCH_CYCLES 0
#define ARCH_INSTRUCTIONS 1
#define ARCH_BRANCHES 5

static const struct known_row rows[] = {
	{ AK_INSTRUCTIONS, false, ARCH_INSTRUCTIONS, AUDIT_LOOP_INSNS, false,
	  { "INST_RETIRED.ANY_P", "INSTRUCTIONS_RETIRED", "INST_RETIRED" } },
	{ AK_INSTRUCTIONS, true, NO_ARCH, AUDIT_LOOP_INSNS, false, { "RETIRED_INSTRUCTIONS" } },
	{ AK_BRANCHES, false, ARCH_BRANCHES, AUDIT_LOOP_BRANCHES, false,
	  { "BR_INST_RETIRED.ALL_BRANCHES", "BRANCH_INSTRUCTIONS_RETIRED", "BR_INST_RETIRED" } },
	{ AK_BRANCHES, true, NO_ARCH, AUDIT_LOOP_BRANCHES, false, { "RETIRED_BRANCH_INSTRUCTIONS" } },
	/* Lion Cove and later name COND with an extended unit mask (perfmon UMaskExt 01H, PERFEVTSEL
	 * bits 47:40), which the driver does not program: there the taken-backward half of it, which
	 * counts the loop's jnz (it jumps back to the top) as exactly as COND does. */
	{ AK_COND_BRANCHES, false, NO_ARCH, AUDIT_LOOP_COND_BRANCHES, true,
	  { "BR_INST_RETIRED.COND", "BR_INST_RETIRED.CONDITIONAL", "BR_INST_RETIRED.JCC",
	    "BR_INST_RETIRED.COND_TAKEN_BWD" } },
	/* andps is packed SSE: K8 to Family 12h name the packed class, Families 14h and 16h one SSE class. */
	{ AK_SSE, true, NO_ARCH, AUDIT_LOOP_SSE, true,
	  { "RETIRED_MMX_FP_INSTRUCTIONS.SSE_INSTR", "RETIRED_MMX_FP_INSTRUCTIONS.SSE",
	    "RETIRED_MMX_AND_FP_INSTRUCTIONS.PACKED_SSE_AND_SSE2", "RETIRED_MMX_AND_FP_INSTRUCTIONS.SSE_AND_SSE2",
	    "RETIRED_MMX_AND_FP_INSTRUCTIONS.SSE", "RETIRED_FLOATING_POINT_INSTRUCTIONS.SSE" } },
	{ AK_CYCLES, false, ARCH_CYCLES, 0, false, { "CPU_CLK_UNHALTED.CORE_P", "CPU_CLK_UNHALTED" } },
	{ AK_CYCLES, true, NO_ARCH, 0, false, { "CYCLES_NOT_IN_HALT", "CPU_CLK_UNHALTED", "CPU_CLK_NOT_HALTED" } },
};

static const char *const known_what[AK_COUNT] = {
	"instructions retired", "branches retired", "conditional branches retired", "SSE instructions retired",
	"unhalted core cycles",
};

/* The architectural encodings by EBX bit, as the scheduler knows them. */
static bool arch_spec(unsigned bit, struct event_spec *out)
{
	static const struct { uint8_t event, umask; } enc[] = {
		[ARCH_CYCLES] = { 0x3C, 0x00 }, [ARCH_INSTRUCTIONS] = { 0xC0, 0x00 }, [ARCH_BRANCHES] = { 0xC4, 0x00 },
	};
	if (bit >= ARRAY_SIZE(enc) || !enc[bit].event)
		return false;
	memset(out, 0, sizeof(*out));
	out->event = enc[bit].event;
	out->umask = enc[bit].umask;
	out->fixed = EV_NO_FIXED;
	snprintf(out->name, sizeof(out->name), "%s", pmu_arch_event_name(bit) ? pmu_arch_event_name(bit) : "arch");
	/* The scheduler's own view of it, so both agree on what it is. */
	return count_sched_arch_bit(out) == (int)bit;
}

static bool arch_available(const struct pmu_caps *c, int bit)
{
	return c->kind == PMU_INTEL_ARCH && bit >= 0 && bit < c->arch_events_len &&
	       !(c->arch_events_absent & (1u << bit));
}

/*
 * A catalogue event as a general-counter spec (its constraints kept, its fixed counter not).  An
 * event with an extended unit mask is refused here, where the next name can still be tried: the
 * driver does not program PERFEVTSEL's UMASK2 field and would refuse it later (pmu/count/count_sched.c).
 */
static bool named_spec(const struct audit_ctx *a, const char *name, bool needs_umask, struct event_spec *out,
		       const char **why)
{
	char err[128];
	struct event_def def, *d = &def;
	if (!events_find(a->es, name, &def) || d->fixed_only || d->cmask || d->inv || d->edge || d->msr ||
	    (needs_umask && !d->umask))
		return false;
	if (d->umask_ext) {
		static char ext_why[200];
		snprintf(ext_why, sizeof(ext_why), "%.60s has an extended unit mask (perfmon UMaskExt 0x%02x, "
			 "PERFEVTSEL bits 47:40), which the driver does not program", d->name, d->umask_ext);
		if (why)
			*why = ext_why;
		return false;
	}
	if (!event_spec_parse(a->es, a->amd, name, strlen(name), out, err, sizeof(err)))
		return false;
	out->fixed = EV_NO_FIXED;
	return true;
}

bool audit_known_spec(const struct audit_ctx *a, enum audit_known which, struct event_spec *out, uint32_t *per_trip,
		      const char **why)
{
	for (size_t r = 0; r < ARRAY_SIZE(rows); r++) {
		const struct known_row *k = &rows[r];
		if (k->which != which || k->amd != a->amd)
			continue;
		*per_trip = k->per_trip;
		if (arch_available(a->p->caps, k->arch_bit) && arch_spec((unsigned)k->arch_bit, out))
			return true;
		const char *ext_why = NULL;
		for (size_t i = 0; i < NAMES_MAX && k->names[i]; i++)
			if (named_spec(a, k->names[i], k->needs_umask, out, &ext_why))
				return true;
		*why = ext_why ? ext_why :
		       which == AK_COND_BRANCHES || which == AK_SSE ?
			       "this core's event table has no exact retired-instruction event with a unit mask to prove "
			       "unit masks are applied" :
			       "this core's event table has no such event";
		return false;
	}
	*why = "not defined for this vendor";
	return false;
}

const char *audit_known_what(enum audit_known which) { return which < AK_COUNT ? known_what[which] : "?"; }

/*
 * Fixed counters 0 and 1 count the architectural instructions and core cycles (SDM Vol. 3B Table
 * 20-2); later ones have a general-counter form in the core's table where it has one (its Counter
 * column names the fixed counter: TOPDOWN.SLOTS_P for 3, CPU_CLK_UNHALTED.REF_TSC_P for 2 from
 * Goldmont Plus and Golden Cove on).  Fixed counter 2 counts unhalted cycles at the TSC's rate; the
 * general event 3CH/01H counts that only where the table names it REF_TSC_P: elsewhere it is
 * REF_P (133 MHz, Nehalem), REF_XCLK (100 MHz or the crystal clock, Sandy Bridge to Rocket Lake) or
 * bus cycles (Core 2, Bonnell) (perfmon's descriptions; the SDM calls its rate implementation-
 * specific).  So without a REF_TSC_P the reference is the TSC itself: the loop never halts.
 */
static const enum audit_known fixed_known[] = { AK_INSTRUCTIONS, AK_CYCLES };
#define FIXED_REF_TSC 2u

/*
 * Fixed-counter events a known-answer loop barely moves, by the catalogue's name: the loop has no
 * misprediction but its exit, the same in both runs, so the difference is about 0.  Such a counter
 * is held to a bound, and is not asked to cross bit 31 or to wrap.
 */
static const char *const tiny_on_loop[] = { "TOPDOWN_BAD_SPECULATION." };

bool audit_fixed_tiny(const struct audit_ctx *a, unsigned f, const char **name)
{
	struct events_iter it;
	struct event_def def, *d = &def;
	for (events_iter_start(&it, a->es); events_next(&it, &def);) {
		if (d->fixed != (int8_t)f)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(tiny_on_loop); i++)
			if (!strncmp(d->name, tiny_on_loop[i], strlen(tiny_on_loop[i]))) {
				static char found[sizeof(d->name)];
				memcpy(found, d->name, sizeof(found));
				*name = found;
				return true;
			}
	}
	return false;
}

enum audit_fixed_how audit_fixed_pair(const struct audit_ctx *a, unsigned f, struct event_spec *out,
				      uint32_t *per_trip, const char **why)
{
	const char *tiny;
	*per_trip = 0;
	if (audit_fixed_tiny(a, f, &tiny))
		return AF_TINY;
	if (f < ARRAY_SIZE(fixed_known)) {
		if (!audit_known_spec(a, fixed_known[f], out, per_trip, why))
			return AF_NONE;
		if (fixed_known[f] != AK_INSTRUCTIONS) {
			*per_trip = 0;
			return AF_CLOSE;
		}
		return AF_EXACT;
	}
	struct events_iter it;
	struct event_def def, *d = &def;
	for (events_iter_start(&it, a->es); events_next(&it, &def);) {
		if (d->fixed == (int8_t)f && !d->fixed_only && !d->cmask && !d->inv && !d->edge &&
		    named_spec(a, d->name, false, out, NULL))
			return AF_CLOSE;
	}
	if (f == FIXED_REF_TSC)
		return AF_TSC;
	*why = "this core's event table has no general-counter form of its event";
	return AF_NONE;
}

void audit_fixed_spec(unsigned f, struct event_spec *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "fixed%u", f);
	/* Intel's pseudo-encoding: event 00H, unit mask f+1 (SDM Vol. 3B, fixed-function counters). */
	out->event = 0;
	out->umask = (uint8_t)(f + 1);
	out->fixed = (int8_t)f;
	out->fixed_only = true;
}

bool audit_pin_trusted(const struct audit_ctx *a, struct event_spec *ev)
{
	uint32_t trusted = a->view.gp_usable & ~a->v->bad_gp;
	for (unsigned c = 0; c < 32; c++) {
		struct event_spec pinned = *ev;
		if ((trusted & (1u << c)) && audit_pin(&pinned, c)) {
			*ev = pinned;
			return true;
		}
	}
	return false;
}

bool audit_pin(struct event_spec *ev, unsigned c)
{
	uint32_t bit = 1u << c, allowed = ev->counters ? ev->counters : 0xFFFFFFFFu;
	/* With SMT off the scheduler reads the HT-off list instead: both must allow the counter. */
	if (!(allowed & bit) || (ev->counters_htoff && !(ev->counters_htoff & bit)))
		return false;
	ev->counters = bit;
	if (ev->counters_htoff)
		ev->counters_htoff = bit;
	return true;
}
