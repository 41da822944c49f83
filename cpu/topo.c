/*
 * cpu/topo.c - see topo.h.  CPUID facts: Intel SDM Vol. 2A, CPUID
 * leaf 01H (EBX[31:24] initial APIC ID), leaf 07H (EDX[15] Hybrid), leaf 0BH
 * "Extended Topology Enumeration" (EAX[4:0] shift to the next level, EDX
 * x2APIC ID), leaf 0AH, leaf 1AH "Native Model ID Enumeration"; SDM Vol. 3A
 * §10.9 "Identifying the topology" (package/core/thread from the APIC ID).
 */
#include "cpu/topo.h"
#include "lib/out.h"
#include "lib/x86/cpuid.h"
#include "cpu/uarch.h"
#include "platform/hw.h"
#include "lib/strbuf.h"

#define CPUID1_EBX_APIC_ID(ebx) ((ebx) >> 24)
#define CPUID0B_SHIFT(eax) ((uint8_t)((eax) & 0x1f))	/* EAX[4:0] */
#define CPUID0B_LEVEL_TYPE(ecx) (((ecx) >> 8) & 0xff)	/* ECX[15:8]: 1 SMT, 2 Core */
#define CPUID0B_LEVEL_SMT 1u
#define CPUID0B_LEVEL_CORE 2u


void topo_probe(struct topo_cpu *c)
{
	struct cpuid_regs r;

	hw_cpuid(CPUID_LEAF_VENDOR, 0, &r);
	c->max_leaf = r.eax;
	c->vendor_ebx = r.ebx;
	c->vendor_ecx = r.ecx;
	c->vendor_edx = r.edx;
	bool intel = cpuid_vendor_is_intel(r.ebx, r.edx, r.ecx);
	if (c->max_leaf >= CPUID_LEAF_SIGNATURE) {
		hw_cpuid(CPUID_LEAF_SIGNATURE, 0, &r);
		c->signature = r.eax;
		c->cpuid_apic_id = CPUID1_EBX_APIC_ID(r.ebx);
	}
	cpu_read_leaf7(c->max_leaf, &c->leaf7);
	c->hybrid = intel && c->leaf7.n && (c->leaf7.r[0][CPU_EDX] & CPUID7_EDX_HYBRID);
	if (c->max_leaf >= CPUID_LEAF_EXT_TOPOLOGY) {
		hw_cpuid(CPUID_LEAF_EXT_TOPOLOGY, 0, &r);
		if (CPUID0B_LEVEL_TYPE(r.ecx) == CPUID0B_LEVEL_SMT) {
			c->smt_shift = CPUID0B_SHIFT(r.eax);
			c->cpuid_apic_id = r.edx;
			hw_cpuid(CPUID_LEAF_EXT_TOPOLOGY, 1, &r);
			c->core_shift = CPUID0B_LEVEL_TYPE(r.ecx) == CPUID0B_LEVEL_CORE ? CPUID0B_SHIFT(r.eax) : c->smt_shift;
		}
	}
	if (intel && c->max_leaf >= CPUID_LEAF_ARCH_PERFMON) {
		hw_cpuid(CPUID_LEAF_ARCH_PERFMON, 0, &r);
		c->pmu_eax = r.eax;
		c->pmu_ebx = r.ebx;
		c->pmu_edx = r.edx;
	}
	if (intel && c->max_leaf >= CPUID_LEAF_NATIVE_MODEL) {
		hw_cpuid(CPUID_LEAF_NATIVE_MODEL, 0, &r);
		c->core_type = CPUID1A_CORE_TYPE(r.eax);
		c->native_model = CPUID1A_NATIVE_MODEL(r.eax);
	}
	if (cpuid_vendor_is_amd_like(c->vendor_ebx, c->vendor_edx, c->vendor_ecx)) {
		hw_cpuid(CPUID_LEAF_EXT_MAX, 0, &r);
		uint32_t max_ext = r.eax;
		if (max_ext >= CPUID_LEAF_AMD_FEATURES) {
			hw_cpuid(CPUID_LEAF_AMD_FEATURES, 0, &r);
			c->ibs = (r.ecx & CPUID_AMD1_ECX_IBS) != 0;
		}
		if (c->ibs && max_ext >= CPUID_LEAF_AMD_IBS) {
			hw_cpuid(CPUID_LEAF_AMD_IBS, 0, &r);
			c->ibs_flags = r.eax;
		}
	}
	c->probed = true;
}

void topo_locate_from_cpuid(struct topo_cpu *c)
{
	if (!c->probed || c->core_shift == 0 || c->core_shift >= 32)
		return;
	uint32_t id = c->cpuid_apic_id;
	if (c->thread == TOPO_NONE)
		c->thread = id & ((1u << c->smt_shift) - 1);
	if (c->core == TOPO_NONE)
		c->core = (id >> c->smt_shift) & ((1u << (c->core_shift - c->smt_shift)) - 1);
	if (c->package == TOPO_NONE)
		c->package = id >> c->core_shift;
}

