/*
 * bench/harness.h - measuring one benchmark variant, into one struct of
 * figures (struct bench_figures) that the record writer, the checks and the
 * on-screen summary all read.
 *
 * A sample is one pass through the interrupts-off window (platform/hw.h) in
 * which the kernel runs `iterations` times and then 2 x `iterations` times
 * (bench/measure.asm around each run: counter start list, TSC, kernel,
 * TSC, stop list).  The sample's value is the difference of the two runs
 * divided by `iterations`, so every cost the runs share - call, set-up,
 * timer reads, counter toggles - cancels ("differential_n_2n").  A sample
 * whose window the quiet-machine ledger (pmu/audit/ledger.h) found
 * disturbed - an SMI, an NMI (on the host: a context switch or interrupt),
 * the clock moving, a thermal or power-limit log - or whose values are
 * impossible (bench/stats.h stats_fate) is thrown away and re-taken, within
 * a budget, and counted by cause.  After `warmup` unmeasured samples, `reps`
 * kept samples give each figure (bench/stats.h struct bench_figure); with
 * more events than counters, the whole thing is repeated per counter pass.
 */
#ifndef PMUBOOT_BENCH_HARNESS_H
#define PMUBOOT_BENCH_HARNESS_H

#include "pmu/audit/ledger.h"
#include "pmu/count/count.h"
#include "bench/kernels.h"
#include "bench/observer.h"
#include "bench/stats.h"

/* One run of a kernel; the layout is read by bench/measure.asm. */
struct bench_call {
	bench_kernel_fn kernel;
	uint64_t trips;
	uint8_t *p, *q;
	const struct count_toggle *start, *stop;	/* NULL: no MSR writes */
	uint64_t tsc_start, tsc_end;			/* out */
	uint32_t cycles_msr;				/* read around the kernel (IA32_APERF), 0: none */
	uint32_t reserved;
	uint64_t cyc_start, cyc_end;			/* out */
};
void bench_measure(struct bench_call *c);
extern const uint8_t bench_measure_end[];

#define BENCH_METHOD "differential_n_2n"

/* Where a variant's cycles came from, best first; named only in records (bench_cycles_source_name). */
enum bench_cycles_source {
	BENCH_CYCLES_TSC,		/* raw TSC ticks: no calibration */
	BENCH_CYCLES_TSC_CALIBRATED,	/* TSC ticks x calibration.ppm */
	BENCH_CYCLES_APERF,		/* IA32_APERF read around each run */
	BENCH_CYCLES_PMC,		/* a cycles event on a general counter */
	BENCH_CYCLES_FIXED,		/* a cycles event on a fixed counter */
};
const char *bench_cycles_source_name(enum bench_cycles_source s);

/* Where a TSC-to-core-cycles calibration came from. */
enum bench_calib_source {
	BENCH_CALIB_NONE,
	BENCH_CALIB_HARNESS,	/* the harness's own add chain (platform/calib.asm), right around the variant */
	BENCH_CALIB_TIMING,	/* platform/timing's once-per-run figure (when the harness's failed) */
};
/* "harness_add_chain", "timing", or NULL for none. */
const char *bench_calib_source_name(enum bench_calib_source s);

struct bench_calibration {
	enum bench_calib_source source;
	int64_t ppm;		/* core cycles per TSC tick, millionths; 0: none */
	int64_t spread_milli;	/* (max - min) / median of the calibration's samples */
	int64_t before, after;	/* the calibrations right before and after the variant (ppm; 0: none) */
	unsigned remeasured;	/* times the variant was measured again because the clock moved */
	/* Per sample (bench_setup.calib_per_sample): the add chain run inside each sample's window, ppm. */
	bool per_sample;
	struct bench_figure samples;	/* the kept samples' own calibrations, ppm */
};

/*
 * Adaptive iterations (docs/benchmarks.md): each sample's N run spans at
 * least BENCH_TARGET_TICKS TSC ticks, so the timer's granularity and jitter
 * (tens of ticks) stay below 0.2% of every figure whatever the kernel's speed;
 * within BENCH_VARIANT_BUDGET_MS of samples per variant; never more than
 * BENCH_ITERATIONS_MAX.  The iterations option is the floor.
 */
