/* pmu/freq/freq.c - the level chosen, the result, its record fields and line; see freq.h. */
#include "pmu/freq/freq_int.h"
#include "platform/hw.h"
#include "platform/timing.h"
#include "lib/out.h"
#include "lib/strbuf.h"
#include "lib/x86/cpuid.h"

static struct freq_result res;
static struct freq_plat plat;		/* 2 KiB of levels: kept off the stack */
static struct rec restore_rec;

static const char *const ask_names[] = { [FREQ_ASK_KEEP] = "keep", [FREQ_ASK_BASE] = "base", [FREQ_ASK_MAX] = "max" };
static const char *const boost_names[] = { [FREQ_BOOST_KEEP] = "keep", [FREQ_BOOST_ON] = "on",
					    [FREQ_BOOST_OFF] = "off" };
/* What a level's value is called, per control, in the `freq_chosen` text. */
static const struct {
	const char *control, *value;
} value_names[] = {
	{ "hwp", "HWP level" }, { "perf_ctl", "ratio" }, { "amd_cppc", "CPPC level" }, { "amd_pstate", "P-state" },
};

static const char *value_name(const char *control)
{
	for (size_t i = 0; i < ARRAY_SIZE(value_names); i++)
		if (!strcmp(value_names[i].control, control))
			return value_names[i].value;
	return "level";
}

/* Pinning needs a TSC whose rate does not follow the core clock: the timing figures and the proof use it. */
static bool invariant_tsc(const struct cpu_info *ci)
{
	struct cpuid_regs r = { 0 };
	if (ci->max_ext_leaf >= CPUID_LEAF_EXT_POWER)
		hw_cpuid(CPUID_LEAF_EXT_POWER, 0, &r);
	return (r.edx & CPUID_EXT_POWER_EDX_INVARIANT_TSC) != 0;
}

static void begin(const struct freq_opts *o)
{
	memset(&res, 0, sizeof(res));
	res.set = true;
	res.boost_asked = boost_names[o->boost];
	if (o->ask == FREQ_ASK_MHZ)
		snprintf(res.option, sizeof(res.option), "%u", o->mhz);
	else
		snprintf(res.option, sizeof(res.option), "%s", ask_names[o->ask]);
	snprintf(res.boost_done, sizeof(res.boost_done), "unchanged");
	timing_set_fields(freq_fields);
}

/* The level o asks for, within what boost allows; NULL with res.why when there is none. */
static const struct freq_level *choose(const struct freq_opts *o)
{
	bool boost = o->boost == FREQ_BOOST_ON ? plat.boost_exists : o->boost == FREQ_BOOST_OFF ? false : plat.boost_on;
	unsigned top = boost ? plat.nlevels - 1 : plat.base;
	const struct freq_level *lv = &plat.level[top];
	const char *name = value_name(plat.control);
	size_t k = 0;

	if (o->ask == FREQ_ASK_BASE) {
		lv = &plat.level[plat.base];
		k = (size_t)snprintf(res.chosen, sizeof(res.chosen), "base: %s %u", name, lv->value);
	} else if (o->ask == FREQ_ASK_MAX) {
		k = (size_t)snprintf(res.chosen, sizeof(res.chosen), "max %s boost: %s %u", boost ? "with" : "without",
				     name, lv->value);
	} else {
		unsigned i = top + 1;
		while (i-- > 0 && plat.level[i].mhz > o->mhz)
			;
		if (i > top) {
			k = (size_t)snprintf(res.why, sizeof(res.why), "%u MHz is below the lowest level %s offers (%u "
					     "MHz); nothing was written", o->mhz, plat.control, plat.level[0].mhz);
			str_appendf(res.why, sizeof(res.why), k, "; %s", plat.note);
			return NULL;
		}
		lv = &plat.level[i];
		k = (size_t)snprintf(res.chosen, sizeof(res.chosen), "%u MHz asked: %s %u (%u MHz), the highest at or "
				     "below it%s", o->mhz, name, lv->value, lv->mhz,
				     i == top && o->mhz > lv->mhz ? (boost ? ", the top" : ", the top without boost") : "");
	}
	str_appendf(res.chosen, sizeof(res.chosen), k, "; %s", plat.note);
	return lv;
}

