/* pmu/count/pmu_model_host.c - see pmu_model.h.  Facts from msr_intel.h / msr_amd.h sources. */
#include "pmu/count/pmu_model.h"
#include "lib/x86/msr_amd.h"
#include "lib/x86/msr_intel.h"
#include "platform/hw.h"
#include "cpu/uarch.h"
#include "lib/x86/cpuid.h"
#include "platform/tsc_math.h"
#include "lib/decimal.h"
#include "pmu/count/pmu_oracle.h"

/* The architectural ranges the model answers for (SDM Vol. 4 Table 2-2: IA32_PMC0-7,
 * IA32_PERFEVTSEL0-7, IA32_A_PMC0-7; the fixed counters from 0x309). */
#define INTEL_RANGE_GP 8
#define INTEL_RANGE_FIXED 7
/* MSR_OFFCORE_RSP_0/1 (SDM Vol. 4 Tables 2-15 Nehalem, 2-6 Silvermont): architectural PMU
 * version 3 on. */
#define MODEL_OFFCORE_RSP_0 MSR_OFFCORE_RSP_0
#define MODEL_OFFCORE_RSP_1 MSR_OFFCORE_RSP_1
#define MODEL_OFFCORE_MIN_VERSION 3
/* Sandy Bridge to Cascade Lake give one thread 8 counters with SMT off (perfmon CounterHTOff). */
#define MODEL_SMT_ON_COUNTERS 4u
/* MSR_SMI_COUNT arrives with Nehalem and Silvermont (SDM Vol. 4 Tables 2-15, 2-6), the parts whose
 * architectural PMU is version 3: the model gives it to Intel PMUs from that version on. */
#define MODEL_SMI_COUNT_MIN_VERSION 3
/* IA32_THERM_STATUS (19CH) exists where CPUID.01H:EDX[22] (ACPI: thermal monitor and software clock
 * control) is set (SDM Vol. 4 Table 2-2), with or without leaf 06H's digital sensor: Pentium M has it. */
#define MODEL_CPUID1_EDX_ACPI (1u << 22)
/* The clocks CPUID does not give (SDM Vol. 3B §20.7.3; leaf 16H, Vol. 2A): a crystal of 100 MHz where
 * leaf 15H names none (the base clock Sandy Bridge on clock from); the base clock 133 MHz of Nehalem and
 * Westmere (perfmon CPU_CLK_UNHALTED.REF_P); a front-side bus clock of 200 MHz (an 800 MT/s bus) for
 * Core Duo, Core 2 and Bonnell, whose bus ratio no CPUID leaf holds; a TSC of 2 GHz where neither the
 * leaves nor the brand string say.  Each is only a figure the model needs, and none is the TSC's. */
#define MODEL_CRYSTAL_DEFAULT_HZ 100000000ull
#define MODEL_BASE_133_HZ 133333333ull
#define MODEL_BASE_100_HZ 100000000ull
#define MODEL_BUS_DEFAULT_HZ 200000000ull
#define MODEL_TSC_DEFAULT_HZ 2000000000ull
#define MODEL_CPUID_LEAF_TSC 0x15u		/* SDM Vol. 2A CPUID leaf 15H: TSC/crystal ratio, crystal Hz */
#define MODEL_CPUID_LEAF_FREQ 0x16u		/* leaf 16H: EAX base MHz, EDX bus (reference) MHz */
#define MODEL_HZ_PER_MHZ 1000000ull
/* The R/WC0 log bits of IA32_THERM_STATUS: 1, 3, 5, 7, 9, 11, 13, 15 (SDM Vol. 4 Table 2-2). */
#define MODEL_THERM_LOG_BITS 0xAAAAull
/* The events whose counts the model takes from its own clocks and SMIs rather than the workload's
 * rate: unhalted core cycles (Intel architectural 3CH/00H and fixed counter 1; AMD PMCx076; P6 79H),
 * reference cycles (Intel 3CH/01H and fixed counter 2), SMIs received (AMD PMCx02B). */
#define MODEL_INTEL_CYCLES 0x3C
#define MODEL_INTEL_REF_UMASK 0x01
#define MODEL_P6_CYCLES 0x79
#define MODEL_AMD_CYCLES 0x76
#define MODEL_AMD_SMI 0x2B
#define MODEL_FIXED_CYCLES_UMASK 2	/* fixed counter 1's pseudo-encoding 00H/02H */
#define MODEL_FIXED_REF_UMASK 3		/* fixed counter 2's 00H/03H */
#define MODEL_FIXED_SLOTS_UMASK 4	/* fixed counter 3's 00H/04H (TOPDOWN.SLOTS) */
#define MILLI 1000u
#define PERCENT 100u
/* The top-down events whose share of the slots each PERF_METRICS byte holds, in byte order (SDM
 * "Performance Metrics"): level 1 from the architectural top-down events (CPUID.0AH:EBX bits 11, 9, 10, 8):
 * retiring, bad speculation, frontend bound, backend bound; level 2 (Golden Cove on; Linux INTEL_TD_METRIC_*)
 * from the general events perfmon gives for the same quantities: heavy operations UOPS_RETIRED.HEAVY
 * (C2H/01H), branch mispredicts TOPDOWN.BR_MISPREDICT_SLOTS (A4H/08H), fetch latency IDQ_BUBBLES.FETCH_LATENCY
 * (9CH/04H, Lion Cove's), memory bound TOPDOWN.MEMORY_BOUND_SLOTS (A4H/10H).  The model fills all eight bytes;
 * a core with only level 1 (Ice Lake, Tiger Lake) has no formula that reads the others. */
static const struct { uint8_t event, umask; } topdown_fields[PERF_METRICS_FIELDS] = {
	{ 0xC2, 0x02 }, { 0x73, 0x00 }, { 0x9C, 0x01 }, { 0xA4, 0x02 },
	{ 0xC2, 0x01 }, { 0xA4, 0x08 }, { 0x9C, 0x04 }, { 0xA4, 0x10 },
};

