/*
 * pmu/count/pmu_model.h - a software model of a CPU's performance counters.
 *
 * Used where no real PMU may be touched: the unit tests plug it into the
 * fake CPU (tests/fake/fake_pmu.h), and pmuboot-host drives it to show the
 * MSR writes the driver would make on the CPU of a CPUID dump (`program`)
 * and to run the audit and the metrics against a dump's PMU (`audit`,
 * `metrics --run`, pmu/audit/audit_model_host.c).  It lives in pmu/
 * because both of those link it; its code is pmu_model_host.c, a *_host.c
 * file, so the image does not carry it.
 *
 * The model is written from the manuals independently of the driver's
 * flavour tables (msr_intel.h and msr_amd.h give the sources), so a wrong
 * row in a table shows up as a #GP or a wrong count rather than agreeing
 * with itself.  It models, per kind of PMU:
 *   - MSRs that exist or raise #GP (an absent counter, an AMD MSR on Intel,
 *     IA32_A_PMCx without FW_WRITE, global registers before version 2);
 *   - #GP on writes to reserved bits (AnyThread before version 3 or when
 *     deprecated, EN in P6's PerfEvtSel1, bits above a counter's width on
 *     full-width writes, read-only status registers);
 *   - counter writes through the legacy Intel/P6 address keeping bits 31:0
 *     sign-extended;
 *   - what each event counts: the vendors' own descriptions, classified into
 *     pmu/count/pmu_oracle.h's table (instructions, branches, core clocks,
 *     reference clocks at their stated rate, slots, SMIs), not the audit's;
 *   - counting: a counter advances while enabled (own EN or fixed field,
 *     global control where present, PerfEvtSel0.EN on P6, USR/OS set),
 *     wraps at its width and sets its overflow status bit;
 *   - reset values, notably GLOBAL_CTRL with every general counter enabled;
 *   - AMD's legacy addresses aliasing core-extension counters 0-3;
 *   - the vendors' event constraints, as their own tables state them (the
 *     event set of the CPU, events/vendor/): an event on a counter its
 *     Counter list excludes counts nothing, an offcore event counts only
 *     while its OFFCORE_RSP MSR selects something, and an architectural
 *     event CPUID.0AH:EBX marks unavailable counts nothing on a general
 *     counter.  So a scheduler that misplaces an event shows zero counts.
 */
#ifndef PMUBOOT_PMU_COUNT_PMU_MODEL_H
#define PMUBOOT_PMU_COUNT_PMU_MODEL_H

#include "cpu/cpu.h"
#include "pmu/caps/pmu_caps.h"
#include "events/events.h"

#define PMU_MODEL_MAX_GP 16
#define PMU_MODEL_MAX_FIXED 16

/*
 * Faults the model can be told to have (pmuboot-host audit --inject, the audit's
 * unit tests): each is a way real hardware or firmware can miscount, and each
 * is one the audit stage (pmu/audit/audit.h) must catch.  docs/audit.md lists
 * which check catches which.
 */
struct pmu_model_faults {
	uint32_t stuck_gp;		/* general counters that never increment */
	uint32_t narrow_gp;		/* general counters that keep only bits 31:0 */
	uint32_t fixed_off;		/* fixed counters that never increment */
	bool ignore_umask;		/* every unit mask is read as 0 */
	bool no_pmi;			/* an overflow sets its status bit but raises no interrupt */
	unsigned smi;			/* SMIs still to land: one in each of the next runs */
	unsigned freq_drift_pct;	/* the core clock is this much faster in every other run */
	bool throttle;			/* the next run throttles: thermal log bit set, clock down */
	bool frozen_clock;		/* core clocks stand still: the cycles events, fixed counter 1 and APERF
					 * stay 0 while instructions count and the TSC runs */
	bool stray_nmi;			/* every run ends with an NMI that no overflow is behind (another
					 * source's, or a late one): the PMI's route sees it, no status bit says why */
};

/* How much slower a throttled run's core clock is, in percent. */
#define PMU_MODEL_THROTTLE_PCT 20

