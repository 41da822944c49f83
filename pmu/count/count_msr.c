/*
 * pmu/count/count_msr.c - the counting backend that programs the PMU's MSRs: init and scheduling
 * here; one pass in count_msr_pass.c, restoring and records in count_msr_report.c (count_msr_int.h).
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
#include "pmu/count/count_msr_int.h"
#include "pmu/count/pmu_encode.h"
#include "cpu/uarch.h"
#include "lib/x86/msr_intel.h"
#include "lib/x86/msr_amd.h"
#include "lib/out.h"
#include "lib/strbuf.h"

#define OFFCORE_MIN_ARCH_VERSION 3

/* ---- init: read what is there ---- */

/* One past the highest set bit. */
static unsigned top_bit(uint32_t v)
{
	unsigned n = 0;
	for (; v; v >>= 1)
		n++;
	return n;
}

/* How many general counters to look at; msr_st.gp_expected says which of them the CPU enumerates
 * (CPUID.(23H,1):EAX on parts with leaf 23H, which need not be contiguous). */
static unsigned general_count(const struct pmu_caps *caps)
{
	uint32_t mask = pmu_caps_gp_mask(caps);
	unsigned n = caps->kind == PMU_INTEL_ARCH ? top_bit(mask) :
		     caps->kind == PMU_INTEL_P6 ? 0 : caps->amd_n_counters;
	if (!n) {
		n = msr_st.fl->fallback_gp;
		mask = 0;
	}
	n = n > msr_st.fl->max_gp ? msr_st.fl->max_gp : n > MAX_GP ? MAX_GP : n;
	msr_st.gp_expected = (mask ? mask : ~0u) & ((1u << n) - 1);
	return n;
}

/* Fixed counters that should exist, as a bit mask: CPUID.(23H,1):EBX where leaf 23H enumerates
 * them (this core type's view on a hybrid part), else CPUID.0AH. */
static uint32_t fixed_expected(const struct pmu_caps *caps)
{
	if (!msr_st.fl->fixed_ctrl)
		return 0;
	if (caps->arch_ext && caps->ext_fixed_mask)
		return pmu_caps_fixed_mask(caps) & ((1u << MAX_FIXED) - 1);
	unsigned n = caps->n_fixed;
	if (n < msr_st.fl->fixed_min_bare_metal && !msr_st.hypervisor) {
		n = msr_st.fl->fixed_min_bare_metal;
		msr_note("CPUID.0AH:EDX under-reports the fixed counters of early Core 2 / Bonnell parts; "
		     "3 are assumed and probed (SDM Vol. 3B, Architectural Performance Monitoring Version 2, NOTE)");
	}
	uint32_t bits = n >= 32 ? ~0u : (1u << n) - 1;
	if (msr_st.fl->fixed_bitmap)
		bits |= caps->fixed_bitmap;
	return bits & ((1u << MAX_FIXED) - 1);
}

static bool fail(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msr_st.why, sizeof(msr_st.why), fmt, ap);
	va_end(ap);
	snprintf(why, cap, "%s", msr_st.why);
	msr_st.ready = false;
	return false;
}

static bool probe_general(char *why, size_t cap)
{
	for (unsigned c = 0; c < msr_st.n_gp; c++) {
		uint64_t sel, ctr;
		if (!(msr_st.gp_expected & (1u << c)))
			continue;
		int r1 = hw_rdmsr(sel_msr(c), &sel), r2 = hw_rdmsr(ctr_msr(c), &ctr);
		if (r1 == HW_ENODEV || r2 == HW_ENODEV)
			return fail(why, cap, "no MSR access here (the msr driver is not available)");
		if (r1 != HW_OK || r2 != HW_OK) {
			msr_st.gp_missing |= 1u << c;
			continue;
		}
		msr_st.gp_exists |= 1u << c;
		msr_st.found_sel[c] = sel;
	}
	if (msr_st.full_width) {
		uint64_t v;
		if (hw_rdmsr(msr_st.fl->ctr_fw_base, &v) != HW_OK) {
			msr_st.full_width = false;
			msr_note("IA32_PERF_CAPABILITIES.FW_WRITE is set but IA32_A_PMC0 faulted; legacy counter writes used");
		}
	}
	return true;
}