static uint64_t wmask(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }
static bool kind_amd(enum pmu_kind k) { return k == PMU_AMD_LEGACY || k == PMU_AMD_CORE_EXT || k == PMU_AMD_V2; }
static bool is_amd(const struct pmu_model *m) { return kind_amd(m->cfg.kind); }
static bool intel_global(const struct pmu_model *m)
{
	return m->cfg.kind == PMU_INTEL_ARCH && m->cfg.version >= 2;
}

void pmu_model_cfg_from_caps(struct pmu_model_cfg *cfg, const struct cpu_info *ci, const struct pmu_caps *caps)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->kind = caps->kind;
	cfg->version = caps->version;
	if (caps->kind == PMU_INTEL_ARCH) {
		/* CPUID.(23H,1) where leaf 23H enumerates this core type's counters, else CPUID.0AH. */
		uint32_t gp = pmu_caps_gp_mask(caps);
		unsigned top = 0;
		while (top < 32 && (gp >> top))
			top++;
		cfg->n_gp = top > INTEL_RANGE_GP ? INTEL_RANGE_GP : top;
		cfg->gp_width = caps->gp_width ? caps->gp_width : P6_COUNTER_WIDTH;
		if (caps->version >= 2) {
			unsigned n = caps->n_fixed;
			/* Early Core 2 and Bonnell parts have three fixed counters whatever EDX says [CORE]. */
			if (caps->version < 5 && n < CORE2_FIXED_COUNTERS && !(ci && ci->hypervisor))
				n = CORE2_FIXED_COUNTERS;
			if (n > INTEL_RANGE_FIXED)
				n = INTEL_RANGE_FIXED;
			cfg->fixed_mask = (1u << n) - 1;
			if (caps->version >= 5)
				cfg->fixed_mask |= caps->fixed_bitmap & ((1u << INTEL_RANGE_FIXED) - 1);
			if (caps->arch_ext && caps->ext_fixed_mask)
				cfg->fixed_mask = pmu_caps_fixed_mask(caps) & ((1u << INTEL_RANGE_FIXED) - 1);
			cfg->fixed_width = caps->fixed_width ? caps->fixed_width : cfg->gp_width;
		}
		cfg->any_thread = caps->version >= 3 && !caps->any_thread_deprecated;
		cfg->full_width = caps->full_width_write;
		cfg->offcore = caps->version >= MODEL_OFFCORE_MIN_VERSION;
		cfg->arch_len = caps->arch_events_len;
		cfg->arch_absent = caps->arch_events_absent;
	} else if (caps->kind == PMU_INTEL_P6) {
		cfg->n_gp = P6_COUNTERS;
		cfg->gp_width = P6_COUNTER_WIDTH;
	} else if (kind_amd(caps->kind)) {
		unsigned def = caps->kind == PMU_AMD_LEGACY ? AMD_LEGACY_COUNTERS : AMD_CORE_EXT_COUNTERS;
		cfg->n_gp = caps->amd_n_counters ? caps->amd_n_counters : def;
		if (cfg->n_gp > PMU_MODEL_MAX_GP)
			cfg->n_gp = PMU_MODEL_MAX_GP;
		cfg->gp_width = AMD_COUNTER_WIDTH;
		cfg->amd_event_hi = !ci || ci->family >= AMD_FAMILY_EVENT_HI;
	}
	cfg->perf_caps = caps->perf_caps_read;
	cfg->perf_caps_value = caps->perf_caps;
	cfg->events = ci && ci->event_set ? events_set_find(ci->event_set) : NULL;
}

#define MODEL_MHZ_PER_GHZ 1000u
#define BRAND_FRAC_DIGITS 3	/* a GHz figure to the MHz */
/* The largest whole figure whose Hz, fraction added, fit 64 bits. */
#define BRAND_WHOLE_MAX (UINT64_MAX / MODEL_HZ_PER_MHZ / MODEL_MHZ_PER_GHZ - 1)

/* "... @ 2.20GHz" at the end of a brand string: the nominal frequency, 0 when it says none (or one past 64 bits). */
static uint64_t brand_hz(const char *brand)
{
	const char *at = brand ? strchr(brand, '@') : NULL;
	uint64_t whole = 0, frac = 0, scale = 1;
	size_t n;
	if (!at)
		return 0;
	const char *p = at + 1;
	while (*p == ' ')
		p++;
	if (dec_parse(p, SIZE_MAX, BRAND_WHOLE_MAX, &whole, &n) == DEC_TOO_BIG)
		return 0;
	p += n;
	if (*p == '.') {
		p++;
		dec_parse(p, BRAND_FRAC_DIGITS, UINT64_MAX, &frac, &n);	/* no digit: n is 0, frac stays 0 */
		for (p += n; n; n--)
			scale *= 10;
	}
	uint64_t mhz = whole * MODEL_MHZ_PER_GHZ + frac * MODEL_MHZ_PER_GHZ / scale;
	return !strncmp(p, "GHz", 3) ? mhz * MODEL_HZ_PER_MHZ : !strncmp(p, "MHz", 3) ? whole * MODEL_HZ_PER_MHZ : 0;
}

/* The TSC, crystal and bus clocks of the described CPU, as its CPUID leaves give them. */
static void model_clocks(struct pmu_model_cfg *cfg, const struct cpu_info *ci)
{
	struct cpuid_regs r15 = { 0, 0, 0, 0 }, r16 = { 0, 0, 0, 0 };
	struct tsc_figure f;
	if (!ci || ci->vendor != VENDOR_INTEL)
		return;
	if (ci->max_leaf >= MODEL_CPUID_LEAF_TSC)
		hw_cpuid(MODEL_CPUID_LEAF_TSC, 0, &r15);
	if (ci->max_leaf >= MODEL_CPUID_LEAF_FREQ)
		hw_cpuid(MODEL_CPUID_LEAF_FREQ, 0, &r16);
	cfg->crystal_hz = MODEL_CRYSTAL_DEFAULT_HZ;
	if (tsc_from_cpuid15(r15.eax, r15.ebx, r15.ecx, ci->family, ci->model, r16.eax & 0xFFFF, &f)) {
		cfg->tsc_hz = f.hz;
		cfg->crystal_hz = f.hz * r15.eax / r15.ebx;	/* TSC = crystal * EBX / EAX */
	} else if (r16.eax & 0xFFFF) {
		cfg->tsc_hz = (uint64_t)(r16.eax & 0xFFFF) * MODEL_HZ_PER_MHZ;
	} else {
		cfg->tsc_hz = brand_hz(ci->brand);
	}
	if (!cfg->tsc_hz)
		cfg->tsc_hz = MODEL_TSC_DEFAULT_HZ;
	cfg->bus_hz = (r16.edx & 0xFFFF) ? (uint64_t)(r16.edx & 0xFFFF) * MODEL_HZ_PER_MHZ : MODEL_BUS_DEFAULT_HZ;
}

