/*
 * events/spec.c - event specifications as people type them.
 *
 * Accepted, in this order (docs/events.md has the details):
 *   NAME                       an event of the set, case-insensitive ("ld_blocks.store_forward")
 *   cycles, instructions,      the set's event for that role (perf's generic names)
 *   ref-cycles
 *   event=0x03,umask=0x02[,cmask=N][,inv][,edge][,any]     raw fields
 *   rHEX                       perf's raw config: the PERFEVTSEL layout; on AMD event bits
 *                              11:8 sit in config bits 35:32, as perf encodes them
 * Every error names the offending text and what was expected instead.
 */
#include "events/events.h"
#include "lib/x86/msr_intel.h"

#define SPEC_MAX 127

/* PERFEVTSEL / PERF_CTL fields a raw config may set (Intel SDM Vol.3B Figure 18-1 and
 * 18.2.1.1; AMD APM Vol.2 13.2.1).  USR/OS/INT/EN are the counting layer's business. */
#define CFG_EVENT_LO	0xFFull			/* bits 7:0 event select */
#define CFG_UMASK	0xFF00ull		/* bits 15:8 unit mask */
#define CFG_EDGE	(1ull << 18)		/* edge detect */
#define CFG_ANY		(1ull << 21)		/* Intel AnyThread */
#define CFG_INV		(1ull << 23)		/* invert cmask comparison */
#define CFG_CMASK	0xFF000000ull		/* bits 31:24 counter mask */
#define CFG_AMD_EVENT_HI 0xF00000000ull		/* AMD: event select bits 11:8 in 35:32 */

/* perf's offcore_rsp= (config1) is the value for MSR_OFFCORE_RSP_0 (lib/x86/msr_intel.h). */

#define INTEL_EVENT_MAX	0xFFu
#define AMD_EVENT_MAX	0xFFFu

static void set_name(struct event_spec *out, const char *s)
{
	size_t n = strlen(s);
	if (n >= sizeof(out->name))
		n = sizeof(out->name) - 1;
	memcpy(out->name, s, n);
	out->name[n] = 0;
}

/* What the scheduler needs beyond the encoding: counters, extra MSR, second offcore form. */
static void copy_constraints(struct event_spec *out, const struct event_def *d)
{
	out->counters = d->counters;
	out->counters_htoff = d->counters_htoff;
	out->umask_ext = d->umask_ext;
	out->pair = d->pair;
	out->taken_alone = d->taken_alone;
	out->msr = d->msr;
	out->msr_alt = d->msr_alt;
	out->msr_value = d->msr_value;
	out->has_alt = d->has_alt;
	out->alt_event = d->alt_event;
	out->alt_umask = d->alt_umask;
}

static void from_def(struct event_spec *out, const struct event_def *d)
{
	set_name(out, d->name);
	out->event = d->event;
	out->umask = d->umask;
	out->cmask = d->cmask;
	out->inv = d->inv;
	out->edge = d->edge;
	out->any = d->any;
	out->counters = d->counters;
	out->fixed = d->fixed;
	out->named = true;
	out->roles = d->roles;
	out->fixed_only = d->fixed_only;
	copy_constraints(out, d);
	events_row_limits(d, &out->row);
}

static bool all_hex(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!lc_isxdigit((unsigned char)*s))
			return false;
	return true;
}

