/*
 * platform/metal/selftest.c - the runtime's self-tests and the `runtime` record
 * (see selftest.h).  Image-only.
 */
#include "platform/activity.h"
#include "platform/apic.h"
#include "platform/arena.h"
#include "platform/fixup.h"
#include "platform/hw.h"
#include "platform/metal/idt.h"
#include "platform/metal/io.h"
#include "platform/metal/kx.h"
#include "platform/nmi.h"
#include "platform/selftest.h"
#include "platform/timing.h"
#include "platform/trap.h"
#include "platform/window.h"
#include "platform/firmware.h"
#include "lib/out.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_intel.h"

extern const char _text[], _etext[];

/* Architecturally reserved x2APIC register MSR: #GP in x2APIC mode, and every 800h-8FFh MSR #GPs in xAPIC
 * mode (Intel SDM Vol. 3A §11.12.1.2-3).  QEMU's TCG before 8.0 never faults on RDMSR (it reads 0). */
#define MSR_BOGUS_X2APIC_RESERVED 0x801
/* An index no vendor defines: #GP on silicon and KVM; QEMU TCG returns 0 for unknown MSRs. */
#define MSR_BOGUS_UNDEFINED 0x4C4F4F4Bu
/* IA32_PKRS with a reserved bit: absent without PKS, bits 63:32 reserved with it (SDM Vol. 4, Table 2-2;
 * CPUID.(7,0):ECX[31]); #GP on silicon, KVM and TCG alike. */
#define PKRS_RESERVED_BIT (1ull << 32)
#define EFER_LMA (1ull << 10)		/* set whenever the CPU is in IA-32e mode, as we are */
#define RDPMC_BOGUS_INDEX 0x3FFFFFFFu	/* no such counter: #GP (SDM Vol. 2B, RDPMC) */
#define FIXUP_LOOP 1000
#define NMI_WAIT_TSC_FALLBACK 200000000ull	/* 100 ms at 2 GHz when the TSC rate is unknown */
#define FW_TIMER_US 20000
#define FW_TIMER_LIMIT_US 500000
#define MEM_STRIDE 64

static const char *vec_name(int v)
{
	switch (v) {
	case HW_OK: return "ok";
	case HW_FAULT_UD: return "#UD";
	case HW_FAULT_GP: return "#GP";
	case HW_ENODEV: return "no access";
	}
	return "other";
}

static void runtime_report(const struct win_platform *p)
{
	struct rec r;	/* on the stack */
	const struct idt_info *idt = idt_get();
	const struct ex_entry *s, *e;
	struct nmi_counts nc;
	uint64_t v;

	kx_ex_table(&s, &e);
	rec_start(&r, "runtime");
	rec_obj(&r, "idt");
	rec_hex(&r, "firmware_base", idt->fw_base);
	rec_u64(&r, "firmware_limit", idt->fw_limit);
	rec_hex(&r, "base", idt->base);
	rec_u64(&r, "limit", idt->limit);
	rec_str(&r, "ours", "vectors 0-28, 30-31 (29 #VC stays the firmware's)");
	rec_hex(&r, "cs", idt->cs);
	rec_u64(&r, "df_ist", idt->df_ist);
	rec_obj_end(&r);
	rec_u64(&r, "fixup_entries", (uint64_t)(e - s));
	rec_hex(&r, "image_base", fw_image_base());
	rec_u64(&r, "image_size", fw_image_size());
	rec_obj(&r, "apic");
	rec_str(&r, "mode", apic_mode_name(p ? p->apic.mode : APIC_NONE));
	if (p && p->apic.mode != APIC_NONE) {
		if (p->apic.mode == APIC_XAPIC)
			rec_hex(&r, "base", p->apic.base);
		rec_u64(&r, "id", apic_id(&p->apic));
		rec_u64(&r, "max_lvt", p->max_lvt);
		rec_obj(&r, "lvt");
		for (unsigned i = 0; i < WIN_LVT_COUNT; i++) {
			uint32_t lvt;
			if (win_lvt_present(p, i) && apic_read(&p->apic, win_lvt_reg(i), &lvt))
				rec_hex(&r, win_lvt_name(i), lvt);
		}
		rec_obj_end(&r);
	} else if (p) {
		rec_str(&r, "why", p->apic_why);
	}
	rec_obj_end(&r);
	rec_obj(&r, "pic");
	rec_hex(&r, "master_mask", inb(PIC1_DATA));
	rec_hex(&r, "slave_mask", inb(PIC2_DATA));
	rec_obj_end(&r);
	rec_bool(&r, "tsc_deadline", p && p->tsc_deadline);
	rec_bool(&r, "smi_count", p && p->smi_count);
	if (p && p->smi_count && hw_rdmsr(MSR_SMI_COUNT, &v) == HW_OK)
		rec_u64(&r, "smis_so_far", v);
	rec_bool(&r, "freeze_while_smm", p && p->freeze_smm);
	nmi_get_counts(&nc);
	rec_obj(&r, "nmi");
	rec_u64(&r, "total", nc.total);
	rec_u64(&r, "claimed", nc.claimed);
	rec_u64(&r, "unclaimed", nc.unclaimed);
	rec_obj_end(&r);
	rec_emit(&r);
}