void pmu_model_cfg_machine(struct pmu_model_cfg *cfg, const struct cpu_info *ci, const struct pmu_caps *caps)
{
	struct cpuid_regs r1 = { 0, 0, 0, 0 };
	bool intel = ci && ci->vendor == VENDOR_INTEL;
	if (ci && ci->max_leaf >= CPUID_LEAF_SIGNATURE)
		hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r1);
	cfg->amd = kind_amd(caps->kind);
	cfg->aperf_mperf = caps->aperf_mperf;
	cfg->smi_count = intel && caps->kind == PMU_INTEL_ARCH && caps->version >= MODEL_SMI_COUNT_MIN_VERSION;
	cfg->therm = intel && (r1.edx & MODEL_CPUID1_EDX_ACPI);
	model_clocks(cfg, ci);
	cfg->perf_metrics = caps->perf_metrics;
	if (!cfg->core_per_tsc_milli)
		cfg->core_per_tsc_milli = MILLI;
}

void pmu_model_reset(struct pmu_model *m, const struct pmu_model_cfg *cfg)
{
	pmu_model_rate_fn rate = m->rate;
	void *ctx = m->rate_ctx;
	struct pmu_model_faults faults = m->faults;
	void (*pmi)(void *) = m->pmi;
	void *pmi_ctx = m->pmi_ctx;
	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	m->rate = rate;
	m->rate_ctx = ctx;
	m->faults = faults;
	m->pmi = pmi;
	m->pmi_ctx = pmi_ctx;
	uint64_t all_gp = wmask(cfg->n_gp);
	/* GLOBAL_CTRL resets with every general counter enabled [ARCH v2]; PerfCntrGlobalCtl too [PPR19]. */
	if (intel_global(m) || cfg->kind == PMU_AMD_V2)
		m->global_ctrl = all_gp;
}

/* ---- which register an MSR number is ---- */

enum reg { R_NONE, R_SEL, R_CTR, R_CTR_FW, R_FIXED, R_FIXED_CTRL, R_STATUS, R_GLOBAL, R_OVF, R_STATUS_SET,
	   R_PERF_CAPS, R_RSP, R_METRICS, R_APERF, R_MPERF, R_SMI, R_THERM };

struct where {
	enum reg reg;
	unsigned idx;
	bool exists;
};

static struct where decode_intel(const struct pmu_model *m, uint32_t msr)
{
	struct where w = { R_NONE, 0, false };
	bool arch = m->cfg.kind == PMU_INTEL_ARCH, p6 = m->cfg.kind == PMU_INTEL_P6;
	if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + INTEL_RANGE_GP)
		w = (struct where){ R_CTR, msr - MSR_IA32_PMC0, (arch || p6) && msr - MSR_IA32_PMC0 < m->cfg.n_gp };
	else if (msr >= MSR_IA32_PERFEVTSEL0 && msr < MSR_IA32_PERFEVTSEL0 + INTEL_RANGE_GP)
		w = (struct where){ R_SEL, msr - MSR_IA32_PERFEVTSEL0,
				    (arch || p6) && msr - MSR_IA32_PERFEVTSEL0 < m->cfg.n_gp };
	else if (msr >= MSR_IA32_A_PMC0 && msr < MSR_IA32_A_PMC0 + INTEL_RANGE_GP)
		w = (struct where){ R_CTR_FW, msr - MSR_IA32_A_PMC0,
				    arch && m->cfg.full_width && msr - MSR_IA32_A_PMC0 < m->cfg.n_gp };
	else if (msr >= MSR_IA32_FIXED_CTR0 && msr < MSR_IA32_FIXED_CTR0 + INTEL_RANGE_FIXED)
		w = (struct where){ R_FIXED, msr - MSR_IA32_FIXED_CTR0,
				    intel_global(m) && (m->cfg.fixed_mask & (1u << (msr - MSR_IA32_FIXED_CTR0))) };
	else if (msr == MSR_IA32_FIXED_CTR_CTRL)
		w = (struct where){ R_FIXED_CTRL, 0, intel_global(m) };
	else if (msr == MSR_IA32_PERF_GLOBAL_STATUS)
		w = (struct where){ R_STATUS, 0, intel_global(m) };
	else if (msr == MSR_IA32_PERF_GLOBAL_CTRL)
		w = (struct where){ R_GLOBAL, 0, intel_global(m) };
	else if (msr == MSR_IA32_PERF_GLOBAL_OVF_CTRL)
		w = (struct where){ R_OVF, 0, intel_global(m) };
	else if (msr == MSR_IA32_PERF_GLOBAL_STATUS_SET)
		w = (struct where){ R_STATUS_SET, 0, intel_global(m) && m->cfg.version >= 4 };
	else if (msr == MSR_IA32_PERF_CAPABILITIES && m->cfg.perf_caps)
		w = (struct where){ R_PERF_CAPS, 0, true };
	else if (msr == MODEL_OFFCORE_RSP_0 || msr == MODEL_OFFCORE_RSP_1)
		w = (struct where){ R_RSP, msr - MODEL_OFFCORE_RSP_0, arch && m->cfg.offcore };
	else if (msr == MSR_IA32_PERF_METRICS)
		w = (struct where){ R_METRICS, 0, arch && m->cfg.perf_metrics };
	return w;
}

