/*
 * pmu/audit/audit_count.c - the counting checks: instructions and branches
 * exact on every counter, the counters agreeing with each other, and each
 * fixed counter against a general counter with its event.
 */
#include "pmu/audit/audit_int.h"
#include "lib/strbuf.h"

/* What each event of a->set should have counted in the long run's extra trips (0: compare, not predict). */
struct expect {
	int64_t want[COUNT_MAX_EVENTS];
	bool exact[COUNT_MAX_EVENTS];
	bool umask_proof[COUNT_MAX_EVENTS];	/* a failure means unit masks, not this counter */
};

static void add(struct audit_ctx *a, struct expect *x, const struct event_spec *ev, uint32_t per_trip, bool proof)
{
	size_t i = a->set.n++;
	a->set.ev[i] = *ev;
	x->want[i] = (int64_t)per_trip * AUDIT_EXTRA_TRIPS;
	x->exact[i] = per_trip != 0;
	x->umask_proof[i] = proof;
}

static void fresh(struct audit_ctx *a, struct expect *x)
{
	memset(&a->set, 0, sizeof(a->set));
	memset(x, 0, sizeof(*x));
	a->smi_at = -1;
}

/*
 * |got - want| within 1/AUDIT_CLOSE_DIV of want (and one count, for tiny figures).  A reference
 * that counted nothing agrees with nothing: 0 against 0 is no measurement, never a pass.
 */
static bool close_to(int64_t got, int64_t want)
{
	if (want <= 0)
		return false;
	int64_t d = got - want, slack = want / AUDIT_CLOSE_DIV + 1;
	return d <= slack && d >= -slack;
}

/*
 * A counter the loop barely moves (bad speculation: no misprediction but the exit, the same in both
 * runs) passes when its difference stays within about one count per 100 extra trips.
 */
#define TINY_PER_TRIPS 100
#define TINY_BOUND ((int64_t)AUDIT_EXTRA_TRIPS / TINY_PER_TRIPS)

/*
 * REF_TSC against the TSC: fixed counter 2 advances in steps of the TSC's ratio to the clock it is
 * derived from (the crystal, or the bus clock: tens to a few hundred ticks), so it is compared over
 * a long run, 2^21 extra trips (millions of ticks, like the clock check's spins), where two steps
 * are far inside 0.1%.
 */
#define REF_TSC_EXTRA_TRIPS (1u << 21)

static void fail_text(struct audit_result *r, const char *counter, const char *what, int64_t want, int64_t got)
{
	size_t len = strlen(r->why);
	if (!r->has_numbers) {
		snprintf(r->counter, sizeof(r->counter), "%s", counter);
		r->expected = want;
		r->got = got;
		r->has_numbers = true;
	}
	str_appendf(r->why, sizeof(r->why), len, "%s%s counted %lld %s (expected %lld)", len ? "; " : "", counter,
		    (long long)got, what, (long long)want);
}

/*
 * Run a->set for AUDIT_SAMPLES clean samples and hold every event to x.
 * Returns false when it could not be run (r says why, status absent or
 * fail); otherwise r is pass or fail and the verdict is updated.
 */
static bool judge_exact(struct audit_ctx *a, const struct expect *x, struct audit_result *r)
{
	char err[160], name[16];
	int64_t diff[COUNT_MAX_EVENTS], ticks;
	bool bad[COUNT_MAX_EVENTS] = { false };

	if (!audit_begin(a, err, sizeof(err))) {
		snprintf(r->why, sizeof(r->why), "the driver could not count the check's events: %.140s", err);
		r->status = AUDIT_FAIL;
		return false;
	}
	for (unsigned s = 0; s < AUDIT_SAMPLES; s++) {
		if (!audit_sample(a, diff, &ticks, err, sizeof(err))) {
			audit_end(a);
			snprintf(r->why, sizeof(r->why), "%s", err);
			r->status = AUDIT_FAIL;
			return false;
		}
		for (size_t i = 0; i < audit_events(a); i++) {
			bool ok = x->exact[i] ? diff[i] == x->want[i] : close_to(diff[i], x->want[i]);
			if (ok || bad[i])
				continue;
			bad[i] = true;
			fail_text(r, audit_counter_name(a, i, name), a->set.ev[i].name, x->want[i], diff[i]);
		}
	}
	audit_end(a);
	/* A pass never hides an earlier round's failure. */
	if (r->status != AUDIT_FAIL)
		r->status = AUDIT_PASS;
	for (size_t i = 0; i < a->set.n; i++) {
		if (!bad[i])
			continue;
		r->status = AUDIT_FAIL;
		if (x->umask_proof[i]) {
			a->v->umask_bad = true;
			if (!a->v->why[0])
				snprintf(a->v->why, sizeof(a->v->why), "audit: %s counted wrong: unit masks are not applied "
					 "as programmed", a->set.ev[i].name);
		} else {
			bool fixed = a->set.fixed_of[i] >= 0;
			audit_blame(a, r, fixed, (unsigned)(fixed ? a->set.fixed_of[i] : a->set.counter_of[i]));
		}
	}
	return true;
}

