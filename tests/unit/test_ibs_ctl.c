/*
 * IBS collection against the fake MSR layer: arming, NMI collection and
 * re-arming, the polled fallback, family sequences (errata 420, 718, 719),
 * periods and randomisation, buffer overflow, late and spurious NMIs, and
 * faulting MSRs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>

#include "tests/unit/test_ibs_fake.h"

#define ZEN_CAPS (IBS_CAP_FFV | IBS_CAP_FETCHSAM | IBS_CAP_OPSAM | IBS_CAP_RDWROPCNT | IBS_CAP_OPCNT | \
		  IBS_CAP_OPCNTEXT | IBS_CAP_BRNTRGT | IBS_CAP_RIPINVALIDCHK)

static struct ibs_ctl_info info;
static char why[256];

static bool init(uint32_t family, uint32_t model, uint32_t caps, bool fetch, bool op, uint64_t period)
{
	struct ibs_ctl_params p = { { family, model, caps }, fetch, op, period, 12345 };
	why[0] = '\0';
	return ibs_ctl_init(&p, &info, why, sizeof(why));
}

static uint64_t op_field(uint64_t ctl)
{
	return (ctl & IBS_OP_MAXCNT_MASK) | (((ctl & IBS_OP_MAXCNT_EXT_MASK) >> IBS_OP_MAXCNT_EXT_SHIFT) << 16);
}

static uint64_t op_curcnt(uint64_t ctl)
{
	return (ctl >> IBS_OP_CURCNT_SHIFT) & ((1ull << IBS_OP_CURCNT_BITS) - 1);
}

static int teardown(void **state)
{
	(void)state;
	ibs_ctl_shutdown();
	return 0;
}

static void nmi_mode_collects_and_rearms(void **state)
{
	(void)state;
	ibs_fake_cpu(1, true);
	assert_true(init(0x17, 0x31, ZEN_CAPS, true, true, 0x10000));
	assert_true(info.nmi_possible);
	assert_int_equal(info.lvt_offset, 1);
	assert_true(info.op_counts_ops);

	ibs_ctl_variant_begin();
	assert_int_equal(ibs_ctl_stats()->delivery, IBS_DELIVERY_NMI);
	ibs_ctl_arm();
	uint64_t op = fake_msr_get(IBS_MSR_OP_CTL), fetch = fake_msr_get(IBS_MSR_FETCH_CTL);
	assert_int_equal(op_field(op), 0x1000);
	assert_true(op & IBS_OP_EN);
	assert_true(op & IBS_OP_CNT_CTL);
	assert_false(op & IBS_OP_VAL);
	assert_true(op_curcnt(op) <= 0xF);
	assert_int_equal(fetch & IBS_FETCH_MAXCNT_MASK, 0x1000);
	assert_true(fetch & IBS_FETCH_EN);
	assert_true(fetch & IBS_FETCH_RAND_EN);

	/* The CPU retires a tagged op and raises the NMI. */
	assert_true(ibs_hw_op_sample(0x1111, IBS_OPD_BRN_RET, 3, IBS_OPD3_LD_OP));
	assert_true(fake_nmi_fire());
	assert_int_equal(ibs_ctl_sample_count(), 1);
	const struct ibs_sample *s = ibs_ctl_sample_at(0);
	assert_int_equal(s->kind, IBS_KIND_OP);
	assert_int_equal(s->v[IBS_O_RIP], 0x1111);
	assert_int_equal(s->v[IBS_O_DATA3], IBS_OPD3_LD_OP);
	assert_int_equal(s->v[IBS_O_BR_TARGET], 0x1121);	/* BrnTrgt in caps */
	assert_false(s->have & (1u << IBS_O_DATA4));		/* OpData4 not in caps */
	assert_true(s->v[IBS_O_CTL] & IBS_OP_VAL);
	/* Re-armed at once: enabled, valid bit clear. */
	op = fake_msr_get(IBS_MSR_OP_CTL);
	assert_true(op & IBS_OP_EN);
	assert_false(op & IBS_OP_VAL);

	/* Both samplers done before one NMI: both collected by it. */
	assert_true(ibs_hw_op_sample(0x2222, 0, 0, 0));
	assert_true(ibs_hw_fetch_sample(0x3333, IBS_FETCH_COMP));
	assert_true(fake_nmi_fire());
	assert_int_equal(ibs_ctl_sample_count(), 3);
	assert_int_equal(ibs_ctl_sample_at(2)->kind, IBS_KIND_FETCH);
	assert_int_equal(ibs_ctl_sample_at(2)->v[IBS_F_LINAD], 0x3333);
	assert_false(ibs_ctl_sample_at(2)->have & (1u << IBS_F_CTL_EXTD));	/* FetchCtlExtd not in caps */
	assert_int_equal(ibs_ctl_stats()->nmis, 2);

	ibs_ctl_disarm();
	assert_false(fake_msr_get(IBS_MSR_OP_CTL) & IBS_OP_EN);
	assert_false(fake_msr_get(IBS_MSR_FETCH_CTL) & IBS_FETCH_EN);
	ibs_ctl_variant_end();
	assert_false(fake_nmi_fire());	/* unrouted */
	assert_int_equal(ibs_ctl_stats()->slices, 1);
	assert_int_equal(ibs_ctl_stats()->msr_faults, 0);
}