static struct where decode_amd(const struct pmu_model *m, uint32_t msr)
{
	struct where w = { R_NONE, 0, false };
	bool amd = is_amd(m), ext = m->cfg.kind == PMU_AMD_CORE_EXT || m->cfg.kind == PMU_AMD_V2;
	if (msr >= MSR_K7_PERF_CTL0 && msr < MSR_K7_PERF_CTL0 + AMD_LEGACY_COUNTERS)
		w = (struct where){ R_SEL, msr - MSR_K7_PERF_CTL0, amd };
	else if (msr >= MSR_K7_PERF_CTR0 && msr < MSR_K7_PERF_CTR0 + AMD_LEGACY_COUNTERS)
		w = (struct where){ R_CTR, msr - MSR_K7_PERF_CTR0, amd };
	else if (msr >= MSR_F15H_PERF_CTL0 && msr < MSR_F15H_PERF_CTL0 + AMD_CORE_EXT_STRIDE * PMU_MODEL_MAX_GP) {
		unsigned i = (msr - MSR_F15H_PERF_CTL0) / AMD_CORE_EXT_STRIDE;
		bool ctr = (msr - MSR_F15H_PERF_CTL0) % AMD_CORE_EXT_STRIDE;
		w = (struct where){ ctr ? R_CTR : R_SEL, i, ext && i < m->cfg.n_gp };
	} else if (msr >= MSR_AMD_PERF_GLOBAL_STATUS && msr <= MSR_AMD_PERF_GLOBAL_STATUS_SET) {
		static const enum reg regs[] = { R_STATUS, R_GLOBAL, R_OVF, R_STATUS_SET };
		w = (struct where){ regs[msr - MSR_AMD_PERF_GLOBAL_STATUS], 0, m->cfg.kind == PMU_AMD_V2 };
	}
	return w;
}

/* The machine around the PMU: answered only where the described CPU has them, else left to the caller. */
static struct where decode_machine(const struct pmu_model *m, uint32_t msr)
{
	struct where w = { R_NONE, 0, false };
	if (msr == MSR_IA32_APERF && m->cfg.aperf_mperf)
		w = (struct where){ R_APERF, 0, true };
	else if (msr == MSR_IA32_MPERF && m->cfg.aperf_mperf)
		w = (struct where){ R_MPERF, 0, true };
	else if (msr == MSR_SMI_COUNT && m->cfg.smi_count)
		w = (struct where){ R_SMI, 0, true };
	else if (msr == MSR_IA32_THERM_STATUS && m->cfg.therm)
		w = (struct where){ R_THERM, 0, true };
	return w;
}

static struct where decode(const struct pmu_model *m, uint32_t msr)
{
	struct where w = decode_intel(m, msr);
	if (w.reg == R_NONE)
		w = decode_amd(m, msr);
	return w.reg != R_NONE ? w : decode_machine(m, msr);
}

/* ---- bit masks ---- */

static uint64_t status_bits(const struct pmu_model *m)
{
	return wmask(m->cfg.n_gp) | (is_amd(m) ? 0 : (uint64_t)m->cfg.fixed_mask << GLOBAL_FIXED_SHIFT);
}

static uint64_t sel_writable(const struct pmu_model *m, unsigned i)
{
	if (is_amd(m))
		return m->cfg.amd_event_hi ? AMD_CTL_WRITABLE : AMD_CTL_WRITABLE_K8;
	uint64_t w = EVTSEL_ARCH_BITS;
	if (!m->cfg.any_thread)
		w &= ~EVTSEL_ANY;
	if (m->cfg.kind == PMU_INTEL_P6 && i != 0)
		w &= ~EVTSEL_EN;	/* EN exists only in PerfEvtSel0 [P6] */
	return w;
}

static uint64_t fixed_ctrl_writable(const struct pmu_model *m)
{
	uint64_t w = 0;
	for (unsigned f = 0; f < PMU_MODEL_MAX_FIXED; f++)
		if (m->cfg.fixed_mask & (1u << f))
			w |= (FIXED_CTRL_OS | FIXED_CTRL_USR | FIXED_CTRL_PMI | (m->cfg.any_thread ? FIXED_CTRL_ANY : 0))
			     << (f * FIXED_CTRL_FIELD_BITS);
	return w;
}

/* GLOBAL_CTRL also takes EN_PERF_METRICS where the metrics register exists. */
static uint64_t global_writable(const struct pmu_model *m)
{
	return status_bits(m) | (m->cfg.perf_metrics ? GLOBAL_CTRL_EN_PERF_METRICS : 0);
}

/* A counter the fault keeps to 32 bits. */
static uint64_t gp_mask_of(const struct pmu_model *m, unsigned c)
{
	return (m->faults.narrow_gp & (1u << c)) ? wmask(32) : wmask(m->cfg.gp_width);
}

static uint64_t ovf_writable(const struct pmu_model *m)
{
	if (is_amd(m))
		return status_bits(m);
	return status_bits(m) | (m->cfg.version >= 4 ? GLOBAL_OVF_V4_EXTRA : GLOBAL_OVF_V2_EXTRA);
}

static uint64_t sext32(uint64_t v) { return (uint64_t)(int64_t)(int32_t)(uint32_t)v; }

/* ---- access ---- */

bool pmu_model_rdmsr(struct pmu_model *m, uint32_t msr, uint64_t *val, int *result)
{
	struct where w = decode(m, msr);
	*val = 0;
	if (w.reg == R_NONE)
		return false;
	*result = w.exists ? HW_OK : HW_FAULT_GP;
	if (!w.exists)
		return true;
	switch (w.reg) {
	case R_SEL: *val = m->sel[w.idx]; break;
	case R_CTR:
	case R_CTR_FW: *val = m->ctr[w.idx]; break;
	case R_FIXED: *val = m->fixed_ctr[w.idx]; break;
	case R_FIXED_CTRL: *val = m->fixed_ctrl; break;
	case R_STATUS: *val = m->global_status; break;
	case R_GLOBAL: *val = m->global_ctrl; break;
	case R_PERF_CAPS: *val = m->cfg.perf_caps_value; break;
	case R_RSP: *val = m->offcore_rsp[w.idx]; break;
	case R_METRICS: *val = m->perf_metrics; break;
	case R_APERF: *val = m->aperf; break;
	case R_MPERF: *val = m->mperf; break;
	case R_SMI: *val = m->smi_count & wmask(32); break;
	case R_THERM: *val = m->therm_status; break;
	default: *val = 0; break;	/* the clear/set command registers read as zero */
	}
	return true;
}

