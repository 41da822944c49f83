/*
 * cpu/cpu.c - see cpu.h.  Field layouts: Intel SDM Vol. 2A, CPUID (Table 3-8 and
 * "Identification of the processor"); AMD APM Vol. 3, Appendix E; microcode
 * revision: SDM Vol. 3A §10.11.7 "Update Signature and Verification", AMD
 * BKDG/PPR MSR0000_008B PATCH_LEVEL.
 */
#include "cpu/cpu.h"
#include "platform/hw.h"
#include "platform/vec.h"
#include "lib/out.h"
#include "lib/record.h"
#include "lib/x86/cpuid.h"
#include "cpu/uarch.h"
#include "lib/x86/msr_intel.h"


/* MSR 8BH: Intel IA32_BIOS_SIGN_ID (SDM Vol. 4 Table 2-2), AMD MSR0000_008B PATCH_LEVEL. */
#define INTEL_UCODE_REV(v) ((uint32_t)((v) >> 32))	/* bits 63:32 after the write-0 + CPUID(1) sequence */
#define AMD_PATCH_LEVEL(v) ((uint32_t)(v))		/* bits 31:0 */

static const char *source_note;

const char *cpu_vendor_name(enum cpu_vendor v)
{
	static const char *const names[] = { "unknown", "intel", "amd", "hygon" };
	return names[v];
}

const char *cpu_core_type_name(uint8_t t)
{
	return t == CORE_TYPE_ATOM ? "atom" : t == CORE_TYPE_CORE ? "core" : NULL;
}

void cpu_set_source(const char *source) { source_note = source; }

void cpu_decode_signature(enum cpu_vendor v, uint32_t s, uint32_t *family, uint32_t *model, uint32_t *stepping)
{
	struct cpuid_signature d = cpuid_decode_signature(s, v == VENDOR_AMD || v == VENDOR_HYGON);
	*family = d.family;
	*model = d.model;
	*stepping = d.stepping;
}

static void regs_to_str(char *dst, const uint32_t *words, size_t n)
{
	memcpy(dst, words, n * 4);
	dst[n * 4] = '\0';
}

/*
 * Hypervisor signatures as their vendors document them (leaf 0x40000000
 * EBX:ECX:EDX), whether each emulates the CPU or runs the code on it, and
 * whether QEMU drives it (then its isa-debug-exit port may be configured).
 */
static const struct hypervisor {
	const char *sig, *name;
	enum cpu_exec exec;
	bool qemu;
} hypervisors[] = {
	{ CPUID_HV_SIG_TCG, "QEMU TCG", EXEC_EMULATED, true },
	{ "KVMKVMKVM", "KVM", EXEC_VIRTUALISED, true },
	{ "Microsoft Hv", "Hyper-V", EXEC_VIRTUALISED, false },
	{ "VMwareVMware", "VMware", EXEC_VIRTUALISED, false },
	{ "XenVMMXenVMM", "Xen", EXEC_VIRTUALISED, false },
	{ "VBoxVBoxVBox", "VirtualBox", EXEC_VIRTUALISED, false },
	{ "bhyve bhyve ", "bhyve", EXEC_VIRTUALISED, false },
	{ " lrpepyh  vr", "Parallels", EXEC_VIRTUALISED, false },
	{ "ACRNACRNACRN", "ACRN", EXEC_VIRTUALISED, false },
	{ "Linux KVM Hv", "KVM (Hyper-V enlightenments)", EXEC_VIRTUALISED, true },
};

/*
 * A hypervisor whose signature is not in the table is taken as
 * virtualisation: every hypervisor that sets CPUID.1:ECX[31] and is not
 * listed here runs guests on the real core (emulators are the exception,
 * and the one in common use, TCG, is listed).
 */
static void identify_hypervisor(struct cpu_info *ci)
{
	ci->exec = ci->hypervisor ? EXEC_VIRTUALISED : EXEC_BARE_METAL;
	for (size_t i = 0; ci->hypervisor && i < ARRAY_SIZE(hypervisors); i++)
		if (strcmp(ci->hv_vendor, hypervisors[i].sig) == 0) {
			ci->hv_name = hypervisors[i].name;
			ci->exec = hypervisors[i].exec;
			ci->hv_qemu = hypervisors[i].qemu;
		}
}

