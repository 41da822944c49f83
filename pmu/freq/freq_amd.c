/*
 * pmu/freq/freq_amd.c - AMD (and Hygon): CPPC when firmware enabled it, else
 * P-state control; core performance boost through HWCR[25] CpbDis.
 *
 * Sources (facts only; lib/x86/msr_amd.h has the addresses): the Family
 * 17h/19h PPRs for HWCR, the P-state MSRs and PStateDef's CoreCOF; Linux
 * amd-pstate and acpi-cpufreq for the CPPC request layout, CPPC enable being
 * written once and never undone, and HWCR[25] as the per-CPU boost switch.
 *
 * CPPC levels are abstract performance, not MHz (ACPI _CPC).  A level's
 * frequency comes from two points: (nominal level, nominal MHz) and (lowest
 * level, lowest MHz), on the straight line between them, and above nominal
 * nominal MHz per nominal level (amd-pstate's perf_to_freq; Xen's AMD CPPC
 * driver draws the same line).  The levels are in CPPC capability 1 (MSR
 * C001_02B0); the frequencies are in no register: ACPI _CPC's NominalFrequency
 * and LowestFrequency, which reach here only through freq_set_cpc_mhz.  Without
 * them the nominal level is P0's frequency (AMD's Xen CPPC driver: the legacy
 * P0 frequency is the nominal performance level's) and the levels below
 * nominal are not offered: the line through zero that was used before puts
 * them hundreds of MHz off on a part whose lowest level is not at 0 MHz.
 *
 * Not verified here, so refused rather than guessed: PStateDef's frequency
 * fields outside Families 17h and 19h (Family 1Ah changed them; 10h-16h list
 * boosted P-states in the same table), Hygon Family 18h taken as 17h (Zen
 * under licence), and a CPPC level's frequency below nominal without _CPC's
 * LowestFrequency.
 */
#include "pmu/freq/freq_int.h"
#include "platform/hw.h"
#include "lib/strbuf.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_amd.h"

#define FAMILY_ZEN 0x17u
#define FAMILY_HYGON_ZEN 0x18u
#define FAMILY_ZEN3 0x19u

static bool zen_pstate_def(const struct cpu_info *ci)
{
	return ci->family == FAMILY_ZEN || ci->family == FAMILY_HYGON_ZEN || ci->family == FAMILY_ZEN3;
}

/* CoreCOF of an enabled PStateDef, 0 when disabled or undefined. */
static uint32_t pstate_mhz(uint64_t def)
{
	if (!(def & PSTATE_DEF_EN) || !PSTATE_DEF_DFSID(def))
		return 0;
	return PSTATE_DEF_FID(def) * PSTATE_COF_MHZ_PER_RATIO / PSTATE_DEF_DFSID(def);
}

/* P0's frequency: false with why when it cannot be known. */
static bool p0_mhz(const struct cpu_info *ci, uint32_t *mhz, char *why, size_t cap)
{
	uint64_t def;
	int r;
	if (!zen_pstate_def(ci)) {
		snprintf(why, cap, "PStateDef's frequency fields on Family %xh are not verified here, so no level can be "
			 "named in MHz", ci->family);
		return false;
	}
	if ((r = hw_rdmsr(MSR_AMD_PSTATE_DEF0, &def)) != HW_OK) {
		snprintf(why, cap, "PStateDef P0 cannot be read (%s)", freq_err_text(r));
		return false;
	}
	if (!(*mhz = pstate_mhz(def))) {
		snprintf(why, cap, "PStateDef P0 0x%llx is not an enabled P-state", (unsigned long long)def);
		return false;
	}
	return true;
}

static uint64_t with_field(uint64_t v, unsigned shift, uint32_t x)
{
	return (v & ~(CPPC_REQ_FIELD << shift)) | ((uint64_t)(x & CPPC_REQ_FIELD) << shift);
}