static void polled_when_route_refused(void **state)
{
	(void)state;
	ibs_fake_cpu(2, false);
	assert_true(init(0x19, 0x61, ZEN_CAPS | IBS_CAP_OPDATA4 | IBS_CAP_FETCHCTLEXTD, true, true, 0x4000));
	ibs_ctl_variant_begin();
	assert_int_equal(ibs_ctl_stats()->delivery, IBS_DELIVERY_POLLED);
	assert_non_null(strstr(ibs_ctl_stats()->delivery_note, "refused"));
	assert_non_null(strstr(ibs_ctl_stats()->delivery_note, "fake: routing refused"));
	for (int slice = 0; slice < 3; slice++) {
		ibs_ctl_arm();
		/* The hardware holds one sample per sampler until it is read: polled mode reads it at disarm. */
		assert_true(ibs_hw_op_sample(0x100 + slice, 0, 0, 0));
		assert_true(ibs_hw_fetch_sample(0x200 + slice, IBS_FETCH_COMP));
		assert_false(fake_nmi_fire());
		ibs_ctl_disarm();
	}
	ibs_ctl_variant_end();
	assert_int_equal(ibs_ctl_sample_count(), 6);
	assert_int_equal(ibs_ctl_sample_at(0)->v[IBS_O_RIP], 0x100);
	assert_true(ibs_ctl_sample_at(0)->have & (1u << IBS_O_DATA4));
	assert_true(ibs_ctl_sample_at(1)->have & (1u << IBS_F_CTL_EXTD));
	assert_int_equal(ibs_ctl_sample_at(5)->v[IBS_F_LINAD], 0x202);
	/* A slice without a sample adds nothing. */
	ibs_ctl_variant_begin();
	ibs_ctl_arm();
	ibs_ctl_disarm();
	ibs_ctl_variant_end();
	assert_int_equal(ibs_ctl_sample_count(), 0);
}

static void polled_reasons(void **state)
{
	(void)state;
	ibs_fake_cpu(-1, true);
	assert_true(init(0x17, 1, ZEN_CAPS, false, true, 0x4000));
	assert_false(info.nmi_possible);
	assert_non_null(strstr(info.polled_reason, "LvtOffsetVal"));
	ibs_ctl_variant_begin();
	assert_int_equal(ibs_ctl_stats()->delivery, IBS_DELIVERY_POLLED);
	assert_string_equal(ibs_ctl_stats()->delivery_note, info.polled_reason);
	ibs_ctl_variant_end();

	/* Family 10h: the offset is assigned through a northbridge PCI register. */
	ibs_fake_cpu(-1, true);
	assert_true(init(0x10, 4, IBS_CAP_DEFAULT, true, true, 0x4000));
	assert_false(info.nmi_possible);
	assert_non_null(strstr(info.polled_reason, "F3x1CC"));
	/* ... unless the firmware did assign it. */
	ibs_fake_cpu(3, true);
	assert_true(init(0x10, 4, IBS_CAP_DEFAULT, true, true, 0x4000));
	assert_true(info.nmi_possible);
	assert_int_equal(info.lvt_offset, 3);
	/* No IBS_CTL at all. */
	ibs_fake_cpu(1, true);
	fake_reset();
	for (size_t i = 0; i < sizeof(ibs_fake_msrs) / sizeof(ibs_fake_msrs[0]); i++)
		fake_msr_define(ibs_fake_msrs[i], 0, ~0ull);
	assert_true(init(0x17, 1, ZEN_CAPS, true, true, 0x4000));
	assert_non_null(strstr(info.polled_reason, "not readable"));
}

