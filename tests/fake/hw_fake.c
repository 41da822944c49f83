/* tests/fake/hw_fake.c - see hw_fake.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fake/hw_fake.h"

struct leaf {
	uint32_t leaf, subleaf;
	struct cpuid_regs r;
};

struct msr {
	uint32_t msr;
	uint64_t value, writable;
	uint64_t rwc0;		/* sticky log bits: a write clears those written 0 (fake_msr_rwc0) */
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
	bool allow_pmi;
	hw_nmi_fn pmi_fn;
	void *pmi_ctx;
	/* Platform registers. */
	uint32_t mmio[FAKE_MMIO_BYTES / 4];
	uint64_t mmio_base;
	bool mmio_mapped;
	void (*mmio_on_write)(uint32_t offset, uint32_t value);
	uint8_t ports[0x10000];
	uint64_t rflags;
	struct fake_event events[FAKE_MAX_LOG];
	size_t nevents;
	uint64_t cr4, xcr0;
	uint64_t xsetbv_accepts;	/* bits XSETBV takes beyond CPUID.0DH's rules (a hypervisor may refuse more) */
} f;

#define RFLAGS_IF (1ull << 9)	/* Intel SDM Vol. 1 §3.4.3 */
#define RFLAGS_FIXED 2ull	/* bit 1 always reads 1 */

/* By default a machine the run owns, without inline privileged instructions (the tests run as a process). */
static struct hw_platform platform = { .ring0 = false, .owns_machine = true, .shared_with = NULL };

const struct hw_platform *hw_platform(void) { return &platform; }

void fake_platform_set(bool ring0, bool owns_machine)
{
	platform.ring0 = ring0;
	platform.owns_machine = owns_machine;
	platform.shared_with = owns_machine ? NULL : "fake: another owner";
}

void fake_reset(void)
{
	memset(&f, 0, sizeof(f));
	f.tsc_step = 1;
	f.rflags = RFLAGS_IF | RFLAGS_FIXED;
	f.xsetbv_accepts = ~0ull;
}

static void event(enum fake_event_kind kind, uint64_t addr, uint64_t value)
{
	if (f.nevents < FAKE_MAX_LOG)
		f.events[f.nevents++] = (struct fake_event){ kind, addr, value };
}

size_t fake_event_count(void) { return f.nevents; }
const struct fake_event *fake_event_at(size_t i) { return i < f.nevents ? &f.events[i] : NULL; }

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
		*m = (struct msr){ msr, value, writable, 0 };
}

bool fake_msr_exists(uint32_t msr) { return find(msr) != NULL; }

void fake_msr_rwc0(uint32_t msr, uint64_t mask)
{
	struct msr *m = find(msr);
	if (m)
		m->rwc0 = mask;
}

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
		if (result == HW_OK)
			event(FAKE_EV_MSR_W, msr, val);
		return result;
	}
	struct msr *m = find(msr);
	if (!m || (val & ~m->writable))
		return HW_FAULT_GP;
	if (m->rwc0)	/* R/WC0 logs keep a written 1, clear on 0; the read-only bits stay as they were */
		m->value = (m->value & ~m->writable) | (val & m->writable & ~m->rwc0) | (m->value & val & m->rwc0);
	else
		m->value = val;
	if (f.nlog < FAKE_MAX_LOG)
		f.log[f.nlog++] = (struct fake_write){ msr, val };
	event(FAKE_EV_MSR_W, msr, val);
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

uint32_t *fake_mmio_page(uint64_t base)
{
	f.mmio_base = base;
	f.mmio_mapped = true;
	return f.mmio;
}

void fake_mmio_on_write(void (*fn)(uint32_t offset, uint32_t value)) { f.mmio_on_write = fn; }

static uint32_t mmio_offset(uint64_t addr, const char *what)
{
	if (!f.mmio_mapped || addr < f.mmio_base || addr - f.mmio_base >= FAKE_MMIO_BYTES || (addr & 3)) {
		fprintf(stderr, "hw_fake: %s at 0x%llx, outside the modelled MMIO page\n", what,
			(unsigned long long)addr);
		abort();
	}
	return (uint32_t)(addr - f.mmio_base);
}

uint32_t hw_mmio_read32(uint64_t addr) { return f.mmio[mmio_offset(addr, "MMIO read") / 4]; }

void hw_mmio_write32(uint64_t addr, uint32_t v)
{
	uint32_t off = mmio_offset(addr, "MMIO write");
	f.mmio[off / 4] = v;
	event(FAKE_EV_MMIO_W, off, v);
	if (f.mmio_on_write)
		f.mmio_on_write(off, v);
}

uint8_t *fake_ports(void) { return f.ports; }
uint8_t hw_inb(uint16_t port) { return f.ports[port]; }

void hw_outb(uint16_t port, uint8_t v)
{
	f.ports[port] = v;
	event(FAKE_EV_PORT_W, port, v);
}

