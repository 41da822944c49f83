/*
 * tests/unit/test_ibs_fake.h - a model of the IBS hardware on top of the
 * fake MSR layer, shared by the IBS unit tests (header-only).
 *
 * Every IBS MSR is declared (all bits writable unless a test narrows it);
 * IBS_CTL holds the LVT offset the "firmware" assigned.  A test plays the
 * hardware: ibs_hw_op_sample / ibs_hw_fetch_sample put a sample in the data
 * registers and set the valid bit, as the CPU does when a tagged op retires
 * or a tagged fetch completes, but only while the sampler is enabled.  In
 * NMI mode the test then calls fake_nmi_fire(), as the APIC would.
 */
#ifndef PMUBOOT_TESTS_UNIT_TEST_IBS_FAKE_H
#define PMUBOOT_TESTS_UNIT_TEST_IBS_FAKE_H

#include "tests/fake/hw_fake.h"
#include "pmu/ibs/ibs.h"
#include "pmu/ibs/ibs_regs.h"

static const uint32_t ibs_fake_msrs[] = {
	IBS_MSR_FETCH_CTL, IBS_MSR_FETCH_LINAD, IBS_MSR_FETCH_PHYSAD, IBS_MSR_OP_CTL, IBS_MSR_OP_RIP,
	IBS_MSR_OP_DATA, IBS_MSR_OP_DATA2, IBS_MSR_OP_DATA3, IBS_MSR_DC_LINAD, IBS_MSR_DC_PHYSAD,
	IBS_MSR_BR_TARGET, IBS_MSR_FETCH_CTL_EXTD, IBS_MSR_OP_DATA4,
};

/* Add the IBS MSRs to the fake CPU as it is; lvt_offset < 0 leaves IBS_CTL without a valid offset. */
static inline void ibs_fake_add_msrs(int lvt_offset, bool allow_route)
{
	for (size_t i = 0; i < sizeof(ibs_fake_msrs) / sizeof(ibs_fake_msrs[0]); i++)
		fake_msr_define(ibs_fake_msrs[i], 0, ~0ull);
	fake_msr_define(IBS_MSR_CTL, lvt_offset < 0 ? 0 : (IBS_CTL_LVT_OFFSET_VALID | (uint64_t)lvt_offset), 0);
	fake_nmi_allow_route(allow_route);
	fake_tsc_set(1000, 7);
}

/* A CPU with IBS and nothing else. */
static inline void ibs_fake_cpu(int lvt_offset, bool allow_route)
{
	fake_reset();
	ibs_fake_add_msrs(lvt_offset, allow_route);
}

/* The retirement of a tagged op: data registers, then IbsOpVal.  False when op sampling is off. */
static inline bool ibs_hw_op_sample(uint64_t rip, uint64_t d1, uint64_t d2, uint64_t d3)
{
	uint64_t ctl = fake_msr_get(IBS_MSR_OP_CTL);
	if (!(ctl & IBS_OP_EN))
		return false;
	fake_msr_set(IBS_MSR_OP_RIP, rip);
	fake_msr_set(IBS_MSR_OP_DATA, d1);
	fake_msr_set(IBS_MSR_OP_DATA2, d2);
	fake_msr_set(IBS_MSR_OP_DATA3, d3);
	fake_msr_set(IBS_MSR_DC_LINAD, rip + 0x1000);
	fake_msr_set(IBS_MSR_DC_PHYSAD, rip + 0x2000);
	fake_msr_set(IBS_MSR_BR_TARGET, rip + 0x10);
	fake_msr_set(IBS_MSR_OP_DATA4, 1);
	fake_msr_set(IBS_MSR_OP_CTL, ctl | IBS_OP_VAL);
	return true;
}

/* A tagged fetch that completed or aborted. */
static inline bool ibs_hw_fetch_sample(uint64_t linad, uint64_t flags)
{
	uint64_t ctl = fake_msr_get(IBS_MSR_FETCH_CTL);
	if (!(ctl & IBS_FETCH_EN))
		return false;
	fake_msr_set(IBS_MSR_FETCH_LINAD, linad);
	fake_msr_set(IBS_MSR_FETCH_PHYSAD, linad | 0x100000000ull);
	fake_msr_set(IBS_MSR_FETCH_CTL_EXTD, 9);
	fake_msr_set(IBS_MSR_FETCH_CTL, ctl | flags | IBS_FETCH_VAL);
	return true;
}

/* Writes to msr in the fake's log from index from on. */
static inline size_t ibs_fake_writes_to(uint32_t msr, size_t from, uint64_t *vals, size_t cap)
{
	size_t n = 0;
	for (size_t i = from; i < fake_log_count(); i++) {
		const struct fake_write *w = fake_log_at(i);
		if (w->msr != msr)
			continue;
		if (n < cap)
			vals[n] = w->value;
		n++;
	}
	return n;
}

#endif
