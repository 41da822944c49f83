/* pmu/freq/freq_save.c - the clock's MSR save list; see freq_int.h. */
#include "pmu/freq/freq_int.h"
#include "platform/hw.h"

/* The clock's own list (pmu/count/msr_save.h): a counter restore never puts the clock back, nor the other way. */
static struct msr_save_list clock;

int freq_save_write(uint32_t msr, uint64_t val, uint64_t *got)
{
	*got = 0;
	int r = msr_list_write(&clock, msr, val);
	if (r != HW_OK)
		return r;	/* a write that faulted changed nothing; the saved value is still right */
	if (hw_rdmsr(msr, got) != HW_OK || *got != val)
		return FREQ_ENOTHELD;
	return HW_OK;
}

int freq_save_update(uint32_t msr, uint64_t val, bool *wrote, uint64_t *got)
{
	uint64_t now;
	*wrote = false;
	*got = 0;
	int r = hw_rdmsr(msr, &now);
	if (r != HW_OK)
		return FREQ_EUNSAVED;
	if (now == val) {
		*got = now;
		return HW_OK;
	}
	*wrote = true;
	return freq_save_write(msr, val, got);
}

size_t freq_save_count(void) { return clock.n; }

/* Newest first: the request goes back before the boost switch it was written under. */
void freq_save_restore(struct msr_restore_result *res) { msr_list_restore(&clock, res); }

void freq_save_forget(void) { clock.n = 0; }

const char *freq_err_text(int r)
{
	return r == HW_FAULT_GP ? "#GP" : r == HW_FAULT_UD ? "#UD" : r == HW_ENODEV ? "no MSR access"
	       : r == FREQ_EUNSAVED ? "could not be read to save it first" : r == FREQ_ENOTHELD ? "did not hold"
	       : "error";
}

bool freq_apply_write(struct freq_apply *out, uint32_t msr, const char *name, uint64_t val)
{
	bool wrote;
	uint64_t got;
	int r = freq_save_update(msr, val, &wrote, &got);
	out->wrote |= wrote;
	if (r == HW_OK)
		return true;
	out->failed = true;
	if (r == FREQ_ENOTHELD)
		snprintf(out->why, sizeof(out->why), "MSR 0x%x (%s) did not hold the value written (wrote 0x%llx, read 0x%llx)",
			 msr, name, (unsigned long long)val, (unsigned long long)got);
	else
		snprintf(out->why, sizeof(out->why), "writing MSR 0x%x (%s) failed: %s", msr, name, freq_err_text(r));
	return false;
}
