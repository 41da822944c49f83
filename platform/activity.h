/*
 * platform/activity.h - what the run is doing right now.
 *
 * Stages (and anything long inside them) name their activity so that a
 * fatal exception can say what was running in its `fault` record.  The
 * string must outlive the activity (a literal, or static storage).
 * Portable: the host build keeps the same bookkeeping.
 */
#ifndef PMUBOOT_PLATFORM_ACTIVITY_H
#define PMUBOOT_PLATFORM_ACTIVITY_H

/* Returns the previous activity, so a caller can put it back. */
const char *activity_set(const char *what);
const char *activity_get(void);

/*
 * A fault the current activity causes on purpose (the `fault` self-test's
 * ud2): the fault path marks a fault with this vector `expected`, with why,
 * and does not count it as a run error.  vector < 0 (or why NULL) withdraws it.
 */
void activity_expect_fault(int vector, const char *why);
/* Why a fault with this vector is expected now, or NULL. */
const char *activity_fault_expected(int vector);

/*
 * The same for a pass that will never return on purpose (selftest=aphang):
 * the processor declares it before it spins, the boot CPU reads it once the
 * pass timed out (activity_hang_expected clears it).  NULL withdraws it.
 */
void activity_expect_hang(const char *why);
const char *activity_hang_expected(void);

#endif
