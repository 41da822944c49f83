/*
 * pmu/freq/freq.h - a pinned clock: the freq= and boost= options.
 *
 * freq_pin decides, from CPUID and MSRs it only reads, which frequency
 * control this processor has, and asks it for one level:
 *
 *   hwp         Intel HWP enabled by firmware (IA32_PM_ENABLE[0], write-once,
 *               never written here): IA32_HWP_REQUEST min = max = desired;
 *   perf_ctl    Intel without HWP: IA32_PERF_CTL's target ratio, turbo off or
 *               on for this logical processor through its bit 32;
 *   amd_cppc    AMD CPPC enabled by firmware (write-once, never enabled here):
 *               the CPPC request's max = min = desired;
 *   amd_pstate  AMD without CPPC: P-state control; boost through HWCR[25].
 *
 * Every MSR it writes is saved first, read back after the write, and put
 * back exactly by freq_restore (a `restore` record, "what":"clock"), at the
 * end of each measuring pass and on the fault path.  Its save list is its
 * own, not pmu/count's msr_save: counting's init restores what that list
 * holds, and the clock is pinned before counting starts.
 *
 * freq_prove then measures the frequency the core runs at, from APERF and
 * MPERF over a short spin with interrupts off, and compares it with the
 * level asked for.  The outcome goes into every later `timing` record
 * (freq_fields, through timing_set_fields) and a readable `clock:` line.
 *
 * Nothing is written when nothing is asked (freq=keep boost=keep), on
 * pmuboot-host (Linux's cpufreq driver owns these MSRs), under an emulator,
 * or where no control is found; the record says why and the run goes on.
 */
#ifndef PMUBOOT_PMU_FREQ_FREQ_H
#define PMUBOOT_PMU_FREQ_FREQ_H

#include "lib/libc.h"
#include "lib/record.h"
#include "cpu/cpu.h"

enum freq_ask { FREQ_ASK_KEEP, FREQ_ASK_BASE, FREQ_ASK_MAX, FREQ_ASK_MHZ };
enum freq_boost { FREQ_BOOST_KEEP, FREQ_BOOST_ON, FREQ_BOOST_OFF };

struct freq_opts {
	enum freq_ask ask;
	uint32_t mhz;			/* FREQ_ASK_MHZ: the highest level at or below it is chosen */
	enum freq_boost boost;
	const char *not_here;		/* set: nothing is written, and this is why */
};

/* The measured frequency "held" when it is within this many thousandths of the level asked for. */
#define FREQ_HELD_MILLI 10u

/* What the last freq_pin / freq_skip and freq_prove did on this processor. */
struct freq_result {
	bool set;			/* freq_pin or freq_skip has run */
	char option[16];		/* freq= as given: keep, base, max or the MHz */
	const char *boost_asked;	/* keep, on, off */
	uint32_t asked_mhz;		/* the level chosen; 0: none (keep, or nothing pinned) */
	const char *control;		/* hwp, perf_ctl, amd_cppc, amd_pstate; NULL: none was used */
	bool pinned;			/* the level was written and read back */
	bool wrote;			/* any MSR was written (the level or the boost switch) */
	char why[320];			/* when nothing was pinned: why */
	char chosen[360];		/* how the level was found and chosen */
	char boost_done[160];		/* what was done about boost */
	bool judged;			/* asked_mhz is a frequency the core should hold */
	bool measured;
	uint32_t measured_mhz;
	char measured_why[160];		/* when not measured: why */
	bool held;			/* measured within FREQ_HELD_MILLI of asked_mhz (judged only) */
	unsigned samples;		/* spins taken until two agreed */
	uint32_t mperf_per_tsc_milli;	/* MPERF ticks per TSC tick over the spin, thousandths */
};

/*
 * Pin this processor's clock as o asks (ci: this processor's identification).
 * Registers freq_fields with the `timing` record.  Writes nothing when o asks
 * nothing, o->not_here is set, the CPU is emulated or no control exists.
 */
void freq_pin(const struct cpu_info *ci, const struct freq_opts *o);
/*
 * ACPI _CPC's LowestFrequency and NominalFrequency in MHz (0: not known, as
 * at start): the frequencies of AMD's CPPC lowest and nominal levels, for
 * every later freq_pin.  No register holds them and the image interprets no
 * AML, so nothing in the image calls this today; without them the CPPC
 * levels below nominal are not offered (pmu/freq/freq_amd.c says why).
 */
void freq_set_cpc_mhz(uint32_t lowest_mhz, uint32_t nominal_mhz);
/* Nothing is pinned on this processor now (why: e.g. it is pinned in another processor's pass). */
void freq_skip(const struct freq_opts *o, const char *why);
/*
 * Measure the clock the pin produced (APERF/MPERF against the TSC at tsc_hz),
 * compare it with the level asked for, and say it in a `clock:` line.
 * Nothing is measured when nothing was written.
 */
void freq_prove(uint64_t tsc_hz);
/* Every clock MSR written, back as found, read back to check: a `restore` record ("what":"clock"). */
void freq_restore(void);
/* The processor that holds the writes is gone (a pass that timed out): drop them, say so. */
void freq_forget(void);
/* The `timing` record's fields: freq_option, freq_asked, freq_control, freq_why, ..., boost. */
void freq_fields(struct rec *r);
const struct freq_result *freq_result(void);

#endif
