/*
 * linux/hw_linux.c - platform/hw.h under Linux, for pmuboot-host.
 *
 * CPUID is the instruction itself unless a CPUID source (a dump file) is
 * installed.  MSRs go through /dev/cpu/N/msr when the msr driver is loaded
 * and we may open it (root); otherwise every access reports HW_ENODEV.
 * An installed MSR source (a modelled PMU) answers every MSR access
 * instead; otherwise, with a CPUID source, the real MSRs belong to another
 * CPU and read as absent.
 * RDPMC is not used on the host: counting goes through perf_event_open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "platform/hw.h"
#include "lib/x86/cpuid.h"
#include "linux/cpuinfo_linux.h"
#include "linux/hw_linux.h"
#include "linux/irq_count.h"

static hw_cpuid_source_fn cpuid_source;
static void *cpuid_ctx;
static struct hw_msr_source msr_source;
static bool have_msr_source;
static int msr_fd = -2;	/* -2: not tried yet */

void hw_linux_set_cpuid_source(hw_cpuid_source_fn fn, void *ctx)
{
	cpuid_source = fn;
	cpuid_ctx = ctx;
}

void hw_linux_set_msr_source(const struct hw_msr_source *src)
{
	have_msr_source = src != NULL;
	if (src)
		msr_source = *src;
}

int hw_linux_pinned_cpu(void)
{
	int cpu = sched_getcpu();
	return cpu < 0 ? 0 : cpu;
}

void hw_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *out)
{
	if (cpuid_source) {
		cpuid_source(cpuid_ctx, leaf, subleaf, out);
		return;
	}
	__asm__ volatile("cpuid"
			 : "=a"(out->eax), "=b"(out->ebx), "=c"(out->ecx), "=d"(out->edx)
			 : "a"(leaf), "c"(subleaf));
}

void hw_linux_cpu_moved(void)
{
	if (msr_fd >= 0)
		close(msr_fd);
	msr_fd = -2;
}

static int msr_open(void)
{
	if (msr_fd == -2) {
		char path[64];
		snprintf(path, sizeof(path), "/dev/cpu/%d/msr", hw_linux_pinned_cpu());
		msr_fd = open(path, O_RDWR | O_CLOEXEC);
		if (msr_fd < 0)
			msr_fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return msr_fd;
}

int hw_rdmsr(uint32_t msr, uint64_t *val)
{
	*val = 0;
	if (have_msr_source) {
		int r = msr_source.rdmsr(msr_source.ctx, msr, val);
		if (r != HW_OK)
			*val = 0;
		return r;
	}
	if (cpuid_source || msr_open() < 0)
		return HW_ENODEV;
	if (pread(msr_fd, val, sizeof(*val), msr) != sizeof(*val))
		return errno == EIO ? HW_FAULT_GP : HW_ENODEV;	/* the msr driver reports #GP as EIO */
	return HW_OK;
}

int hw_wrmsr(uint32_t msr, uint64_t val)
{
	if (have_msr_source)
		return msr_source.wrmsr(msr_source.ctx, msr, val);
	if (cpuid_source || msr_open() < 0)
		return HW_ENODEV;
	if (pwrite(msr_fd, &val, sizeof(val), msr) != sizeof(val))
		return errno == EIO ? HW_FAULT_GP : HW_ENODEV;
	return HW_OK;
}

int hw_rdpmc(uint32_t index, uint64_t *val)
{
	(void)index;
	*val = 0;
	return HW_ENODEV;
}

/*
 * A process: no privileged instructions, and Linux's drivers own the thermal logs, the clock and IBS.
 * Its windows cannot hold the tick off: a sample (the calibration's runs, about 75 us, and four runs of
 * the kernel) of at most HOST_RUN_US per run spans about 275 us, so a 250 Hz tick spoils about one in
 * fifteen and a 1000 Hz tick about one in four, which the drop budget takes again.
 */
#define HOST_RUN_US 50u
const struct hw_platform *hw_platform(void)
{
	static const struct hw_platform p = { .ring0 = false, .owns_machine = false,
					      .shared_with = "Linux, whose drivers own the thermal logs, cpufreq and IBS",
					      .run_us_max = HOST_RUN_US };
	return &p;
}

/*
 * XCR0 as Linux set it: XGETBV runs at any privilege once CR4.OSXSAVE is set
 * (CPUID.01H:ECX.OSXSAVE, SDM Vol. 2B XGETBV); XSETBV would #GP here, so a
 * process only reads it.  A CPUID dump describes another machine's state.
 */
void hw_vector_state(struct hw_vector_state *out)
{
	struct cpuid_regs r;
	uint32_t lo = 0, hi = 0;

	memset(out, 0, sizeof(*out));
	if (cpuid_source) {
		out->who = "a CPUID dump: XCR0 belongs to the machine it came from";
		return;
	}
	__asm__ volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx) : "a"(CPUID_LEAF_SIGNATURE), "c"(0u));
	if (!(r.ecx & CPUID1_ECX_OSXSAVE)) {
		out->who = "Linux left CR4.OSXSAVE clear: no XCR0";
		return;
	}
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0u));
	out->known = true;
	out->xcr0 = out->xcr0_found = ((uint64_t)hi << 32) | lo;
	out->who = "Linux (a process cannot change XCR0)";
}

