/*
 * pmu/audit/ledger.h - the quiet-machine ledger: was a measuring window
 * disturbed, and by what?
 *
 * Around each interrupts-off window (platform/hw.h) the ledger reads every
 * source this processor has that can say the window was disturbed:
 *   smi_count        Intel MSR_SMI_COUNT (34H), SMIs since reset (32 bits);
 *   smi_event        where there is no such MSR, the event set's `smi` event
 *                    (AMD PMCx02B) on a spare counter; the caller counts it;
 *   frequency        IA32_APERF / IA32_MPERF (CPUID.06H:ECX[0]): the clock
 *                    held within LEDGER_FREQ_TOLERANCE_MILLI of its reference;
 *   thermal          IA32_THERM_STATUS log bits (CPUID.01H:EDX[22], 06H);
 *   package_thermal  IA32_PACKAGE_THERM_STATUS log bits (CPUID.06H:EAX[6]);
 *   nmi              the window's unclaimed NMIs (pmuboot-host: context
 *                    switches and interrupts, struct hw_window's nmi_what).
 * It also reports whether IA32_DEBUGCTL.FREEZE_WHILE_SMM was in force in
 * the windows (platform/window.c sets it where IA32_PERF_CAPABILITIES[12]
 * says it exists): a property of the counts, not a source of disturbance.
 * docs/benchmarks.md ("The quiet-machine ledger") gives the rules.
 *
 * Everything goes through platform/hw.h's hw_rdmsr/hw_wrmsr, which never
 * fault; a source whose probe fails is absent with the reason.  Integers
 * only.  One struct ledger per processor, initialised on that processor.
 *
 * Use (inside an open window, nothing else between):
 *     hw_window_enter(&w);  ledger_open(l, &m);
 *     ... the measured code, and reading its results ...
 *     disturbed = ledger_close(l, &m, &w, smi_events, &v);  hw_window_leave(&w);
 * Whatever happens after ledger_close cannot touch what was measured, so
 * its verdict is the sample's.
 */
#ifndef PMUBOOT_PMU_AUDIT_LEDGER_H
#define PMUBOOT_PMU_AUDIT_LEDGER_H

#include "events/events.h"
#include "platform/hw.h"
#include "lib/libc.h"
#include "lib/record.h"
#include "pmu/caps/pmu_caps.h"
#include "cpu/cpu.h"

enum ledger_source {
	LEDGER_SMI_COUNT,
	LEDGER_SMI_EVENT,
	LEDGER_FREQUENCY,
	LEDGER_THERMAL,
	LEDGER_PACKAGE_THERMAL,
	LEDGER_NMI,
	LEDGER_SOURCES
};
#define LEDGER_BIT(src) (1u << (src))
/* The source's key in records: "smi_count", "smi_event", "frequency", "thermal", "package_thermal", "nmi". */
const char *ledger_source_name(enum ledger_source s);

/* The clock must hold within 1% (10 thousandths) of the reference. */
#define LEDGER_FREQ_TOLERANCE_MILLI 10
/* Fewer MPERF ticks than this in a window: too short to judge the clock at 0.1% resolution. */
#define LEDGER_FREQ_MIN_TICKS 10000u

/* ledger_close's smi_events when the caller counted no SMI event in the window. */
#define LEDGER_NO_SMI_EVENT UINT64_MAX

/* Where the frequency reference comes from. */
enum ledger_ref {
	LEDGER_REF_NONE,	/* not known yet: the next clean window sets it */
	LEDGER_REF_LEARNED,	/* the first window since ledger_rebase that no other source disturbed */
	LEDGER_REF_PINNED,	/* given by ledger_pin_reference (a pinned clock, freq=) */
};

struct ledger_source_state {
	bool available;
	const char *why;	/* why not, when !available (static text or l->why_buf) */
};

/* One status MSR's thermal logs. */
struct ledger_therm {
	uint64_t logs;		/* log bits CPUID enumerates (those a write may touch) */
	uint64_t judged;	/* the log bits that mean the clock was limited (thresholds are not) */
	uint64_t keep;		/* bits always written as 1 (package HFI status: not ours to clear) */
	uint64_t found;		/* log bits found set at ledger_init */
	uint64_t stuck;		/* log bits that could not be cleared: blind to new events */
	int clear_err;		/* HW_OK, or the error the clearing write returned */
	bool cleared;		/* found bits were cleared at init */
};

