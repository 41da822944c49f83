/* pmu/audit/ledger.c - the quiet-machine ledger; see ledger.h and docs/benchmarks.md. */
#include "pmu/audit/ledger.h"
#include "lib/strbuf.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_intel.h"

/*
 * Thermal log bits: which of them mean the clock was limited (judged), and
 * their names.  Thresholds #1/#2 only say the temperature passed a value
 * some software chose (IA32_THERM_INTERRUPT), so they are cleared at init
 * like the others but never make a window disturbed.
 */
static const struct {
	uint64_t status;	/* the status bit; its log is THERM_LOG_OF(status) */
	bool judged;
	const char *key;	/* record name */
	const char *text;	/* readable name */
} therm_bits[] = {
	{ THERM_STATUS_THERMAL, true, "prochot", "PROCHOT" },
	{ THERM_STATUS_PROCHOT_EXT, true, "external_prochot", "PROCHOT#/FORCEPR# from another agent" },
	{ THERM_STATUS_CRITICAL, true, "critical", "critical temperature" },
	{ THERM_STATUS_THRESHOLD1, false, "threshold1", "threshold #1" },
	{ THERM_STATUS_THRESHOLD2, false, "threshold2", "threshold #2" },
	{ THERM_STATUS_POWER_LIMIT, true, "power_limit", "power limitation" },
	{ THERM_STATUS_CURRENT_LIMIT, true, "current_limit", "current limit" },
	{ THERM_STATUS_CROSS_DOMAIN, true, "cross_domain", "cross-domain limit" },
};

/* The logs of bits 12-15, which a 2024 Linux report (therm_throt, HWP parts) found #GP on write despite CPUID. */
#define THERM_LOGS_HWP (THERM_LOG_OF(THERM_STATUS_CURRENT_LIMIT) | THERM_LOG_OF(THERM_STATUS_CROSS_DOMAIN))

static const char *const source_names[LEDGER_SOURCES] = {
	"smi_count", "smi_event", "frequency", "thermal", "package_thermal", "nmi",
};

const char *ledger_source_name(enum ledger_source s)
{
	return s < LEDGER_SOURCES ? source_names[s] : "?";
}

static const char *err_text(int err)
{
	switch (err) {
	case HW_FAULT_GP:
		return "#GP";
	case HW_FAULT_UD:
		return "#UD";
	case HW_ENODEV:
		return "no MSR access from here";
	default:
		return "error";
	}
}

static void absent(struct ledger *l, enum ledger_source s, const char *why)
{
	l->src[s].available = false;
	l->src[s].why = why;
}

/* An absent source whose reason names an MSR and the error reading it. */
static void absent_msr(struct ledger *l, enum ledger_source s, uint32_t msr, int err)
{
	l->src[s].available = false;
	l->src[s].why = NULL;
	snprintf(l->why_buf[s], sizeof(l->why_buf[s]), "MSR %XH not readable: %s", (unsigned)msr, err_text(err));
}

/* Copy-safe: formatted reasons live in the struct and are found by index. */
static const char *reason(const struct ledger *l, enum ledger_source s)
{
	if (l->src[s].available)
		return NULL;
	return l->src[s].why ? l->src[s].why : l->why_buf[s][0] ? l->why_buf[s] : "unknown";
}

/*
 * Clear `bits` of a status MSR's logs: 0 to those, 1 to the other
 * enumerated logs (and the kept HFI bit), 0 everywhere else - the status
 * bits are read-only and nothing outside the enumerated set is written.
 * Where writing 1 to the current/cross-domain logs raises #GP although CPUID
 * lists them, they are dropped from the set and the write is tried again.
 */
static int therm_clear(uint32_t msr, struct ledger_therm *t, uint64_t bits)
{
	int err = hw_wrmsr(msr, (t->logs & ~bits) | t->keep);
	if (err == HW_FAULT_GP && (t->logs & THERM_LOGS_HWP)) {
		uint64_t logs = t->logs & ~THERM_LOGS_HWP;
		err = hw_wrmsr(msr, (logs & ~bits) | t->keep);
		if (err == HW_OK)
			t->logs = logs;
	}
	uint64_t now;
	if (err != HW_OK || hw_rdmsr(msr, &now) != HW_OK)
		t->stuck |= bits & t->logs;
	else
		t->stuck |= now & bits & t->logs;
	return err;
}

