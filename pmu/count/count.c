/* pmu/count/count.c - backend selection and the conveniences of count.h. */
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

void count_td_spec(unsigned field, const char *name, struct event_spec *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->event = 0;
	out->umask = (uint8_t)(COUNT_TD_UMASK_BASE + (field < PERF_METRICS_FIELDS ? field : 0));
	out->fixed = EV_NO_FIXED;
}

uint64_t count_td_slots(uint64_t perf_metrics, unsigned field, uint64_t slots)
{
	if (field >= PERF_METRICS_FIELDS)
		return 0;
	uint64_t byte = (perf_metrics >> (field * PERF_METRICS_FIELD_BITS)) & PERF_METRICS_FULL;
	/* slots x byte may pass 2^64 for a long run: divide first, then the remainder's share (exact). */
	return slots / PERF_METRICS_FULL * byte + slots % PERF_METRICS_FULL * byte / PERF_METRICS_FULL;
}
