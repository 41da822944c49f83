/*
 * The PMU model behind the fake CPU (pmu/count/pmu_model_host.c): the tests above are
 * only as good as it, so its rules are checked against the manuals here -
 * MSRs that exist or #GP, reserved bits, legacy sign-extended counter
 * writes, reset values, gating, wrap and overflow status.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tests/fake/fake_pmu.h"
#include "tests/fake/hw_fake.h"
#include "pmu/count/pmu_oracle.h"
#include "lib/x86/msr_intel.h"

static void install(const char *key)
{
	const struct fake_cpu *cpu = fake_cpu_find(key);
	assert_non_null(cpu);
	fake_pmu_install(cpu);
}

static void absent_msrs_fault(void **state)
{
	(void)state;
	uint64_t v;
	install("core2");
	assert_int_equal(hw_rdmsr(0x4C1, &v), HW_FAULT_GP);	/* no FW_WRITE: no IA32_A_PMC0 */
	assert_int_equal(hw_rdmsr(0xC3, &v), HW_FAULT_GP);	/* only two general counters */
	assert_int_equal(hw_rdmsr(0x30B, &v), HW_OK);		/* fixed 2 exists although EDX said 0 */
	assert_int_equal(hw_rdmsr(0xC0010000, &v), HW_FAULT_GP);	/* AMD's on Intel */
	assert_int_equal(hw_rdmsr(0x391, &v), HW_FAULT_GP);	/* STATUS_SET is version 4 */
	install("intel-v1");
	assert_int_equal(hw_rdmsr(0x38F, &v), HW_FAULT_GP);	/* no global control before v2 */
	assert_int_equal(hw_rdmsr(0x309, &v), HW_FAULT_GP);
	install("skylake");
	assert_int_equal(hw_rdmsr(0x30C, &v), HW_FAULT_GP);	/* three fixed counters */
	assert_int_equal(hw_rdmsr(0x4C8, &v), HW_OK);
	assert_int_equal(hw_rdmsr(0x345, &v), HW_OK);
	assert_int_equal(v, 1u << 13);
	install("p6");
	assert_int_equal(hw_rdmsr(0x38F, &v), HW_FAULT_GP);
	assert_int_equal(hw_rdmsr(0xC2, &v), HW_OK);
	install("fam10h");
	assert_int_equal(hw_rdmsr(0xC0010201, &v), HW_FAULT_GP);	/* no core extension */
	assert_int_equal(hw_rdmsr(0x186, &v), HW_FAULT_GP);
	install("zen");
	assert_int_equal(hw_rdmsr(0xC001020B, &v), HW_OK);	/* counter 5 */
	assert_int_equal(hw_rdmsr(0xC001020C, &v), HW_FAULT_GP);
	assert_int_equal(hw_rdmsr(0xC0000301, &v), HW_FAULT_GP);	/* no PerfMonV2 */
	/* Outside the PMU ranges the plain MSR store answers. */
	fake_msr_define(0x10, 42, ~0ull);
	assert_int_equal(hw_rdmsr(0x10, &v), HW_OK);
	assert_int_equal(v, 42);
}