/* rHEX: perf's raw config value. */
static bool parse_perf_raw(const char *spec, bool amd, struct event_spec *out, char *err, size_t cap)
{
	const char *hex = spec + 1;
	uint64_t v = 0;
	uint64_t allowed = CFG_EVENT_LO | CFG_UMASK | CFG_EDGE | CFG_INV | CFG_CMASK |
			   (amd ? CFG_AMD_EVENT_HI : CFG_ANY);

	if (strlen(hex) > 16) {
		snprintf(err, cap, "raw event '%s' has more than 16 hex digits", spec);
		return false;
	}
	for (const char *p = hex; *p; p++) {
		int c = lc_tolower((unsigned char)*p);
		v = (v << 4) | (uint64_t)(lc_isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	if (v & ~allowed) {
		snprintf(err, cap,
			 "raw event '%s' sets config bits 0x%llx; expected only event (7:0), umask (15:8), "
			 "edge (18), %sinv (23), cmask (31:24)%s",
			 spec, (unsigned long long)(v & ~allowed), amd ? "" : "any (21), ",
			 amd ? ", event 11:8 (35:32)" : "");
		return false;
	}
	out->event = (uint16_t)((v & CFG_EVENT_LO) | (amd ? ((v & CFG_AMD_EVENT_HI) >> 24) : 0));
	out->umask = (uint8_t)((v & CFG_UMASK) >> 8);
	out->cmask = (uint8_t)((v & CFG_CMASK) >> 24);
	out->edge = (v & CFG_EDGE) != 0;
	out->inv = (v & CFG_INV) != 0;
	out->any = !amd && (v & CFG_ANY) != 0;
	return true;
}

static bool key_is(const char *tok, size_t klen, const char *key)
{
	return strlen(key) == klen && !strncmp(tok, key, klen);
}

/* A lone field keyword ("event") is a raw spec missing its value, not an event name. */
static bool is_field_word(const char *s)
{
	static const char *const words[] = { "event", "umask", "cmask", "inv", "edge", "any", "offcore_rsp" };
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!lc_strcasecmp(s, words[i]))
			return true;
	return false;
}

/* event=..,umask=..[,cmask=..][,inv][,edge][,any] */
static bool parse_fields(const char *spec, bool amd, struct event_spec *out, char *err, size_t cap)
{
	char tok[SPEC_MAX + 1];
	bool have_event = false, have_umask = false, have_cmask = false;
	bool have_inv = false, have_edge = false, have_any = false, have_rsp = false;
	const char *p = spec;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		while (n && lc_isspace((unsigned char)*p))
			p++, n--;
		while (n && lc_isspace((unsigned char)p[n - 1]))
			n--;
		memcpy(tok, p, n);
		tok[n] = 0;
		for (size_t i = 0; i < n && tok[i] != '='; i++)
			tok[i] = (char)lc_tolower((unsigned char)tok[i]);
		if (!n) {
			snprintf(err, cap, "empty field in '%s' (a stray comma?); expected "
				 "event=0x..,umask=0x..[,cmask=N][,inv][,edge]%s", spec, amd ? "" : "[,any]");
			return false;
		}
		const char *eq = strchr(tok, '=');
		size_t klen = eq ? (size_t)(eq - tok) : n;
		const char *val = eq ? eq + 1 : NULL;
		uint64_t v = 1;

		if (val && !lc_parse_u64(val, strlen(val), &v)) {
			snprintf(err, cap, "'%s' in '%s': '%s' is not a number (expected 0x.. hex or decimal)",
				 tok, spec, val);
			return false;
		}
		if (key_is(tok, klen, "event") || key_is(tok, klen, "umask") || key_is(tok, klen, "cmask")) {
			bool *seen = tok[0] == 'e' ? &have_event : tok[0] == 'u' ? &have_umask : &have_cmask;
			uint64_t max = tok[0] == 'e' ? (amd ? AMD_EVENT_MAX : INTEL_EVENT_MAX) : 0xFF;
			if (!val) {
				snprintf(err, cap, "'%s' in '%s' needs a value, e.g. %s=0x%02x", tok, spec, tok,
					 tok[0] == 'e' ? 3 : tok[0] == 'u' ? 2 : 1);
				return false;
			}
			if (*seen) {
				snprintf(err, cap, "'%s' in '%s' gives %.*s a second time", tok, spec, (int)klen, tok);
				return false;
			}
			if (v > max) {
				snprintf(err, cap, "'%s' in '%s': %.*s must be 0..0x%llx%s", tok, spec, (int)klen, tok,
					 (unsigned long long)max,
					 tok[0] == 'e' ? (amd ? " (AMD event selects are 12 bits)" :
							 " (Intel event selects are 8 bits)") : "");
				return false;
			}
			*seen = true;
			if (tok[0] == 'e')
				out->event = (uint16_t)v;
			else if (tok[0] == 'u')
				out->umask = (uint8_t)v;
			else
				out->cmask = (uint8_t)v;
		} else if (key_is(tok, klen, "inv") || key_is(tok, klen, "edge") || key_is(tok, klen, "any")) {
			bool *seen = tok[0] == 'i' ? &have_inv : tok[0] == 'e' ? &have_edge : &have_any;
			if (tok[0] == 'a' && amd) {
				snprintf(err, cap, "'%s' in '%s': AnyThread is Intel-only; AMD has no any bit", tok, spec);
				return false;
			}
			if (v > 1) {
				snprintf(err, cap, "'%s' in '%s': %.*s is a flag (expected %.*s, %.*s=1 or %.*s=0)",
					 tok, spec, (int)klen, tok, (int)klen, tok, (int)klen, tok, (int)klen, tok);
				return false;
			}
			if (*seen) {
				snprintf(err, cap, "'%s' in '%s' gives %.*s a second time", tok, spec, (int)klen, tok);
				return false;
			}
			*seen = true;
			if (tok[0] == 'i')
				out->inv = v != 0;
			else if (tok[0] == 'e')
				out->edge = v != 0;
			else
				out->any = v != 0;
		} else if (key_is(tok, klen, "offcore_rsp") && !amd) {
			if (!val || have_rsp) {
				snprintf(err, cap, "'%s' in '%s': offcore_rsp needs one value, e.g. offcore_rsp=0x10001",
					 tok, spec);
				return false;
			}
			have_rsp = true;
			out->msr = MSR_OFFCORE_RSP_0;
			out->msr_value = v;
		} else {
			snprintf(err, cap, "'%s' in '%s': unknown field '%.*s' (expected event, umask, cmask, inv, edge%s)",
				 tok, spec, (int)klen, tok, amd ? "" : ", any or offcore_rsp");
			return false;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	if (!have_event) {
		snprintf(err, cap, "'%s' has no event= field (expected event=0x..,umask=0x..)", spec);
		return false;
	}
	return true;
}

/* Case-insensitive Levenshtein distance; names are shorter than EVENT_NAME_MAX. */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[EVENT_NAME_MAX], la = (unsigned)strlen(a), lb = (unsigned)strlen(b);
	if (la > EVENT_NAME_MAX - 1)
		la = EVENT_NAME_MAX - 1;
	if (lb > EVENT_NAME_MAX - 1)
		lb = EVENT_NAME_MAX - 1;
	for (unsigned j = 0; j <= lb; j++)
		row[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = i;
		for (unsigned j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned cost = lc_tolower((unsigned char)a[i - 1]) != lc_tolower((unsigned char)b[j - 1]);
			unsigned best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* name is a whole dotted prefix of cand: "EMON_KNI_PREF_MISS" of "EMON_KNI_PREF_MISS.PREFETCH_T1". */
static bool extends(const char *name, const char *cand)
{
	size_t n = strlen(name);
	if (strlen(cand) <= n || cand[n] != '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (lc_tolower((unsigned char)name[i]) != lc_tolower((unsigned char)cand[i]))
			return false;
	return true;
}

size_t events_suggest(const struct event_set *set, const char *name, char (*out)[EVENT_NAME_MAX], size_t max)
{
	unsigned score[8];
	size_t n = 0;
	unsigned limit = name ? 2 + (unsigned)strlen(name) / 3 : 0;
	struct events_iter it;
	struct event_def d;

	if (!set || !name || !max)
		return 0;
	if (max > ARRAY_SIZE(score))
		max = ARRAY_SIZE(score);
	for (events_iter_start(&it, set); events_next(&it, &d);) {
		const char *cand = d.name;
		unsigned s = extends(name, cand) ? 0 : edit_distance(name, cand) + 1;
		if (s > limit + 1)
			continue;
		/* Insertion into the sorted top list; ties go by name so output is stable. */
		size_t pos = n;
		while (pos > 0 && (score[pos - 1] > s || (score[pos - 1] == s && strcmp(out[pos - 1], cand) > 0)))
			pos--;
		if (pos >= max)
			continue;
		size_t last = n < max ? n : max - 1;
		for (size_t k = last; k > pos; k--) {
			score[k] = score[k - 1];
			memcpy(out[k], out[k - 1], EVENT_NAME_MAX);
		}
		score[pos] = s;
		memcpy(out[pos], cand, EVENT_NAME_MAX);
		if (n < max)
			n++;
	}
	return n;
}

static bool unknown_name(const struct event_set *set, const char *spec, char *err, size_t cap)
{
	char near[4][EVENT_NAME_MAX];
	size_t n = events_suggest(set, spec, near, ARRAY_SIZE(near));
	int w = snprintf(err, cap, "unknown event '%s' for %s (%s); ", spec, set->name, set->key);
	if (w < 0 || (size_t)w >= cap)
		return false;
	if (!n) {
		snprintf(err + w, cap - (size_t)w, "no similar names (pmuboot-host events --uarch %s lists them)",
			 set->key);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		int k = snprintf(err + w, cap - (size_t)w, "%s%s", i ? ", " : "nearest: ", near[i]);
		if (k < 0 || (size_t)(w + k) >= cap)
			break;
		w += k;
	}
	return false;
}

/*
 * A raw spec that encodes exactly an event of the set counts what that event counts, so it
 * inherits the event's counter restrictions and extra MSR (a raw LD_BLOCKS.STORE_FORWARD on Ice
 * Lake is still limited to counters 0-3).  Its name stays the raw text, named stays false and row
 * holds the row's limits.  Any other raw encoding gets the set's rules by code from the scheduler.
 */
static void adopt_catalogue(const struct event_set *set, struct event_spec *out)
{
	struct events_iter it;
	struct event_def row;
	const struct event_def *d = &row;

	for (events_iter_start(&it, set); set && events_next(&it, &row);) {
		if (d->fixed_only || d->event != out->event || d->umask != out->umask || d->cmask != out->cmask ||
		    d->inv != out->inv || d->edge != out->edge || d->any != out->any)
			continue;
		if (out->msr && (d->msr != out->msr || d->msr_value != out->msr_value))
			continue;
		uint16_t msr = out->msr;
		uint64_t value = out->msr_value;
		copy_constraints(out, d);
		if (msr) {	/* the user's offcore_rsp value stands */
			out->msr = msr;
			out->msr_value = value;
		}
		events_row_limits(d, &out->row);
		return;
	}
}

/* A row of an offcore event (perfmon's EventCode "0xB7, 0xBB" with MSRIndex "0x1a6,0x1a7"): its
 * first form pairs with OFFCORE_RSP_0, its second (alt) with OFFCORE_RSP_1.  The bare
 * OFFCORE_RESPONSE row has both forms and no MSR; a single-form row (Nehalem) has MSR 0x1A6 only. */
static bool offcore_row(const struct event_def *d)
{
	return !d->fixed_only && (d->msr == MSR_OFFCORE_RSP_0 || (d->has_alt && !d->msr));
}

/*
 * A raw spec whose code is one form of an offcore event: the code selects the MSR (SDM Vol. 4:
 * event B7H reads OFFCORE_RSP_0, BBH OFFCORE_RSP_1; Golden Cove and later 2AH/2BH; the Atoms
 * B7H umask 01H/02H), so the spec gets that MSR and its other form, and the scheduler changes
 * the code and the MSR only together.  Without offcore_rsp= such a code counts whatever the MSR
 * happens to hold: refused.
 */
static bool adopt_offcore_form(const struct event_set *set, const char *spec, struct event_spec *out, char *err,
			       size_t cap)
{
	struct event_def found, cand;
	const struct event_def *row = NULL, *d = &cand;
	struct events_iter it;
	bool first = false;
	/* A row with both forms says more than a single-form one (Silvermont's *.OUTSTANDING rows). */
	for (events_iter_start(&it, set); set && !set->amd && !(row && row->has_alt) && events_next(&it, &cand);) {
		if (!offcore_row(d))
			continue;
		bool f1 = d->event == out->event && d->umask == out->umask;
		bool f2 = d->has_alt && d->alt_event == out->event && d->alt_umask == out->umask;
		if ((f1 || f2) && (!row || d->has_alt)) {
			found = cand;
			row = &found;
			first = f1;
		}
	}
	if (!row)
		return true;
	if (!out->msr) {
		snprintf(err, cap, "'%s' is an offcore response event (the %s form of %s): it counts what "
			 "OFFCORE_RSP_%d (MSR 0x%X) selects, so give the value (offcore_rsp=0x...) or name an "
			 "OCR./OFFCORE_RESPONSE. event", spec, first ? "first" : "second", row->name, first ? 0 : 1,
			 first ? MSR_OFFCORE_RSP_0 : MSR_OFFCORE_RSP_1);
		return false;
	}
	out->msr = first ? MSR_OFFCORE_RSP_0 : MSR_OFFCORE_RSP_1;
	if (!row->has_alt)
		return true;
	out->has_alt = true;
	out->msr_alt = first ? MSR_OFFCORE_RSP_1 : MSR_OFFCORE_RSP_0;
	out->alt_event = first ? row->alt_event : (uint8_t)row->event;
	out->alt_umask = first ? row->alt_umask : row->umask;
	return true;
}

bool event_spec_parse(const struct event_set *set, bool amd, const char *text, size_t len,
		      struct event_spec *out, char *err, size_t err_cap)
{
	char spec[SPEC_MAX + 1];
	static const struct { const char *word; uint32_t role; } generic[] = {
		{ "cycles", EV_ROLE_CYCLES },
		{ "instructions", EV_ROLE_INSTRUCTIONS },
		{ "ref-cycles", EV_ROLE_REF_CYCLES },
	};

	memset(out, 0, sizeof(*out));
	out->fixed = EV_NO_FIXED;
	if (err_cap)
		err[0] = 0;
	if (set)
		amd = set->amd;
	while (len && lc_isspace((unsigned char)*text))
		text++, len--;
	while (len && lc_isspace((unsigned char)text[len - 1]))
		len--;
	if (!len) {
		snprintf(err, err_cap, "empty event spec (expected an event name, event=0x..,umask=0x.. or r<hex>)");
		return false;
	}
	if (len > SPEC_MAX) {
		snprintf(err, err_cap, "event spec '%.32s...' is %zu characters long (at most %d)", text, len,
			 SPEC_MAX);
		return false;
	}
	for (size_t i = 0; i < len; i++)
		if (text[i] == 0 || (unsigned char)text[i] < 0x20 || (unsigned char)text[i] > 0x7e) {
			snprintf(err, err_cap, "event spec has a control or non-ASCII byte 0x%02x at offset %zu",
				 (unsigned char)text[i], i);
			return false;
		}
	/* perf's PMU syntax: cpu/event=0x3c,umask=0x0/ (cpu_core/, cpu_atom/ on hybrid parts). */
	const char *slash = NULL;
	for (size_t i = 0; i < len && !slash; i++)
		if (text[i] == '/')
			slash = &text[i];
	if (slash && text[len - 1] == '/' && slash < text + len - 1) {
		len = (size_t)(text + len - 1 - (slash + 1));
		text = slash + 1;
		if (!len) {
			snprintf(err, err_cap, "empty event spec between the slashes of a PMU/.../ spec");
			return false;
		}
	}
	memcpy(spec, text, len);
	spec[len] = 0;

	if (set) {
		struct event_def d;
		bool found = events_find(set, spec, &d);
		if (!found && strchr(spec, ':') && !strchr(spec, '=')) {
			/* perf's and libpfm4's EVENT:UMASK for our EVENT.UMASK */
			char dotted[SPEC_MAX + 1];
			memcpy(dotted, spec, len + 1);
			for (char *c = dotted; *c; c++)
				if (*c == ':')
					*c = '.';
			found = events_find(set, dotted, &d);
		}
		/* The architectural events (SDM Vol. 3B Table 20-1) exist by definition on every Intel core
		 * with an architectural PMU, whether or not its own table lists them (Nehalem's has no
		 * BR_MISP_RETIRED.ALL_BRANCHES 0C5H/00H); whether this CPU counts one is CPUID.0AH:EBX's
		 * business, which the scheduler checks. */
		if (!found && !set->amd && strcmp(set->key, EVENTS_ARCH_KEY))
			found = events_find(events_set_find(EVENTS_ARCH_KEY), spec, &d);
		if (found) {
			from_def(out, &d);
			return true;
		}
		for (size_t i = 0; i < ARRAY_SIZE(generic); i++)
			if (!lc_strcasecmp(spec, generic[i].word) && events_for_role(set, generic[i].role, &d)) {
				from_def(out, &d);
				return true;
			}
	}
	if (strchr(spec, '=') || strchr(spec, ',') || is_field_word(spec)) {
		if (!parse_fields(spec, amd, out, err, err_cap))
			return false;
	} else if ((spec[0] == 'r' || spec[0] == 'R') && all_hex(spec + 1)) {
		if (!parse_perf_raw(spec, amd, out, err, err_cap))
			return false;
	} else if (set) {
		return unknown_name(set, spec, err, err_cap);
	} else {
		snprintf(err, err_cap, "'%s' is not a raw event spec (expected event=0x..,umask=0x.. or r<hex>; "
			 "event names need a microarchitecture)", spec);
		return false;
	}
	set_name(out, spec);
	if (!adopt_offcore_form(set, spec, out, err, err_cap))
		return false;
	adopt_catalogue(set, out);
	return true;
}