#define BENCH_TARGET_TICKS 20000u
#define BENCH_VARIANT_BUDGET_MS 250u
#define BENCH_ITERATIONS_MAX (1u << 24)
/* The calibration's add chain: adds per N run of the bracket around each variant (~50k ticks). */
#define BENCH_CALIB_ADDS (1u << 16)
/*
 * The calibration inside each sample (bench_setup.calib_per_sample): adds of its N run, half the
 * bracket's.  It was three times the cost of the kernel's runs it surrounds (an N run of the target,
 * 20,000 ticks, beside 3 x 65,536 adds); at 32,768 adds its N run is still about 24,000 ticks on a
 * modern core, a tick in 0.004%, well inside the 0.1% the clock rule resolves.
 */
#define BENCH_SAMPLE_CALIB_ADDS (1u << 15)
/*
 * bench_setup.contended_patience_ticks of the table's variants: how long a variant keeps retaking samples
 * thrown away as contended once its drop budget has run out, in ms, and at most how many such samples (a
 * bound that holds should the TSC not move).  An episode of another thread on the core lasts far longer than
 * the budget's retakes (a few milliseconds): on the development host whole `make bench` takes lost every
 * sample of the split and alias variants, which a quiet moment a few tens of milliseconds later would have
 * given.
 */
#define BENCH_CONTENDED_PATIENCE_MS 200u
#define BENCH_CONTENDED_PATIENCE_SAMPLES 65536u
/* bench_setup.clock_reuse_ticks of the instruction table: a calibration at most every this many ms. */
#define BENCH_CLOCK_REUSE_MS 100u

/*
 * The contention probe (bench_setup.contention): with the per-sample calibration, each sample also runs
 * platform/calib.asm's independent-add block (BENCH_PROBE_ADDS adds, half with a load) right before and right after the
 * kernel's runs, converted to cycles with the sample's own calibration.  The dependent chain runs at one add
 * a cycle whoever shares the core; the block runs as wide as the core's ports, and slows when another thread
 * on the core (an SMT sibling: under a hypervisor another tenant's, or the VM's own other vCPU) takes them.
 * A sample whose slower probe is more than BENCH_PROBE_TOLERANCE_PERMILLE above the probe's reference
 * (below) is thrown away as contended (STATS_REJECT_CONTENDED) and taken again, like a disturbed one: the
 * kernel beside it shared the core too.  Seen on the shared development host (Raptor Cove, KVM): in
 * episodes whole instruction forms measured 30-60% slow (XOR r64, r64 throughput 0.32 cycles, not 0.20)
 * while the dependent chain's calibration held.  The tolerance is what separates the quiet probe from a
 * shared one: 20 s of probes there, converted as the harness does, put 36.5% of them at 0.2175-0.2200
 * cycles an add (the quiet core, within 1.2%) and the rest in a broad hump from 0.225 to 0.40 and beyond
 * (another thread).  At 25% a light share passed: runs whose probes read 0.239 gave memory-operand
 * throughputs 13% and latencies 10% over the quiet runs', and two full tables 10-20% apart on a tenth of
 * their figures.  6% keeps the quiet peak and refuses the hump.
 */
#define BENCH_PROBE_ADDS (1u << 14)
#define BENCH_PROBE_TOLERANCE_PERMILLE 60
/* Over the reference by this much before the kernel's runs, a sample is cut short (harness.c sample()). */
#define BENCH_PROBE_CUT_PERMILLE 120
/*
 * The probe's reference is its BENCH_PROBE_LOW_RANK-th fastest run of the whole run, not its fastest: a
 * lone run that converts too low (its calibration a little off) would otherwise set a reference the
 * probe's usual runs miss by more than the tolerance (seen here: 0.5% of runs at 0.20-0.21 cycles an
 * add, the rest from 0.22 up).
 */
