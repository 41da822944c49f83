/*
 * pmu/ibs/ibs_ctl.c - programming IBS and collecting its samples; see ibs.h.
 *
 * One sampler per logical CPU, driven on the CPU that runs the benchmarks.
 * Per kernel variant: variant_begin routes the IBS interrupt as an NMI
 * through the APIC extended LVT entry IBS_CTL names (platform/hw.h), or falls
 * back to polling; each slice (one kernel run inside the interrupts-off
 * window) is bracketed by arm and disarm.  In NMI mode the handler copies a
 * valid sample into the buffer and re-arms at once; disarm disables the
 * samplers and collects a sample still held (the only collection in polled
 * mode).  The state word tells the handler whether it may touch the
 * hardware: an NMI arriving after disarm is counted and absorbed.
 *
 * The buffer is a fixed array written only by the handler (while armed) or
 * by disarm (after the state says disarmed), never both at once on one CPU,
 * and never past its end: extra samples are counted as overflow.
 *
 * Sequences: APM Vol. 2 §13.3 and the BKDGs for the registers; Family 10h
 * erratum 420 (disable with the counts cleared first, and leave them cleared),
 * Family 15h erratum 718 (zero IbsOpData3 before each re-arm), as AMD's Linux
 * driver and the AMD Research IBS Toolkit apply them.  Where CPUID 8000_001BH
 * reports Dis (bit 13) a sampler also needs IbsOpCtl2/IbsFetchCtl2[Dis] clear
 * to run: arming clears it after setting En, stopping sets it first (which
 * stops the sampler without racing the hardware's Val bit), and the sampler
 * is left with Dis set, as on a fresh CPU.
 */
#include "pmu/ibs/ibs.h"
#include "pmu/ibs/ibs_regs.h"
#include "platform/hw.h"

enum state { ST_OFF, ST_DISARMED, ST_ARMED };

#define FETCH_FIELD_MIN 1u		/* period 0x10 fetches */
#define FETCH_FIELD_MAX 0xFFFFu		/* IbsFetchMaxCnt is 16 bits */
/* AMD Research IBS Toolkit (ibs_monitor): op periods below 0x90 are not supported. */
#define OP_FIELD_MIN 9u
#define OP_FIELD_MAX 0xFFFFu
#define OP_FIELD_MAX_EXT 0x7FFFFFu	/* with IbsOpMaxCnt[26:20] */
/* Low bits of IbsOpCurCnt randomised at each fresh arm (the Toolkit uses 4). */
#define OP_RAND_MASK 0xFu
/* Without a writable IbsOpCurCnt the MaxCnt field jitters by up to +-2 (32 ops) instead. */
#define OP_JITTER_SPAN 5u

static volatile int state = ST_OFF;
static volatile size_t nsamples;
static struct ibs_sample buf[IBS_BUF_SAMPLES];

static struct {
	bool ready;
	struct ibs_ctl_params params;
	struct ibs_profile prof;
	struct ibs_ctl_info info;
	struct ibs_ctl_stats stats;
	uint32_t fetch_field, op_field, op_field_max;
	uint64_t op_curcnt_mask;
	bool routed;
	bool op_resume, fetch_resume;	/* carry the count into the next slice */
	uint64_t op_saved, fetch_saved;
	uint32_t rng;
} g;

static inline void barrier(void) { __asm__ volatile("" ::: "memory"); }

static uint32_t rnd(void)
{
	uint32_t x = g.rng;	/* xorshift32: cheap, and fine in the NMI handler */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	g.rng = x;
	return x;
}

static void fault(uint32_t msr, int rc)
{
	if (!g.stats.msr_faults) {
		g.stats.fault_msr = msr;
		g.stats.fault_code = rc;
	}
	g.stats.msr_faults++;
}

static bool rd(uint32_t msr, uint64_t *v)
{
	int rc = hw_rdmsr(msr, v);
	if (rc != HW_OK) {
		fault(msr, rc);
		*v = 0;
		return false;
	}
	return true;
}

static void wr(uint32_t msr, uint64_t v)
{
	int rc = hw_wrmsr(msr, v);
	if (rc != HW_OK)
		fault(msr, rc);
}

