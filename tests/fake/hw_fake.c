/* tests/fake/hw_fake.c - see hw_fake.h. */
#include <stdio.h>
#include <string.h>

#include "tests/fake/hw_fake.h"

struct leaf {
	uint32_t leaf, subleaf;
	struct cpuid_regs r;
};

struct msr {
	uint32_t msr;
	uint64_t value, writable;
};

static struct {
	struct leaf leaves[FAKE_MAX_LEAVES];
	size_t nleaves;
	uint32_t flat[64];
	size_t nflat;
	struct msr msrs[FAKE_MAX_MSRS];
	size_t nmsrs;
	struct fake_write log[FAKE_MAX_LOG];
	size_t nlog;
	struct fake_msr_hook hook;
	bool have_hook;
	uint64_t tsc, tsc_step;
	unsigned window_depth, inject_nmi;
	bool allow_route;
	hw_nmi_fn nmi_fn;
	void *nmi_ctx;
} f;

void fake_reset(void)
{
	memset(&f, 0, sizeof(f));
	f.tsc_step = 1;
}

static bool is_flat(uint32_t leaf)
{
	for (size_t i = 0; i < f.nflat; i++)
		if (f.flat[i] == leaf)
			return true;
	return false;
}

void fake_cpuid_flat(uint32_t leaf)
{
	if (f.nflat < 64)
		f.flat[f.nflat++] = leaf;
}

void fake_cpuid_set(uint32_t leaf, uint32_t subleaf, uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t edx)
{
	for (size_t i = 0; i < f.nleaves; i++) {
		if (f.leaves[i].leaf == leaf && f.leaves[i].subleaf == subleaf) {
			f.leaves[i].r = (struct cpuid_regs){ eax, ebx, ecx, edx };
			return;
		}
	}
	if (f.nleaves < FAKE_MAX_LEAVES)
		f.leaves[f.nleaves++] = (struct leaf){ leaf, subleaf, { eax, ebx, ecx, edx } };
}

void hw_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out)
{
	bool flat = is_flat(leaf);
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < f.nleaves; i++) {
		if (f.leaves[i].leaf == leaf && (flat || f.leaves[i].subleaf == subleaf)) {
			*out = f.leaves[i].r;
			return;
		}
	}
}

static struct msr *find(uint32_t msr)
{
	for (size_t i = 0; i < f.nmsrs; i++)
		if (f.msrs[i].msr == msr)
			return &f.msrs[i];
	return NULL;
}

void fake_msr_define(uint32_t msr, uint64_t value, uint64_t writable)
{
	struct msr *m = find(msr);
	if (!m && f.nmsrs < FAKE_MAX_MSRS)
		m = &f.msrs[f.nmsrs++];
	if (m)
		*m = (struct msr){ msr, value, writable };
}

bool fake_msr_exists(uint32_t msr) { return find(msr) != NULL; }

uint64_t fake_msr_get(uint32_t msr)
{
	struct msr *m = find(msr);
	return m ? m->value : 0;
}

void fake_msr_set(uint32_t msr, uint64_t value)
{
	struct msr *m = find(msr);
	if (m)
		m->value = value;
}

size_t fake_log_count(void) { return f.nlog; }
const struct fake_write *fake_log_at(size_t i) { return i < f.nlog ? &f.log[i] : NULL; }
void fake_log_clear(void) { f.nlog = 0; }

void fake_set_hook(const struct fake_msr_hook *hook)
{
	f.have_hook = hook != NULL;
	if (hook)
		f.hook = *hook;
}

int hw_rdmsr(uint32_t msr, uint64_t *val)
{
	int result;
	*val = 0;
	if (f.have_hook && f.hook.read && f.hook.read(f.hook.ctx, msr, val, &result))
		return result;
	struct msr *m = find(msr);
	if (!m)
		return HW_FAULT_GP;
	*val = m->value;
	return HW_OK;
}

int hw_wrmsr(uint32_t msr, uint64_t val)
{
	int result;
	if (f.have_hook && f.hook.write && f.hook.write(f.hook.ctx, msr, val, &result)) {
		if (result == HW_OK && f.nlog < FAKE_MAX_LOG)
			f.log[f.nlog++] = (struct fake_write){ msr, val };
		return result;
	}
	struct msr *m = find(msr);
	if (!m || (val & ~m->writable))
		return HW_FAULT_GP;
	m->value = val;
	if (f.nlog < FAKE_MAX_LOG)
		f.log[f.nlog++] = (struct fake_write){ msr, val };
	return HW_OK;
}

int hw_rdpmc(uint32_t index, uint64_t *val)
{
	int result;
	*val = 0;
	if (f.have_hook && f.hook.rdpmc && f.hook.rdpmc(f.hook.ctx, index, val, &result))
		return result;
	return HW_FAULT_UD;
}

void fake_tsc_set(uint64_t value, uint64_t step)
{
	f.tsc = value;
	f.tsc_step = step;
}

uint64_t hw_tsc(void)
{
	uint64_t t = f.tsc;
	f.tsc += f.tsc_step;
	return t;
}

unsigned fake_window_depth(void) { return f.window_depth; }
void fake_window_inject_nmi(unsigned count) { f.inject_nmi = count; }

bool hw_window_enter(struct hw_window *w)
{
	memset(w, 0, sizeof(*w));
	w->if_was_set = true;
	w->if_verified_clear = true;
	f.window_depth++;
	return true;
}

void hw_window_leave(struct hw_window *w)
{
	w->nmi_end = w->nmi_start + f.inject_nmi;
	f.inject_nmi = 0;
	if (f.window_depth)
		f.window_depth--;
}

void fake_nmi_allow_route(bool allow) { f.allow_route = allow; }

bool hw_nmi_route_eilvt(unsigned offset, hw_nmi_fn fn, void *ctx, char *why, unsigned long why_cap)
{
	(void)offset;
	if (!f.allow_route) {
		snprintf(why, why_cap, "fake: routing refused");
		return false;
	}
	f.nmi_fn = fn;
	f.nmi_ctx = ctx;
	return true;
}

void hw_nmi_unroute_eilvt(unsigned offset)
{
	(void)offset;
	f.nmi_fn = NULL;
}

bool fake_nmi_fire(void)
{
	if (!f.nmi_fn)
		return false;
	f.nmi_fn(f.nmi_ctx);
	return true;
}