/* CPUID.06H:EAX[0]: the digital thermal sensor (SDM Vol. 3B "Digital Thermal Sensor Enumeration"). */
#define CPUID6_EAX_DTS (1u << 0)

/* The log bits CPUID enumerates for one status MSR, and those judged. */
static void therm_enumerate(struct ledger_therm *t, bool package, uint32_t ecx1, uint32_t eax6)
{
	uint64_t status = 0;
	if (package) {
		/* Linux therm_throt: every package bit but 26 depends on CPUID.06H:EAX[6] alone. */
		status = THERM_STATUS_THERMAL | THERM_STATUS_PROCHOT_EXT | THERM_STATUS_CRITICAL |
			 THERM_STATUS_THRESHOLD1 | THERM_STATUS_THRESHOLD2 | THERM_STATUS_POWER_LIMIT;
		t->keep = (eax6 & CPUID6_EAX_HFI) ? PKG_THERM_STATUS_HFI : 0;
	} else if (!(eax6 & CPUID6_EAX_DTS)) {
		/*
		 * The MSR is there (CPUID.01H:EDX[22]) but not the digital thermal
		 * sensor: the TM1/TM2 layout of Pentium 4 and Pentium M, bits 0-1
		 * only and 63:2 reserved (SDM Vol. 3B "Thermal Status Information"
		 * under Thermal Monitor, and its IA32_THERM_STATUS figure).  Writing
		 * 1 to a later part's log bits there is a write to reserved bits.
		 */
		status = THERM_STATUS_THERMAL;
	} else {
		/* The digital thermal sensor's layout (SDM Vol. 3B "Reading the Digital Sensor"). */
		status = THERM_STATUS_THERMAL | THERM_STATUS_PROCHOT_EXT | THERM_STATUS_CRITICAL;
		if (ecx1 & CPUID1_ECX_TM2)
			status |= THERM_STATUS_THRESHOLD1 | THERM_STATUS_THRESHOLD2;
		if (eax6 & CPUID6_EAX_PLN)
			status |= THERM_STATUS_POWER_LIMIT;
		if (eax6 & CPUID6_EAX_HWP)
			status |= THERM_STATUS_CURRENT_LIMIT | THERM_STATUS_CROSS_DOMAIN;
	}
	for (size_t i = 0; i < ARRAY_SIZE(therm_bits); i++) {
		if (!(status & therm_bits[i].status))
			continue;
		t->logs |= THERM_LOG_OF(therm_bits[i].status);
		if (therm_bits[i].judged)
			t->judged |= THERM_LOG_OF(therm_bits[i].status);
	}
}

static void init_therm(struct ledger *l, enum ledger_source s, uint32_t msr, struct ledger_therm *t, bool package,
		       uint32_t ecx1, uint32_t eax6)
{
	uint64_t v;
	int err = hw_rdmsr(msr, &v);

	if (err != HW_OK) {
		absent_msr(l, s, msr, err);
		return;
	}
	l->src[s].available = true;
	therm_enumerate(t, package, ecx1, eax6);
	t->found = v & t->logs;
	if (t->found && l->clear_logs) {
		t->clear_err = therm_clear(msr, t, t->found);
		t->cleared = t->clear_err == HW_OK && !(t->stuck & t->found);
	} else if (t->found) {
		t->stuck = t->found;	/* left as found: blind to these bits until someone clears them */
	}
}

