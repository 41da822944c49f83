/*
 * pmu/caps/pmu_caps.c - see pmu_caps.h.
 *
 * Intel: SDM Vol. 2A CPUID leaves 01H, 06H, 0AH, 07H.1, 23H; SDM Vol. 3B
 * chapter "Performance Monitoring" (architectural PMU versions 1-5,
 * IA32_PERF_CAPABILITIES); SDM Vol. 4 (MSR addresses).  AMD: APM Vol. 2
 * §13.2 (performance counters), §13.3 (IBS); APM Vol. 3 Appendix E (CPUID
 * 8000_0001h, 8000_001Bh, 8000_0022h).
 */
#include "pmu/caps/pmu_caps.h"
#include "platform/hw.h"
#include "lib/out.h"
#include "lib/x86/msr_intel.h"
#include "lib/x86/msr_amd.h"
#include "lib/x86/cpuid.h"

/* The leaves, and the flags shared with identification: lib/x86/cpuid.h. */

#define CPUID7_1_EAX_PERFMON_EXT (1u << 8)	/* leaf 23H valid */
#define CPUID23_0_SUBLEAF1 (1u << 1)		/* sub-leaf 1 (counter bitmaps) valid */

/* CPUID.0AH (SDM Vol. 2A, leaf 0AH). */
#define A_EAX_NGP(x) (((x) >> 8) & 0xffu)
#define A_EAX_GP_WIDTH(x) (((x) >> 16) & 0xffu)
#define A_EAX_EVLEN(x) (((x) >> 24) & 0xffu)
#define A_EDX_NFIXED(x) ((x) & 0x1fu)
#define A_EDX_FIXED_WIDTH(x) (((x) >> 5) & 0xffu)
#define A_EDX_ANYTHREAD_DEPRECATED (1u << 15)
#define ARCH_PMU_FIXED_FROM_EDX 2	/* EDX fixed-counter fields are valid from version 2 */
#define ARCH_PMU_FIXED_BITMAP 5		/* ECX fixed-counter bitmap from version 5 */



/* Fits 32 bits with bit 31 clear, so a plain (sign-extending) counter write keeps it. */
#define PROBE_PATTERN 0x5a5aa5a5ull
#define PROBE_PATTERN_P6 0x1234a5a5ull

/* AMD (APM Vol. 3 Appendix E). */
#define AMD1_ECX_PERFCTR_CORE (1u << 23)
#define AMD1_ECX_PERFCTR_NB (1u << 24)
#define AMD1_ECX_PERFCTR_LLC (1u << 28)
#define AMD22_EAX_PERFMON_V2 (1u << 0)
#define AMD22_EAX_LBR_STACK (1u << 1)
#define AMD22_EBX_NCORE(x) ((x) & 0xfu)
#define AMD22_EBX_LBR_DEPTH(x) (((x) >> 4) & 0x3fu)
#define AMD22_EBX_NNB(x) (((x) >> 10) & 0x3fu)
#define AMD22_EBX_NUMC(x) (((x) >> 16) & 0x3fu)
#define AMD_IBS_FFV (1u << 0)			/* 8000_001Bh EAX[0]: the flags are valid */
#define AMD_LEGACY_COUNTERS 4			/* K7 onwards */
#define AMD_CORE_EXT_COUNTERS 6			/* with PerfCtrExtCore */
#define AMD_COUNTER_WIDTH 48			/* APM Vol. 2 §13.2.1: 48-bit PerfCtr */
#define AMD_FIRST_PMU_FAMILY 0x6		/* K7: the legacy four counters */

/* P6 family (SDM Vol. 3B "Performance monitoring (P6 family processor)"). */
#define P6_COUNTERS 2
#define P6_COUNTER_WIDTH 40

/* Core 2: architectural PMU v2 with three fixed counters (SDM Vol. 3B "Intel Core 2 processor family"). */
#define CORE2_FIXED_COUNTERS 3

static const char R_V0[] = "CPUID.0AH reports version 0: no architectural PMU";
static const char R_V0_TCG[] = "CPUID.0AH reports version 0: no architectural PMU (QEMU TCG exposes none)";
static const char R_V0_HV[] = "CPUID.0AH reports version 0: no architectural PMU (the hypervisor exposes none)";
static const char R_NO_0A[] = "CPUID has no leaf 0AH and the model is not a known P6-family part: no supported PMU";
static const char R_OLD_AMD[] = "AMD before family 6 (K5/K6) has no performance counters pmuboot supports";
static const char R_VENDOR[] = "unknown vendor: pmuboot knows no PMU for it";
/* Said once, plainly: a reason is often quoted inside another sentence's parentheses. */
static const char R_PROBE_TCG[] = "no working PMU: the counters CPUID implies do not keep a value written to them; "
				  "QEMU TCG emulates none";
