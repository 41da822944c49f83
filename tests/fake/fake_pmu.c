/* tests/fake/fake_pmu.c - see fake_pmu.h. */
#include <stdio.h>
#include <string.h>

#include "tests/fake/fake_pmu.h"
#include "pmu/count/msr_save.h"
#include "cpu/uarch.h"

static struct pmu_model model;
static bool installed;

#define INTEL(fam, mod) { .vendor = VENDOR_INTEL, .vendor_str = "GenuineIntel", .family = fam, .model = mod }
#define AMD(fam, mod) { .vendor = VENDOR_AMD, .vendor_str = "AuthenticAMD", .family = fam, .model = mod }

/* CPUID.0AH fields decoded by hand: EAX = version | n_gp << 8 | width << 16 | arch_events_len << 24,
 * EBX = arch_events_absent, EDX = n_fixed | width << 5. */
static const struct fake_cpu cpus[] = {
	{ "p6", "Pentium III (Katmai), P6 family: no leaf 0AH", INTEL(6, 0x7),
	  { .kind = PMU_INTEL_P6 } },
	{ "intel-v1", "Core Duo (Yonah): 0AH EAX=07280201", INTEL(6, 0xE),
	  { .kind = PMU_INTEL_ARCH, .version = 1, .n_gp = 2, .gp_width = 40, .arch_events_len = 7 } },
	{ "core2", "Core 2 (Merom): 0AH EAX=07280202 EDX=00000000", INTEL(6, 0xF),
	  { .kind = PMU_INTEL_ARCH, .version = 2, .n_gp = 2, .gp_width = 40, .pdcm = true, .arch_events_len = 7 } },
	{ "penryn", "Core 2 (Penryn): 0AH EAX=07280202 EDX=00000503", INTEL(6, 0x17),
	  { .kind = PMU_INTEL_ARCH, .version = 2, .n_gp = 2, .gp_width = 40, .n_fixed = 3, .fixed_width = 40,
	    .pdcm = true, .arch_events_len = 7 } },
	{ "nehalem", "Nehalem (Bloomfield): 0AH EAX=07300403 EBX=00000040 EDX=00000603", INTEL(6, 0x1A),
	  { .kind = PMU_INTEL_ARCH, .version = 3, .n_gp = 4, .gp_width = 48, .n_fixed = 3, .fixed_width = 48,
	    .pdcm = true, .arch_events_len = 7, .arch_events_absent = 0x40 } },
	{ "silvermont", "Silvermont (Bay Trail): 0AH EAX=07280203 EDX=00004503", INTEL(6, 0x37),
	  { .kind = PMU_INTEL_ARCH, .version = 3, .n_gp = 2, .gp_width = 40, .n_fixed = 3, .fixed_width = 40,
	    .pdcm = true, .arch_events_len = 7 } },
	{ "goldmont", "Goldmont (Apollo Lake): 0AH EAX=07300404 EDX=00000603, FW_WRITE", INTEL(6, 0x5C),
	  { .kind = PMU_INTEL_ARCH, .version = 4, .n_gp = 4, .gp_width = 48, .n_fixed = 3, .fixed_width = 48,
	    .pdcm = true, .perf_caps_read = true, .perf_caps = 1ull << 13, .full_width_write = true,
	    .arch_events_len = 7 } },
	{ "skylake", "Skylake (client): 0AH EAX=07300804 EDX=00000603, FW_WRITE", INTEL(6, 0x5E),
	  { .kind = PMU_INTEL_ARCH, .version = 4, .n_gp = 8, .gp_width = 48, .n_fixed = 3, .fixed_width = 48,
	    .pdcm = true, .perf_caps_read = true, .perf_caps = 1ull << 13, .full_width_write = true,
	    .arch_events_len = 7 } },
	{ "icelake", "Ice Lake (client): 0AH EAX=08300805 ECX=0000000F EDX=00008604, FW_WRITE", INTEL(6, 0x7E),
	  { .kind = PMU_INTEL_ARCH, .version = 5, .n_gp = 8, .gp_width = 48, .n_fixed = 4, .fixed_width = 48,
	    .fixed_bitmap = 0xF, .any_thread_deprecated = true, .pdcm = true, .perf_caps_read = true,
	    .perf_caps = 1ull << 13, .full_width_write = true, .arch_events_len = 8 } },
	{ "k8", "AMD K8 (Manchester): legacy counters, 8-bit event select", AMD(0xF, 0x2B),
	  { .kind = PMU_AMD_LEGACY, .amd_n_counters = 4 } },
	{ "fam10h", "AMD Family 10h (Barcelona): legacy counters", AMD(0x10, 0x2),
	  { .kind = PMU_AMD_LEGACY, .amd_n_counters = 4 } },
	{ "zen", "AMD Zen (Summit Ridge): 8000_0001h ECX[23], no PerfMonV2", AMD(0x17, 0x1),
	  { .kind = PMU_AMD_CORE_EXT, .amd_core_ext = true, .amd_n_counters = 6 } },
	{ "zen4", "AMD Zen 4 (Raphael): PerfMonV2, 8000_0022h EBX[3:0]=6", AMD(0x19, 0x61),
	  { .kind = PMU_AMD_V2, .version = 2, .amd_core_ext = true, .amd_v2 = true, .amd_n_counters = 6 } },
	{ "hygon", "Hygon Dhyana: Zen-derived, core extension", { .vendor = VENDOR_HYGON,
	  .vendor_str = "HygonGenuine", .family = 0x18, .model = 0 },
	  { .kind = PMU_AMD_CORE_EXT, .amd_core_ext = true, .amd_n_counters = 6 } },
	{ "tcg", "QEMU TCG: CPUID.0AH all zero", { .vendor = VENDOR_INTEL, .vendor_str = "GenuineIntel",
	  .family = 6, .model = 0x5E, .hypervisor = true, .hv_vendor = "TCGTCGTCGTCG", .exec = EXEC_EMULATED },
	  { .kind = PMU_NONE, .absent_reason = "CPUID.0AH reports no architectural PMU (version 0)" } },
};

