/* bench/observer.c - the observer registry; see observer.h. */
#include "bench/observer.h"

static struct bench_observer observers[BENCH_MAX_OBSERVERS];
static size_t nobservers;

bool bench_observer_add(const struct bench_observer *o)
{
	if (nobservers == BENCH_MAX_OBSERVERS)
		return false;
	observers[nobservers++] = *o;
	return true;
}

void bench_observer_clear(void) { nobservers = 0; }
size_t bench_observer_count(void) { return nobservers; }
const struct bench_observer *bench_observer_at(size_t i) { return i < nobservers ? &observers[i] : NULL; }