static const char R_PROBE_HV[] = "no working PMU: the counters CPUID implies do not keep a value written to them; "
				 "the hypervisor exposes none";
static const char R_TCG[] = "no working PMU: QEMU TCG emulates no performance counters";
static const char R_PROBE_FAULT[] = "accessing the first performance counter raised an exception: no working PMU";

static const char R_NOPDCM[] = "CPUID.1:ECX.PDCM is clear: no IA32_PERF_CAPABILITIES";
static const char R_NOMSR[] = "no MSR access here (e.g. pmuboot-host without /dev/cpu/N/msr, or a CPUID dump)";
static const char R_GP_345[] = "reading IA32_PERF_CAPABILITIES (0x345) raised #GP";
static const char R_GP_34[] = "reading MSR_SMI_COUNT (0x34) raised #GP: not implemented on this model";
static const char R_FAULT[] = "the MSR read raised an exception";
static const char R_SMI_AMD[] = "MSR_SMI_COUNT (0x34) is an Intel MSR";

static const char R_IBS_VENDOR[] = "IBS is an AMD feature";
static const char R_IBS_CLEAR[] = "CPUID 8000_0001h:ECX[10] (IBS) is clear";
static const char R_IBS_CLEAR_ZEN1[] = "CPUID 8000_0001h:ECX[10] (IBS) is clear (on Family 17h models 00h-2Fh "
				       "and 50h-5Fh the firmware may hide IBS)";
static const char R_IBS_NO_1B[] = "CPUID 8000_001Bh is beyond the maximum extended leaf: no capability flags; only "
				  "the baseline fetch and op sampling can be assumed";
static const char R_IBS_FFV[] = "CPUID 8000_001Bh EAX[0] (IBSFFV) is clear: the capability flags are not valid; "
				"only the baseline fetch and op sampling can be assumed";

static const char N_CORE2_FIXED[] = "CPUID.0AH:EDX reports no fixed counters; Intel Core 2 (architectural PMU "
				    "version 2) has 3, as wide as the general counters (SDM Vol. 3B, Core 2 PMU)";

const char *pmu_kind_name(enum pmu_kind k)
{
	static const char *const names[] = { "none", "intel_p6", "intel_arch", "amd_legacy", "amd_core_ext",
					     "amd_v2" };
	return (unsigned)k < ARRAY_SIZE(names) ? names[k] : "unknown";
}

/* CPUID.0AH:EBX bit order (SDM Vol. 2A, leaf 0AH). */
const char *pmu_arch_event_name(unsigned bit)
{
	static const char *const names[] = {
		"core_cycles", "instructions_retired", "reference_cycles", "llc_references", "llc_misses",
		"branch_instructions_retired", "branch_misses_retired", "topdown_slots", "topdown_backend_bound",
		"topdown_bad_speculation", "topdown_frontend_bound", "topdown_retiring", "lbr_inserts",
	};
	return bit < ARRAY_SIZE(names) ? names[bit] : NULL;
}

/* CPUID 8000_001Bh EAX (APM Vol. 3 Appendix E; bits 11+ as Linux names them, see ../shared/reference/ibs.md). */
const char *pmu_ibs_flag_name(unsigned bit)
{
	static const char *const names[] = {
		"IBSFFV", "FetchSam", "OpSam", "RdWrOpCnt", "OpCnt", "BrnTrgt", "OpCntExt", "RipInvalidChk",
		"OpBrnFuse", "IbsFetchCtlExtd", "IbsOpData4", "Zen4IbsExtensions", "OpLdLat", "Dis", "FetchLat",
		"Bit63Filter", "StrmStRmtSocket", NULL, "MemProfiler", "OpDtlbPgSize",
	};
	return bit < ARRAY_SIZE(names) ? names[bit] : NULL;
}

static const char *msr_reason(int rc, const char *gp)
{
	return rc == HW_ENODEV ? R_NOMSR : rc == HW_FAULT_GP ? gp : R_FAULT;
}

/* Identification decided it (cpu/cpu.c); the one emulator it knows is QEMU's TCG, which the reasons name. */
static bool is_tcg(const struct cpu_info *ci) { return ci->exec == EXEC_EMULATED; }

