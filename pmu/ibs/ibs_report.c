/*
 * pmu/ibs/ibs_report.c - the `ibs` and `ibs_sample` records, and readable
 * lines; see ibs.h and docs/results-format.md.
 *
 * Shared by the image and pmuboot-host ibs-report, so a capture decoded
 * offline gives the very record the image printed.  Ratios and averages are
 * integers in thousandths (no floating point anywhere in the image).  The
 * records are built on the stack (the image file carries every static byte,
 * and UEFI gives at least 128 KiB of stack); none is built in NMI context.
 */
#include "pmu/ibs/ibs.h"
#include "lib/out.h"
#include "lib/record.h"
#include "lib/strbuf.h"

/* ---- Ratios and averages ------------------------------------------------------ */

#define DEN_DC_MISS_LOADS 1u	/* pseudo-code: loads that missed the DC */

/* num and den are sums of event codes (0 ends a list). */
struct metric {
	const char *key;
	const char *label;	/* for readable lines */
	uint16_t num[2];
	uint16_t den[3];
};

/* The ratios AMD's optimisation guides suggest forming from the derived events. */
static const struct metric ratios[] = {
	{ "ic_miss", "IC miss", { 0xF008 }, { 0xF002 } },
	{ "itlb_l1_miss", "ITLB L1 miss", { 0xF006, 0xF007 }, { 0xF002 } },
	{ "fetch_abort", "fetch abort", { 0xF004 }, { 0xF002 } },
	{ "mispredict", "mispredict", { 0xF104 }, { 0xF103 } },
	{ "return_mispredict", "return mispredict", { 0xF108 }, { 0xF107 } },
	{ "dc_miss", "DC miss", { 0xF206 }, { 0xF200 } },
	{ "misaligned", "misaligned", { 0xF208 }, { 0xF200 } },
	{ "dtlb_l1_miss", "DTLB L1 miss", { 0xF204, 0xF205 }, { 0xF203, 0xF204, 0xF205 } },
	{ "dtlb_l2_miss", "DTLB L2 miss", { 0xF205 }, { 0xF204, 0xF205 } },
	{ "dtlb_l1_4k", "L1 DTLB 4K", { 0xF211 }, { 0xF203 } },
	{ "dtlb_l1_2m", "L1 DTLB 2M", { 0xF212 }, { 0xF203 } },
	{ "dtlb_l1_1g", "L1 DTLB 1G", { 0xF213 }, { 0xF203 } },
	{ "dtlb_l2_4k", "L2 DTLB 4K", { 0xF215 }, { 0xF204 } },
	{ "dtlb_l2_2m", "L2 DTLB 2M", { 0xF216 }, { 0xF204 } },
	{ "dtlb_l2_1g", "L2 DTLB 1G", { 0xF217 }, { 0xF204 } },
	{ "nb_remote", "NB remote", { 0xF241 }, { 0xF240, 0xF241 } },
};

/* Cycle averages: the documented divisions of the latency sums. */
static const struct metric averages[] = {
	{ "fetch_latency", "fetch latency", { 0xF00E }, { 0xF002 } },
	{ "tag_to_retire", "tag-to-retire", { 0xF101 }, { 0xF100 } },
	{ "completion_to_retire", "completion-to-retire", { 0xF102 }, { 0xF100 } },
	{ "dc_miss_load_latency", "DC miss load latency", { 0xF219 }, { DEN_DC_MISS_LOADS } },
	{ "nb_local_latency", "NB local latency", { 0xF24B }, { 0xF240 } },
	{ "nb_remote_latency", "NB remote latency", { 0xF24C }, { 0xF241 } },
};

const char *ibs_delivery_name(enum ibs_delivery d)
{
	static const char *const names[] = { "none", "nmi", "polled" };
	return names[d];
}

bool ibs_ratio_milli(uint64_t num, uint64_t den, int64_t *milli)
{
	if (!den)
		return false;
	*milli = (int64_t)((num * 1000 + den / 2) / den);
	return true;
}