/* ---- Arming ---------------------------------------------------------------- */

static uint64_t op_ctl_value(bool resume)
{
	uint64_t field = g.op_field, cur = 0;

	if (g.info.op_rand_curcnt) {
		cur = resume ? g.op_saved : (rnd() & OP_RAND_MASK);
	} else {
		uint64_t j = rnd() % OP_JITTER_SPAN;
		if (field + j >= OP_FIELD_MIN + OP_JITTER_SPAN / 2 && field + j - OP_JITTER_SPAN / 2 <= g.op_field_max)
			field = field + j - OP_JITTER_SPAN / 2;
	}
	return (field & IBS_OP_MAXCNT_MASK) | (((field >> 16) << IBS_OP_MAXCNT_EXT_SHIFT) & IBS_OP_MAXCNT_EXT_MASK) |
	       (g.info.op_counts_ops ? IBS_OP_CNT_CTL : 0) | IBS_OP_EN |
	       ((cur & g.op_curcnt_mask) << IBS_OP_CURCNT_SHIFT);
}

static bool has_dis(void) { return (g.params.target.caps & IBS_CAP_DIS) != 0; }

static void op_arm(bool resume)
{
	if (g.prof.errata & IBS_ERR_718)
		wr(IBS_MSR_OP_DATA3, 0);	/* its sticky TLB bits would leak into the next sample */
	wr(IBS_MSR_OP_CTL, op_ctl_value(resume));
	if (has_dis())
		wr(IBS_MSR_OP_CTL2, 0);		/* En alone does not start it */
}

static void fetch_arm(bool resume)
{
	uint64_t ctl = g.fetch_field | IBS_FETCH_RAND_EN | IBS_FETCH_EN;

	if (resume && !(g.prof.errata & IBS_ERR_719))
		ctl |= (g.fetch_saved << IBS_FETCH_CNT_SHIFT) & IBS_FETCH_CNT_MASK;
	/* Zero first: the fetch counter restarts only after IbsFetchVal and En are cleared. */
	wr(IBS_MSR_FETCH_CTL, 0);
	wr(IBS_MSR_FETCH_CTL, ctl);
	if (has_dis())
		wr(IBS_MSR_FETCH_CTL2, 0);
}

/*
 * Disable a sampler; on Family 10h (erratum 420) first with the counts cleared and En still set,
 * then En cleared with the counts still cleared: the erratum is about a MaxCnt/CurCnt left in
 * the register, so the end state holds none.
 */
static void disable(uint32_t msr, uint64_t ctl, uint64_t counts, uint64_t en, uint64_t val)
{
	ctl &= ~val;
	if (g.prof.errata & IBS_ERR_420) {
		ctl &= ~counts;
		wr(msr, ctl);
	}
	wr(msr, ctl & ~en);
}

/* ---- Collection ------------------------------------------------------------ */

static struct ibs_sample *next_slot(void)
{
	if (nsamples >= IBS_BUF_SAMPLES) {
		g.stats.overflow++;
		return NULL;
	}
	return &buf[nsamples];
}

static void collect(enum ibs_kind kind, uint64_t ctl)
{
	struct ibs_sample *s = next_slot();

	if (!s)
		return;
	s->kind = (uint8_t)kind;
	s->have = 1u;
	s->v[0] = ctl;
	for (unsigned i = 1; i < ibs_reg_count(kind); i++) {
		const struct ibs_reg_def *r = ibs_reg_def(kind, i);
		if (r->cap && !(g.params.target.caps & r->cap)) {
			s->v[i] = 0;
			continue;
		}
		if (rd(r->msr, &s->v[i]))
			s->have |= (uint16_t)(1u << i);
	}
	barrier();
	nsamples = nsamples + 1;
}

static void op_stop(void)
{
	uint64_t ctl;

	if (has_dis())
		wr(IBS_MSR_OP_CTL2, IBS_CTL2_DIS);	/* stopped before the status is read */
	if (!rd(IBS_MSR_OP_CTL, &ctl))
		return;
	disable(IBS_MSR_OP_CTL, ctl, IBS_OP_MAXCNT_MASK | IBS_OP_MAXCNT_EXT_MASK |
		(g.op_curcnt_mask << IBS_OP_CURCNT_SHIFT), IBS_OP_EN, IBS_OP_VAL);
	if (ctl & IBS_OP_VAL) {
		collect(IBS_KIND_OP, ctl);
		g.op_resume = false;
	} else {
		g.op_saved = (ctl >> IBS_OP_CURCNT_SHIFT) & g.op_curcnt_mask;
		g.op_resume = g.info.op_rand_curcnt;
	}
}