#define BENCH_PROBE_LOW_RANK 8
/* Probes in a row over the reference after which it is learned again, if they agree among themselves
 * (harness.c contention_stuck). */
#define BENCH_PROBE_RELEARN 256
struct bench_contention {
	int64_t low[BENCH_PROBE_LOW_RANK];	/* the fastest runs so far, cycles per 1000 adds, ascending */
	unsigned nlow;				/* of low[] filled */
	uint64_t probed;			/* samples probed */
	uint64_t contended;			/* of those, thrown away as contended */
	uint32_t over_in_a_row;			/* probes over the reference since the last one that was not */
	/* Those probes' fastest and slowest (ranks as low[]): whether they agree (harness.c contention_stuck). */
	int64_t streak_low[BENCH_PROBE_LOW_RANK], streak_high[BENCH_PROBE_LOW_RANK];
	unsigned streak_nlow, streak_nhigh;
	uint32_t relearned;			/* times the reference was learned again (BENCH_PROBE_RELEARN) */
	uint32_t episodes;			/* streaks of BENCH_PROBE_RELEARN that did not agree: kept the reference */
};
/* The probe's reference (cycles per 1000 adds): the BENCH_PROBE_LOW_RANK-th fastest run, or the slowest of
 * fewer; 0 before any. */
int64_t bench_contention_reference(const struct bench_contention *p);

/* One counted event's figure. */
struct bench_event_figure {
	const char *name;		/* set by the caller when the count set does not outlive the figures */
	uint32_t roles;			/* enum event_role bits of the event (0 for raw specs) */
	bool measured;
	struct bench_figure fig;	/* events per iteration, thousandths */
	const char *invalid;		/* why the audit refuses it (then measured is false), or NULL */
};

/*
 * Everything measured about one variant.  Figures are per iteration in
 * thousandths; each says how many samples it kept, how many of those are
 * outliers (outside min..max), how many were rejected, and whether it is
 * unstable (bench/stats.h).
 */
struct bench_figures {
	uint32_t iterations;		/* chosen for this variant (adaptive), else the setup's */
	uint32_t iterations_min;	/* the setup's (the floor) */
	bool iterations_capped;		/* the budget or BENCH_ITERATIONS_MAX, not the target, decided */
	bool iterations_window;		/* cut (below the floor if need be) to fit bench_setup.window_ticks_max */
	uint64_t pilot_ticks;		/* the last pilot's N run at the chosen count, TSC ticks (0: no pilot) */
	int64_t chain_slack;		/* the slack the chain floor was judged with, thousandths */
	uint32_t reps;			/* samples wanted per pass (reps, or fewer if storage ran short) */
	uint32_t dropped;		/* disturbed samples thrown away (each once), all passes */
	uint32_t disturbed[LEDGER_SOURCES];	/* disturbed samples by the source that saw it (one may count twice) */
	uint32_t retaken;		/* disturbed samples taken again (the others ended their pass's budget) */
	uint32_t contended;		/* samples thrown away because the contention probe slowed, all passes */
	char disturbance[96];		/* the first disturbed sample's verdict in words ("2 SMIs"), "" if none */
	unsigned smi_event_passes;	/* passes that counted the setup's smi_event beside the variant's events */
	char smi_event_missing[64];	/* why a pass had no SMI event ("no spare counter in pass 2"), "" if none */
	uint32_t rejected[STATS_FATES];	/* impossible samples thrown away, by fate, all passes */
	bool exhausted;			/* a pass ran out of budget with fewer samples than wanted */
	bool windowed;			/* every sample was inside an established interrupts-off window */
	unsigned passes;
	int32_t chain_min;		/* the kernel's dependency chain, cycles/iteration (0: none, or not checked) */
	struct bench_figure tsc;	/* TSC ticks per iteration (first pass) */
	struct bench_figure cycles;	/* core cycles per iteration, from cycles_source */
	enum bench_cycles_source cycles_source;
	struct bench_calibration calibration;	/* the one applied (BENCH_CYCLES_TSC_CALIBRATED), else source NONE */
	int instructions;		/* index into ev of the instructions event, -1 when none was counted */
	size_t nev;
	struct bench_event_figure ev[COUNT_MAX_EVENTS];	/* indexed like the count set's events */
	char problem[160];		/* counting trouble, "" when none */
	const char *cycles_invalid;	/* why the audit refuses the cycles figure (not printed), or NULL */
};

