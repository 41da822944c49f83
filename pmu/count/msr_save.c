/* pmu/count/msr_save.c - see msr_save.h. */
#include "pmu/count/msr_save.h"
#include "kernel/hw.h"

struct saved {
	uint32_t msr;
	uint64_t value;
};

static struct saved table[MSR_SAVE_MAX];
static size_t nsaved;

static struct msr_log_entry ring[MSR_LOG_MAX];
static uint64_t log_total;
static const char *cur_phase = "";

static void log_write(uint32_t msr, uint64_t val, bool command, int result)
{
	ring[log_total % MSR_LOG_MAX] = (struct msr_log_entry){ msr, val, cur_phase, command, result };
	log_total++;
}

static struct saved *find(uint32_t msr)
{
	for (size_t i = 0; i < nsaved; i++)
		if (table[i].msr == msr)
			return &table[i];
	return NULL;
}

int msr_save_remember(uint32_t msr)
{
	uint64_t orig;
	if (find(msr))
		return HW_OK;
	if (nsaved == MSR_SAVE_MAX || hw_rdmsr(msr, &orig) != HW_OK)
		return MSR_SAVE_EUNSAVED;
	table[nsaved++] = (struct saved){ msr, orig };
	return HW_OK;
}

int msr_save_write(uint32_t msr, uint64_t val)
{
	bool added = false;
	if (!find(msr)) {
		uint64_t orig;
		/* Never write what could not be put back. */
		if (nsaved == MSR_SAVE_MAX || hw_rdmsr(msr, &orig) != HW_OK)
			return MSR_SAVE_EUNSAVED;
		table[nsaved++] = (struct saved){ msr, orig };
		added = true;
	}
	int r = hw_wrmsr(msr, val);
	log_write(msr, val, false, r);
	/* A write that faulted changed nothing: nothing to put back. */
	if (r != HW_OK && added)
		nsaved--;
	return r;
}

int msr_save_command(uint32_t msr, uint64_t val)
{
	int r = hw_wrmsr(msr, val);
	log_write(msr, val, true, r);
	return r;
}

size_t msr_save_count(void) { return nsaved; }

bool msr_save_original(uint32_t msr, uint64_t *val)
{
	const struct saved *s = find(msr);
	if (s)
		*val = s->value;
	return s != NULL;
}

void msr_save_restore(struct msr_restore_result *res)
{
	const char *prev = cur_phase;
	memset(res, 0, sizeof(*res));
	cur_phase = "restore";
	/* Newest first: a counter goes back before the control that enables it. */
	while (nsaved) {
		const struct saved s = table[--nsaved];
		uint64_t got = 0;
		int r = HW_OK;
		res->restored++;
		if (hw_rdmsr(s.msr, &got) == HW_OK && got == s.value)
			continue;
		r = hw_wrmsr(s.msr, s.value);
		log_write(s.msr, s.value, false, r);
		if (r == HW_OK)
			r = hw_rdmsr(s.msr, &got) == HW_OK && got == s.value ? HW_OK : 1;
		if (r != HW_OK) {
			if (res->mismatched < ARRAY_SIZE(res->bad_msr)) {
				unsigned k = res->mismatched;
				res->bad_msr[k] = s.msr;
				res->bad_want[k] = s.value;
				res->bad_got[k] = got;
				res->bad_err[k] = r == 1 ? HW_OK : r;
			}
			res->mismatched++;
		}
	}
	cur_phase = prev;
}

void msr_save_forget(void) { nsaved = 0; }

void msr_log_phase(const char *phase) { cur_phase = phase ? phase : ""; }
uint64_t msr_log_total(void) { return log_total; }

const struct msr_log_entry *msr_log_get(uint64_t index)
{
	if (index >= log_total || log_total - index > MSR_LOG_MAX)
		return NULL;
	return &ring[index % MSR_LOG_MAX];
}