static void fetch_stop(void)
{
	uint64_t ctl;

	if (has_dis())
		wr(IBS_MSR_FETCH_CTL2, IBS_CTL2_DIS);
	if (!rd(IBS_MSR_FETCH_CTL, &ctl))
		return;
	disable(IBS_MSR_FETCH_CTL, ctl, IBS_FETCH_MAXCNT_MASK | IBS_FETCH_CNT_MASK, IBS_FETCH_EN, IBS_FETCH_VAL);
	if (ctl & IBS_FETCH_VAL) {
		collect(IBS_KIND_FETCH, ctl);
		g.fetch_resume = false;
	} else {
		g.fetch_saved = (ctl & IBS_FETCH_CNT_MASK) >> IBS_FETCH_CNT_SHIFT;
		g.fetch_resume = true;
	}
}

/* Called from the NMI dispatch; never assumes the NMI was ours. */
/* Claims every NMI while routed: IBS keeps its own count of the spurious ones (stats). */
static bool nmi_handler(void *ctx)
{
	uint64_t ctl;
	bool found = false;

	(void)ctx;
	if (state != ST_ARMED) {
		g.stats.late_nmis++;	/* after disarm: absorbed, hardware untouched */
		return true;
	}
	/* Both samplers may have completed by the time one NMI is taken. */
	if (g.info.op && rd(IBS_MSR_OP_CTL, &ctl) && (ctl & IBS_OP_VAL)) {
		collect(IBS_KIND_OP, ctl);
		op_arm(false);
		found = true;
	}
	if (g.info.fetch && rd(IBS_MSR_FETCH_CTL, &ctl) && (ctl & IBS_FETCH_VAL)) {
		collect(IBS_KIND_FETCH, ctl);
		fetch_arm(false);
		found = true;
	}
	if (found)
		g.stats.nmis++;
	else
		g.stats.spurious_nmis++;
	return true;
}

/* ---- Set-up -------------------------------------------------------------------- */

static uint32_t clamp_field(uint64_t period, uint32_t lo, uint32_t hi)
{
	uint64_t f = period >> 4;
	return f < lo ? lo : f > hi ? hi : (uint32_t)f;
}

static void add_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void add_note(const char *fmt, ...)
{
	size_t n = strlen(g.info.note);
	va_list ap;

	if (n + 2 >= sizeof(g.info.note))
		return;
	if (n)
		g.info.note[n++] = ' ';
	va_start(ap, fmt);
	vsnprintf(g.info.note + n, sizeof(g.info.note) - n, fmt, ap);
	va_end(ap);
}

static bool probe(uint32_t msr, const char *name, char *why, size_t why_cap)
{
	uint64_t v;
	int rc = hw_rdmsr(msr, &v);

	if (rc == HW_OK) {
		if ((msr == IBS_MSR_OP_CTL && (v & IBS_OP_EN)) || (msr == IBS_MSR_FETCH_CTL && (v & IBS_FETCH_EN)))
			add_note("%s was already enabled (0x%llx) and is taken over.", name, (unsigned long long)v);
		if ((msr == IBS_MSR_OP_CTL2 || msr == IBS_MSR_FETCH_CTL2) && (v & IBS_CTL2_DIS))
			add_note("%s had Dis set; each arm clears it.", name);
		return true;
	}
	snprintf(why, why_cap, "reading %s (MSR 0x%x) %s", name, (unsigned)msr,
		 rc == HW_FAULT_GP ? "raised #GP" : rc == HW_ENODEV ? "is not possible here (no MSR access)" :
		 "faulted");
	return false;
}