static void read_brand(struct cpu_info *ci)
{
	struct cpuid_regs r;
	uint32_t words[12];
	char raw[49];

	for (uint32_t i = 0; i < 3; i++) {
		hw_cpuid(CPUID_LEAF_BRAND0 + i, 0, &r);
		words[i * 4 + 0] = r.eax;
		words[i * 4 + 1] = r.ebx;
		words[i * 4 + 2] = r.ecx;
		words[i * 4 + 3] = r.edx;
	}
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

static const char *why_msr(int rc)
{
	if (rc == HW_ENODEV)
		return "MSR 0x8B not readable: no MSR access here (e.g. pmuboot-host without /dev/cpu/N/msr, "
		       "or a CPUID dump)";
	if (rc == HW_FAULT_GP)
		return "reading MSR 0x8B raised #GP";
	return "reading MSR 0x8B raised an exception";
}

static void read_microcode(struct cpu_info *ci)
{
	struct cpuid_regs r;
	uint64_t v = 0;
	int rc;

	ci->microcode_valid = false;
	if (ci->vendor == VENDOR_INTEL) {
		/* Write 0, execute CPUID(1) so the processor loads the revision, then read it back. */
		rc = hw_wrmsr(MSR_MICROCODE_REV, 0);
		hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r);
		if (rc != HW_ENODEV)
			rc = hw_rdmsr(MSR_MICROCODE_REV, &v);
		if (rc == HW_OK)
			ci->microcode = INTEL_UCODE_REV(v);
	} else if (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON) {
		rc = hw_rdmsr(MSR_MICROCODE_REV, &v);
		if (rc == HW_OK)
			ci->microcode = AMD_PATCH_LEVEL(v);
	} else {
		ci->microcode_reason = "unknown vendor: no documented microcode revision MSR";
		return;
	}
	ci->microcode_valid = rc == HW_OK;
	ci->microcode_reason = ci->microcode_valid ? NULL : why_msr(rc);
	if (ci->microcode_valid) {
		snprintf(ci->microcode_source, sizeof(ci->microcode_source), "MSR 0x%x", MSR_MICROCODE_REV);
		return;
	}
	/* Under an operating system that read the MSR at boot (Linux: /proc/cpuinfo), its word, named. */
	uint32_t rev;
	if (hw_os_microcode(&rev, ci->microcode_source, sizeof(ci->microcode_source))) {
		ci->microcode = rev;
		ci->microcode_valid = true;
		ci->microcode_reason = NULL;
	}
}

void cpu_read_leaf7(uint32_t max_leaf, struct cpu_leaf7 *out)
{
	struct cpuid_regs r;
	memset(out, 0, sizeof(*out));
	for (uint32_t sub = 0; max_leaf >= CPUID_LEAF_EXT_FEATURES && sub < CPU_LEAF7_SUBLEAVES; sub++) {
		hw_cpuid(CPUID_LEAF_EXT_FEATURES, sub, &r);
		/* struct cpuid_regs is EAX, EBX, ECX, EDX in enum cpu_reg's order. */
		_Static_assert(sizeof(r) == sizeof(out->r[0]), "cpuid_regs as r[]");
		memcpy(out->r[sub], &r, sizeof(r));
		out->n = sub + 1;
		if (out->r[0][CPU_EAX] <= sub)	/* subleaf 0's EAX: the highest subleaf */
			break;
	}
}

/* The doubt in words: which bit, which cores have it, and what a contradiction means here. */
static void doubt_text(struct cpu_info *ci, const struct uarch_doubt *d)
{
	ci->uarch_doubt[0] = 0;
	ci->uarch_doubt_feature = d->feature;
	if (!d->feature)
		return;
	snprintf(ci->uarch_doubt, sizeof(ci->uarch_doubt),
		 "CPUID enumerates %s (leaf 0x7 subleaf %u E%cX[%u]), which no %s has (only %s): %s", d->feature,
		 d->subleaf, d->reg - 'a' + 'A', d->bit, ci->uarch, d->cores,
		 ci->exec == EXEC_EMULATED ? "an emulator's CPUID, a model number with no such core behind it"
		 : ci->hypervisor	   ? "the hypervisor reports a model number that is not its core's"
					   : "a part this table does not know");
}

