/*
 * pmu/audit/audit_clock.c - the clocks: unhalted cycles, APERF and the TSC
 * agreeing over a timed spin (and the frequency holding from one spin to
 * the next), and Intel's top-down metrics register against its slots.
 */
#include "pmu/audit/audit_int.h"
#include "platform/hw.h"
#include "lib/strbuf.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_intel.h"
#include "pmu/metrics/metrics.h"

/* A spin of 2^21 trips: a few million cycles, a millisecond or two, far beyond the framing. */
#define CLOCK_TRIPS (1u << 21)
/* Cycles and APERF count the same clock: within 0.1%. The frequency holds from spin to spin within 1%
 * (the ledger's rule, docs/benchmarks.md). */
#define CLOCK_HOLD_PERMILLE 10u
#define MILLI 1000
#define MHZ 1000000u
/* PERF_METRICS' level-1 fields are each rounded: their sum may miss 255 by this much. */
#define METRICS_SUM_SLACK PERF_METRICS_L1_FIELDS

/* PERF_METRICS' level-2 bytes and the level-1 byte each is a part of (SDM Vol. 3B "Performance Metrics"). */
static const struct {
	uint8_t byte, parent;
	const char *what;
} level2[] = {
	{ PERF_METRICS_HEAVY_OPS, PERF_METRICS_RETIRING, "heavy operations" },
	{ PERF_METRICS_BR_MISPREDICT, PERF_METRICS_BAD_SPEC, "branch mispredicts" },
	{ PERF_METRICS_FETCH_LAT, PERF_METRICS_FE_BOUND, "fetch latency" },
	{ PERF_METRICS_MEM_BOUND, PERF_METRICS_BE_BOUND, "memory bound" },
};
/* A part may exceed its whole by the two roundings to a 255th. */
#define LEVEL2_SLACK 1

struct spin {
	int64_t cycles, aperf, mperf, ticks;
	bool cycles_ok, aperf_ok;
};

/* One timed spin in its own window; a window an SMI, an NMI or a thermal event disturbed is spun again. */
static bool spin(struct audit_ctx *a, bool counting, bool aperf, struct spin *s, char *err, size_t cap)
{
	uint64_t a0 = 0, a1 = 0, m0 = 0, m1 = 0, counted[COUNT_MAX_EVENTS];
	const struct audit_runner *r = a->p->runner;

	for (unsigned tries = 0; tries <= AUDIT_RETAKE_BUDGET; tries++) {
		struct audit_window aw;
		memset(s, 0, sizeof(*s));
		audit_window_open(a, &aw);
		if (aperf)
			s->aperf_ok = hw_rdmsr(MSR_IA32_MPERF, &m0) == HW_OK && hw_rdmsr(MSR_IA32_APERF, &a0) == HW_OK;
		s->ticks = (int64_t)r->run(r->ctx, CLOCK_TRIPS, counting ? &a->set.start : NULL,
					  counting ? &a->set.stop : NULL);
		if (aperf)
			s->aperf_ok = s->aperf_ok && hw_rdmsr(MSR_IA32_APERF, &a1) == HW_OK &&
				      hw_rdmsr(MSR_IA32_MPERF, &m1) == HW_OK;
		bool ok = !counting || a->cb->read(&a->set, 0, counted, err, cap);
		bool disturbed = audit_window_close(a, &aw, ok && counting && a->smi_at >= 0 ? counted[a->smi_at]
											: LEDGER_NO_SMI_EVENT);
		if (!ok)
			return false;
		if (disturbed) {
			a->retaken++;
			continue;
		}
		s->aperf = (int64_t)(a1 - a0);
		s->mperf = (int64_t)(m1 - m0);
		s->cycles = counting ? (int64_t)counted[0] : 0;
		s->cycles_ok = counting;
		return true;
	}
	snprintf(err, cap, "no clean spin in %u tries: every window was disturbed (%s)", AUDIT_RETAKE_BUDGET + 1,
		 a->disturbance);
	return false;
}

/* Core clocks per TSC tick, in thousandths. */
static int64_t ratio_milli(int64_t clocks, int64_t ticks)
{
	return ticks > 0 ? clocks * MILLI / ticks : 0;
}

/* x and y within permille of the larger; two figures of which one is 0 agree with nothing. */
static bool held(int64_t x, int64_t y, unsigned permille)
{
	if (x <= 0 || y <= 0)
		return false;
	int64_t d = x > y ? x - y : y - x, big = x > y ? x : y;
	return d * MILLI <= big * (int64_t)permille;
}