/* `which` on every usable general counter its constraints allow (and fixed counter 0 for instructions),
 * plus the unit-mask proof event on one counter. */
static void exact_everywhere(struct audit_ctx *a, struct audit_result *r, enum audit_known which,
			     enum audit_known proof)
{
	struct expect x;
	struct event_spec ev, pev;
	uint32_t per_trip, proof_trip, gp = 0, fixed = 0;
	const char *why = NULL, *proof_why = NULL;

	fresh(a, &x);
	if (!audit_known_spec(a, which, &ev, &per_trip, &why)) {
		snprintf(r->why, sizeof(r->why), "%s: %s", audit_known_what(which), why);
		return;
	}
	for (unsigned c = 0; c < 32; c++) {
		struct event_spec pinned = ev;
		if ((a->view.gp_usable & (1u << c)) && audit_pin(&pinned, c))
			gp |= 1u << c;
	}
	if (which == AK_INSTRUCTIONS && (a->view.fixed_usable & 1u))
		fixed |= 1u;
	bool proved = proof < AK_COUNT && audit_known_spec(a, proof, &pev, &proof_trip, &proof_why);
	if (proved) {
		/* On a counter the first set vouches for, in a set of its own (the first holds every counter);
		 * placed after that set ran, below. */
		proved = true;
	}
	if (!gp && !fixed) {
		snprintf(r->why, sizeof(r->why), "no usable counter may count %s", audit_known_what(which));
		return;
	}
	audit_counters_text(r->counter, sizeof(r->counter), gp, fixed);
	/*
	 * Every counter at once; where the ledger needs a counter for its SMI event (AMD) and every
	 * counter is taken, in two rounds: all but the highest, then the highest.
	 */
	uint32_t rounds[2] = { gp, 0 };
	if (audit_smi_spare(a) && gp == a->view.gp_usable && (gp & (gp - 1))) {
		uint32_t hi = 1u << (31 - __builtin_clz(gp));
		rounds[0] = gp & ~hi;
		rounds[1] = hi;
	}
	for (unsigned k = 0; k < 2; k++) {
		if (!rounds[k] && k)
			continue;
		fresh(a, &x);
		for (unsigned c = 0; c < 32; c++) {
			struct event_spec pinned = ev;
			if ((rounds[k] & (1u << c)) && audit_pin(&pinned, c))
				add(a, &x, &pinned, per_trip, false);
		}
		if (!k && fixed) {
			struct event_spec f0;
			audit_fixed_spec(0, &f0);
			add(a, &x, &f0, per_trip, false);
		}
		if (!judge_exact(a, &x, r))
			return;
	}
	char counters[64];
	snprintf(counters, sizeof(counters), "%s", r->counter);
	if (r->status == AUDIT_PASS) {
		snprintf(r->detail, sizeof(r->detail), "%lld %s on %s, exactly", (long long)(per_trip * AUDIT_EXTRA_TRIPS),
			 audit_known_what(which), counters);
		r->expected = r->got = (int64_t)per_trip * AUDIT_EXTRA_TRIPS;
		r->has_numbers = true;
	}
	if (proof >= AK_COUNT)
		return;
	if (!proved) {
		size_t len = strlen(r->why);
		str_appendf(r->why, sizeof(r->why), len, "%sunit-mask proof absent: %s: %s", len ? "; " : "",
			    audit_known_what(proof), proof_why ? proof_why : "not for this vendor");
		return;
	}
	/* The unit-mask proof, alone in its set, on a counter that just counted exactly. */
	if (!audit_pin_trusted(a, &pev)) {
		size_t len = strlen(r->why);
		str_appendf(r->why, sizeof(r->why), len, "%sunit-mask proof absent: no trusted counter may count %s",
			    len ? "; " : "", pev.name);
		return;
	}
	enum audit_status first = r->status;
	struct audit_result pr;
	audit_result_init(&pr, r->check);
	fresh(a, &x);
	add(a, &x, &pev, proof_trip, true);
	if (judge_exact(a, &x, &pr) && pr.status == AUDIT_FAIL) {
		r->status = AUDIT_FAIL;
		if (!r->has_numbers || first == AUDIT_PASS) {
			snprintf(r->counter, sizeof(r->counter), "%s", pr.counter);
			r->expected = pr.expected;
			r->got = pr.got;
			r->has_numbers = true;
		}
		size_t len = first == AUDIT_PASS ? 0 : strlen(r->why);
		str_appendf(r->why, sizeof(r->why), len, "%s%s (its unit mask 0x%02x selects %s)", len ? "; " : "", pr.why,
			    pev.umask, audit_known_what(proof));
	} else if (pr.status != AUDIT_PASS) {
		size_t len = strlen(r->why);
		str_appendf(r->why, sizeof(r->why), len, "%sunit-mask proof absent: %s", len ? "; " : "", pr.why);
	} else {
		size_t len = strlen(r->detail);
		str_appendf(r->detail, sizeof(r->detail), len, "; %s exact", pev.name);
	}
}