/* FREEZE_WHILE_SMM: from the pmu stage's description, or probed here (SDM Vol. 3B §17.4.1, PERF_CAPABILITIES[12]). */
static void init_freeze(struct ledger *l, bool intel, uint32_t ecx1, const struct pmu_caps *caps)
{
	uint64_t v;

	l->freeze_why = NULL;
	if (!intel) {
		l->freeze_why = "no freeze-in-SMM control is documented for this vendor";
	} else if (caps) {
		l->freeze_supported = caps->freeze_while_smm;
		if (!caps->freeze_while_smm)
			l->freeze_why = !caps->pdcm ? "CPUID.01H:ECX[15] (PDCM) clear: no IA32_PERF_CAPABILITIES"
				      : !caps->perf_caps_read ? "IA32_PERF_CAPABILITIES not readable"
							       : "IA32_PERF_CAPABILITIES[12] clear";
	} else if (!(ecx1 & CPUID1_ECX_PDCM)) {
		l->freeze_why = "CPUID.01H:ECX[15] (PDCM) clear: no IA32_PERF_CAPABILITIES";
	} else if (hw_rdmsr(MSR_IA32_PERF_CAPABILITIES, &v) != HW_OK) {
		l->freeze_why = "IA32_PERF_CAPABILITIES not readable";
	} else if (!(v & PERF_CAP_FREEZE_WHILE_SMM)) {
		l->freeze_why = "IA32_PERF_CAPABILITIES[12] clear";
	} else {
		l->freeze_supported = true;
	}
}

void ledger_init_opts(struct ledger *l, const struct cpu_info *ci, const struct pmu_caps *caps,
		      const struct ledger_opts *o)
{
	struct cpuid_regs r1 = { 0, 0, 0, 0 }, r6 = { 0, 0, 0, 0 };
	uint64_t v, w;
	int err;

	memset(l, 0, sizeof(*l));
	l->clear_logs = o ? o->clear_logs : true;
	bool intel = ci->vendor == VENDOR_INTEL;
	bool amd = ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON;
	if (ci->max_leaf >= CPUID_LEAF_SIGNATURE)
		hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r1);
	if (ci->max_leaf >= CPUID_LEAF_POWER)
		hw_cpuid(CPUID_LEAF_POWER, 0, &r6);

	/* MSR_SMI_COUNT: Intel, model-specific (Nehalem on), no CPUID bit: probed (self-audit reference §3.1). */
	if (!intel)
		absent(l, LEDGER_SMI_COUNT, amd ? "no SMI count MSR on AMD (the SMI event is used)"
						: "MSR_SMI_COUNT is Intel's");
	else if ((err = hw_rdmsr(MSR_SMI_COUNT, &v)) != HW_OK)
		absent_msr(l, LEDGER_SMI_COUNT, MSR_SMI_COUNT, err);
	else
		l->src[LEDGER_SMI_COUNT].available = true;

	/* The catalogue's `smi` event (AMD PMCx02B), where no MSR counts SMIs. */
	const struct event_set *set = ci->event_set ? events_set_find(ci->event_set) : NULL;
	bool smi = set && events_for_role(set, EV_ROLE_SMI, &l->smi_event);
	if (l->src[LEDGER_SMI_COUNT].available) {
		absent(l, LEDGER_SMI_EVENT, "MSR_SMI_COUNT is read instead");
	} else if (!set) {
		absent(l, LEDGER_SMI_EVENT, "no event set for this core");
	} else if (!smi) {
		snprintf(l->why_buf[LEDGER_SMI_EVENT], sizeof(l->why_buf[0]), "event set %s has no `smi` event",
			 set->key);
		absent(l, LEDGER_SMI_EVENT, NULL);
	} else {
		l->src[LEDGER_SMI_EVENT].available = true;
	}

	/* APERF/MPERF (SDM Vol. 3B §14.2; AMD CPUID Fn0000_0006_ECX[0] EffFreq: the same MSRs). */
	if (ci->max_leaf < CPUID_LEAF_POWER)
		absent(l, LEDGER_FREQUENCY, "CPUID leaf 06H absent");
	else if (!(r6.ecx & CPUID6_ECX_APERFMPERF))
		absent(l, LEDGER_FREQUENCY, "CPUID.06H:ECX[0] clear: no APERF/MPERF");
	else if ((err = hw_rdmsr(MSR_IA32_MPERF, &v)) != HW_OK)
		absent_msr(l, LEDGER_FREQUENCY, MSR_IA32_MPERF, err);
	else if ((err = hw_rdmsr(MSR_IA32_APERF, &w)) != HW_OK)
		absent_msr(l, LEDGER_FREQUENCY, MSR_IA32_APERF, err);
	else
		l->src[LEDGER_FREQUENCY].available = true;

	/*
	 * Thermal and power-limit logs (lib/x86/msr_intel.h).  AMD documents its
	 * hardware thermal control status in PCI configuration space (Family
	 * 10h-16h BKDGs, D18F3x64 HtcActSts) and, on Zen, in SMN space: no MSR.
	 */
	const char *amd_therm = "AMD has no thermal log MSR (HTC status is in PCI/SMN space, not an MSR)";
	if (amd)
		absent(l, LEDGER_THERMAL, amd_therm);
	else if (!intel)
		absent(l, LEDGER_THERMAL, "IA32_THERM_STATUS is Intel's");
	else if (!(r1.edx & CPUID1_EDX_ACPI))
		absent(l, LEDGER_THERMAL, "CPUID.01H:EDX[22] (ACPI thermal monitor) clear");
	else
		init_therm(l, LEDGER_THERMAL, MSR_IA32_THERM_STATUS, &l->therm, false, r1.ecx, r6.eax);
	if (amd)
		absent(l, LEDGER_PACKAGE_THERMAL, amd_therm);
	else if (!intel)
		absent(l, LEDGER_PACKAGE_THERMAL, "IA32_PACKAGE_THERM_STATUS is Intel's");
	else if (!(r6.eax & CPUID6_EAX_PTM))
		absent(l, LEDGER_PACKAGE_THERMAL, "CPUID.06H:EAX[6] (package thermal management) clear");
	else
		init_therm(l, LEDGER_PACKAGE_THERMAL, MSR_IA32_PACKAGE_THERM_STATUS, &l->pkg, true, r1.ecx, r6.eax);

	/* The window's own count: always there, and what it counts is the window's to say. */
	l->src[LEDGER_NMI].available = true;
	init_freeze(l, intel, r1.ecx, caps);
}