/* A clock that stood still over a spin (the floor: 0 clocks per tick is no frequency); true when one did. */
static bool stood_still(const struct spin *s, bool counting, bool aperf, struct audit_result *r, size_t *len)
{
	const char *what = s->ticks <= 0 ? "the TSC" : counting && s->cycles <= 0 ? "the cycles counter" :
			   aperf && s->aperf_ok && s->aperf <= 0 ? "APERF" : NULL;
	if (!what)
		return false;
	r->status = AUDIT_FAIL;
	if (!r->has_numbers) {
		r->expected = s->ticks;
		r->got = s->ticks <= 0 ? s->ticks : counting && s->cycles <= 0 ? s->cycles : s->aperf;
		r->has_numbers = true;
	}
	*len = str_appendf(r->why, sizeof(r->why), *len, "%s%s did not move over a spin of %u trips (%lld TSC ticks, "
			   "cycles counter %lld, APERF %lld): a clock that stands still is no frequency",
			   *len ? "; " : "", what, CLOCK_TRIPS, (long long)s->ticks, (long long)s->cycles,
			   (long long)s->aperf);
	return true;
}

void audit_check_clock(struct audit_ctx *a, struct audit_result *r)
{
	struct event_spec ev;
	uint32_t per_trip;
	const char *why = NULL;
	char err[160];
	struct spin s[2];
	uint64_t probe;

	if (a->p->ci->exec == EXEC_EMULATED) {
		snprintf(r->why, sizeof(r->why), "an emulated CPU: its clocks are the host's, not a core's");
		return;
	}
	bool aperf = a->p->caps->aperf_mperf && hw_rdmsr(MSR_IA32_APERF, &probe) == HW_OK &&
		     hw_rdmsr(MSR_IA32_MPERF, &probe) == HW_OK;
	bool counting = a->counting && audit_known_spec(a, AK_CYCLES, &ev, &per_trip, &why);
	memset(&a->set, 0, sizeof(a->set));
	if (counting && audit_pin_trusted(a, &ev)) {
		a->set.ev[a->set.n++] = ev;
		counting = audit_begin(a, err, sizeof(err));
	} else {
		counting = false;
	}
	if (!counting && !aperf) {
		snprintf(r->why, sizeof(r->why), "neither a cycles counter (%s) nor APERF/MPERF (%s) to check",
			 a->counting ? (why ? why : "none usable") : a->counting_why,
			 a->p->caps->aperf_mperf ? "CPUID.06H:ECX[0] is set but the MSRs do not read" : "CPUID.06H:ECX[0] clear");
		return;
	}
	bool ok = spin(a, counting, aperf, &s[0], err, sizeof(err)) && spin(a, counting, aperf, &s[1], err, sizeof(err));
	if (counting)
		audit_end(a);
	memset(&a->set, 0, sizeof(a->set));
	if (!ok) {
		r->status = AUDIT_FAIL;
		snprintf(r->why, sizeof(r->why), "%s", err);
		return;
	}
	r->status = AUDIT_PASS;
	snprintf(r->counter, sizeof(r->counter), "%s%s%s", counting ? "cycles" : "", counting && aperf ? "," : "",
		 aperf ? "aperf" : "");
	size_t len = 0;
	bool still = stood_still(&s[0], counting, aperf, r, &len) || stood_still(&s[1], counting, aperf, r, &len);
	for (int k = 0; !still && k < 2; k++) {
		/* The same clock counted twice: the counter against APERF. */
		if (counting && aperf && s[k].aperf_ok && !held(s[k].cycles, s[k].aperf, MILLI / AUDIT_CLOSE_DIV)) {
			r->status = AUDIT_FAIL;
			r->expected = s[k].aperf;
			r->got = s[k].cycles;
			r->has_numbers = true;
			len = str_appendf(r->why, sizeof(r->why), len, "%sspin %d: the cycles counter counted %lld, APERF %lld "
					  "(more than 0.1%% apart)", len ? "; " : "", k + 1, (long long)s[k].cycles,
					  (long long)s[k].aperf);
		}
	}
	int64_t r0 = ratio_milli(counting ? s[0].cycles : s[0].aperf, s[0].ticks);
	int64_t r1 = ratio_milli(counting ? s[1].cycles : s[1].aperf, s[1].ticks);
	if (!still && !held(r0, r1, CLOCK_HOLD_PERMILLE)) {
		r->status = AUDIT_FAIL;
		if (!r->has_numbers) {
			r->expected = r0;
			r->got = r1;
			r->has_numbers = true;
		}
		len = str_appendf(r->why, sizeof(r->why), len, "%sthe clock moved: %lld.%03lld then %lld.%03lld core clocks "
				  "per TSC tick (more than 1%% apart)", len ? "; " : "", (long long)(r0 / MILLI),
				  (long long)(r0 % MILLI), (long long)(r1 / MILLI), (long long)(r1 % MILLI));
	}
	if (r->status == AUDIT_FAIL) {
		a->v->clock_bad = true;
		snprintf(a->v->clock_why, sizeof(a->v->clock_why), "audit: clock failed: %.130s", r->why);
		return;
	}
	len = (size_t)snprintf(r->detail, sizeof(r->detail), "%lld.%03lld core clocks per TSC tick", (long long)(r1 / MILLI),
			       (long long)(r1 % MILLI));
	if (a->p->tsc_hz)
		len = str_appendf(r->detail, sizeof(r->detail), len, " = %llu MHz",
				  (unsigned long long)((uint64_t)r1 * (a->p->tsc_hz / MHZ) / MILLI));
	if (aperf && s[1].aperf_ok)
		str_appendf(r->detail, sizeof(r->detail), len, "; MPERF %lld.%03lld per TSC tick",
			    (long long)(ratio_milli(s[1].mperf, s[1].ticks) / MILLI),
			    (long long)(ratio_milli(s[1].mperf, s[1].ticks) % MILLI));
	r->expected = r0;
	r->got = r1;
	r->has_numbers = true;
}