void audit_check_instructions(struct audit_ctx *a, struct audit_result *r)
{
	exact_everywhere(a, r, AK_INSTRUCTIONS, a->amd ? AK_SSE : AK_COUNT);
}

void audit_check_branches(struct audit_ctx *a, struct audit_result *r)
{
	exact_everywhere(a, r, AK_BRANCHES, a->amd ? AK_COUNT : AK_COND_BRANCHES);
}

/* The median of n values (n <= COUNT_MAX_EVENTS: an insertion sort of a copy). */
static int64_t median_of(const int64_t *v, size_t n)
{
	int64_t s[COUNT_MAX_EVENTS];
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		for (; j > 0 && s[j - 1] > v[i]; j--)
			s[j] = s[j - 1];
		s[j] = v[i];
	}
	return s[n / 2];
}

void audit_check_agree(struct audit_ctx *a, struct audit_result *r)
{
	struct expect x;
	struct event_spec ev;
	uint32_t per_trip, gp = 0;
	const char *why = NULL;
	char err[160], name[16];
	int64_t diff[COUNT_MAX_EVENTS], ticks;

	/* The cycles event on every counter it may use: where its constraints keep it off some (Family
	 * 15h: counters 0-2), those are named as not checked.  Instructions would prove nothing new there
	 * (the instructions check counts them on every counter) and would pass with the clock frozen. */
	const enum audit_known which = AK_CYCLES;
	uint32_t unplaced = 0;
	fresh(a, &x);
	if (!audit_known_spec(a, which, &ev, &per_trip, &why)) {
		snprintf(r->why, sizeof(r->why), "no cycles event here: %s", why);
		return;
	}
	for (unsigned c = 0; c < 32; c++) {
		struct event_spec pinned = ev;
		if (!(a->view.gp_usable & (1u << c)))
			continue;
		if (!audit_pin(&pinned, c)) {
			unplaced |= 1u << c;
			continue;
		}
		add(a, &x, &pinned, per_trip, false);
		gp |= 1u << c;
	}
	if (!gp) {
		snprintf(r->why, sizeof(r->why), "%.60s may use none of the usable general counters", ev.name);
		return;
	}
	if (!(gp & (gp - 1))) {
		snprintf(r->why, sizeof(r->why), "%.60s may use one usable general counter: nothing to agree with",
			 ev.name);
		return;
	}
	audit_counters_text(r->counter, sizeof(r->counter), gp, 0);
	if (!audit_begin(a, err, sizeof(err))) {
		snprintf(r->why, sizeof(r->why), "the driver could not count the check's events: %.140s", err);
		r->status = AUDIT_FAIL;
		return;
	}
	bool ok = audit_sample(a, diff, &ticks, err, sizeof(err));
	audit_end(a);
	if (!ok) {
		snprintf(r->why, sizeof(r->why), "%s", err);
		r->status = AUDIT_FAIL;
		return;
	}
	int64_t median = median_of(diff, audit_events(a));
	audit_counters_text(r->counter, sizeof(r->counter), gp, 0);
	if (median <= 0) {
		/* Instructions counted exactly on these counters: it is the clock they count that stood still. */
		r->status = AUDIT_FAIL;
		r->expected = (int64_t)AUDIT_EXTRA_TRIPS;
		r->got = median;
		r->has_numbers = true;
		snprintf(r->why, sizeof(r->why), "%.40s counted %lld on every counter (median of %zu) over %u trips: "
			 "a count that does not move agrees with nothing", ev.name, (long long)median, audit_events(a),
			 AUDIT_EXTRA_TRIPS);
		if (which == AK_CYCLES) {
			a->v->clock_bad = true;
			snprintf(a->v->clock_why, sizeof(a->v->clock_why), "audit: counters-agree failed: the cycles "
				 "event counted %lld on every counter", (long long)median);
		}
		return;
	}
	r->status = AUDIT_PASS;
	for (size_t i = 0; i < audit_events(a); i++) {
		bool agrees = per_trip ? diff[i] == median : close_to(diff[i], median);
		if (agrees)
			continue;
		r->status = AUDIT_FAIL;
		fail_text(r, audit_counter_name(a, i, name), ev.name, median, diff[i]);
		audit_blame(a, r, false, (unsigned)a->set.counter_of[i]);
	}
	if (r->status == AUDIT_PASS) {
		snprintf(r->detail, sizeof(r->detail), "%.60s on %.40s: %lld each%s", ev.name, r->counter, (long long)median,
			 per_trip ? "" : " (within 0.1%)");
		r->expected = r->got = median;
		r->has_numbers = true;
		if (unplaced) {
			char list[64];
			audit_counters_text(list, sizeof(list), unplaced, 0);
			snprintf(r->why, sizeof(r->why), "%s not checked: %.60s may not use them", list, ev.name);
		}
	} else {
		size_t len = strlen(r->why);
		str_appendf(r->why, sizeof(r->why), len, " (the median of %zu counters)", audit_events(a));
	}
}

