/*
 * linux/irq_count.h - the interrupts one CPU took, as /proc/interrupts tells them.
 *
 * A Linux process cannot mask interrupts, so the host's window counts them
 * instead (linux/hw_linux.c).  Reading /proc/interrupts is the costly part:
 * the kernel formats every IRQ of every CPU for each read.  These are the
 * pure parts, tested on their own: the parse of that text, and when a
 * window may start from the count its predecessor ended with.
 */
#ifndef PMUBOOT_LINUX_IRQ_COUNT_H
#define PMUBOOT_LINUX_IRQ_COUNT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The sum of CPU `cpu`'s column of /proc/interrupts text (NUL-terminated), every row (device IRQs and
 * the architecture's: LOC, RES, CAL, TLB...).  ERR: and MIS: hold one system-wide count, in CPU0's
 * place: it adds to CPU0's sum only.  False when the header names no such CPU.
 */
bool irq_count_column(const char *text, int cpu, uint64_t *sum);

/*
 * A window's count at entry may be the previous window's at its end, read moments before on the same
 * CPU: any interrupt since then is counted against the new window, never lost, and a window then costs
 * one read of /proc/interrupts instead of two.  The gap is bounded so that a sample is not thrown
 * away for an interrupt taken long before it began (a tick every 1-10 ms).
 */
#define IRQ_CHAIN_MAX_NS 200000ull /* 0.2 ms */

struct irq_chain {
	bool valid;	/* a count was read */
	int cpu;	/* on this CPU */
	uint64_t count; /* the count read */
	uint64_t at_ns; /* when it was read (CLOCK_MONOTONIC_RAW) */
};

/* Remember a count read on cpu at now_ns. */
void irq_chain_note(struct irq_chain *c, int cpu, uint64_t count, uint64_t now_ns);
/* Whether a window entered on cpu at now_ns may start from the noted count (then *count holds it). */
bool irq_chain_reuse(const struct irq_chain *c, int cpu, uint64_t now_ns, uint64_t *count);

#endif