static void family10h_disables_with_counts_cleared_first(void **state)
{
	(void)state;
	uint64_t w[8];

	ibs_fake_cpu(-1, false);
	assert_true(init(0x10, 2, IBS_CAP_DEFAULT, true, true, 0x8000));
	assert_false(info.op_counts_ops);	/* no OpCnt capability: the period is in cycles */
	ibs_ctl_variant_begin();
	ibs_ctl_arm();
	size_t mark = fake_log_count();
	ibs_ctl_disarm();
	/* Erratum 420: MaxCnt cleared with En still set, then En cleared. */
	assert_int_equal(ibs_fake_writes_to(IBS_MSR_OP_CTL, mark, w, 8), 2);
	assert_true(w[0] & IBS_OP_EN);
	assert_int_equal(w[0] & IBS_OP_MAXCNT_MASK, 0);
	assert_false(w[1] & IBS_OP_EN);
	/* ...and the counts stay cleared: the end state holds no MaxCnt/CurCnt. */
	assert_int_equal(w[1] & (IBS_OP_MAXCNT_MASK | IBS_OP_MAXCNT_EXT_MASK | (((1ull << IBS_OP_CURCNT_BITS_FAM10) - 1) << IBS_OP_CURCNT_SHIFT)), 0);
	assert_int_equal(fake_msr_get(IBS_MSR_OP_CTL) & (IBS_OP_MAXCNT_MASK | (((1ull << IBS_OP_CURCNT_BITS_FAM10) - 1) << IBS_OP_CURCNT_SHIFT)), 0);
	assert_int_equal(ibs_fake_writes_to(IBS_MSR_FETCH_CTL, mark, w, 8), 2);
	assert_true(w[0] & IBS_FETCH_EN);
	assert_int_equal(w[0] & IBS_FETCH_MAXCNT_MASK, 0);
	assert_false(w[1] & IBS_FETCH_EN);
	assert_int_equal(w[1] & (IBS_FETCH_MAXCNT_MASK | IBS_FETCH_CNT_MASK), 0);
	ibs_ctl_variant_end();

	/* Elsewhere one write disables. */
	ibs_fake_cpu(1, false);
	assert_true(init(0x17, 1, ZEN_CAPS, true, true, 0x8000));
	ibs_ctl_variant_begin();
	ibs_ctl_arm();
	mark = fake_log_count();
	ibs_ctl_disarm();
	assert_int_equal(ibs_fake_writes_to(IBS_MSR_OP_CTL, mark, w, 8), 1);
	assert_false(w[0] & IBS_OP_EN);
	assert_int_equal(op_field(w[0]), 0x800);	/* the period stays: only En goes */
	ibs_ctl_variant_end();
}