/* Whether event code is reported for this variant (exists on the family, its kind was sampled). */
static bool reported(const struct ibs_variant_report *v, const struct ibs_profile *p, uint16_t code)
{
	int i = ibs_derived_index(code);
	return i >= 0 && v->sampled[ibs_derived_kind((size_t)i)] && ibs_derived_available(p, (size_t)i, NULL);
}

static bool sum_codes(const struct ibs_variant_report *v, const struct ibs_profile *p, const uint16_t *codes,
		      size_t n, uint64_t *out)
{
	*out = 0;
	for (size_t k = 0; k < n && codes[k]; k++) {
		if (codes[k] == DEN_DC_MISS_LOADS) {
			if (!v->sampled[IBS_KIND_OP])
				return false;
			*out += v->counts->dc_miss_loads;
			continue;
		}
		if (!reported(v, p, codes[k]))
			return false;
		*out += ibs_count(v->counts, codes[k]);
	}
	return true;
}

static bool metric_value(const struct ibs_variant_report *v, const struct ibs_profile *p, const struct metric *m,
			 int64_t *milli)
{
	uint64_t num, den;
	return sum_codes(v, p, m->num, ARRAY_SIZE(m->num), &num) && sum_codes(v, p, m->den, ARRAY_SIZE(m->den), &den) &&
	       ibs_ratio_milli(num, den, milli);
}

static void metric_fields(struct rec *r, const char *key, const struct metric *ms, size_t n,
			  const struct ibs_variant_report *v, const struct ibs_profile *p)
{
	rec_obj(r, key);
	for (size_t i = 0; i < n; i++) {
		int64_t milli;
		if (metric_value(v, p, &ms[i], &milli))
			rec_milli(r, ms[i].key, milli);
		else
			rec_null(r, ms[i].key);
	}
	rec_obj_end(r);
}

/* ---- Records ------------------------------------------------------------------ */

static void code_key(char out[8], uint16_t code)
{
	snprintf(out, 8, "0x%04X", (unsigned)code);
}

void ibs_report_absent(const char *reason)
{
	struct rec r;

	rec_start(&r, "ibs");
	rec_bool(&r, "available", false);
	rec_str(&r, "reason", reason);
	rec_emit(&r);
	out_text("IBS: not used: %s", reason);
}

static void collection_fields(struct rec *r, const struct ibs_ctl_info *info, const struct ibs_ctl_stats *st)
{
	rec_str(r, "delivery", ibs_delivery_name(st->delivery));
	if (st->delivery == IBS_DELIVERY_NMI)
		rec_u64(r, "lvt_offset", info->lvt_offset);
	else
		rec_str(r, "delivery_note", st->delivery_note);
	rec_obj(r, "period");
	if (info->fetch)
		rec_u64(r, "fetch", info->fetch_period);
	if (info->op)
		rec_u64(r, "op", info->op_period);
	rec_obj_end(r);
	if (info->op)
		rec_str(r, "op_count", info->op_counts_ops ? "ops" : "cycles");
	if (info->note[0])
		rec_str(r, "note", info->note);
	rec_u64(r, "slices", st->slices);
	rec_u64(r, "overflow", st->overflow);
	rec_obj(r, "nmi");
	rec_u64(r, "taken", st->nmis);
	rec_u64(r, "late", st->late_nmis);
	rec_u64(r, "spurious", st->spurious_nmis);
	rec_obj_end(r);
	rec_u64(r, "msr_faults", st->msr_faults);
	if (st->msr_faults) {
		rec_hex(r, "fault_msr", st->fault_msr);
		rec_i64(r, "fault_code", st->fault_code);
	}
}

