/* pmu/count/msr_save.c - see msr_save.h. */
#include "pmu/count/msr_save.h"
#include "platform/hw.h"

/* The counting code's list. */
static struct msr_save_list counting;

static struct msr_log_entry ring[MSR_LOG_MAX];
static uint64_t log_total;
static const char *cur_phase = "";

static void log_write(uint32_t msr, uint64_t val, bool command, int result)
{
	ring[log_total % MSR_LOG_MAX] = (struct msr_log_entry){ msr, val, cur_phase, command, result };
	log_total++;
}

static int find(const struct msr_save_list *l, uint32_t msr)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].msr == msr)
			return (int)i;
	return -1;
}

int msr_list_remember(struct msr_save_list *l, uint32_t msr)
{
	uint64_t orig;
	if (find(l, msr) >= 0)
		return HW_OK;
	if (l->n == MSR_SAVE_MAX || hw_rdmsr(msr, &orig) != HW_OK)
		return MSR_SAVE_EUNSAVED;
	l->e[l->n].msr = msr;
	l->e[l->n++].value = orig;
	return HW_OK;
}

int msr_list_write(struct msr_save_list *l, uint32_t msr, uint64_t val)
{
	bool added = find(l, msr) < 0;
	/* Never write what could not be put back. */
	if (added && msr_list_remember(l, msr) != HW_OK)
		return MSR_SAVE_EUNSAVED;
	int r = hw_wrmsr(msr, val);
	log_write(msr, val, false, r);
	/* A write that faulted changed nothing: nothing to put back. */
	if (r != HW_OK && added)
		l->n--;
	return r;
}

int msr_save_remember(uint32_t msr) { return msr_list_remember(&counting, msr); }
int msr_save_write(uint32_t msr, uint64_t val) { return msr_list_write(&counting, msr, val); }

int msr_save_command(uint32_t msr, uint64_t val)
{
	int r = hw_wrmsr(msr, val);
	log_write(msr, val, true, r);
	return r;
}

size_t msr_save_count(void) { return counting.n; }

bool msr_list_original(const struct msr_save_list *l, uint32_t msr, uint64_t *val)
{
	int i = find(l, msr);
	if (i >= 0)
		*val = l->e[i].value;
	return i >= 0;
}

bool msr_save_original(uint32_t msr, uint64_t *val) { return msr_list_original(&counting, msr, val); }

/* Written back, but it reads otherwise: a mismatch with no fault. */
#define READ_OTHERWISE 1

void msr_list_restore(struct msr_save_list *l, struct msr_restore_result *res)
{
	const char *prev = cur_phase;
	memset(res, 0, sizeof(*res));
	cur_phase = "restore";
	/* Newest first: a counter goes back before the control that enables it. */
	while (l->n) {
		l->n--;
		uint32_t msr = l->e[l->n].msr;
		uint64_t want = l->e[l->n].value, got = 0;
		int r = HW_OK;
		res->restored++;
		if (hw_rdmsr(msr, &got) == HW_OK && got == want)
			continue;
		r = hw_wrmsr(msr, want);
		log_write(msr, want, false, r);
		if (r == HW_OK)
			r = hw_rdmsr(msr, &got) == HW_OK && got == want ? HW_OK : READ_OTHERWISE;
		if (r != HW_OK) {
			if (res->mismatched < ARRAY_SIZE(res->bad_msr)) {
				unsigned k = res->mismatched;
				res->bad_msr[k] = msr;
				res->bad_want[k] = want;
				res->bad_got[k] = got;
				res->bad_err[k] = r == READ_OTHERWISE ? HW_OK : r;
			}
			res->mismatched++;
		}
	}
	cur_phase = prev;
}

void msr_save_restore(struct msr_restore_result *res) { msr_list_restore(&counting, res); }
void msr_save_forget(void) { counting.n = 0; }

void msr_restore_fields(struct rec *r, const struct msr_restore_result *res, const char *(*fault_text)(int err))
{
	rec_u64(r, "msrs", res->restored);
	rec_bool(r, "exact", res->mismatched == 0);
	if (!res->mismatched)
		return;
	rec_arr(r, "mismatches");
	for (unsigned i = 0; i < res->mismatched && i < ARRAY_SIZE(res->bad_msr); i++) {
		rec_obj(r, NULL);
		rec_hex(r, "msr", res->bad_msr[i]);
		rec_hex(r, "wrote", res->bad_want[i]);
		if (res->bad_err[i] == HW_OK)
			rec_hex(r, "read", res->bad_got[i]);
		else
			rec_str(r, "fault", fault_text(res->bad_err[i]));
		rec_obj_end(r);
	}
	rec_arr_end(r);
}

void msr_log_phase(const char *phase) { cur_phase = phase ? phase : ""; }
uint64_t msr_log_total(void) { return log_total; }

const struct msr_log_entry *msr_log_get(uint64_t index)
{
	if (index >= log_total || log_total - index > MSR_LOG_MAX)
		return NULL;
	return &ring[index % MSR_LOG_MAX];
}
