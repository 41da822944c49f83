/*
 * pmu/count/count_msr.c - the counting backend that programs the PMU's MSRs.
 *
 * Driven entirely by the flavour row (pmu_flavour.h) for the PMU that
 * identification found.  The rules it keeps:
 *  - init only reads, except one select-register write (put back at once)
 *    that proves writes stick: emulators without a PMU drop them;
 *  - a counter whose enable bit is already set belongs to someone else
 *    (firmware, a BMC) and is left alone, bits in the global and fixed
 *    control registers included, unless force_counters=on;
 *  - every write goes through msr_save (saved first, restored by restore());
 *  - the start/stop lists are tried once through the safe accessor before
 *    the harness runs them with plain WRMSR, so they cannot fault there.
 * docs/counters.md walks through each flavour's sequence.
 */
#include "pmu/count/count_msr.h"
#include "pmu/count/count_sched.h"
#include "pmu/count/msr_save.h"
#include "pmu/count/pmu_encode.h"
#include "pmu/caps/pmu_flavour.h"
#include "pmu/cpu/uarch.h"
#include "kernel/hw.h"
#include "lib/x86/msr_intel.h"
#include "lib/x86/msr_amd.h"
#include "lib/out.h"
#include "lib/strbuf.h"

#define MAX_GP COUNT_SCHED_MAX_GP
#define MAX_FIXED COUNT_SCHED_MAX_FIXED
#define MAX_NOTES 3
#define OFFCORE_MIN_ARCH_VERSION 3

static struct {
	bool ready, force, verbose, hypervisor;
	const struct pmu_flavour *fl;
	unsigned n_gp, n_fixed, gp_width, fixed_width;
	bool full_width, any_ok;
	bool arch_pmu, offcore;			/* CPUID.0AH architectural PMU; OFFCORE_RSP MSRs (v3 on) */
	bool arch_only;				/* the CPU has no core event table, only CPUID.0AH's */
	const struct event_set *events;		/* the CPU's event set: the scheduler's rules by code */
	unsigned amd_family;			/* AMD/Hygon display family for events/amd_rules.csv, else 0 */
	bool metrics_ok;			/* PERF_METRICS usable: PERF_CAPABILITIES[15], MSR saved */
	uint32_t gp_expected;			/* general counters the CPU enumerates (23H.1 or 0AH) */
	bool legacy_writes;			/* counters written through IA32_PMCx / P6 PerfCtr: 31:0 only */
	uint8_t arch_len;
	uint32_t arch_absent;
	uint32_t gp_exists, fixed_exists, gp_missing, fixed_missing;
	uint32_t gp_in_use, fixed_in_use;	/* found enabled */
	uint32_t gp_usable, fixed_usable;
	uint64_t found_sel[MAX_GP];
	uint64_t found_fixed_ctrl, found_global, found_status;
	uint64_t keep_global;	/* global-control bits of counters held by others */
	uint64_t keep_fixed;	/* fixed-control fields of counters held by others */
	const char *notes[MAX_NOTES];
	unsigned nnotes;
	/* The pass programmed now. */
	struct count_set *set;
	int pass;
	uint64_t base[COUNT_MAX_EVENTS];
	uint64_t pass_status_bits;
	/* The start/stop lists last tried through the safe accessor (a harness re-programs every run). */
	struct count_toggle checked_start, checked_stop;
	bool checked;
	/* Passes whose `program` record was emitted (verbose), for the set with this signature. */
	uint64_t recorded_sig;
	uint32_t recorded;
	char why[192];
} st;

/* One record buffer for the restore and program records (never built at once):
 * static data is part of the image file. */
static struct rec rbuf;