uint64_t fake_rflags(void) { return f.rflags; }
void fake_rflags_set(uint64_t rflags) { f.rflags = rflags; }
uint64_t hw_rflags(void) { return f.rflags; }

uint64_t hw_irq_save(void)
{
	uint64_t was = f.rflags;
	f.rflags &= ~RFLAGS_IF;
	event(FAKE_EV_CLI, 0, 0);
	return was;
}

void hw_irq_restore(uint64_t rflags)
{
	if (rflags & RFLAGS_IF) {
		f.rflags |= RFLAGS_IF;
		event(FAKE_EV_STI, 0, 0);
	}
}

void fake_tsc_set(uint64_t value, uint64_t step)
{
	f.tsc = value;
	f.tsc_step = step;
}

void fake_tsc_advance(uint64_t ticks) { f.tsc += ticks; }

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
	w->nmi_what = "unclaimed NMIs";
	w->if_was_set = true;
	w->if_verified_clear = true;
	f.window_depth++;
	return true;
}

void hw_window_poll(struct hw_window *w)
{
	w->nmi_end = w->nmi_start + f.inject_nmi;
}

void hw_window_leave(struct hw_window *w)
{
	hw_window_poll(w);
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

void fake_pmi_allow_route(bool allow) { f.allow_pmi = allow; }

bool hw_nmi_route_pmi(hw_nmi_fn fn, void *ctx, char *why, unsigned long why_cap)
{
	if (!f.allow_pmi) {
		snprintf(why, why_cap, "fake: no APIC to route the PMI through");
		return false;
	}
	f.pmi_fn = fn;
	f.pmi_ctx = ctx;
	return true;
}

void hw_nmi_unroute_pmi(void) { f.pmi_fn = NULL; }

bool fake_pmi_fire(void)
{
	if (!f.pmi_fn)
		return false;
	f.pmi_fn(f.pmi_ctx);
	return true;
}

bool fake_nmi_fire(void)
{
	if (!f.nmi_fn)
		return false;
	f.nmi_fn(f.nmi_ctx);
	return true;
}

/* CR4 and XCR0: the rules of SDM Vol. 3A §2.5, Vol. 1 §13.3 and Vol. 2B XGETBV/XSETBV. */
#define FAKE_CR4_OSXSAVE (1ull << 18)
#define FAKE_CPUID1_ECX_XSAVE (1u << 26)
#define FAKE_XCR0_X87 1ull
#define FAKE_XCR0_SSE_AVX 6ull
#define FAKE_XCR0_AVX 4ull
#define FAKE_XCR0_AVX512 0xe0ull

void fake_cr4_set(uint64_t v) { f.cr4 = v; }
uint64_t fake_cr4(void) { return f.cr4; }
void fake_xcr0_set(uint64_t v) { f.xcr0 = v; }
uint64_t fake_xcr0(void) { return f.xcr0; }
void fake_xsetbv_accepts(uint64_t mask) { f.xsetbv_accepts = mask; }

uint64_t hw_read_cr4(void) { return f.cr4; }

int hw_write_cr4(uint64_t v)
{
	struct cpuid_regs r;
	hw_cpuid(1, 0, &r);
	if ((v & FAKE_CR4_OSXSAVE) && !(r.ecx & FAKE_CPUID1_ECX_XSAVE))
		return HW_FAULT_GP;
	f.cr4 = v;
	event(FAKE_EV_CR4_W, 0, v);
	return HW_OK;
}

int hw_xgetbv0(uint64_t *v)
{
	*v = 0;
	if (!(f.cr4 & FAKE_CR4_OSXSAVE))
		return HW_FAULT_UD;
	*v = f.xcr0;
	return HW_OK;
}

int hw_xsetbv0(uint64_t v)
{
	struct cpuid_regs r;
	if (!(f.cr4 & FAKE_CR4_OSXSAVE))
		return HW_FAULT_UD;
	hw_cpuid(0xd, 0, &r);
	uint64_t supported = ((uint64_t)r.edx << 32) | r.eax;
	uint64_t avx512 = v & FAKE_XCR0_AVX512;
	if (!(v & FAKE_XCR0_X87) || (v & ~supported) || (v & ~f.xsetbv_accepts) || ((v & FAKE_XCR0_AVX) && !(v & 2)) ||
	    (avx512 && (avx512 != FAKE_XCR0_AVX512 || (v & FAKE_XCR0_SSE_AVX) != FAKE_XCR0_SSE_AVX)))
		return HW_FAULT_GP;
	f.xcr0 = v;
	event(FAKE_EV_XSETBV, 0, v);
	return HW_OK;
}

void hw_vector_state(struct hw_vector_state *out)
{
	out->known = f.cr4 & FAKE_CR4_OSXSAVE;
	out->xcr0 = out->xcr0_found = out->known ? f.xcr0 : 0;
	out->who = "fake";
}
