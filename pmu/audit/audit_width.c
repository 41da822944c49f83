/*
 * pmu/audit/audit_width.c - the counters' width and their overflow: a value
 * above bit 31 written and read back, counting across bit 31; a counter
 * preloaded to -K overflowing, with its status bit and its interrupt.
 */
#include "pmu/audit/audit_int.h"
#include "pmu/caps/pmu_flavour.h"
#include "platform/hw.h"
#include "lib/x86/msr_intel.h"
#include "pmu/count/msr_save.h"
#include "lib/strbuf.h"

/*
 * The full-width value: bits 31:0 just below bit 31's carry (0x7FFFFF00, so
 * the loop's instructions carry into bit 31 and no further), every bit above
 * 31 set up to the counter's width.  Where only the legacy address exists a
 * write keeps bits 31:0 sign-extended (SDM Vol. 3B, "Full-Width Writes to
 * Performance Counter Registers"; P6: "PerfCtr0 and PerfCtr1 MSRs"): then
 * 0x7FFFFF00 must read back as itself and 0xFFFFFF00 as all ones above 31.
 */
#define FW_LOW 0x7FFFFF00ull
#define FW_NEGATIVE 0xFFFFFF00ull
#define BIT31 (1ull << 31)
/* Overflow: preloaded to -K, the run's instructions pass K well before it ends. */
#define OVF_K 1000u
/* After the run, how long a PMI may take to arrive (TSC ticks: microseconds on any part). */
#define PMI_WAIT_TICKS 100000u

static uint64_t mask_of(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }
static uint64_t sext32(uint64_t v) { return (uint64_t)(int64_t)(int32_t)(uint32_t)v; }

static uint32_t counter_msr(const struct audit_ctx *a, bool fixed, unsigned idx)
{
	const struct pmu_flavour *fl = a->view.fl;
	return fixed ? fl->fixed_ctr_base + idx : fl->ctr_base + idx * fl->stride;
}

/* The set for one counter: instructions on general counter idx, or fixed counter idx's own event. */
static bool one_counter(struct audit_ctx *a, bool fixed, unsigned idx)
{
	struct event_spec ev;
	uint32_t per_trip;
	const char *why;
	memset(&a->set, 0, sizeof(a->set));
	if (fixed) {
		audit_fixed_spec(idx, &ev);
	} else if (!audit_known_spec(a, AK_INSTRUCTIONS, &ev, &per_trip, &why) || !audit_pin(&ev, idx)) {
		return false;
	}
	a->set.ev[a->set.n++] = ev;
	return true;
}