static bool probe_global_and_fixed(const struct pmu_caps *caps, char *why, size_t cap)
{
	if (msr_st.fl->global_ctrl) {
		if (hw_rdmsr(msr_st.fl->global_ctrl, &msr_st.found_global) != HW_OK ||
		    hw_rdmsr(msr_st.fl->global_status, &msr_st.found_status) != HW_OK)
			return fail(why, cap, "the global counter control MSR 0x%x faulted although CPUID reports a %s",
				    msr_st.fl->global_ctrl, msr_st.fl->label);
	}
	uint32_t want = fixed_expected(caps);
	if (want && hw_rdmsr(msr_st.fl->fixed_ctrl, &msr_st.found_fixed_ctrl) != HW_OK) {
		msr_st.fixed_missing = want;
		want = 0;
	}
	for (unsigned f = 0; f < MAX_FIXED; f++) {
		uint64_t v;
		if (!(want & (1u << f)))
			continue;
		if (hw_rdmsr(fixed_msr(f), &v) == HW_OK) {
			msr_st.fixed_exists |= 1u << f;
			msr_st.n_fixed = f + 1;
		} else {
			msr_st.fixed_missing |= 1u << f;
		}
	}
	return true;
}

/* A counter whose own enable bits are set is someone else's. */
static void find_in_use(void)
{
	for (unsigned c = 0; c < msr_st.n_gp; c++)
		if ((msr_st.gp_exists & (1u << c)) && (msr_st.found_sel[c] & msr_st.fl->sel_en))
			msr_st.gp_in_use |= 1u << c;
	/* P6: PerfEvtSel0.EN runs both counters, so both are taken. */
	if (msr_st.fl->toggle == TOGGLE_SELECT0 && (msr_st.gp_in_use & 1u))
		msr_st.gp_in_use = msr_st.gp_exists;
	for (unsigned f = 0; f < msr_st.n_fixed; f++)
		if ((msr_st.fixed_exists & (1u << f)) &&
		    ((msr_st.found_fixed_ctrl >> field_shift(f)) & msr_st.fl->fixed_enable_mask))
			msr_st.fixed_in_use |= 1u << f;

	uint32_t gp_held = msr_st.force ? 0 : msr_st.gp_in_use, fixed_held = msr_st.force ? 0 : msr_st.fixed_in_use;
	msr_st.gp_usable = msr_st.gp_exists & ~gp_held;
	msr_st.fixed_usable = msr_st.fixed_exists & ~fixed_held;
	msr_st.keep_global = 0;
	msr_st.keep_fixed = 0;
	for (unsigned c = 0; c < msr_st.n_gp; c++)
		if (gp_held & (1u << c))
			msr_st.keep_global |= msr_st.found_global & gp_global_bit(c);
	for (unsigned f = 0; f < msr_st.n_fixed; f++)
		if (fixed_held & (1u << f)) {
			msr_st.keep_global |= msr_st.found_global & fixed_global_bit(f);
			msr_st.keep_fixed |= msr_st.found_fixed_ctrl & (field_mask() << field_shift(f));
		}
}

/* Emulators that list a PMU but implement none (QEMU TCG) drop writes: prove one sticks. */
static bool writes_stick(char *why, size_t cap)
{
	unsigned c = 0;
	while (!(msr_st.gp_usable & (1u << c)))
		c++;
	uint64_t orig = msr_st.found_sel[c], test = (orig & ~msr_st.fl->sel_en) ^ 1, got = 0;
	/* Saved first, restored last: the global switch goes back after everything it gates. */
	if (msr_st.fl->global_ctrl)
		msr_save_remember(msr_st.fl->global_ctrl);
	msr_log_phase("init: check that writes stick");
	int r = msr_save_write(sel_msr(c), test);
	if (r == HW_OK)
		hw_rdmsr(sel_msr(c), &got);
	msr_save_write(sel_msr(c), orig);
	msr_log_phase("");
	if (r != HW_OK)
		return fail(why, cap, "writing the event select MSR 0x%x failed (%s)", sel_msr(c), msr_fault_text(r));
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
	if (!msr_st.fl->perf_metrics || !caps->perf_metrics || !(msr_st.fixed_exists & (1u << FIXED_TOPDOWN_SLOTS)))
		return;
	if (msr_save_remember(MSR_IA32_PERF_METRICS) != HW_OK) {
		msr_note("IA32_PERF_CAPABILITIES[15] reports PERF_METRICS but IA32_PERF_METRICS (0x329) could not be read");
		return;
	}
	msr_st.metrics_ok = true;
}