/* Population count without libgcc (the image links none). */
static unsigned bits(uint32_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

static uint64_t mask_of(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }
static uint32_t sel_msr(unsigned c) { return st.fl->sel_base + c * st.fl->stride; }
static uint32_t ctr_msr(unsigned c) { return st.fl->ctr_base + c * st.fl->stride; }
static uint32_t ctr_write_msr(unsigned c) { return st.full_width ? st.fl->ctr_fw_base + c : ctr_msr(c); }
static uint32_t fixed_msr(unsigned f) { return st.fl->fixed_ctr_base + f; }
static unsigned field_shift(unsigned f) { return f * st.fl->fixed_field_bits; }
static uint64_t field_mask(void) { return (1ull << st.fl->fixed_field_bits) - 1; }
static uint64_t gp_global_bit(unsigned c) { return 1ull << c; }
static uint64_t fixed_global_bit(unsigned f) { return 1ull << (st.fl->global_fixed_shift + f); }

static void note(const char *s)
{
	if (st.nnotes < MAX_NOTES)
		st.notes[st.nnotes++] = s;
}

/* Write only when the register does not already hold the value. */
static int put(uint32_t msr, uint64_t val)
{
	uint64_t cur;
	if (hw_rdmsr(msr, &cur) == HW_OK && cur == val)
		return HW_OK;
	return msr_save_write(msr, val);
}

static const char *fault_text(int r)
{
	return r == HW_FAULT_GP ? "#GP" : r == HW_FAULT_UD ? "#UD" : r == HW_ENODEV ? "no MSR access" :
	       r == MSR_SAVE_EUNSAVED ? "could not save its value first" : "error";
}

/* ---- init: read what is there ---- */

/* One past the highest set bit. */
static unsigned top_bit(uint32_t v)
{
	unsigned n = 0;
	for (; v; v >>= 1)
		n++;
	return n;
}

/* How many general counters to look at; st.gp_expected says which of them the CPU enumerates
 * (CPUID.(23H,1):EAX on parts with leaf 23H, which need not be contiguous). */
static unsigned general_count(const struct pmu_caps *caps)
{
	uint32_t mask = pmu_caps_gp_mask(caps);
	unsigned n = caps->kind == PMU_INTEL_ARCH ? top_bit(mask) :
		     caps->kind == PMU_INTEL_P6 ? 0 : caps->amd_n_counters;
	if (!n) {
		n = st.fl->fallback_gp;
		mask = 0;
	}
	n = n > st.fl->max_gp ? st.fl->max_gp : n > MAX_GP ? MAX_GP : n;
	st.gp_expected = (mask ? mask : ~0u) & ((1u << n) - 1);
	return n;
}

/* Fixed counters that should exist, as a bit mask: CPUID.(23H,1):EBX where leaf 23H enumerates
 * them (this core type's view on a hybrid part), else CPUID.0AH. */
static uint32_t fixed_expected(const struct pmu_caps *caps)
{
	if (!st.fl->fixed_ctrl)
		return 0;
	if (caps->arch_ext && caps->ext_fixed_mask)
		return pmu_caps_fixed_mask(caps) & ((1u << MAX_FIXED) - 1);
	unsigned n = caps->n_fixed;
	if (n < st.fl->fixed_min_bare_metal && !st.hypervisor) {
		n = st.fl->fixed_min_bare_metal;
		note("CPUID.0AH:EDX under-reports the fixed counters of early Core 2 / Bonnell parts; "
		     "3 are assumed and probed (SDM Vol. 3B, Architectural Performance Monitoring Version 2, NOTE)");
	}
	uint32_t bits = n >= 32 ? ~0u : (1u << n) - 1;
	if (st.fl->fixed_bitmap)
		bits |= caps->fixed_bitmap;
	return bits & ((1u << MAX_FIXED) - 1);
}

static bool fail(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st.why, sizeof(st.why), fmt, ap);
	va_end(ap);
	snprintf(why, cap, "%s", st.why);
	st.ready = false;
	return false;
}

static bool probe_general(char *why, size_t cap)
{
	for (unsigned c = 0; c < st.n_gp; c++) {
		uint64_t sel, ctr;
		if (!(st.gp_expected & (1u << c)))
			continue;
		int r1 = hw_rdmsr(sel_msr(c), &sel), r2 = hw_rdmsr(ctr_msr(c), &ctr);
		if (r1 == HW_ENODEV || r2 == HW_ENODEV)
			return fail(why, cap, "no MSR access here (the msr driver is not available)");
		if (r1 != HW_OK || r2 != HW_OK) {
			st.gp_missing |= 1u << c;
			continue;
		}
		st.gp_exists |= 1u << c;
		st.found_sel[c] = sel;
	}
	if (st.full_width) {
		uint64_t v;
		if (hw_rdmsr(st.fl->ctr_fw_base, &v) != HW_OK) {
			st.full_width = false;
			note("IA32_PERF_CAPABILITIES.FW_WRITE is set but IA32_A_PMC0 faulted; legacy counter writes used");
		}
	}
	return true;
}

static bool probe_global_and_fixed(const struct pmu_caps *caps, char *why, size_t cap)
{
	if (st.fl->global_ctrl) {
		if (hw_rdmsr(st.fl->global_ctrl, &st.found_global) != HW_OK ||
		    hw_rdmsr(st.fl->global_status, &st.found_status) != HW_OK)
			return fail(why, cap, "the global counter control MSR 0x%x faulted although CPUID reports a %s",
				    st.fl->global_ctrl, st.fl->label);
	}
	uint32_t want = fixed_expected(caps);
	if (want && hw_rdmsr(st.fl->fixed_ctrl, &st.found_fixed_ctrl) != HW_OK) {
		st.fixed_missing = want;
		want = 0;
	}
	for (unsigned f = 0; f < MAX_FIXED; f++) {
		uint64_t v;
		if (!(want & (1u << f)))
			continue;
		if (hw_rdmsr(fixed_msr(f), &v) == HW_OK) {
			st.fixed_exists |= 1u << f;
			st.n_fixed = f + 1;
		} else {
			st.fixed_missing |= 1u << f;
		}
	}
	return true;
}