/* One fixed counter against its reference (audit_fixed_pair); false when it could not be sampled (r says). */
static bool fixed_one(struct audit_ctx *a, struct audit_result *r, unsigned f, uint32_t *checked, uint32_t *unpaired,
		      uint32_t *umask_refused, size_t *dlen)
{
	struct expect x;
	struct event_spec fx, gpev;
	uint32_t per_trip;
	const char *why = NULL;
	char err[160], name[16], ref_name[80] = "", ref_counter[16];
	int64_t diff[COUNT_MAX_EVENTS], ticks;

	enum audit_fixed_how how = audit_fixed_pair(a, f, &gpev, &per_trip, &why);
	bool paired = how == AF_EXACT || how == AF_CLOSE;
	fresh(a, &x);
	audit_fixed_spec(f, &fx);
	add(a, &x, &fx, per_trip, false);
	/* The general counter is the reference: the instructions check has vouched for it, and where its
	 * event has a unit mask, the unit-mask proof must not have failed. */
	if (how == AF_NONE || (paired && !audit_pin_trusted(a, &gpev))) {
		*unpaired |= 1u << f;
		return true;
	}
	if (paired && gpev.umask && a->v->umask_bad) {
		*umask_refused |= 1u << f;
		return true;
	}
	if (paired)
		add(a, &x, &gpev, per_trip, false);
	if (!audit_begin(a, err, sizeof(err))) {
		*unpaired |= 1u << f;
		return true;
	}
	bool ok = how == AF_TSC ? audit_sample_trips(a, AUDIT_SHORT_TRIPS + REF_TSC_EXTRA_TRIPS, diff, &ticks, err,
						    sizeof(err)) :
				  audit_sample(a, diff, &ticks, err, sizeof(err));
	audit_end(a);
	snprintf(name, sizeof(name), "fixed%u", f);
	if (!ok) {
		snprintf(r->why, sizeof(r->why), "%s: %s", name, err);
		r->status = AUDIT_FAIL;
		return false;
	}
	*checked |= 1u << f;
	int64_t ref = how == AF_EXACT ? x.want[0] : how == AF_CLOSE ? diff[1] : how == AF_TSC ? ticks : 0;
	bool agrees;
	switch (how) {
	case AF_EXACT: agrees = diff[0] == x.want[0]; break;
	case AF_TINY: agrees = diff[0] >= 0 && diff[0] <= TINY_BOUND; break;
	default: agrees = close_to(diff[0], ref); break;
	}
	if (how == AF_TSC)
		snprintf(ref_name, sizeof(ref_name), "TSC ticks");
	else if (paired)
		snprintf(ref_name, sizeof(ref_name), "%.60s on %s", gpev.name, audit_counter_name(a, 1, ref_counter));
	if (agrees) {
		*dlen = str_appendf(r->detail, sizeof(r->detail), *dlen, "%s%s=%lld %s", *dlen ? ", " : "", name,
				    (long long)diff[0], how == AF_EXACT ? "exactly" : how == AF_TSC ? "= TSC within 0.1%" :
				    how == AF_TINY ? "(bounded: the loop mispredicts nothing)" : "within 0.1%");
		return true;
	}
	r->status = AUDIT_FAIL;
	size_t len = strlen(r->why);
	if (!r->has_numbers) {
		snprintf(r->counter, sizeof(r->counter), "%s", name);
		r->expected = how == AF_TINY ? 0 : ref;
		r->got = diff[0];
		r->has_numbers = true;
	}
	if (how == AF_TINY)
		str_appendf(r->why, sizeof(r->why), len, "%s%s counted %lld over %u trips of the loop, which mispredicts "
			    "nothing (at most %lld)", len ? "; " : "", name, (long long)diff[0], AUDIT_EXTRA_TRIPS,
			    (long long)TINY_BOUND);
	else if (ref <= 0)
		str_appendf(r->why, sizeof(r->why), len, "%s%s counted %lld and its reference (%s) %lld over %u trips "
			    "of the loop: a clock that does not move agrees with nothing", len ? "; " : "", name,
			    (long long)diff[0], ref_name, (long long)ref,
			    how == AF_TSC ? REF_TSC_EXTRA_TRIPS : AUDIT_EXTRA_TRIPS);
	else
		str_appendf(r->why, sizeof(r->why), len, "%s%s counted %lld, %s %lld%s", len ? "; " : "", name,
			    (long long)diff[0], ref_name, (long long)ref, how == AF_EXACT ? "" : " (more than 0.1% apart)");
	audit_blame(a, r, true, f);
	return true;
}

