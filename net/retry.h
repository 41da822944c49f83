/*
 * net/retry.h - when to try again: bounded attempts with doubling waits
 * inside a time budget.
 *
 * The image's upload (boot/upload.c) asks before each further attempt how
 * long to wait, given the time already spent; the answer is "stop" once
 * the attempts are used up or the next one could not finish within the
 * budget, so a collector that is down never holds the run past its bound.
 * Pure arithmetic: the unit tests walk the schedule.
 */
#ifndef PMUBOOT_NET_RETRY_H
#define PMUBOOT_NET_RETRY_H

#include "lib/libc.h"

struct retry_policy {
	unsigned max_attempts;		/* attempts in all, the first included (>= 1) */
	uint32_t first_wait_ms;		/* the wait before the second attempt */
	uint32_t max_wait_ms;		/* waits double up to this */
	uint64_t budget_ms;		/* every attempt and wait together */
	uint32_t min_attempt_ms;	/* an attempt given less time than this is not started */
};

#define RETRY_STOP (-1)

/* The wait before the second attempt onwards, the n-th wait being first_wait_ms << (n-1), capped. */
uint32_t retry_wait_ms(const struct retry_policy *p, unsigned attempts_done);

/*
 * After attempts_done attempts (>= 1) and elapsed_ms spent: the wait before
 * the next attempt, or RETRY_STOP.  *attempt_ms gets the time the next
 * attempt may take (what is left of the budget after the wait).
 */
int64_t retry_next(const struct retry_policy *p, unsigned attempts_done, uint64_t elapsed_ms, uint64_t *attempt_ms);

#endif
