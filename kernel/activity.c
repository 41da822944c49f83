/* kernel/activity.c - see activity.h. */
#include "kernel/activity.h"

static const char *volatile current = "start";

const char *activity_set(const char *what)
{
	const char *old = current;
	current = what ? what : "?";
	return old;
}

const char *activity_get(void) { return current; }