void freq_skip(const struct freq_opts *o, const char *why)
{
	begin(o);
	str_appendf(res.why, sizeof(res.why), 0, "%s", why);
}

void freq_pin(const struct cpu_info *ci, const struct freq_opts *o)
{
	const struct freq_level *lv = NULL;
	struct freq_apply a;
	bool found = false;

	begin(o);
	/* A pin nobody restored belongs to a processor that is gone: never mix its saved values with these. */
	freq_forget();
	if (o->ask == FREQ_ASK_KEEP && o->boost == FREQ_BOOST_KEEP) {
		snprintf(res.why, sizeof(res.why), "freq=keep and boost=keep: the clock is left as found");
		return;
	}
	if (o->not_here) {
		str_appendf(res.why, sizeof(res.why), 0, "%s", o->not_here);
		return;
	}
	if (ci->exec == EXEC_EMULATED) {
		snprintf(res.why, sizeof(res.why), "emulated (%s): the clock is the emulator's, there is none to pin",
			 ci->hv_name ? ci->hv_name : "an emulator");
		return;
	}
	if (!invariant_tsc(ci)) {
		snprintf(res.why, sizeof(res.why), "no invariant TSC (CPUID 8000_0007h EDX[8] clear): the TSC could "
			 "follow the pinned clock, and its frequency is measured once, on the boot processor");
		return;
	}
	memset(&plat, 0, sizeof(plat));
	if (ci->vendor == VENDOR_INTEL)
		found = freq_intel_probe(ci, &plat, res.why, sizeof(res.why));
	else if (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON)
		found = freq_amd_probe(ci, &plat, res.why, sizeof(res.why));
	else
		snprintf(res.why, sizeof(res.why), "no frequency control is known for vendor %s", ci->vendor_str);
	if (!found) {
		if (ci->exec == EXEC_VIRTUALISED)
			str_appendf(res.why, sizeof(res.why), strlen(res.why),
				    " (virtualised: the hypervisor decides which of these MSRs exist)");
		return;
	}
	if (o->ask != FREQ_ASK_KEEP && !(lv = choose(o)))
		return;
	if (lv)
		res.asked_mhz = lv->mhz;
	memset(&a, 0, sizeof(a));
	snprintf(a.boost_done, sizeof(a.boost_done), "unchanged");
	plat.apply(&plat, lv, o->boost, &a);
	res.control = plat.control;
	res.wrote = a.wrote;
	str_appendf(res.boost_done, sizeof(res.boost_done), 0, "%s", a.boost_done);
	if (a.failed) {
		str_appendf(res.why, sizeof(res.why), 0, "%s: %s; what was written is put back now", plat.control, a.why);
		res.control = NULL;
		freq_restore();
		res.wrote = false;
		return;
	}
	res.pinned = lv != NULL;
	if (!lv && !a.wrote)
		str_appendf(res.why, sizeof(res.why), 0, "nothing needed writing: boost %s", res.boost_done);
	/* At the top of a control whose boost runs above it by itself, the level is a floor, not a frequency. */
	bool open_top = plat.top_open_with_boost && a.boost_on_after && lv == &plat.level[plat.nlevels - 1];
	bool boost_range = plat.above_base_unjudged && lv > &plat.level[plat.base];
	res.judged = lv && !open_top && !boost_range;
	if (lv && open_top)
		str_appendf(res.chosen, sizeof(res.chosen), strlen(res.chosen), "; boost is on, so the hardware may run "
			    "above it: the measurement is not judged against it");
	else if (lv && boost_range)
		str_appendf(res.chosen, sizeof(res.chosen), strlen(res.chosen), "; above nominal, where the hardware "
			    "runs only as conditions allow: measured, not judged");
}