/* A preset written through the driver; what it must read back as, raw. */
static bool width_one(struct audit_ctx *a, struct audit_result *r, bool fixed, unsigned idx, uint64_t preset,
		      uint64_t expect, bool count_across)
{
	char err[160], name[16];
	uint64_t raw0 = 0, raw1 = 0, counted[COUNT_MAX_EVENTS];
	unsigned width = fixed ? a->view.fixed_width : a->view.gp_width;

	snprintf(name, sizeof(name), "%s%u", fixed ? "fixed" : "pmc", idx);
	a->set.preset = preset;
	if (!audit_begin(a, err, sizeof(err))) {
		snprintf(r->why, sizeof(r->why), "%s: %s", name, err);
		r->status = AUDIT_FAIL;
		return false;
	}
	int rc = hw_rdmsr(counter_msr(a, fixed, idx), &raw0);
	bool ok = rc == HW_OK && raw0 == expect;
	if (ok && count_across) {
		ok = audit_once(a, AUDIT_LONG_TRIPS, counted, err, sizeof(err)) &&
		     hw_rdmsr(counter_msr(a, fixed, idx), &raw1) == HW_OK;
		/* Read back exactly: what was written plus what was counted, across bit 31 and no further. */
		ok = ok && raw1 == ((expect + counted[0]) & mask_of(width)) && (raw1 & BIT31) &&
		     (raw1 >> 32) == (expect >> 32);
	}
	audit_end(a);
	if (ok)
		return true;
	r->status = AUDIT_FAIL;
	if (!r->has_numbers) {
		snprintf(r->counter, sizeof(r->counter), "%s", name);
		r->expected = (int64_t)(raw1 ? (expect + counted[0]) & mask_of(width) : expect);
		r->got = (int64_t)(raw1 ? raw1 : raw0);
		r->has_numbers = true;
	}
	size_t len = strlen(r->why);
	if (raw1 && raw1 == ((expect + counted[0]) & mask_of(width)))
		str_appendf(r->why, sizeof(r->why), len, "%s%s: from 0x%llx it counted %llu, not across bit 31",
			    len ? "; " : "", name, (unsigned long long)expect, (unsigned long long)counted[0]);
	else if (raw1)
		str_appendf(r->why, sizeof(r->why), len, "%s%s: from 0x%llx, %llu counted, read 0x%llx (expected 0x%llx)",
			    len ? "; " : "", name, (unsigned long long)expect, (unsigned long long)counted[0],
			    (unsigned long long)raw1, (unsigned long long)((expect + counted[0]) & mask_of(width)));
	else
		str_appendf(r->why, sizeof(r->why), len, "%s%s: wrote 0x%llx, read back 0x%llx (expected 0x%llx)",
			    len ? "; " : "", name, (unsigned long long)(preset & mask_of(width)),
			    (unsigned long long)raw0, (unsigned long long)expect);
	audit_blame(a, r, fixed, idx);
	return false;
}

/* A fixed counter the loop barely moves cannot show a wrap or a carry: named, with why, not failed. */
static bool skip_quiet_fixed(struct audit_ctx *a, unsigned f, char *note, size_t cap)
{
	const char *ev;
	if (!audit_fixed_tiny(a, f, &ev))
		return false;
	size_t len = strlen(note);
	str_appendf(note, cap, len, "%sfixed%u not checked: it counts %s, which the known-answer loop barely moves",
		    len ? "; " : "", f, ev);
	return true;
}

void audit_check_full_width(struct audit_ctx *a, struct audit_result *r)
{
	uint32_t gp = 0, fixed = 0;
	unsigned gw = a->view.gp_width, fw = a->view.fixed_width;

	if (gw <= 32) {
		snprintf(r->why, sizeof(r->why), "the counters are %u bits wide: nothing above bit 31", gw);
		return;
	}
	r->status = AUDIT_PASS;
	for (unsigned c = 0; c < 32; c++) {
		if (!(a->view.gp_usable & (1u << c)) || !one_counter(a, false, c))
			continue;
		gp |= 1u << c;
		if (a->view.legacy_writes) {
			/* Bit 31 clear stays as written; bit 31 set fills every bit above it. */
			if (width_one(a, r, false, c, FW_LOW, FW_LOW, true))
				width_one(a, r, false, c, FW_NEGATIVE, sext32(FW_NEGATIVE) & mask_of(gw), false);
		} else {
			uint64_t v = (mask_of(gw) & ~mask_of(32)) | FW_LOW;
			width_one(a, r, false, c, v, v, true);
		}
	}
	char note[200] = "";
	for (unsigned f = 0; fw > 32 && f < 32; f++) {
		if (!(a->view.fixed_usable & (1u << f)) || skip_quiet_fixed(a, f, note, sizeof(note)) ||
		    !one_counter(a, true, f))
			continue;
		fixed |= 1u << f;
		uint64_t v = (mask_of(fw) & ~mask_of(32)) | FW_LOW;
		width_one(a, r, true, f, v, v, true);
	}
	memset(&a->set, 0, sizeof(a->set));
	if (!gp && !fixed) {
		r->status = AUDIT_ABSENT;
		snprintf(r->why, sizeof(r->why), "no usable counter%s%s", note[0] ? ": " : "", note);
		return;
	}
	if (note[0]) {
		size_t len = strlen(r->why);
		str_appendf(r->why, sizeof(r->why), len, "%s%s", len ? "; " : "", note);
	}
	if (r->status == AUDIT_PASS) {
		audit_counters_text(r->counter, sizeof(r->counter), gp, fixed);
		snprintf(r->detail, sizeof(r->detail), "%u-bit counters %s: %s", gw, r->counter,
			 a->view.legacy_writes ? "bits 31:0 sign-extended as the SDM says, counted across bit 31" :
			 a->view.full_width ? "written full width (IA32_A_PMCx), counted across bit 31" :
					      "written full width, counted across bit 31");
	}
}

