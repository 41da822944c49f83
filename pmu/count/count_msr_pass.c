/* pmu/count/count_msr_pass.c - one pass of the MSR backend: plan, program, toggles, read, end; see count_msr_int.h. */
#include "pmu/count/count_msr_int.h"
#include "pmu/count/pmu_encode.h"
#include "lib/x86/msr_intel.h"
#include "lib/x86/msr_amd.h"
#include "lib/strbuf.h"

/* ---- one pass ---- */

static uint64_t priv_sel(enum count_priv p)
{
	return p == COUNT_PRIV_USER ? msr_st.fl->sel_usr : p == COUNT_PRIV_KERNEL ? msr_st.fl->sel_os :
	       msr_st.fl->sel_usr | msr_st.fl->sel_os;
}

static uint64_t priv_field(enum count_priv p)
{
	return p == COUNT_PRIV_USER ? msr_st.fl->fixed_usr : p == COUNT_PRIV_KERNEL ? msr_st.fl->fixed_os :
	       msr_st.fl->fixed_usr | msr_st.fl->fixed_os;
}

struct pass_plan {
	uint32_t gp, fixed;			/* counters used (a merged pair's odd counter included) */
	uint32_t merged;			/* even counters whose odd neighbour holds the Merge event */
	uint64_t sel[MAX_GP];			/* select values without EN */
	uint64_t field[MAX_FIXED];		/* fixed-control fields */
	bool rsp_used[2];			/* OFFCORE_RSP_0 / _1 programmed for this pass */
	uint64_t rsp[2];
	bool metrics;				/* PERF_METRICS enabled with fixed counter 3 */
	bool td;				/* the pass reads PERF_METRICS fields (count.h count_td_field) */
};

/* The select of a merged pair's odd counter: the Merge event (msr_amd.h), no privilege bits. */
static bool merge_select(uint64_t *sel, char *err, size_t cap)
{
	struct event_spec merge;
	memset(&merge, 0, sizeof(merge));
	snprintf(merge.name, sizeof(merge.name), "Merge");
	merge.event = msr_st.fl->merge_event;
	return pmu_encode_select(msr_st.fl, false, &merge, sel, err, cap);
}

/* A general-counter event of the pass: its form's code with its form's OFFCORE_RSP MSR, or a
 * merged pair on c and c + 1. */
static bool plan_general(const struct count_set *set, size_t i, unsigned p, struct pass_plan *pl, char *err,
			 size_t cap)
{
	const struct event_spec *ev = &set->ev[i];
	unsigned c = (unsigned)set->counter_of[i];
	bool merged = set->merged_of[i];
	uint64_t sel;

	if (c >= MAX_GP || !(msr_st.gp_usable & (1u << c)) ||
	    (merged && (c + 1 >= MAX_GP || !(msr_st.gp_usable & (1u << (c + 1)))))) {
		snprintf(err, cap, "event '%s' was scheduled on counter %u%s, which is not usable", ev->name, c,
			 merged ? " and the one after it" : "");
		return false;
	}
	if (merged && !msr_st.fl->merge_event) {
		snprintf(err, cap, "event '%s' needs a merged counter pair, which this PMU (%s) does not have", ev->name,
			 msr_st.fl->label);
		return false;
	}
	struct event_spec form = *ev;
	int f = set->form_of[i];
	if (f >= 0) {
		/* Offcore: the form's code and that form's response MSR, always together. */
		uint16_t msr = f == 1 ? ev->msr_alt : ev->msr;
		if (f == 1) {
			form.event = ev->alt_event;
			form.umask = ev->alt_umask;
		}
		unsigned r = msr == MSR_OFFCORE_RSP_1 ? 1 : 0;
		if (msr != MSR_OFFCORE_RSP_0 && msr != MSR_OFFCORE_RSP_1) {
			snprintf(err, cap, "event '%s': its form %d has no OFFCORE_RSP MSR", ev->name, f);
			return false;
		}
		if (pl->rsp_used[r]) {
			snprintf(err, cap, "event '%s': OFFCORE_RSP_%u is taken in pass %u", ev->name, r, p);
			return false;
		}
		pl->rsp_used[r] = true;
		pl->rsp[r] = ev->msr_value;
	}
	if (!pmu_encode_select(msr_st.fl, msr_st.any_ok, &form, &sel, err, cap))
		return false;
	pl->gp |= 1u << c;
	pl->sel[c] = sel | priv_sel(set->priv) | (set->pmi ? msr_st.fl->sel_int : 0);
	if (merged) {
		if (!merge_select(&sel, err, cap))
			return false;
		pl->gp |= 1u << (c + 1);
		pl->merged |= 1u << c;
		pl->sel[c + 1] = sel;
	}
	return true;
}