void ledger_init(struct ledger *l, const struct cpu_info *ci, const struct pmu_caps *caps)
{
	struct ledger_opts o = { .clear_logs = true };
	ledger_init_opts(l, ci, caps, &o);
}

void ledger_open(struct ledger *l, struct ledger_mark *m)
{
	uint64_t v, a;

	memset(m, 0, sizeof(*m));
	l->windows++;
	if (l->src[LEDGER_SMI_COUNT].available && hw_rdmsr(MSR_SMI_COUNT, &v) == HW_OK) {
		m->smi = (uint32_t)v;
		m->ok |= LEDGER_BIT(LEDGER_SMI_COUNT);
	}
	/* MPERF then APERF, here and in ledger_close: both intervals have the same length. */
	if (l->src[LEDGER_FREQUENCY].available && hw_rdmsr(MSR_IA32_MPERF, &v) == HW_OK &&
	    hw_rdmsr(MSR_IA32_APERF, &a) == HW_OK) {
		m->mperf = v;
		m->aperf = a;
		m->ok |= LEDGER_BIT(LEDGER_FREQUENCY);
	}
	if (l->src[LEDGER_THERMAL].available && hw_rdmsr(MSR_IA32_THERM_STATUS, &m->therm) == HW_OK)
		m->ok |= LEDGER_BIT(LEDGER_THERMAL);
	if (l->src[LEDGER_PACKAGE_THERMAL].available && hw_rdmsr(MSR_IA32_PACKAGE_THERM_STATUS, &m->pkg) == HW_OK)
		m->ok |= LEDGER_BIT(LEDGER_PACKAGE_THERMAL);
	if (l->freeze_supported) {
		if (hw_rdmsr(MSR_IA32_DEBUGCTL, &v) == HW_OK) {
			m->frozen = (v & DEBUGCTL_FREEZE_WHILE_SMM) != 0;
			l->frozen_windows += m->frozen;
		} else {
			l->freeze_unread++;
		}
	}
}

/* num/den in millionths, in 64 bits: both are scaled down together until num x 10^6 fits. */
static uint64_t ratio_ppm(uint64_t num, uint64_t den)
{
	while (num >= (1ull << 43) || den >= (1ull << 43)) {
		num >>= 1;
		den >>= 1;
	}
	return den ? (num * 1000000 + den / 2) / den : 0;
}