void freq_prove(uint64_t tsc_hz)
{
	struct freq_measurement m;
	char got[200];

	if (!res.set)
		return;
	if (!res.pinned && !res.wrote) {
		snprintf(res.measured_why, sizeof(res.measured_why), "nothing was pinned");
		if (strcmp(res.option, "keep") || strcmp(res.boost_asked, "keep"))
			out_text("clock: not pinned (freq=%s boost=%s): %s", res.option, res.boost_asked, res.why);
		return;
	}
	freq_measure(tsc_hz, &m);
	res.measured = m.ok;
	res.measured_mhz = m.mhz;
	res.samples = m.samples;
	res.mperf_per_tsc_milli = m.mperf_per_tsc_milli;
	if (!m.ok)
		str_appendf(res.measured_why, sizeof(res.measured_why), 0, "%s", m.why);
	else if (!m.settled)
		snprintf(res.measured_why, sizeof(res.measured_why), "the clock had not settled after %u spins: the "
			 "last is reported", m.samples);
	uint64_t off = m.mhz > res.asked_mhz ? m.mhz - res.asked_mhz : res.asked_mhz - m.mhz;
	res.held = res.judged && m.ok && off * 1000 <= (uint64_t)FREQ_HELD_MILLI * res.asked_mhz;
	if (m.ok)
		snprintf(got, sizeof(got), "measured %u MHz%s", m.mhz, !res.judged ? ""
			 : res.held ? "" : ", NOT within 1% of it");
	else
		str_appendf(got, sizeof(got), 0, "not measured: %s", m.why);
	if (res.pinned)
		out_text("clock: pinned to %u MHz via %s (%s); boost %s", res.asked_mhz, res.control, got, res.boost_done);
	else
		out_text("clock: boost %s via %s (%s)", res.boost_done, res.control, got);
}

void freq_restore(void)
{
	struct msr_restore_result rr;
	struct rec *r = &restore_rec;

	if (!freq_save_count())
		return;
	rec_start(r, "restore");
	rec_str(r, "what", "clock");
	freq_save_restore(&rr);
	msr_restore_fields(r, &rr, freq_err_text);
	rec_emit(r);
	if (rr.mismatched)
		rec_error("clock", "restore", "%u of %u clock MSRs did not read back as found (see the restore record)",
			  rr.mismatched, rr.restored);
	else
		out_text("clock: restored %u MSR%s exactly as found", rr.restored, rr.restored == 1 ? "" : "s");
}

void freq_forget(void)
{
	size_t n = freq_save_count();
	if (!n)
		return;
	freq_save_forget();
	out_text("clock: %zu MSR%s written on a processor whose pass did not return could not be put back; it may "
		 "keep the pinned clock until it is reset", n, n == 1 ? "" : "s");
}

void freq_fields(struct rec *r)
{
	bool used = res.pinned || res.wrote;
	rec_str(r, "freq_option", res.set ? res.option : NULL);
	if (res.asked_mhz)
		rec_u64(r, "freq_asked", res.asked_mhz);
	else
		rec_null(r, "freq_asked");
	rec_str(r, "freq_control", used ? res.control : NULL);
	rec_str(r, "freq_why", used || !res.why[0] ? NULL : res.why);
	rec_str(r, "freq_chosen", res.chosen[0] ? res.chosen : NULL);
	if (res.measured) {
		rec_u64(r, "freq_measured", res.measured_mhz);
		rec_milli(r, "freq_mperf_per_tsc", res.mperf_per_tsc_milli);
		rec_u64(r, "freq_samples", res.samples);
	} else {
		rec_null(r, "freq_measured");
	}
	rec_str(r, "freq_measured_why", res.measured_why[0] ? res.measured_why : NULL);
	if (res.judged && res.measured)
		rec_bool(r, "freq_held", res.held);
	else
		rec_null(r, "freq_held");
	rec_obj(r, "boost");
	rec_str(r, "asked", res.set ? res.boost_asked : NULL);
	rec_str(r, "done", res.set ? res.boost_done : NULL);
	rec_obj_end(r);
}

const struct freq_result *freq_result(void) { return &res; }