static uint32_t field(uint64_t v, unsigned shift) { return (uint32_t)((v >> shift) & CPPC_REQ_FIELD); }

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* HWCR[25] as b asks, written first: restored last, after the request it was in force for. */
static bool apply_boost(const struct freq_plat *p, enum freq_boost b, struct freq_apply *out)
{
	out->boost_on_after = p->boost_on;
	if (b == FREQ_BOOST_KEEP)
		return true;
	if (!p->boost_switch) {
		snprintf(out->boost_done, sizeof(out->boost_done), b == FREQ_BOOST_OFF
			 ? "off already: no core performance boost (CPUID Fn8000_0007_EDX[9] clear or HWCR unreadable)"
			 : "not available: no core performance boost (CPUID Fn8000_0007_EDX[9] clear or HWCR unreadable)");
		return true;
	}
	uint64_t v = b == FREQ_BOOST_OFF ? p->boost_reg | HWCR_CPB_DIS : p->boost_reg & ~HWCR_CPB_DIS;
	out->boost_on_after = b == FREQ_BOOST_ON;
	snprintf(out->boost_done, sizeof(out->boost_done), b == FREQ_BOOST_OFF ? "off: HWCR[25] CpbDis set"
										: "on: HWCR[25] CpbDis clear");
	return freq_apply_write(out, MSR_AMD_HWCR, "HWCR", v);
}

/* ---- CPPC ---- */

static void cppc_apply(const struct freq_plat *p, const struct freq_level *lv, enum freq_boost b,
		       struct freq_apply *out)
{
	uint32_t nominal = p->level[p->base].value;
	uint64_t v = p->req;

	if (!apply_boost(p, b, out))
		return;
	if (lv) {
		v = with_field(v, CPPC_REQ_MAX_SHIFT, lv->value);
		v = with_field(v, CPPC_REQ_MIN_SHIFT, lv->value);
		v = with_field(v, CPPC_REQ_DESIRED_SHIFT, lv->value);
	} else if (b == FREQ_BOOST_OFF) {
		/* Also capped in the request: whether CPPC heeds CpbDis is not documented here. */
		v = with_field(v, CPPC_REQ_MAX_SHIFT, min_u32(field(v, CPPC_REQ_MAX_SHIFT), nominal));
		v = with_field(v, CPPC_REQ_MIN_SHIFT, min_u32(field(v, CPPC_REQ_MIN_SHIFT), nominal));
		v = with_field(v, CPPC_REQ_DESIRED_SHIFT, min_u32(field(v, CPPC_REQ_DESIRED_SHIFT), nominal));
	} else if (b == FREQ_BOOST_ON && p->boost_switch) {
		v = with_field(v, CPPC_REQ_MAX_SHIFT, p->top_value);
	}
	freq_apply_write(out, MSR_AMD_CPPC_REQ, "CPPC request", v);
}

/* ACPI _CPC's frequencies, as freq_set_cpc_mhz gave them (0: not known). */
static struct {
	uint32_t lowest_mhz, nominal_mhz;
} cpc;

void freq_set_cpc_mhz(uint32_t lowest_mhz, uint32_t nominal_mhz)
{
	cpc.lowest_mhz = lowest_mhz;
	cpc.nominal_mhz = nominal_mhz;
}

/* The CPPC levels' frequency points; a frequency 0 is not known. */
struct cppc_points {
	uint32_t lowest, nominal, highest;	/* levels, CPPC capability 1 */
	uint32_t lowest_mhz, nominal_mhz;
};

/* Level l's frequency on the two-point line (above nominal: nominal MHz per nominal level); 0 when not known. */
static uint32_t cppc_level_mhz(const struct cppc_points *c, uint32_t l)
{
	if (l >= c->nominal)
		return (uint32_t)((uint64_t)c->nominal_mhz * l / c->nominal);
	if (!c->lowest_mhz)
		return 0;
	return c->lowest_mhz + (uint32_t)((uint64_t)(l - c->lowest) * (c->nominal_mhz - c->lowest_mhz) /
					  (c->nominal - c->lowest));
}

