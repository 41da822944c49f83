/*
 * pmu/count/msr_save.h - MSR writes that can be undone.
 *
 * The counting code writes MSRs only through msr_save_write(): the first
 * write to an MSR reads and keeps its value, and msr_save_restore() writes
 * every kept value back, newest first, and reads each back to prove it.
 * Write-1-to-clear command registers (overflow status clear) have no state
 * to keep and go through msr_save_command().
 *
 * Every write is also appended to a small log with the phase that made it,
 * which the `program` record and `pmuboot-host program` print.
 *
 * MSRs are reached through platform/hw.h only, so what answers is whatever
 * implements it in this program (docs/architecture.md, "The seam"): the
 * real CPU, the fake one of the unit tests, or, in `pmuboot-host program`,
 * the PMU model (pmu/count/pmu_model.h) of a dump's CPU.
 */
#ifndef PMUBOOT_PMU_COUNT_MSR_SAVE_H
#define PMUBOOT_PMU_COUNT_MSR_SAVE_H

#include "lib/libc.h"
#include "lib/record.h"


#define MSR_SAVE_MAX 64
/* Returned when the save table is full or the MSR cannot be read to save it. */
#define MSR_SAVE_EUNSAVED (-100)

/*
 * A save list: what was found in each MSR before the first write.  The
 * counting code has one (the msr_save_* calls below); whoever else writes
 * MSRs that must go back keeps its own (the pinned clock: pmu/freq), so that
 * putting one back never touches the other's.
 */
struct msr_save_list {
	struct {
		uint32_t msr;
		uint64_t value;
	} e[MSR_SAVE_MAX];
	size_t n;
};
int msr_list_write(struct msr_save_list *l, uint32_t msr, uint64_t val);
int msr_list_remember(struct msr_save_list *l, uint32_t msr);
bool msr_list_original(const struct msr_save_list *l, uint32_t msr, uint64_t *val);

/* Save (first time only), then write.  HW_OK, the fault, or MSR_SAVE_EUNSAVED. */
int msr_save_write(uint32_t msr, uint64_t val);
/* Save now without writing, to fix the restore order: what is saved first is restored last. */
int msr_save_remember(uint32_t msr);
/* Write without saving, for write-1-to-clear command registers. */
int msr_save_command(uint32_t msr, uint64_t val);
size_t msr_save_count(void);
bool msr_save_original(uint32_t msr, uint64_t *val);

struct msr_restore_result {
	unsigned restored;	/* MSRs written back */
	unsigned mismatched;	/* written back but read differently (or the write faulted) */
	uint32_t bad_msr[4];	/* the first few mismatches */
	uint64_t bad_want[4], bad_got[4];
	int bad_err[4];		/* HW_OK when the write worked but the value read back differs */
};

/* Write every saved MSR back, newest first (skipping those that already hold
 * their value), read each back to check; then the table is empty. */
void msr_save_restore(struct msr_restore_result *res);
void msr_list_restore(struct msr_save_list *l, struct msr_restore_result *res);
/* Forget the table without writing (tests, and after a restore elsewhere). */
void msr_save_forget(void);
/* The `restore` record's outcome fields: msrs, exact, mismatches ({msr, wrote, read|fault}). */
void msr_restore_fields(struct rec *r, const struct msr_restore_result *res, const char *(*fault_text)(int err));

/* The write log: a ring of the most recent writes, indexed by a running number. */
#define MSR_LOG_MAX 128
struct msr_log_entry {
	uint32_t msr;
	uint64_t value;
	const char *phase;	/* what the write was for, e.g. "program", "start" */
	bool command;		/* a write-1-to-clear command, not saved */
	int result;		/* HW_OK or the fault */
};
/* Label the writes that follow (a static string). */
void msr_log_phase(const char *phase);
/* Running number of the next entry; entries [total - MSR_LOG_MAX, total) are kept. */
uint64_t msr_log_total(void);
const struct msr_log_entry *msr_log_get(uint64_t index);

#endif