bool hw_os_microcode(uint32_t *rev, char *source, unsigned long source_cap)
{
	/* A dump's CPU is another machine's: this one's microcode says nothing about it. */
	if (cpuid_source)
		return false;
	int cpu = hw_linux_pinned_cpu();
	if (!cpuinfo_microcode_now(cpu, rev))
		return false;
	snprintf(source, source_cap, "/proc/cpuinfo, processor %d", cpu);
	return true;
}

uint64_t hw_tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * A user process cannot mask interrupts.  The host window instead counts
 * what can disturb a sample and reports it in the NMI fields: context
 * switches of this thread (getrusage) and interrupts taken by this CPU
 * (the CPU's column of /proc/interrupts, timer ticks included).  A sample
 * during which either moved is polluted, as one with an NMI would be on
 * bare metal, and the harness takes it again.  A window entered right
 * after another starts from that one's last count (linux/irq_count.h):
 * samples run back to back, and the read was a third of a full
 * instruction table's time.
 */
static uint32_t switches(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return (uint32_t)(ru.ru_nvcsw + ru.ru_nivcsw);
}

#define PROC_INTERRUPTS_MAX 65536
/* struct hw_window's opaque[]: [0] the interrupts at entry, [WIN_POLLED] nonzero once polled. */
#define WIN_POLLED 1

/* Sum of this CPU's column in /proc/interrupts; 0 when it cannot be read. */
static uint64_t cpu_interrupts(int cpu)
{
	static char buf[PROC_INTERRUPTS_MAX];
	int fd = open("/proc/interrupts", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	uint64_t sum;
	return irq_count_column(buf, cpu, &sum) ? sum : 0;
}

#define NS_PER_S 1000000000ull

uint64_t hw_linux_mono_raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* The last count read, which the next window may start from (linux/irq_count.h). */
static struct irq_chain irq_last;

bool hw_window_enter(struct hw_window *w)
{
	w->smi_valid = false;
	w->smi_start = w->smi_end = 0;
	w->nmi_what = "context switches and interrupts";
	w->if_was_set = true;
	w->if_verified_clear = false;
	if (have_msr_source && msr_source.own_windows) {
		w->nmi_start = w->nmi_end = 0;
		return true;
	}
	int cpu = hw_linux_pinned_cpu();
	uint64_t start;
	if (!irq_chain_reuse(&irq_last, cpu, hw_linux_mono_raw_ns(), &start))
		start = cpu_interrupts(cpu);
	w->opaque[0] = start;
	w->opaque[WIN_POLLED] = 0;
	w->nmi_start = switches();
	w->nmi_end = w->nmi_start;
	return true;
}

void hw_window_poll(struct hw_window *w)
{
	if (have_msr_source && msr_source.own_windows)
		return;
	uint32_t sw = switches();
	int cpu = hw_linux_pinned_cpu();
	uint64_t now = cpu_interrupts(cpu);
	irq_chain_note(&irq_last, cpu, now, hw_linux_mono_raw_ns());
	w->nmi_end = sw + (uint32_t)(now - w->opaque[0]);
	w->opaque[WIN_POLLED] = 1;
}

/*
 * A window already polled keeps that poll's counts: its only poller, the ledger, polls as the last thing
 * before the window is left, and reading /proc/interrupts (about 33 us here, the kernel formats every
 * IRQ of every CPU) a third time per sample was a sixth of the instruction table's time.
 */
void hw_window_leave(struct hw_window *w)
{
	if (!w->opaque[WIN_POLLED])
		hw_window_poll(w);
}

bool hw_nmi_route_eilvt(unsigned offset, hw_nmi_fn fn, void *ctx, char *why, unsigned long why_cap)
{
	(void)offset;
	(void)fn;
	(void)ctx;
	snprintf(why, why_cap, "a Linux process cannot program the local APIC");
	return false;
}

void hw_nmi_unroute_eilvt(unsigned offset)
{
	(void)offset;
}

/* A described machine (the PMU model) may deliver PMIs; the real one cannot be reached from here. */
bool hw_nmi_route_pmi(hw_nmi_fn fn, void *ctx, char *why, unsigned long why_cap)
{
	if (have_msr_source && msr_source.route_pmi)
		return msr_source.route_pmi(msr_source.ctx, fn, ctx, why, why_cap);
	snprintf(why, why_cap, "no APIC access: a Linux process cannot program the local APIC's "
		 "performance-counter entry");
	return false;
}

void hw_nmi_unroute_pmi(void)
{
	if (have_msr_source && msr_source.route_pmi)
		msr_source.route_pmi(msr_source.ctx, NULL, NULL, NULL, 0);
}
