/* pmu/freq/freq_save.c - the clock's MSR save list; see freq_int.h. */
#include "pmu/freq/freq_int.h"
#include "kernel/hw.h"

struct saved {
	uint32_t msr;
	uint64_t value;
};

static struct saved table[FREQ_SAVE_MAX];
static size_t nsaved;

static bool saved(uint32_t msr)
{
	for (size_t i = 0; i < nsaved; i++)
		if (table[i].msr == msr)
			return true;
	return false;
}

int freq_save_write(uint32_t msr, uint64_t val, uint64_t *got)
{
	*got = 0;
	if (!saved(msr)) {
		uint64_t orig;
		/* Never write what could not be put back. */
		if (nsaved == FREQ_SAVE_MAX || hw_rdmsr(msr, &orig) != HW_OK)
			return FREQ_EUNSAVED;
		table[nsaved++] = (struct saved){ msr, orig };
	}
	int r = hw_wrmsr(msr, val);
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

size_t freq_save_count(void) { return nsaved; }

void freq_save_restore(struct freq_restore_result *res)
{
	memset(res, 0, sizeof(*res));
	/* Newest first: the request goes back before the boost switch it was written under. */
	while (nsaved) {
		const struct saved s = table[--nsaved];
		uint64_t got = 0;
		int r;
		res->restored++;
		if (hw_rdmsr(s.msr, &got) == HW_OK && got == s.value)
			continue;
		r = hw_wrmsr(s.msr, s.value);
		if (r == HW_OK && (hw_rdmsr(s.msr, &got) != HW_OK || got != s.value))
			r = FREQ_ENOTHELD;
		if (r == HW_OK)
			continue;
		unsigned k = res->mismatched++;
		res->bad_msr[k] = s.msr;
		res->bad_want[k] = s.value;
		res->bad_got[k] = got;
		res->bad_err[k] = r == FREQ_ENOTHELD ? HW_OK : r;
	}
}

void freq_save_forget(void) { nsaved = 0; }

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