static void judge_frequency(struct ledger *l, const struct ledger_mark *m, struct ledger_verdict *v)
{
	uint64_t mp, ap;

	if (!(m->ok & LEDGER_BIT(LEDGER_FREQUENCY)) || hw_rdmsr(MSR_IA32_MPERF, &mp) != HW_OK ||
	    hw_rdmsr(MSR_IA32_APERF, &ap) != HW_OK)
		return;
	/* Both reset to zero when either overflows (SDM Vol. 3B §14.2): such a window is not judged. */
	if (mp < m->mperf || ap < m->aperf || mp - m->mperf < LEDGER_FREQ_MIN_TICKS)
		return;
	v->judged |= LEDGER_BIT(LEDGER_FREQUENCY);
	v->freq_ppm = ratio_ppm(ap - m->aperf, mp - m->mperf);
	if (l->ref == LEDGER_REF_NONE || !l->ref_ppm)
		return;
	int64_t diff = (int64_t)v->freq_ppm - (int64_t)l->ref_ppm;
	v->freq_moved_milli = (int32_t)(diff * 1000 / (int64_t)l->ref_ppm);
	uint64_t mag = diff < 0 ? (uint64_t)-diff : (uint64_t)diff;
	if (mag * 1000 > (uint64_t)LEDGER_FREQ_TOLERANCE_MILLI * l->ref_ppm)
		v->sources |= LEDGER_BIT(LEDGER_FREQUENCY);
}

static void judge_therm(struct ledger *l, enum ledger_source s, uint32_t msr, struct ledger_therm *t, uint64_t before,
			const struct ledger_mark *m, uint64_t *bits, struct ledger_verdict *v)
{
	uint64_t now;

	if (!(m->ok & LEDGER_BIT(s)) || hw_rdmsr(msr, &now) != HW_OK)
		return;
	v->judged |= LEDGER_BIT(s);
	/* A log set now that was clear when the window opened: the event happened inside. */
	*bits = now & ~before & t->judged;
	if (*bits)
		v->sources |= LEDGER_BIT(s);
	/* Re-arm every log found set (new or stale) so the next window sees the next event. */
	uint64_t set = now & t->logs & ~t->stuck;
	if (set && l->clear_logs)
		therm_clear(msr, t, set);
}

bool ledger_close(struct ledger *l, const struct ledger_mark *m, struct hw_window *w, uint64_t smi_events,
		  struct ledger_verdict *v)
{
	uint64_t now;

	memset(v, 0, sizeof(*v));
	if ((m->ok & LEDGER_BIT(LEDGER_SMI_COUNT)) && hw_rdmsr(MSR_SMI_COUNT, &now) == HW_OK) {
		/* Bits 31:0 count; a delta across the wrap is still right modulo 2^32. */
		uint32_t d = (uint32_t)now - m->smi;
		v->judged |= LEDGER_BIT(LEDGER_SMI_COUNT);
		v->smis += d;
		if (d)
			v->sources |= LEDGER_BIT(LEDGER_SMI_COUNT);
	}
	if (smi_events != LEDGER_NO_SMI_EVENT) {
		v->judged |= LEDGER_BIT(LEDGER_SMI_EVENT);
		v->smis += smi_events > UINT32_MAX ? UINT32_MAX : (uint32_t)smi_events;
		if (smi_events)
			v->sources |= LEDGER_BIT(LEDGER_SMI_EVENT);
	}
	judge_frequency(l, m, v);
	judge_therm(l, LEDGER_THERMAL, MSR_IA32_THERM_STATUS, &l->therm, m->therm, m, &v->therm_bits, v);
	judge_therm(l, LEDGER_PACKAGE_THERMAL, MSR_IA32_PACKAGE_THERM_STATUS, &l->pkg, m->pkg, m, &v->pkg_bits, v);
	if (w) {
		hw_window_poll(w);
		v->judged |= LEDGER_BIT(LEDGER_NMI);
		v->nmis = w->nmi_end - w->nmi_start;
		v->nmi_what = w->nmi_what;
		if (w->nmi_what)
			l->nmi_what = w->nmi_what;
		if (v->nmis)
			v->sources |= LEDGER_BIT(LEDGER_NMI);
	}
	/* The first clean window since ledger_rebase sets the reference the later ones are held to. */
	if (l->ref == LEDGER_REF_NONE && v->freq_ppm && !v->sources) {
		l->ref = LEDGER_REF_LEARNED;
		l->ref_ppm = v->freq_ppm;
	}
	return v->sources != 0;
}