struct bench_setup {
	uint32_t iterations;		/* body copies per run (a multiple of BENCH_UNROLL) */
	uint32_t reps, warmup;
	uint32_t drop_budget;		/* samples thrown away at most, per pass */
	const struct count_backend *cb;	/* NULL: no counting */
	/*
	 * The quiet-machine ledger that judges every sample's window, rebased
	 * at each variant (NULL: the window's own SMI/NMI counts judge).  With
	 * smi_event (NULL: none), each pass of a counted variant that has a
	 * spare counter counts it too, and the ledger is given its count.
	 */
	struct ledger *ledger;
	const struct event_spec *smi_event;
	/*
	 * Hold the N and 2N runs tightly where the ticks alone make the cycles (stats_judge_runs_tight): for
	 * kernels that live in the core (the table's variants, bench/row.c; the instruction table's forms).
	 * Not for the memory ladder, whose memory-bound runs (L3 and DRAM bandwidth, the chase past the
	 * caches) vary by more than the rule's 1% between two runs of one sample: there it threw away every
	 * sample of bandwidth.write_l3.
	 */
	bool tight_runs;
	/* The contention probe's state for the run (struct bench_contention), or NULL: no probe.  Used only
	 * with the per-sample calibration (cycles from the TSC), and only with tight_runs: kernels that live
	 * in the core (make test's ladder points on a busy host lost every sample to it). */
	struct bench_contention *contention;
	uint32_t cycles_msr;		/* IA32_APERF when it may be read raw (image, checked), else 0 */
	bool emulated_time;		/* under an emulator (TCG): no chain floor, one calibration */
	uint64_t target_ticks;		/* adaptive iterations (bench_measure_variant): BENCH_TARGET_TICKS; 0: fixed */
	uint64_t budget_ticks;		/* TSC ticks of samples one variant may take (0: no budget) */
	/* TSC ticks one N run may span where the window cannot hold interrupts off (hw_platform's
	 * run_us_max; 0: no limit).  Adaptive iterations go below the floor to fit it: a run of the
	 * floor's length that the tick would nearly always spoil gives no figure at all. */
	uint64_t window_ticks_max;
	/*
	 * Set by bench_measure_variant when cycles come from the TSC: each sample
	 * runs the calibration's add chain in its own window (before and after
	 * the kernel's runs) and converts its ticks with that; a sample whose
	 * calibration moved inside its window by more than clock.spread_milli is
	 * rejected (STATS_REJECT_CLOCK).  The chain floor's slack follows from
	 * clock.spread_milli (bench/stats.h stats_chain_slack_permille).
	 */
	bool calib_per_sample;
	int64_t *pool;			/* sample storage */
	size_t pool_cap;		/* in samples */
	struct bench_calibration clock;	/* the calibration in force (bench_settle, bench_measure_variant) */
	uint64_t clock_at;		/* hw_tsc() when the harness took it (0: it did not) */
	/*
	 * How long, in TSC ticks, the harness's calibration in force stands as the next variant's
	 * calibration before it (0: each variant takes its own before and after it).  Only where every
	 * sample carries its own calibration, and then no calibration is taken after the variant: each
	 * sample's ticks convert with its own clock and are judged by it, and the reference is only the
	 * measure of how still a clock is (its spread) and of the probe.  The instruction table sets it
	 * (BENCH_CLOCK_REUSE_MS): there the bracket's 2 x 17 windows of add chain were three quarters of the
	 * windows of a form, where the forms' own samples were the rest.
	 */
	uint64_t clock_reuse_ticks;
	/*
	 * TSC ticks a variant keeps retaking contended samples after drop_budget has run out (0: not at all;
	 * BENCH_CONTENDED_PATIENCE_MS).  The stage sets it for the table's variants; the instruction table keeps
	 * it 0 and measures a form with a contended figure again in a later pass instead.
	 */
	uint64_t contended_patience_ticks;
	struct bench_calibration fallback;	/* platform/timing's, used when the harness's fails (ppm 0: none) */
	/*
	 * Tests only (NULL in the image and on the host): apply the counters'
	 * start/stop lists from C (count_toggle_apply) instead of in
	 * bench/measure.asm, and report each run's iterations to a modelled
	 * PMU (tests/fake/fake_pmu.h) between them, so the harness can be run
	 * against the real MSR backend without touching real MSRs.
	 */
	void (*model_work)(void *ctx, uint64_t iterations);
	void *model_ctx;
};