static void test_fixup(const struct win_platform *p)
{
	struct st s;	/* 8 KiB on the stack */
	uint64_t v;
	int rc;

	st_begin(&s, "fixup");
	const struct ex_entry *start, *end;
	kx_ex_table(&start, &end);
	long bad = ex_check(start, end, (uintptr_t)_text, (uintptr_t)_etext);
	st_check(&s, "table", end > start && bad < 0, end - start, "%ld entries, %s", (long)(end - start),
		 bad < 0 ? "all inside .text, no duplicates" : "an entry points outside .text");

	struct cpuid_regs r1;
	hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r1);
	bool hv = (r1.ecx & CPUID1_ECX_HYPERVISOR) != 0;
	rc = hw_rdmsr(MSR_BOGUS_X2APIC_RESERVED, &v);
	/* An emulator that reads every unknown MSR as 0 cannot show the #GP; say so rather than fail. */
	st_check(&s, "rdmsr_bogus", (rc == HW_FAULT_GP || (hv && rc == HW_OK)) && v == 0, rc,
		 "rdmsr 0x%x returned %d (%s), value 0x%llx%s", MSR_BOGUS_X2APIC_RESERVED, rc, vec_name(rc),
		 (unsigned long long)v, rc == HW_OK ? ": this hypervisor does not fault on it" : "");
	rc = hw_wrmsr(MSR_IA32_PKRS, PKRS_RESERVED_BIT);
	st_check(&s, "wrmsr_bogus", rc == HW_FAULT_GP, rc, "wrmsr 0x%x <- 0x%llx returned %d (%s)", MSR_IA32_PKRS,
		 (unsigned long long)PKRS_RESERVED_BIT, rc, vec_name(rc));
	rc = hw_rdmsr(MSR_BOGUS_UNDEFINED, &v);
	st_check(&s, "rdmsr_undefined", rc == HW_FAULT_GP || rc == HW_OK, rc,
		 "rdmsr 0x%x returned %d (%s)%s", MSR_BOGUS_UNDEFINED, rc, vec_name(rc),
		 rc == HW_OK ? ": this CPU or emulator ignores unknown MSRs" : "");

	rc = hw_rdmsr(MSR_IA32_EFER, &v);
	st_check(&s, "rdmsr_good", rc == HW_OK && (v & EFER_LMA), rc, "IA32_EFER read %d (%s): 0x%llx, LMA %s", rc,
		 vec_name(rc), (unsigned long long)v, (v & EFER_LMA) ? "set" : "clear");
	int wc = rc == HW_OK ? hw_wrmsr(MSR_IA32_EFER, v) : rc;
	st_check(&s, "wrmsr_good", wc == HW_OK, wc, "IA32_EFER written back unchanged: %d (%s)", wc, vec_name(wc));

	rc = hw_rdpmc(0, &v);
	st_check(&s, "rdpmc_0", rc == HW_OK || rc == HW_FAULT_UD || rc == HW_FAULT_GP, rc,
		 "rdpmc 0 returned %d (%s)%s", rc, vec_name(rc), rc == HW_FAULT_UD ? ": RDPMC not implemented here" : "");
	rc = hw_rdpmc(RDPMC_BOGUS_INDEX, &v);
	st_check(&s, "rdpmc_bogus", rc == HW_FAULT_GP || rc == HW_FAULT_UD, rc, "rdpmc 0x%x returned %d (%s)",
		 RDPMC_BOGUS_INDEX, rc, vec_name(rc));

	uint64_t before = kx_fixup_count();
	unsigned gp = 0;
	for (unsigned i = 0; i < FIXUP_LOOP; i++)
		gp += hw_wrmsr(MSR_IA32_PKRS, PKRS_RESERVED_BIT) == HW_FAULT_GP;
	uint64_t taken = kx_fixup_count() - before;
	st_check(&s, "repeat", gp == FIXUP_LOOP && taken == FIXUP_LOOP, (int64_t)taken,
		 "%u of %u faulting writes recovered, %llu fixups taken", gp, FIXUP_LOOP, (unsigned long long)taken);
	st_end(&s);
}