void ibs_report_variant(const struct ibs_variant_report *v)
{
	struct rec r;
	struct ibs_profile p;
	char key[8];

	ibs_profile_get(&v->target, &p);
	rec_start(&r, "ibs");
	rec_bool(&r, "available", true);
	rec_str(&r, "source", v->source);
	rec_str(&r, "kernel", v->kernel);
	rec_str(&r, "variant", v->variant);
	if (v->arena_page)
		rec_u64(&r, "arena_page", v->arena_page);
	else
		rec_null(&r, "arena_page");
	rec_hex(&r, "family", v->target.family);
	rec_hex(&r, "model", v->target.model);
	rec_hex(&r, "ibs_caps", v->target.caps);
	rec_str(&r, "profile", p.name);
	rec_arr(&r, "sampled");
	for (int k = 0; k < IBS_KINDS; k++)
		if (v->sampled[k])
			rec_str(&r, NULL, ibs_kind_name((enum ibs_kind)k));
	rec_arr_end(&r);
	if (v->info && v->stats)
		collection_fields(&r, v->info, v->stats);
	rec_obj(&r, "samples");
	rec_u64(&r, "fetch", v->counts->samples[IBS_KIND_FETCH]);
	rec_u64(&r, "op", v->counts->samples[IBS_KIND_OP]);
	rec_obj_end(&r);
	rec_obj(&r, "dropped");
	rec_u64(&r, "fetch", v->counts->dropped[IBS_KIND_FETCH]);
	rec_u64(&r, "op", v->counts->dropped[IBS_KIND_OP]);
	rec_obj_end(&r);
	rec_obj(&r, "events");
	for (size_t i = 0; i < ibs_derived_count(); i++) {
		code_key(key, ibs_derived_code(i));
		if (reported(v, &p, ibs_derived_code(i)))
			rec_u64(&r, key, v->counts->ev[i]);
		else
			rec_null(&r, key);
	}
	rec_obj_end(&r);
	rec_arr(&r, "not_available");
	for (size_t i = 0; i < ibs_derived_count(); i++) {
		if (!ibs_derived_available(&p, i, NULL)) {
			code_key(key, ibs_derived_code(i));
			rec_str(&r, NULL, key);
		}
	}
	rec_arr_end(&r);
	metric_fields(&r, "ratios", ratios, ARRAY_SIZE(ratios), v, &p);
	metric_fields(&r, "averages", averages, ARRAY_SIZE(averages), v, &p);
	rec_emit(&r);
}

void ibs_report_sample(const struct ibs_target *t, const char *kernel, const char *variant,
		       const struct ibs_sample *s)
{
	struct rec r;
	enum ibs_kind k = s->kind == IBS_KIND_FETCH ? IBS_KIND_FETCH : IBS_KIND_OP;

	rec_start(&r, "ibs_sample");
	rec_str(&r, "kind", ibs_kind_name(k));
	rec_hex(&r, "family", t->family);
	rec_hex(&r, "model", t->model);
	rec_str(&r, "kernel", kernel);
	rec_str(&r, "variant", variant);
	rec_obj(&r, "regs");
	for (unsigned i = 0; i < ibs_reg_count(k); i++)
		if (s->have & (1u << i))
			rec_hex(&r, ibs_reg_def(k, i)->name, s->v[i]);
	rec_obj_end(&r);
	rec_emit(&r);
}

/* ---- Readable output ------------------------------------------------------------ */

static const char *where(const struct ibs_variant_report *v, char *buf, size_t cap)
{
	if (v->arena_page == 4096)
		snprintf(buf, cap, "%s.%s [4 KiB pages]", v->kernel, v->variant);
	else if (v->arena_page == 2u * 1024 * 1024)
		snprintf(buf, cap, "%s.%s [2 MiB pages]", v->kernel, v->variant);
	else
		snprintf(buf, cap, "%s.%s", v->kernel, v->variant);
	return buf;
}