static bool plan_pass(const struct count_set *set, unsigned p, struct pass_plan *pl, char *err, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	for (size_t i = 0; i < set->n; i++) {
		if (set->pass_of[i] != p)
			continue;
		const struct event_spec *ev = &set->ev[i];
		if (count_td_field(ev) >= 0 && msr_st.arch_pmu) {
			pl->td = true;	/* no counter: read from IA32_PERF_METRICS */
		} else if (set->counter_of[i] >= 0) {
			if (!plan_general(set, i, p, pl, err, cap))
				return false;
		} else if (set->fixed_of[i] >= 0) {
			unsigned f = (unsigned)set->fixed_of[i];
			if (f >= MAX_FIXED || !(msr_st.fixed_usable & (1u << f))) {
				snprintf(err, cap, "event '%s' was scheduled on fixed counter %u, which is not usable",
					 ev->name, f);
				return false;
			}
			if (ev->any && !(msr_st.fl->fixed_any && msr_st.any_ok)) {
				snprintf(err, cap, "event '%s' asks for AnyThread counting, which this PMU does not offer",
					 ev->name);
				return false;
			}
			pl->fixed |= 1u << f;
			pl->field[f] = priv_field(set->priv) | (ev->any ? msr_st.fl->fixed_any : 0) |
				       (set->pmi ? msr_st.fl->fixed_pmi : 0);
		} else {
			snprintf(err, cap, "event '%s' has no counter: schedule the set first", ev->name);
			return false;
		}
	}
	/* A set of PERF_METRICS fields enables them in the passes that read them; the audit's set->metrics
	 * (fixed counter 3 with PERF_METRICS on, read by the caller) in every pass. */
	if (pl->td || (set->metrics && !count_msr_has_td(set))) {
		if (!msr_st.metrics_ok || !(pl->fixed & (1u << FIXED_TOPDOWN_SLOTS))) {
			snprintf(err, cap, "PERF_METRICS needs fixed counter 3 (TOPDOWN.SLOTS) in pass %u and a PMU with "
				 "PERF_METRICS (IA32_PERF_CAPABILITIES[15])", p);
			return false;
		}
		pl->metrics = true;
	}
	return true;
}

static void toggle_add(struct count_toggle *t, uint32_t msr, uint64_t value)
{
	if (t->n < COUNT_TOGGLE_MAX)
		t->w[t->n++] = (struct msr_write){ msr, 0, value };
}

static uint64_t run_global(const struct pass_plan *pl)
{
	uint64_t g = msr_st.keep_global;
	for (unsigned c = 0; c < MAX_GP; c++)
		if (pl->gp & (1u << c))
			g |= gp_global_bit(c);
	for (unsigned f = 0; f < MAX_FIXED; f++)
		if (pl->fixed & (1u << f))
			g |= fixed_global_bit(f);
	return g | (pl->metrics ? GLOBAL_CTRL_EN_PERF_METRICS : 0);
}

/* General counters in programming order: a merged pair's odd counter (the Merge event) before
 * its even one (PPR 2.1.15.3, as Linux programs it), the others in order.  Returns how many. */
static unsigned enable_order(const struct pass_plan *pl, unsigned n, uint8_t *order)
{
	unsigned k = 0;
	for (unsigned c = 0; c < n; c++) {
		if (c && (pl->merged & (1u << (c - 1))))
			continue;	/* written with its even partner */
		if (pl->merged & (1u << c))
			order[k++] = (uint8_t)(c + 1);
		order[k++] = (uint8_t)c;
	}
	return k;
}