/* CPUID 8000_001BH Dis (bit 13): a sampler runs only with CTL2[Dis] clear. */
static void dis_capability_uses_ctl2(void **state)
{
	(void)state;
	uint64_t w[8];

	ibs_fake_cpu(1, true);
	fake_msr_define(IBS_MSR_OP_CTL2, IBS_CTL2_DIS, ~0ull);		/* as a fresh CPU has it */
	fake_msr_define(IBS_MSR_FETCH_CTL2, IBS_CTL2_DIS, ~0ull);
	assert_true(init(0x1A, 0x60, ZEN_CAPS | IBS_CAP_DIS, true, true, 0x10000));
	assert_non_null(strstr(info.note, "IbsOpCtl2 had Dis set"));
	ibs_ctl_variant_begin();
	size_t mark = fake_log_count();
	ibs_ctl_arm();
	/* En set first, then Dis cleared: the sampler runs. */
	assert_true(fake_msr_get(IBS_MSR_OP_CTL) & IBS_OP_EN);
	assert_int_equal(fake_msr_get(IBS_MSR_OP_CTL2), 0);
	assert_int_equal(fake_msr_get(IBS_MSR_FETCH_CTL2), 0);
	assert_int_equal(ibs_fake_writes_to(IBS_MSR_OP_CTL2, mark, w, 8), 1);
	/* An NMI's re-arm keeps it running. */
	assert_true(ibs_hw_op_sample(0x2222, 0, 0, 0));
	assert_true(fake_nmi_fire());
	assert_int_equal(fake_msr_get(IBS_MSR_OP_CTL2), 0);
	mark = fake_log_count();
	ibs_ctl_disarm();
	/* Stopped through Dis before IbsOpCtl is touched. */
	assert_int_equal(fake_msr_get(IBS_MSR_OP_CTL2), IBS_CTL2_DIS);
	assert_int_equal(fake_msr_get(IBS_MSR_FETCH_CTL2), IBS_CTL2_DIS);
	assert_true(fake_log_count() > mark);
	assert_int_equal(fake_log_at(mark)->msr, IBS_MSR_OP_CTL2);
	ibs_ctl_variant_end();
	assert_int_equal(ibs_ctl_sample_count(), 1);
	/* Without the capability CTL2 is never written (it may not exist). */
	ibs_fake_cpu(1, true);
	mark = fake_log_count();
	assert_true(init(0x17, 0x31, ZEN_CAPS, true, true, 0x10000));
	ibs_ctl_variant_begin();
	ibs_ctl_arm();
	ibs_ctl_disarm();
	ibs_ctl_variant_end();
	assert_int_equal(ibs_fake_writes_to(IBS_MSR_OP_CTL2, mark, w, 8), 0);
}

static void erratum718_zeroes_opdata3_before_each_arm(void **state)
{
	(void)state;
	ibs_fake_cpu(1, true);
	assert_true(init(0x15, 0x13, IBS_CAP_DEFAULT | IBS_CAP_RDWROPCNT, false, true, 0x4000));
	ibs_ctl_variant_begin();
	size_t mark = fake_log_count();
	ibs_ctl_arm();
	assert_true(fake_log_count() >= mark + 2);
	assert_int_equal(fake_log_at(mark)->msr, IBS_MSR_OP_DATA3);
	assert_int_equal(fake_log_at(mark)->value, 0);
	assert_int_equal(fake_log_at(mark + 1)->msr, IBS_MSR_OP_CTL);
	/* And at the re-arm in the NMI handler, after the sample was read. */
	assert_true(ibs_hw_op_sample(0x10, 0, 0, IBS_OPD3_L2TLB_MISS | IBS_OPD3_LD_OP));
	mark = fake_log_count();
	assert_true(fake_nmi_fire());
	assert_int_equal(ibs_ctl_sample_at(0)->v[IBS_O_DATA3], IBS_OPD3_L2TLB_MISS | IBS_OPD3_LD_OP);
	assert_int_equal(fake_log_at(mark)->msr, IBS_MSR_OP_DATA3);
	assert_int_equal(fake_msr_get(IBS_MSR_OP_DATA3), 0);
	ibs_ctl_variant_end();

	/* Zen does not need it. */
	ibs_fake_cpu(1, true);
	assert_true(init(0x17, 1, ZEN_CAPS, false, true, 0x4000));
	ibs_ctl_variant_begin();
	mark = fake_log_count();
	ibs_ctl_arm();
	assert_int_equal(ibs_fake_writes_to(IBS_MSR_OP_DATA3, mark, NULL, 0), 0);
	ibs_ctl_variant_end();
}