static void reserved_bits_fault(void **state)
{
	(void)state;
	install("core2");
	assert_int_equal(hw_wrmsr(0x186, 1u << 21), HW_FAULT_GP);	/* AnyThread before v3 */
	assert_int_equal(hw_wrmsr(0x186, 1ull << 32), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(0x38D, 0x4), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(0x38F, 1ull << 2), HW_FAULT_GP);	/* only PMC0-1 */
	assert_int_equal(hw_wrmsr(0x38F, 7ull << 32), HW_OK);
	assert_int_equal(hw_wrmsr(0x38E, 0), HW_FAULT_GP);		/* status is read-only */
	install("silvermont");
	assert_int_equal(hw_wrmsr(0x186, 1u << 21), HW_OK);
	assert_int_equal(hw_wrmsr(0x38D, 0x4), HW_OK);
	install("icelake");
	assert_int_equal(hw_wrmsr(0x186, 1u << 21), HW_FAULT_GP);	/* deprecated (EDX[15]) */
	assert_int_equal(hw_wrmsr(0x4C1, 1ull << 48), HW_FAULT_GP);	/* beyond the width */
	assert_int_equal(hw_wrmsr(0x38D, 0x3000), HW_OK);		/* fixed 3 */
	install("p6");
	assert_int_equal(hw_wrmsr(0x186, 1u << 22), HW_OK);
	assert_int_equal(hw_wrmsr(0x187, 1u << 22), HW_FAULT_GP);	/* EN only in PerfEvtSel0 */
	install("zen");
	assert_int_equal(hw_wrmsr(0xC0010200, 1u << 21), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(0xC0010200, 0xFull << 32), HW_OK);
	assert_int_equal(hw_wrmsr(0xC0010201, 1ull << 48), HW_FAULT_GP);
	install("k8");
	assert_int_equal(hw_wrmsr(0xC0010000, 1ull << 32), HW_FAULT_GP);	/* 8-bit event select */
	assert_int_equal(hw_wrmsr(0xC0010000, 0x4300C0), HW_OK);
}

static void legacy_counter_writes_sign_extend(void **state)
{
	(void)state;
	uint64_t v;
	install("skylake");
	assert_int_equal(hw_wrmsr(0xC1, 0x80000000), HW_OK);
	hw_rdmsr(0xC1, &v);
	assert_int_equal(v, 0xFFFF80000000ull);
	assert_int_equal(hw_wrmsr(0x4C1, 0x80000000), HW_OK);	/* full width: as written */
	hw_rdmsr(0xC1, &v);
	assert_int_equal(v, 0x80000000ull);
	install("p6");
	hw_wrmsr(0xC2, 0x123456789ull);	/* bits 39:32 from bit 31, not from EDX */
	hw_rdmsr(0xC2, &v);
	assert_int_equal(v, 0x23456789ull);
}

static void reset_values(void **state)
{
	(void)state;
	uint64_t v;
	install("skylake");
	hw_rdmsr(0x38F, &v);
	assert_int_equal(v, 0xFF);
	install("zen4");
	hw_rdmsr(0xC0000301, &v);
	assert_int_equal(v, 0x3F);
}

static void counting_is_gated(void **state)
{
	(void)state;
	uint64_t v;
	install("skylake");
	hw_wrmsr(0x38F, 0);
	hw_wrmsr(0x186, 0x430010);
	fake_pmu_run(5);
	hw_rdmsr(0xC1, &v);
	assert_int_equal(v, 0);	/* global bit clear */
	hw_wrmsr(0x38F, 1);
	fake_pmu_run(5);
	hw_rdmsr(0xC1, &v);
	assert_int_equal(v, 5);
	hw_wrmsr(0x186, 0x400010);	/* neither USR nor OS */
	fake_pmu_run(5);
	hw_rdmsr(0xC1, &v);
	assert_int_equal(v, 5);
	/* AMD legacy addresses are counters 0-3 of the core extension. */
	install("zen");
	hw_wrmsr(0xC0010001, 0x430010);
	fake_pmu_run(3);
	hw_rdmsr(0xC0010203, &v);
	assert_int_equal(v, 3);
}

static void wrap_sets_overflow(void **state)
{
	(void)state;
	uint64_t v;
	install("goldmont");
	hw_wrmsr(0x4C1, (1ull << 48) - 2);
	hw_wrmsr(0x186, 0x430010);
	hw_wrmsr(0x38F, 1);
	fake_pmu_run(5);
	hw_rdmsr(0xC1, &v);
	assert_int_equal(v, 3);
	hw_rdmsr(0x38E, &v);
	assert_int_equal(v, 1);
	hw_wrmsr(0x390, 1);
	hw_rdmsr(0x38E, &v);
	assert_int_equal(v, 0);
	hw_wrmsr(0x391, 1);	/* v4 STATUS_SET */
	hw_rdmsr(0x38E, &v);
	assert_int_equal(v, 1);
	/* P6 has no status register: it just wraps at 40 bits. */
	install("p6");
	hw_wrmsr(0xC1, 0xFFFFFFFF);
	hw_wrmsr(0x186, 0x430010);
	fake_pmu_run(2);
	hw_rdmsr(0xC1, &v);
	assert_int_equal(v, 1);
}

