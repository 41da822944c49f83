/* pmu/caps/pmu_caps_report.c - the `pmu` record's capability fields and the readable summary (pmu_caps.h). */
#include "pmu/caps/pmu_caps.h"
#include "lib/out.h"

#define ARCH_EVENT_BITS 32
#define IBS_FLAG_BITS 32

static unsigned bits_set(uint32_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/*
 * Leaf 23H's per-core view, when it gives one, is this core's (Lunar Lake
 * E-cores add fixed counters 4-6 there): as pmu_caps_fixed_mask, but also
 * for a PMU found not to count, whose record still says what CPUID lists.
 */
static bool fixed_from_23h(const struct pmu_caps *c)
{
	return c->arch_ext && c->ext_fixed_mask;
}

static uint32_t fixed_mask(const struct pmu_caps *c)
{
	return fixed_from_23h(c) ? c->ext_fixed_mask : c->fixed_mask;
}

static void arch_events(struct rec *r, const struct pmu_caps *c)
{
	if (c->version == 0) {
		rec_null(r, "arch_events");
		return;
	}
	rec_obj(r, "arch_events");
	rec_u64(r, "length", c->arch_events_len);
	rec_hex(r, "ebx", c->arch_events_absent);
	/* Event i is available when EBX[i] is clear and i < the length in EAX[31:24]. */
	rec_arr(r, "available");
	for (unsigned i = 0; i < ARCH_EVENT_BITS && i < c->arch_events_len; i++)
		if (!(c->arch_events_absent & (1u << i)) && pmu_arch_event_name(i))
			rec_str(r, NULL, pmu_arch_event_name(i));
	rec_arr_end(r);
	rec_arr(r, "unavailable");
	for (unsigned i = 0; pmu_arch_event_name(i); i++)
		if (i >= c->arch_events_len || (c->arch_events_absent & (1u << i)))
			rec_str(r, NULL, pmu_arch_event_name(i));
	rec_arr_end(r);
	rec_obj_end(r);
}

static void perf_caps(struct rec *r, const struct pmu_caps *c)
{
	if (!c->perf_caps_read) {
		rec_null(r, "perf_capabilities");
		rec_str(r, "perf_capabilities_reason", c->perf_caps_reason);
		return;
	}
	rec_obj(r, "perf_capabilities");
	rec_hex(r, "value", c->perf_caps);
	rec_u64(r, "lbr_format", c->lbr_format);
	rec_u64(r, "pebs_format", c->pebs_format);
	rec_bool(r, "pebs_trap", c->pebs_trap);
	rec_bool(r, "pebs_arch_regs", c->pebs_arch_regs);
	rec_bool(r, "pebs_baseline", c->pebs_baseline);
	rec_bool(r, "freeze_while_smm", c->freeze_while_smm);
	rec_bool(r, "full_width_write", c->full_width_write);
	rec_bool(r, "perf_metrics", c->perf_metrics);
	rec_obj_end(r);
	rec_null(r, "perf_capabilities_reason");
}

static void amd(struct rec *r, const struct pmu_caps *c)
{
	rec_obj(r, "amd");
	rec_bool(r, "core_ext", c->amd_core_ext);
	rec_bool(r, "nb_ext", c->amd_nb_ext);
	rec_bool(r, "llc_ext", c->amd_llc_ext);
	rec_bool(r, "perfmon_v2", c->amd_v2);
	rec_u64(r, "counters", c->amd_n_counters);
	rec_u64(r, "nb_counters", c->amd_n_nb);
	rec_u64(r, "umc_counters", c->amd_n_umc);
	rec_bool(r, "lbr_v2", c->amd_lbr_v2);
	rec_u64(r, "lbr_depth", c->amd_lbr_depth);
	rec_obj_end(r);
}

static void ibs(struct rec *r, const struct pmu_caps *c)
{
	rec_obj(r, "ibs");
	rec_bool(r, "present", c->ibs);
	rec_bool(r, "flags_valid", c->ibs_flags_valid);
	if (c->ibs && c->ibs_flags_valid)
		rec_hex(r, "flags", c->ibs_flags);
	else
		rec_null(r, "flags");
	rec_arr(r, "features");
	if (c->ibs && c->ibs_flags_valid)
		for (unsigned i = 1; i < IBS_FLAG_BITS; i++)
			if (c->ibs_flags & (1u << i))
				rec_str(r, NULL, pmu_ibs_flag_name(i) ? pmu_ibs_flag_name(i) : "reserved");
	rec_arr_end(r);
	rec_str(r, "note", c->ibs_note);
	rec_str(r, "absent_reason", c->ibs ? NULL : c->ibs_absent_reason);
	rec_obj_end(r);
}

void pmu_caps_fields(struct rec *r, const struct pmu_caps *c)
{
	rec_str(r, "kind", pmu_kind_name(c->kind));
	rec_bool(r, "present", c->kind != PMU_NONE);
	rec_str(r, "absent_reason", c->kind == PMU_NONE ? c->absent_reason : NULL);
	rec_str(r, "note", c->note[0] ? c->note : NULL);
	rec_u64(r, "version", c->version);
	rec_obj(r, "gp");
	rec_u64(r, "count", c->n_gp);
	rec_u64(r, "width", c->gp_width);
	rec_obj_end(r);
	rec_obj(r, "fixed");
	rec_u64(r, "count", bits_set(fixed_mask(c)));
	rec_u64(r, "width", c->fixed_width);
	rec_hex(r, "mask", fixed_mask(c));
	rec_str(r, "mask_from", !c->version ? NULL : fixed_from_23h(c) ? "cpuid_23h" : "cpuid_0ah");
	rec_hex(r, "leaf_0ah_mask", c->fixed_mask);
	rec_hex(r, "bitmap", c->fixed_bitmap);
	rec_bool(r, "assumed", c->fixed_assumed);
	rec_str(r, "note", c->fixed_note);
	rec_obj_end(r);
	arch_events(r, c);
	rec_bool(r, "any_thread_deprecated", c->any_thread_deprecated);
	if (c->arch_ext) {
		rec_obj(r, "arch_ext");
		rec_hex(r, "gp_mask", c->ext_gp_mask);
		rec_hex(r, "fixed_mask", c->ext_fixed_mask);
		rec_obj_end(r);
	} else {
		rec_null(r, "arch_ext");
	}
	rec_bool(r, "pdcm", c->pdcm);
	perf_caps(r, c);
	rec_bool(r, "smi_count", c->smi_count);
	rec_str(r, "smi_count_reason", c->smi_count_reason);
	rec_bool(r, "aperf_mperf", c->aperf_mperf);
	rec_bool(r, "probed", c->probed);
	amd(r, c);
	ibs(r, c);
}

void pmu_caps_summary(const struct pmu_caps *c)
{
	switch (c->kind) {
	case PMU_NONE:
		out_text("pmu: no PMU: %s", c->absent_reason ? c->absent_reason : "(no reason recorded)");
		break;
	case PMU_INTEL_P6:
		out_text("pmu: P6-family counters: %u x %u-bit (PerfEvtSel0.EN enables both)", c->n_gp, c->gp_width);
		break;
	case PMU_INTEL_ARCH: {
		char from[64] = "";
		if (fixed_from_23h(c) && c->ext_fixed_mask != c->fixed_mask)
			snprintf(from, sizeof(from), " from CPUID.(23H,1); CPUID.0AH lists 0x%x", c->fixed_mask);
		else if (fixed_from_23h(c))
			snprintf(from, sizeof(from), " from CPUID.(23H,1)");
		out_text("pmu: Intel architectural PMU version %u: %u x %u-bit general, %u x %u-bit fixed (mask 0x%x%s)%s",
			 c->version, c->n_gp, c->gp_width, bits_set(fixed_mask(c)), c->fixed_width, fixed_mask(c),
			 from, c->fixed_assumed ? " (fixed counters assumed, see record)" : "");
		break;
	}
	default:
		out_text("pmu: AMD %s: %u x %u-bit core counters", c->kind == PMU_AMD_V2 ? "PerfMonV2"
			 : c->kind == PMU_AMD_CORE_EXT ? "core performance counter extension" : "legacy counters",
			 c->n_gp, c->gp_width);
		break;
	}
	if (c->note[0])
		out_text("pmu: %s", c->note);
	if (c->perf_caps_read)
		out_text("pmu: IA32_PERF_CAPABILITIES 0x%llx: PEBS format %u, LBR format %u%s%s",
			 (unsigned long long)c->perf_caps, c->pebs_format, c->lbr_format,
			 c->full_width_write ? ", full-width writes" : "", c->freeze_while_smm ? ", freeze while SMM" : "");
	if (c->ibs)
		out_text("pmu: IBS present, flags %s0x%x%s%s", c->ibs_flags_valid ? "" : "(not valid) ", c->ibs_flags,
			 c->ibs_note ? ": " : "", c->ibs_note ? c->ibs_note : "");
}
