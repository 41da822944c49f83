/* net/retry.c - see retry.h. */
#include "net/retry.h"

#define WAIT_SHIFT_MAX 31	/* no shift past the width of the wait */

uint32_t retry_wait_ms(const struct retry_policy *p, unsigned attempts_done)
{
	unsigned shift = attempts_done ? attempts_done - 1 : 0;
	uint64_t w = p->first_wait_ms;
	if (shift > WAIT_SHIFT_MAX)
		shift = WAIT_SHIFT_MAX;
	w <<= shift;
	return w > p->max_wait_ms ? p->max_wait_ms : (uint32_t)w;
}

int64_t retry_next(const struct retry_policy *p, unsigned attempts_done, uint64_t elapsed_ms, uint64_t *attempt_ms)
{
	*attempt_ms = 0;
	if (attempts_done >= p->max_attempts || elapsed_ms >= p->budget_ms)
		return RETRY_STOP;
	uint64_t wait = retry_wait_ms(p, attempts_done);
	uint64_t left = p->budget_ms - elapsed_ms;
	if (wait >= left || left - wait < p->min_attempt_ms)
		return RETRY_STOP;
	*attempt_ms = left - wait;
	return (int64_t)wait;
}