bool pmu_model_wrmsr(struct pmu_model *m, uint32_t msr, uint64_t val, int *result)
{
	struct where w = decode(m, msr);
	if (w.reg == R_NONE)
		return false;
	*result = HW_FAULT_GP;
	if (!w.exists)
		return true;
	uint64_t gp_mask = wmask(m->cfg.gp_width), fx_mask = wmask(m->cfg.fixed_width);
	switch (w.reg) {
	case R_SEL:
		if (val & ~sel_writable(m, w.idx))
			return true;
		m->sel[w.idx] = val;
		break;
	case R_CTR:
		if (is_amd(m)) {
			if (val & ~gp_mask)
				return true;
			m->ctr[w.idx] = val & gp_mask_of(m, w.idx);
		} else {
			/* The legacy address keeps EAX sign-extended [FW][P6]. */
			m->ctr[w.idx] = sext32(val) & gp_mask_of(m, w.idx);
		}
		break;
	case R_CTR_FW:
		if (val & ~gp_mask)
			return true;
		m->ctr[w.idx] = val & gp_mask_of(m, w.idx);
		break;
	case R_FIXED:
		if (val & ~fx_mask)
			return true;
		m->fixed_ctr[w.idx] = val;
		break;
	case R_FIXED_CTRL:
		if (val & ~fixed_ctrl_writable(m))
			return true;
		m->fixed_ctrl = val;
		break;
	case R_GLOBAL:
		if (val & ~global_writable(m))
			return true;
		m->global_ctrl = val;
		break;
	case R_OVF:
		if (val & ~ovf_writable(m))
			return true;
		m->global_status &= ~val;
		break;
	case R_STATUS_SET:
		if (val & ~status_bits(m))
			return true;
		m->global_status |= val;
		break;
	case R_RSP:
		m->offcore_rsp[w.idx] = val;
		break;
	case R_METRICS:
		/* Writing it starts the fractions afresh (software writes 0 after FIXED_CTR3). */
		m->perf_metrics = val;
		m->td_slots = 0;
		memset(m->td_part, 0, sizeof(m->td_part));
		break;
	case R_APERF: m->aperf = val; break;
	case R_MPERF: m->mperf = val; break;
	case R_THERM:
		/* Log bits are R/WC0: a 0 clears one, a 1 leaves it; the status bits are read-only. */
		m->therm_status &= ~MODEL_THERM_LOG_BITS | val;
		break;
	case R_STATUS:
	case R_PERF_CAPS:
	case R_SMI:
	case R_NONE:
		return true;	/* read-only */
	}
	*result = HW_OK;
	return true;
}

int pmu_model_msr_read(void *model, uint32_t msr, uint64_t *val)
{
	int r;
	return pmu_model_rdmsr(model, msr, val, &r) ? r : HW_FAULT_GP;
}

int pmu_model_msr_write(void *model, uint32_t msr, uint64_t val)
{
	int r;
	return pmu_model_wrmsr(model, msr, val, &r) ? r : HW_FAULT_GP;
}

bool pmu_model_poke(struct pmu_model *m, uint32_t msr, uint64_t val)
{
	struct where w = decode(m, msr);
	if (w.reg == R_NONE || !w.exists)
		return false;
	switch (w.reg) {
	case R_SEL: m->sel[w.idx] = val; break;
	case R_CTR:
	case R_CTR_FW: m->ctr[w.idx] = val & gp_mask_of(m, w.idx); break;
	case R_FIXED: m->fixed_ctr[w.idx] = val & wmask(m->cfg.fixed_width); break;
	case R_FIXED_CTRL: m->fixed_ctrl = val; break;
	case R_STATUS: m->global_status = val; break;
	case R_GLOBAL: m->global_ctrl = val; break;
	case R_RSP: m->offcore_rsp[w.idx] = val; break;
	case R_METRICS: m->perf_metrics = val; break;
	case R_APERF: m->aperf = val; break;
	case R_MPERF: m->mperf = val; break;
	case R_SMI: m->smi_count = val; break;
	case R_THERM: m->therm_status = val; break;
	default: return false;
	}
	return true;
}

/* ---- counting ---- */

bool pmu_model_gp_counting(const struct pmu_model *m, unsigned c)
{
	if (c >= m->cfg.n_gp)
		return false;
	uint64_t s = m->sel[c];
	bool priv = s & (EVTSEL_USR | EVTSEL_OS);	/* same bits on AMD [APM] */
	if (m->cfg.kind == PMU_INTEL_P6)
		return priv && (m->sel[0] & EVTSEL_EN);
	bool en = s & EVTSEL_EN;
	if (intel_global(m) || m->cfg.kind == PMU_AMD_V2)
		en = en && (m->global_ctrl & (1ull << c));
	return en && priv;
}

bool pmu_model_fixed_counting(const struct pmu_model *m, unsigned f)
{
	if (!intel_global(m) || !(m->cfg.fixed_mask & (1u << f)))
		return false;
	uint64_t field = m->fixed_ctrl >> (f * FIXED_CTRL_FIELD_BITS);
	return (field & (FIXED_CTRL_OS | FIXED_CTRL_USR)) && (m->global_ctrl & (1ull << (GLOBAL_FIXED_SHIFT + f)));
}

static uint64_t rate(const struct pmu_model *m, uint16_t event, uint8_t umask)
{
	return m->rate ? m->rate(m->rate_ctx, event, umask) : 1;
}

/* Advance a counter; on a wrap, set its overflow flag where the PMU has one. */
static void advance(struct pmu_model *m, uint64_t *ctr, uint64_t n, unsigned width, uint64_t status_bit)
{
	uint64_t mask = wmask(width), before = *ctr;
	*ctr = (before + n) & mask;
	bool wrapped = n > mask - before;
	if (wrapped && (intel_global(m) || m->cfg.kind == PMU_AMD_V2))
		m->global_status |= status_bit;
}