/*
 * Under a hypervisor: does counter 0 hold a value written to it?  Only when
 * it is disabled (not in use), and it is put back as found.  Returns false
 * when the counters do not work; an inconclusive check leaves them trusted,
 * except under QEMU TCG, which is documented to emulate no counters.
 */
static int counter_check(const struct cpu_info *ci, struct pmu_caps *c, uint32_t ctl, uint32_t ctr,
			 uint64_t pattern)
{
	uint64_t sel, old, back = 0;
	int rc;

	if (!ci->hypervisor)
		return 1;
	rc = hw_rdmsr(ctl, &sel);
	if (rc == HW_ENODEV) {
		snprintf(c->note, sizeof(c->note), "under a hypervisor; counter 0 not checked (no MSR access here)");
		return -1;
	}
	c->probed = true;
	if (rc == HW_OK && (sel & EVTSEL_EN)) {
		snprintf(c->note, sizeof(c->note), "under a hypervisor; counter 0 is in use (MSR 0x%x enabled), "
			 "not checked", ctl);
		return -1;
	}
	if (rc == HW_OK)
		rc = hw_rdmsr(ctr, &old);
	if (rc == HW_OK) {
		rc = hw_wrmsr(ctr, pattern);
		if (rc == HW_OK) {
			rc = hw_rdmsr(ctr, &back);
			hw_wrmsr(ctr, old);
		}
	}
	if (rc != HW_OK) {
		snprintf(c->note, sizeof(c->note), "counter 0 check (MSRs 0x%x/0x%x) raised exception %d", ctl, ctr, rc);
		c->absent_reason = R_PROBE_FAULT;
		return 0;
	}
	if (back != pattern) {
		snprintf(c->note, sizeof(c->note), "counter 0 (MSR 0x%x) read back 0x%llx after 0x%llx was written",
			 ctr, (unsigned long long)back, (unsigned long long)pattern);
		c->absent_reason = is_tcg(ci) ? R_PROBE_TCG : R_PROBE_HV;
		return 0;
	}
	snprintf(c->note, sizeof(c->note), "under a hypervisor; counter 0 holds a written value");
	return 1;
}

static bool counter_works(const struct cpu_info *ci, struct pmu_caps *c, uint32_t ctl, uint32_t ctr,
			  uint64_t pattern)
{
	int r = counter_check(ci, c, ctl, ctr, pattern);
	if (r < 0 && is_tcg(ci)) {
		c->absent_reason = R_TCG;
		return false;
	}
	return r != 0;
}

static void detect_perf_caps(struct pmu_caps *c, uint32_t cpuid1_ecx)
{
	uint64_t v;

	c->pdcm = (cpuid1_ecx & CPUID1_ECX_PDCM) != 0;
	if (!c->pdcm) {
		c->perf_caps_reason = R_NOPDCM;
		return;
	}
	int rc = hw_rdmsr(MSR_IA32_PERF_CAPABILITIES, &v);
	if (rc != HW_OK) {
		c->perf_caps_reason = msr_reason(rc, R_GP_345);
		return;
	}
	c->perf_caps_read = true;
	c->perf_caps = v;
	c->lbr_format = PERF_CAP_LBR_FMT(v);
	c->pebs_trap = (v & PERF_CAP_PEBS_TRAP) != 0;
	c->pebs_arch_regs = (v & PERF_CAP_PEBS_ARCH_REGS) != 0;
	c->pebs_format = PERF_CAP_PEBS_FMT(v);
	c->freeze_while_smm = (v & PERF_CAP_FREEZE_WHILE_SMM) != 0;
	c->full_width_write = (v & PERF_CAP_FW_WRITE) != 0;
	c->pebs_baseline = (v & PERF_CAP_PEBS_BASELINE) != 0;
	c->perf_metrics = (v & PERF_CAP_PERF_METRICS) != 0;
}