/* Count one event on general counter c of the installed Intel preset for 10 units. */
static uint64_t intel_count(unsigned c, uint64_t select)
{
	assert_int_equal(hw_wrmsr(0x38F, 0), HW_OK);			/* GLOBAL_CTRL off */
	assert_int_equal(hw_wrmsr(0xC1 + c, 0), HW_OK);			/* IA32_PMCc */
	assert_int_equal(hw_wrmsr(0x186 + c, select | 0x430000), HW_OK);	/* EN | USR | OS */
	assert_int_equal(hw_wrmsr(0x38F, 1ull << c), HW_OK);
	fake_pmu_run(10);
	assert_int_equal(hw_wrmsr(0x38F, 0), HW_OK);
	assert_int_equal(hw_wrmsr(0x186 + c, 0), HW_OK);
	uint64_t v;
	assert_int_equal(hw_rdmsr(0xC1 + c, &v), HW_OK);
	return v;
}

/* The vendors' constraints, as their tables state them: a misplaced event counts nothing. */
static void constraints_enforced(void **state)
{
	(void)state;
	install("icelake");
	/* LD_BLOCKS.STORE_FORWARD (03H/02H): counters 0-3 only on Ice Lake. */
	assert_int_equal(intel_count(2, 0x0203), 10);
	assert_int_equal(intel_count(5, 0x0203), 0);
	/* An encoding no table restricts counts anywhere: 0EEH is no Ice Lake event code. */
	assert_int_equal(intel_count(5, 0x00EE), 10);
	/* An encoding no row lists exactly follows its code's rule (defect a): L1D.REPLACEMENT
	 * (51H/01H) is on 0-3, so 51H with another unit mask, or 03H/02H with a counter mask, is too. */
	assert_int_equal(intel_count(5, 0x0051), 0);
	assert_int_equal(intel_count(2, 0x0051), 10);
	assert_int_equal(intel_count(5, 0x01000203), 0);
	assert_int_equal(intel_count(3, 0x01000203), 10);
	/* An offcore event counts only while its OFFCORE_RSP selects something. */
	assert_int_equal(intel_count(0, 0x01B7), 0);
	assert_int_equal(hw_wrmsr(0x1A6, 0x10001), HW_OK);
	assert_int_equal(intel_count(0, 0x01B7), 10);
	assert_int_equal(intel_count(0, 0x01BB), 0);			/* second form: OFFCORE_RSP_1 */
	assert_int_equal(hw_wrmsr(0x1A7, 0x10002), HW_OK);
	assert_int_equal(intel_count(0, 0x01BB), 10);
	/* Bloomfield: CPUID.0AH:EBX bit 6, branch mispredicts retired (C5H/00H), counts nothing. */
	install("nehalem");
	assert_int_equal(intel_count(0, 0x00C5), 0);
	assert_int_equal(intel_count(0, 0x00C4), 10);
	/* No offcore MSRs before version 3. */
	install("core2");
	uint64_t v;
	assert_int_equal(hw_rdmsr(0x1A6, &v), HW_FAULT_GP);
}