static void identify_uarch(struct cpu_info *ci, const struct cpu_leaf7 *l7)
{
	struct uarch_match m;
	/* The native model ID means something only beside a core type (leaf 1AH enumerated). */
	struct uarch_query q = {
		.vendor = ci->vendor, .family = ci->family, .model = ci->model, .stepping = ci->stepping,
		.core_type = uarch_core_type(ci->vendor == VENDOR_INTEL, ci->hybrid, ci->core_type),
		.native_model = ci->core_type ? ci->native_model : UARCH_NATIVE_ANY,
		.arch_pmu = ci->arch_pmu_version > 0,
	};

	uarch_identify(&q, &m);
	struct uarch_doubt d;
	uarch_doubt(&q, &m, l7, &d);
	ci->uarch = m.uarch;
	ci->uarch_key = m.key;
	ci->event_set = m.event_set;
	ci->event_set_basis = m.event_set ? uarch_basis_name(m.basis) : NULL;
	ci->event_set_note = m.note;
	ci->uarch_pmu = m.pmu;
	ci->fallback = m.fallback;
	ci->fallback_kind = uarch_fallback_name(m.fallback_kind);
	memcpy(ci->fallback_reason, m.reason, sizeof(ci->fallback_reason));
	doubt_text(ci, &d);
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
	uint32_t words[3];

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
		ci->signature = r.eax;
		cpu_decode_signature(ci->vendor, r.eax, &ci->family, &ci->model, &ci->stepping);
		ci->hypervisor = (r.ecx & CPUID1_ECX_HYPERVISOR) != 0;
	}
	if (ci->hypervisor) {
		hw_cpuid(CPUID_LEAF_HYPERVISOR, 0, &r);
		words[0] = r.ebx;
		words[1] = r.ecx;
		words[2] = r.edx;
		regs_to_str(ci->hv_vendor, words, 3);
	}
	identify_hypervisor(ci);
	struct cpu_leaf7 l7;
	cpu_read_leaf7(ci->max_leaf, &l7);
	ci->hybrid = ci->vendor == VENDOR_INTEL && l7.n && (l7.r[0][CPU_EDX] & CPUID7_EDX_HYBRID);
	if (ci->vendor == VENDOR_INTEL && ci->max_leaf >= CPUID_LEAF_ARCH_PERFMON) {
		hw_cpuid(CPUID_LEAF_ARCH_PERFMON, 0, &r);
		ci->arch_pmu_version = CPUID0A_VERSION(r.eax);
	}
	/* Leaf 1AH exists on every logical processor of a hybrid part, and on some others (Jasper Lake). */
	if (ci->vendor == VENDOR_INTEL && ci->max_leaf >= CPUID_LEAF_NATIVE_MODEL) {
		hw_cpuid(CPUID_LEAF_NATIVE_MODEL, 0, &r);
		ci->core_type = CPUID1A_CORE_TYPE(r.eax);
		ci->native_model = CPUID1A_NATIVE_MODEL(r.eax);
	}

	hw_cpuid(CPUID_LEAF_EXT_MAX, 0, &r);
	ci->max_ext_leaf = (r.eax & CPUID_LEAF_EXT_MAX) ? r.eax : 0;
	if (ci->max_ext_leaf >= CPUID_LEAF_BRAND2)
		read_brand(ci);

	read_microcode(ci);
	identify_uarch(ci, &l7);
}