/* A counter whose own enable bits are set is someone else's. */
static void find_in_use(void)
{
	for (unsigned c = 0; c < st.n_gp; c++)
		if ((st.gp_exists & (1u << c)) && (st.found_sel[c] & st.fl->sel_en))
			st.gp_in_use |= 1u << c;
	/* P6: PerfEvtSel0.EN runs both counters, so both are taken. */
	if (st.fl->toggle == TOGGLE_SELECT0 && (st.gp_in_use & 1u))
		st.gp_in_use = st.gp_exists;
	for (unsigned f = 0; f < st.n_fixed; f++)
		if ((st.fixed_exists & (1u << f)) &&
		    ((st.found_fixed_ctrl >> field_shift(f)) & st.fl->fixed_enable_mask))
			st.fixed_in_use |= 1u << f;

	uint32_t gp_held = st.force ? 0 : st.gp_in_use, fixed_held = st.force ? 0 : st.fixed_in_use;
	st.gp_usable = st.gp_exists & ~gp_held;
	st.fixed_usable = st.fixed_exists & ~fixed_held;
	st.keep_global = 0;
	st.keep_fixed = 0;
	for (unsigned c = 0; c < st.n_gp; c++)
		if (gp_held & (1u << c))
			st.keep_global |= st.found_global & gp_global_bit(c);
	for (unsigned f = 0; f < st.n_fixed; f++)
		if (fixed_held & (1u << f)) {
			st.keep_global |= st.found_global & fixed_global_bit(f);
			st.keep_fixed |= st.found_fixed_ctrl & (field_mask() << field_shift(f));
		}
}

/* Emulators that list a PMU but implement none (QEMU TCG) drop writes: prove one sticks. */
static bool writes_stick(char *why, size_t cap)
{
	unsigned c = 0;
	while (!(st.gp_usable & (1u << c)))
		c++;
	uint64_t orig = st.found_sel[c], test = (orig & ~st.fl->sel_en) ^ 1, got = 0;
	/* Saved first, restored last: the global switch goes back after everything it gates. */
	if (st.fl->global_ctrl)
		msr_save_remember(st.fl->global_ctrl);
	msr_log_phase("init: check that writes stick");
	int r = msr_save_write(sel_msr(c), test);
	if (r == HW_OK)
		hw_rdmsr(sel_msr(c), &got);
	msr_save_write(sel_msr(c), orig);
	msr_log_phase("");
	if (r != HW_OK)
		return fail(why, cap, "writing the event select MSR 0x%x failed (%s)", sel_msr(c), fault_text(r));
	if (got != test)
		return fail(why, cap, "PMU writes do not stick (MSR 0x%x: wrote 0x%llx, read back 0x%llx): this CPU "
			    "model does not implement the counters it reports (an emulator such as QEMU TCG?)",
			    sel_msr(c), (unsigned long long)test, (unsigned long long)got);
	return true;
}

/*
 * PERF_METRICS is usable where IA32_PERF_CAPABILITIES[15] says so and fixed counter 3 exists.
 * IA32_PERF_METRICS is saved now, early, so a restore writes it back after fixed counter 3 (saved
 * when a pass zeroes it): the SDM's order, counter first, metrics second.
 */
static void note_metrics(const struct pmu_caps *caps)
{
	if (!st.fl->perf_metrics || !caps->perf_metrics || !(st.fixed_exists & (1u << FIXED_TOPDOWN_SLOTS)))
		return;
	if (msr_save_remember(MSR_IA32_PERF_METRICS) != HW_OK) {
		note("IA32_PERF_CAPABILITIES[15] reports PERF_METRICS but IA32_PERF_METRICS (0x329) could not be read");
		return;
	}
	st.metrics_ok = true;
}

static bool msr_init(const struct cpu_info *ci, const struct pmu_caps *caps, const struct count_opts *opts, char *why,
		     size_t why_cap)
{
	struct msr_restore_result res;

	/* A second init starts from the machine as it was found. */
	if (msr_save_count())
		msr_save_restore(&res);
	memset(&st, 0, sizeof(st));
	st.pass = -1;
	st.force = opts && opts->force;
	st.verbose = opts && opts->verbose;
	st.hypervisor = ci && ci->hypervisor;

	if (!caps || caps->kind == PMU_NONE)
		return fail(why, why_cap, "%s", caps && caps->absent_reason ? caps->absent_reason :
			    "no performance counters were identified");
	st.fl = pmu_flavour_find(caps->kind, caps->version, ci ? ci->family : 0);
	if (!st.fl)
		return fail(why, why_cap, "no counter driver for this PMU (kind %d, version %u)", (int)caps->kind,
			    caps->version);
	st.n_gp = general_count(caps);
	st.gp_width = caps->kind == PMU_INTEL_ARCH && caps->gp_width ? caps->gp_width : st.fl->fallback_width;
	st.fixed_width = caps->fixed_width ? caps->fixed_width : st.gp_width;
	st.full_width = st.fl->ctr_fw_base && caps->full_width_write;
	st.any_ok = st.fl->sel_any && !caps->any_thread_deprecated;
	st.arch_pmu = caps->kind == PMU_INTEL_ARCH;
	st.arch_len = caps->arch_events_len;
	st.arch_absent = caps->arch_events_absent;
	st.arch_only = !ci || !ci->event_set || uarch_event_set_is_fallback(ci->event_set);
	/* Intel's legacy counter address takes EAX sign-extended (SDM Vol. 3B 20.2.5, Full-Width
	 * Writes): without IA32_A_PMCx (Core 2, Nehalem, Westmere, early Atoms, P6) a value with other
	 * bits above 31 cannot be written back. */
	st.legacy_writes = (caps->kind == PMU_INTEL_ARCH || caps->kind == PMU_INTEL_P6) && !st.full_width;
	/* OFFCORE_RSP_0/1 (1A6H/1A7H) arrive with Nehalem and Silvermont, both architectural PMU
	 * version 3 (SDM Vol. 4 Tables 2-15, 2-6); an offcore event exists only where they do. */
	st.offcore = st.arch_pmu && caps->version >= OFFCORE_MIN_ARCH_VERSION;
	st.events = ci && ci->event_set ? events_set_find(ci->event_set) : NULL;
	st.amd_family = ci && (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON) ? ci->family : 0;

	if (!probe_general(why, why_cap) || !probe_global_and_fixed(caps, why, why_cap))
		return false;
	if (!st.gp_exists && !st.fixed_exists)
		return fail(why, why_cap, "every counter MSR faulted although CPUID reports a %s", st.fl->label);
	find_in_use();
	if (!st.gp_usable && !st.fixed_usable)
		return fail(why, why_cap, "every counter is in use (found enabled by firmware or a BMC); "
			    "force_counters=on takes them over");
	if (st.gp_usable && !writes_stick(why, why_cap)) {
		msr_save_restore(&res);
		return false;
	}
	note_metrics(caps);
	st.ready = true;
	return true;
}