void audit_check_fixed(struct audit_ctx *a, struct audit_result *r)
{
	uint32_t checked = 0, unpaired = 0, umask_refused = 0;
	size_t dlen = 0;

	if (!a->view.fixed_usable) {
		snprintf(r->why, sizeof(r->why), "no usable fixed counters (CPUID.0AH/23H enumerate none, or they are "
			 "in use)");
		return;
	}
	r->status = AUDIT_PASS;
	for (unsigned f = 0; f < 32; f++)
		if ((a->view.fixed_usable & (1u << f)) && !fixed_one(a, r, f, &checked, &unpaired, &umask_refused, &dlen))
			return;
	if (r->status == AUDIT_PASS)
		audit_counters_text(r->counter, sizeof(r->counter), 0, checked);
	if (!checked) {
		r->status = AUDIT_ABSENT;
		snprintf(r->why, sizeof(r->why), "no fixed counter could be paired with a general counter counting its "
			 "event");
		return;
	}
	if (unpaired) {
		char list[64];
		audit_counters_text(list, sizeof(list), 0, unpaired);
		size_t len = strlen(r->why);
		str_appendf(r->why, sizeof(r->why), len, "%s%s not checked: no general-counter form of its event here",
			    len ? "; " : "", list);
	}
	if (umask_refused) {
		char list[64];
		audit_counters_text(list, sizeof(list), 0, umask_refused);
		size_t len = strlen(r->why);
		str_appendf(r->why, sizeof(r->why), len, "%s%s not checked: the reference is an event with a unit mask, "
			    "and unit masks failed their proof", len ? "; " : "", list);
	}
}