struct snapshot {
	uint8_t pic1, pic2;
	uint32_t lvt[WIN_LVT_COUNT];
	bool lvt_ok[WIN_LVT_COUNT];
	uint64_t debugctl;
	bool debugctl_ok;
};

static void snap(const struct win_platform *p, struct snapshot *n)
{
	n->pic1 = inb(PIC1_DATA);
	n->pic2 = inb(PIC2_DATA);
	for (unsigned i = 0; i < WIN_LVT_COUNT; i++)
		n->lvt_ok[i] = win_lvt_present(p, i) && apic_read(&p->apic, win_lvt_reg(i), &n->lvt[i]);
	n->debugctl_ok = hw_rdmsr(MSR_IA32_DEBUGCTL, &n->debugctl) == HW_OK;
}

static void test_window(const struct win_platform *p)
{
	struct st s;	/* 8 KiB on the stack */
	struct snapshot before, inside, after;
	struct hw_window w, w2;
	struct win_view view;

	st_begin(&s, "window");
	snap(p, &before);
	bool entered = hw_window_enter(&w);
	snap(p, &inside);
	bool nested = hw_window_enter(&w2);
	if (nested)
		hw_window_leave(&w2);
	hw_window_leave(&w);
	snap(p, &after);
	win_inspect(&w, &view);

	st_check(&s, "entered", entered, entered, "hw_window_enter %s", entered ? "succeeded" : "failed");
	st_check(&s, "if_clear", w.if_verified_clear, w.if_verified_clear, "RFLAGS.IF %s inside (was %s at entry)",
		 w.if_verified_clear ? "read 0" : "was not 0", w.if_was_set ? "set" : "clear");
	st_check(&s, "pic_masked", inside.pic1 == 0xFF && inside.pic2 == 0xFF, inside.pic1 | inside.pic2 << 8,
		 "8259 masks inside: 0x%02x/0x%02x (before 0x%02x/0x%02x)", inside.pic1, inside.pic2, before.pic1,
		 before.pic2);
	unsigned present = 0, masked = 0, restored = 0;
	for (unsigned i = 0; i < WIN_LVT_COUNT; i++) {
		if (!before.lvt_ok[i])
			continue;
		present++;
		masked += inside.lvt_ok[i] && (inside.lvt[i] & LVT_MASKED);
		restored += after.lvt_ok[i] && after.lvt[i] == before.lvt[i];
	}
	st_check(&s, "lvt_masked", p->apic.mode != APIC_NONE && present && masked == present, masked,
		 "%u of %u LVT entries masked inside (APIC %s, max LVT %u)", masked, present,
		 apic_mode_name(p->apic.mode), p->max_lvt);
	st_check(&s, "lvt_restored", restored == present, restored, "%u of %u LVT entries restored bit for bit",
		 restored, present);
	st_check(&s, "pic_restored", after.pic1 == before.pic1 && after.pic2 == before.pic2,
		 after.pic1 | after.pic2 << 8, "8259 masks after: 0x%02x/0x%02x", after.pic1, after.pic2);
	st_check(&s, "debugctl_restored", !before.debugctl_ok || after.debugctl == before.debugctl,
		 (int64_t)after.debugctl, "IA32_DEBUGCTL 0x%llx after, 0x%llx before; freeze-while-SMM %s",
		 (unsigned long long)after.debugctl, (unsigned long long)before.debugctl,
		 view.freeze_set ? "was set inside" : "not supported");
	st_check(&s, "no_nesting", !nested, nested, "a second window inside the first was %s",
		 nested ? "allowed" : "refused");
	st_check(&s, "smi_count", true, w.smi_valid ? (int64_t)(w.smi_end - w.smi_start) : -1,
		 w.smi_valid ? "MSR_SMI_COUNT read across the window" : "SMIs cannot be counted on this CPU");
	activity_set("selftest window: firmware timer");
	bool fired = fw_timer_event_fires(FW_TIMER_US, FW_TIMER_LIMIT_US);
	st_check(&s, "firmware_timer", fired, fired, "a %u ms firmware timer event %s after the window",
		 FW_TIMER_US / 1000, fired ? "fired" : "never fired: the firmware's timer interrupt is lost");
	st_end(&s);
}

static volatile unsigned nmi_hits;

static bool count_nmi(void *ctx)
{
	(void)ctx;
	nmi_hits++;
	return true;
}

static uint64_t wait_budget(void)
{
	const struct timing_info *t = timing_get();
	return t->tsc_hz ? t->tsc_hz / 10 : NMI_WAIT_TSC_FALLBACK;	/* 100 ms */
}