bool ledger_window_left(struct ledger_verdict *v, const struct hw_window *w)
{
	if (!w)
		return v->sources != 0;
	uint32_t n = w->nmi_end - w->nmi_start;
	v->judged |= LEDGER_BIT(LEDGER_NMI);
	if (!v->nmi_what)
		v->nmi_what = w->nmi_what;
	if (n > v->nmis)
		v->nmis = n;
	if (n)
		v->sources |= LEDGER_BIT(LEDGER_NMI);
	if (w->smi_valid) {
		uint32_t d = (uint32_t)(w->smi_end - w->smi_start);
		v->judged |= LEDGER_BIT(LEDGER_SMI_COUNT);
		if (d > v->smis)
			v->smis = d;
		if (d)
			v->sources |= LEDGER_BIT(LEDGER_SMI_COUNT);
	}
	return v->sources != 0;
}

void ledger_rebase(struct ledger *l)
{
	if (l->ref == LEDGER_REF_LEARNED) {
		l->ref = LEDGER_REF_NONE;
		l->ref_ppm = 0;
	}
}

void ledger_pin_reference(struct ledger *l, uint64_t ratio_ppm, const char *source)
{
	l->ref = ratio_ppm ? LEDGER_REF_PINNED : LEDGER_REF_NONE;
	l->ref_ppm = ratio_ppm;
	l->ref_source = ratio_ppm ? source : NULL;
}

const struct event_def *ledger_smi_event(const struct ledger *l)
{
	return l->src[LEDGER_SMI_EVENT].available ? &l->smi_event : NULL;
}

/* The names of the log bits in `bits`, as a record array. */
static void rec_therm_bits(struct rec *r, const char *key, uint64_t bits)
{
	rec_arr(r, key);
	for (size_t i = 0; i < ARRAY_SIZE(therm_bits); i++)
		if (bits & THERM_LOG_OF(therm_bits[i].status))
			rec_str(r, NULL, therm_bits[i].key);
	rec_arr_end(r);
}

static const char *ref_name(const struct ledger *l)
{
	return l->ref == LEDGER_REF_PINNED ? "pinned" : "first_clean_window";
}

/* In force in the windows: null until a window read DEBUGCTL, then whether every read showed bit 14 set. */
static void rec_in_force(struct rec *r, const struct ledger *l)
{
	uint32_t read = l->windows - l->freeze_unread;
	if (!l->freeze_supported || !read)
		rec_null(r, "in_force");
	else
		rec_bool(r, "in_force", l->frozen_windows == read);
}

void ledger_sources_fields(struct rec *r, const struct ledger *l)
{
	rec_arr(r, "sources");
	for (unsigned s = 0; s < LEDGER_SOURCES; s++)
		if (l->src[s].available)
			rec_str(r, NULL, source_names[s]);
	rec_arr_end(r);
	rec_obj(r, "absent");
	for (unsigned s = 0; s < LEDGER_SOURCES; s++)
		if (!l->src[s].available)
			rec_str(r, source_names[s], reason(l, s));
	rec_obj_end(r);
	rec_str(r, "smi_event", ledger_smi_event(l) ? ledger_smi_event(l)->name : NULL);
	rec_str(r, "frequency_reference", l->src[LEDGER_FREQUENCY].available ? ref_name(l) : NULL);
	rec_str(r, "nmi_counts", l->nmi_what);
	rec_therm_bits(r, "thermal_blind", l->therm.stuck);
	rec_therm_bits(r, "package_thermal_blind", l->pkg.stuck);
	rec_obj(r, "freeze_while_smm");
	rec_bool(r, "supported", l->freeze_supported);
	rec_str(r, "reason", l->freeze_why);
	rec_in_force(r, l);
	rec_obj_end(r);
}

