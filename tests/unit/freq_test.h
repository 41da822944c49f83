/*
 * tests/unit/freq_test.h - the machines the clock tests share (pmu/freq/):
 * CPUID and the MSRs of an Intel HWP part, an Intel part driven through
 * IA32_PERF_CTL, an AMD part with CPPC and one with P-state control, on the
 * fake CPU (tests/fake/hw_fake.h), and a model of the core clock behind
 * APERF and MPERF: MPERF ticks with the fake TSC, APERF at the frequency the
 * machine's own rule derives from the MSRs as they are now, so what the
 * pin wrote is what the measurement sees.  Header-only (include once, after
 * cmocka.h).
 *
 * The register layouts are worked out here from the sources named in
 * lib/x86/msr_intel.h and msr_amd.h, not taken from pmu/freq's code.
 */
#ifndef PMUBOOT_TESTS_UNIT_FREQ_TEST_H
#define PMUBOOT_TESTS_UNIT_FREQ_TEST_H

#include <stdio.h>
#include <string.h>

#include "lib/x86/cpuid.h"
#include "lib/x86/msr_amd.h"
#include "lib/x86/msr_intel.h"
#include "cpu/cpu.h"
#include "pmu/freq/freq.h"
#include "tests/fake/capture.h"
#include "tests/fake/hw_fake.h"

#define TSC_MHZ 3000u				/* the fake TSC's (and MPERF's) rate */
#define TSC_HZ (TSC_MHZ * 1000000ull)
#define TSC_STEP 1009u				/* ticks per hw_tsc() read */
#define ALL_BITS (~0ull)

/* Intel: ratios x 100 MHz; base 30, lowest 8, 1-core turbo 42 (SDM Vol. 4 MSR_PLATFORM_INFO, MSR_TURBO_RATIO_LIMIT). */
#define I_BASE 30u
#define I_LOWEST 8u
#define I_TURBO 42u
#define I_PLATFORM_INFO (((uint64_t)I_LOWEST << 40) | ((uint64_t)I_BASE << 8))
/* HWP capabilities: highest 42, guaranteed 30, most efficient 12, lowest 8 ([7:0], [15:8], [23:16], [31:24]). */
#define HWP_CAPS ((uint64_t)I_TURBO | ((uint64_t)I_BASE << 8) | (12ull << 16) | ((uint64_t)I_LOWEST << 24))
/* As firmware might leave it: min 8, max 42, desired 0, EPP 0x80, package control (bit 42) on. */
#define HWP_REQ_FOUND ((uint64_t)I_LOWEST | ((uint64_t)I_TURBO << 8) | (0x80ull << 24) | (1ull << 42))
#define PERF_CTL_FOUND (0x1cull << 8)		/* ratio 28 */

/* AMD: P0 = 0x88 / 8 x 200 = 3400 MHz, P1 = 0x70 / 8 x 200 = 2800, P2 = 0x58 / 8 x 200 = 2200 (PPR17 CoreCOF). */
#define A_P0_MHZ 3400u
#define PSTATE_DEF(fid, dfs) ((1ull << 63) | ((uint64_t)(dfs) << 8) | (fid))
#define A_BOOST_MHZ 4500u			/* the model's boost above P0 */
/*
 * CPPC capabilities (MSR C001_02B0: lowest [7:0], lowest non-linear [15:8],
 * nominal [23:16], highest [31:24]): lowest 20, lowest non-linear 40,
 * nominal 100, highest 166.  The frequencies of the lowest and nominal
 * levels are ACPI _CPC's (LowestFrequency, NominalFrequency), in no MSR:
 * 550 and 3400 MHz (P0) here.
 */
#define CPPC_LOWEST 20u
#define CPPC_NOMINAL 100u
#define CPPC_HIGHEST 166u
#define CPPC_LOWEST_MHZ 550u
#define CPPC_CAPS_OF(lowest, nonlinear, nominal, highest) \
	((uint64_t)(lowest) | ((uint64_t)(nonlinear) << 8) | ((uint64_t)(nominal) << 16) | ((uint64_t)(highest) << 24))
#define CPPC_CAPS CPPC_CAPS_OF(CPPC_LOWEST, 40u, CPPC_NOMINAL, CPPC_HIGHEST)
/* As firmware might leave it: max highest, min lowest, desired 0, EPP 0x80. */
#define CPPC_REQ_OF(lowest, highest) ((uint64_t)(highest) | ((uint64_t)(lowest) << 8) | (0x80ull << 24))
#define CPPC_REQ_FOUND CPPC_REQ_OF(CPPC_LOWEST, CPPC_HIGHEST)
/*
 * A preferred-core part (Zen 4 desktop, as Linux amd-pstate reports such
 * parts): lowest 18, lowest non-linear 60, nominal 120, highest 196; _CPC's
 * lowest 400 MHz, nominal 4500 MHz = P0 (0xB4 / 8 x 200).
 */