static void detect_intel_arch(const struct cpu_info *ci, struct pmu_caps *c)
{
	struct cpuid_regs r;

	hw_cpuid(CPUID_LEAF_ARCH_PERFMON, 0, &r);
	c->version = (uint8_t)CPUID0A_VERSION(r.eax);
	if (c->version == 0) {
		c->absent_reason = is_tcg(ci) ? R_V0_TCG : ci->hypervisor ? R_V0_HV : R_V0;
		if (ci->hypervisor)
			snprintf(c->note, sizeof(c->note), "hypervisor signature \"%s\"%s%s", ci->hv_vendor,
				 ci->hv_name ? ": " : "", ci->hv_name ? ci->hv_name : "");
		return;
	}
	c->kind = PMU_INTEL_ARCH;
	c->n_gp = (uint8_t)A_EAX_NGP(r.eax);
	c->gp_width = (uint8_t)A_EAX_GP_WIDTH(r.eax);
	c->arch_events_len = (uint8_t)A_EAX_EVLEN(r.eax);
	c->arch_events_absent = r.ebx;
	if (c->version >= ARCH_PMU_FIXED_FROM_EDX) {
		c->n_fixed = (uint8_t)A_EDX_NFIXED(r.edx);
		c->fixed_width = (uint8_t)A_EDX_FIXED_WIDTH(r.edx);
		c->any_thread_deprecated = (r.edx & A_EDX_ANYTHREAD_DEPRECATED) != 0;
		if (c->n_fixed == 0 && !ci->hypervisor && ci->uarch_pmu == UARCH_PMU_CORE2) {
			c->n_fixed = CORE2_FIXED_COUNTERS;
			c->fixed_width = c->gp_width;
			c->fixed_assumed = true;
			c->fixed_note = N_CORE2_FIXED;
		}
		c->fixed_mask = c->n_fixed >= 32 ? 0xffffffffu : (1u << c->n_fixed) - 1;
	}
	if (c->version >= ARCH_PMU_FIXED_BITMAP) {
		c->fixed_bitmap = r.ecx;
		c->fixed_mask |= r.ecx;
	}
	if (ci->max_leaf >= CPUID_LEAF_PERFMON_EXT) {
		hw_cpuid(CPUID_LEAF_EXT_FEATURES, 1, &r);
		if (r.eax & CPUID7_1_EAX_PERFMON_EXT) {
			hw_cpuid(CPUID_LEAF_PERFMON_EXT, 0, &r);
			if (r.eax & CPUID23_0_SUBLEAF1) {
				hw_cpuid(CPUID_LEAF_PERFMON_EXT, 1, &r);
				c->arch_ext = true;
				c->ext_gp_mask = r.eax;
				c->ext_fixed_mask = r.ebx;
			}
		}
	}
	if (!counter_works(ci, c, MSR_IA32_PERFEVTSEL0, MSR_IA32_PMC0, PROBE_PATTERN))
		c->kind = PMU_NONE;
}

static void detect_intel(const struct cpu_info *ci, struct pmu_caps *c)
{
	struct cpuid_regs r;
	uint64_t v;

	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r);
	detect_perf_caps(c, r.ecx);
	int rc = hw_rdmsr(MSR_SMI_COUNT, &v);
	c->smi_count = rc == HW_OK;
	c->smi_count_reason = c->smi_count ? NULL : msr_reason(rc, R_GP_34);

	if (ci->max_leaf >= CPUID_LEAF_ARCH_PERFMON) {
		detect_intel_arch(ci, c);
	} else if (ci->uarch_pmu == UARCH_PMU_P6) {
		/* The P6 family (Pentium Pro, II, III, M: identification's pmu column, cpu/uarch.csv). */
		c->kind = PMU_INTEL_P6;
		c->n_gp = P6_COUNTERS;
		c->gp_width = P6_COUNTER_WIDTH;
		if (!counter_works(ci, c, MSR_IA32_PERFEVTSEL0, MSR_IA32_PMC0, PROBE_PATTERN_P6))
			c->kind = PMU_NONE;
	} else {
		/* A core identification names but gives no event set says why (NetBurst, P5). */
		c->absent_reason = !ci->event_set && ci->event_set_note ? ci->event_set_note : R_NO_0A;
	}
}

static void detect_ibs(const struct cpu_info *ci, struct pmu_caps *c, uint32_t ecx)
{
	struct cpuid_regs r;

	c->ibs = (ecx & CPUID_AMD1_ECX_IBS) != 0;
	if (!c->ibs) {
		bool zen1 = ci->vendor == VENDOR_AMD && ci->family == 0x17 &&
			    (ci->model <= 0x2f || (ci->model >= 0x50 && ci->model <= 0x5f));
		c->ibs_absent_reason = zen1 ? R_IBS_CLEAR_ZEN1 : R_IBS_CLEAR;
		return;
	}
	if (ci->max_ext_leaf < CPUID_LEAF_AMD_IBS) {
		c->ibs_note = R_IBS_NO_1B;
		return;
	}
	hw_cpuid(CPUID_LEAF_AMD_IBS, 0, &r);
	c->ibs_flags = r.eax;
	c->ibs_flags_valid = (r.eax & AMD_IBS_FFV) != 0;
	if (!c->ibs_flags_valid)
		c->ibs_note = R_IBS_FFV;
}