/* Family 15h: cycles (076H) only on PERF_CTL[2:0] (BKDG 42301), through the core extension. */
static void fam15h_groups_enforced(void **state)
{
	(void)state;
	struct pmu_model_cfg cfg = { .kind = PMU_AMD_CORE_EXT, .n_gp = 6, .gp_width = 48, .amd_event_hi = true,
				     .events = events_set_find("fam15h") };
	fake_pmu_install_cfg(&cfg);
	for (unsigned c = 0; c < 6; c++) {
		uint64_t v;
		assert_int_equal(hw_wrmsr(0xC0010201 + 2 * c, 0), HW_OK);
		assert_int_equal(hw_wrmsr(0xC0010200 + 2 * c, 0x430076), HW_OK);
		fake_pmu_run(10);
		assert_int_equal(hw_wrmsr(0xC0010200 + 2 * c, 0), HW_OK);
		assert_int_equal(hw_rdmsr(0xC0010201 + 2 * c, &v), HW_OK);
		assert_int_equal(v, c < 3 ? 10 : 0);
	}
	/* The family rule holds for an encoding no row lists (defect a): 076H with a counter mask
	 * still counts only on PERF_CTL[2:0]; and the units no core counter counts (0A0H) count nowhere. */
	for (unsigned c = 0; c < 6; c++) {
		uint64_t v;
		assert_int_equal(hw_wrmsr(0xC0010201 + 2 * c, 0), HW_OK);
		assert_int_equal(hw_wrmsr(0xC0010200 + 2 * c, 0x1430076), HW_OK);	/* cmask 1 */
		fake_pmu_run(10);
		assert_int_equal(hw_wrmsr(0xC0010200 + 2 * c, 0x4300A0), HW_OK);
		fake_pmu_run(10);
		assert_int_equal(hw_wrmsr(0xC0010200 + 2 * c, 0), HW_OK);
		assert_int_equal(hw_rdmsr(0xC0010201 + 2 * c, &v), HW_OK);
		assert_int_equal(v, c < 3 ? 10 : 0);
	}
}

/* Zen 3: retired FLOPs (003H) count only on an even counter whose odd neighbour holds the
 * enabled Merge event (PPR 2.1.15.3); the Merge counter counts nothing of its own. */
static void amd_pairs_need_the_merge_event(void **state)
{
	(void)state;
	struct pmu_model_cfg cfg = { .kind = PMU_AMD_CORE_EXT, .n_gp = 6, .gp_width = 48, .amd_event_hi = true,
				     .events = events_set_find("zen3") };
	uint64_t v0, v1;
	fake_pmu_install_cfg(&cfg);
	assert_int_equal(hw_wrmsr(0xC0010200, 0x430F03), HW_OK);		/* alone: not a useful count */
	fake_pmu_run(10);
	assert_int_equal(hw_rdmsr(0xC0010201, &v0), HW_OK);
	assert_int_equal(v0, 0);
	assert_int_equal(hw_wrmsr(0xC0010202, 0xF004000FFull), HW_OK);	/* Merge | EN on PERF_CTL1 */
	fake_pmu_run(10);
	assert_int_equal(hw_rdmsr(0xC0010201, &v0), HW_OK);
	assert_int_equal(hw_rdmsr(0xC0010203, &v1), HW_OK);
	assert_int_equal(v0, 10);
	assert_int_equal(v1, 0);
	/* On an odd counter there is no pair to merge with. */
	assert_int_equal(hw_wrmsr(0xC0010200, 0), HW_OK);
	assert_int_equal(hw_wrmsr(0xC0010202, 0x430F03), HW_OK);
	assert_int_equal(hw_wrmsr(0xC0010204, 0xF004000FFull), HW_OK);
	fake_pmu_run(10);
	assert_int_equal(hw_rdmsr(0xC0010203, &v1), HW_OK);
	assert_int_equal(v1, 0);
}


/* ---- the oracle: what each event counts is the vendors' description, not the audit's belief ---- */

#define UNITS 1000u
#define SEL_COUNT ((1u << 16) | (1u << 17) | (1u << 22))	/* USR, OS, EN (SDM Vol. 3B Figure 20-6) */
#define FIXED_OS_USR_ALL 0x333u					/* fixed counters 0-2 counting at rings 0 and 3 */

/* An architectural PMU (version 4, four general and three fixed counters) of event set `key` with the
 * machine around it and the clocks given; the rate is one event per unit, so the core clock is UNITS. */