struct pmu_model_cfg {
	enum pmu_kind kind;
	unsigned version;		/* Intel architectural version */
	unsigned n_gp, gp_width;
	uint32_t fixed_mask;		/* fixed counters present (Intel v2+) */
	unsigned fixed_width;
	bool any_thread;		/* AnyThread bits writable (v3+, not deprecated) */
	bool full_width;		/* IA32_A_PMCx present */
	bool amd_event_hi;		/* AMD PERF_CTL[35:32] writable (Family 10h on, not K8) */
	bool perf_caps;			/* IA32_PERF_CAPABILITIES readable */
	uint64_t perf_caps_value;
	bool offcore;			/* OFFCORE_RSP_0/1 (1A6H/1A7H) present (Intel v3 on) */
	uint8_t arch_len;		/* CPUID.0AH EAX[31:24] */
	uint32_t arch_absent;		/* CPUID.0AH EBX */
	const struct event_set *events;	/* the CPU's event set: its counter restrictions; NULL = none */
	/* The machine around the PMU (pmu_model_cfg_machine): registers that say how the clock ran. */
	bool amd;			/* vendor AMD/Hygon: which event codes mean cycles and SMIs */
	bool aperf_mperf;		/* IA32_MPERF/IA32_APERF (CPUID.06H:ECX[0]) */
	bool smi_count;			/* MSR_SMI_COUNT (Intel, Nehalem and later) */
	bool therm;			/* IA32_THERM_STATUS (CPUID.01H:EDX[22], ACPI) */
	bool perf_metrics;		/* IA32_PERF_METRICS (PERF_CAPABILITIES bit 15) */
	uint32_t core_per_tsc_milli;	/* core clocks per TSC tick, thousandths; 0: no machine modelled, the
					 * clocks' events count at the workload's rate like any other */
	/* The clocks the reference events count (pmu_model_cfg_machine, from CPUID 15H/16H and the brand
	 * string): what each event counts comes from the vendors' descriptions (pmu/count/pmu_oracle.h),
	 * so 3CH/01H is REF_TSC on one core, REF_XCLK at the crystal clock or 100 MHz on another, REF_P at
	 * 133 MHz or bus cycles on older ones.  tsc_hz 0: every reference event at the TSC's rate. */
	uint64_t tsc_hz, crystal_hz, bus_hz;
};

/* Events a counter sees per unit of pmu_model_run(): the fake CPU's "workload".  The clocks (core,
 * reference, bus) and SMIs are the machine's and never asked for where the oracle knows the event. */
typedef uint64_t (*pmu_model_rate_fn)(void *ctx, uint16_t event, uint8_t umask);

struct pmu_model {
	struct pmu_model_cfg cfg;
	uint64_t sel[PMU_MODEL_MAX_GP], ctr[PMU_MODEL_MAX_GP];
	uint64_t fixed_ctr[PMU_MODEL_MAX_FIXED], fixed_ctrl;
	uint64_t global_ctrl, global_status;
	uint64_t offcore_rsp[2];
	pmu_model_rate_fn rate;		/* NULL: one event per unit on every counter */
	void *rate_ctx;
	/* The machine around it. */
	uint64_t tsc, aperf, mperf, smi_count, therm_status, perf_metrics;
	uint64_t td_slots, td_part[8];	/* top-down slots since PERF_METRICS was written, and their split */
	uint64_t runs;			/* pmu_model_run calls so far */
	struct pmu_model_faults faults;
	/* The performance-monitoring interrupt as the local APIC would deliver it (NMI): NULL = not routed. */
	void (*pmi)(void *ctx);
	void *pmi_ctx;
	uint32_t pmis;			/* interrupts delivered */
};

/* What hardware matches these capabilities (what a CPUID dump describes). */
void pmu_model_cfg_from_caps(struct pmu_model_cfg *cfg, const struct cpu_info *ci, const struct pmu_caps *caps);
/* The machine registers a CPUID dump describes (APERF/MPERF, SMI count, thermal status, PERF_METRICS). */
void pmu_model_cfg_machine(struct pmu_model_cfg *cfg, const struct cpu_info *ci, const struct pmu_caps *caps);
/* Power-on state (faults, rate and PMI routing are kept). */
void pmu_model_reset(struct pmu_model *m, const struct pmu_model_cfg *cfg);
/* Parse one --inject word ("stuck:2", "no-pmi", ...) into f; false with the reason in why. */
bool pmu_model_fault_parse(const char *word, struct pmu_model_faults *f, char *why, size_t why_cap);

/*
 * An MSR access.  Returns false when the MSR is outside the PMU address
 * ranges the model answers for (the caller's plain MSR store handles it);
 * otherwise *result is HW_OK or HW_FAULT_GP.
 */
bool pmu_model_rdmsr(struct pmu_model *m, uint32_t msr, uint64_t *val, int *result);
bool pmu_model_wrmsr(struct pmu_model *m, uint32_t msr, uint64_t val, int *result);

/* The same as platform/hw.h results (HW_OK, or the fault): what the model does not answer faults as an
 * absent MSR would.  For a host's MSR source over a model (pmuboot-host program and audit). */
int pmu_model_msr_read(void *model, uint32_t msr, uint64_t *val);
int pmu_model_msr_write(void *model, uint32_t msr, uint64_t val);

/* Set a register's state directly (read-only ones too), as firmware or an earlier
 * user left it; false when the MSR is not a modelled, present one. */
bool pmu_model_poke(struct pmu_model *m, uint32_t msr, uint64_t val);

/*
 * Let `units` of work pass: every counting counter advances by units * rate;
 * the core clock (APERF) by the cycles event's rate, the TSC and MPERF by that
 * over core_per_tsc_milli; a counter with its interrupt bit set that wraps
 * raises the PMI.  Faults apply.
 */
void pmu_model_run(struct pmu_model *m, uint64_t units);
/* Whether general counter c / fixed counter f is counting now. */
bool pmu_model_gp_counting(const struct pmu_model *m, unsigned c);
bool pmu_model_fixed_counting(const struct pmu_model *m, unsigned f);

/* Intel's pseudo-encoding of fixed counter f for the rate function: event 0x00, umask f+1. */
#define PMU_MODEL_FIXED_EVENT 0x00

#endif
