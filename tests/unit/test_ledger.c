/*
 * The quiet-machine ledger (pmu/audit/ledger.c) against the fake CPU: which
 * sources exist and why the others do not (Intel, AMD, a bare CPU), each
 * source judging a window (the SMI count MSR with its 32-bit wrap, the SMI
 * event's count, APERF/MPERF against a learned or pinned reference, thermal
 * and package log bits, the window's NMIs), the log bits cleared at init
 * being only those CPUID enumerates, FREEZE_WHILE_SMM as read inside the
 * windows, the verdict in words, and the records.  Also platform/window.c's
 * poll, which lets a window be judged before it is left.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "platform/nmi.h"
#include "platform/window.h"
#include "lib/record.h"
#include "lib/x86/cpuid.h"
#include "lib/x86/msr_intel.h"
#include "pmu/audit/ledger.h"
#include "tests/fake/capture.h"
#include "tests/fake/hw_fake.h"
#include "tests/unit/record_asserts.h"

static struct cpu_info ci;
static struct ledger led;
static struct capture cap;

#define LOG(status) THERM_LOG_OF(status)
/* CPUID.06H:EAX[0]: the digital thermal sensor, whose IA32_THERM_STATUS has bits 2-9 (SDM Vol. 3B). */
#define DTS (1u << 0)
/* The core logs CPUID enumerates on the full Intel CPU below: all eight. */
#define ALL_CORE_LOGS                                                                                          \
	(LOG(THERM_STATUS_THERMAL) | LOG(THERM_STATUS_PROCHOT_EXT) | LOG(THERM_STATUS_CRITICAL) |              \
	 LOG(THERM_STATUS_THRESHOLD1) | LOG(THERM_STATUS_THRESHOLD2) | LOG(THERM_STATUS_POWER_LIMIT) |         \
	 LOG(THERM_STATUS_CURRENT_LIMIT) | LOG(THERM_STATUS_CROSS_DOMAIN))
#define ALL_PKG_LOGS                                                                                           \
	(LOG(THERM_STATUS_THERMAL) | LOG(THERM_STATUS_PROCHOT_EXT) | LOG(THERM_STATUS_CRITICAL) |              \
	 LOG(THERM_STATUS_THRESHOLD1) | LOG(THERM_STATUS_THRESHOLD2) | LOG(THERM_STATUS_POWER_LIMIT))

/* A CPU of `vendor` with these CPUID.01H and 06H flags and no MSRs yet. */
static void cpu(enum cpu_vendor vendor, const char *set, uint32_t ecx1, uint32_t edx1, uint32_t eax6, uint32_t ecx6)
{
	fake_reset();
	capture_free(&cap);	/* a test may set up several CPUs */
	capture_start(&cap);
	memset(&ci, 0, sizeof(ci));
	ci.vendor = vendor;
	ci.max_leaf = 0x16;
	ci.event_set = set;
	fake_cpuid_set(CPUID_LEAF_SIGNATURE, 0, 0x506E3, 0, ecx1, edx1);
	fake_cpuid_set(CPUID_LEAF_POWER, 0, eax6, 0, ecx6, 0);
}

/* A Skylake-like Intel core with every source, thermal MSRs whose writable bits are exactly the enumerated logs. */
static void full_intel(void)
{
	cpu(VENDOR_INTEL, "skylake", CPUID1_ECX_TM2 | CPUID1_ECX_PDCM, CPUID1_EDX_ACPI,
	    DTS | CPUID6_EAX_PLN | CPUID6_EAX_PTM | CPUID6_EAX_HWP | CPUID6_EAX_HFI, CPUID6_ECX_APERFMPERF);
	fake_msr_define(MSR_SMI_COUNT, 7, 0);
	fake_msr_define(MSR_IA32_MPERF, 1000000, 0);
	fake_msr_define(MSR_IA32_APERF, 1000000, 0);
	fake_msr_define(MSR_IA32_THERM_STATUS, 0, ALL_CORE_LOGS);
	fake_msr_rwc0(MSR_IA32_THERM_STATUS, ALL_CORE_LOGS);
	fake_msr_define(MSR_IA32_PACKAGE_THERM_STATUS, 0, ALL_PKG_LOGS | PKG_THERM_STATUS_HFI);
	fake_msr_rwc0(MSR_IA32_PACKAGE_THERM_STATUS, ALL_PKG_LOGS | PKG_THERM_STATUS_HFI);
	fake_msr_define(MSR_IA32_PERF_CAPABILITIES, PERF_CAP_FREEZE_WHILE_SMM, 0);
	fake_msr_define(MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_WHILE_SMM, ~0ull);
}