void ibs_report_line(const struct ibs_variant_report *v)
{
	static const char *const shown[] = { "ic_miss", "mispredict", "dc_miss", "misaligned", "dtlb_l1_4k",
					     "dtlb_l1_2m", "dtlb_l1_1g" };
	struct ibs_profile p;
	char line[512], w[160], num[32];
	size_t n = 0;

	ibs_profile_get(&v->target, &p);
	n = str_appendf(line, sizeof(line), n, "IBS %s: %llu fetch, %llu op samples", where(v, w, sizeof(w)),
		   (unsigned long long)v->counts->samples[IBS_KIND_FETCH],
		   (unsigned long long)v->counts->samples[IBS_KIND_OP]);
	if (v->stats)
		n = str_appendf(line, sizeof(line), n, " (%s%s)", ibs_delivery_name(v->stats->delivery),
			   v->stats->overflow ? ", buffer overflowed" : "");
	for (size_t i = 0; i < ARRAY_SIZE(ratios); i++) {
		int64_t milli;
		for (size_t k = 0; k < ARRAY_SIZE(shown); k++)
			if (!strcmp(shown[k], ratios[i].key) && metric_value(v, &p, &ratios[i], &milli))
				n = str_appendf(line, sizeof(line), n, "; %s %s", ratios[i].label, fmt_milli(num, milli));
	}
	out_text("%s", line);
	if (v->stats && v->counts->samples[IBS_KIND_FETCH] + v->counts->samples[IBS_KIND_OP] == 0 &&
	    v->stats->slices)
		out_text("IBS %s: no samples in %u kernel runs: each run is shorter than the sampling period; "
			 "lower ibs_period", w, (unsigned)v->stats->slices);
}

#ifdef PMUBOOT_HOSTED
/* The full table: pmuboot-host ibs-report only (the image prints one line per variant). */
void ibs_report_table(const struct ibs_variant_report *v)
{
	struct ibs_profile p;
	char w[160], num[32];

	ibs_profile_get(&v->target, &p);
	out_text("%s", "");
	out_text("IBS %s: Family %xh model %xh, decoded as %s", where(v, w, sizeof(w)), (unsigned)v->target.family,
		 (unsigned)v->target.model, p.name);
	out_text("  samples: %llu fetch (%llu dropped), %llu op (%llu dropped)",
		 (unsigned long long)v->counts->samples[IBS_KIND_FETCH],
		 (unsigned long long)v->counts->dropped[IBS_KIND_FETCH],
		 (unsigned long long)v->counts->samples[IBS_KIND_OP],
		 (unsigned long long)v->counts->dropped[IBS_KIND_OP]);
	out_text("  %-7s %-24s %12s", "event", "abbreviation", "count");
	for (size_t i = 0; i < ibs_derived_count(); i++) {
		const char *why = "", *ab = ibs_derived_abbrev(i);
		char cnt[32];
		if (!ibs_derived_available(&p, i, &why)) {
			snprintf(cnt, sizeof(cnt), "n/a");
		} else if (!v->sampled[ibs_derived_kind(i)]) {
			snprintf(cnt, sizeof(cnt), "-");
			why = "not sampled";
		} else {
			snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long)v->counts->ev[i]);
			why = ibs_derived_is_sum(i) ? "cycles" : "";
		}
		out_text("  0x%04X  %-24s %12s%s%s", (unsigned)ibs_derived_code(i), ab ? ab : "", cnt, why[0] ? "  " : "",
			 why);
	}
	for (int pass = 0; pass < 2; pass++) {
		const struct metric *ms = pass ? averages : ratios;
		size_t n = pass ? ARRAY_SIZE(averages) : ARRAY_SIZE(ratios);
		out_text("  %s:", pass ? "averages (cycles)" : "ratios");
		for (size_t i = 0; i < n; i++) {
			int64_t milli;
			out_text("    %-24s %s", ms[i].label,
				 metric_value(v, &p, &ms[i], &milli) ? fmt_milli(num, milli) : "n/a");
		}
	}
}
#endif