#define PREF_LOWEST 18u
#define PREF_NOMINAL 120u
#define PREF_HIGHEST 196u
#define PREF_LOWEST_MHZ 400u
#define PREF_NOMINAL_MHZ 4500u
#define HWCR_FOUND 0x1000011ull			/* SmmLock, TscFreqSel (bit 24) and bit 4, as a Zen part shows */
#define SIG_ZEN2 0x00830F10u			/* family 17h model 31h */

/* ---- the clock behind APERF/MPERF ---- */

static struct {
	uint32_t (*mhz_now)(void);	/* the core clock the machine's MSRs give now */
	uint32_t cap_mhz;		/* the core never runs faster (a pin that does not hold); 0: none */
	uint32_t mperf_per_mhz_tsc;	/* MPERF ticks per TSC tick in thousandths (1000: the architecture's) */
	uint64_t last, mperf, aperf_num, mperf_num;
	bool started;
	/* A write this hook swallows: to msr, with value (the MSR keeps what it had). */
	uint32_t drop_msr;
	uint64_t drop_val;
	bool drop_any;
} clk;

static inline void clock_advance(void)
{
	uint64_t now = hw_tsc();
	if (clk.started) {
		uint32_t mhz = clk.mhz_now();
		if (clk.cap_mhz && mhz > clk.cap_mhz)
			mhz = clk.cap_mhz;
		clk.aperf_num += (now - clk.last) * mhz;
		clk.mperf_num += (now - clk.last) * clk.mperf_per_mhz_tsc;
	}
	clk.started = true;
	clk.last = now;
}

static inline bool clock_read(void *ctx, uint32_t msr, uint64_t *val, int *result)
{
	(void)ctx;
	if (msr != MSR_IA32_APERF && msr != MSR_IA32_MPERF)
		return false;
	clock_advance();
	*val = msr == MSR_IA32_APERF ? clk.aperf_num / TSC_MHZ : clk.mperf_num / 1000;
	*result = HW_OK;
	return true;
}

static inline bool clock_write(void *ctx, uint32_t msr, uint64_t val, int *result)
{
	(void)ctx;
	if (msr == clk.drop_msr && (clk.drop_any || val == clk.drop_val)) {
		*result = HW_OK;	/* accepted, and ignored */
		return true;
	}
	clock_advance();	/* the time so far ran at the old clock */
	return false;
}

static const struct fake_msr_hook clock_hook = { clock_read, clock_write, NULL, NULL };

/* ---- the machines ---- */

static struct cpu_info ci;
static struct capture cap;

static inline void machine_reset(uint32_t (*rule)(void))
{
	fake_reset();
	fake_tsc_set(0, TSC_STEP);
	memset(&clk, 0, sizeof(clk));
	clk.mhz_now = rule;
	clk.mperf_per_mhz_tsc = 1000;
	fake_set_hook(&clock_hook);
	memset(&ci, 0, sizeof(ci));
	ci.max_leaf = CPUID_LEAF_NATIVE_MODEL;
	ci.exec = EXEC_BARE_METAL;
	fake_cpuid_set(CPUID_LEAF_VENDOR, 0, ci.max_leaf, 0, 0, 0);
}

/* Intel rule: HWP's request (min = max) when HWP is on, else PERF_CTL's ratio, turbo only with bit 32 clear. */
static inline uint32_t intel_clock(void)
{
	if (fake_msr_get(MSR_IA32_PM_ENABLE) & 1) {
		uint64_t req = fake_msr_get(MSR_IA32_HWP_REQUEST);
		return (uint32_t)(req & 0xff) * 100;	/* runs at its minimum: min = max pins it */
	}
	uint32_t ratio = (uint32_t)(fake_msr_get(MSR_IA32_PERF_CTL) >> 8) & 0xff;
	if (ratio > I_BASE && (fake_msr_get(MSR_IA32_PERF_CTL) & (1ull << 32)))
		ratio = I_BASE;
	return ratio * 100;
}

