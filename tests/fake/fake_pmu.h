/*
 * tests/fake/fake_pmu.h - a modelled PMU inside the fake CPU.
 *
 * Installs pmu/count/pmu_model.h behind hw_fake's MSR hook, so hw_rdmsr/hw_wrmsr
 * reach counters that count, wrap, gate on global control and #GP where
 * the modelled CPU has no such MSR.  Every successful write still lands in
 * hw_fake's write log (fake_log_*).  MSRs outside the PMU ranges fall
 * through to hw_fake's plain MSR store.
 *
 * The presets describe real CPUs the way identification would: their
 * cpu_info and pmu_caps are written by hand from the CPUID.0AH (or AMD
 * 8000_0001h / 8000_0022h) values of each part, as listed in
 * ../shared/cpuid-dumps/README.md.
 */
#ifndef PMUBOOT_TESTS_FAKE_FAKE_PMU_H
#define PMUBOOT_TESTS_FAKE_FAKE_PMU_H

#include "tests/fake/hw_fake.h"
#include "pmu/count/count.h"
#include "pmu/count/pmu_model.h"

struct fake_cpu {
	const char *key;	/* "core2", "zen4", ... */
	const char *what;	/* the part it stands for */
	struct cpu_info ci;
	struct pmu_caps caps;
};

/* The preset's cpu_info with the event set identification gives it. */
struct cpu_info fake_cpu_identified(const struct fake_cpu *cpu);
size_t fake_cpu_count(void);
const struct fake_cpu *fake_cpu_at(size_t i);
const struct fake_cpu *fake_cpu_find(const char *key);

/* fake_reset(), then model cpu's PMU at power-on state behind the hook. */
struct pmu_model *fake_pmu_install(const struct fake_cpu *cpu);
/* Same with an explicit model configuration. */
struct pmu_model *fake_pmu_install_cfg(const struct pmu_model_cfg *cfg);
struct pmu_model *fake_pmu(void);
/* Let work happen: counting counters advance by units * rate. */
void fake_pmu_run(uint64_t units);
void fake_pmu_set_rate(pmu_model_rate_fn fn, void *ctx);

/* Set a register as firmware left it, without logging (e.g. a counter in use). */
void fake_pmu_poke(uint32_t msr, uint64_t value);
uint64_t fake_pmu_peek(uint32_t msr);

/* An event spec built by hand (the event tables are not needed to test counting). */
struct event_spec fake_spec(const char *name, uint16_t event, uint8_t umask, int8_t fixed, uint32_t counters);

/*
 * Compare hw_fake's write log from entry `from` with want[0..n).  On a
 * difference, false with both sequences in diff ("wrmsr 0x.. 0x.." lines).
 */
bool fake_log_matches(size_t from, const struct fake_write *want, size_t n, char *diff, size_t cap);

/*
 * Counting against a preset: fake_count_prepare installs its PMU, forgets
 * any saved MSRs of an earlier test and sets the options; the test may then
 * poke firmware state; fake_count_init runs count_init with the MSR
 * backend.  fake_count_setup does both.
 */
bool fake_count_prepare(const char *key, bool force_counters, bool verbose);
bool fake_count_init(char *why, size_t cap);
bool fake_count_setup(const char *key, bool force_counters, bool verbose, char *why, size_t cap);
/* One whole pass as the harness runs it: begin, start list, `units` of work, stop list, read, end. */
bool fake_count_pass(struct count_set *set, unsigned pass, uint64_t units, uint64_t *values, char *err, size_t cap);

/* For cmocka tests: fail with the difference unless the log from `from` is exactly the writes listed. */
#define FAKE_EXPECT_LOG(from, ...)                                                          \
	do {                                                                                \
		static const struct fake_write want_[] = { __VA_ARGS__ };                     \
		static char diff_[8192];                                                    \
		if (!fake_log_matches((from), want_, sizeof(want_) / sizeof(want_[0]), diff_, \
				      sizeof(diff_)))                                       \
			fail_msg("%s", diff_);                                              \
	} while (0)

#endif
