/*
 * pmu/caps/pmu_flavour.h - the MSR layout of each kind of PMU, as data.
 *
 * One row per flavour (pmu_intel.c, pmu_p6.c, pmu_amd.c) says where the
 * counters and their controls live, which select bits exist, whether a
 * global control register gates the counters and how counting is switched
 * on.  The counter driver (count_msr.c) has no per-vendor code paths: it
 * reads these rows.
 */
#ifndef PMUBOOT_PMU_CAPS_PMU_FLAVOUR_H
#define PMUBOOT_PMU_CAPS_PMU_FLAVOUR_H

#include "pmu/caps/pmu_caps.h"

/* How the start/stop lists switch counting on and off. */
enum pmu_toggle {
	TOGGLE_GLOBAL,		/* one write to the global control register */
	TOGGLE_EACH_SELECT,	/* the EN bit of each select in use */
	TOGGLE_SELECT0,		/* P6: EN in select 0 switches every counter */
};

struct pmu_flavour {
	const char *name;		/* short key for records: "intel-arch-v4", "amd-core-ext" */
	const char *label;		/* for people */
	enum pmu_kind kind;
	uint8_t min_version;		/* Intel architectural: first CPUID.0AH version of this row */
	uint8_t min_family;		/* first display family of this row (AMD K8 vs Family 10h+) */

	/* General counters. */
	uint32_t sel_base, ctr_base;	/* select and counter of counter 0 */
	uint8_t stride;			/* MSR step from one counter to the next */
	uint32_t ctr_fw_base;		/* full-width write alias of counter 0 (when enumerated), or 0 */
	bool ctr_write_sext32;		/* writes through ctr_base keep bits 31:0, sign-extended */
	uint8_t max_gp;			/* counters the layout has room for */
	uint8_t fallback_gp, fallback_width;	/* when CPUID does not say */

	/* Event select. */
	uint64_t sel_en, sel_usr, sel_os, sel_edge, sel_inv, sel_any;	/* sel_any 0: no AnyThread */
	uint64_t sel_int;		/* interrupt on overflow (count_set.pmi) */
	uint16_t merge_event;		/* AMD: the Merge event for a pair's odd counter, 0 = none */
	uint8_t umask_shift, cmask_shift;
	uint16_t event_max;		/* 0xFF or 0xFFF */
	uint8_t event_hi_shift;		/* where event bits 11:8 go, 0 if nowhere */
	bool event0_fixed_only;		/* event code 0 is a fixed-counter pseudo-encoding (Intel) */

	enum pmu_toggle toggle;

	/* Global control and overflow status; 0 = absent. */
	uint32_t global_ctrl, global_status, global_ovf_clear;
	const char *ovf_clear_name;
	uint8_t global_fixed_shift;	/* bit of fixed counter 0 in the global registers */

	/* Fixed counters; fixed_ctrl 0 = none. */
	uint32_t fixed_ctrl, fixed_ctr_base;
	uint8_t fixed_field_bits;
	uint64_t fixed_os, fixed_usr, fixed_any;	/* bits within a field */
	uint64_t fixed_pmi;		/* a field's interrupt-on-overflow bit (count_set.pmi) */
	bool perf_metrics;		/* GLOBAL_CTRL can enable PERF_METRICS (Intel v4+, if enumerated) */
	uint64_t fixed_enable_mask;	/* bits within a field that make the counter count */
	bool fixed_bitmap;		/* CPUID.0AH:ECX lists fixed counters (version 5) */
	uint8_t fixed_min_bare_metal;	/* fixed counters present even when CPUID says fewer (Core 2, Bonnell) */
};

/* The row for this PMU (kind, CPUID.0AH version, display family), or NULL when there is none. */
const struct pmu_flavour *pmu_flavour_find(enum pmu_kind kind, unsigned version, unsigned family);

/* The rows, one table per file. */
extern const struct pmu_flavour pmu_flavours_intel[];
extern const size_t pmu_flavours_intel_n;
extern const struct pmu_flavour pmu_flavours_p6[];
extern const size_t pmu_flavours_p6_n;
extern const struct pmu_flavour pmu_flavours_amd[];
extern const size_t pmu_flavours_amd_n;

#endif