static struct pmu_model *clocked(const char *key, uint64_t tsc_hz, uint64_t crystal_hz, uint64_t bus_hz)
{
	struct pmu_model_cfg cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.kind = PMU_INTEL_ARCH;
	cfg.version = 4;
	cfg.n_gp = 2;
	cfg.gp_width = cfg.fixed_width = 48;
	cfg.fixed_mask = 0x7;
	cfg.arch_len = 7;
	cfg.any_thread = true;
	cfg.events = events_set_find(key);
	assert_non_null(cfg.events);
	cfg.aperf_mperf = true;
	cfg.core_per_tsc_milli = 1000;
	cfg.tsc_hz = tsc_hz;
	cfg.crystal_hz = crystal_hz;
	cfg.bus_hz = bus_hz;
	return fake_pmu_install_cfg(&cfg);
}

/* pmc0 and pmc1 count the two encodings, the fixed counters theirs; then UNITS of work. */
static void count_two(uint16_t ev0, uint8_t um0, uint16_t ev1, uint8_t um1)
{
	assert_int_equal(hw_wrmsr(0x186, ev0 | (uint32_t)um0 << 8 | SEL_COUNT), HW_OK);
	assert_int_equal(hw_wrmsr(0x187, ev1 | (uint32_t)um1 << 8 | SEL_COUNT), HW_OK);
	assert_int_equal(hw_wrmsr(0x38D, FIXED_OS_USR_ALL), HW_OK);
	assert_int_equal(hw_wrmsr(0x38F, 0x3 | 0x7ull << 32), HW_OK);
	fake_pmu_run(UNITS);
}

static uint64_t rd(uint32_t msr)
{
	uint64_t v = 0;
	assert_int_equal(hw_rdmsr(msr, &v), HW_OK);
	return v;
}

static void reference_event_counts_its_own_clock(void **state)
{
	(void)state;
	/* Skylake: 3CH/01H is REF_XCLK, the 24 MHz crystal against a 2208 MHz TSC (about 92 times slower);
	 * fixed counter 2 is REF_TSC; 3CH/00H the core clock. */
	clocked("skylake", 2208000000ull, 24000000ull, 100000000ull);
	count_two(0x3C, 0x01, 0x3C, 0x00);
	assert_int_equal(rd(0xC1), UNITS * 24 / 2208);
	assert_int_equal(rd(0xC2), UNITS);
	assert_int_equal(rd(0x30B), UNITS);
	assert_int_equal(rd(0x30A), UNITS);
	/* Sandy Bridge: REF_XCLK at 100 MHz, whatever the crystal. */
	clocked("sandybridge", 3400000000ull, 24000000ull, 100000000ull);
	count_two(0x3C, 0x01, 0xC0, 0x00);
	assert_int_equal(rd(0xC1), UNITS * 100 / 3400);
	assert_int_equal(rd(0xC2), UNITS);	/* instructions: the workload's one a unit */
	/* Nehalem: REF_P at 133 MHz. */
	clocked("nehalem", 3200000000ull, 100000000ull, 100000000ull);
	count_two(0x3C, 0x01, 0x3C, 0x00);
	assert_int_equal(rd(0xC1), UNITS * 133333333ull / 3200000000ull);
	/* Core 2: bus cycles. */
	clocked("core", 2000000000ull, 100000000ull, 200000000ull);
	count_two(0x3C, 0x01, 0x3C, 0x00);
	assert_int_equal(rd(0xC1), UNITS / 10);
	/* Golden Cove: 3CH/01H is REF_TSC_P, the TSC's rate. */
	clocked("goldencove", 2208000000ull, 24000000ull, 100000000ull);
	count_two(0x3C, 0x01, 0x3C, 0x00);
	assert_int_equal(rd(0xC1), UNITS);
}