static void buffer_overflow_is_counted_and_bounded(void **state)
{
	(void)state;
	const unsigned extra = 44;

	ibs_fake_cpu(1, true);
	assert_true(init(0x17, 1, ZEN_CAPS, false, true, 0x4000));
	ibs_ctl_variant_begin();
	ibs_ctl_arm();
	for (unsigned i = 0; i < IBS_BUF_SAMPLES + extra; i++) {
		assert_true(ibs_hw_op_sample(i + 1, 0, 0, IBS_OPD3_ST_OP));
		assert_true(fake_nmi_fire());
		/* Re-armed every time, full buffer or not. */
		assert_true(fake_msr_get(IBS_MSR_OP_CTL) & IBS_OP_EN);
		assert_false(fake_msr_get(IBS_MSR_OP_CTL) & IBS_OP_VAL);
	}
	ibs_ctl_disarm();
	ibs_ctl_variant_end();
	assert_int_equal(ibs_ctl_sample_count(), IBS_BUF_SAMPLES);
	assert_int_equal(ibs_ctl_stats()->overflow, extra);
	assert_int_equal(ibs_ctl_stats()->nmis, IBS_BUF_SAMPLES + extra);
	assert_null(ibs_ctl_sample_at(IBS_BUF_SAMPLES));
	/* Every kept sample is intact and in order: the first ones, not overwritten by later ones. */
	for (unsigned i = 0; i < IBS_BUF_SAMPLES; i++) {
		assert_int_equal(ibs_ctl_sample_at(i)->v[IBS_O_RIP], i + 1);
		assert_int_equal(ibs_ctl_sample_at(i)->v[IBS_O_DC_LINAD], i + 1 + 0x1000);
	}
	/* The next variant starts empty. */
	ibs_ctl_variant_begin();
	assert_int_equal(ibs_ctl_sample_count(), 0);
	assert_int_equal(ibs_ctl_stats()->overflow, 0);
	ibs_ctl_variant_end();
}

static void late_nmi_after_disarm_is_absorbed(void **state)
{
	(void)state;
	ibs_fake_cpu(1, true);
	assert_true(init(0x17, 1, ZEN_CAPS, true, true, 0x4000));
	ibs_ctl_variant_begin();
	ibs_ctl_arm();
	ibs_ctl_disarm();
	/* An NMI still in flight (and even a valid bit left behind) after disabling. */
	fake_msr_set(IBS_MSR_OP_CTL, fake_msr_get(IBS_MSR_OP_CTL) | IBS_OP_VAL);
	size_t writes = fake_log_count();
	assert_true(fake_nmi_fire());
	assert_int_equal(ibs_ctl_stats()->late_nmis, 1);
	assert_int_equal(ibs_ctl_sample_count(), 0);
	assert_int_equal(fake_log_count(), writes);	/* the hardware was not touched */
	assert_false(fake_msr_get(IBS_MSR_OP_CTL) & IBS_OP_EN);
	/* While armed, an NMI without a valid sample is someone else's: counted, nothing read. */
	ibs_ctl_arm();
	assert_true(fake_nmi_fire());
	assert_int_equal(ibs_ctl_stats()->spurious_nmis, 1);
	assert_int_equal(ibs_ctl_sample_count(), 0);
	ibs_ctl_disarm();
	ibs_ctl_variant_end();
	assert_false(fake_nmi_fire());
	/* After shutdown, disarm and arm do nothing. */
	ibs_ctl_shutdown();
	writes = fake_log_count();
	ibs_ctl_arm();
	ibs_ctl_disarm();
	assert_int_equal(fake_log_count(), writes);
}

static void periods_follow_the_capabilities(void **state)
{
	(void)state;
	ibs_fake_cpu(1, false);
	/* 16-bit MaxCnt: clamped, and said so. */
	assert_true(init(0x15, 2, IBS_CAP_DEFAULT | IBS_CAP_OPCNT, true, true, 0x200000));
	assert_int_equal(info.op_period, 0xFFFF0);
	assert_int_equal(info.fetch_period, 0xFFFF0);
	assert_non_null(strstr(info.note, "0x200000"));
	/* OpCntExt: bits 26:20 carry the rest. */
	ibs_fake_cpu(1, false);
	assert_true(init(0x17, 1, ZEN_CAPS, true, true, 0x200000));
	assert_int_equal(info.op_period, 0x200000);
	assert_int_equal(info.fetch_period, 0xFFFF0);
	ibs_ctl_variant_begin();
	ibs_ctl_arm();
	uint64_t op = fake_msr_get(IBS_MSR_OP_CTL);
	assert_int_equal(op & IBS_OP_MAXCNT_MASK, 0);
	assert_int_equal((op & IBS_OP_MAXCNT_EXT_MASK) >> IBS_OP_MAXCNT_EXT_SHIFT, 2);
	ibs_ctl_disarm();
	ibs_ctl_variant_end();
	/* Too small: raised to the minimum. */
	ibs_fake_cpu(1, false);
	assert_true(init(0x17, 1, ZEN_CAPS, true, true, 0x20));
	assert_int_equal(info.op_period, 0x90);
	assert_int_equal(info.fetch_period, 0x20);
	/* Low nibble dropped (units of 16). */
	ibs_fake_cpu(1, false);
	assert_true(init(0x17, 1, ZEN_CAPS, true, true, 0x4007));
	assert_int_equal(info.op_period, 0x4000);
}