static void init_therm_fields(struct rec *r, const char *key, const struct ledger *l, enum ledger_source s,
			      const struct ledger_therm *t)
{
	if (!l->src[s].available) {
		rec_null(r, key);
		return;
	}
	rec_obj(r, key);
	rec_therm_bits(r, "found_set", t->found);
	if (!t->found)
		rec_null(r, "cleared");
	else
		rec_bool(r, "cleared", t->cleared);
	if (t->found && !l->clear_logs)
		rec_str(r, "note", "left set: this program does not own the thermal MSRs here");
	else if (t->clear_err != HW_OK)
		rec_str(r, "note", err_text(t->clear_err));
	else
		rec_null(r, "note");
	rec_obj_end(r);
}

void ledger_init_fields(struct rec *r, const struct ledger *l)
{
	init_therm_fields(r, "thermal_at_init", l, LEDGER_THERMAL, &l->therm);
	init_therm_fields(r, "package_thermal_at_init", l, LEDGER_PACKAGE_THERMAL, &l->pkg);
	rec_bool(r, "clears_logs", l->clear_logs);
	rec_milli(r, "frequency_tolerance", LEDGER_FREQ_TOLERANCE_MILLI);
}

/* Append "phrase" with a ", " between phrases. */
static size_t add(char *buf, size_t cap, size_t k, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t add(char *buf, size_t cap, size_t k, const char *fmt, ...)
{
	va_list ap;
	if (k && k + 2 < cap) {
		buf[k++] = ',';
		buf[k++] = ' ';
		buf[k] = 0;
	}
	if (k >= cap)
		return k;
	va_start(ap, fmt);
	int n = vsnprintf(buf + k, cap - k, fmt, ap);
	va_end(ap);
	return n < 0 ? k : k + (size_t)n;
}

static size_t add_therm(char *buf, size_t cap, size_t k, const char *what, uint64_t bits)
{
	k = add(buf, cap, k, "%s log (", what);
	bool first = true;
	for (size_t i = 0; i < ARRAY_SIZE(therm_bits) && k < cap; i++) {
		if (!(bits & THERM_LOG_OF(therm_bits[i].status)))
			continue;
		k = str_appendf(buf, cap, k, "%s%s", first ? "" : ", ", therm_bits[i].text);
		first = false;
	}
	if (k + 1 < cap) {
		buf[k++] = ')';
		buf[k] = 0;
	}
	return k;
}

const char *ledger_verdict_text(const struct ledger_verdict *v, char *buf, size_t cap)
{
	size_t k = 0;

	if (!cap)
		return buf;
	buf[0] = 0;
	if (v->sources & (LEDGER_BIT(LEDGER_SMI_COUNT) | LEDGER_BIT(LEDGER_SMI_EVENT)))
		k = add(buf, cap, k, "%u SMI%s", v->smis, v->smis == 1 ? "" : "s");
	if (v->sources & LEDGER_BIT(LEDGER_NMI)) {
		if (!v->nmi_what || !strcmp(v->nmi_what, "unclaimed NMIs"))
			k = add(buf, cap, k, "%u NMI%s", v->nmis, v->nmis == 1 ? "" : "s");
		else
			k = add(buf, cap, k, "%u %s", v->nmis, v->nmi_what);
	}
	if (v->sources & LEDGER_BIT(LEDGER_FREQUENCY)) {
		int32_t m = v->freq_moved_milli;
		uint32_t mag = m < 0 ? (uint32_t)-m : (uint32_t)m;
		k = add(buf, cap, k, "frequency moved %s%u.%u%%", m < 0 ? "-" : "+", mag / 10, mag % 10);
	}
	if (v->sources & LEDGER_BIT(LEDGER_THERMAL))
		k = add_therm(buf, cap, k, "thermal", v->therm_bits);
	if (v->sources & LEDGER_BIT(LEDGER_PACKAGE_THERMAL))
		k = add_therm(buf, cap, k, "package thermal", v->pkg_bits);
	if (!k)
		str_appendf(buf, cap, 0, "quiet");
	return buf;
}