static void build_toggles(struct count_set *set, const struct pass_plan *pl)
{
	uint8_t order[MAX_GP + 1];
	unsigned n = enable_order(pl, msr_st.n_gp, order);

	memset(&set->start, 0, sizeof(set->start));
	memset(&set->stop, 0, sizeof(set->stop));
	switch (msr_st.fl->toggle) {
	case TOGGLE_GLOBAL:
		toggle_add(&set->start, msr_st.fl->global_ctrl, run_global(pl));
		toggle_add(&set->stop, msr_st.fl->global_ctrl, msr_st.keep_global);
		break;
	case TOGGLE_SELECT0:
		toggle_add(&set->start, sel_msr(0), pl->sel[0] | msr_st.fl->sel_en);
		toggle_add(&set->stop, sel_msr(0), pl->sel[0]);
		break;
	case TOGGLE_EACH_SELECT:
		/* On: the Merge event before its even counter; off: in counter order, so the even
		 * counter stops before its Merge event does (as Linux does it). */
		for (unsigned k = 0; k < n; k++)
			if (pl->gp & (1u << order[k]))
				toggle_add(&set->start, sel_msr(order[k]), pl->sel[order[k]] | msr_st.fl->sel_en);
		for (unsigned c = 0; c < msr_st.n_gp; c++)
			if (pl->gp & (1u << c))
				toggle_add(&set->stop, sel_msr(c), pl->sel[c]);
		break;
	}
}

/* Selects and fixed controls for the pass, with every counter of ours stopped. */
static int program_controls(const struct pass_plan *pl, uint32_t *bad)
{
	uint8_t order[MAX_GP + 1];
	unsigned n = enable_order(pl, msr_st.n_gp, order);
	int r;
	if (msr_st.fl->global_ctrl && (r = msr_put(*bad = msr_st.fl->global_ctrl, msr_st.keep_global)) != HW_OK)
		return r;
	/* With a global switch the selects carry EN already; otherwise the start list sets it. */
	uint64_t en = msr_st.fl->toggle == TOGGLE_GLOBAL ? msr_st.fl->sel_en : 0;
	for (unsigned k = 0; k < n; k++) {
		unsigned c = order[k];
		uint64_t cur = 0, want;
		/* What makes an unused counter count once the start list runs: its EN bit, or on P6
		 * (where select 0's EN runs both) the privilege bits of the other select. */
		uint64_t live = msr_st.fl->toggle == TOGGLE_SELECT0 && c ? msr_st.fl->sel_usr | msr_st.fl->sel_os : msr_st.fl->sel_en;
		if (!(msr_st.gp_usable & (1u << c)))
			continue;
		if (pl->gp & (1u << c))
			want = pl->sel[c] | en;
		else if (hw_rdmsr(sel_msr(c), &cur) == HW_OK && (cur & live))
			want = 0;	/* ours from an earlier pass, or forced: off */
		else
			continue;
		if ((r = msr_put(*bad = sel_msr(c), want)) != HW_OK)
			return r;
	}
	for (unsigned k = 0; k < 2; k++)
		if (pl->rsp_used[k] && (r = msr_put(*bad = k ? MSR_OFFCORE_RSP_1 : MSR_OFFCORE_RSP_0, pl->rsp[k])) != HW_OK)
			return r;
	if (msr_st.fl->fixed_ctrl && msr_st.fixed_exists) {
		uint64_t want = msr_st.keep_fixed;
		for (unsigned f = 0; f < MAX_FIXED; f++)
			if (pl->fixed & (1u << f))
				want |= pl->field[f] << field_shift(f);
		if ((r = msr_put(*bad = msr_st.fl->fixed_ctrl, want)) != HW_OK)
			return r;
	}
	return HW_OK;
}

/* The harness runs the lists with plain WRMSR: try them once here, where a fault is survivable. */
static int check_toggles(const struct count_set *set, uint32_t *bad)
{
	const struct count_toggle *lists[2] = { &set->start, &set->stop };
	if (msr_st.checked && !memcmp(&msr_st.checked_start, &set->start, sizeof(set->start)) &&
	    !memcmp(&msr_st.checked_stop, &set->stop, sizeof(set->stop)))
		return HW_OK;
	msr_st.checked = false;
	for (unsigned l = 0; l < 2; l++) {
		msr_log_phase(l ? "check stop list" : "check start list");
		for (uint32_t i = 0; i < lists[l]->n; i++) {
			int r = msr_save_write(*bad = lists[l]->w[i].msr, lists[l]->w[i].value);
			if (r != HW_OK)
				return r;
		}
	}
	msr_st.checked_start = set->start;
	msr_st.checked_stop = set->stop;
	msr_st.checked = true;
	return HW_OK;
}

/*
 * Counters to the preset (0 unless a self-test asks otherwise).  A merged pair is one 64-bit
 * counter: bits 47:0 go to the even PERF_CTR, bits 63:48 to the odd one's 15:0 (msr_amd.h).
 * With PERF_METRICS, fixed counter 3 is written before IA32_PERF_METRICS, in the SDM's order.
 */