void cpu_report(const struct cpu_info *ci, struct rec *r)
{
	const char *ct = cpu_core_type_name(ci->core_type);

	/* The vendor, brand and hypervisor strings are the CPU's (or a dump's) bytes: shown escaped. */
	char vendor[4 * sizeof(ci->vendor_str)], brand[4 * sizeof(ci->brand)], hv[4 * sizeof(ci->hv_vendor)];
	out_text("cpu: %s family 0x%x model 0x%x stepping %u, \"%s\"%s%s%s%s",
		 out_clean(vendor, sizeof(vendor), ci->vendor_str), ci->family, ci->model, ci->stepping,
		 out_clean(brand, sizeof(brand), ci->brand), ci->hypervisor ? ", hypervisor " : "",
		 out_clean(hv, sizeof(hv), ci->hv_vendor), ci->hypervisor ? ": " : "",
		 ci->hypervisor ? cpu_exec_name(ci->exec) : "");
	out_text("cpu: %s, event set %s%s", ci->uarch, ci->event_set ? ci->event_set : "none",
		 !ci->hybrid ? "" : !ct ? "; hybrid part, core type not enumerated"
			: ct[0] == 'a' ? "; hybrid part, running on an Atom (E-core)" : "; hybrid part, running on a Core (P-core)");
	if (ci->uarch_doubt[0])
		out_text("cpu: DOUBT: %s; event set %s", ci->uarch_doubt,
			 ci->event_set ? ci->event_set : "none (no architectural PMU either)");
	else if (ci->event_set_note && ci->event_set)
		out_text("cpu: event set %s is a related core's: %s", ci->event_set, ci->event_set_note);
	else if (ci->event_set_note)
		out_text("cpu: no event set: %s", ci->event_set_note);
	if (ci->fallback)
		out_text("cpu: FALLBACK (%s), not an exact identification: %s", ci->fallback_kind, ci->fallback_reason);
	if (ci->microcode_valid)
		out_text("cpu: microcode revision 0x%x (%s)", ci->microcode, ci->microcode_source);
	else
		out_text("cpu: microcode revision unknown: %s", ci->microcode_reason);

	rec_start(r, "cpu");
	rec_str(r, "vendor", cpu_vendor_name(ci->vendor));
	rec_str(r, "vendor_string", ci->vendor_str);
	rec_hex(r, "signature", ci->signature);
	rec_hex(r, "family", ci->family);
	rec_hex(r, "model", ci->model);
	rec_u64(r, "stepping", ci->stepping);
	rec_str(r, "brand", ci->brand);
	rec_hex(r, "max_leaf", ci->max_leaf);
	rec_hex(r, "max_ext_leaf", ci->max_ext_leaf);
	if (ci->microcode_valid) {
		rec_hex(r, "microcode", ci->microcode);
		rec_str(r, "microcode_source", ci->microcode_source);
		rec_null(r, "microcode_reason");
	} else {
		rec_null(r, "microcode");
		rec_null(r, "microcode_source");
		rec_str(r, "microcode_reason", ci->microcode_reason);
	}
	rec_bool(r, "hypervisor", ci->hypervisor);
	rec_str(r, "hypervisor_vendor", ci->hypervisor ? ci->hv_vendor : NULL);
	rec_str(r, "hypervisor_name", ci->hv_name);
	rec_str(r, "execution", cpu_exec_name(ci->exec));
	rec_bool(r, "hybrid", ci->hybrid);
	rec_str(r, "core_type", ct);
	if (ci->core_type)
		rec_hex(r, "native_model", ci->native_model);
	rec_str(r, "uarch", ci->uarch);
	rec_str(r, "uarch_key", ci->uarch_key);
	rec_str(r, "event_set", ci->event_set);
	rec_str(r, "event_set_basis", ci->event_set_basis);
	rec_str(r, "event_set_note", ci->event_set_note);
	rec_bool(r, "fallback", ci->fallback);
	rec_str(r, "fallback_kind", ci->fallback ? ci->fallback_kind : NULL);
	rec_str(r, "fallback_reason", ci->fallback ? ci->fallback_reason : NULL);
	rec_str(r, "uarch_doubt", ci->uarch_doubt[0] ? ci->uarch_doubt : NULL);
	rec_str(r, "uarch_doubt_feature", ci->uarch_doubt_feature);
	rec_str(r, "source", source_note ? source_note : "cpuid");
	/* The vector extensions this run may use (platform/vec.h): CPUID and XCR0 as in force now. */
	struct hw_vector_state vs;
	hw_vector_state(&vs);
	uint32_t ext = vec_extensions();
	if (vs.known) {
		rec_hex(r, "xcr0", vs.xcr0);
		rec_hex(r, "xcr0_found", vs.xcr0_found);
		rec_arr(r, "vector");
		for (unsigned i = 0; vec_ext_name(i); i++)
			if (ext & (1u << i))
				rec_str(r, NULL, vec_ext_name(i));
		rec_arr_end(r);
	} else {
		rec_null(r, "xcr0");
		rec_null(r, "xcr0_found");
		rec_null(r, "vector");
	}
	rec_str(r, "vector_who", vs.who);
	rec_emit(r);
	char list[48];
	size_t k = 0;
	list[0] = 0;
	for (unsigned i = 0; vec_ext_name(i); i++)
		if (ext & (1u << i))
			k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", k ? ", " : "", vec_ext_name(i));
	out_text("cpu: vector extensions enabled: %s (XCR0 %s; %s)", vs.known ? (k ? list : "SSE only") : "unknown",
		 vs.known ? "read" : "not readable", vs.who);
}