static int teardown(void **state)
{
	(void)state;
	capture_free(&cap);
	return 0;
}

/* The ledger's fields as one record's JSON text. */
static const char *fields_record(bool init_fields)
{
	struct rec r;
	rec_start(&r, "ledger_test");
	rec_obj(&r, "ledger");
	ledger_sources_fields(&r, &led);
	if (init_fields)
		ledger_init_fields(&r, &led);
	rec_obj_end(&r);
	rec_emit(&r);
	return capture_record(&cap, capture_record_count(&cap) - 1);
}

/* Advance APERF and MPERF as `mperf` ticks at ratio thousandths would. */
static void clock_runs(uint64_t mperf, uint64_t ratio_milli)
{
	fake_msr_set(MSR_IA32_MPERF, fake_msr_get(MSR_IA32_MPERF) + mperf);
	fake_msr_set(MSR_IA32_APERF, fake_msr_get(MSR_IA32_APERF) + mperf * ratio_milli / 1000);
}

static void intel_has_every_source(void **state)
{
	(void)state;
	full_intel();
	ledger_init(&led, &ci, NULL);
	assert_true(led.src[LEDGER_SMI_COUNT].available);
	assert_true(led.src[LEDGER_FREQUENCY].available);
	assert_true(led.src[LEDGER_THERMAL].available);
	assert_true(led.src[LEDGER_PACKAGE_THERMAL].available);
	assert_true(led.src[LEDGER_NMI].available);
	assert_true(led.freeze_supported);
	/* The MSR counts SMIs, so no counter is spent on the event. */
	assert_false(led.src[LEDGER_SMI_EVENT].available);
	assert_null(ledger_smi_event(&led));
	assert_int_equal(led.therm.logs, ALL_CORE_LOGS);
	/* Thresholds are enumerated (cleared at init) but never judged. */
	assert_int_equal(led.therm.judged, ALL_CORE_LOGS & ~(LOG(THERM_STATUS_THRESHOLD1) | LOG(THERM_STATUS_THRESHOLD2)));
	assert_int_equal(led.pkg.keep, PKG_THERM_STATUS_HFI);
	/* Nothing was set, so nothing was written. */
	assert_int_equal(fake_log_count(), 0);

	const char *rec = fields_record(true);
	record_has(rec, "\"ledger\":{\"sources\":[\"smi_count\",\"frequency\",\"thermal\",\"package_thermal\",\"nmi\"],"
			"\"absent\":{\"smi_event\":\"MSR_SMI_COUNT is read instead\"},\"smi_event\":null,"
			"\"frequency_reference\":\"first_clean_window\",\"nmi_counts\":null,\"thermal_blind\":[],"
			"\"package_thermal_blind\":[],");
	/* Not yet in a window: whether the freeze was in force is not known. */
	record_has(rec, "\"freeze_while_smm\":{\"supported\":true,\"reason\":null,\"in_force\":null}");
	record_has(rec, "\"thermal_at_init\":{\"found_set\":[],\"cleared\":null,\"note\":null}");
	record_has(rec, "\"frequency_tolerance\":0.010");
}