static void detect_amd(const struct cpu_info *ci, struct pmu_caps *c)
{
	struct cpuid_regs r = { 0, 0, 0, 0 };

	c->smi_count_reason = R_SMI_AMD;
	c->perf_caps_reason = R_NOPDCM;
	if (ci->max_ext_leaf >= CPUID_LEAF_AMD_FEATURES)
		hw_cpuid(CPUID_LEAF_AMD_FEATURES, 0, &r);
	uint32_t ecx = r.ecx;
	detect_ibs(ci, c, ecx);
	if (ci->family < AMD_FIRST_PMU_FAMILY) {
		c->absent_reason = ci->event_set_note ? ci->event_set_note : R_OLD_AMD;	/* the K6's, when named */
		return;
	}
	c->amd_core_ext = (ecx & AMD1_ECX_PERFCTR_CORE) != 0;
	c->amd_nb_ext = (ecx & AMD1_ECX_PERFCTR_NB) != 0;
	c->amd_llc_ext = (ecx & AMD1_ECX_PERFCTR_LLC) != 0;
	c->kind = PMU_AMD_LEGACY;
	c->amd_n_counters = AMD_LEGACY_COUNTERS;
	if (c->amd_core_ext) {
		c->kind = PMU_AMD_CORE_EXT;
		c->amd_n_counters = AMD_CORE_EXT_COUNTERS;
	}
	if (ci->max_ext_leaf >= CPUID_LEAF_AMD_PERFMON) {
		hw_cpuid(CPUID_LEAF_AMD_PERFMON, 0, &r);
		c->amd_v2 = (r.eax & AMD22_EAX_PERFMON_V2) != 0;
		c->amd_lbr_v2 = (r.eax & AMD22_EAX_LBR_STACK) != 0;
		c->amd_lbr_depth = (uint8_t)AMD22_EBX_LBR_DEPTH(r.ebx);
		if (c->amd_v2) {
			c->kind = PMU_AMD_V2;
			c->amd_n_counters = (uint8_t)AMD22_EBX_NCORE(r.ebx);
			c->amd_n_nb = (uint8_t)AMD22_EBX_NNB(r.ebx);
			c->amd_n_umc = (uint8_t)AMD22_EBX_NUMC(r.ebx);
		}
	}
	c->n_gp = c->amd_n_counters;
	c->gp_width = AMD_COUNTER_WIDTH;
	bool ext = c->kind != PMU_AMD_LEGACY;
	if (!counter_works(ci, c, ext ? MSR_F15H_PERF_CTL0 : MSR_K7_PERF_CTL0, ext ? MSR_F15H_PERF_CTR0 : MSR_K7_PERF_CTR0,
			   PROBE_PATTERN))
		c->kind = PMU_NONE;
}

uint32_t pmu_caps_gp_mask(const struct pmu_caps *c)
{
	if (c->kind != PMU_INTEL_ARCH)
		return 0;
	if (c->arch_ext && c->ext_gp_mask)
		return c->ext_gp_mask;
	return c->n_gp >= 32 ? 0xffffffffu : (1u << c->n_gp) - 1;
}

uint32_t pmu_caps_fixed_mask(const struct pmu_caps *c)
{
	if (c->kind != PMU_INTEL_ARCH)
		return 0;
	return c->arch_ext && c->ext_fixed_mask ? c->ext_fixed_mask : c->fixed_mask;
}

void pmu_caps_detect(const struct cpu_info *ci, struct pmu_caps *c)
{
	struct cpuid_regs r;

	memset(c, 0, sizeof(*c));
	c->kind = PMU_NONE;
	if (ci->max_leaf >= CPUID_LEAF_POWER) {
		hw_cpuid(CPUID_LEAF_POWER, 0, &r);
		c->aperf_mperf = (r.ecx & CPUID6_ECX_APERFMPERF) != 0;
	}
	if (ci->vendor == VENDOR_INTEL) {
		c->ibs_absent_reason = R_IBS_VENDOR;
		detect_intel(ci, c);
	} else if (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON) {
		detect_amd(ci, c);
	} else {
		c->absent_reason = R_VENDOR;
		c->ibs_absent_reason = R_IBS_VENDOR;
		c->perf_caps_reason = R_NOPDCM;
		c->smi_count_reason = R_VENDOR;
	}
	if (c->kind != PMU_NONE)
		c->absent_reason = NULL;
}
