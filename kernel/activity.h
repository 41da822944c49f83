/*
 * kernel/activity.h - what the run is doing right now.
 *
 * Stages (and anything long inside them) name their activity so that a
 * fatal exception can say what was running in its `fault` record.  The
 * string must outlive the activity (a literal, or static storage).
 * Portable: the host build keeps the same bookkeeping.
 */
#ifndef PMUBOOT_KERNEL_ACTIVITY_H
#define PMUBOOT_KERNEL_ACTIVITY_H

/* Returns the previous activity, so a caller can put it back. */
const char *activity_set(const char *what);
const char *activity_get(void);

#endif