/* ---- overflow ---- */

/*
 * What the PMI handler watches: the counter under test.  An NMI is this counter's PMI only when the
 * overflow status (Intel IA32_PERF_GLOBAL_STATUS, AMD PerfCntrGlobalStatus) shows its bit, or where
 * there is no status register (AMD before PerfMonV2) when the counter's own value shows it wrapped.
 * A claimed overflow is acknowledged (the status bit cleared, as a PMI handler does), so a later NMI
 * finds nothing of it and is left unclaimed: the platform counts it as an NMI of another source.
 */
struct pmi_watch {
	uint32_t status_msr, clear_msr;	/* 0: no status register */
	uint64_t bit;			/* the counter's bit in them */
	uint32_t counter_msr;		/* without a status register: the counter, preset near its top */
	uint64_t preset;
	bool armed, wrap_claimed;
	uint64_t seen;			/* status bits the claimed NMIs found */
	uint32_t nmis, claimed;		/* NMIs on the route; those that were this counter's PMI */
};

static volatile struct pmi_watch watch;

static bool on_pmi(void *ctx)
{
	volatile struct pmi_watch *w = ctx;
	uint64_t v = 0;
	w->nmis++;
	if (!w->armed)
		return false;
	if (w->status_msr) {
		/* Without a clear register an overflow is claimed once: its bit stays set. */
		if (hw_rdmsr(w->status_msr, &v) != HW_OK || !(v & w->bit) || (!w->clear_msr && w->wrap_claimed))
			return false;
		w->seen |= v & w->bit;
		if (w->clear_msr)
			hw_wrmsr(w->clear_msr, w->bit);
		else
			w->wrap_claimed = true;
	} else {
		/* Preset to -K: a value below the preset is a wrap; claimed once, the value stays below it. */
		if (w->wrap_claimed || hw_rdmsr(w->counter_msr, &v) != HW_OK || v >= w->preset)
			return false;
		w->wrap_claimed = true;
	}
	w->claimed++;
	return true;
}

static bool wait_pmi(uint32_t before)
{
	uint64_t t0 = hw_tsc();
	while (watch.claimed == before && hw_tsc() - t0 < PMI_WAIT_TICKS)
		;
	return watch.claimed != before;
}

/* One overflow run's NMIs: the claimed ones, and all of them against a run with nothing to overflow. */
struct pmi_count {
	uint32_t claimed, nmis, control;
};

/*
 * One counter preloaded to -K: it wraps, sets its status bit, raises exactly one PMI; the bit clears
 * after.  The run is preceded in its window by one of the same length with the counters stopped:
 * NMIs that reach the route there come from elsewhere, and one of them landing after the wrap
 * would find the status bit set; so the overflow run must bring exactly one NMI more than that run
 * did, as well as exactly one claimed.  A window where the two disagree otherwise is taken again.
 */