static void absent_sources_say_why(void **state)
{
	(void)state;
	/* An Intel CPU that enumerates nothing and has none of the MSRs (QEMU TCG looks like this). */
	cpu(VENDOR_INTEL, "skylake", 0, 0, 0, 0);
	ledger_init(&led, &ci, NULL);
	const char *rec = fields_record(true);
	record_has(rec, "\"sources\":[\"nmi\"],\"absent\":{\"smi_count\":\"MSR 34H not readable: #GP\","
			"\"smi_event\":\"event set skylake has no `smi` event\","
			"\"frequency\":\"CPUID.06H:ECX[0] clear: no APERF/MPERF\","
			"\"thermal\":\"CPUID.01H:EDX[22] (ACPI thermal monitor) clear\","
			"\"package_thermal\":\"CPUID.06H:EAX[6] (package thermal management) clear\"}");
	record_has(rec, "\"frequency_reference\":null");
	record_has(rec, "\"freeze_while_smm\":{\"supported\":false,\"reason\":\"CPUID.01H:ECX[15] (PDCM) clear: no "
			"IA32_PERF_CAPABILITIES\",\"in_force\":null}");
	record_has(rec, "\"thermal_at_init\":null,\"package_thermal_at_init\":null");

	/* CPUID says APERF/MPERF and thermal MSRs exist, but reading them faults: the probe decides. */
	cpu(VENDOR_INTEL, NULL, 0, CPUID1_EDX_ACPI, 0, CPUID6_ECX_APERFMPERF);
	ledger_init(&led, &ci, NULL);
	rec = fields_record(false);
	record_has(rec, "\"smi_event\":\"no event set for this core\"");
	record_has(rec, "\"frequency\":\"MSR E7H not readable: #GP\"");
	record_has(rec, "\"thermal\":\"MSR 19CH not readable: #GP\"");

	/* No leaf 06H at all. */
	ci.max_leaf = 1;
	ledger_init(&led, &ci, NULL);
	assert_string_equal(led.src[LEDGER_FREQUENCY].why, "CPUID leaf 06H absent");

	/* The pmu stage's description, when given, decides FREEZE_WHILE_SMM. */
	struct pmu_caps caps;
	memset(&caps, 0, sizeof(caps));
	caps.pdcm = true;
	caps.perf_caps_read = true;
	ledger_init(&led, &ci, &caps);
	assert_false(led.freeze_supported);
	assert_string_equal(led.freeze_why, "IA32_PERF_CAPABILITIES[12] clear");
	caps.freeze_while_smm = true;
	ledger_init(&led, &ci, &caps);
	assert_true(led.freeze_supported);
}

static void amd_uses_the_smi_event(void **state)
{
	(void)state;
	/* Zen 2: the catalogue's `smi` event (PMCx02B) replaces the MSR AMD does not have. */
	cpu(VENDOR_AMD, "zen2", 0, 0, 0, CPUID6_ECX_APERFMPERF);
	fake_msr_define(MSR_SMI_COUNT, 5, 0);	/* 34H means nothing on AMD: never read */
	fake_msr_define(MSR_IA32_MPERF, 0, 0);
	fake_msr_define(MSR_IA32_APERF, 0, 0);
	ledger_init(&led, &ci, NULL);
	assert_false(led.src[LEDGER_SMI_COUNT].available);
	const struct event_def *smi = ledger_smi_event(&led);
	assert_non_null(smi);
	assert_int_equal(smi->event, 0x2B);
	assert_true(smi->roles & EV_ROLE_SMI);
	assert_true(led.src[LEDGER_FREQUENCY].available);
	assert_false(led.src[LEDGER_THERMAL].available);
	const char *rec = fields_record(false);
	record_has(rec, "\"sources\":[\"smi_event\",\"frequency\",\"nmi\"]");
	record_has(rec, "\"absent\":{\"smi_count\":\"no SMI count MSR on AMD (the SMI event is used)\"");
	record_has(rec, "\"smi_event\":\"SMI_RECEIVED\"");
	record_has(rec, "\"thermal\":\"AMD has no thermal log MSR");
	record_has(rec, "\"freeze_while_smm\":{\"supported\":false,\"reason\":\"no freeze-in-SMM control is documented");

	/* The caller's count of the event judges the window. */
	struct ledger_mark m;
	struct ledger_verdict v;
	char text[96];
	ledger_open(&led, &m);
	assert_true(ledger_close(&led, &m, NULL, 1, &v));
	assert_int_equal(v.sources, LEDGER_BIT(LEDGER_SMI_EVENT));
	assert_int_equal(v.smis, 1);
	assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)), "1 SMI");
	ledger_open(&led, &m);
	assert_false(ledger_close(&led, &m, NULL, 0, &v));
	assert_true(v.judged & LEDGER_BIT(LEDGER_SMI_EVENT));
	/* Not counted in this window (no spare counter): the source did not judge it. */
	ledger_open(&led, &m);
	assert_false(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_false(v.judged & LEDGER_BIT(LEDGER_SMI_EVENT));

	/* Zen 1's set has no such event. */
	cpu(VENDOR_AMD, "zen1", 0, 0, 0, 0);
	ledger_init(&led, &ci, NULL);
	assert_null(ledger_smi_event(&led));
	rec = fields_record(false);
	record_has(rec, "\"smi_event\":\"event set zen1 has no `smi` event\"");
}

