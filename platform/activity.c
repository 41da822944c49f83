/* platform/activity.c - see activity.h. */
#include "platform/activity.h"

#include <stddef.h>

static const char *volatile current = "start";

const char *activity_set(const char *what)
{
	const char *old = current;
	current = what ? what : "?";
	return old;
}

const char *activity_get(void) { return current; }

static volatile int expected_vector = -1;
static const char *volatile expected_why;

void activity_expect_fault(int vector, const char *why)
{
	expected_why = why;
	expected_vector = why ? vector : -1;
}

const char *activity_fault_expected(int vector)
{
	return vector >= 0 && vector == expected_vector ? expected_why : NULL;
}

static const char *volatile hang_why;

void activity_expect_hang(const char *why) { hang_why = why; }

const char *activity_hang_expected(void)
{
	const char *why = hang_why;
	hang_why = NULL;
	return why;
}
