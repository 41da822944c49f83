/* pmu/count/count_msr_report.c - restoring what the MSR backend wrote, and its records; see count_msr_int.h. */
#include "pmu/count/count_msr_int.h"
#include "lib/out.h"
#include "lib/strbuf.h"

/* One record buffer for the restore and program records (never built at once): kept off the stack. */
static struct rec rbuf;

/* ---- restore ----
 *
 * Order matters for exactness: a counter written back while it still
 * counts would not stay as found.  The stop list runs first; then
 * msr_save restores newest first, and the save order is global switch
 * (saved at init), selects and fixed control, then counters - so counters
 * go back while nothing of ours can run, and the global switch last.
 */

/* What a legacy-address write of v leaves in a counter: bits 31:0, sign-extended to the width. */
static uint64_t legacy_result(uint64_t v)
{
	return (uint64_t)(int64_t)(int32_t)(uint32_t)v & mask_of(msr_st.gp_width);
}

/*
 * Counters found holding a value the legacy address cannot write back: named per counter in
 * the restore record (and a line of text), before the restore writes what it can (bits 31:0).
 */
static unsigned inexact_counters(struct rec *r)
{
	unsigned n = 0;
	char name[16];
	for (unsigned c = 0; msr_st.legacy_writes && c < msr_st.n_gp; c++) {
		uint64_t found;
		if (!msr_save_original(ctr_msr(c), &found) || legacy_result(found) == found)
			continue;
		if (!n++)
			rec_arr(r, "inexact_counters");
		snprintf(name, sizeof(name), "pmc%u", c);
		rec_obj(r, NULL);
		rec_str(r, "counter", name);
		rec_hex(r, "msr", ctr_msr(c));
		rec_hex(r, "found", found);
		rec_hex(r, "restorable", legacy_result(found));
		rec_str(r, "why", "no full-width alias (IA32_A_PMCx): the legacy address takes bits 31:0 "
				  "sign-extended, so bits above 31 cannot be put back");
		rec_obj_end(r);
		out_text("pmu: %s (MSR 0x%x) was found at 0x%llx; this CPU has no full-width counter alias, so only "
			 "bits 31:0 go back (0x%llx)", name, ctr_msr(c), (unsigned long long)found,
			 (unsigned long long)legacy_result(found));
	}
	if (n)
		rec_arr_end(r);
	return n;
}

void msr_restore(void)
{
	struct msr_restore_result res;
	struct rec *r = &rbuf;

	if (msr_st.set)
		msr_apply_stop(msr_st.set, "restore");
	msr_st.set = NULL;
	msr_st.pass = -1;
	msr_st.checked = false;
	if (!msr_save_count())
		return;
	rec_start(r, "restore");
	rec_str(r, "what", "pmu");
	inexact_counters(r);
	msr_save_restore(&res);
	msr_restore_fields(r, &res, msr_fault_text);
	rec_emit(r);
	if (res.mismatched)
		out_text("pmu: restored %u MSRs; %u did not read back as found (see the restore record)", res.restored,
			 res.mismatched);
	else
		out_text("pmu: restored %u MSRs exactly as found", res.restored);
}

/* ---- records ---- */

static void counter_list(struct rec *r, const char *key, uint32_t gp, uint32_t fixed)
{
	char name[16];
	rec_arr(r, key);
	for (unsigned c = 0; c < MAX_GP; c++)
		if (gp & (1u << c)) {
			snprintf(name, sizeof(name), "pmc%u", c);
			rec_str(r, NULL, name);
		}
	for (unsigned f = 0; f < MAX_FIXED; f++)
		if (fixed & (1u << f)) {
			snprintf(name, sizeof(name), "fixed%u", f);
			rec_str(r, NULL, name);
		}
	rec_arr_end(r);
}