size_t fake_cpu_count(void) { return sizeof(cpus) / sizeof(cpus[0]); }
const struct fake_cpu *fake_cpu_at(size_t i) { return i < fake_cpu_count() ? &cpus[i] : NULL; }

const struct fake_cpu *fake_cpu_find(const char *key)
{
	for (size_t i = 0; i < fake_cpu_count(); i++)
		if (!strcmp(cpus[i].key, key))
			return &cpus[i];
	return NULL;
}

static bool hook_read(void *ctx, uint32_t msr, uint64_t *val, int *result)
{
	(void)ctx;
	return pmu_model_rdmsr(&model, msr, val, result);
}

static bool hook_write(void *ctx, uint32_t msr, uint64_t val, int *result)
{
	(void)ctx;
	return pmu_model_wrmsr(&model, msr, val, result);
}

/* RDPMC: ECX[30] selects the fixed counters on Intel (SDM Vol. 2B, RDPMC). */
static bool hook_rdpmc(void *ctx, uint32_t index, uint64_t *val, int *result)
{
	(void)ctx;
	bool fixed = index & (1u << 30);
	unsigned i = index & 0xFFFF;
	*result = HW_OK;
	if (model.cfg.kind == PMU_NONE)
		*result = HW_FAULT_UD;
	else if (fixed && i < PMU_MODEL_MAX_FIXED && (model.cfg.fixed_mask & (1u << i)))
		*val = model.fixed_ctr[i];
	else if (!fixed && i < model.cfg.n_gp)
		*val = model.ctr[i];
	else
		*result = HW_FAULT_GP;
	return true;
}

/* The model's PMI goes where hw_nmi_route_pmi routed it, as the APIC would send it. */
static void pmi_deliver(void *ctx)
{
	(void)ctx;
	fake_pmi_fire();
}

static const struct fake_msr_hook hook = { hook_read, hook_write, hook_rdpmc, NULL };

struct pmu_model *fake_pmu_install_cfg(const struct pmu_model_cfg *cfg)
{
	fake_reset();
	model.rate = NULL;
	model.rate_ctx = NULL;
	memset(&model.faults, 0, sizeof(model.faults));
	model.pmi = pmi_deliver;
	model.pmi_ctx = NULL;
	pmu_model_reset(&model, cfg);
	fake_set_hook(&hook);
	installed = true;
	return &model;
}

