/*
 * bench/instr_record.h - the `instr` record of one instruction form and its readable line (issue 31;
 * docs/results-format.md "instr"), written by one function for pmuboot-host and the image alike.
 *
 * A form is described as the kernel pack gives it (instr/pack.h: pmuboot-host converts its plans the same
 * way), and what became of each of its measurements is a struct instr_result (bench/instr_run.h fills it).
 */
#ifndef PMUBOOT_BENCH_INSTR_RECORD_H
#define PMUBOOT_BENCH_INSTR_RECORD_H

#include "bench/instr_events.h"
#include "instr/pack.h"
#include "platform/guard.h"

#define INSTR_WHY_MAX 200

/*
 * A figure is thin when the drop budget ran out before it had the samples asked for (`asked`,
 * bench_setup.reps): unstable "budget", or "contended" when it was taken without the probe.  Beside a
 * sibling busy for 85-94% of the samples such figures were the table's least repeatable: 18% of a full
 * table's figures held a single sample, and one sample's conversion can be 8-15% off (FSUB m32's latency
 * 2.75 where its other figures read 3.01); two tables agreed on 64.7% of the figures where either held a
 * single sample.  With only those of one or two samples measured again, two tables still agreed on only
 * 82.6% of the figures both marked "budget", and on 86.9% where one was and the other was quiet, against
 * 100% for two quiet ones and 93.5% for two taken beside another thread.  pmuboot-host measures a form
 * with a thin figure again in a later pass (bench/instr_passes.h), and a thin connector is not kept for
 * the run's later forms.
 */
bool instr_figure_thin(const struct bench_figure *fig, uint32_t asked);

/* What became of one measurement. */
struct instr_result {
	bool assembled, measured, faulted;
	bool unkept;		      /* run, but every sample thrown away (or its connector's): a moment's */
	char why[INSTR_WHY_MAX];      /* not assembled / not measured: why */
	struct hw_guard_result guard; /* the fault */
	int64_t per_instance;	      /* cycles per instance, thousandths, connectors subtracted */
	int64_t lo, hi;		      /* the samples' range, per instance */
	const char *unstable;	      /* the figure's unstable reason, or NULL */
	bool thin;		      /* the figure is thin (instr_figure_thin) */
	struct instr_uops uops;	      /* the µop events counted on it (the unrolled throughput kernel) */
	const uint8_t *init, *body;   /* pmuboot-host: the assembled bytes (inside the batch's object) */
	size_t init_len, body_len;
};

/* How the figures were taken, for every record of a run. */
struct instr_record_ctx {
	bool emulated;			   /* under an emulator: figures are the emulator's time */
	int64_t core_per_tsc_ppm;	   /* the harness's calibration in force (0: none, cycles are TSC ticks) */
	const char *watchdog;		   /* what stops a kernel that does not finish, or NULL */
	unsigned trial_bound_ms;	   /* its bound */
	const struct instr_events *events; /* the µop events the run counts (NULL: none, no counters) */
};

/* Emit form f's record (res[j]: its measurement j) and its line; true when it got at least one figure. */
bool instr_record_emit(const struct instr_pack_form *f, const struct instr_result *res,
		       const struct instr_record_ctx *c, int64_t seconds_milli);

#endif
