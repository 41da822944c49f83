/* tests/fake/measure_fake.c - see measure_fake.h. */
#include "tests/fake/measure_fake.h"
#include "tests/fake/hw_fake.h"
#include "platform/calib.h"
#include "platform/hw.h"

/* Thousandths of a cycle per cycle: bench_def.chain_min's unit. */
#define MILLI 1000u

static struct {
	unsigned runs;
	fake_measure_extra_fn extra;
} m;

void fake_measure_reset(void)
{
	m.runs = 0;
	m.extra = NULL;
}

void fake_measure_extra(fake_measure_extra_fn fn) { m.extra = fn; }
unsigned fake_measure_runs(void) { return m.runs; }

/* Ticks per trip of a kernel of bench/kernels.c: its chain, at least a tick, per iteration. */
static uint64_t table_trip(bench_kernel_fn fn)
{
	for (size_t i = 0; i < bench_def_count(); i++) {
		const struct bench_def *d = bench_def_at(i);
		if (d->fn != fn)
			continue;
		uint64_t per_iter = d->chain_min > 0 ? ((uint64_t)d->chain_min + MILLI - 1) / MILLI : 1;
		return per_iter * (d->unroll ? d->unroll : BENCH_UNROLL);
	}
	return BENCH_UNROLL;
}

uint64_t fake_measure_ticks(const struct bench_call *c)
{
	uint64_t trip = c->kernel == (bench_kernel_fn)(void (*)(void))calib_add_chain	  ? CALIB_ADDS_PER_ITER
			: c->kernel == (bench_kernel_fn)(void (*)(void))calib_add_block ? CALIB_ADDS_PER_ITER / FAKE_ADDS_PER_TICK
											  : table_trip(c->kernel);
	return FAKE_MEASURE_OVERHEAD + c->trips * trip;
}

/* The start or stop list, as bench/measure.asm's TOGGLES writes it (unguarded). */
static void toggles(const struct count_toggle *t)
{
	for (uint32_t i = 0; t && i < t->n && i < COUNT_TOGGLE_MAX; i++)
		hw_wrmsr(t->w[i].msr, t->w[i].value);
}

static uint64_t cycles_msr(uint32_t msr)
{
	uint64_t v = 0;
	if (msr)
		hw_rdmsr(msr, &v);
	return v;
}

void bench_measure(struct bench_call *c)
{
	unsigned run = ++m.runs;

	toggles(c->start);
	c->tsc_start = hw_tsc();
	c->cyc_start = cycles_msr(c->cycles_msr);
	c->kernel(c->trips, c->p, c->q);
	uint64_t ticks = fake_measure_ticks(c) + (m.extra ? m.extra(run, c) : 0);
	fake_tsc_advance(ticks);
	c->cyc_end = cycles_msr(c->cycles_msr);
	c->tsc_end = hw_tsc();
	toggles(c->stop);
}
