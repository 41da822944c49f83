/*
 * platform/window.h - the interrupts-off measurement window, as logic.
 *
 * win_enter turns interrupts off (cli), then masks every source the
 * platform has: both 8259 PICs, each local APIC LVT entry that exists
 * (timer, thermal, performance counter, LINT0, LINT1, error, CMCI), and
 * disarms the TSC-deadline timer; it then verifies RFLAGS.IF reads 0.
 * win_leave restores exactly what was found, in the reverse order.  Across
 * the window it counts SMIs (Intel MSR_SMI_COUNT) and unclaimed NMIs, and
 * sets IA32_DEBUGCTL.FREEZE_WHILE_SMM where supported.
 *
 * cli comes first, not last: nothing may run between reading an LVT and
 * masking it, or the firmware's timer handler could re-arm what was just
 * saved.  The AMD extended LVTs are left alone: they carry IBS NMIs the
 * measurement asks for (platform/metal/hw_metal.c routes them).
 *
 * Portable: platform/metal/platform_metal.c implements hw_window_enter/leave with
 * it; the registers are reached through platform/hw.h and platform/hw_regs.h,
 * so the unit tests run it against the fake CPU's register file.
 */
#ifndef PMUBOOT_PLATFORM_WINDOW_H
#define PMUBOOT_PLATFORM_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/apic.h"
#include "platform/hw.h"
#include "lib/x86/msr_intel.h"


/* 8259A ports (PC/AT; Intel 8259A datasheet: OCW1 = interrupt mask register). */
#define PIC1_DATA 0x21
#define PIC2_DATA 0xA1

#define WIN_LVT_COUNT 7

struct win_platform {
	struct apic apic;
	char apic_why[96];	/* why there is no APIC, when there is none */
	uint8_t max_lvt;	/* APIC version register: LVT entries minus one */
	bool pic;		/* mask the legacy 8259 pair */
	bool tsc_deadline;	/* CPUID.1:ECX[24] */
	bool smi_count;		/* MSR_SMI_COUNT reads (Intel only: on AMD 0x34 means nothing) */
	bool freeze_smm;	/* IA32_PERF_CAPABILITIES.FREEZE_WHILE_SMM */
};

/* What the platform offers, from CPUID (hw_cpuid) and careful MSR probes (hw_rdmsr). */
void win_probe(struct win_platform *p);

/* The LVT entries this platform has: name and xAPIC offset of entry i (i < WIN_LVT_COUNT). */
bool win_lvt_present(const struct win_platform *p, unsigned i);
const char *win_lvt_name(unsigned i);
uint32_t win_lvt_reg(unsigned i);

/* LVT entry i is routed by us (the PMI): windows leave it unmasked and do not save or restore it. */
void win_keep_lvt(unsigned i, bool keep);
/* The index of the performance-counter entry among the LVT entries. */
#define WIN_LVT_PERF_INDEX 4

/* False (nothing changed) when a window is already open: windows do not nest. */
bool win_enter(const struct win_platform *p, struct hw_window *w);
void win_leave(const struct win_platform *p, struct hw_window *w);
/* Inside the window: smi_end and nmi_end as they are now (hw_window_poll). */
void win_poll(const struct win_platform *p, struct hw_window *w);

/* The open window, or NULL (the fault path closes it). */
struct hw_window *win_active(void);
/* Forget the open window without restoring anything (after the fault path restored a copy). */
void win_forget(void);

/* Inspection for the self-test: what enter saved, and which masks did not stick. */
struct win_view {
	uint8_t pic1, pic2;
	bool pic_saved;
	uint32_t lvt_saved;	/* bit i: entry i was read and masked */
	uint32_t lvt_mask_failed;	/* bit i: the mask bit did not read back set */
	uint32_t lvt[WIN_LVT_COUNT];
	bool deadline_saved;
	uint64_t deadline;
	bool freeze_set;
};
void win_inspect(const struct hw_window *w, struct win_view *v);

#endif