static void smi_count_moving_disturbs(void **state)
{
	(void)state;
	struct ledger_mark m;
	struct ledger_verdict v;
	char text[96];

	full_intel();
	ledger_init(&led, &ci, NULL);
	ledger_open(&led, &m);
	assert_false(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_true(v.judged & LEDGER_BIT(LEDGER_SMI_COUNT));
	assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)), "quiet");

	ledger_open(&led, &m);
	fake_msr_set(MSR_SMI_COUNT, 9);
	assert_true(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(v.sources, LEDGER_BIT(LEDGER_SMI_COUNT));
	assert_int_equal(v.smis, 2);
	assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)), "2 SMIs");

	/* Bits 31:0 count and wrap; bits 63:32 are reserved (they change nothing here). */
	fake_msr_set(MSR_SMI_COUNT, 0xFFFFFFFFull);
	ledger_open(&led, &m);
	fake_msr_set(MSR_SMI_COUNT, 0x100000002ull);
	assert_true(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(v.smis, 3);
}

static void frequency_held_to_its_reference(void **state)
{
	(void)state;
	struct ledger_mark m;
	struct ledger_verdict v;
	char text[96];

	full_intel();
	ledger_init(&led, &ci, NULL);
	/* The first clean window sets the reference: 1.250 cycles per MPERF tick. */
	ledger_open(&led, &m);
	clock_runs(100000, 1250);
	assert_false(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(led.ref, LEDGER_REF_LEARNED);
	assert_int_equal(led.ref_ppm, 1250000);
	/* 0.8% faster: held. */
	ledger_open(&led, &m);
	clock_runs(100000, 1260);
	assert_false(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(v.freq_moved_milli, 8);
	/* 2% slower: moved, and the reference stays what it was. */
	ledger_open(&led, &m);
	clock_runs(100000, 1225);
	assert_true(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(v.sources, LEDGER_BIT(LEDGER_FREQUENCY));
	assert_int_equal(v.freq_moved_milli, -20);
	assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)), "frequency moved -2.0%");
	assert_int_equal(led.ref_ppm, 1250000);
	/* A window too short to judge at 0.1% is not judged. */
	ledger_open(&led, &m);
	clock_runs(LEDGER_FREQ_MIN_TICKS - 1, 2000);
	assert_false(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_false(v.judged & LEDGER_BIT(LEDGER_FREQUENCY));
	/* A window disturbed by something else never becomes the reference. */
	ledger_rebase(&led);
	assert_int_equal(led.ref, LEDGER_REF_NONE);
	ledger_open(&led, &m);
	clock_runs(100000, 1500);
	fake_msr_set(MSR_SMI_COUNT, fake_msr_get(MSR_SMI_COUNT) + 1);
	assert_true(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(led.ref, LEDGER_REF_NONE);
	ledger_open(&led, &m);
	clock_runs(100000, 1100);
	assert_false(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(led.ref_ppm, 1100000);

	/* A pinned clock (freq=) is the reference instead, and survives a rebase. */
	ledger_pin_reference(&led, 1000000, "freq=");
	ledger_rebase(&led);
	assert_int_equal(led.ref, LEDGER_REF_PINNED);
	ledger_open(&led, &m);
	clock_runs(100000, 1100);
	assert_true(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(v.freq_moved_milli, 100);
	assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)), "frequency moved +10.0%");
	const char *rec = fields_record(false);
	record_has(rec, "\"frequency_reference\":\"pinned\"");
	ledger_pin_reference(&led, 0, NULL);
	assert_int_equal(led.ref, LEDGER_REF_NONE);
}

static void thermal_log_appearing_disturbs(void **state)
{
	(void)state;
	struct ledger_mark m;
	struct ledger_verdict v;
	char text[128];

	full_intel();
	ledger_init(&led, &ci, NULL);
	ledger_open(&led, &m);
	fake_msr_set(MSR_IA32_THERM_STATUS, THERM_STATUS_THERMAL | LOG(THERM_STATUS_THERMAL));
	fake_log_clear();
	assert_true(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(v.sources, LEDGER_BIT(LEDGER_THERMAL));
	assert_int_equal(v.therm_bits, LOG(THERM_STATUS_THERMAL));
	assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)), "thermal log (PROCHOT)");
	/* The log was cleared (write 0 to it, 1 to the other enumerated logs): the next event shows again. */
	assert_int_equal(fake_log_count(), 1);
	assert_int_equal(fake_log_at(0)->msr, MSR_IA32_THERM_STATUS);
	assert_int_equal(fake_log_at(0)->value, ALL_CORE_LOGS & ~LOG(THERM_STATUS_THERMAL));
	/* R/WC0: the log is gone, the status (still hot) stays; a later window sees no stale event. */
	assert_int_equal(fake_msr_get(MSR_IA32_THERM_STATUS), THERM_STATUS_THERMAL);
	ledger_open(&led, &m);
	assert_false(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));

	/* Package: power limitation; the HFI status bit is written as 1 (kept), never cleared. */
	fake_msr_set(MSR_IA32_THERM_STATUS, 0);
	fake_msr_set(MSR_IA32_PACKAGE_THERM_STATUS, PKG_THERM_STATUS_HFI);
	fake_log_clear();
	ledger_open(&led, &m);
	fake_msr_set(MSR_IA32_PACKAGE_THERM_STATUS, PKG_THERM_STATUS_HFI | LOG(THERM_STATUS_POWER_LIMIT));
	assert_true(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(v.sources, LEDGER_BIT(LEDGER_PACKAGE_THERMAL));
	assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)), "package thermal log (power limitation)");
	assert_int_equal(fake_log_at(0)->value, (ALL_PKG_LOGS & ~LOG(THERM_STATUS_POWER_LIMIT)) | PKG_THERM_STATUS_HFI);

	/* A threshold log is cleared but is no disturbance: the temperature passed a value software chose. */
	fake_msr_set(MSR_IA32_PACKAGE_THERM_STATUS, 0);
	ledger_open(&led, &m);
	fake_msr_set(MSR_IA32_THERM_STATUS, LOG(THERM_STATUS_THRESHOLD1));
	assert_false(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(fake_msr_get(MSR_IA32_THERM_STATUS) & LOG(THERM_STATUS_THRESHOLD1), 0);

	/* A log already set when the window opened happened outside it. */
	fake_msr_set(MSR_IA32_THERM_STATUS, LOG(THERM_STATUS_POWER_LIMIT));
	ledger_open(&led, &m);
	assert_false(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
}

static void init_clears_only_enumerated_logs(void **state)
{
	(void)state;
	/* ACPI and the digital sensor: logs 1, 3, 5 exist; 7/9 (TM2), 11 (PLN), 13/15 (HWP) are not enumerated and #GP if written 1. */
	cpu(VENDOR_INTEL, NULL, 0, CPUID1_EDX_ACPI, DTS, 0);
	const uint64_t enumerated = LOG(THERM_STATUS_THERMAL) | LOG(THERM_STATUS_PROCHOT_EXT) | LOG(THERM_STATUS_CRITICAL);
	fake_msr_define(MSR_IA32_THERM_STATUS, THERM_STATUS_THERMAL | LOG(THERM_STATUS_THERMAL) | LOG(THERM_STATUS_CRITICAL),
			enumerated);
	fake_msr_rwc0(MSR_IA32_THERM_STATUS, enumerated);
	ledger_init(&led, &ci, NULL);
	assert_int_equal(fake_msr_get(MSR_IA32_THERM_STATUS), THERM_STATUS_THERMAL);
	assert_int_equal(led.therm.logs, enumerated);
	assert_int_equal(led.therm.found, LOG(THERM_STATUS_THERMAL) | LOG(THERM_STATUS_CRITICAL));
	assert_true(led.therm.cleared);
	/* One write, touching nothing CPUID does not list: 0 to the two found, 1 to the third. */
	assert_int_equal(fake_log_count(), 1);
	assert_int_equal(fake_log_at(0)->value, LOG(THERM_STATUS_PROCHOT_EXT));
	assert_int_equal(fake_log_at(0)->value & ~enumerated, 0);
	const char *rec = fields_record(true);
	record_has(rec, "\"thermal_at_init\":{\"found_set\":[\"prochot\",\"critical\"],\"cleared\":true,\"note\":null}");
	record_has(rec, "\"clears_logs\":true");

	/* HWP parts where CPUID lists the current/cross-domain logs but writing 1 there faults: written without them. */
	cpu(VENDOR_INTEL, NULL, 0, CPUID1_EDX_ACPI, DTS | CPUID6_EAX_HWP, 0);
	fake_msr_define(MSR_IA32_THERM_STATUS, LOG(THERM_STATUS_THERMAL), enumerated);
	ledger_init(&led, &ci, NULL);
	assert_true(led.therm.cleared);
	assert_int_equal(fake_log_count(), 1);	/* the faulting write is not logged */
	assert_int_equal(fake_log_at(0)->value, LOG(THERM_STATUS_PROCHOT_EXT) | LOG(THERM_STATUS_CRITICAL));

	/* A log that will not clear is reported: the ledger is blind to it. */
	cpu(VENDOR_INTEL, NULL, 0, CPUID1_EDX_ACPI, DTS, 0);
	fake_msr_define(MSR_IA32_THERM_STATUS, LOG(THERM_STATUS_THERMAL), 0);	/* every write faults */
	ledger_init(&led, &ci, NULL);
	assert_false(led.therm.cleared);
	assert_int_equal(led.therm.stuck, LOG(THERM_STATUS_THERMAL));
	rec = fields_record(true);
	record_has(rec, "\"thermal_blind\":[\"prochot\"]");
	record_has(rec, "\"thermal_at_init\":{\"found_set\":[\"prochot\"],\"cleared\":false,\"note\":\"#GP\"}");

	/* Where the program does not own the MSRs (pmuboot-host), nothing is written at all. */
	cpu(VENDOR_INTEL, NULL, 0, CPUID1_EDX_ACPI, DTS, 0);
	fake_msr_define(MSR_IA32_THERM_STATUS, LOG(THERM_STATUS_THERMAL), enumerated);
	struct ledger_opts keep = { .clear_logs = false };
	ledger_init_opts(&led, &ci, NULL, &keep);
	assert_int_equal(fake_log_count(), 0);
	struct ledger_mark m;
	struct ledger_verdict v;
	ledger_open(&led, &m);
	fake_msr_set(MSR_IA32_THERM_STATUS, LOG(THERM_STATUS_THERMAL) | LOG(THERM_STATUS_CRITICAL));
	assert_true(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
	assert_int_equal(v.therm_bits, LOG(THERM_STATUS_CRITICAL));
	assert_int_equal(fake_log_count(), 0);
	rec = fields_record(true);
	record_has(rec, "\"cleared\":false,\"note\":\"left set: this program does not own the thermal MSRs here\"");
}

/*
 * Pentium M (Dothan, CPUID 6D8H): leaf 1 is the last basic leaf, EDX[22] says
 * IA32_THERM_STATUS exists, ECX[8] says TM2, and there is no leaf 06H.  The
 * MSR has the TM1/TM2 layout: status bit 0, log bit 1, bits 63:2 reserved
 * (#GP when written 1).  A throttle in a window is seen, the log is cleared,
 * and the next throttle in a later window is seen again.
 */
static void pentium_m_thermal_from_leaf_1(void **state)
{
	(void)state;
	struct ledger_mark m;
	struct ledger_verdict v;
	char text[128];

	fake_reset();
	capture_free(&cap);
	capture_start(&cap);
	memset(&ci, 0, sizeof(ci));
	ci.vendor = VENDOR_INTEL;
	ci.max_leaf = 2;
	ci.event_set = "pentium_m";
	/* The dump's own leaf 1 (GenuineIntel00006D8_PM_Dothan_CPUID.txt): ECX 180H, EDX AFE9FBFFH. */
	fake_cpuid_set(CPUID_LEAF_SIGNATURE, 0, 0x6D8, 0x816, 0x180, 0xAFE9FBFF);
	assert_true(0xAFE9FBFFu & CPUID1_EDX_ACPI);
	fake_msr_define(MSR_IA32_THERM_STATUS, LOG(THERM_STATUS_THERMAL), LOG(THERM_STATUS_THERMAL));
	fake_msr_rwc0(MSR_IA32_THERM_STATUS, LOG(THERM_STATUS_THERMAL));

	ledger_init(&led, &ci, NULL);
	assert_true(led.src[LEDGER_THERMAL].available);
	assert_int_equal(led.therm.logs, LOG(THERM_STATUS_THERMAL));
	/* The log firmware left set is cleared, by a write that touches no reserved bit. */
	assert_true(led.therm.cleared);
	assert_int_equal(led.therm.stuck, 0);
	assert_int_equal(fake_msr_get(MSR_IA32_THERM_STATUS), 0);
	assert_string_equal(led.src[LEDGER_PACKAGE_THERMAL].why, "CPUID.06H:EAX[6] (package thermal management) clear");
	assert_string_equal(led.src[LEDGER_FREQUENCY].why, "CPUID leaf 06H absent");

	for (int throttle = 0; throttle < 2; throttle++) {
		ledger_open(&led, &m);
		fake_msr_set(MSR_IA32_THERM_STATUS, THERM_STATUS_THERMAL | LOG(THERM_STATUS_THERMAL));
		assert_true(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
		assert_int_equal(v.sources, LEDGER_BIT(LEDGER_THERMAL));
		assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)), "thermal log (PROCHOT)");
		assert_int_equal(fake_msr_get(MSR_IA32_THERM_STATUS), THERM_STATUS_THERMAL);
		assert_int_equal(led.therm.stuck, 0);
		fake_msr_set(MSR_IA32_THERM_STATUS, 0);	/* cooled down */
	}
	ledger_open(&led, &m);
	assert_false(ledger_close(&led, &m, NULL, LEDGER_NO_SMI_EVENT, &v));
}