/* ---- scheduling ---- */

/* set->metrics: PERF_METRICS derives from fixed counter 3, so every pass needs it. */
static bool metrics_refused(const struct count_set *set, char *err, size_t cap)
{
	if (!set->metrics)
		return false;
	if (!st.metrics_ok) {
		snprintf(err, cap, "PERF_METRICS was asked for, but %s", !st.fl->perf_metrics || !st.arch_pmu ?
			 "this PMU has none (Intel architectural PMU version 4 and later)" :
			 !(st.fixed_exists & (1u << FIXED_TOPDOWN_SLOTS)) ? "this PMU has no fixed counter 3 (TOPDOWN.SLOTS)" :
			 "IA32_PERF_CAPABILITIES[15] (PERF_METRICS) is clear or could not be read");
		return true;
	}
	for (unsigned p = 0; p < set->passes; p++) {
		bool slots = false;
		for (size_t i = 0; i < set->n; i++)
			slots |= set->pass_of[i] == p && set->fixed_of[i] == FIXED_TOPDOWN_SLOTS;
		if (!slots) {
			snprintf(err, cap, "PERF_METRICS was asked for, but pass %u does not count fixed counter 3 "
				 "(TOPDOWN.SLOTS), from which the metrics derive: put TOPDOWN.SLOTS in every pass", p);
			return true;
		}
	}
	return false;
}

static bool msr_schedule(struct count_set *set, char *err, size_t err_cap)
{
	if (!st.ready) {
		snprintf(err, err_cap, "counting is not available: %s", st.why);
		return false;
	}
	struct count_slots s = {
		.gp_usable = st.gp_usable, .fixed_usable = st.fixed_usable,
		.n_gp = st.n_gp, .n_fixed = st.n_fixed,
		.gp_exists = st.gp_exists, .fixed_exists = st.fixed_exists,
		.gp_in_use = st.gp_exists & ~st.gp_usable, .fixed_in_use = st.fixed_exists & ~st.fixed_usable,
		.event0_fixed_only = st.fl->event0_fixed_only,
		.arch_pmu = st.arch_pmu, .arch_len = st.arch_len, .arch_absent = st.arch_absent,
		.arch_only = st.arch_only,
		.offcore = st.offcore,
		.events = st.events, .amd_family = st.amd_family,
		.any_absent = !st.fl->sel_any, .any_deprecated = st.fl->sel_any && !st.any_ok,
	};
	if (!count_sched_assign(set, &s, err, err_cap))
		return false;
	if (metrics_refused(set, err, err_cap)) {
		set->passes = 0;
		return false;
	}
	return true;
}

/* ---- one pass ---- */

static uint64_t priv_sel(enum count_priv p)
{
	return p == COUNT_PRIV_USER ? st.fl->sel_usr : p == COUNT_PRIV_KERNEL ? st.fl->sel_os :
	       st.fl->sel_usr | st.fl->sel_os;
}

static uint64_t priv_field(enum count_priv p)
{
	return p == COUNT_PRIV_USER ? st.fl->fixed_usr : p == COUNT_PRIV_KERNEL ? st.fl->fixed_os :
	       st.fl->fixed_usr | st.fl->fixed_os;
}

struct pass_plan {
	uint32_t gp, fixed;			/* counters used (a merged pair's odd counter included) */
	uint32_t merged;			/* even counters whose odd neighbour holds the Merge event */
	uint64_t sel[MAX_GP];			/* select values without EN */
	uint64_t field[MAX_FIXED];		/* fixed-control fields */
	bool rsp_used[2];			/* OFFCORE_RSP_0 / _1 programmed for this pass */
	uint64_t rsp[2];
	bool metrics;				/* PERF_METRICS enabled with fixed counter 3 */
};