/* Where the frequency points come from, said in p->note; false with why when the nominal one is not known. */
static bool cppc_frequencies(const struct cpu_info *ci, struct cppc_points *c, struct freq_plat *p, char *why,
			     size_t cap)
{
	char lowest[96];
	const char *nominal_from = "ACPI _CPC";
	if (cpc.nominal_mhz) {
		c->nominal_mhz = cpc.nominal_mhz;
	} else if (p0_mhz(ci, &c->nominal_mhz, why, cap)) {
		nominal_from = "P0";
	} else {
		str_appendf(why, cap, strlen(why), "; ACPI _CPC's NominalFrequency was not given either");
		return false;
	}
	if (c->lowest == c->nominal) {
		snprintf(lowest, sizeof(lowest), "no level below it");
	} else if (cpc.lowest_mhz && cpc.lowest_mhz < c->nominal_mhz) {
		c->lowest_mhz = cpc.lowest_mhz;
		snprintf(lowest, sizeof(lowest), "lowest %u = %u MHz (ACPI _CPC)", c->lowest, c->lowest_mhz);
	} else if (cpc.lowest_mhz) {
		snprintf(lowest, sizeof(lowest), "levels below it not offered: _CPC's lowest %u MHz is not below it",
			 cpc.lowest_mhz);
	} else {
		snprintf(lowest, sizeof(lowest), "levels %u..%u not offered: their MHz needs ACPI _CPC's LowestFrequency",
			 c->lowest, c->nominal - 1);
	}
	snprintf(p->note, sizeof(p->note), "CPPC levels %u..%u, nominal %u = %u MHz (%s), %s", c->lowest, c->highest,
		 c->nominal, c->nominal_mhz, nominal_from, lowest);
	return true;
}

static bool cppc_probe(const struct cpu_info *ci, struct freq_plat *p, char *why, size_t cap)
{
	struct cppc_points c = { 0 };
	uint64_t caps, req;
	int r;
	if ((r = hw_rdmsr(MSR_AMD_CPPC_CAP1, &caps)) != HW_OK || (r = hw_rdmsr(MSR_AMD_CPPC_REQ, &req)) != HW_OK) {
		snprintf(why, cap, "CPPC is enabled but its capability or request MSR cannot be read (%s)", freq_err_text(r));
		return false;
	}
	c.lowest = CPPC_CAP_LOWEST(caps);
	c.nominal = CPPC_CAP_NOMINAL(caps);
	c.highest = CPPC_CAP_HIGHEST(caps);
	if (!c.lowest || c.lowest > c.nominal || c.nominal > c.highest) {
		snprintf(why, cap, "CPPC capabilities 0x%llx give no usable range (lowest %u, nominal %u, highest %u)",
			 (unsigned long long)caps, c.lowest, c.nominal, c.highest);
		return false;
	}
	if (!cppc_frequencies(ci, &c, p, why, cap))
		return false;
	/* Ascending and distinct: a level the line gives no frequency, or the same one as below it, is left out. */
	for (uint32_t l = c.lowest; l <= c.highest; l++) {
		uint32_t mhz = cppc_level_mhz(&c, l);
		if (mhz && (!p->nlevels || mhz > p->level[p->nlevels - 1].mhz))
			freq_level_add(p, l, mhz);
		if (l == c.nominal)
			p->base = p->nlevels - 1;
	}
	p->control = "amd_cppc";
	/* ACPI _CPC: nominal is the highest sustained level; above it, "may not be sustainable" (and on
	 * preferred-core parts the highest level is a per-core ranking, as Linux amd-pstate treats it). */
	p->above_base_unjudged = true;
	p->boost_exists = p->boost_switch && c.highest > c.nominal;
	p->boost_on = p->boost_exists && !(p->boost_reg & HWCR_CPB_DIS);
	p->req = req;
	p->top_value = c.highest;
	p->apply = cppc_apply;
	return true;
}

/* ---- P-state control ---- */

