/* pmu/cpu.c - see cpu.h.  Field layouts: Intel SDM Vol. 2A, CPUID; AMD APM Vol. 3, Appendix E. */
#include "cpu.h"
#include "../kernel/hw.h"
#include "../lib/out.h"
#include "../lib/record.h"

#define CPUID_LEAF_VENDOR 0x00000000u
#define CPUID_LEAF_SIGNATURE 0x00000001u
#define CPUID_LEAF_HYPERVISOR 0x40000000u	/* hypervisor vendor; valid when CPUID.1:ECX[31] */
#define CPUID_LEAF_EXT_MAX 0x80000000u
#define CPUID_LEAF_BRAND0 0x80000002u		/* 0x80000002..4: brand string, 16 bytes each */
#define CPUID_LEAF_BRAND2 0x80000004u

#define CPUID1_ECX_HYPERVISOR (1u << 31)	/* SDM Vol. 2A Table 3-10: reserved, set by hypervisors */

/* CPUID.1:EAX fields (SDM Vol. 2A Figure 3-6). */
#define SIG_STEPPING(s) ((s) & 0xfu)
#define SIG_MODEL(s) (((s) >> 4) & 0xfu)
#define SIG_FAMILY(s) (((s) >> 8) & 0xfu)
#define SIG_EXT_MODEL(s) (((s) >> 16) & 0xfu)
#define SIG_EXT_FAMILY(s) (((s) >> 20) & 0xffu)
#define FAMILY_USES_EXT_FAMILY 0xfu	/* base family 0Fh: add the extended family */
#define FAMILY_INTEL_P6 0x6u		/* Intel uses the extended model for family 6 too */

const char *cpu_vendor_name(enum cpu_vendor v)
{
	static const char *const names[] = { "unknown", "intel", "amd", "hygon" };
	return names[v];
}

static void regs_to_str(char *dst, const uint32_t *words, size_t n)
{
	memcpy(dst, words, n * 4);
	dst[n * 4] = '\0';
}

void cpu_identify(struct cpu_info *ci)
{
	static const struct {
		const char *sig;
		enum cpu_vendor v;
	} vendors[] = {
		{ "GenuineIntel", VENDOR_INTEL },
		{ "AuthenticAMD", VENDOR_AMD },
		{ "HygonGenuine", VENDOR_HYGON },
	};
	struct cpuid_regs r;
	uint32_t words[12];

	memset(ci, 0, sizeof(*ci));
	hw_cpuid(CPUID_LEAF_VENDOR, 0, &r);
	ci->max_leaf = r.eax;
	words[0] = r.ebx;
	words[1] = r.edx;
	words[2] = r.ecx;
	regs_to_str(ci->vendor_str, words, 3);
	for (size_t i = 0; i < ARRAY_SIZE(vendors); i++)
		if (strcmp(ci->vendor_str, vendors[i].sig) == 0)
			ci->vendor = vendors[i].v;

	if (ci->max_leaf >= CPUID_LEAF_SIGNATURE) {
		hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r);
		uint32_t s = r.eax;
		ci->signature = s;
		ci->stepping = SIG_STEPPING(s);
		ci->family = SIG_FAMILY(s);
		ci->model = SIG_MODEL(s);
		if (ci->family == FAMILY_USES_EXT_FAMILY)
			ci->family += SIG_EXT_FAMILY(s);
		if (SIG_FAMILY(s) == FAMILY_USES_EXT_FAMILY ||
		    (ci->vendor == VENDOR_INTEL && SIG_FAMILY(s) == FAMILY_INTEL_P6))
			ci->model += SIG_EXT_MODEL(s) << 4;
		ci->hypervisor = (r.ecx & CPUID1_ECX_HYPERVISOR) != 0;
	}
	if (ci->hypervisor) {
		hw_cpuid(CPUID_LEAF_HYPERVISOR, 0, &r);
		words[0] = r.ebx;
		words[1] = r.ecx;
		words[2] = r.edx;
		regs_to_str(ci->hv_vendor, words, 3);
	}

	hw_cpuid(CPUID_LEAF_EXT_MAX, 0, &r);
	ci->max_ext_leaf = (r.eax & CPUID_LEAF_EXT_MAX) ? r.eax : 0;
	if (ci->max_ext_leaf >= CPUID_LEAF_BRAND2) {
		for (uint32_t i = 0; i < 3; i++) {
			hw_cpuid(CPUID_LEAF_BRAND0 + i, 0, &r);
			words[i * 4 + 0] = r.eax;
			words[i * 4 + 1] = r.ebx;
			words[i * 4 + 2] = r.ecx;
			words[i * 4 + 3] = r.edx;
		}
		char raw[49];
		regs_to_str(raw, words, 12);
		/* Intel pads on the left, others on the right; both are trimmed. */
		const char *p = raw;
		while (*p == ' ')
			p++;
		size_t n = strlen(p);
		while (n && p[n - 1] == ' ')
			n--;
		memcpy(ci->brand, p, n);
		ci->brand[n] = '\0';
	}
}

void cpu_report(const struct cpu_info *ci)
{
	static struct rec r;

	out_text("cpu: %s family 0x%x model 0x%x stepping %u, \"%s\"%s%s", ci->vendor_str, ci->family, ci->model,
		 ci->stepping, ci->brand, ci->hypervisor ? ", hypervisor " : "", ci->hv_vendor);
	rec_start(&r, "cpu");
	rec_str(&r, "vendor", cpu_vendor_name(ci->vendor));
	rec_str(&r, "vendor_string", ci->vendor_str);
	rec_hex(&r, "signature", ci->signature);
	rec_hex(&r, "family", ci->family);
	rec_hex(&r, "model", ci->model);
	rec_u64(&r, "stepping", ci->stepping);
	rec_str(&r, "brand", ci->brand);
	rec_bool(&r, "hypervisor", ci->hypervisor);
	rec_str(&r, "hypervisor_vendor", ci->hypervisor ? ci->hv_vendor : NULL);
	rec_emit(&r);
}