static void overflow_one(struct audit_ctx *a, struct audit_result *r, bool fixed, unsigned idx, bool routed)
{
	const struct pmu_flavour *fl = a->view.fl;
	char err[160], name[16], what[200] = "";
	uint64_t counted[COUNT_MAX_EVENTS], status = 0, after = 0;
	unsigned width = fixed ? a->view.fixed_width : a->view.gp_width;
	uint64_t bit = fixed ? 1ull << (fl->global_fixed_shift + idx) : 1ull << idx;
	bool has_status = fl->global_status != 0;
	struct pmi_count pc = { 0, 0, 0 };

	snprintf(name, sizeof(name), "%s%u", fixed ? "fixed" : "pmc", idx);
	a->set.preset = (0 - (uint64_t)OVF_K) & mask_of(width);
	a->set.pmi = routed;
	for (unsigned tries = 0; tries <= AUDIT_RETAKE_BUDGET; tries++) {
		what[0] = 0;
		if (!audit_begin(a, err, sizeof(err))) {
			snprintf(what, sizeof(what), "%.150s", err);
			break;
		}
		watch.status_msr = has_status ? fl->global_status : 0;
		watch.clear_msr = fl->global_ovf_clear;
		watch.bit = bit;
		watch.counter_msr = counter_msr(a, fixed, idx);
		watch.preset = a->set.preset;
		watch.seen = 0;
		watch.wrap_claimed = false;
		struct audit_window aw;
		audit_window_open(a, &aw);
		uint32_t n0 = watch.nmis;
		a->p->runner->run(a->p->runner->ctx, AUDIT_SHORT_TRIPS, NULL, NULL);
		uint32_t n1 = watch.nmis, c0 = watch.claimed;
		watch.armed = true;
		a->p->runner->run(a->p->runner->ctx, AUDIT_SHORT_TRIPS, &a->set.start, &a->set.stop);
		if (routed)
			wait_pmi(c0);
		watch.armed = false;
		pc = (struct pmi_count){ watch.claimed - c0, watch.nmis - n1, n1 - n0 };
		if (has_status)
			hw_rdmsr(fl->global_status, &status);
		status |= watch.seen;
		/* The PMI is claimed by its route: not a disturbance; an SMI here changes no verdict below. */
		audit_window_close(a, &aw, LEDGER_NO_SMI_EVENT);
		uint64_t raw = 0;
		hw_rdmsr(counter_msr(a, fixed, idx), &raw);
		/* The driver's read sees the wrap (its value is below the preset) and clears the status bit. */
		bool read = a->cb->read(&a->set, 0, counted, err, sizeof(err));
		if (has_status)
			hw_rdmsr(fl->global_status, &after);
		audit_end(a);
		if (!read)
			snprintf(what, sizeof(what), "%.150s", err);
		else if (raw >= a->set.preset || counted[0] < OVF_K)
			snprintf(what, sizeof(what), "did not wrap: preloaded 0x%llx, read 0x%llx after %llu events",
				 (unsigned long long)a->set.preset, (unsigned long long)raw, (unsigned long long)counted[0]);
		else if (has_status && !(status & bit))
			snprintf(what, sizeof(what), "wrapped but its overflow status bit (MSR 0x%x bit %u) stayed clear",
				 fl->global_status, fixed ? fl->global_fixed_shift + idx : idx);
		else if (has_status && (after & bit))
			snprintf(what, sizeof(what), "its overflow status bit did not clear (MSR 0x%x)", fl->global_ovf_clear);
		else if (routed && !pc.claimed)
			snprintf(what, sizeof(what), "overflowed with its interrupt bit set, but no PMI arrived");
		else if (routed && pc.claimed > 1)
			snprintf(what, sizeof(what), "overflowed once but %u PMIs arrived", pc.claimed);
		else if (routed && pc.nmis != pc.control + 1) {
			snprintf(what, sizeof(what), "no PMI of its own: the overflow run brought %u NMI%s, a run with "
				 "nothing to overflow %u (an NMI from elsewhere finds the status bit set)", pc.nmis,
				 pc.nmis == 1 ? "" : "s", pc.control);
			/* Either run may have caught an NMI of another source by chance: taken again. */
			if (pc.control) {
				a->retaken++;
				continue;
			}
		}
		break;
	}
	a->set.pmi = false;
	if (!what[0])
		return;
	/* The record names the first counter that failed; the reason lists them all. */
	if (r->status != AUDIT_FAIL) {
		snprintf(r->counter, sizeof(r->counter), "%s", name);
		if (routed) {
			/* Its own PMIs: those claimed, or with one claimed, the NMIs the overflow brought. */
			r->expected = 1;
			r->got = pc.claimed != 1 ? (int64_t)pc.claimed : (int64_t)pc.nmis - (int64_t)pc.control;
			r->has_numbers = true;
		}
	}
	r->status = AUDIT_FAIL;
	size_t len = strlen(r->why);
	str_appendf(r->why, sizeof(r->why), len, "%s%s %s", len ? "; " : "", name, what);
	audit_blame(a, r, fixed, idx);
}