/* An Intel part: leaf 1 with EIST, leaf 6 with APERF/MPERF, turbo and (hwp) HWP enabled by firmware. */
static inline void intel_machine(bool hwp, const char *uarch_key)
{
	machine_reset(intel_clock);
	ci.vendor = VENDOR_INTEL;
	ci.family = 6;
	ci.max_ext_leaf = CPUID_LEAF_EXT_CAPACITY;
	fake_cpuid_set(CPUID_LEAF_EXT_MAX, 0, CPUID_LEAF_EXT_CAPACITY, 0, 0, 0);
	fake_cpuid_set(CPUID_LEAF_EXT_POWER, 0, 0, 0, 0, CPUID_EXT_POWER_EDX_INVARIANT_TSC);
	ci.uarch_key = uarch_key;
	ci.uarch = uarch_key;
	snprintf(ci.vendor_str, sizeof(ci.vendor_str), "GenuineIntel");
	fake_cpuid_set(CPUID_LEAF_SIGNATURE, 0, 0x000506E3u, 0, CPUID1_ECX_EIST, 0);
	fake_cpuid_set(CPUID_LEAF_POWER, 0, CPUID6_EAX_TURBO | (hwp ? CPUID6_EAX_HWP : 0), 0, CPUID6_ECX_APERFMPERF, 0);
	fake_msr_define(MSR_PLATFORM_INFO, I_PLATFORM_INFO, 0);
	fake_msr_define(MSR_TURBO_RATIO_LIMIT, 0x2a2a2a2aull, 0);
	fake_msr_define(MSR_IA32_MISC_ENABLE, 0x850089ull, 0);
	fake_msr_define(MSR_IA32_PERF_CTL, PERF_CTL_FOUND, (1ull << 32) | 0xffffull);
	fake_msr_define(MSR_IA32_MPERF, 0, ALL_BITS);
	fake_msr_define(MSR_IA32_APERF, 0, ALL_BITS);
	if (hwp) {
		fake_msr_define(MSR_IA32_PM_ENABLE, 1, 0);	/* read-only here: a write would #GP and fail the test */
		fake_msr_define(MSR_IA32_HWP_CAPABILITIES, HWP_CAPS, 0);
		fake_msr_define(MSR_IA32_HWP_REQUEST, HWP_REQ_FOUND, 0x7ffffffffffull);
	}
}

/* The AMD part's CPPC levels and the true frequencies of its lowest and nominal levels (the clock model's). */
static struct {
	uint32_t lowest, nominal, lowest_mhz, nominal_mhz;
} apart;

/*
 * A CPPC level's frequency: on the line through (lowest, lowest MHz) and
 * (nominal, nominal MHz) up to nominal, nominal MHz per nominal level above
 * (ACPI _CPC's two frequencies; Linux amd-pstate's perf_to_freq above).
 */
static inline uint32_t cppc_true_mhz(uint32_t level)
{
	if (level >= apart.nominal)
		return apart.nominal_mhz * level / apart.nominal;
	return apart.lowest_mhz + (level - apart.lowest) * (apart.nominal_mhz - apart.lowest_mhz) /
					  (apart.nominal - apart.lowest);
}

/* AMD rule: the CPPC request's minimum when CPPC is on, else the P-state asked for; P0 boosts unless CpbDis. */
static inline uint32_t amd_clock(void)
{
	bool boost = !(fake_msr_get(MSR_AMD_HWCR) & (1ull << 25));
	if (fake_msr_exists(MSR_AMD_CPPC_ENABLE) && (fake_msr_get(MSR_AMD_CPPC_ENABLE) & 1)) {
		uint32_t level = (uint32_t)(fake_msr_get(MSR_AMD_CPPC_REQ) >> 8) & 0xff;
		if (!boost && level > apart.nominal)
			level = apart.nominal;
		return cppc_true_mhz(level);
	}
	uint32_t n = (uint32_t)fake_msr_get(MSR_AMD_PSTATE_CTL) & 7;
	uint64_t def = fake_msr_get(MSR_AMD_PSTATE_DEF0 + n);
	if (n == 0 && boost)
		return A_BOOST_MHZ;
	return (uint32_t)(def & 0xff) * 200 / (uint32_t)((def >> 8) & 0x3f);
}