/* The presets are hand-written cpu_info without an event set: the one identification gives. */
struct cpu_info fake_cpu_identified(const struct fake_cpu *cpu)
{
	struct cpu_info ci = cpu->ci;
	struct uarch_match um;
	if (!ci.event_set && cpu->caps.kind != PMU_NONE) {
		uarch_lookup(ci.vendor, ci.family, ci.model, ci.stepping, 0, cpu->caps.kind == PMU_INTEL_ARCH, &um);
		ci.event_set = um.event_set;
	}
	return ci;
}

struct pmu_model *fake_pmu_install(const struct fake_cpu *cpu)
{
	struct pmu_model_cfg cfg;
	struct cpu_info ci = fake_cpu_identified(cpu);
	/* The model learns the vendor's constraints from that set. */
	pmu_model_cfg_from_caps(&cfg, &ci, &cpu->caps);
	return fake_pmu_install_cfg(&cfg);
}

struct pmu_model *fake_pmu(void) { return installed ? &model : NULL; }
void fake_pmu_run(uint64_t units) { pmu_model_run(&model, units); }

void fake_pmu_set_rate(pmu_model_rate_fn fn, void *ctx)
{
	model.rate = fn;
	model.rate_ctx = ctx;
}

void fake_pmu_poke(uint32_t msr, uint64_t value)
{
	if (!pmu_model_poke(&model, msr, value))
		fake_msr_set(msr, value);
}

uint64_t fake_pmu_peek(uint32_t msr)
{
	uint64_t v = 0;
	int r;
	if (!pmu_model_rdmsr(&model, msr, &v, &r))
		v = fake_msr_get(msr);
	return v;
}

struct event_spec fake_spec(const char *name, uint16_t event, uint8_t umask, int8_t fixed, uint32_t counters)
{
	struct event_spec e;
	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", name);
	e.event = event;
	e.umask = umask;
	e.fixed = fixed;
	e.counters = counters;
	return e;
}

bool fake_log_matches(size_t from, const struct fake_write *want, size_t n, char *diff, size_t cap)
{
	size_t got = fake_log_count() > from ? fake_log_count() - from : 0;
	bool same = got == n;
	for (size_t i = 0; same && i < n; i++)
		same = fake_log_at(from + i)->msr == want[i].msr && fake_log_at(from + i)->value == want[i].value;
	if (same)
		return true;
	size_t len = (size_t)snprintf(diff, cap, "write log differs\nexpected:\n");
	for (size_t i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(diff + len, cap - len, "  wrmsr 0x%x 0x%llx\n", want[i].msr,
					(unsigned long long)want[i].value);
	if (len < cap)
		len += (size_t)snprintf(diff + len, cap - len, "got:\n");
	for (size_t i = 0; i < got && len < cap; i++)
		len += (size_t)snprintf(diff + len, cap - len, "  wrmsr 0x%x 0x%llx\n", fake_log_at(from + i)->msr,
					(unsigned long long)fake_log_at(from + i)->value);
	return false;
}

static struct count_opts count_opts;
static const struct fake_cpu *count_cpu;

bool fake_count_prepare(const char *key, bool force_counters, bool verbose)
{
	count_cpu = fake_cpu_find(key);
	if (!count_cpu)
		return false;
	fake_pmu_install(count_cpu);
	msr_save_forget();
	count_opts = (struct count_opts){ .force = force_counters, .verbose = verbose };
	count_use_backend(&count_backend_msr);
	return true;
}

bool fake_count_init(char *why, size_t cap)
{
	if (!count_cpu) {
		snprintf(why, cap, "fake_count_prepare was not called");
		return false;
	}
	static struct cpu_info ci;
	ci = fake_cpu_identified(count_cpu);
	return count_init(&ci, &count_cpu->caps, &count_opts, why, cap);
}

bool fake_count_setup(const char *key, bool force_counters, bool verbose, char *why, size_t cap)
{
	if (!fake_count_prepare(key, force_counters, verbose)) {
		snprintf(why, cap, "no fake CPU '%s'", key);
		return false;
	}
	return fake_count_init(why, cap);
}

bool fake_count_pass(struct count_set *set, unsigned pass, uint64_t units, uint64_t *values, char *err, size_t cap)
{
	const struct count_backend *b = count_backend();
	if (!b->pass_begin(set, pass, err, cap))
		return false;
	count_toggle_apply(&set->start);
	fake_pmu_run(units);
	count_toggle_apply(&set->stop);
	bool ok = b->read(set, pass, values, err, cap);
	b->pass_end(set, pass);
	return ok;
}