/* CPUID.0AH:EBX bit n <-> architectural event (SDM Vol. 3B Table 20-1), written here again
 * rather than shared with the scheduler, so the two are checked against each other. */
static int arch_bit(uint16_t event, uint8_t umask)
{
	static const uint16_t enc[] = { 0x3C00, 0xC000, 0x3C01, 0x2E4F, 0x2E41, 0xC400, 0xC500, 0xA401, 0xA402,
					0x7300, 0x9C01, 0xC202, 0xE401 };
	for (unsigned i = 0; i < ARRAY_SIZE(enc); i++)
		if (enc[i] == ((unsigned)event << 8 | umask))
			return (int)i;
	return -1;
}

/* The Merge event an AMD PERF_CTL may hold (msr_amd.h): it pairs its counter with the one below. */
static bool holds_merge(const struct pmu_model *m, unsigned c)
{
	uint64_t s = m->sel[c];
	uint16_t ev = (uint16_t)((s & 0xFF) | ((s >> AMD_CTL_EVENT_HI_SHIFT) & 0xF) << 8);
	return is_amd(m) && ev == AMD_MERGE_EVENT && (s & AMD_CTL_EN);
}

/* Counter c allowed by a rule's lists (the SMT-off list with more than four counters). */
static bool rule_allows(const struct pmu_model *m, unsigned c, uint32_t on, uint32_t off)
{
	uint32_t allowed = off && m->cfg.n_gp > MODEL_SMT_ON_COUNTERS ? off : on;
	return !allowed || (allowed & (1u << c));
}

/*
 * Whether the vendor's constraints let general counter c count the event its select holds: the
 * catalogue row it encodes exactly, else the event set's rule for its code (and unit mask), and
 * on AMD the family rules; a large-increment event counts only with the Merge event beside it,
 * and the Merge event itself counts nothing of its own.
 */
static bool constraint_allows(const struct pmu_model *m, unsigned c, uint64_t s, uint16_t event)
{
	uint8_t umask = (uint8_t)(s >> 8), cmask = (uint8_t)(s >> EVTSEL_CMASK_SHIFT);
	bool inv = s & EVTSEL_INV, edge = s & EVTSEL_EDGE;
	struct event_rule r;
	if (m->cfg.kind == PMU_INTEL_ARCH && !cmask && !inv && !edge) {
		/* EBX marks it absent; past EAX[31:24] it is unknown unless the core's table has it. */
		int b = arch_bit(event, umask);
		bool known = m->cfg.events && !uarch_event_set_is_fallback(m->cfg.events->key);
		if (b >= 0 && (b < m->cfg.arch_len ? (m->cfg.arch_absent & (1u << b)) != 0 : !known))
			return false;
	}
	if (is_amd(m) && event == AMD_MERGE_EVENT)
		return false;
	/* The family rules of the CPU's AMD event set (its family, events/sets.csv). */
	unsigned family = is_amd(m) && m->cfg.events ? m->cfg.events->family : 0;
	if (family && events_amd_rule(family, event, umask, &r)) {
		if (r.none || !rule_allows(m, c, r.counters, 0))
			return false;
		if (r.pair && (c % 2 || c + 1 >= m->cfg.n_gp || !holds_merge(m, c + 1)))
			return false;
	}
	const struct event_set *es = m->cfg.events;
	struct events_iter it;
	struct event_def def, *d = &def;
	for (events_iter_start(&it, es); events_next(&it, &def);) {
		bool form1 = d->event == event && d->umask == umask;
		bool form2 = d->has_alt && d->msr_alt && d->alt_event == event && d->alt_umask == umask;
		if (d->fixed_only || d->cmask != cmask || d->inv != inv || d->edge != edge || !(form1 || form2))
			continue;
		if (!rule_allows(m, c, d->counters, d->counters_htoff))
			return false;
		if (d->msr == MODEL_OFFCORE_RSP_0 || d->msr == MODEL_OFFCORE_RSP_1)
			/* An offcore event counts the responses its OFFCORE_RSP selects: none while it is 0. */
			return m->offcore_rsp[form2 && !form1 ? 1 : d->msr - MODEL_OFFCORE_RSP_0] != 0;
		return true;
	}
	/* No row encodes it exactly: the rule for its code, as the vendor's rows bound it. */
	if (events_code_rule(es, event, umask, &r) && (r.none || !rule_allows(m, c, r.counters, r.counters_htoff)))
		return false;
	return true;
}

/* What a counter programmed with this encoding counts in the run: the clocks and SMIs are the
 * machine's, everything else the workload's rate. */
struct run_clocks {
	uint64_t units, cycles, ticks, smis;
};

/* ---- the oracle: what an encoding counts (pmu_oracle.h) ---- */

const struct pmu_oracle_row *pmu_oracle_find(const char *set, int fixed, uint16_t event, uint8_t umask,
					     uint8_t umask_ext, bool any)
{
	for (size_t i = 0; set && i < pmu_oracle_n_rows; i++) {
		const struct pmu_oracle_row *r = &pmu_oracle_rows[i];
		if (r->fixed == fixed && r->event == event && r->umask == umask && r->umask_ext == umask_ext &&
		    r->any == any && !strcmp(r->set, set))
			return r;
	}
	return NULL;
}

bool pmu_oracle_has_set(const char *set)
{
	for (size_t i = 0; set && i < pmu_oracle_n_rows; i++)
		if (!strcmp(pmu_oracle_rows[i].set, set))
			return true;
	return false;
}


/* Ticks of a clock of `hz` while the TSC ticked `ticks` times. */
static uint64_t at_rate(const struct pmu_model *m, uint64_t ticks, uint64_t hz)
{
	return m->cfg.tsc_hz ? ticks * hz / m->cfg.tsc_hz : ticks;
}