static void window_nmis_and_freeze(void **state)
{
	(void)state;
	struct ledger_mark m;
	struct ledger_verdict v;
	struct hw_window w;
	char text[96];

	full_intel();
	ledger_init(&led, &ci, NULL);
	/* The window's NMIs are polled before it is left: judged inside. */
	assert_true(hw_window_enter(&w));
	ledger_open(&led, &m);
	fake_window_inject_nmi(1);
	assert_true(ledger_close(&led, &m, &w, LEDGER_NO_SMI_EVENT, &v));
	hw_window_leave(&w);
	assert_int_equal(v.sources, LEDGER_BIT(LEDGER_NMI));
	assert_int_equal(v.nmis, 1);
	assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)), "1 NMI");
	assert_true(ledger_window_left(&v, &w));
	/* DEBUGCTL[14] read set in that window. */
	const char *rec = fields_record(false);
	record_has(rec, "\"nmi_counts\":\"unclaimed NMIs\"");
	record_has(rec, "\"freeze_while_smm\":{\"supported\":true,\"reason\":null,\"in_force\":true}");
	/* One window without it: not in force. */
	fake_msr_set(MSR_IA32_DEBUGCTL, 0);
	assert_true(hw_window_enter(&w));
	ledger_open(&led, &m);
	assert_false(ledger_close(&led, &m, &w, LEDGER_NO_SMI_EVENT, &v));
	hw_window_leave(&w);
	rec = fields_record(false);
	record_has(rec, "\"in_force\":false}");

	/* What the count counts is the window's to say (pmuboot-host's counts context switches and interrupts). */
	memset(&w, 0, sizeof(w));
	w.nmi_what = "context switches and interrupts";
	w.nmi_end = 3;
	memset(&v, 0, sizeof(v));
	assert_true(ledger_window_left(&v, &w));
	assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)), "3 context switches and interrupts");
	/* Without a ledger the window alone judges: its own SMI count too. */
	memset(&w, 0, sizeof(w));
	w.smi_valid = true;
	w.smi_start = 4;
	w.smi_end = 5;
	memset(&v, 0, sizeof(v));
	assert_true(ledger_window_left(&v, &w));
	assert_int_equal(v.sources, LEDGER_BIT(LEDGER_SMI_COUNT));
	memset(&w, 0, sizeof(w));
	memset(&v, 0, sizeof(v));
	assert_false(ledger_window_left(&v, &w));
	assert_false(ledger_window_left(&v, NULL));
}