/*
 * Measure variant d once with p and q inside `window`, converting TSC
 * ticks with s->clock.  set (NULL when not counting) holds the events to
 * count; it is scheduled here.  Returns false only when nothing could be
 * attempted (no room for samples; problem says why).  When every sample was
 * thrown away the figures have n = 0 and are unstable ("budget").
 */
bool bench_run_variant(const struct bench_setup *s, const struct bench_def *d, uint8_t *window,
		       struct count_set *set, struct bench_figures *f);

/*
 * A variant whose kept samples ran at a clock other than the one measured right before it: more than
 * BENCH_CLOCK_AWAY_PERMILLE apart.  On the development host every built-in variant's samples ran within 0.3%
 * of it, and 512-bit user kernels' 7.5% below (the clock after such code; bench/harness.c sample()).  Each
 * sample's cycles are converted with its own clock, as always; the line says that this clock is the one
 * right after the kernel, which is the kernel's own only if the kernel did not move it.  Writes the note
 * into buf and returns true for such a figure; false (buf empty) otherwise or without per-sample clocks.
 */
#define BENCH_CLOCK_AWAY_PERMILLE 30
bool bench_clock_away(const struct bench_calibration *k, char *buf, size_t cap);

/* Disturbed samples by source, "smi_count 2, nmi 1" ("" when none), into buf. */
const char *bench_disturbed_by_source(const struct bench_figures *f, char *buf, size_t cap);

/*
 * Measure d as the stage does: when its cycles will come from the TSC, between
 * two calibrations (s->clock is updated; with clock_reuse_ticks a recent one
 * stands as the first and none follows), again when too few samples survived.
 */
bool bench_measure_variant(struct bench_setup *s, const struct bench_def *d, uint8_t *window,
			   struct count_set *set, struct bench_figures *f);

/*
 * TSC ticks bench_measure_variant is expected to take on one variant measured without counters, no sample
 * thrown away and the clock holding still: the last pilot round, the warm-up and kept samples, and where
 * cycles come from the TSC, the calibrations around the variant and inside each sample.  A sample's N run
 * is what adaptive iterations aim at (s->target_ticks, within s->budget_ticks), else run_ticks, the N run
 * at s->iterations as the caller knows it.  For a time estimate (bench/instr_estimate.h), never a limit.
 */
uint64_t bench_variant_ticks(const struct bench_setup *s, uint64_t run_ticks);

/*
 * TSC ticks to core cycles from platform/calib.asm's add chain (1 cycle per
 * add), or s->fallback when the TSC does not advance.  False with source
 * NONE when neither exists.
 */
bool bench_calibrate(const struct bench_setup *s, uint8_t *window, struct bench_calibration *out);

/* Calibrate into s->clock until two figures in a row agree (a core out of idle ramps up); returns the runs. */
unsigned bench_settle(struct bench_setup *s, uint8_t *window);

/* Run the observers over variant d, after it was measured. */
void bench_observe(const struct bench_setup *s, const struct bench_def *d, uint8_t *window, uint32_t arena_page,
		   const struct bench_observer *obs, size_t nobs);

#endif
