/*
 * cpu/uarch.c - looking a CPU up in the microarchitecture table (see
 * uarch.h).  The table is cpu/uarch.csv, generated into
 * $(B)/gen/uarch_table.c (cpu/uarch_data.h); this file holds no fact
 * about any core.
 */
#include "cpu/uarch.h"
#include "cpu/uarch_data.h"

size_t uarch_table_count(void) { return uarch_rows_count; }
const struct uarch_row *uarch_table_at(size_t i) { return i < uarch_rows_count ? &uarch_rows[i] : NULL; }
const struct uarch_desc *uarch_desc_of(const struct uarch_row *row) { return &uarch_descs[row->desc]; }
const char *uarch_desc_key(const struct uarch_desc *d) { return uarch_strings + d->key; }
const char *uarch_desc_name(const struct uarch_desc *d) { return uarch_strings + d->name; }

size_t uarch_event_sets_count(void) { return uarch_sets_count; }

const char *uarch_event_set_key(size_t i)
{
	return i < uarch_sets_count ? uarch_strings + uarch_sets[i].key : NULL;
}

bool uarch_event_set_amd(size_t i) { return i < uarch_sets_count && uarch_sets[i].amd; }

const char *uarch_fallback_event_set(enum cpu_vendor vendor)
{
	return (unsigned)vendor <= VENDOR_HYGON ? uarch_event_set_key(uarch_fallback_sets[vendor]) : NULL;
}

bool uarch_event_set_is_fallback(const char *key)
{
	for (unsigned v = VENDOR_INTEL; key && v <= VENDOR_HYGON; v++)
		if (!strcmp(key, uarch_fallback_event_set((enum cpu_vendor)v)))
			return true;
	return false;
}

const char *uarch_row_event_set(const struct uarch_row *row)
{
	return uarch_event_set_key(uarch_descs[row->desc].event_set);
}

const char *uarch_desc_note(const struct uarch_desc *d)
{
	return d->note && d->note <= uarch_notes_count ? uarch_strings + uarch_notes[d->note - 1] : NULL;
}

const char *uarch_basis_name(enum uarch_basis b)
{
	static const char *const names[] = {
		[BASIS_VENDOR] = "vendor", [BASIS_RELATED] = "related_core", [BASIS_NONE] = NULL,
		[BASIS_GENERIC] = "generic",
	};
	return (size_t)b < ARRAY_SIZE(names) ? names[b] : NULL;
}

const char *uarch_fallback_name(enum uarch_fallback f)
{
	static const char *const names[] = {
		[FALLBACK_NONE] = NULL, [FALLBACK_GENERIC] = "generic", [FALLBACK_ASSUMED_P_CORE] = "assumed_p_core",
		[FALLBACK_NATIVE_MODEL] = "unlisted_native_model", [FALLBACK_STEPPING] = "unlisted_stepping",
	};
	return (size_t)f < ARRAY_SIZE(names) ? names[f] : NULL;
}

static bool same_model(const struct uarch_row *t, const struct uarch_query *q)
{
	return t->vendor == q->vendor && t->family == q->family && q->model >= t->model_lo && q->model <= t->model_hi;
}

static bool same_stepping(const struct uarch_row *t, uint32_t stepping)
{
	return stepping >= t->step_lo && stepping <= t->step_hi;
}

static bool same_native(const struct uarch_row *t, uint32_t native)
{
	return t->native_model == UARCH_NATIVE_ANY || native == UARCH_NATIVE_ANY || t->native_model == native;
}

static const char *core_type_name(uint8_t t)
{
	return t == CORE_TYPE_ATOM ? "Atom (E-core)" : t == CORE_TYPE_CORE ? "Core (P-core)" : "not enumerated";
}

static void use_row(struct uarch_match *m, const struct uarch_row *t)
{
	const struct uarch_desc *d = &uarch_descs[t->desc];
	m->row = t;
	m->uarch = uarch_desc_name(d);
	m->key = uarch_desc_key(d);
	m->event_set = uarch_row_event_set(t);
	m->basis = (enum uarch_basis)d->basis;
	m->note = uarch_desc_note(d);
	m->pmu = (enum uarch_pmu)d->pmu;
}

static void mark(struct uarch_match *m, enum uarch_fallback kind)
{
	m->fallback = true;
	m->fallback_kind = kind;
}