/* Send a self-NMI and wait until the total NMI count moves. */
static bool self_nmi(const struct apic *a)
{
	struct nmi_counts c0, c1;
	nmi_get_counts(&c0);
	if (!apic_self_nmi(a))
		return false;
	uint64_t end = hw_tsc() + wait_budget();
	do {
		nmi_get_counts(&c1);
		if (c1.total != c0.total)
			return true;
		__asm__ volatile("pause");
	} while ((int64_t)(hw_tsc() - end) < 0);
	return false;
}

static void test_nmi(const struct win_platform *p)
{
	struct st s;	/* 8 KiB on the stack */
	struct nmi_counts c0, c1, c2;

	st_begin(&s, "nmi");
	if (p->apic.mode == APIC_NONE) {
		st_check(&s, "apic", false, 0, "no local APIC to send a self-NMI: %s", p->apic_why);
		st_end(&s);
		return;
	}
	nmi_get_counts(&c0);
	nmi_hits = 0;
	bool reg = nmi_register(count_nmi, NULL);
	bool sent = self_nmi(&p->apic);
	nmi_get_counts(&c1);
	nmi_unregister(count_nmi, NULL);
	st_check(&s, "dispatched", reg && sent && nmi_hits == 1, nmi_hits,
		 "self-NMI via the ICR (%s): callback ran %u time(s)", apic_mode_name(p->apic.mode), nmi_hits);
	st_check(&s, "counted", c1.total - c0.total == 1 && c1.claimed - c0.claimed == 1, c1.total - c0.total,
		 "NMIs taken %u, claimed %u", c1.total - c0.total, c1.claimed - c0.claimed);

	bool sent2 = self_nmi(&p->apic);
	nmi_get_counts(&c2);
	st_check(&s, "spurious_survived", sent2 && c2.unclaimed - c1.unclaimed == 1, c2.unclaimed - c1.unclaimed,
		 "an NMI nobody claims: counted as unclaimed (%u) and the run goes on", c2.unclaimed - c1.unclaimed);

	struct hw_window w;
	bool entered = hw_window_enter(&w);
	bool sent3 = entered && self_nmi(&p->apic);
	if (entered)
		hw_window_leave(&w);
	st_check(&s, "window_polluted", sent3 && hw_window_polluted(&w) && w.nmi_end - w.nmi_start == 1,
		 entered ? (int64_t)(w.nmi_end - w.nmi_start) : -1,
		 "an NMI inside a window: %u counted, window %s", w.nmi_end - w.nmi_start,
		 hw_window_polluted(&w) ? "marked polluted" : "NOT marked polluted");
	st_end(&s);
}

static bool fill_and_check(uint8_t *base, size_t size)
{
	for (size_t off = 0; off < size; off += MEM_STRIDE)
		*(volatile uint64_t *)(base + off) = off ^ 0x5A5A5A5A5A5A5A5Aull;
	for (size_t off = 0; off < size; off += MEM_STRIDE)
		if (*(volatile uint64_t *)(base + off) != (off ^ 0x5A5A5A5A5A5A5A5Aull))
			return false;
	return true;
}

static void check_arena(struct st *s, const char *what, uint32_t page_size)
{
	struct arena a;
	char why[128];

	if (!arena_get(page_size, &a, why, sizeof(why))) {
		st_check(s, what, false, 0, "arena_get(%u) failed: %s", page_size, why);
		return;
	}
	static const size_t probes[] = { 0, 4096 + 123, 2u * 1024 * 1024, ARENA_SIZE - 1 };
	unsigned good = 0;
	uint32_t seen = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(probes); i++) {
		seen = arena_page_size_at(a.base + probes[i]);
		good += seen == page_size;
	}
	st_check(s, what, good == ARRAY_SIZE(probes) && a.page_size == page_size, a.page_size,
		 "arena at 0x%llx: the walk finds %u-byte pages at %u of %u probes (%s)",
		 (unsigned long long)(uintptr_t)a.base, seen, good, (unsigned)ARRAY_SIZE(probes), a.how);
	bool mem = fill_and_check(a.base, a.size);
	st_check(s, page_size == ARENA_PAGE_4K ? "memory_4k" : "memory_2m", mem, mem,
		 "pattern written and read back over %zu KiB", a.size / 1024);
}