static void low_bits_are_randomised_per_arm(void **state)
{
	(void)state;
	bool seen[16] = { false };
	unsigned distinct = 0;

	/* Writable IbsOpCurCnt: random low bits in it at every fresh arm. */
	ibs_fake_cpu(1, false);
	assert_true(init(0x17, 1, ZEN_CAPS, false, true, 0x4000));
	assert_true(info.op_rand_curcnt);
	ibs_ctl_variant_begin();
	for (int i = 0; i < 64; i++) {
		ibs_ctl_arm();
		uint64_t op = fake_msr_get(IBS_MSR_OP_CTL);
		assert_true(op_curcnt(op) <= 0xF);
		assert_int_equal(op_field(op), 0x400);
		if (!seen[op_curcnt(op)])
			distinct++;
		seen[op_curcnt(op)] = true;
		assert_true(ibs_hw_op_sample(1, 0, 0, 0));	/* a sample: the next arm is fresh */
		ibs_ctl_disarm();
	}
	ibs_ctl_variant_end();
	assert_true(distinct >= 6);

	/* Read-only IbsOpCurCnt: MaxCnt jitters within +-2 around the period instead. */
	ibs_fake_cpu(1, false);
	assert_true(init(0x15, 2, IBS_CAP_DEFAULT | IBS_CAP_OPCNT, false, true, 0x4000));
	assert_false(info.op_rand_curcnt);
	ibs_ctl_variant_begin();
	uint64_t lo = ~0ull, hi = 0, sum = 0;
	for (int i = 0; i < 200; i++) {
		ibs_ctl_arm();
		uint64_t op = fake_msr_get(IBS_MSR_OP_CTL);
		uint64_t f = op_field(op);
		assert_int_equal(op_curcnt(op), 0);
		lo = f < lo ? f : lo;
		hi = f > hi ? f : hi;
		sum += f;
		ibs_ctl_disarm();
	}
	ibs_ctl_variant_end();
	assert_true(lo >= 0x400 - 2 && hi <= 0x400 + 2 && hi > lo);
	/* The mean stays near the period (no drift to one side). */
	assert_true(sum / 200 >= 0x400 - 1 && sum / 200 <= 0x400 + 1);
}

static void counts_carry_from_slice_to_slice(void **state)
{
	(void)state;
	uint64_t w[4];

	ibs_fake_cpu(1, false);
	assert_true(init(0x17, 1, ZEN_CAPS, true, true, 0x40000));
	ibs_ctl_variant_begin();
	ibs_ctl_arm();
	/* The counters ran but did not reach the period. */
	fake_msr_set(IBS_MSR_OP_CTL, (fake_msr_get(IBS_MSR_OP_CTL) & 0xFFFFFFFFull) | (0x1234ull << IBS_OP_CURCNT_SHIFT));
	fake_msr_set(IBS_MSR_FETCH_CTL, fake_msr_get(IBS_MSR_FETCH_CTL) | (0x55ull << IBS_FETCH_CNT_SHIFT));
	ibs_ctl_disarm();
	ibs_ctl_arm();
	assert_int_equal(op_curcnt(fake_msr_get(IBS_MSR_OP_CTL)), 0x1234);
	assert_int_equal((fake_msr_get(IBS_MSR_FETCH_CTL) & IBS_FETCH_CNT_MASK) >> IBS_FETCH_CNT_SHIFT, 0x55);
	ibs_ctl_disarm();
	ibs_ctl_variant_end();

	/* Erratum 719 (Family 15h models 10h-1Fh): IbsFetchCnt writes are ignored, so none is attempted. */
	ibs_fake_cpu(1, false);
	assert_true(init(0x15, 0x10, IBS_CAP_DEFAULT, true, false, 0x40000));
	ibs_ctl_variant_begin();
	ibs_ctl_arm();
	fake_msr_set(IBS_MSR_FETCH_CTL, fake_msr_get(IBS_MSR_FETCH_CTL) | (0x55ull << IBS_FETCH_CNT_SHIFT));
	ibs_ctl_disarm();
	size_t mark = fake_log_count();
	ibs_ctl_arm();
	assert_int_equal(ibs_fake_writes_to(IBS_MSR_FETCH_CTL, mark, w, 4), 2);
	assert_int_equal(w[0], 0);	/* zeroed first, so the counter restarts */
	assert_int_equal(w[1] & IBS_FETCH_CNT_MASK, 0);
	ibs_ctl_disarm();
	ibs_ctl_variant_end();
}

