/*
 * pmu/freq/freq_intel.c - Intel: HWP when firmware enabled it, else IA32_PERF_CTL.
 *
 * Sources: SDM Vol. 3B, "Power and Thermal Management" (HWP: IA32_PM_ENABLE
 * is write-once and, once set, IA32_PERF_CTL is ignored; min = max in
 * IA32_HWP_REQUEST "is functionally equivalent to using IA32_PERF_CTL"; turbo:
 * IA32_PERF_CTL[32] disengages it for one logical processor,
 * IA32_MISC_ENABLE[38] for the package, "intended for BIOS only"); SDM Vol. 4
 * (MSR_PLATFORM_INFO ratio x 100 MHz, MSR_TURBO_RATIO_LIMIT); Linux
 * intel_pstate for how the ratio is written and the level-to-MHz factor
 * (facts only).  IA32_MISC_ENABLE is only read: per-processor control is
 * PERF_CTL[32], and a package-wide "BIOS only" bit is not ours to flip.
 */
#include "pmu/freq/freq_int.h"
#include "platform/hw.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_intel.h"

/*
 * The microarchitectures whose IA32_PERF_CTL takes the target ratio in bits
 * 15:8 and nothing else (no voltage ID), 100 MHz a ratio: the big cores from
 * Sandy Bridge on, which Linux intel_pstate writes so (core_get_val,
 * core_get_scaling).  Earlier cores and Silvermont/Airmont put a voltage ID
 * beside the ratio (intel_pstate atom_get_val; acpi-cpufreq writes the
 * firmware's _PSS values); the E-core keys also name Atom-only parts, whose
 * PERF_CTL is not driven without HWP there.  Not verified on every listed
 * part: those without HWP are the ones that reach this path.
 */
static const char *const perf_ctl_parts[] = {
	"sandybridge", "ivybridge", "haswell", "broadwell", "skylake", "kabylake", "kabylake_l", "coffeelake",
	"cometlake", "skylake_sp", "cascadelake", "cooperlake", "icelake", "rocketlake", "icelake_sp", "tigerlake",
	"goldencove", "raptorcove", "sapphirerapids", "emeraldrapids", "redwoodcove", "graniterapids", "lioncove",
	"cougarcove",
};

static bool perf_ctl_known(const char *key)
{
	for (size_t i = 0; key && i < ARRAY_SIZE(perf_ctl_parts); i++)
		if (!strcmp(key, perf_ctl_parts[i]))
			return true;
	return false;
}

static uint64_t with_field(uint64_t v, unsigned shift, uint32_t x)
{
	return (v & ~(HWP_REQ_FIELD << shift)) | ((uint64_t)(x & HWP_REQ_FIELD) << shift);
}

static uint32_t field(uint64_t v, unsigned shift) { return (uint32_t)((v >> shift) & HWP_REQ_FIELD); }

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* Why there is no turbo now, for the boost text. */
static const char *no_turbo_why(void)
{
	uint64_t misc;
	if (hw_rdmsr(MSR_IA32_MISC_ENABLE, &misc) == HW_OK && (misc & MISC_ENABLE_TURBO_DISABLE))
		return "turbo disabled by firmware (IA32_MISC_ENABLE[38], package-wide, BIOS only: not changed here)";
	return "no turbo on this part (CPUID.06H:EAX[1] clear)";
}

/* ---- HWP ---- */

static void hwp_apply(const struct freq_plat *p, const struct freq_level *lv, enum freq_boost b, struct freq_apply *out)
{
	uint32_t base = p->level[p->base].value;
	/* Package control off: this processor's own request governs, not IA32_HWP_REQUEST_PKG (restored after). */
	uint64_t v = p->req & ~HWP_REQ_PACKAGE_CONTROL;

	if (lv) {
		v = with_field(v, HWP_REQ_MIN_SHIFT, lv->value);
		v = with_field(v, HWP_REQ_MAX_SHIFT, lv->value);
		v = with_field(v, HWP_REQ_DESIRED_SHIFT, lv->value);
	} else if (b == FREQ_BOOST_OFF) {
		v = with_field(v, HWP_REQ_MIN_SHIFT, min_u32(field(v, HWP_REQ_MIN_SHIFT), base));
		v = with_field(v, HWP_REQ_MAX_SHIFT, min_u32(field(v, HWP_REQ_MAX_SHIFT), base));
		v = with_field(v, HWP_REQ_DESIRED_SHIFT, min_u32(field(v, HWP_REQ_DESIRED_SHIFT), base));
	} else if (b == FREQ_BOOST_ON && p->boost_exists) {
		v = with_field(v, HWP_REQ_MAX_SHIFT, p->top_value);
	}
	uint32_t max_after = field(v, HWP_REQ_MAX_SHIFT);
	out->boost_on_after = p->boost_exists && max_after > base;
	if (b == FREQ_BOOST_OFF)
		snprintf(out->boost_done, sizeof(out->boost_done),
			 "off: the request's maximum is at or below the base level (HWP has no per-processor turbo switch)");
	else if (b == FREQ_BOOST_ON && !p->boost_exists)
		snprintf(out->boost_done, sizeof(out->boost_done), "not available: %s", no_turbo_why());
	else if (b == FREQ_BOOST_ON)
		snprintf(out->boost_done, sizeof(out->boost_done), "on: the request allows up to level %u (%u MHz)",
			 max_after, max_after * INTEL_BUS_MHZ);
	freq_apply_write(out, MSR_IA32_HWP_REQUEST, "IA32_HWP_REQUEST", v);
}

