/* pmu/count/count.c - backend selection and the conveniences of count.h (the PERF_METRICS arithmetic: count_td.c). */
#include "pmu/count/count.h"
#include "pmu/count/msr_save.h"
#include "lib/out.h"
#include "lib/strbuf.h"

static const struct count_backend *current = &count_backend_msr;
static bool ready;
static char reason[192] = "counting not initialised";

void count_use_backend(const struct count_backend *b) { current = b; }
const struct count_backend *count_backend(void) { return current; }

bool count_init(const struct cpu_info *ci, const struct pmu_caps *caps, const struct count_opts *opts, char *why,
		size_t why_cap)
{
	reason[0] = 0;
	ready = current->init(ci, caps, opts, reason, sizeof(reason));
	if (ready)
		reason[0] = 0;
	else if (!reason[0])
		snprintf(reason, sizeof(reason), "counting is not available");
	if (why && why_cap)
		str_appendf(why, why_cap, 0, "%s", reason);
	return ready;
}

bool count_available(void) { return ready; }
const char *count_unavailable_reason(void) { return ready ? NULL : reason; }

void count_forget(void) { msr_save_forget(); }

void count_restore(void)
{
	if (current->restore)
		current->restore();
}

void count_state_fields(struct rec *r)
{
	if (current->state_fields)
		current->state_fields(r);
}

void count_summary(void)
{
	if (ready)
		out_text("pmu: counting through the %s backend", current->name);
	else
		out_text("pmu: no event counting: %s", reason);
}

/* The measuring routines run the lists from NASM (pmu/count/toggles.inc reads these offsets). */
_Static_assert(offsetof(struct count_toggle, n) == 0 && offsetof(struct count_toggle, w) == 8, "count_toggle layout");
_Static_assert(offsetof(struct msr_write, msr) == 0 && offsetof(struct msr_write, value) == 8 &&
		       sizeof(struct msr_write) == 16, "msr_write layout");

void count_toggle_apply(const struct count_toggle *t)
{
	for (uint32_t i = 0; i < t->n && i < COUNT_TOGGLE_MAX; i++)
		msr_save_write(t->w[i].msr, t->w[i].value);
}
