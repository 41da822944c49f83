/*
 * pmu/audit/audit.h - the self-audit: known-answer checks of the counters,
 * on each measured processor, before anything is measured with them.
 *
 * A loop whose every trip retires a known number of instructions, branches,
 * conditional branches and SSE instructions (pmu/audit/audit_loop.asm) is
 * run at two lengths inside the interrupts-off window, counted by the same
 * driver that counts the benchmarks (pmu/count/count.h).  Everything the
 * two runs share (the start and stop writes, the call, the timer reads)
 * cancels in the difference, so the difference must be exactly what the
 * extra trips retire: not about, exactly.  The checks (docs/audit.md):
 *
 *   instructions    instructions retired on every general counter and fixed
 *                   counter 0; on AMD also the SSE instructions event, whose
 *                   unit mask selects the class (a PMU that ignores unit
 *                   masks fails it)
 *   branches        branches retired on every general counter; on Intel also
 *                   the conditional-branch event (a unit mask again)
 *   counters-agree  the cycles event on every general counter at once: the
 *                   counts agree with each other (and are not all 0)
 *   fixed           each fixed counter against a reference of its clock: a
 *                   general counter with its event, the TSC for REF_TSC where
 *                   no general event counts it, a bound for an event the loop
 *                   barely moves (E-core bad speculation)
 *   full-width      a value above bit 31 written and read back, counting across
 *                   bit 31 (or the 32-bit sign-extension rule where there is no
 *                   full-width alias)
 *   overflow        a counter preloaded to -K overflows: status bit set, exactly
 *                   one PMI as an NMI through the local APIC, status cleared after
 *   topdown         PERF_METRICS' level-1 fractions sum to 255, level-2 bytes
 *                   within their parents, TOPDOWN.SLOTS on fixed counter 3
 *                   agrees with a general counter
 *   clock           unhalted cycles, APERF and the TSC agree over a timed spin,
 *                   and the effective frequency holds from one spin to the next
 *
 * Each writes an `audit` record and a line.  A check the hardware cannot do
 * is `absent` with the reason, never `pass`; 0 against 0 is never a pass.  A failed check names the
 * counter; the verdict tells the benchmarks which figures it invalidates.
 */
#ifndef PMUBOOT_PMU_AUDIT_AUDIT_H
#define PMUBOOT_PMU_AUDIT_AUDIT_H

#include "pmu/caps/pmu_caps.h"
#include "pmu/count/count.h"
#include "cpu/cpu.h"
#include "pmu/audit/ledger.h"

/* What one trip of the known-answer loop retires (pmu/audit/audit_loop.asm, which says why). */
#define AUDIT_LOOP_INSNS 4
#define AUDIT_LOOP_BRANCHES 2
#define AUDIT_LOOP_COND_BRANCHES 1
#define AUDIT_LOOP_SSE 1

enum audit_status { AUDIT_PASS, AUDIT_FAIL, AUDIT_ABSENT };
/* "pass", "fail", "absent". */
const char *audit_status_name(enum audit_status s);

/*
 * How the loop is run between the counters' start and stop writes.  The
 * platform chooses (the image: audit_runner_ring0; pmuboot-host on a real
 * CPU: audit_runner_process; against a model: audit_model_runner).
 */
struct audit_runner {
	const char *what;		/* for records: "ring 0", "process", "model" */
	enum count_priv priv;		/* the privilege levels the counts may include */
	/* Run `trips` trips between start and stop (either may be NULL); the TSC ticks around the loop. */
	uint64_t (*run)(void *ctx, uint64_t trips, const struct count_toggle *start, const struct count_toggle *stop);
	void *ctx;
};
/* WRMSR right around the loop, in NASM: only where the code runs at ring 0 (the image). */
extern const struct audit_runner audit_runner_ring0;
/* The writes through hw_wrmsr (a process reaching /dev/cpu/N/msr); user-mode counts only. */
extern const struct audit_runner audit_runner_process;

/* What the checks found, for the figures measured after them on this processor. */
struct audit_verdict {
	bool ran;			/* the stage ran here */
	unsigned passed, failed, absent;
	uint32_t bad_gp, bad_fixed;	/* counters a failed check named */
	bool umask_bad;			/* unit masks are not applied: every event with one is suspect */
	bool clock_bad;			/* the cycles clock disagreed or moved: no cycles figure holds */
	char why[160];			/* the first counter or unit-mask failure, in words */
	char clock_why[160];		/* the clock check's failure */
};

struct audit_params {
	const struct cpu_info *ci;
	const struct pmu_caps *caps;
	const struct audit_runner *runner;	/* NULL: the stage says every check is absent */
	const char *runner_why;			/* why there is no runner, when there is none */
	uint64_t tsc_hz;			/* the TSC's frequency, 0 when unknown (then no MHz) */
	struct ledger *ledger;			/* the processor's quiet-machine ledger; NULL: the audit makes one */
};

/*
 * Run every check here, writing `audit` records and lines, and fill v.
 * Counting must have been initialised (count_init) on this processor; the
 * stage restores nothing itself: every write goes through msr_save, and
 * the run's restore puts it back.  A failed check also counts as a run
 * error (the `end` record's status).
 */
void audit_run(const struct audit_params *p, struct audit_verdict *v);

/*
 * Whether a figure counted on general counter idx (fixed false) or fixed
 * counter idx, with unit mask umask, may be printed after v; when not, why
 * says so ("audit: instructions failed on pmc2").
 */
bool audit_counter_ok(const struct audit_verdict *v, bool fixed, unsigned idx, uint8_t umask, const char **why);
/* Whether a cycles figure may be printed (the clock check did not fail); why when not. */
bool audit_clock_ok(const struct audit_verdict *v, const char **why);

#endif