/*
 * The PERF_METRICS bytes past level 1 this core has, as a mask of bytes.  No CPUID bit or capability
 * says (Linux keeps it per model: num_topdown_events 8 from Golden Cove and Sapphire Rapids on, 4 on
 * Ice Lake and Tiger Lake); Intel's own TMA table for the core does, by using the level-2 fields in
 * its formulas exactly where the core has them.  0 with why when there is no table to ask.
 */
static uint32_t level2_bytes(const struct audit_ctx *a, const char **why)
{
	static uint16_t ins[512];
	struct metric_input in;
	uint32_t bytes = 0;
	const struct metrics_table *t = metrics_for_cpu(a->p->ci, why);
	if (!t)
		return 0;
	size_t n = metrics_inputs(t, METRICS_ALL, ins, ARRAY_SIZE(ins));
	for (size_t i = 0; i < n && i < ARRAY_SIZE(ins); i++) {
		metrics_input_at(ins[i], &in);
		if (in.kind == METRIC_IN_PERF_METRICS && in.arg >= PERF_METRICS_L1_FIELDS && in.arg < PERF_METRICS_FIELDS)
			bytes |= 1u << in.arg;
	}
	if (!bytes)
		*why = "this core's TMA table uses no level-2 PERF_METRICS field (level 1 only before Golden Cove)";
	return bytes;
}

/* Each level-2 byte no larger than its level-1 parent (rounding aside); false with the reason appended. */
static bool level2_within(uint64_t m, uint32_t bytes, struct audit_result *r, size_t *len, unsigned *checked)
{
	bool ok = true;
	*checked = 0;
	for (size_t i = 0; i < ARRAY_SIZE(level2); i++) {
		if (!(bytes & (1u << level2[i].byte)))
			continue;
		++*checked;
		unsigned part = (unsigned)(m >> (level2[i].byte * PERF_METRICS_FIELD_BITS)) & PERF_METRICS_FULL;
		unsigned whole = (unsigned)(m >> (level2[i].parent * PERF_METRICS_FIELD_BITS)) & PERF_METRICS_FULL;
		if (part <= whole + LEVEL2_SLACK)
			continue;
		ok = false;
		*len = str_appendf(r->why, sizeof(r->why), *len, "%sPERF_METRICS byte %u (%s) is %u/255, more than its "
				   "level-1 byte %u (%u/255)", *len ? "; " : "", level2[i].byte, level2[i].what, part,
				   level2[i].parent, whole);
	}
	return ok;
}

