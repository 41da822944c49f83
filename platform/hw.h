/*
 * platform/hw.h - the narrow hardware interface.
 *
 * pmu/, events/ and the bench/ harness reach the machine only through these
 * functions.  Three implementations exist:
 *   platform/metal/hw_metal.c   the UEFI image, on bare metal (fault-tolerant via
 *                       the exception-fixup table);
 *   linux/hw_linux.c  pmuboot-host on Linux (cpuid instruction,
 *                       /dev/cpu/N/msr where permitted, rdtsc);
 *   tests/fake/hw_fake.c   unit tests (a modelled CPU: CPUID leaves, MSRs
 *                       that exist or #GP, counters that count).
 * Keep it narrow: anything added here must be implemented three times.
 */
#ifndef PMUBOOT_PLATFORM_HW_H
#define PMUBOOT_PLATFORM_HW_H

#include <stdbool.h>
#include <stdint.h>

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

/* Error codes of the safe accessors: 0, or the exception that was absorbed. */
#define HW_OK 0
#define HW_FAULT_UD 6		/* #UD: invalid opcode (e.g. RDPMC under QEMU TCG) */
#define HW_FAULT_GP 13		/* #GP: MSR absent, reserved bits, bad counter index */
#define HW_ENODEV (-1)		/* no access at all (host without /dev/cpu/N/msr) */

void hw_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out);

/* Never fault: return HW_OK, HW_FAULT_* or HW_ENODEV. */
int hw_rdmsr(uint32_t msr, uint64_t *val);
int hw_wrmsr(uint32_t msr, uint64_t val);
int hw_rdpmc(uint32_t index, uint64_t *val);

/*
 * What this platform lets the portable code do, where the image and a
 * process differ: the code above the seam asks this, never "am I the image".
 */
struct hw_platform {
	/* Privileged instructions may run inline (ring 0): the measuring routines' own RDMSR/WRMSR
	 * (APERF around a run, the audit's start and stop writes right around its loop). */
	bool ring0;
	/* No operating system shares the processor: its thermal logs, its clock and IBS are the run's
	 * to program.  When not, why not (for records: who owns them). */
	bool owns_machine;
	const char *shared_with;
	/* The longest one measured run should take, microseconds (0: no limit).  Where the window masks
	 * interrupts (the image) a run may be as long as it likes; a process cannot mask them, and the
	 * scheduler's tick (every 1 to 10 ms, CONFIG_HZ) spoils any sample it lands in, so a run much
	 * longer than this is seldom clean (bench/harness.h, BENCH_TARGET_TICKS). */
	uint32_t run_us_max;
};
const struct hw_platform *hw_platform(void);

/*
 * The extended state the code may use here: XCR0 (SDM Vol. 1 §13.3; platform/vec.h
 * names its bits and decodes which vector extensions that makes usable).
 * known is false where XCR0 cannot be read (CR4.OSXSAVE clear, so XGETBV
 * would #UD) or belongs to another CPU (a CPUID dump).  xcr0_found is what it
 * was before the run changed it (the image enables AVX and AVX-512 state and
 * puts XCR0 back at exit: platform/vec.c); who says in words who set it up.
 */
struct hw_vector_state {
	bool known;
	uint64_t xcr0, xcr0_found;
	const char *who;
};
void hw_vector_state(struct hw_vector_state *out);

/*
 * The operating system's own word for this processor's microcode revision,
 * for where MSR 8BH cannot be read (a process without the msr module: Linux
 * read it at boot and shows it in /proc/cpuinfo).  False, with nothing
 * written, where there is none: bare metal, a CPUID dump, the fake CPU.
 * source names where it came from ("/proc/cpuinfo, processor 3").
 */
bool hw_os_microcode(uint32_t *rev, char *source, unsigned long source_cap);

/* Serialised TSC read (lfence; rdtsc; lfence), the one place timestamps come from. */
uint64_t hw_tsc(void);

/*
 * The interrupts-off measurement window.  enter masks every interrupt
 * source the platform has (PIC, local APIC LVTs, then cli) and records what
 * it saw; leave restores exactly that.  The window struct carries what a
 * sample needs to be judged: NMIs taken inside it and SMIs where the CPU
 * counts them.  hw_window_enter returns false when the window could not be
 * established (then nothing was changed).
 */
struct hw_window {
	uint64_t smi_start, smi_end;	/* MSR_SMI_COUNT where readable */
	uint32_t nmi_start, nmi_end;	/* NMIs taken that no registered source claimed (platform/nmi.h):
					 * an IBS NMI routed by hw_nmi_route_eilvt is part of the
					 * measurement, not pollution */
	bool smi_valid;
	const char *nmi_what;		/* what nmi_start/nmi_end count, for records: "unclaimed NMIs";
					 * pmuboot-host "context switches and interrupts" (a process
					 * cannot mask interrupts) */
	bool if_was_set;		/* RFLAGS.IF at entry */
	bool if_verified_clear;		/* RFLAGS.IF read back as 0 inside */
	uint64_t opaque[24];		/* implementation's saved state */
};
bool hw_window_enter(struct hw_window *w);
void hw_window_leave(struct hw_window *w);
/*
 * Inside an open window: bring smi_end and nmi_end up to now without
 * leaving, so a caller can judge the window before it closes
 * (pmu/audit/ledger.h).  hw_window_leave reads them again (on the host,
 * whose read is costly, a window polled keeps its poll's: linux/hw_linux.c).
 */
void hw_window_poll(struct hw_window *w);
/* True when the sample taken inside w is polluted (an SMI or NMI happened). */
static inline bool hw_window_polluted(const struct hw_window *w)
{
	return (w->smi_valid && w->smi_end != w->smi_start) || w->nmi_end != w->nmi_start;
}

/*
 * NMI delivery for IBS.  Route the local APIC extended LVT entry `offset`
 * (AMD APM Vol. 2 §16.4.5, APIC_EILVTn) as an NMI and call fn from the NMI
 * handler each time it fires.  Returns false, with the reason in why, when
 * that cannot be done here (no APIC access on the host, an offset already
 * in use, ...); the caller then falls back to polling.
 *
 * fn returns whether its source had work for this NMI (it claims it).  NMIs
 * coalesce and other sources share vector 2, so only the source's own
 * registers can say so: an NMI no callback claims is counted as unclaimed
 * (pollution of the window it lands in), never credited to a source.
 */
typedef bool (*hw_nmi_fn)(void *ctx);
bool hw_nmi_route_eilvt(unsigned offset, hw_nmi_fn fn, void *ctx, char *why, unsigned long why_cap);
/* Mask the entry again and restore what it held; NMIs still in flight are absorbed. */
void hw_nmi_unroute_eilvt(unsigned offset);

/*
 * The performance-monitoring interrupt as an NMI (the audit's overflow check):
 * the local APIC's performance-counter LVT entry (SDM Vol. 3A §11.5.1, APIC
 * offset 340H; AMD APM Vol. 2 §16.4) set to NMI delivery, unmasked, and fn
 * called from the NMI handler each time it fires.  While routed, the
 * interrupts-off window leaves that entry alone, so a PMI arrives inside it
 * and counts as claimed, not as pollution.  False, with the reason in why,
 * where that cannot be done (no usable local APIC; a process, which reaches
 * no APIC).
 */
bool hw_nmi_route_pmi(hw_nmi_fn fn, void *ctx, char *why, unsigned long why_cap);
/* The entry back as found. */
void hw_nmi_unroute_pmi(void);

#endif