/* A Zen 2 part: P0..P2 defined, CPB, hardware P-states, and (cppc) CPPC, enabled by firmware or not. */
static inline void amd_machine(bool cppc, bool cppc_enabled)
{
	machine_reset(amd_clock);
	ci.vendor = VENDOR_AMD;
	ci.family = 0x17;
	ci.max_ext_leaf = CPUID_LEAF_EXT_CAPACITY;
	ci.uarch_key = "zen2";
	ci.uarch = "Zen 2";
	snprintf(ci.vendor_str, sizeof(ci.vendor_str), "AuthenticAMD");
	fake_cpuid_set(CPUID_LEAF_SIGNATURE, 0, SIG_ZEN2, 0, 0, 0);
	fake_cpuid_set(CPUID_LEAF_POWER, 0, 0, 0, CPUID6_ECX_APERFMPERF, 0);
	fake_cpuid_set(CPUID_LEAF_EXT_MAX, 0, CPUID_LEAF_EXT_CAPACITY, 0, 0, 0);
	fake_cpuid_set(CPUID_LEAF_EXT_POWER, 0, 0, 0, 0,
		       CPUID_EXT_POWER_EDX_HW_PSTATE | CPUID_EXT_POWER_EDX_INVARIANT_TSC | CPUID_EXT_POWER_EDX_CPB);
	fake_cpuid_set(CPUID_LEAF_EXT_CAPACITY, 0, 0x3030, cppc ? CPUID_EXT_CAPACITY_EBX_CPPC : 0, 0, 0);
	fake_msr_define(MSR_AMD_HWCR, HWCR_FOUND, ALL_BITS);
	fake_msr_define(MSR_AMD_PSTATE_CUR_LIMIT, 2u << 4, 0);	/* fastest P0, slowest P2 */
	fake_msr_define(MSR_AMD_PSTATE_CTL, 0, 7);
	fake_msr_define(MSR_AMD_PSTATE_DEF0, PSTATE_DEF(0x88, 8), 0);
	fake_msr_define(MSR_AMD_PSTATE_DEF0 + 1, PSTATE_DEF(0x70, 8), 0);
	fake_msr_define(MSR_AMD_PSTATE_DEF0 + 2, PSTATE_DEF(0x58, 8), 0);
	for (uint32_t n = 3; n < 8; n++)
		fake_msr_define(MSR_AMD_PSTATE_DEF0 + n, 0, 0);
	fake_msr_define(MSR_IA32_MPERF, 0, ALL_BITS);
	fake_msr_define(MSR_IA32_APERF, 0, ALL_BITS);
	apart.lowest = CPPC_LOWEST;
	apart.nominal = CPPC_NOMINAL;
	apart.lowest_mhz = CPPC_LOWEST_MHZ;
	apart.nominal_mhz = A_P0_MHZ;
	freq_set_cpc_mhz(0, 0);	/* what the image knows: no _CPC frequencies, unless a test gives them */
	if (cppc) {
		fake_msr_define(MSR_AMD_CPPC_ENABLE, cppc_enabled ? 1 : 0, 0);	/* never written: writable 0 */
		fake_msr_define(MSR_AMD_CPPC_CAP1, CPPC_CAPS, 0);
		fake_msr_define(MSR_AMD_CPPC_REQ, CPPC_REQ_FOUND, 0xffffffffull);
	}
}

/* The preferred-core part: the Zen 2 machine's P-states and boost, with a Zen 4's P0 and CPPC levels. */
static inline void amd_prefcore_machine(void)
{
	amd_machine(true, true);
	ci.family = 0x19;
	ci.uarch_key = "zen4";
	ci.uarch = "Zen 4";
	fake_msr_set(MSR_AMD_PSTATE_DEF0, PSTATE_DEF(0xB4, 8));
	fake_msr_set(MSR_AMD_CPPC_CAP1, CPPC_CAPS_OF(PREF_LOWEST, 60u, PREF_NOMINAL, PREF_HIGHEST));
	fake_msr_set(MSR_AMD_CPPC_REQ, CPPC_REQ_OF(PREF_LOWEST, PREF_HIGHEST));
	apart.lowest = PREF_LOWEST;
	apart.nominal = PREF_NOMINAL;
	apart.lowest_mhz = PREF_LOWEST_MHZ;
	apart.nominal_mhz = PREF_NOMINAL_MHZ;
}

/* Keep the output from now on (what was kept before is freed). */
static inline void recapture(void)
{
	capture_free(&cap);
	capture_start(&cap);
}

static inline struct freq_opts ask(enum freq_ask a, uint32_t mhz, enum freq_boost b)
{
	return (struct freq_opts){ a, mhz, b, NULL };
}

/* Pin, prove and keep the output; the result. */
static inline const struct freq_result *pin(struct freq_opts o)
{
	recapture();
	freq_pin(&ci, &o);
	freq_prove(TSC_HZ);
	return freq_result();
}

/* The values written to msr, in order, into vals; how many. */
static inline size_t writes_to(uint32_t msr, uint64_t *vals, size_t cap_n)
{
	size_t k = 0;
	for (size_t i = 0; i < fake_log_count(); i++)
		if (fake_log_at(i)->msr == msr) {
			if (k < cap_n)
				vals[k] = fake_log_at(i)->value;
			k++;
		}
	return k;
}

/* The first text line or record containing s, or NULL. */
static inline const char *line_with(const char *s)
{
	for (size_t i = 0; i < cap.n; i++)
		if (strstr(cap.lines[i], s))
			return cap.lines[i];
	return NULL;
}

static inline void must_contain(const char *text, const char *s)
{
	if (!text || !strstr(text, s))
		fail_msg("expected \"%s\" in: %s", s, text ? text : "(nothing)");
}

/* The restore record freq_restore emits, as JSON, or NULL (capture started anew). */
static inline const char *restore_now(void)
{
	recapture();
	freq_restore();
	return capture_find(&cap, "restore");
}

static inline int teardown(void **state)
{
	(void)state;
	freq_restore();
	capture_free(&cap);
	fake_set_hook(NULL);
	return 0;
}

#endif