/* The select of a merged pair's odd counter: the Merge event (msr_amd.h), no privilege bits. */
static bool merge_select(uint64_t *sel, char *err, size_t cap)
{
	struct event_spec merge;
	memset(&merge, 0, sizeof(merge));
	snprintf(merge.name, sizeof(merge.name), "Merge");
	merge.event = st.fl->merge_event;
	return pmu_encode_select(st.fl, false, &merge, sel, err, cap);
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

	if (c >= MAX_GP || !(st.gp_usable & (1u << c)) ||
	    (merged && (c + 1 >= MAX_GP || !(st.gp_usable & (1u << (c + 1)))))) {
		snprintf(err, cap, "event '%s' was scheduled on counter %u%s, which is not usable", ev->name, c,
			 merged ? " and the one after it" : "");
		return false;
	}
	if (merged && !st.fl->merge_event) {
		snprintf(err, cap, "event '%s' needs a merged counter pair, which this PMU (%s) does not have", ev->name,
			 st.fl->label);
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
	if (!pmu_encode_select(st.fl, st.any_ok, &form, &sel, err, cap))
		return false;
	pl->gp |= 1u << c;
	pl->sel[c] = sel | priv_sel(set->priv) | (set->pmi ? st.fl->sel_int : 0);
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
		if (set->counter_of[i] >= 0) {
			if (!plan_general(set, i, p, pl, err, cap))
				return false;
		} else if (set->fixed_of[i] >= 0) {
			unsigned f = (unsigned)set->fixed_of[i];
			if (f >= MAX_FIXED || !(st.fixed_usable & (1u << f))) {
				snprintf(err, cap, "event '%s' was scheduled on fixed counter %u, which is not usable",
					 ev->name, f);
				return false;
			}
			if (ev->any && !(st.fl->fixed_any && st.any_ok)) {
				snprintf(err, cap, "event '%s' asks for AnyThread counting, which this PMU does not offer",
					 ev->name);
				return false;
			}
			pl->fixed |= 1u << f;
			pl->field[f] = priv_field(set->priv) | (ev->any ? st.fl->fixed_any : 0) |
				       (set->pmi ? st.fl->fixed_pmi : 0);
		} else {
			snprintf(err, cap, "event '%s' has no counter: schedule the set first", ev->name);
			return false;
		}
	}
	if (set->metrics) {
		if (!st.metrics_ok || !(pl->fixed & (1u << FIXED_TOPDOWN_SLOTS))) {
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
	uint64_t g = st.keep_global;
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
	unsigned n = enable_order(pl, st.n_gp, order);

	memset(&set->start, 0, sizeof(set->start));
	memset(&set->stop, 0, sizeof(set->stop));
	switch (st.fl->toggle) {
	case TOGGLE_GLOBAL:
		toggle_add(&set->start, st.fl->global_ctrl, run_global(pl));
		toggle_add(&set->stop, st.fl->global_ctrl, st.keep_global);
		break;
	case TOGGLE_SELECT0:
		toggle_add(&set->start, sel_msr(0), pl->sel[0] | st.fl->sel_en);
		toggle_add(&set->stop, sel_msr(0), pl->sel[0]);
		break;
	case TOGGLE_EACH_SELECT:
		/* On: the Merge event before its even counter; off: in counter order, so the even
		 * counter stops before its Merge event does (as Linux does it). */
		for (unsigned k = 0; k < n; k++)
			if (pl->gp & (1u << order[k]))
				toggle_add(&set->start, sel_msr(order[k]), pl->sel[order[k]] | st.fl->sel_en);
		for (unsigned c = 0; c < st.n_gp; c++)
			if (pl->gp & (1u << c))
				toggle_add(&set->stop, sel_msr(c), pl->sel[c]);
		break;
	}
}

/* Selects and fixed controls for the pass, with every counter of ours stopped. */
static int program_controls(const struct pass_plan *pl, uint32_t *bad)
{
	uint8_t order[MAX_GP + 1];
	unsigned n = enable_order(pl, st.n_gp, order);
	int r;
	if (st.fl->global_ctrl && (r = put(*bad = st.fl->global_ctrl, st.keep_global)) != HW_OK)
		return r;
	/* With a global switch the selects carry EN already; otherwise the start list sets it. */
	uint64_t en = st.fl->toggle == TOGGLE_GLOBAL ? st.fl->sel_en : 0;
	for (unsigned k = 0; k < n; k++) {
		unsigned c = order[k];
		uint64_t cur = 0, want;
		/* What makes an unused counter count once the start list runs: its EN bit, or on P6
		 * (where select 0's EN runs both) the privilege bits of the other select. */
		uint64_t live = st.fl->toggle == TOGGLE_SELECT0 && c ? st.fl->sel_usr | st.fl->sel_os : st.fl->sel_en;
		if (!(st.gp_usable & (1u << c)))
			continue;
		if (pl->gp & (1u << c))
			want = pl->sel[c] | en;
		else if (hw_rdmsr(sel_msr(c), &cur) == HW_OK && (cur & live))
			want = 0;	/* ours from an earlier pass, or forced: off */
		else
			continue;
		if ((r = put(*bad = sel_msr(c), want)) != HW_OK)
			return r;
	}
	for (unsigned k = 0; k < 2; k++)
		if (pl->rsp_used[k] && (r = put(*bad = k ? MSR_OFFCORE_RSP_1 : MSR_OFFCORE_RSP_0, pl->rsp[k])) != HW_OK)
			return r;
	if (st.fl->fixed_ctrl && st.fixed_exists) {
		uint64_t want = st.keep_fixed;
		for (unsigned f = 0; f < MAX_FIXED; f++)
			if (pl->fixed & (1u << f))
				want |= pl->field[f] << field_shift(f);
		if ((r = put(*bad = st.fl->fixed_ctrl, want)) != HW_OK)
			return r;
	}
	return HW_OK;
}

/* The harness runs the lists with plain WRMSR: try them once here, where a fault is survivable. */
static int check_toggles(const struct count_set *set, uint32_t *bad)
{
	const struct count_toggle *lists[2] = { &set->start, &set->stop };
	if (st.checked && !memcmp(&st.checked_start, &set->start, sizeof(set->start)) &&
	    !memcmp(&st.checked_stop, &set->stop, sizeof(set->stop)))
		return HW_OK;
	st.checked = false;
	for (unsigned l = 0; l < 2; l++) {
		msr_log_phase(l ? "check stop list" : "check start list");
		for (uint32_t i = 0; i < lists[l]->n; i++) {
			int r = msr_save_write(*bad = lists[l]->w[i].msr, lists[l]->w[i].value);
			if (r != HW_OK)
				return r;
		}
	}
	st.checked_start = set->start;
	st.checked_stop = set->stop;
	st.checked = true;
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
		uint64_t v = set->preset & mask_of(st.gp_width);
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
			int r = msr_save_write(*bad = fixed_msr(f), set->preset & mask_of(st.fixed_width));
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
	return run_global(pl) & ~st.keep_global;
}

/* Overflow flags of our counters left from before would hide an overflow in this pass. */
static void clear_overflow(uint64_t bits)
{
	uint64_t status;
	if (!st.fl->global_status || hw_rdmsr(st.fl->global_status, &status) != HW_OK || !(status & bits))
		return;
	msr_log_phase("clear overflow");
	msr_save_command(st.fl->global_ovf_clear, status & bits);
}

/* How many bits an event's counter holds: a merged pair's even PERF_CTR reads all 64 (msr_amd.h). */
static unsigned width_of(const struct count_set *set, size_t i)
{
	return set->fixed_of[i] >= 0 ? st.fixed_width : set->merged_of[i] ? AMD_MERGED_WIDTH : st.gp_width;
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

static void emit_program(const struct count_set *set, unsigned p, uint64_t mark);

static bool msr_pass_begin(struct count_set *set, unsigned pass, char *err, size_t err_cap)
{
	struct pass_plan pl;
	uint32_t bad = 0;
	int r;

	if (!st.ready) {
		snprintf(err, err_cap, "counting is not available: %s", st.why);
		return false;
	}
	if (pass >= set->passes) {
		snprintf(err, err_cap, "pass %u does not exist (the set has %u)", pass, set->passes);
		return false;
	}
	if (!plan_pass(set, pass, &pl, err, err_cap))
		return false;
	uint64_t mark = msr_log_total();
	st.set = set;
	st.pass = (int)pass;
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
		snprintf(err, err_cap, "programming pass %u: writing MSR 0x%x failed (%s)", pass, bad, fault_text(r));
		return false;
	}
	st.pass_status_bits = st.fl->global_status ? status_bits(&pl) : 0;
	clear_overflow(st.pass_status_bits);
	msr_log_phase("");
	for (size_t i = 0; i < set->n; i++)
		if (set->pass_of[i] == pass && !read_counter(set, i, &st.base[i])) {
			snprintf(err, err_cap, "reading the counter of event '%s' failed", set->ev[i].name);
			return false;
		}
	if (st.verbose)
		emit_program(set, pass, mark);
	return true;
}

static bool msr_read_pass(struct count_set *set, unsigned pass, uint64_t *values, char *err, size_t err_cap)
{
	uint64_t status = 0, ovf = 0;

	if (!st.ready || st.set != set || st.pass != (int)pass) {
		snprintf(err, err_cap, "pass %u is not the pass programmed", pass);
		return false;
	}
	if (st.pass_status_bits && hw_rdmsr(st.fl->global_status, &status) == HW_OK)
		ovf = status & st.pass_status_bits;
	for (size_t i = 0; i < set->n; i++) {
		uint64_t v;
		if (set->pass_of[i] != pass)
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
		if ((ovf & bit) && v >= st.base[i]) {
			snprintf(err, err_cap, "the counter of event '%s' overflowed: more than 2^%u events in one "
				 "reading", set->ev[i].name, width_of(set, i));
			return false;
		}
		values[i] = count_delta(st.base[i], v, width_of(set, i));
		st.base[i] = v;
	}
	if (ovf) {
		msr_log_phase("clear overflow");
		msr_save_command(st.fl->global_ovf_clear, ovf);
		msr_log_phase("");
	}
	return true;
}

static void apply_stop(const struct count_set *set, const char *phase)
{
	msr_log_phase(phase);
	for (uint32_t i = 0; i < set->stop.n; i++)
		put(set->stop.w[i].msr, set->stop.w[i].value);
	msr_log_phase("");
}

static void msr_pass_end(struct count_set *set, unsigned pass)
{
	if (st.set != set || st.pass != (int)pass)
		return;
	apply_stop(set, "pass end");
	st.set = NULL;
	st.pass = -1;
}

/* ---- restore ----
 *
 * Order matters for exactness: a counter written back while it still
 * counts would not stay as found.  The stop list runs first; then
 * msr_save restores newest first, and the save order is global switch
 * (saved at init), selects and fixed control, then counters - so counters
 * go back while nothing of ours can run, and the global switch last.
 */

/* What a legacy-address write of v leaves in a counter: bits 31:0, sign-extended to the width. */
static uint64_t legacy_result(uint64_t v)
{
	return (uint64_t)(int64_t)(int32_t)(uint32_t)v & mask_of(st.gp_width);
}

/*
 * Counters found holding a value the legacy address cannot write back: named per counter in
 * the restore record (and a line of text), before the restore writes what it can (bits 31:0).
 */
static unsigned inexact_counters(struct rec *r)
{
	unsigned n = 0;
	char name[16];
	for (unsigned c = 0; st.legacy_writes && c < st.n_gp; c++) {
		uint64_t found;
		if (!msr_save_original(ctr_msr(c), &found) || legacy_result(found) == found)
			continue;
		if (!n++)
			rec_arr(r, "inexact_counters");
		snprintf(name, sizeof(name), "pmc%u", c);
		rec_obj(r, NULL);
		rec_str(r, "counter", name);
		rec_hex(r, "msr", ctr_msr(c));
		rec_hex(r, "found", found);
		rec_hex(r, "restorable", legacy_result(found));
		rec_str(r, "why", "no full-width alias (IA32_A_PMCx): the legacy address takes bits 31:0 "
				  "sign-extended, so bits above 31 cannot be put back");
		rec_obj_end(r);
		out_text("pmu: %s (MSR 0x%x) was found at 0x%llx; this CPU has no full-width counter alias, so only "
			 "bits 31:0 go back (0x%llx)", name, ctr_msr(c), (unsigned long long)found,
			 (unsigned long long)legacy_result(found));
	}
	if (n)
		rec_arr_end(r);
	return n;
}

static void msr_restore(void)
{
	struct msr_restore_result res;
	struct rec *r = &rbuf;

	if (st.set)
		apply_stop(st.set, "restore");
	st.set = NULL;
	st.pass = -1;
	st.checked = false;
	if (!msr_save_count())
		return;
	rec_start(r, "restore");
	rec_str(r, "what", "pmu");
	inexact_counters(r);
	msr_save_restore(&res);
	msr_restore_fields(r, &res, fault_text);
	rec_emit(r);
	if (res.mismatched)
		out_text("pmu: restored %u MSRs; %u did not read back as found (see the restore record)", res.restored,
			 res.mismatched);
	else
		out_text("pmu: restored %u MSRs exactly as found", res.restored);
}

/* ---- records ---- */

static void counter_list(struct rec *r, const char *key, uint32_t gp, uint32_t fixed)
{
	char name[16];
	rec_arr(r, key);
	for (unsigned c = 0; c < MAX_GP; c++)
		if (gp & (1u << c)) {
			snprintf(name, sizeof(name), "pmc%u", c);
			rec_str(r, NULL, name);
		}
	for (unsigned f = 0; f < MAX_FIXED; f++)
		if (fixed & (1u << f)) {
			snprintf(name, sizeof(name), "fixed%u", f);
			rec_str(r, NULL, name);
		}
	rec_arr_end(r);
}

static void msr_state_fields(struct rec *r)
{
	char name[16];

	rec_str(r, "count_backend", "msr");
	rec_bool(r, "counting", st.ready);
	rec_str(r, "counting_reason", st.ready ? NULL : st.why);
	if (!st.fl)
		return;
	rec_str(r, "count_flavour", st.fl->name);
	rec_u64(r, "counters_general", bits(st.gp_usable));
	rec_u64(r, "counters_fixed", bits(st.fixed_usable));
	rec_u64(r, "counter_width", st.gp_width);
	if (st.fixed_exists)
		rec_u64(r, "fixed_counter_width", st.fixed_width);
	rec_bool(r, "full_width_writes", st.full_width);
	rec_obj(r, "found");
	if (st.fl->global_ctrl) {
		rec_hex(r, "global_ctrl", st.found_global);
		rec_hex(r, "global_status", st.found_status);
	}
	if (st.fl->fixed_ctrl && st.fixed_exists)
		rec_hex(r, "fixed_ctr_ctrl", st.found_fixed_ctrl);
	rec_obj_end(r);
	rec_arr(r, "counters_in_use");
	for (unsigned c = 0; c < st.n_gp; c++)
		if (st.gp_in_use & (1u << c)) {
			rec_obj(r, NULL);
			snprintf(name, sizeof(name), "pmc%u", c);
			rec_str(r, "counter", name);
			rec_hex(r, "msr", sel_msr(c));
			rec_hex(r, "value", st.found_sel[c]);
			rec_bool(r, "forced", st.force);
			rec_obj_end(r);
		}
	for (unsigned f = 0; f < st.n_fixed; f++)
		if (st.fixed_in_use & (1u << f)) {
			rec_obj(r, NULL);
			snprintf(name, sizeof(name), "fixed%u", f);
			rec_str(r, "counter", name);
			rec_hex(r, "msr", st.fl->fixed_ctrl);
			rec_hex(r, "value", (st.found_fixed_ctrl >> field_shift(f)) & field_mask());
			rec_bool(r, "forced", st.force);
			rec_obj_end(r);
		}
	rec_arr_end(r);
	rec_bool(r, "force_counters", st.force);
	if (st.gp_missing || st.fixed_missing)
		counter_list(r, "counters_missing", st.gp_missing, st.fixed_missing);
	if (st.nnotes) {
		rec_arr(r, "count_notes");
		for (unsigned i = 0; i < st.nnotes; i++)
			rec_str(r, NULL, st.notes[i]);
		rec_arr_end(r);
	}
}

static void write_list(struct rec *r, const char *key, const struct count_toggle *t)
{
	rec_arr(r, key);
	for (uint32_t i = 0; i < t->n; i++) {
		rec_obj(r, NULL);
		rec_hex(r, "msr", t->w[i].msr);
		rec_hex(r, "value", t->w[i].value);
		rec_obj_end(r);
	}
	rec_arr_end(r);
}

/* FNV-1a over what decides a set's programming: a harness reusing one count_set
 * for different events still gets a record for each. */
static uint64_t set_signature(const struct count_set *set)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < set->n; i++) {
		const struct event_spec *e = &set->ev[i];
		uint64_t parts[] = { e->event, e->umask, e->cmask, (uint64_t)e->inv << 2 | e->edge << 1 | e->any,
				     set->pass_of[i], (uint8_t)set->counter_of[i], (uint8_t)set->fixed_of[i] };
		for (size_t k = 0; k < ARRAY_SIZE(parts); k++)
			h = (h ^ parts[k]) * 0x100000001b3ull;
	}
	return (h ^ set->priv ^ set->n) * 0x100000001b3ull;
}