static void verdict_text_joins_and_fits(void **state)
{
	(void)state;
	struct ledger_verdict v;
	char text[128], tiny[8];
	memset(&v, 0, sizeof(v));
	v.sources = LEDGER_BIT(LEDGER_SMI_COUNT) | LEDGER_BIT(LEDGER_NMI) | LEDGER_BIT(LEDGER_FREQUENCY) |
		    LEDGER_BIT(LEDGER_THERMAL);
	v.smis = 1;
	v.nmis = 2;
	v.freq_moved_milli = 14;
	v.therm_bits = LOG(THERM_STATUS_THERMAL) | LOG(THERM_STATUS_POWER_LIMIT);
	assert_string_equal(ledger_verdict_text(&v, text, sizeof(text)),
			    "1 SMI, 2 NMIs, frequency moved +1.4%, thermal log (PROCHOT, power limitation)");
	/* Cut short, never past the buffer. */
	assert_string_equal(ledger_verdict_text(&v, tiny, sizeof(tiny)), "1 SMI, ");
	assert_string_equal(ledger_source_name(LEDGER_PACKAGE_THERMAL), "package_thermal");
}

/* platform/window.c: a poll brings the NMI count up to date while the window stays open. */
static void window_poll_reads_before_leaving(void **state)
{
	(void)state;
	struct win_platform p;
	struct hw_window w;

	fake_reset();
	nmi_unregister_all();
	memset(&p, 0, sizeof(p));
	assert_true(win_enter(&p, &w));
	assert_string_equal(w.nmi_what, "unclaimed NMIs");
	nmi_dispatch();	/* nobody's NMI */
	win_poll(&p, &w);
	assert_int_equal(w.nmi_end - w.nmi_start, 1);
	assert_non_null(win_active());	/* still open */
	win_leave(&p, &w);
	assert_null(win_active());
	assert_int_equal(w.nmi_end - w.nmi_start, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(intel_has_every_source, teardown),
		cmocka_unit_test_teardown(absent_sources_say_why, teardown),
		cmocka_unit_test_teardown(amd_uses_the_smi_event, teardown),
		cmocka_unit_test_teardown(smi_count_moving_disturbs, teardown),
		cmocka_unit_test_teardown(frequency_held_to_its_reference, teardown),
		cmocka_unit_test_teardown(thermal_log_appearing_disturbs, teardown),
		cmocka_unit_test_teardown(init_clears_only_enumerated_logs, teardown),
		cmocka_unit_test_teardown(pentium_m_thermal_from_leaf_1, teardown),
		cmocka_unit_test_teardown(window_nmis_and_freeze, teardown),
		cmocka_unit_test(verdict_text_joins_and_fits),
		cmocka_unit_test(window_poll_reads_before_leaving),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