static void decide_delivery(void)
{
	uint64_t ctl;

	if (hw_rdmsr(IBS_MSR_CTL, &ctl) != HW_OK) {
		g.info.polled_reason = "IBS_CTL (MSR C001_103A) is not readable";
	} else if (ctl & IBS_CTL_LVT_OFFSET_VALID) {
		g.info.nmi_possible = true;
		g.info.lvt_offset = (unsigned)(ctl & IBS_CTL_LVT_OFFSET_MASK);
	} else if (g.params.target.family == 0x10) {
		g.info.polled_reason = "Family 10h: the IBS interrupt's APIC LVT offset is assigned by software in "
				       "northbridge register F3x1CC (IBSCTL), which pmu/ cannot program, and the "
				       "firmware left it unset";
	} else {
		g.info.polled_reason = "the firmware assigned no APIC LVT offset to IBS (IBS_CTL LvtOffsetVal clear)";
	}
}

bool ibs_ctl_init(const struct ibs_ctl_params *p, struct ibs_ctl_info *info, char *why, size_t why_cap)
{
	uint32_t caps = p->target.caps;

	ibs_ctl_shutdown();
	memset(&g, 0, sizeof(g));
	nsamples = 0;
	g.params = *p;
	if (!ibs_profile_get(&p->target, &g.prof)) {
		snprintf(why, why_cap, "Family %xh: %s", (unsigned)p->target.family, g.prof.name);
		return false;
	}
	g.info.fetch = p->fetch && (caps & IBS_CAP_FETCHSAM);
	g.info.op = p->op && (caps & IBS_CAP_OPSAM);
	if (p->fetch && !g.info.fetch)
		add_note("Fetch sampling is not offered (CPUID 8000_001Bh EAX[1] clear).");
	if (p->op && !g.info.op)
		add_note("Op sampling is not offered (CPUID 8000_001Bh EAX[2] clear).");
	if (!g.info.fetch && !g.info.op) {
		snprintf(why, why_cap, "the requested IBS sampling is not offered by this CPU (CPUID 8000_001Bh EAX=0x%x)",
			 (unsigned)caps);
		return false;
	}
	if ((g.info.fetch && !probe(IBS_MSR_FETCH_CTL, "IbsFetchCtl", why, why_cap)) ||
	    (g.info.op && !probe(IBS_MSR_OP_CTL, "IbsOpCtl", why, why_cap)))
		return false;
	if ((caps & IBS_CAP_DIS) &&
	    ((g.info.fetch && !probe(IBS_MSR_FETCH_CTL2, "IbsFetchCtl2", why, why_cap)) ||
	     (g.info.op && !probe(IBS_MSR_OP_CTL2, "IbsOpCtl2", why, why_cap))))
		return false;

	if (g.info.fetch) {
		g.fetch_field = clamp_field(p->period, FETCH_FIELD_MIN, FETCH_FIELD_MAX);
		g.info.fetch_period = (uint64_t)g.fetch_field << 4;
		if (g.info.fetch_period != p->period)
			add_note("Fetch period 0x%llx programmed as 0x%llx (units of 16, 16-bit field).",
				 (unsigned long long)p->period, (unsigned long long)g.info.fetch_period);
	}
	if (g.info.op) {
		g.op_field_max = (caps & IBS_CAP_OPCNTEXT) ? OP_FIELD_MAX_EXT : OP_FIELD_MAX;
		g.op_field = clamp_field(p->period, OP_FIELD_MIN, g.op_field_max);
		g.info.op_period = (uint64_t)g.op_field << 4;
		if (g.info.op_period != p->period)
			add_note("Op period 0x%llx programmed as 0x%llx (units of 16, limits of this CPU).",
				 (unsigned long long)p->period, (unsigned long long)g.info.op_period);
		g.info.op_counts_ops = (caps & IBS_CAP_OPCNT) != 0;
		g.info.op_rand_curcnt = (caps & IBS_CAP_RDWROPCNT) != 0;
		g.op_curcnt_mask = (1ull << g.prof.op_curcnt_bits) - 1;
	}
	decide_delivery();
	g.rng = p->seed ? p->seed : 0x1BADB002u;
	g.ready = true;
	state = ST_DISARMED;
	/* Start from a known state: both samplers off (and Dis set, so clearing it is what starts one). */
	if (g.info.fetch)
		wr(IBS_MSR_FETCH_CTL, 0);
	if (g.info.op)
		wr(IBS_MSR_OP_CTL, 0);
	if (caps & IBS_CAP_DIS) {
		if (g.info.fetch)
			wr(IBS_MSR_FETCH_CTL2, IBS_CTL2_DIS);
		if (g.info.op)
			wr(IBS_MSR_OP_CTL2, IBS_CTL2_DIS);
	}
	*info = g.info;
	return true;
}