static void pstate_apply(const struct freq_plat *p, const struct freq_level *lv, enum freq_boost b,
			 struct freq_apply *out)
{
	if (!apply_boost(p, b, out) || !lv)
		return;
	freq_apply_write(out, MSR_AMD_PSTATE_CTL, "P-state control", (p->req & ~PSTATE_CTL_CMD_MASK) | lv->value);
}

static bool pstate_probe(struct freq_plat *p, const char *cppc_note, char *why, size_t cap)
{
	uint64_t lim, ctl, def;
	int r;
	if ((r = hw_rdmsr(MSR_AMD_PSTATE_CUR_LIMIT, &lim)) != HW_OK || (r = hw_rdmsr(MSR_AMD_PSTATE_CTL, &ctl)) != HW_OK) {
		snprintf(why, cap, "%sthe P-state limit or control MSR cannot be read (%s)", cppc_note, freq_err_text(r));
		return false;
	}
	uint32_t fastest = PSTATE_CUR_LIMIT(lim), slowest = PSTATE_MAX_VAL(lim);
	/* Slowest first, so the list ascends; a P-state that is off or slower than the one before is left out. */
	for (uint32_t n = slowest + 1; n-- > fastest;) {
		if (hw_rdmsr(MSR_AMD_PSTATE_DEF0 + n, &def) != HW_OK)
			continue;
		uint32_t mhz = pstate_mhz(def);
		if (mhz && (!p->nlevels || mhz > p->level[p->nlevels - 1].mhz))
			freq_level_add(p, n, mhz);
	}
	if (!p->nlevels) {
		snprintf(why, cap, "%sno enabled P-state between P%u and P%u", cppc_note, fastest, slowest);
		return false;
	}
	p->control = "amd_pstate";
	p->base = p->nlevels - 1;
	p->boost_exists = p->boost_switch;
	p->boost_on = p->boost_switch && !(p->boost_reg & HWCR_CPB_DIS);
	/* Boost is the hardware's, above P0, and its top is in no MSR read here. */
	p->top_open_with_boost = true;
	p->req = ctl;
	p->top_value = p->level[p->base].value;
	p->apply = pstate_apply;
	snprintf(p->note, sizeof(p->note), "%sP-states P%u..P%u allowed now (PStateDef: CpuFid / CpuDfsId x 200 MHz)%s",
		 cppc_note, fastest, slowest, fastest ? "; firmware limits the fastest (P-state current limit)" : "");
	return true;
}

bool freq_amd_probe(const struct cpu_info *ci, struct freq_plat *p, char *why, size_t cap)
{
	struct cpuid_regs r7 = { 0 }, r8 = { 0 };
	char cppc_note[112] = "";
	uint32_t p0;
	uint64_t en;

	if (ci->max_ext_leaf >= CPUID_LEAF_EXT_POWER)
		hw_cpuid(CPUID_LEAF_EXT_POWER, 0, &r7);
	if (ci->max_ext_leaf >= CPUID_LEAF_EXT_CAPACITY)
		hw_cpuid(CPUID_LEAF_EXT_CAPACITY, 0, &r8);
	p->boost_switch = (r7.edx & CPUID_EXT_POWER_EDX_CPB) && hw_rdmsr(MSR_AMD_HWCR, &p->boost_reg) == HW_OK;
	if (r8.ebx & CPUID_EXT_CAPACITY_EBX_CPPC) {
		if (hw_rdmsr(MSR_AMD_CPPC_ENABLE, &en) == HW_OK && (en & CPPC_ENABLE_ON))
			return cppc_probe(ci, p, why, cap);
		snprintf(cppc_note, sizeof(cppc_note), "CPPC left off by firmware (its enable is write-once: not set here); ");
	}
	if (!(r7.edx & CPUID_EXT_POWER_EDX_HW_PSTATE)) {
		snprintf(why, cap, "%sno hardware P-state control (CPUID Fn8000_0007_EDX[7] clear)", cppc_note);
		return false;
	}
	if (!p0_mhz(ci, &p0, why, cap))
		return false;
	return pstate_probe(p, cppc_note, why, cap);
}