struct ledger {
	struct ledger_source_state src[LEDGER_SOURCES];
	char why_buf[LEDGER_SOURCES][64];
	bool clear_logs;		/* clear thermal log bits (the image owns them; a Linux process does not) */
	struct ledger_therm therm, pkg;
	struct event_def smi_event;	/* the catalogue's `smi` event, when that source exists */
	/* IA32_DEBUGCTL.FREEZE_WHILE_SMM */
	bool freeze_supported;		/* IA32_PERF_CAPABILITIES[12] */
	const char *freeze_why;		/* why not supported, or NULL */
	uint32_t windows;		/* windows opened */
	uint32_t frozen_windows;	/* windows in which DEBUGCTL[14] read set */
	uint32_t freeze_unread;		/* windows in which DEBUGCTL could not be read */
	/* The frequency reference: APERF/MPERF in millionths. */
	enum ledger_ref ref;
	uint64_t ref_ppm;
	const char *ref_source;		/* for pinned references: who pinned it */
	const char *nmi_what;		/* what the last window's NMI count counted (platform/hw.h) */
};

/* Readings taken by ledger_open. */
struct ledger_mark {
	uint32_t ok;			/* LEDGER_BIT per source read */
	uint32_t smi;
	uint64_t aperf, mperf;
	uint64_t therm, pkg;
	bool frozen;			/* DEBUGCTL.FREEZE_WHILE_SMM read set */
};

struct ledger_verdict {
	uint32_t sources;		/* LEDGER_BIT per source that found a disturbance */
	uint32_t judged;		/* LEDGER_BIT per source that could judge this window */
	uint32_t smis;			/* SMIs counted (the MSR's delta, or the event's count) */
	uint32_t nmis;			/* the window's NMI count (nmi_what says of what) */
	const char *nmi_what;
	int32_t freq_moved_milli;	/* the clock against its reference, thousandths (signed) */
	uint64_t freq_ppm;		/* APERF/MPERF of the window, millionths (0: not judged) */
	uint64_t therm_bits, pkg_bits;	/* log bits that appeared in the window */
};

struct ledger_opts {
	bool clear_logs;	/* clear the thermal log bits at init and after each event */
};

/*
 * Which sources exist here, and why the others do not.  caps may be NULL
 * (the ledger probes IA32_PERF_CAPABILITIES itself).  Clears the thermal
 * log bits found set (only bits CPUID enumerates; HFI kept) and records
 * which were found.  ledger_init is ledger_init_opts with clear_logs set.
 */
void ledger_init(struct ledger *l, const struct cpu_info *ci, const struct pmu_caps *caps);
void ledger_init_opts(struct ledger *l, const struct cpu_info *ci, const struct pmu_caps *caps,
		      const struct ledger_opts *o);

/* Inside an open window, right after hw_window_enter: read every available source. */
void ledger_open(struct ledger *l, struct ledger_mark *m);

/*
 * Right before hw_window_leave.  smi_events: the count of the SMI event if
 * the caller counted one in this window (LEDGER_NO_SMI_EVENT otherwise).  w:
 * the open window (NULL when there is none: NMIs are then not judged); its
 * NMI count is polled here.  Returns true when the window was disturbed; v
 * says by what and how much.  Clears thermal log bits that appeared (when
 * the ledger clears logs), so the next window can see the next event.
 */
bool ledger_close(struct ledger *l, const struct ledger_mark *m, struct hw_window *w, uint64_t smi_events,
		  struct ledger_verdict *v);

/*
 * After hw_window_leave, for a caller without a ledger (v zeroed): the
 * window alone judges, by its NMIs and the SMIs platform/window.c counted
 * from enter to leave.  On a ledger's v it folds those in too (a stricter
 * verdict than the sample needs).  Returns whether v says disturbed.
 */
bool ledger_window_left(struct ledger_verdict *v, const struct hw_window *w);

/* Forget a learned frequency reference (a new variant begins); a pinned one stays. */
void ledger_rebase(struct ledger *l);
/*
 * The hook for a pinned clock (freq=): every window's APERF/MPERF must be
 * within the tolerance of ratio_ppm (millionths); 0 goes back to learning.
 */
void ledger_pin_reference(struct ledger *l, uint64_t ratio_ppm, const char *source);

/*
 * Into an open object: "sources" (those available), "absent" (source: why
 * not), the SMI event's name, the frequency reference, what the NMI count
 * counts, thermal logs it is blind to, and FREEZE_WHILE_SMM (supported, in
 * force in the windows so far).  docs/results-format.md, `bench`.
 */
void ledger_sources_fields(struct rec *r, const struct ledger *l);
/* What ledger_init found: thermal log bits found set and whether cleared; the frequency tolerance. */
void ledger_init_fields(struct rec *r, const struct ledger *l);

/* The event (catalogue role `smi`) to add on a spare counter, or NULL (none, or the MSR is read instead). */
const struct event_def *ledger_smi_event(const struct ledger *l);

/* One readable phrase for a verdict: "2 SMIs", "frequency moved 1.4%", "thermal log (PROCHOT)". */
const char *ledger_verdict_text(const struct ledger_verdict *v, char *buf, size_t cap);

#endif