static void test_paging(const struct win_platform *p)
{
	struct st s;	/* 8 KiB on the stack */
	uint64_t cr3_fw = kx_read_cr3();

	st_begin(&s, "paging");
	uint32_t image_page = arena_page_size_at((const void *)test_paging);
	st_check(&s, "firmware_walk", image_page != 0, image_page,
		 "the firmware maps this code with %u-byte pages", image_page);
	check_arena(&s, "arena_4k", ARENA_PAGE_4K);
	check_arena(&s, "arena_2m", ARENA_PAGE_2M);
	uint64_t cr3_ours = kx_read_cr3();
	st_check(&s, "own_tables", cr3_ours != cr3_fw, 0, "CR3 0x%llx while arenas live (firmware's 0x%llx)",
		 (unsigned long long)cr3_ours, (unsigned long long)cr3_fw);
	st_check(&s, "code_unchanged", arena_page_size_at((const void *)test_paging) == image_page, image_page,
		 "this code is still mapped as the firmware mapped it");
	arena_release_all();
	uint64_t cr3_after = kx_read_cr3();
	st_check(&s, "cr3_restored", cr3_after == cr3_fw, 0, "CR3 0x%llx after arena_release_all",
		 (unsigned long long)cr3_after);
	st_end(&s);
}

/*
 * The worst moment for an exception: inside a measurement window, with the
 * arenas' page tables live.  The `fault` record must still come out, and
 * the recovery must put the interrupt masks and CR3 back.  Not static, not
 * inlined: the QEMU test finds this name at the fault's image offset.
 */
void __attribute__((noinline)) selftest_fault_ud(void)
{
	struct arena a;
	struct hw_window w;
	char why[128];

	activity_set("selftest fault: preparing the window");
	out_text("selftest fault: executing ud2 on purpose inside a window; a `fault` record marked expected and the "
		 "end of the run follow (the expected fault is not a run error)");
	if (!arena_get(ARENA_PAGE_4K, &a, why, sizeof(why)))
		out_text("selftest fault: no arena (%s); faulting with the firmware's page tables", why);
	hw_window_enter(&w);
	/* Only the ud2 is declared: the fault record marks it expected, not a run error. */
	activity_set("selftest fault: deliberate ud2 inside a window");
	activity_expect_fault(VEC_UD, "selftest=fault executes ud2 on purpose");
	__asm__ volatile("ud2" : : : "memory");
	activity_expect_fault(-1, NULL);
	hw_window_leave(&w);
}

/*
 * At the start of a measuring pass on an application processor
 * (platform_pass_selftest): the run must go on after a fault there, and
 * after a pass that never comes back.
 */
void selftest_in_pass(const char *list)
{
	unsigned mask;
	char why[128];
	struct hw_window w;

	if (!list[0] || !selftest_parse(list, &mask, why, sizeof(why)))
		return;
	/* The first such pass only: the next ones show the run measuring again after the firmware stopped it. */
	static volatile bool hung;
	if ((mask & ST_AP_HANG) && !hung) {
		hung = true;
		out_text("selftest aphang: spinning inside a window on purpose; pass_timeout_s ends this pass");
		hw_window_enter(&w);
		activity_set("selftest aphang: deliberate spin inside a window");
		activity_expect_hang("selftest=aphang spins on purpose");
		for (;;)
			__asm__ volatile("pause" : : : "memory");
	}
	if (mask & ST_AP_FAULT) {
		out_text("selftest apfault: executing ud2 on purpose inside a window on this processor; a `fault` "
			 "record marked expected follows and the run goes on");
		hw_window_enter(&w);
		activity_set("selftest apfault: deliberate ud2 inside a window");
		activity_expect_fault(VEC_UD, "selftest=apfault executes ud2 on purpose");
		__asm__ volatile("ud2" : : : "memory");
		activity_expect_fault(-1, NULL);
		hw_window_leave(&w);
	}
}

void selftest_run(const struct win_platform *p, const char *list)
{
	unsigned mask;
	char why[128];
	static void (*const tests[])(const struct win_platform *) = { test_fixup, test_window, test_nmi, test_paging };
	static const char activities[][16] = { "selftest fixup", "selftest window", "selftest nmi",
					      "selftest paging" };

	runtime_report(p);
	if (!list[0])
		return;
	if (!selftest_parse(list, &mask, why, sizeof(why))) {
		rec_error("selftest", "selftest", "%s", why);
		return;
	}
	if (!p) {
		selftest_skip(list, "the runtime is not initialised");
		return;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(tests); i++) {
		if (!(mask & (1u << i)))
			continue;
		const char *prev = activity_set(activities[i]);
		tests[i](p);
		activity_set(prev);
	}
	if (mask & (ST_AP_FAULT | ST_AP_HANG))
		out_text("selftest: apfault and aphang act in each measuring pass on another processor (cpus=)");
	if (mask & ST_FAULT)
		selftest_fault_ud();
}
