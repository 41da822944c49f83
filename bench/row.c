/* bench/row.c - measuring one row of a source and emitting its records; see stage_int.h. */
#include "bench/stage_int.h"
#include "platform/hw.h"
#include "platform/vec.h"
#include "lib/strbuf.h"
#include "lib/x86/cpuid.h"

/*
 * A variant whose body executes vector instructions the run cannot use here
 * (platform/vec.h: CPUID and XCR0) is not run: it would raise #UD.  Its
 * `check` says skip and why, and the stage goes on.
 */
static bool runnable(struct stage *st, const struct bench_def *d, const char *arena)
{
	uint32_t needs = d->needs, have = needs ? vec_extensions() : 0, missing = needs & ~have;
	struct hw_vector_state vs;
	char why[200], names[48];
	size_t k = 0;

	if (!missing)
		return true;
	names[0] = 0;
	for (unsigned i = 0; vec_ext_name(i); i++)
		if (missing & (1u << i))
			k = str_appendf(names, sizeof(names), k, "%s%s", k ? ", " : "", vec_ext_name(i));
	hw_vector_state(&vs);
	/* Which it is, said plainly: the processor lacks it, or has it with its register state off. */
	struct cpuid_regs l0, l1, l7 = { 0, 0, 0, 0 };
	hw_cpuid(CPUID_LEAF_VENDOR, 0, &l0);
	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &l1);
	if (l0.eax >= CPUID_LEAF_EXT_FEATURES)
		hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &l7);
	uint32_t in_cpuid = vec_extensions_of(~0ull, l1.ecx | CPUID1_ECX_OSXSAVE, l7.ebx);
	if (missing & ~in_cpuid)
		snprintf(why, sizeof(why), "needs %s, not usable here: this processor does not have %s (CPUID)", names,
			 (missing & (missing - 1)) ? "them" : "it");
	else if (vs.known)
		snprintf(why, sizeof(why), "needs %s, not usable here: the processor has it, but XCR0 0x%llx does not "
			 "enable its registers (%s)", names, (unsigned long long)vs.xcr0, vs.who);
	else
		snprintf(why, sizeof(why), "needs %s, not usable here: XCR0 cannot be read (%s)", names, vs.who);
	struct check_input in = { .r = &st->rec, .d = d, .arena = arena };
	bench_check_skipped(&in, why, &st->tally);
	return false;
}

void stage_run_row(struct stage *st, const struct bench_row *row)
{
	const struct bench_def *d = row->d;
	const struct slot *sl = row->sl;
	uint8_t *window = sl ? sl->window : st->scratch;
	struct count_set *csp = NULL;
	struct bench_figures *f = st->figs;
	uint32_t iterations = st->hs.iterations;
	bool measured = false;

	if (!runnable(st, d, sl ? sl->name : NULL))
		goto done;
	if (row->iterations)
		st->hs.iterations = row->iterations;
	if (st->hs.cb) {
		stage_build_set(st, st->cs, stage_roles_for(st, d));
		if (st->cs->n)
			csp = st->cs;
	}
	/* A table kernel lives in the core: its runs are held tightly (bench/harness.h tight_runs); the
	 * ladder's memory-bound runs are not. */
	st->hs.tight_runs = d->ladder == BENCH_LADDER_NONE;
	bool got = bench_measure_variant(&st->hs, d, window, csp, f);
	st->hs.tight_runs = false;
	if (!got) {
		rec_error("bench", d->kernel, "%s.%s not measured: %s", d->kernel, d->variant, f->problem);
		goto done;
	}
	measured = true;
	/* Names that outlive the count set, which is rebuilt for the next row. */
	for (size_t i = 0; i < f->nev; i++)
		f->ev[i].name = stage_static_name(st, &st->cs->ev[i]);
	stage_apply_audit(st, csp, f);
	stage_emit_bench(st, row, f);
	stage_metrics_row(st, d, sl, window, f);
	if (row->checked) {
		struct check_input in = {
			.r = &st->rec,
			.d = d,
			.arena = sl ? sl->name : NULL,
			.variant = f,
			.control = row->ctl,
			.counting = csp != NULL && f->nev > 0,
			.set = st->set,
			.emulator = st->emulator,
		};
		struct check_tally checks = { 0, 0, 0, 0 };
		bench_checks(&in, &checks);
		st->tally.pass += checks.pass;
		st->tally.fail += checks.fail;
		st->tally.skip += checks.skip;
		st->tally.unstable += checks.unstable;
	}
	if (st->p->nobservers)
		bench_observe(&st->hs, d, window, sl ? sl->page : 0, st->p->observers, st->p->nobservers);
done:
	st->hs.iterations = iterations;
	if (row->src && row->src->done)
		row->src->done(st, row, measured);
}