/*
 * Firmware (or an earlier tool) may leave IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI set: then the check's
 * own PMI would freeze every counter after it (the global enables cleared, or on version 4
 * CTR_Frz set until software clears it), and every later count would read low.  FREEZE_LBRS_ON_PMI
 * likewise freezes the LBR stack firmware may have enabled (LBR_FRZ, until software clears it).
 * Both are cleared through the counters' save list, so the run's restore puts them back.
 */
static void unfreeze_on_pmi(void)
{
	const uint64_t freeze = DEBUGCTL_FREEZE_PERFMON_ON_PMI | DEBUGCTL_FREEZE_LBRS_ON_PMI;
	uint64_t v;
	if (hw_rdmsr(MSR_IA32_DEBUGCTL, &v) == HW_OK && (v & freeze))
		msr_save_write(MSR_IA32_DEBUGCTL, v & ~freeze);
}

void audit_check_overflow(struct audit_ctx *a, struct audit_result *r)
{
	char pmi_why[160] = "", note[200] = "";
	uint32_t gp = 0, fixed = 0;

	unfreeze_on_pmi();

	bool routed = hw_nmi_route_pmi(on_pmi, (void *)&watch, pmi_why, sizeof(pmi_why));
	r->status = AUDIT_PASS;
	for (unsigned c = 0; c < 32; c++)
		if ((a->view.gp_usable & (1u << c)) && one_counter(a, false, c)) {
			gp |= 1u << c;
			overflow_one(a, r, false, c, routed);
		}
	for (unsigned f = 0; f < 32; f++)
		if ((a->view.fixed_usable & (1u << f)) && !skip_quiet_fixed(a, f, note, sizeof(note)) &&
		    one_counter(a, true, f)) {
			fixed |= 1u << f;
			overflow_one(a, r, true, f, routed);
		}
	if (routed)
		hw_nmi_unroute_pmi();
	memset(&a->set, 0, sizeof(a->set));
	if (!gp && !fixed) {
		r->status = AUDIT_ABSENT;
		snprintf(r->why, sizeof(r->why), "no usable counter%s%s", note[0] ? ": " : "", note);
		return;
	}
	if (r->status != AUDIT_PASS) {
		size_t len = strlen(r->why);
		if (note[0])
			str_appendf(r->why, sizeof(r->why), len, "; %s", note);
		return;
	}
	audit_counters_text(r->counter, sizeof(r->counter), gp, fixed);
	const char *status = a->view.fl->global_status ? "status bit set and cleared" : "no status register (wrap seen)";
	if (!routed) {
		/* Only part of the check could be done: that is not a pass. */
		r->status = AUDIT_ABSENT;
		snprintf(r->why, sizeof(r->why), "every counter wrapped (%s), but the PMI could not be checked: %s", status,
			 pmi_why);
		return;
	}
	snprintf(r->detail, sizeof(r->detail), "%s wrapped after %u events: %s, exactly one PMI as an NMI each",
		 r->counter, OVF_K, status);
	snprintf(r->why, sizeof(r->why), "%s", note);
}