void topo_classify(struct topology *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct topo_cpu *c = &t->cpu[i];
		struct uarch_match m;
		enum cpu_vendor v = VENDOR_UNKNOWN;
		uint32_t fam, model, step;

		if (!c->probed)
			continue;
		if (cpuid_vendor_is_intel(c->vendor_ebx, c->vendor_edx, c->vendor_ecx))
			v = VENDOR_INTEL;
		else if (cpuid_vendor_is_amd_like(c->vendor_ebx, c->vendor_edx, c->vendor_ecx))
			v = c->vendor_ebx == CPUID_VENDOR_AMD_EBX ? VENDOR_AMD : VENDOR_HYGON;
		cpu_decode_signature(v, c->signature, &fam, &model, &step);
		struct uarch_query q = {
			.vendor = v, .family = fam, .model = model, .stepping = step,
			.core_type = uarch_core_type(v == VENDOR_INTEL, c->hybrid, c->core_type),
			.native_model = c->core_type ? c->native_model : UARCH_NATIVE_ANY,
			.arch_pmu = CPUID0A_VERSION(c->pmu_eax) != 0,
		};
		uarch_identify(&q, &m);
		struct uarch_doubt d;
		uarch_doubt(&q, &m, &c->leaf7, &d);
		c->uarch = m.uarch;
		c->uarch_key = m.key;
		c->event_set = m.event_set;
		c->fallback = m.fallback;
		c->doubt = d.feature;
	}
}

static bool same_type(const struct topo_cpu *a, const struct topo_cpu *b)
{
	return a->core_type == b->core_type && a->uarch_key == b->uarch_key;
}

size_t topo_types(const struct topology *t, size_t *first, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!t->cpu[i].probed)
			continue;
		size_t k = 0;
		while (k < n && !same_type(&t->cpu[first[k]], &t->cpu[i]))
			k++;
		if (k == n && n < cap)
			first[n++] = i;
	}
	return n;
}

/* Cores (distinct package/core pairs) of CPUs like t->cpu[proto], and the most threads one has. */
static void count_cores(const struct topology *t, const struct topo_cpu *proto, size_t *cores, uint32_t *threads,
			bool *located)
{
	*cores = 0;
	*threads = 1;
	*located = true;
	for (size_t i = 0; i < t->n; i++) {
		const struct topo_cpu *c = &t->cpu[i];
		if (proto && !same_type(c, proto))
			continue;
		if (c->core == TOPO_NONE || c->package == TOPO_NONE)
			*located = false;
		bool seen = false;
		uint32_t nthreads = 0;
		for (size_t j = 0; j < t->n; j++) {
			const struct topo_cpu *o = &t->cpu[j];
			if ((proto && !same_type(o, proto)) || o->package != c->package || o->core != c->core)
				continue;
			seen |= j < i;
			nthreads++;
		}
		if (!seen)
			(*cores)++;
		if (nthreads > *threads)
			*threads = nthreads;
	}
}

static const char *type_word(uint8_t core_type)
{
	return core_type == CORE_TYPE_ATOM ? "E-core" : core_type == CORE_TYPE_CORE ? "P-core" : "core";
}

/* Does another of the distinct types share this one's core type (Arrow Lake-H: two kinds of E-core)? */
static bool shares_word(const struct topology *t, const size_t *first, size_t ntypes, size_t k)
{
	for (size_t j = 0; j < ntypes; j++)
		if (j != k && t->cpu[first[j]].core_type == t->cpu[first[k]].core_type)
			return true;
	return false;
}

void topo_summary(const struct topology *t, char *buf, size_t cap)
{
	size_t first[8], ntypes = topo_types(t, first, ARRAY_SIZE(first)), len = 0;
	uint32_t packages = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n; i++) {
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen |= t->cpu[j].package == t->cpu[i].package;
		packages += !seen;
	}
	if (ntypes <= 1) {
		size_t cores;
		uint32_t threads;
		bool located;
		count_cores(t, NULL, &cores, &threads, &located);
		if (!located) {
			snprintf(buf, cap, "%zu processor%s, location not known", t->n, t->n == 1 ? "" : "s");
			return;
		}
		snprintf(buf, cap, "%u package%s x %zu core%s x %u thread%s", packages, packages == 1 ? "" : "s",
			 cores, cores == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
		return;
	}
	if (packages > 1)
		len = str_appendf(buf, cap, len, "%u packages: ", packages);
	for (size_t k = 0; k < ntypes; k++) {
		size_t cores;
		uint32_t threads;
		bool located;
		const struct topo_cpu *p = &t->cpu[first[k]];
		count_cores(t, p, &cores, &threads, &located);
		const char *w = type_word(p->core_type);
		if (threads > 1)
			len = str_appendf(buf, cap, len, "%s%zu %ss x %u threads", k ? ", " : "", cores, w, threads);
		else
			len = str_appendf(buf, cap, len, "%s%zu %s%s", k ? ", " : "", cores, w, cores == 1 ? "" : "s");
		if (shares_word(t, first, ntypes, k) && p->uarch_key)
			len = str_appendf(buf, cap, len, " (%s)", p->uarch_key);
		if (!located)
			len = str_appendf(buf, cap, len, " (location not known)");
	}
}