static void any_thread_scope_is_the_vendors(void **state)
{
	(void)state;
	/* CPU_CLK_UNHALTED.THREAD_P_ANY: with the sibling parked it counts what THREAD_P counts. */
	clocked("skylake", 2208000000ull, 24000000ull, 100000000ull);
	assert_int_equal(hw_wrmsr(0x186, 0x3C | (1u << 21) | SEL_COUNT), HW_OK);
	assert_int_equal(hw_wrmsr(0x38F, 0x1), HW_OK);
	fake_pmu_run(UNITS);
	assert_int_equal(rd(0xC1), UNITS);
	const struct pmu_oracle_row *r = pmu_oracle_find("skylake", -1, 0x3C, 0x00, 0, true);
	assert_non_null(r);
	assert_int_equal(r->counts, PO_CORE_CLOCKS);
	assert_int_equal(r->scope, PO_SCOPE_CORE);
}

static void oracle_classifies_by_description(void **state)
{
	(void)state;
	static const struct {
		const char *set;
		int fixed;
		uint16_t event;
		uint8_t umask;
		enum pmu_oracle_counts counts;
	} want[] = {
		{ "skylake", -1, 0x3C, 0x01, PO_REF_CRYSTAL }, { "icelake", -1, 0x3C, 0x01, PO_REF_CRYSTAL },
		{ "haswell", -1, 0x3C, 0x01, PO_REF_100MHZ }, { "westmere", -1, 0x3C, 0x01, PO_REF_133MHZ },
		{ "bonnell", -1, 0x3C, 0x01, PO_BUS_CLOCKS }, { "core", -1, 0x3C, 0x01, PO_BUS_CLOCKS },
		{ "goldencove", -1, 0x3C, 0x01, PO_REF_TSC }, { "tremont", -1, 0x3C, 0x01, PO_REF_TSC },
		{ "skylake", 2, 0x00, 0x03, PO_REF_TSC }, { "lioncove", 3, 0x00, 0x04, PO_SLOTS },
		{ "skymont", 4, 0x00, 0x05, PO_TD_BAD_SPEC }, { "skymont", 6, 0x00, 0x07, PO_TD_RETIRING },
		{ "nehalem", -1, 0xC0, 0x00, PO_INSTRUCTIONS }, { "zen3", -1, 0xCB, 0x04, PO_SSE },
		{ "zen1", -1, 0x76, 0x00, PO_CORE_CLOCKS }, { "fam15h", -1, 0x2B, 0x00, PO_SMI },
		{ "icelake", -1, 0xC4, 0x11, PO_COND_BRANCHES }, { "pentium_m", -1, 0x79, 0x00, PO_CORE_CLOCKS },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct pmu_oracle_row *r = pmu_oracle_find(want[i].set, want[i].fixed, want[i].event, want[i].umask,
								 0, false);
		if (!r || r->counts != want[i].counts)
			fail_msg("%s %02X/%02X: counts %d, want %d", want[i].set, want[i].event, want[i].umask,
				 r ? r->counts : -1, want[i].counts);
	}
	/* A reference clock whose description states no rate is not guessed at. */
	assert_null(pmu_oracle_find("goldmont", -1, 0x3C, 0x01, 0, false));
	assert_false(pmu_oracle_has_set("intel_arch"));
}

static void frozen_clock_stops_every_core_clock(void **state)
{
	(void)state;
	struct pmu_model *m = clocked("skylake", 2208000000ull, 24000000ull, 100000000ull);
	m->faults.frozen_clock = true;
	uint64_t tsc = m->tsc;
	count_two(0x3C, 0x00, 0xC0, 0x00);
	assert_int_equal(rd(0xC1), 0);		/* the cycles event */
	assert_int_equal(rd(0x30A), 0);		/* fixed counter 1 */
	assert_int_equal(rd(0xE8), 0);		/* IA32_APERF */
	assert_int_equal(rd(0xC2), UNITS);	/* instructions count on */
	assert_int_equal(rd(0x309), UNITS);
	assert_true(m->tsc > tsc);		/* the TSC runs */
	assert_true(rd(0xE7) > 0);		/* and MPERF with it */
}

static unsigned nmis;
static void count_nmi(void *ctx)
{
	(void)ctx;
	nmis++;
}