static bool hwp_probe(const struct cpu_info *ci, struct freq_plat *p, bool turbo, char *why, size_t cap)
{
	uint64_t caps, req, info;
	int r;

	if (ci->hybrid) {
		snprintf(why, cap, "HWP on a hybrid part: its performance levels are not 100 MHz steps and the factor is "
			 "not enumerated (Linux intel_pstate keeps one per model), so no level can be named in MHz");
		return false;
	}
	if ((r = hw_rdmsr(MSR_IA32_HWP_CAPABILITIES, &caps)) != HW_OK ||
	    (r = hw_rdmsr(MSR_IA32_HWP_REQUEST, &req)) != HW_OK) {
		snprintf(why, cap, "HWP is enabled but its capabilities or request MSR cannot be read (%s)", freq_err_text(r));
		return false;
	}
	uint32_t lowest = HWP_CAP_LOWEST(caps), highest = HWP_CAP_HIGHEST(caps), guaranteed = HWP_CAP_GUARANTEED(caps);
	if (!lowest || lowest > highest) {
		snprintf(why, cap, "IA32_HWP_CAPABILITIES 0x%llx gives no usable range (lowest %u, highest %u)",
			 (unsigned long long)caps, lowest, highest);
		return false;
	}
	/* Base: the ratio the invariant TSC runs at; HWP's guaranteed level where that MSR is absent. */
	uint32_t base = guaranteed;
	const char *base_from = "HWP guaranteed level (MSR_PLATFORM_INFO unreadable)";
	if (hw_rdmsr(MSR_PLATFORM_INFO, &info) == HW_OK && PLATFORM_INFO_MAX_NON_TURBO(info) >= lowest &&
	    PLATFORM_INFO_MAX_NON_TURBO(info) <= highest) {
		base = PLATFORM_INFO_MAX_NON_TURBO(info);
		base_from = "MSR_PLATFORM_INFO max non-turbo ratio";
	}
	if (base < lowest || base > highest)
		base = highest;
	for (uint32_t l = lowest; l <= highest; l++)
		freq_level_add(p, l, l * INTEL_BUS_MHZ);
	p->control = "hwp";
	p->base = base - lowest;
	p->boost_exists = turbo && highest > base;
	p->boost_on = p->boost_exists && field(req, HWP_REQ_MAX_SHIFT) > base;
	p->req = req;
	p->top_value = highest;
	p->apply = hwp_apply;
	snprintf(p->note, sizeof(p->note), "HWP levels %u..%u x %u MHz, guaranteed %u, base %u from the %s", lowest,
		 highest, INTEL_BUS_MHZ, guaranteed, base, base_from);
	return true;
}

/* ---- IA32_PERF_CTL ---- */

static void perf_ctl_apply(const struct freq_plat *p, const struct freq_level *lv, enum freq_boost b,
			   struct freq_apply *out)
{
	uint64_t v = p->req;

	if (lv)
		v = (v & ~PERF_CTL_RATIO_MASK) | ((uint64_t)lv->value << PERF_CTL_RATIO_SHIFT);
	/* Bit 32 is written only where turbo exists (CPUID.06H:EAX[1]), as Linux does. */
	if (b == FREQ_BOOST_OFF && p->boost_switch)
		v |= PERF_CTL_IDA_DISENGAGE;
	else if (b == FREQ_BOOST_ON && p->boost_switch)
		v &= ~PERF_CTL_IDA_DISENGAGE;
	out->boost_on_after = p->boost_switch && !(v & PERF_CTL_IDA_DISENGAGE);
	if (b == FREQ_BOOST_OFF)
		snprintf(out->boost_done, sizeof(out->boost_done), p->boost_switch
			 ? "off: IA32_PERF_CTL[32] set (turbo disengaged on this logical processor)"
			 : "off already: no turbo to disengage (CPUID.06H:EAX[1] clear)");
	else if (b == FREQ_BOOST_ON && p->boost_switch)
		snprintf(out->boost_done, sizeof(out->boost_done), "on: IA32_PERF_CTL[32] clear");
	else if (b == FREQ_BOOST_ON)
		snprintf(out->boost_done, sizeof(out->boost_done), "not available: %s", no_turbo_why());
	freq_apply_write(out, MSR_IA32_PERF_CTL, "IA32_PERF_CTL", v);
}