static void loc(struct rec *r, const char *key, uint32_t v)
{
	if (v == TOPO_NONE)
		rec_null(r, key);
	else
		rec_u64(r, key, v);
}

/*
 * Entries beyond this many stay out of the record (an entry is ~150 bytes, a
 * record at most REC_MAX); `listed` and `chosen_count` say how many there are.
 */
#define TOPO_RECORD_CPUS 32

void topo_report(const struct topology *t, struct rec *r, const char *cpus_value, const size_t *chosen,
		 size_t nchosen)
{
	char summary[160];
	size_t first[8], ntypes = topo_types(t, first, ARRAY_SIZE(first));
	size_t listed = t->n < TOPO_RECORD_CPUS ? t->n : TOPO_RECORD_CPUS;

	topo_summary(t, summary, sizeof(summary));
	out_text("topology: %zu processor%s (%s): %s", t->total, t->total == 1 ? "" : "s", t->source, summary);
	for (size_t k = 0; k < ntypes; k++) {
		const struct topo_cpu *p = &t->cpu[first[k]];
		size_t count = 0;
		for (size_t i = 0; i < t->n; i++)
			count += same_type(&t->cpu[i], p);
		out_text("topology: %zu x %s: %s, event set %s%s", count, cpu_core_type_name(p->core_type) ?
			 type_word(p->core_type) : "core", p->uarch ? p->uarch : "not identified",
			 p->event_set ? p->event_set : "none", p->fallback ? " (FALLBACK)" : "");
	}

	rec_start(r, "topology");
	rec_str(r, "source", t->source);
	rec_u64(r, "count", t->total);
	rec_u64(r, "listed", listed);
	rec_str(r, "summary", summary);
	rec_arr(r, "cpus");
	for (size_t i = 0; i < listed; i++) {
		const struct topo_cpu *c = &t->cpu[i];
		rec_obj(r, NULL);
		rec_u64(r, "n", c->n);
		loc(r, "apic_id", c->apic_id);	/* null: nobody could tell (a CPU Linux will not let us on) */
		rec_bool(r, "bsp", c->bsp);
		rec_bool(r, "enabled", c->enabled);
		rec_bool(r, "healthy", c->healthy);
		loc(r, "package", c->package);
		loc(r, "die", c->die);
		loc(r, "core", c->core);
		loc(r, "thread", c->thread);
		rec_bool(r, "probed", c->probed);
		rec_str(r, "core_type", cpu_core_type_name(c->core_type));
		rec_str(r, "uarch_key", c->uarch_key);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_arr(r, "core_types");
	for (size_t k = 0; k < ntypes; k++) {
		const struct topo_cpu *p = &t->cpu[first[k]];
		size_t count = 0;
		rec_obj(r, NULL);
		for (size_t i = 0; i < t->n; i++)
			count += same_type(&t->cpu[i], p);
		rec_str(r, "core_type", cpu_core_type_name(p->core_type));
		rec_bool(r, "hybrid", p->hybrid);
		rec_str(r, "uarch", p->uarch);
		rec_str(r, "uarch_key", p->uarch_key);
		rec_str(r, "event_set", p->event_set);
		rec_bool(r, "fallback", p->fallback);
		rec_str(r, "doubt", p->doubt);
		rec_u64(r, "count", count);
		rec_u64(r, "first", p->n);
		rec_u64(r, "pmu_version", CPUID0A_VERSION(p->pmu_eax));
		rec_bool(r, "ibs", p->ibs);
		if (p->ibs)
			rec_hex(r, "ibs_flags", p->ibs_flags);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	if (chosen) {
		rec_str(r, "cpus_option", cpus_value);
		rec_str(r, "neighbours", t->neighbours);
		rec_u64(r, "chosen_count", nchosen);
		rec_arr(r, "chosen");
		for (size_t i = 0; i < nchosen && i < TOPO_RECORD_CPUS; i++) {
			rec_obj(r, NULL);
			rec_u64(r, "n", t->cpu[chosen[i]].n);
			rec_u64(r, "apic_id", t->cpu[chosen[i]].apic_id);
			rec_obj_end(r);
		}
		rec_arr_end(r);
	}
	rec_emit(r);
}