/* The vendor's family-level event set for q: Intel's needs an architectural PMU (CPUID.0AH). */
static const char *generic_event_set(const struct uarch_query *q)
{
	return q->vendor == VENDOR_INTEL && !q->arch_pmu ? NULL : uarch_fallback_event_set(q->vendor);
}

/* No row of this model applies: the vendor's family-level fallback. */
static void family_fallback(const struct uarch_query *q, struct uarch_match *m, const char *why)
{
	m->row = NULL;
	m->note = NULL;
	m->pmu = UARCH_PMU_CPUID;
	mark(m, FALLBACK_GENERIC);
	if (q->vendor == VENDOR_INTEL) {
		m->uarch = "unknown Intel model";
		m->key = "intel_unknown";
		m->event_set = generic_event_set(q);
		snprintf(m->reason, sizeof(m->reason), "%s family 0x%x model 0x%x; %s", why, q->family, q->model,
			 q->arch_pmu ? "using the architectural events of CPUID.0AH only"
				     : "no architectural PMU (CPUID.0AH) either, so no event set");
	} else if (q->vendor == VENDOR_AMD || q->vendor == VENDOR_HYGON) {
		m->uarch = q->vendor == VENDOR_AMD ? "unknown AMD model" : "unknown Hygon model";
		m->key = "amd_unknown";
		m->event_set = generic_event_set(q);
		snprintf(m->reason, sizeof(m->reason), "%s family 0x%x model 0x%x; using the legacy AMD core events only",
			 why, q->family, q->model);
	} else {
		m->uarch = "unknown vendor";
		m->key = "unknown";
		m->event_set = NULL;
		snprintf(m->reason, sizeof(m->reason), "unknown vendor: no microarchitecture table and no event set");
	}
	m->basis = m->event_set ? BASIS_GENERIC : BASIS_NONE;
}

/* Do the rows (with the given stepping filter) all name one event set? */
static bool one_event_set(const struct uarch_row *const *rows, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (uarch_descs[rows[i]->desc].event_set != uarch_descs[rows[0]->desc].event_set)
			return false;
	return n > 0;
}

/* The query's core type is Atom or Core, but no row of that type lists its native model ID. */
static void unlisted_native(const struct uarch_query *q, const struct uarch_row *const *rows, size_t n,
			    struct uarch_match *m)
{
	if (!one_event_set(rows, n)) {
		char why[120];
		snprintf(why, sizeof(why), "native model ID 0x%06x of this %s is not listed, and this model's %s cores use "
			 "different event sets:", q->native_model, core_type_name(q->core_type),
			 q->core_type == CORE_TYPE_ATOM ? "Atom" : "Core");
		family_fallback(q, m, why);
		return;
	}
	use_row(m, rows[0]);
	mark(m, FALLBACK_NATIVE_MODEL);
	snprintf(m->reason, sizeof(m->reason),
		 "native model ID 0x%06x (CPUID.1AH:EAX[23:0]) of this %s is not one listed for family 0x%x model 0x%x; "
		 "every listed core of this type uses event set %s", q->native_model, core_type_name(q->core_type),
		 q->family, q->model, m->event_set ? m->event_set : "(none)");
}

#define MODEL_ROWS_MAX 16

uint8_t uarch_core_type(bool intel, bool hybrid, uint8_t core_type)
{
	/* CPUID.07H:EDX[15] clear on a model the table knows as hybrid (i5-12400, Pentium G7400):
	 * every core is the model's P-core, so that row is exact, not an assumption. */
	return intel && !hybrid && core_type == 0 ? CORE_TYPE_CORE : core_type;
}

