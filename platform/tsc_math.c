/* platform/tsc_math.c - see tsc_math.h. */
#include "platform/tsc_math.h"
#include "lib/muldiv.h"
#include "platform/hw.h"
#include "lib/out.h"
#include "lib/record.h"

#define CRYSTAL_TOLERANCE_PPM 100	/* typical quartz; the SDM states no tolerance for the core crystal */
#define CPUID16_BCLK_PPM 500		/* base clock deviation from nominal allowed for by cpuid_16h figures */
#define DISAGREE_SLACK_PPM 1000		/* beyond both stated errors before two figures are said to disagree */
#define HZ_PER_MHZ 1000000u
#define MILLI 1000

uint32_t ppm_diff(uint64_t a, uint64_t b)
{
	if (!b)
		return UINT32_MAX;
	uint64_t d = a > b ? a - b : b - a;
	uint64_t v = muldiv64(d, PPM, b);
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

uint64_t u64_median(uint64_t *v, unsigned n)
{
	if (!n)
		return 0;
	lc_sort_u64(v, n);
	return v[(n - 1) / 2];
}

/* Intel SDM Vol. 3B §20.7.3, Table 20-91 ("Nominal Core Crystal Clock Frequency"): models whose
 * CPUID.15H:ECX is 0 although the crystal is known. */
static const struct {
	uint32_t model;
	uint32_t crystal_hz;
} crystal_table[] = {
	{ 0x4E, 24000000 }, { 0x5E, 24000000 },	/* 6th generation Core (Skylake) */
	{ 0x8E, 24000000 }, { 0x9E, 24000000 },	/* 7th generation Core (Kaby Lake), Xeon W */
	{ 0x55, 25000000 },			/* Xeon Scalable (Skylake-SP) */
	{ 0x5C, 19200000 },			/* Atom, Goldmont */
};

bool tsc_from_cpuid15(uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t family, uint32_t model,
		      uint32_t base_mhz_16h, struct tsc_figure *out)
{
	out->hz = 0;
	out->source = "cpuid_15h";
	out->error_ppm = CRYSTAL_TOLERANCE_PPM;
	if (!eax || !ebx)
		return false;
	uint64_t crystal = ecx;
	out->how = "crystal from CPUID.15H:ECX";
	if (!crystal && family == 6)
		for (unsigned i = 0; i < sizeof(crystal_table) / sizeof(crystal_table[0]); i++)
			if (crystal_table[i].model == model) {
				crystal = crystal_table[i].crystal_hz;
				out->how = "crystal from the SDM's model table (CPUID.15H:ECX is 0)";
			}
	if (!crystal && base_mhz_16h) {
		/* crystal = base * EAX / EBX, so TSC = crystal * EBX / EAX is the 16h base itself (SDM §20.7.3). */
		out->how = "crystal derived from CPUID.16H base frequency (CPUID.15H:ECX is 0)";
		out->error_ppm = CPUID16_BCLK_PPM + (uint32_t)((HZ_PER_MHZ / 2 * (uint64_t)PPM) /
							       ((uint64_t)base_mhz_16h * HZ_PER_MHZ));
		out->hz = (uint64_t)base_mhz_16h * HZ_PER_MHZ;
		return true;
	}
	if (!crystal)
		return false;
	out->hz = muldiv64(crystal, ebx, eax);
	return out->hz != 0;
}

bool tsc_from_cpuid16(uint32_t base_mhz, struct tsc_figure *out)
{
	out->source = "cpuid_16h";
	out->how = "processor base frequency (CPUID.16H:EAX), nominal";
	out->hz = (uint64_t)base_mhz * HZ_PER_MHZ;
	/* Rounded to a whole MHz, and the bus clock may sit off its nominal value. */
	out->error_ppm = base_mhz ? CPUID16_BCLK_PPM + (uint32_t)((HZ_PER_MHZ / 2 * (uint64_t)PPM) / out->hz) : 0;
	return base_mhz != 0;
}

uint32_t tsc_sample_error_ppm(uint64_t dtsc, uint64_t uncertainty)
{
	if (!dtsc)
		return UINT32_MAX;
	uint64_t v = muldiv64(uncertainty, PPM, dtsc) + 1;
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Wait for the reference to change; the edge lies between the previous read and this one. */
static bool edge(const struct ref_clock *r, uint64_t deadline, uint64_t *ref, uint64_t *tsc, uint64_t *width)
{
	uint64_t t_prev = hw_tsc(), v0 = r->read(r->ctx) & r->mask;
	for (;;) {
		uint64_t t_before = hw_tsc();
		uint64_t v = r->read(r->ctx) & r->mask;
		uint64_t t_after = hw_tsc();
		if (v != v0) {
			*ref = v;
			*tsc = t_after;
			*width = t_after - t_prev;
			return true;
		}
		if ((int64_t)(t_after - deadline) > 0)
			return false;
		t_prev = t_before;
	}
}

bool tsc_measure(const struct ref_clock *r, uint64_t ref_ticks, uint64_t max_tsc, struct tsc_sample *s)
{
	uint64_t deadline = hw_tsc() + max_tsc;
	uint64_t ref0, tsc0, w0, ref1, tsc1, w1, dref = 0;

	s->hz = 0;
	if (!r->hz || !edge(r, deadline, &ref0, &tsc0, &w0))
		return false;
	/* Counting in deltas modulo the counter width copes with a wrap (the 24-bit PM timer wraps in 4.7 s). */
	uint64_t last = ref0;
	while (dref < ref_ticks) {
		uint64_t v = r->read(r->ctx) & r->mask;
		dref += (v - last) & r->mask;
		last = v;
		if ((int64_t)(hw_tsc() - deadline) > 0)
			return false;
	}
	if (!edge(r, deadline, &ref1, &tsc1, &w1))
		return false;
	dref += (ref1 - last) & r->mask;
	s->dtsc = tsc1 - tsc0;
	s->dref = dref;
	s->uncertainty = w0 + w1;
	s->hz = muldiv64(s->dtsc, r->hz, s->dref);
	s->error_ppm = tsc_sample_error_ppm(s->dtsc, s->uncertainty);
	return s->hz != 0;
}

bool tsc_combine(struct tsc_sample *s, unsigned n, uint32_t ref_tolerance_ppm, const char *source,
		 struct tsc_figure *out, uint32_t *spread_ppm)
{
	uint64_t hz[16];
	unsigned k = 0;

	out->hz = 0;
	out->source = source;
	out->how = "median of measurements";
	for (unsigned i = 0; i < n && k < 16; i++)
		if (s[i].hz)
			hz[k++] = s[i].hz;
	if (!k)
		return false;
	uint64_t med = u64_median(hz, k);
	uint32_t bound = 0;
	for (unsigned i = 0; i < n; i++)
		if (s[i].hz == med)
			bound = s[i].error_ppm;
	uint64_t sp = muldiv64(hz[k - 1] - hz[0], PPM, med);
	*spread_ppm = sp > UINT32_MAX ? UINT32_MAX : (uint32_t)sp;
	uint32_t half_spread = *spread_ppm / 2;
	out->hz = med;
	out->error_ppm = (bound > half_spread ? bound : half_spread) + ref_tolerance_ppm;
	return true;
}

static bool agree(const struct tsc_figure *a, const struct tsc_figure *b)
{
	uint64_t allowed = (uint64_t)a->error_ppm + b->error_ppm + DISAGREE_SLACK_PPM;
	return ppm_diff(a->hz, b->hz) <= allowed;
}

void tsc_choose(const struct tsc_figure *c15, const struct tsc_figure *c16, const struct tsc_figure *measured,
		struct tsc_figure *chosen, char *note, size_t note_cap)
{
	bool m = measured && measured->hz;
	static const struct tsc_figure none = { 0, 0, NULL, "no source" };

	if (c15 && c15->hz) {
		if (m && !agree(c15, measured)) {
			*chosen = *measured;
			snprintf(note, note_cap, "CPUID 15h gives %llu Hz but the measurement against %s gives %llu Hz "
				 "(%u ppm apart): using the measurement", (unsigned long long)c15->hz, measured->source,
				 (unsigned long long)measured->hz, ppm_diff(c15->hz, measured->hz));
			return;
		}
		*chosen = *c15;
		snprintf(note, note_cap, m ? "CPUID 15h, confirmed by the measurement (%u ppm apart)"
					   : "CPUID 15h, not cross-checked (no independent clock)",
			 m ? ppm_diff(c15->hz, measured->hz) : 0);
		return;
	}
	if (c16 && c16->hz) {
		if (m) {
			bool ok = agree(c16, measured);
			*chosen = ok && c16->error_ppm < measured->error_ppm ? *c16 : *measured;
			snprintf(note, note_cap, "CPUID 16h base %llu Hz %s the measurement (%u ppm apart); using %s",
				 (unsigned long long)c16->hz, ok ? "agrees with" : "disagrees with",
				 ppm_diff(c16->hz, measured->hz), chosen->source);
			return;
		}
		*chosen = *c16;
		snprintf(note, note_cap, "CPUID 16h nominal base frequency, not cross-checked (no independent clock)");
		return;
	}
	if (m) {
		*chosen = *measured;
		snprintf(note, note_cap, "no CPUID frequency leaf: measured against %s", measured->source);
		return;
	}
	*chosen = none;
	snprintf(note, note_cap, "TSC frequency unknown: no CPUID frequency leaf and no independent clock");
}

int64_t core_per_tsc_milli(uint64_t adds, uint64_t dtsc)
{
	return dtsc ? (int64_t)muldiv64(adds, MILLI, dtsc) : 0;
}

uint32_t spread_milli(const uint64_t *sorted, unsigned n)
{
	if (!n)
		return 0;
	uint64_t med = sorted[(n - 1) / 2];
	uint64_t v = muldiv64(sorted[n - 1] - sorted[0], MILLI, med);
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void (*more_fields)(struct rec *r);

void timing_set_fields(void (*fields)(struct rec *r)) { more_fields = fields; }

void timing_emit(const struct timing_info *t, const struct timing_detail *d)
{
	struct rec r;	/* on the stack */
	char mhz[32], ratio[32];

	rec_start(&r, "timing");
	rec_u64(&r, "tsc_hz", t->tsc_hz);
	rec_str(&r, "source", t->tsc_source);
	rec_u64(&r, "error_ppm", t->tsc_error_ppm);
	rec_bool(&r, "invariant_tsc", t->invariant_tsc);
	rec_bool(&r, "emulated", t->exec == EXEC_EMULATED);
	rec_str(&r, "execution", cpu_exec_name(t->exec));
	if (t->core_source) {
		rec_milli(&r, "core_per_tsc", t->core_per_tsc_milli);
		rec_str(&r, "core_source", t->core_source);
		rec_milli(&r, "core_spread", t->core_spread_milli);
		rec_u64(&r, "core_runs", d->core_runs);
		rec_u64(&r, "core_dropped", d->core_dropped);
	} else {
		rec_null(&r, "core_per_tsc");
		rec_null(&r, "core_source");
	}
	if (d->core_note[0])
		rec_str(&r, "core_note", d->core_note);
	if (d->have_c15) {
		rec_obj(&r, "cpuid_15h");
		rec_u64(&r, "denominator", d->c15_eax);
		rec_u64(&r, "numerator", d->c15_ebx);
		rec_u64(&r, "crystal_hz", d->c15_ecx);
		rec_u64(&r, "hz", d->c15.hz);
		if (d->c15.hz)
			rec_str(&r, "how", d->c15.how);
		rec_obj_end(&r);
	} else {
		rec_null(&r, "cpuid_15h");
	}
	if (d->have_c16) {
		rec_obj(&r, "cpuid_16h");
		rec_u64(&r, "base_mhz", d->c16_base_mhz);
		rec_u64(&r, "max_mhz", d->c16_max_mhz);
		rec_u64(&r, "bus_mhz", d->c16_bus_mhz);
		rec_obj_end(&r);
	} else {
		rec_null(&r, "cpuid_16h");
	}
	if (d->measured.hz) {
		rec_obj(&r, "measured");
		rec_str(&r, "against", d->measured.source);
		rec_u64(&r, "hz", d->measured.hz);
		rec_u64(&r, "error_ppm", d->measured.error_ppm);
		rec_u64(&r, "ref_hz", d->ref_hz);
		rec_u64(&r, "runs", d->measured_runs);
		rec_u64(&r, "spread_ppm", d->measured_spread_ppm);
		rec_str(&r, "how", d->measured.how);
		if (d->measure_problem)
			rec_str(&r, "fallback_because", d->measure_problem);
		rec_obj_end(&r);
	} else {
		rec_null(&r, "measured");
		rec_str(&r, "measure_problem", d->measure_problem ? d->measure_problem : "not attempted");
	}
	rec_str(&r, "note", d->note);
	if (more_fields)
		more_fields(&r);
	rec_emit(&r);

	bool hv = t->exec != EXEC_BARE_METAL;
	out_text("timing: TSC %s MHz (%s, +-%u ppm)%s; core/TSC %s (%s)%s%s", fmt_milli(mhz, (int64_t)(t->tsc_hz / 1000)),
		 t->tsc_source ? t->tsc_source : "unknown", t->tsc_error_ppm, t->invariant_tsc ? ", invariant" : "",
		 t->core_source ? fmt_milli(ratio, t->core_per_tsc_milli) : "-",
		 t->core_source ? t->core_source : "not calibrated", hv ? "; " : "", hv ? cpu_exec_name(t->exec) : "");
}