/* By the vendors' description of the encoding; false when the table does not know it. */
static bool counted_by_oracle(const struct pmu_model *m, const struct run_clocks *k, const struct pmu_oracle_row *o,
			      uint16_t event, uint8_t umask, uint64_t *n)
{
	switch (o->counts) {
	case PO_CORE_CLOCKS: *n = k->cycles; break;
	case PO_REF_TSC: *n = k->ticks; break;
	case PO_REF_CRYSTAL: *n = at_rate(m, k->ticks, m->cfg.crystal_hz); break;
	case PO_REF_100MHZ: *n = at_rate(m, k->ticks, MODEL_BASE_100_HZ); break;
	case PO_REF_133MHZ: *n = at_rate(m, k->ticks, MODEL_BASE_133_HZ); break;
	case PO_BUS_CLOCKS: *n = at_rate(m, k->ticks, m->cfg.bus_hz); break;
	case PO_SMI: *n = k->smis; break;
	default: *n = k->units * rate(m, event, umask); break;
	}
	return true;
}

/*
 * Without an oracle row (a fallback event set, an encoding its vendor does not describe): the
 * clocks by the SDM's architectural encodings and fixed counters (Vol. 3B Tables 20-1, 20-2), AMD's
 * PMCx076 and PMCx02B (BKDG 26094), P6's 79H; the rest is the workload's.
 */
static uint64_t counted_fallback(const struct pmu_model *m, const struct run_clocks *k, uint16_t event, uint8_t umask,
				 bool fixed)
{
	if (fixed ? umask == MODEL_FIXED_CYCLES_UMASK
		  : m->cfg.amd ? event == MODEL_AMD_CYCLES
			       : (event == MODEL_INTEL_CYCLES && umask == 0) ||
					 (m->cfg.kind == PMU_INTEL_P6 && event == MODEL_P6_CYCLES))
		return k->cycles;
	if (fixed && umask == MODEL_FIXED_REF_UMASK)
		return k->ticks;
	if (!fixed && m->cfg.amd && event == MODEL_AMD_SMI)
		return k->smis;
	return k->units * rate(m, event, umask);
}

static uint64_t counted(const struct pmu_model *m, const struct run_clocks *k, uint16_t event, uint8_t umask, bool any,
			bool fixed)
{
	if (m->faults.ignore_umask && !fixed)
		umask = 0;
	/* Without the machine (pmu_model_cfg_machine), every event is the workload's. */
	if (!m->cfg.core_per_tsc_milli)
		return k->units * rate(m, event, umask);
	const char *set = m->cfg.events ? m->cfg.events->key : NULL;
	const struct pmu_oracle_row *o = pmu_oracle_find(set, fixed ? umask - 1 : -1, event, umask, 0, any);
	uint64_t n;
	if (o && counted_by_oracle(m, k, o, event, umask, &n))
		return n;
	return counted_fallback(m, k, event, umask, fixed);
}

/* The run's core clock against the TSC (as many ticks as cycles without the machine), with the clock
 * faults: a drifting clock is faster in every other run; a throttled run is slower. */
static uint64_t run_ticks(struct pmu_model *m, uint64_t cycles)
{
	uint64_t per_tick = m->cfg.core_per_tsc_milli ? m->cfg.core_per_tsc_milli : MILLI;
	if (m->faults.freq_drift_pct && (m->runs & 1))
		per_tick = per_tick * (PERCENT + m->faults.freq_drift_pct) / PERCENT;
	if (m->faults.throttle)
		per_tick = per_tick * (PERCENT - PMU_MODEL_THROTTLE_PCT) / PERCENT;
	return per_tick ? cycles * MILLI / per_tick : cycles;
}

static void run_metrics(struct pmu_model *m, const struct run_clocks *k)
{
	const unsigned slots_fixed = MODEL_FIXED_SLOTS_UMASK - 1;
	if (!m->cfg.perf_metrics || !(m->global_ctrl & GLOBAL_CTRL_EN_PERF_METRICS) ||
	    !pmu_model_fixed_counting(m, slots_fixed))
		return;
	m->td_slots += counted(m, k, PMU_MODEL_FIXED_EVENT, MODEL_FIXED_SLOTS_UMASK, false, true);
	uint64_t v = 0;
	_Static_assert(ARRAY_SIZE(m->td_part) == PERF_METRICS_FIELDS, "one share per PERF_METRICS byte");
	for (unsigned i = 0; i < PERF_METRICS_FIELDS; i++) {
		m->td_part[i] += counted(m, k, topdown_fields[i].event, topdown_fields[i].umask, false, false);
		uint64_t frac = m->td_slots ? (m->td_part[i] * PERF_METRICS_FULL + m->td_slots / 2) / m->td_slots : 0;
		v |= (frac > PERF_METRICS_FULL ? PERF_METRICS_FULL : frac) << (i * PERF_METRICS_FIELD_BITS);
	}
	m->perf_metrics = v;
}