static bool msr_init(const struct cpu_info *ci, const struct pmu_caps *caps, const struct count_opts *opts, char *why,
		     size_t why_cap)
{
	struct msr_restore_result res;

	/* A second init starts from the machine as it was found. */
	if (msr_save_count())
		msr_save_restore(&res);
	memset(&msr_st, 0, sizeof(msr_st));
	msr_st.pass = -1;
	msr_st.force = opts && opts->force;
	msr_st.verbose = opts && opts->verbose;
	msr_st.hypervisor = ci && ci->hypervisor;

	if (!caps || caps->kind == PMU_NONE)
		return fail(why, why_cap, "%s", caps && caps->absent_reason ? caps->absent_reason :
			    "no performance counters were identified");
	msr_st.fl = pmu_flavour_find(caps->kind, caps->version, ci ? ci->family : 0);
	if (!msr_st.fl)
		return fail(why, why_cap, "no counter driver for this PMU (kind %d, version %u)", (int)caps->kind,
			    caps->version);
	msr_st.n_gp = general_count(caps);
	msr_st.gp_width = caps->kind == PMU_INTEL_ARCH && caps->gp_width ? caps->gp_width : msr_st.fl->fallback_width;
	msr_st.fixed_width = caps->fixed_width ? caps->fixed_width : msr_st.gp_width;
	msr_st.full_width = msr_st.fl->ctr_fw_base && caps->full_width_write;
	msr_st.any_ok = msr_st.fl->sel_any && !caps->any_thread_deprecated;
	msr_st.arch_pmu = caps->kind == PMU_INTEL_ARCH;
	msr_st.arch_len = caps->arch_events_len;
	msr_st.arch_absent = caps->arch_events_absent;
	msr_st.arch_only = !ci || !ci->event_set || uarch_event_set_is_fallback(ci->event_set);
	/* Intel's legacy counter address takes EAX sign-extended (SDM Vol. 3B 20.2.5, Full-Width
	 * Writes): without IA32_A_PMCx (Core 2, Nehalem, Westmere, early Atoms, P6) a value with other
	 * bits above 31 cannot be written back. */
	msr_st.legacy_writes = (caps->kind == PMU_INTEL_ARCH || caps->kind == PMU_INTEL_P6) && !msr_st.full_width;
	/* OFFCORE_RSP_0/1 (1A6H/1A7H) arrive with Nehalem and Silvermont, both architectural PMU
	 * version 3 (SDM Vol. 4 Tables 2-15, 2-6); an offcore event exists only where they do. */
	msr_st.offcore = msr_st.arch_pmu && caps->version >= OFFCORE_MIN_ARCH_VERSION;
	msr_st.events = ci && ci->event_set ? events_set_find(ci->event_set) : NULL;
	msr_st.amd_family = ci && (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON) ? ci->family : 0;

	if (!probe_general(why, why_cap) || !probe_global_and_fixed(caps, why, why_cap))
		return false;
	if (!msr_st.gp_exists && !msr_st.fixed_exists)
		return fail(why, why_cap, "every counter MSR faulted although CPUID reports a %s", msr_st.fl->label);
	find_in_use();
	if (!msr_st.gp_usable && !msr_st.fixed_usable)
		return fail(why, why_cap, "every counter is in use (found enabled by firmware or a BMC); "
			    "force_counters=on takes them over");
	if (msr_st.gp_usable && !writes_stick(why, why_cap)) {
		msr_save_restore(&res);
		return false;
	}
	note_metrics(caps);
	msr_st.ready = true;
	return true;
}

/* ---- scheduling ---- */

/* PERF_METRICS derives from fixed counter 3: set->metrics needs it in every pass, a set of PERF_METRICS
 * fields in the passes that read them (the scheduler puts them with it). */