static int zero_counters(const struct count_set *set, const struct pass_plan *pl, uint32_t *bad)
{
	for (unsigned c = 0; c < MAX_GP; c++) {
		if (!(pl->gp & (1u << c)) || (c && (pl->merged & (1u << (c - 1)))))
			continue;
		uint64_t v = set->preset & mask_of(msr_st.gp_width);
		if (pl->merged & (1u << c))
			v = set->preset & mask_of(AMD_MERGED_HIGH_SHIFT);
		/* Legacy writes keep bits 31:0 sign-extended, which gives the same preset. */
		int r = msr_save_write(*bad = ctr_write_msr(c), v);
		if (r == HW_OK && (pl->merged & (1u << c)))
			r = msr_save_write(*bad = ctr_write_msr(c + 1), set->preset >> AMD_MERGED_HIGH_SHIFT);
		if (r != HW_OK)
			return r;
	}
	for (unsigned f = 0; f < MAX_FIXED; f++)
		if (pl->fixed & (1u << f)) {
			int r = msr_save_write(*bad = fixed_msr(f), set->preset & mask_of(msr_st.fixed_width));
			if (r != HW_OK)
				return r;
		}
	if (pl->metrics) {
		int r = msr_save_write(*bad = MSR_IA32_PERF_METRICS, 0);
		if (r != HW_OK)
			return r;
	}
	return HW_OK;
}

static uint64_t status_bits(const struct pass_plan *pl)
{
	return run_global(pl) & ~msr_st.keep_global;
}

/* Overflow flags of our counters left from before would hide an overflow in this pass. */
static void clear_overflow(uint64_t bits)
{
	uint64_t status;
	if (!msr_st.fl->global_status || hw_rdmsr(msr_st.fl->global_status, &status) != HW_OK || !(status & bits))
		return;
	msr_log_phase("clear overflow");
	msr_save_command(msr_st.fl->global_ovf_clear, status & bits);
}

/* How many bits an event's counter holds: a merged pair's even PERF_CTR reads all 64 (msr_amd.h). */
static unsigned width_of(const struct count_set *set, size_t i)
{
	return set->fixed_of[i] >= 0 ? msr_st.fixed_width : set->merged_of[i] ? AMD_MERGED_WIDTH : msr_st.gp_width;
}

static bool read_counter(const struct count_set *set, size_t i, uint64_t *v)
{
	uint32_t msr = set->fixed_of[i] >= 0 ? fixed_msr((unsigned)set->fixed_of[i]) :
						ctr_msr((unsigned)set->counter_of[i]);
	if (hw_rdmsr(msr, v) != HW_OK)
		return false;
	*v &= mask_of(width_of(set, i));
	return true;
}


bool msr_pass_begin(struct count_set *set, unsigned pass, char *err, size_t err_cap)
{
	struct pass_plan pl;
	uint32_t bad = 0;
	int r;

	if (!msr_st.ready) {
		snprintf(err, err_cap, "counting is not available: %s", msr_st.why);
		return false;
	}
	if (pass >= set->passes) {
		snprintf(err, err_cap, "pass %u does not exist (the set has %u)", pass, set->passes);
		return false;
	}
	if (!plan_pass(set, pass, &pl, err, err_cap))
		return false;
	uint64_t mark = msr_log_total();
	msr_st.set = set;
	msr_st.pass = (int)pass;
	build_toggles(set, &pl);

	msr_log_phase("program");
	r = program_controls(&pl, &bad);
	if (r == HW_OK)
		r = check_toggles(set, &bad);
	msr_log_phase("zero counters");
	if (r == HW_OK)
		r = zero_counters(set, &pl, &bad);
	msr_log_phase("");
	if (r != HW_OK) {
		snprintf(err, err_cap, "programming pass %u: writing MSR 0x%x failed (%s)", pass, bad, msr_fault_text(r));
		return false;
	}
	msr_st.pass_status_bits = msr_st.fl->global_status ? status_bits(&pl) : 0;
	clear_overflow(msr_st.pass_status_bits);
	msr_log_phase("");
	msr_st.pass_td = pl.td;
	for (size_t i = 0; i < set->n; i++)
		if (set->pass_of[i] == pass && !(pl.td && count_td_field(&set->ev[i]) >= 0) &&
		    !read_counter(set, i, &msr_st.base[i])) {
			snprintf(err, err_cap, "reading the counter of event '%s' failed", set->ev[i].name);
			return false;
		}
	if (msr_st.verbose)
		msr_emit_program(set, pass, mark);
	return true;
}