/* ---- Per variant ----------------------------------------------------------------- */

void ibs_ctl_variant_begin(void)
{
	if (!g.ready)
		return;
	nsamples = 0;
	memset(&g.stats, 0, sizeof(g.stats));
	g.op_resume = g.fetch_resume = false;
	g.stats.delivery = IBS_DELIVERY_POLLED;
	if (!g.info.nmi_possible) {
		snprintf(g.stats.delivery_note, sizeof(g.stats.delivery_note), "%s", g.info.polled_reason);
		return;
	}
	char why[96] = "";
	if (hw_nmi_route_eilvt(g.info.lvt_offset, nmi_handler, NULL, why, sizeof(why))) {
		g.routed = true;
		g.stats.delivery = IBS_DELIVERY_NMI;
	} else {
		snprintf(g.stats.delivery_note, sizeof(g.stats.delivery_note),
			 "NMI routing of APIC extended LVT entry %u refused: %s", g.info.lvt_offset,
			 why[0] ? why : "no reason given");
	}
}

void ibs_ctl_arm(void)
{
	if (!g.ready)
		return;
	g.stats.slices++;
	state = ST_ARMED;
	barrier();
	if (g.info.op)
		op_arm(g.op_resume);
	if (g.info.fetch)
		fetch_arm(g.fetch_resume);
}

void ibs_ctl_disarm(void)
{
	if (!g.ready || state != ST_ARMED)
		return;
	state = ST_DISARMED;
	barrier();
	if (g.info.op)
		op_stop();
	if (g.info.fetch)
		fetch_stop();
}

static void disable_all(void)
{
	uint64_t ctl;

	if (has_dis()) {
		if (g.info.op)
			wr(IBS_MSR_OP_CTL2, IBS_CTL2_DIS);
		if (g.info.fetch)
			wr(IBS_MSR_FETCH_CTL2, IBS_CTL2_DIS);
	}
	if (g.info.op && hw_rdmsr(IBS_MSR_OP_CTL, &ctl) == HW_OK && (ctl & IBS_OP_EN))
		disable(IBS_MSR_OP_CTL, ctl, IBS_OP_MAXCNT_MASK | IBS_OP_MAXCNT_EXT_MASK, IBS_OP_EN, IBS_OP_VAL);
	if (g.info.fetch && hw_rdmsr(IBS_MSR_FETCH_CTL, &ctl) == HW_OK && (ctl & IBS_FETCH_EN))
		disable(IBS_MSR_FETCH_CTL, ctl, IBS_FETCH_MAXCNT_MASK, IBS_FETCH_EN, IBS_FETCH_VAL);
}

void ibs_ctl_variant_end(void)
{
	if (!g.ready)
		return;
	ibs_ctl_disarm();
	disable_all();
	/* Unroute only after disabling: the kernel absorbs an NMI still in flight. */
	if (g.routed) {
		hw_nmi_unroute_eilvt(g.info.lvt_offset);
		g.routed = false;
	}
}

size_t ibs_ctl_sample_count(void) { return nsamples; }

const struct ibs_sample *ibs_ctl_sample_at(size_t i) { return i < nsamples ? &buf[i] : NULL; }

const struct ibs_ctl_stats *ibs_ctl_stats(void) { return &g.stats; }

const struct ibs_ctl_info *ibs_ctl_info(void) { return &g.info; }

void ibs_ctl_shutdown(void)
{
	if (!g.ready)
		return;
	state = ST_DISARMED;
	barrier();
	disable_all();
	if (g.routed) {
		hw_nmi_unroute_eilvt(g.info.lvt_offset);
		g.routed = false;
	}
	state = ST_OFF;
	g.ready = false;
}

void ibs_ctl_forget(void)
{
	state = ST_OFF;
	g.routed = false;
	g.ready = false;
}