static void faulting_msrs_are_counted_not_fatal(void **state)
{
	(void)state;
	ibs_fake_cpu(1, true);
	fake_msr_define(IBS_MSR_OP_CTL, 0, 0);	/* any set bit written raises #GP */
	assert_true(init(0x17, 1, ZEN_CAPS, false, true, 0x4000));
	ibs_ctl_variant_begin();
	ibs_ctl_arm();
	ibs_ctl_disarm();
	ibs_ctl_variant_end();
	assert_true(ibs_ctl_stats()->msr_faults >= 1);
	assert_int_equal(ibs_ctl_stats()->fault_msr, IBS_MSR_OP_CTL);
	assert_int_equal(ibs_ctl_stats()->fault_code, HW_FAULT_GP);
	assert_int_equal(ibs_ctl_sample_count(), 0);
}

static void init_refuses_what_cannot_work(void **state)
{
	(void)state;
	/* The control MSR is absent. */
	fake_reset();
	assert_false(init(0x17, 1, ZEN_CAPS, false, true, 0x4000));
	assert_non_null(strstr(why, "IbsOpCtl"));
	assert_non_null(strstr(why, "#GP"));
	/* A family without IBS. */
	ibs_fake_cpu(1, true);
	assert_false(init(0x11, 3, IBS_CAP_DEFAULT, true, true, 0x4000));
	assert_non_null(strstr(why, "11h"));
	/* Op requested, only fetch sampling offered. */
	ibs_fake_cpu(1, true);
	assert_false(init(0x17, 1, IBS_CAP_FFV | IBS_CAP_FETCHSAM, false, true, 0x4000));
	assert_non_null(strstr(why, "not offered"));
	assert_true(init(0x17, 1, IBS_CAP_FFV | IBS_CAP_FETCHSAM, true, true, 0x4000));
	assert_true(info.fetch);
	assert_false(info.op);
	assert_non_null(strstr(info.note, "Op sampling is not offered"));
	/* Already enabled by firmware: taken over, noted, and switched off at init. */
	ibs_fake_cpu(1, true);
	fake_msr_set(IBS_MSR_OP_CTL, IBS_OP_EN | 0x100);
	assert_true(init(0x17, 1, ZEN_CAPS, false, true, 0x4000));
	assert_non_null(strstr(info.note, "already enabled"));
	assert_false(fake_msr_get(IBS_MSR_OP_CTL) & IBS_OP_EN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(nmi_mode_collects_and_rearms, teardown),
		cmocka_unit_test_teardown(polled_when_route_refused, teardown),
		cmocka_unit_test_teardown(polled_reasons, teardown),
		cmocka_unit_test_teardown(family10h_disables_with_counts_cleared_first, teardown),
		cmocka_unit_test_teardown(erratum718_zeroes_opdata3_before_each_arm, teardown),
		cmocka_unit_test_teardown(dis_capability_uses_ctl2, teardown),
		cmocka_unit_test_teardown(buffer_overflow_is_counted_and_bounded, teardown),
		cmocka_unit_test_teardown(late_nmi_after_disarm_is_absorbed, teardown),
		cmocka_unit_test_teardown(periods_follow_the_capabilities, teardown),
		cmocka_unit_test_teardown(low_bits_are_randomised_per_arm, teardown),
		cmocka_unit_test_teardown(counts_carry_from_slice_to_slice, teardown),
		cmocka_unit_test_teardown(faulting_msrs_are_counted_not_fatal, teardown),
		cmocka_unit_test_teardown(init_refuses_what_cannot_work, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