/* The `program` record (verbose=on): once per pass of a set. */
static void emit_program(const struct count_set *set, unsigned p, uint64_t mark)
{
	struct rec *r = &rbuf;
	char name[16];
	uint64_t sig = set_signature(set);

	if (st.recorded_sig != sig) {
		st.recorded_sig = sig;
		st.recorded = 0;
	}
	if (p < 32 && (st.recorded & (1u << p)))
		return;
	if (p < 32)
		st.recorded |= 1u << p;
	rec_start(r, "program");
	rec_str(r, "backend", "msr");
	rec_str(r, "flavour", st.fl->name);
	rec_u64(r, "pass", p);
	rec_u64(r, "passes", set->passes);
	rec_arr(r, "events");
	for (size_t i = 0; i < set->n; i++) {
		if (set->pass_of[i] != p)
			continue;
		rec_obj(r, NULL);
		rec_str(r, "name", set->ev[i].name);
		rec_str(r, "counter", count_sched_counter_name(set, i, name));
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_arr(r, "writes");
	for (uint64_t k = mark; k < msr_log_total(); k++) {
		const struct msr_log_entry *e = msr_log_get(k);
		if (!e)
			continue;
		rec_obj(r, NULL);
		rec_hex(r, "msr", e->msr);
		rec_hex(r, "value", e->value);
		rec_str(r, "phase", e->phase);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	write_list(r, "start", &set->start);
	write_list(r, "stop", &set->stop);
	rec_emit(r);
}

/* ---- for tools ---- */

const struct pmu_flavour *count_msr_flavour(void) { return st.ready ? st.fl : NULL; }

bool count_msr_view(struct count_msr_view *v)
{
	if (!st.ready)
		return false;
	v->fl = st.fl;
	v->gp_usable = st.gp_usable;
	v->fixed_usable = st.fixed_usable;
	v->gp_width = st.gp_width;
	v->fixed_width = st.fixed_width;
	v->full_width = st.full_width;
	v->legacy_writes = st.legacy_writes;
	return true;
}

void count_msr_describe(char *buf, size_t cap)
{
	if (!st.fl) {
		snprintf(buf, cap, "no counter driver: %s", st.why);
		return;
	}
	size_t n = (size_t)snprintf(buf, cap, "%s: %u general counters x %u bits", st.fl->label,
				    bits(st.gp_usable), st.gp_width);
	if (n < cap && st.fixed_exists)
		n = str_appendf(buf, cap, n, ", %u fixed x %u bits", bits(st.fixed_usable), st.fixed_width);
	if (n < cap && st.full_width)
		n = str_appendf(buf, cap, n, ", full-width writes");
	if (n < cap && (st.gp_in_use || st.fixed_in_use))
		n = str_appendf(buf, cap, n, ", %u found in use%s", bits(st.gp_in_use) + bits(st.fixed_in_use),
				st.force ? " (forced)" : " (left alone)");
	if (n < cap && !st.ready)
		str_appendf(buf, cap, n, "; not counting: %s", st.why);
}

const struct count_backend count_backend_msr = {
	.name = "msr",
	.init = msr_init,
	.schedule = msr_schedule,
	.pass_begin = msr_pass_begin,
	.read = msr_read_pass,
	.pass_end = msr_pass_end,
	.restore = msr_restore,
	.state_fields = msr_state_fields,
};