void msr_state_fields(struct rec *r)
{
	char name[16];

	rec_str(r, "count_backend", "msr");
	rec_bool(r, "counting", msr_st.ready);
	rec_str(r, "counting_reason", msr_st.ready ? NULL : msr_st.why);
	if (!msr_st.fl)
		return;
	rec_str(r, "count_flavour", msr_st.fl->name);
	rec_u64(r, "counters_general", bits(msr_st.gp_usable));
	rec_u64(r, "counters_fixed", bits(msr_st.fixed_usable));
	rec_u64(r, "counter_width", msr_st.gp_width);
	if (msr_st.fixed_exists)
		rec_u64(r, "fixed_counter_width", msr_st.fixed_width);
	rec_bool(r, "full_width_writes", msr_st.full_width);
	rec_obj(r, "found");
	if (msr_st.fl->global_ctrl) {
		rec_hex(r, "global_ctrl", msr_st.found_global);
		rec_hex(r, "global_status", msr_st.found_status);
	}
	if (msr_st.fl->fixed_ctrl && msr_st.fixed_exists)
		rec_hex(r, "fixed_ctr_ctrl", msr_st.found_fixed_ctrl);
	rec_obj_end(r);
	rec_arr(r, "counters_in_use");
	for (unsigned c = 0; c < msr_st.n_gp; c++)
		if (msr_st.gp_in_use & (1u << c)) {
			rec_obj(r, NULL);
			snprintf(name, sizeof(name), "pmc%u", c);
			rec_str(r, "counter", name);
			rec_hex(r, "msr", sel_msr(c));
			rec_hex(r, "value", msr_st.found_sel[c]);
			rec_bool(r, "forced", msr_st.force);
			rec_obj_end(r);
		}
	for (unsigned f = 0; f < msr_st.n_fixed; f++)
		if (msr_st.fixed_in_use & (1u << f)) {
			rec_obj(r, NULL);
			snprintf(name, sizeof(name), "fixed%u", f);
			rec_str(r, "counter", name);
			rec_hex(r, "msr", msr_st.fl->fixed_ctrl);
			rec_hex(r, "value", (msr_st.found_fixed_ctrl >> field_shift(f)) & field_mask());
			rec_bool(r, "forced", msr_st.force);
			rec_obj_end(r);
		}
	rec_arr_end(r);
	rec_bool(r, "force_counters", msr_st.force);
	if (msr_st.gp_missing || msr_st.fixed_missing)
		counter_list(r, "counters_missing", msr_st.gp_missing, msr_st.fixed_missing);
	if (msr_st.nnotes) {
		rec_arr(r, "count_notes");
		for (unsigned i = 0; i < msr_st.nnotes; i++)
			rec_str(r, NULL, msr_st.notes[i]);
		rec_arr_end(r);
	}
}

static void write_list(struct rec *r, const char *key, const struct count_toggle *t)
{
	rec_arr(r, key);
	for (uint32_t i = 0; i < t->n; i++) {
		rec_obj(r, NULL);
		rec_hex(r, "msr", t->w[i].msr);
		rec_hex(r, "value", t->w[i].value);
		rec_obj_end(r);
	}
	rec_arr_end(r);
}

/* FNV-1a over what decides a set's programming: a harness reusing one count_set
 * for different events still gets a record for each. */
static uint64_t set_signature(const struct count_set *set)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < set->n; i++) {
		const struct event_spec *e = &set->ev[i];
		uint64_t parts[] = { e->event, e->umask, e->cmask, (uint64_t)e->inv << 2 | e->edge << 1 | e->any,
				     set->pass_of[i], (uint8_t)set->counter_of[i], (uint8_t)set->fixed_of[i] };
		for (size_t k = 0; k < ARRAY_SIZE(parts); k++)
			h = (h ^ parts[k]) * 0x100000001b3ull;
	}
	return (h ^ set->priv ^ set->n) * 0x100000001b3ull;
}

/* The `program` record (verbose=on): once per pass of a set. */
void msr_emit_program(const struct count_set *set, unsigned p, uint64_t mark)
{
	struct rec *r = &rbuf;
	char name[16];
	uint64_t sig = set_signature(set);

	if (msr_st.recorded_sig != sig) {
		msr_st.recorded_sig = sig;
		msr_st.recorded = 0;
	}
	if (p < 32 && (msr_st.recorded & (1u << p)))
		return;
	if (p < 32)
		msr_st.recorded |= 1u << p;
	rec_start(r, "program");
	rec_str(r, "backend", "msr");
	rec_str(r, "flavour", msr_st.fl->name);
	rec_u64(r, "pass", p);
	rec_u64(r, "passes", set->passes);
	rec_arr(r, "events");
	for (size_t i = 0; i < set->n; i++) {
		if (set->pass_of[i] != p)
			continue;
		rec_obj(r, NULL);
		rec_str(r, "name", set->ev[i].name);
		rec_str(r, "counter", count_sched_counter_name(set, i, name));
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_arr(r, "writes");
	for (uint64_t k = mark; k < msr_log_total(); k++) {
		const struct msr_log_entry *e = msr_log_get(k);
		if (!e)
			continue;
		rec_obj(r, NULL);
		rec_hex(r, "msr", e->msr);
		rec_hex(r, "value", e->value);
		rec_str(r, "phase", e->phase);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	write_list(r, "start", &set->start);
	write_list(r, "stop", &set->stop);
	rec_emit(r);
}