void uarch_identify(const struct uarch_query *q, struct uarch_match *m)
{
	const struct uarch_row *model_rows[MODEL_ROWS_MAX], *typed[MODEL_ROWS_MAX];
	size_t nmodel = 0, ntyped = 0;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < uarch_rows_count; i++) {
		const struct uarch_row *t = &uarch_rows[i];
		if (!same_model(t, q))
			continue;
		if (nmodel < ARRAY_SIZE(model_rows))
			model_rows[nmodel++] = t;
		if (!same_stepping(t, q->stepping))
			continue;
		if (t->core_type != CORE_TYPE_ANY && t->core_type != q->core_type)
			continue;
		if (t->core_type != CORE_TYPE_ANY && ntyped < ARRAY_SIZE(typed))
			typed[ntyped++] = t;
		if (!same_native(t, q->native_model))
			continue;
		use_row(m, t);
		return;
	}
	if (nmodel == 0) {
		family_fallback(q, m, "not in the table:");
		return;
	}
	if (ntyped > 0) {
		unlisted_native(q, typed, ntyped, m);
		return;
	}

	/* A hybrid model whose core type is not enumerated (or unknown): the P-core row, marked as assumed. */
	for (size_t i = 0; i < nmodel; i++) {
		const struct uarch_row *t = model_rows[i];
		if (t->core_type == CORE_TYPE_CORE && same_stepping(t, q->stepping)) {
			use_row(m, t);
			mark(m, FALLBACK_ASSUMED_P_CORE);
			snprintf(m->reason, sizeof(m->reason),
				 "family 0x%x model 0x%x is a hybrid part but this CPU's core type is %s "
				 "(CPUID.1AH:EAX[31:24] = 0x%02x); assumed a P-core", q->family, q->model,
				 core_type_name(q->core_type), q->core_type);
			return;
		}
	}
	/* A known model, but not this stepping: its rows are used only if they all share an event set. */
	if (!one_event_set(model_rows, nmodel)) {
		family_fallback(q, m, "stepping not in the table, and this model's steppings use different event sets:");
		return;
	}
	use_row(m, model_rows[0]);
	m->uarch = "unlisted stepping of a known model";
	mark(m, FALLBACK_STEPPING);
	snprintf(m->reason, sizeof(m->reason),
		 "stepping %u of family 0x%x model 0x%x is not in the table; every known stepping of this model uses "
		 "event set %s", q->stepping, q->family, q->model, m->event_set ? m->event_set : "(none)");
}

void uarch_lookup(enum cpu_vendor vendor, uint32_t family, uint32_t model, uint32_t stepping, uint8_t core_type,
		  bool arch_pmu, struct uarch_match *m)
{
	struct uarch_query q = { vendor, family, model, stepping, core_type, UARCH_NATIVE_ANY, arch_pmu };
	uarch_identify(&q, m);
}

/* A doubted row's event_set note (uarch_doubt). */
#define UARCH_DOUBT_NOTE "the model number is doubted (uarch_doubt): only the events every core of the vendor has"

/* Whether feature f's line lists core `key`. */
static bool feature_lists(const struct uarch_feature *f, const char *key)
{
	for (size_t k = 0; k < UARCH_FEATURE_KEYS && f->keys[k] != UARCH_FEATURE_NO_KEY; k++)
		if (!strcmp(uarch_strings + f->keys[k], key))
			return true;
	return false;
}

void uarch_doubt(const struct uarch_query *q, struct uarch_match *m, const struct cpu_leaf7 *l7,
		 struct uarch_doubt *d)
{
	memset(d, 0, sizeof(*d));
	if (!m->row || m->fallback || !m->key)
		return;
	for (size_t i = 0; i < uarch_features_count; i++) {
		const struct uarch_feature *f = &uarch_features[i];
		if (f->vendor != q->vendor || f->subleaf >= l7->n || feature_lists(f, m->key) ||
		    !(l7->r[f->subleaf][f->reg] >> f->bit & 1))
			continue;
		m->event_set = generic_event_set(q);
		m->basis = m->event_set ? BASIS_GENERIC : BASIS_NONE;
		m->note = m->event_set ? UARCH_DOUBT_NOTE : NULL;
		d->feature = uarch_strings + f->name;
		d->subleaf = f->subleaf;
		d->reg = (char)('a' + f->reg);
		d->bit = f->bit;
		size_t at = 0;
		for (size_t k = 0; k < UARCH_FEATURE_KEYS && f->keys[k] != UARCH_FEATURE_NO_KEY; k++) {
			int n = snprintf(d->cores + at, sizeof(d->cores) - at, "%s%s", k ? ", " : "",
					 uarch_strings + f->keys[k]);
			if (n < 0 || (size_t)n >= sizeof(d->cores) - at)
				break;
			at += (size_t)n;
		}
		return;
	}
}
