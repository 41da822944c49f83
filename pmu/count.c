/* pmu/count.c - backend selection; the MSR backend is a STUB until the counter driver lands. */
#include "count.h"

static const struct count_backend *current = &count_backend_msr;

void count_use_backend(const struct count_backend *b) { current = b; }
const struct count_backend *count_backend(void) { return current; }

static bool stub_init(const struct cpu_info *ci, const struct pmu_caps *caps, const struct config *cfg, char *why,
		      size_t why_cap)
{
	(void)ci; (void)caps; (void)cfg;
	snprintf(why, why_cap, "counter driver not implemented yet");
	return false;
}

const struct count_backend count_backend_msr = { .name = "msr", .init = stub_init };