static void stray_nmi_has_no_overflow_behind_it(void **state)
{
	(void)state;
	struct pmu_model *m = clocked("skylake", 2208000000ull, 24000000ull, 100000000ull);
	m->faults.stray_nmi = true;
	m->pmi = count_nmi;
	nmis = 0;
	count_two(0xC0, 0x00, 0x3C, 0x00);
	assert_int_equal(nmis, 1);
	assert_int_equal(m->pmis, 0);		/* no overflow interrupt */
	assert_int_equal(rd(0x38E), 0);		/* and no status bit says why */
}

static void therm_status_follows_cpuid1_acpi(void **state)
{
	(void)state;
	/* Pentium M (Dothan): maximum leaf 2, no leaf 06H, CPUID.01H:EDX[22] set: IA32_THERM_STATUS exists
	 * (SDM Vol. 4 Table 2-2). */
	const struct fake_cpu *fc = fake_cpu_find("p6");
	assert_non_null(fc);
	struct cpu_info ci = fake_cpu_identified(fc);
	ci.vendor = VENDOR_INTEL;
	ci.max_leaf = 2;
	struct pmu_model_cfg cfg;
	pmu_model_cfg_from_caps(&cfg, &ci, &fc->caps);
	fake_cpuid_set(1, 0, 0x6D8, 0, 0, 1u << 22);
	pmu_model_cfg_machine(&cfg, &ci, &fc->caps);
	assert_true(cfg.therm);
	fake_cpuid_set(1, 0, 0x6D8, 0, 0, 0);
	pmu_model_cfg_machine(&cfg, &ci, &fc->caps);
	assert_false(cfg.therm);
}

/* faults=WORD:N: N is digits within the fault's range, and a wrong one is named (audit shows why). */
static void fault_numbers_are_checked(void **state)
{
	static const struct {
		const char *word, *why;
	} refused[] = {
		{ "smi:1001", "fault 'smi:1001': 1001 is out of range (a number of SMIs, 0-1000)" },
		{ "smi:9999", "fault 'smi:9999': 9999 is out of range (a number of SMIs, 0-1000)" },
		{ "smi:1x", "fault 'smi:1x': '1x' is not a number (a number of SMIs, 0-1000)" },
		{ "freq-drift:-1", "fault 'freq-drift:-1': '-1' is not a number (a percentage, 0-90)" },
		{ "smi:10000", "fault 'smi:10000' wants smi:N (N a number of SMIs, 0-1000)" },
		{ "smi:", "fault 'smi:' wants smi:N (N a number of SMIs, 0-1000)" },
		{ "throttle:1", "fault 'throttle' takes no number" },
	};
	struct pmu_model_faults f;
	char why[160];
	(void)state;
	memset(&f, 0, sizeof(f));
	assert_true(pmu_model_fault_parse("smi:1000", &f, why, sizeof(why)));
	assert_true(pmu_model_fault_parse("freq-drift:0", &f, why, sizeof(why)));
	assert_int_equal(f.smi, 1000);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_false(pmu_model_fault_parse(refused[i].word, &f, why, sizeof(why)));
		assert_string_equal(why, refused[i].why);
	}
	assert_int_equal(f.smi, 1000);	/* no refused word applied */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(absent_msrs_fault),
		cmocka_unit_test(reserved_bits_fault),
		cmocka_unit_test(legacy_counter_writes_sign_extend),
		cmocka_unit_test(reset_values),
		cmocka_unit_test(counting_is_gated),
		cmocka_unit_test(wrap_sets_overflow),
		cmocka_unit_test(constraints_enforced),
		cmocka_unit_test(fam15h_groups_enforced),
		cmocka_unit_test(amd_pairs_need_the_merge_event),
		cmocka_unit_test(reference_event_counts_its_own_clock),
		cmocka_unit_test(any_thread_scope_is_the_vendors),
		cmocka_unit_test(oracle_classifies_by_description),
		cmocka_unit_test(frozen_clock_stops_every_core_clock),
		cmocka_unit_test(stray_nmi_has_no_overflow_behind_it),
		cmocka_unit_test(therm_status_follows_cpuid1_acpi),
		cmocka_unit_test(fault_numbers_are_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
