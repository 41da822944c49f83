/*
 * pmu/count/count_msr_state.c - the MSR backend's one state (msr_st) and the
 * primitives every file of it uses: the pmu record's notes, the compare-then-
 * write, a fault in words, running the stop list.  Lowest of count_msr*.c
 * (count_msr_int.h): count_msr.c, count_msr_pass.c and count_msr_report.c
 * call it, and it calls none of them.
 */
#include "pmu/count/count_msr_int.h"

struct count_msr_state msr_st;

void msr_note(const char *s)
{
	if (msr_st.nnotes < MAX_NOTES)
		msr_st.notes[msr_st.nnotes++] = s;
}

int msr_put(uint32_t msr, uint64_t val)
{
	uint64_t cur;
	if (hw_rdmsr(msr, &cur) == HW_OK && cur == val)
		return HW_OK;
	return msr_save_write(msr, val);
}

const char *msr_fault_text(int r)
{
	return r == HW_FAULT_GP ? "#GP" : r == HW_FAULT_UD ? "#UD" : r == HW_ENODEV ? "no MSR access" :
	       r == MSR_SAVE_EUNSAVED ? "could not save its value first" : "error";
}

void msr_apply_stop(const struct count_set *set, const char *phase)
{
	msr_log_phase(phase);
	for (uint32_t i = 0; i < set->stop.n; i++)
		msr_put(set->stop.w[i].msr, set->stop.w[i].value);
	msr_log_phase("");
}