void pmu_model_run(struct pmu_model *m, uint64_t units)
{
	struct run_clocks k = { .units = units };
	uint16_t cyc_event = m->cfg.amd ? MODEL_AMD_CYCLES : m->cfg.kind == PMU_INTEL_P6 ? MODEL_P6_CYCLES
										      : MODEL_INTEL_CYCLES;
	bool pmi = false;

	k.cycles = units * rate(m, cyc_event, 0);
	k.ticks = run_ticks(m, k.cycles);
	if (m->faults.frozen_clock)
		k.cycles = 0;	/* the TSC runs on; every core clock reads as if the core never ran */
	if (m->faults.smi) {
		k.smis = 1;
		m->faults.smi--;
	}
	for (unsigned c = 0; c < m->cfg.n_gp; c++)
		if (pmu_model_gp_counting(m, c)) {
			uint64_t s = m->sel[c], before = m->ctr[c];
			uint16_t ev = (uint16_t)((s & 0xFF) | (is_amd(m) ? ((s >> AMD_CTL_EVENT_HI_SHIFT) & 0xF) << 8 : 0));
			uint64_t n = constraint_allows(m, c, s, ev) ? counted(m, &k, ev, (uint8_t)(s >> 8),
									     !is_amd(m) && (s & EVTSEL_ANY), false) : 0;
			if (m->faults.stuck_gp & (1u << c))
				n = 0;
			unsigned width = (m->faults.narrow_gp & (1u << c)) ? 32 : m->cfg.gp_width;
			advance(m, &m->ctr[c], n, width, 1ull << c);
			/* The interrupt bit sits at bit 20 in both vendors' selects [ARCH][APM]. */
			if ((s & EVTSEL_INT) && n > wmask(width) - before)
				pmi = true;
		}
	for (unsigned f = 0; f < PMU_MODEL_MAX_FIXED; f++)
		if (pmu_model_fixed_counting(m, f)) {
			uint64_t before = m->fixed_ctr[f];
			uint64_t field = m->fixed_ctrl >> (f * FIXED_CTRL_FIELD_BITS);
			uint64_t n = (m->faults.fixed_off & (1u << f)) ? 0 : counted(m, &k, PMU_MODEL_FIXED_EVENT,
										    (uint8_t)(f + 1), field & FIXED_CTRL_ANY, true);
			advance(m, &m->fixed_ctr[f], n, m->cfg.fixed_width, 1ull << (GLOBAL_FIXED_SHIFT + f));
			if ((field & FIXED_CTRL_PMI) && n > wmask(m->cfg.fixed_width) - before)
				pmi = true;
		}
	run_metrics(m, &k);
	m->tsc += k.ticks;
	if (m->cfg.aperf_mperf) {
		m->aperf += k.cycles;
		m->mperf += k.ticks;
	}
	m->smi_count += k.smis;
	if (m->cfg.therm) {
		/* Throttling now, and logged; the status clears with the next unthrottled run. */
		if (m->faults.throttle)
			m->therm_status |= THERM_STATUS_THERMAL | THERM_LOG_OF(THERM_STATUS_THERMAL);
		else
			m->therm_status &= ~THERM_STATUS_THERMAL;
	}
	m->faults.throttle = false;
	m->runs++;
	if (pmi && !m->faults.no_pmi && m->pmi) {
		m->pmis++;
		m->pmi(m->pmi_ctx);
	}
	/* Not counted in m->pmis: that is the overflows' interrupts; this NMI has no overflow behind it. */
	if (m->faults.stray_nmi && m->pmi)
		m->pmi(m->pmi_ctx);
}

/* ---- faults ---- */

static void f_stuck(struct pmu_model_faults *f, unsigned n) { f->stuck_gp |= 1u << n; }
static void f_narrow(struct pmu_model_faults *f, unsigned n) { f->narrow_gp |= 1u << n; }
static void f_umask(struct pmu_model_faults *f, unsigned n) { (void)n; f->ignore_umask = true; }
static void f_no_pmi(struct pmu_model_faults *f, unsigned n) { (void)n; f->no_pmi = true; }
static void f_fixed_off(struct pmu_model_faults *f, unsigned n) { f->fixed_off |= 1u << n; }
static void f_smi(struct pmu_model_faults *f, unsigned n) { f->smi += n; }
static void f_drift(struct pmu_model_faults *f, unsigned n) { f->freq_drift_pct = n; }
static void f_throttle(struct pmu_model_faults *f, unsigned n) { (void)n; f->throttle = true; }
static void f_frozen(struct pmu_model_faults *f, unsigned n) { (void)n; f->frozen_clock = true; }
static void f_stray(struct pmu_model_faults *f, unsigned n) { (void)n; f->stray_nmi = true; }

struct fault_word {
	const char *name;	/* "stuck" for "stuck:N" */
	unsigned max;		/* largest N accepted; 0: the fault takes no number */
	const char *n_means;	/* for messages */
	void (*apply)(struct pmu_model_faults *f, unsigned n);
};

static const struct fault_word fault_words[] = {
	{ "stuck", PMU_MODEL_MAX_GP - 1, "a general counter number", f_stuck },
	{ "narrow", PMU_MODEL_MAX_GP - 1, "a general counter number", f_narrow },
	{ "ignore-umask", 0, NULL, f_umask },
	{ "no-pmi", 0, NULL, f_no_pmi },
	{ "fixed-off", PMU_MODEL_MAX_FIXED - 1, "a fixed counter number", f_fixed_off },
	{ "smi", 1000, "a number of SMIs", f_smi },
	{ "freq-drift", 90, "a percentage", f_drift },
	{ "throttle", 0, NULL, f_throttle },
	{ "frozen-clock", 0, NULL, f_frozen },
	{ "stray-nmi", 0, NULL, f_stray },
};

#define FAULT_N_DIGITS_MAX 4	/* enough for every fault's max (smi: 1000) */

bool pmu_model_fault_parse(const char *word, struct pmu_model_faults *f, char *why, size_t why_cap)
{
	const char *colon = strchr(word, ':');
	size_t len = colon ? (size_t)(colon - word) : strlen(word);
	for (unsigned i = 0; i < ARRAY_SIZE(fault_words); i++) {
		const struct fault_word *w = &fault_words[i];
		if (strlen(w->name) != len || strncmp(w->name, word, len))
			continue;
		unsigned n = 0;
		if (w->max) {
			const char *p = colon ? colon + 1 : "";
			if (!*p || strlen(p) > FAULT_N_DIGITS_MAX) {
				snprintf(why, why_cap, "fault '%s' wants %s:N (N %s, 0-%u)", word, w->name, w->n_means, w->max);
				return false;
			}
			uint64_t v;	/* read unbounded (FAULT_N_DIGITS_MAX keeps it small) to name it when above max */
			if (!dec_whole(p, strlen(p), UINT64_MAX, &v)) {
				snprintf(why, why_cap, "fault '%s': '%s' is not a number (%s, 0-%u)", word, colon + 1,
					 w->n_means, w->max);
				return false;
			}
			if (v > w->max) {
				snprintf(why, why_cap, "fault '%s': %llu is out of range (%s, 0-%u)", word,
					 (unsigned long long)v, w->n_means, w->max);
				return false;
			}
			n = (unsigned)v;
		} else if (colon) {
			snprintf(why, why_cap, "fault '%s' takes no number", w->name);
			return false;
		}
		w->apply(f, n);
		return true;
	}
	snprintf(why, why_cap, "unknown fault '%s' (stuck:N, narrow:N, ignore-umask, no-pmi, fixed-off:N, smi:K, "
		 "freq-drift:P, throttle, frozen-clock, stray-nmi)", word);
	return false;
}