/*
 * The PERF_METRICS fields of the pass: each the slots it stands for since the last read (the bytes are
 * fractions of fixed counter 3's count since both were cleared), then fixed counter 3 and PERF_METRICS
 * cleared, counter first (SDM, "Performance Metrics"; Linux intel_update_topdown_event), so the next
 * run's fractions are its own: 8-bit fractions lose precision over long counts, so they are cleared often.
 */
static bool read_td(struct count_set *set, unsigned pass, uint64_t *values, char *err, size_t err_cap)
{
	uint64_t pm;
	int slots = -1;
	for (size_t i = 0; i < set->n && slots < 0; i++)
		if (set->pass_of[i] == pass && set->fixed_of[i] == FIXED_TOPDOWN_SLOTS)
			slots = (int)i;
	if (slots < 0 || hw_rdmsr(MSR_IA32_PERF_METRICS, &pm) != HW_OK) {
		snprintf(err, err_cap, "reading IA32_PERF_METRICS (0x%x) for pass %u failed", MSR_IA32_PERF_METRICS, pass);
		return false;
	}
	for (size_t i = 0; i < set->n; i++) {
		int f = count_td_field(&set->ev[i]);
		if (set->pass_of[i] == pass && f >= 0)
			values[i] = count_td_slots(pm, (unsigned)f, values[slots]);
	}
	msr_log_phase("clear top-down metrics");
	int r = msr_save_write(fixed_msr(FIXED_TOPDOWN_SLOTS), 0);
	if (r == HW_OK)
		r = msr_save_write(MSR_IA32_PERF_METRICS, 0);
	msr_log_phase("");
	if (r != HW_OK) {
		snprintf(err, err_cap, "clearing fixed counter 3 and IA32_PERF_METRICS failed (%s)", msr_fault_text(r));
		return false;
	}
	msr_st.base[slots] = 0;
	return true;
}

bool msr_read_pass(struct count_set *set, unsigned pass, uint64_t *values, char *err, size_t err_cap)
{
	uint64_t status = 0, ovf = 0;

	if (!msr_st.ready || msr_st.set != set || msr_st.pass != (int)pass) {
		snprintf(err, err_cap, "pass %u is not the pass programmed", pass);
		return false;
	}
	if (msr_st.pass_status_bits && hw_rdmsr(msr_st.fl->global_status, &status) == HW_OK)
		ovf = status & msr_st.pass_status_bits;
	for (size_t i = 0; i < set->n; i++) {
		uint64_t v;
		if (set->pass_of[i] != pass || (msr_st.pass_td && count_td_field(&set->ev[i]) >= 0))
			continue;
		if (!read_counter(set, i, &v)) {
			snprintf(err, err_cap, "reading the counter of event '%s' failed", set->ev[i].name);
			return false;
		}
		bool fixed = set->fixed_of[i] >= 0;
		unsigned idx = (unsigned)(fixed ? set->fixed_of[i] : set->counter_of[i]);
		/* A merged pair counts to 2^64, which no pass reaches; what its even counter's flag
		 * means at bit 48 the PPR does not say, so it is not read as an overflow. */
		uint64_t bit = fixed ? fixed_global_bit(idx) : set->merged_of[i] ? 0 : gp_global_bit(idx);
		/* One wrap shows as end < start and the modular difference is right; an
		 * overflow flag with end >= start means at least a whole wrap more. */
		if ((ovf & bit) && v >= msr_st.base[i]) {
			snprintf(err, err_cap, "the counter of event '%s' overflowed: more than 2^%u events in one "
				 "reading", set->ev[i].name, width_of(set, i));
			return false;
		}
		values[i] = count_delta(msr_st.base[i], v, width_of(set, i));
		msr_st.base[i] = v;
	}
	if (ovf) {
		msr_log_phase("clear overflow");
		msr_save_command(msr_st.fl->global_ovf_clear, ovf);
		msr_log_phase("");
	}
	return !msr_st.pass_td || read_td(set, pass, values, err, err_cap);
}

void msr_pass_end(struct count_set *set, unsigned pass)
{
	if (msr_st.set != set || msr_st.pass != (int)pass)
		return;
	msr_apply_stop(set, "pass end");
	msr_st.set = NULL;
	msr_st.pass = -1;
}

