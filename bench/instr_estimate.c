/* bench/instr_estimate.c - the instr= run's time, before and during; see instr_estimate.h. */
#include "bench/instr_estimate.h"

#define MS_PER_S 1000u
#define MS_PER_MIN 60000u
#define PPM 1000000u

void instr_estimate_before(const struct bench_setup *hs, uint64_t tsc_hz, uint64_t measurements,
			   struct instr_estimate *e)
{
	uint64_t run = 0;

	e->ms = 0;
	e->at_least = !hs->target_ticks;
	if (!tsc_hz)
		return;
	if (e->at_least) {
		/* An instance is at least one instruction, and an add is among the quickest an emulator runs. */
		if (hs->clock.ppm <= 0)
			return;
		run = (uint64_t)hs->iterations * PPM / (uint64_t)hs->clock.ppm;
	}
	uint64_t ticks = bench_variant_ticks(hs, run);
	uint64_t per_ms = tsc_hz / MS_PER_S;
	e->ms = per_ms ? (ticks * measurements + per_ms - 1) / per_ms : 0;
}

uint64_t instr_estimate_left_ms(uint64_t spent_ms, uint64_t done, uint64_t total)
{
	return done && total > done ? spent_ms * (total - done) / done : 0;
}

uint64_t instr_estimate_per_minute(uint64_t spent_ms, uint64_t forms)
{
	return spent_ms ? forms * MS_PER_MIN / spent_ms : 0;
}