static bool perf_ctl_probe(const struct cpu_info *ci, uint32_t ecx1, bool turbo, const char *hwp_note,
			   struct freq_plat *p, char *why, size_t cap)
{
	uint64_t info, ctl, limit;
	int r;

	if (!(ecx1 & CPUID1_ECX_EIST)) {
		snprintf(why, cap, "%sno Enhanced SpeedStep (CPUID.01H:ECX[7] clear), so no IA32_PERF_CTL", hwp_note);
		return false;
	}
	if (!perf_ctl_known(ci->uarch_key)) {
		snprintf(why, cap, "%sIA32_PERF_CTL on %s is not known to take a bare ratio (that layout, with no voltage "
			 "ID, is the Core parts' from Sandy Bridge on)", hwp_note, ci->uarch ? ci->uarch : "this model");
		return false;
	}
	if ((r = hw_rdmsr(MSR_PLATFORM_INFO, &info)) != HW_OK) {
		snprintf(why, cap, "%sMSR_PLATFORM_INFO cannot be read (%s): no base ratio", hwp_note, freq_err_text(r));
		return false;
	}
	if ((r = hw_rdmsr(MSR_IA32_PERF_CTL, &ctl)) != HW_OK) {
		snprintf(why, cap, "%sIA32_PERF_CTL cannot be read (%s)", hwp_note, freq_err_text(r));
		return false;
	}
	uint32_t base = PLATFORM_INFO_MAX_NON_TURBO(info), lowest = PLATFORM_INFO_MAX_EFFICIENCY(info), top = base;
	if (!base) {
		snprintf(why, cap, "%sMSR_PLATFORM_INFO 0x%llx gives no base ratio", hwp_note, (unsigned long long)info);
		return false;
	}
	if (!lowest || lowest > base)
		lowest = base;
	const char *top_from = turbo ? "turbo ratio unknown (MSR_TURBO_RATIO_LIMIT unreadable)" : no_turbo_why();
	if (turbo && hw_rdmsr(MSR_TURBO_RATIO_LIMIT, &limit) == HW_OK && TURBO_RATIO_1C(limit) > base) {
		top = TURBO_RATIO_1C(limit);
		top_from = "1-core turbo ratio from MSR_TURBO_RATIO_LIMIT";
	}
	for (uint32_t l = lowest; l <= top; l++)
		freq_level_add(p, l, l * INTEL_BUS_MHZ);
	p->control = "perf_ctl";
	p->base = base - lowest;
	p->boost_exists = turbo && top > base;
	p->boost_switch = turbo;
	p->boost_on = turbo && !(ctl & PERF_CTL_IDA_DISENGAGE);
	p->req = ctl;
	p->top_value = top;
	p->apply = perf_ctl_apply;
	snprintf(p->note, sizeof(p->note), "%sratios %u..%u x %u MHz, base %u (MSR_PLATFORM_INFO), top: %s", hwp_note,
		 lowest, top, INTEL_BUS_MHZ, base, top_from);
	return true;
}

bool freq_intel_probe(const struct cpu_info *ci, struct freq_plat *p, char *why, size_t cap)
{
	struct cpuid_regs r1, r6 = { 0 };
	char hwp_note[112] = "";

	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r1);
	if (ci->max_leaf >= CPUID_LEAF_POWER)
		hw_cpuid(CPUID_LEAF_POWER, 0, &r6);
	bool turbo = (r6.eax & CPUID6_EAX_TURBO) != 0;
	if (r6.eax & CPUID6_EAX_HWP) {
		uint64_t en;
		int r = hw_rdmsr(MSR_IA32_PM_ENABLE, &en);
		if (r != HW_OK) {
			snprintf(why, cap, "CPUID.06H:EAX[7] says HWP exists but IA32_PM_ENABLE cannot be read (%s), so "
				 "whether IA32_PERF_CTL is obeyed is unknown", freq_err_text(r));
			return false;
		}
		if (en & PM_ENABLE_HWP)
			return hwp_probe(ci, p, turbo, why, cap);
		snprintf(hwp_note, sizeof(hwp_note), "HWP left off by firmware (IA32_PM_ENABLE is write-once: not set here); ");
	}
	return perf_ctl_probe(ci, r1.ecx, turbo, hwp_note, p, why, cap);
}
