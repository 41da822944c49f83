/* tests/fake/cpus_fake.c - see cpus_fake.h. */
#include "tests/fake/cpus_fake.h"
#include "lib/x86/cpuid.h"
#include "cpu/uarch.h"
#include "tests/fake/hw_fake.h"

/* CPUID.0BH:ECX[15:8] level types [SDM2 CPUID leaf 0BH]. */
#define LEVEL_SMT 0x100u
#define LEVEL_CORE 0x200u
/* CPUID.0AH: EAX version 5, 6 counters 48 bits wide; ECX fixed counters 0-2 (v5 bitmap); EDX 3 fixed, 48 bits. */
#define FAKE_PERFMON_EAX 0x07300605u
#define FAKE_PERFMON_ECX 7u
#define FAKE_PERFMON_EDX 0x8603u
/* The highest basic leaf the fake answers. */
#define FAKE_MAX_LEAF 0x20u

const struct fake_cpu fake_adl[FAKE_ADL_N] = {
	{ SIG_ADL_P, true, CORE_TYPE_CORE, 0, 1, 7 },  { SIG_ADL_P, true, CORE_TYPE_CORE, 1, 1, 7 },
	{ SIG_ADL_P, true, CORE_TYPE_CORE, 8, 1, 7 },  { SIG_ADL_P, true, CORE_TYPE_CORE, 9, 1, 7 },
	{ SIG_ADL_P, true, CORE_TYPE_ATOM, 16, 1, 7 }, { SIG_ADL_P, true, CORE_TYPE_ATOM, 18, 1, 7 },
	{ SIG_ADL_P, true, CORE_TYPE_ATOM, 20, 1, 7 }, { SIG_ADL_P, true, CORE_TYPE_ATOM, 22, 1, 7 },
};

void fake_cpu_become(const struct fake_cpu *f)
{
	fake_reset();
	fake_cpuid_set(CPUID_LEAF_VENDOR, 0, FAKE_MAX_LEAF, CPUID_VENDOR_INTEL_EBX, CPUID_VENDOR_INTEL_ECX,
		       CPUID_VENDOR_INTEL_EDX);
	fake_cpuid_set(CPUID_LEAF_SIGNATURE, 0, f->sig, (f->x2apic & 0xff) << 24, 0, 0);
	fake_cpuid_set(CPUID_LEAF_EXT_FEATURES, 0, 0, 0, 0, f->hybrid ? CPUID7_EDX_HYBRID : 0);
	fake_cpuid_set(CPUID_LEAF_ARCH_PERFMON, 0, FAKE_PERFMON_EAX, 0, FAKE_PERFMON_ECX, FAKE_PERFMON_EDX);
	fake_cpuid_set(CPUID_LEAF_EXT_TOPOLOGY, 0, f->smt_shift, 1, LEVEL_SMT, f->x2apic);
	fake_cpuid_set(CPUID_LEAF_EXT_TOPOLOGY, 1, f->core_shift, 8, LEVEL_CORE | 1, f->x2apic);
	fake_cpuid_set(CPUID_LEAF_NATIVE_MODEL, 0, (uint32_t)f->core_type << 24 | 1, 0, 0, 0);
}