static bool metrics_refused(const struct count_set *set, char *err, size_t cap)
{
	bool td = count_msr_has_td(set);
	if (!set->metrics && !td)
		return false;
	if (!msr_st.metrics_ok) {
		snprintf(err, cap, "PERF_METRICS was asked for, but %s", !msr_st.fl->perf_metrics || !msr_st.arch_pmu ?
			 "this PMU has none (Intel architectural PMU version 4 and later)" :
			 !(msr_st.fixed_exists & (1u << FIXED_TOPDOWN_SLOTS)) ? "this PMU has no fixed counter 3 (TOPDOWN.SLOTS)" :
			 "IA32_PERF_CAPABILITIES[15] (PERF_METRICS) is clear or could not be read");
		return true;
	}
	for (unsigned p = 0; p < set->passes; p++) {
		bool slots = false, fields = false;
		for (size_t i = 0; i < set->n; i++) {
			slots |= set->pass_of[i] == p && set->fixed_of[i] == FIXED_TOPDOWN_SLOTS;
			fields |= set->pass_of[i] == p && count_td_field(&set->ev[i]) >= 0;
		}
		/* PERF_METRICS fields need it in their pass; the audit's set->metrics in every pass. */
		if (!slots && (fields || !td)) {
			snprintf(err, cap, "PERF_METRICS was asked for, but pass %u does not count fixed counter 3 "
				 "(TOPDOWN.SLOTS), from which the metrics derive: put TOPDOWN.SLOTS in every pass", p);
			return true;
		}
	}
	return false;
}

static bool msr_schedule(struct count_set *set, char *err, size_t err_cap)
{
	if (!msr_st.ready) {
		snprintf(err, err_cap, "counting is not available: %s", msr_st.why);
		return false;
	}
	struct count_slots s = {
		.gp_usable = msr_st.gp_usable, .fixed_usable = msr_st.fixed_usable,
		.n_gp = msr_st.n_gp, .n_fixed = msr_st.n_fixed,
		.gp_exists = msr_st.gp_exists, .fixed_exists = msr_st.fixed_exists,
		.gp_in_use = msr_st.gp_exists & ~msr_st.gp_usable, .fixed_in_use = msr_st.fixed_exists & ~msr_st.fixed_usable,
		.event0_fixed_only = msr_st.fl->event0_fixed_only,
		.arch_pmu = msr_st.arch_pmu, .arch_len = msr_st.arch_len, .arch_absent = msr_st.arch_absent,
		.arch_only = msr_st.arch_only,
		.offcore = msr_st.offcore,
		.events = msr_st.events, .amd_family = msr_st.amd_family,
		.any_absent = !msr_st.fl->sel_any, .any_deprecated = msr_st.fl->sel_any && !msr_st.any_ok,
	};
	if (!count_sched_assign(set, &s, err, err_cap))
		return false;
	if (metrics_refused(set, err, err_cap)) {
		set->passes = 0;
		return false;
	}
	return true;
}

/* ---- for tools ---- */

const struct pmu_flavour *count_msr_flavour(void) { return msr_st.ready ? msr_st.fl : NULL; }

bool count_msr_view(struct count_msr_view *v)
{
	if (!msr_st.ready)
		return false;
	v->fl = msr_st.fl;
	v->gp_usable = msr_st.gp_usable;
	v->fixed_usable = msr_st.fixed_usable;
	v->gp_width = msr_st.gp_width;
	v->fixed_width = msr_st.fixed_width;
	v->full_width = msr_st.full_width;
	v->legacy_writes = msr_st.legacy_writes;
	return true;
}

void count_msr_describe(char *buf, size_t cap)
{
	if (!msr_st.fl) {
		snprintf(buf, cap, "no counter driver: %s", msr_st.why);
		return;
	}
	size_t n = (size_t)snprintf(buf, cap, "%s: %u general counters x %u bits", msr_st.fl->label,
				    bits(msr_st.gp_usable), msr_st.gp_width);
	if (n < cap && msr_st.fixed_exists)
		n = str_appendf(buf, cap, n, ", %u fixed x %u bits", bits(msr_st.fixed_usable), msr_st.fixed_width);
	if (n < cap && msr_st.full_width)
		n = str_appendf(buf, cap, n, ", full-width writes");
	if (n < cap && (msr_st.gp_in_use || msr_st.fixed_in_use))
		n = str_appendf(buf, cap, n, ", %u found in use%s", bits(msr_st.gp_in_use) + bits(msr_st.fixed_in_use),
				msr_st.force ? " (forced)" : " (left alone)");
	if (n < cap && !msr_st.ready)
		str_appendf(buf, cap, n, "; not counting: %s", msr_st.why);
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