void audit_check_topdown(struct audit_ctx *a, struct audit_result *r)
{
	const struct pmu_caps *c = a->p->caps;
	struct event_spec fx, gpev;
	uint32_t per_trip;
	const char *why = NULL;
	char err[160];
	int64_t diff[COUNT_MAX_EVENTS], ticks;
	const unsigned slots_fixed = 3;

	if (c->kind != PMU_INTEL_ARCH) {
		snprintf(r->why, sizeof(r->why), "no top-down metrics register: an Intel P-core feature (Ice Lake on)");
		return;
	}
	if (!c->perf_caps_read) {
		snprintf(r->why, sizeof(r->why), "IA32_PERF_CAPABILITIES is not known here (%s)",
			 c->perf_caps_reason ? c->perf_caps_reason : "unreadable");
		return;
	}
	if (!c->perf_metrics) {
		snprintf(r->why, sizeof(r->why), "IA32_PERF_CAPABILITIES.PERF_METRICS (bit 15) is clear: no metrics "
			 "register");
		return;
	}
	if (!(a->view.fixed_usable & (1u << slots_fixed))) {
		snprintf(r->why, sizeof(r->why), "fixed counter 3 (TOPDOWN.SLOTS) is not enumerated or is in use");
		return;
	}
	memset(&a->set, 0, sizeof(a->set));
	audit_fixed_spec(slots_fixed, &fx);
	a->set.ev[a->set.n++] = fx;
	bool paired = audit_fixed_pair(a, slots_fixed, &gpev, &per_trip, &why) == AF_CLOSE && audit_pin_trusted(a, &gpev);
	if (paired)
		a->set.ev[a->set.n++] = gpev;
	a->set.metrics = true;
	snprintf(r->counter, sizeof(r->counter), "fixed3,perf_metrics");
	bool ok = audit_begin(a, err, sizeof(err)) && audit_sample(a, diff, &ticks, err, sizeof(err));
	uint64_t m = 0;
	ok = ok && hw_rdmsr(MSR_IA32_PERF_METRICS, &m) == HW_OK;
	audit_end(a);
	a->set.metrics = false;
	if (!ok) {
		r->status = AUDIT_FAIL;
		snprintf(r->why, sizeof(r->why), "%s", err[0] ? err : "IA32_PERF_METRICS could not be read");
		audit_blame(a, r, true, slots_fixed);
		return;
	}
	int64_t sum = 0;
	for (unsigned i = 0; i < PERF_METRICS_L1_FIELDS; i++)
		sum += (int64_t)((m >> (i * PERF_METRICS_FIELD_BITS)) & PERF_METRICS_FULL);
	r->status = AUDIT_PASS;
	r->expected = PERF_METRICS_FULL;
	r->got = sum;
	r->has_numbers = true;
	size_t len = 0;
	if (sum < (int64_t)PERF_METRICS_FULL - METRICS_SUM_SLACK || sum > (int64_t)PERF_METRICS_FULL + METRICS_SUM_SLACK) {
		r->status = AUDIT_FAIL;
		len = str_appendf(r->why, sizeof(r->why), len, "the level-1 fractions of PERF_METRICS (0x%llx) sum to %lld, "
				  "not 255", (unsigned long long)m, (long long)sum);
	}
	const char *l2_why = NULL;
	unsigned l2_checked = 0;
	uint32_t l2 = level2_bytes(a, &l2_why);
	if (!level2_within(m, l2, r, &len, &l2_checked))
		r->status = AUDIT_FAIL;
	if (diff[0] <= 0) {
		r->status = AUDIT_FAIL;
		len = str_appendf(r->why, sizeof(r->why), len, "%sTOPDOWN.SLOTS counted %lld on fixed counter 3 over %u "
				  "trips of the loop", len ? "; " : "", (long long)diff[0], AUDIT_EXTRA_TRIPS);
	} else if (paired && diff[0] != diff[1] && (diff[0] - diff[1] > diff[1] / AUDIT_CLOSE_DIV + 1 ||
						    diff[1] - diff[0] > diff[1] / AUDIT_CLOSE_DIV + 1)) {
		r->status = AUDIT_FAIL;
		len = str_appendf(r->why, sizeof(r->why), len, "%sTOPDOWN.SLOTS counted %lld on fixed counter 3, %lld on %s",
				  len ? "; " : "", (long long)diff[0], (long long)diff[1], gpev.name);
	}
	if (r->status == AUDIT_FAIL) {
		audit_blame(a, r, true, slots_fixed);
		return;
	}
	len = (size_t)snprintf(r->detail, sizeof(r->detail), "level-1 fractions sum to %lld of 255%s", (long long)sum,
			       paired ? "; slots agree with the general counter" : "");
	if (l2_checked)
		str_appendf(r->detail, sizeof(r->detail), len, "; %u level-2 bytes within their level-1 parents",
			    l2_checked);
	len = 0;
	if (!paired)
		len = str_appendf(r->why, sizeof(r->why), len, "slots not compared with a general counter: %s",
				  why ? why : "no counter may count its general form");
	if (!l2_checked)
		str_appendf(r->why, sizeof(r->why), len, "%slevel-2 bytes not checked: %s", len ? "; " : "",
			    l2_why ? l2_why : "none here");
}
