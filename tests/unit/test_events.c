/*
 * The event vocabulary: every seed event carried exactly, per-core codes, the tables'
 * invariants, and event specs good and bad.
 *
 * The seed documents are read from ../shared/seeds (beside the checkout; the tests run
 * with the repository root as the working directory) or from $PMUBOOT_SEEDS.  They are
 * text extracted from PDFs, so the parsers below undo the PDF artefacts: hex values with
 * an H suffix (sometimes on a line of its own), names broken across lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/events.h"
#include "cpu/uarch.h"

#define MAX_SEED_EVENTS 128
#define MAX_LINES 2048

struct seed_event {
	char name[96];
	unsigned code, umask;
};

/* ---- the decoding API, for the assertions below ---- */

/* The set's event called name; the test fails when there is none. */
static struct event_def named(const struct event_set *s, const char *name)
{
	struct event_def d;
	if (!events_find(s, name, &d))
		fail_msg("%s has no event %s", s ? s->key : "(no set)", name);
	return d;
}

/* Whether the set has an event called name. */
static bool has(const struct event_set *s, const char *name)
{
	return events_find(s, name, NULL);
}

/* The set's event for role; the test fails when there is none. */
static struct event_def role_event(const struct event_set *s, uint32_t role)
{
	struct event_def d;
	if (!events_for_role(s, role, &d))
		fail_msg("%s has no event for role %s", s ? s->key : "(no set)", events_role_name(role));
	return d;
}

static bool has_role(const struct event_set *s, uint32_t role)
{
	struct event_def d;
	return events_for_role(s, role, &d);
}

/* ---- reading the seed files ---- */

static const char *seed_dir(void)
{
	static const char *const candidates[] = { "../shared/seeds", "../../shared/seeds" };
	const char *env = getenv("PMUBOOT_SEEDS");
	if (env && *env)
		return env;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		char p[256];
		snprintf(p, sizeof(p), "%s/README.md", candidates[i]);
		FILE *f = fopen(p, "r");
		if (f) {
			fclose(f);
			return candidates[i];
		}
	}
	return NULL;
}

/* The seed file whose name starts with prefix ("002_"), as trimmed non-empty lines. */
static char **seed_lines(const char *prefix, size_t *n)
{
	const char *dir = seed_dir();
	static const char *const names[] = {
		"000_f0cbb5f5ac51f9a4.txt", "001_5cd13bc3c3cbc94a.txt", "002_2872fd791cba214d.txt",
		"003_077243b0560eb0eb.txt", "004_8ec29c653ffd4475.txt",
	};
	char path[512], buf[4096];
	FILE *f = NULL;
	*n = 0;
	if (!dir)
		return NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !f; i++)
		if (!strncmp(names[i], prefix, strlen(prefix))) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			f = fopen(path, "r");
		}
	if (!f)
		return NULL;
	char **lines = calloc(MAX_LINES, sizeof(char *));
	assert_non_null(lines);
	while (fgets(buf, sizeof(buf), f) && *n < MAX_LINES) {
		char *s = buf, *e;
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = 0;
		if (*s)
			lines[(*n)++] = strdup(s);
	}
	fclose(f);
	return lines;
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

#define NEED_SEEDS(lines)                                                                     \
	do {                                                                                  \
		if (!(lines)) {                                                               \
			print_message("seed documents not found (../shared/seeds or "         \
				      "$PMUBOOT_SEEDS); skipping\n");                        \
			skip();                                                               \
		}                                                                             \
	} while (0)

/* "03H" -> 3; false for anything else. */
static bool hexh(const char *s, unsigned *v)
{
	if (strlen(s) != 3 || !isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) || s[2] != 'H')
		return false;
	*v = (unsigned)strtoul(s, NULL, 16);
	return true;
}

static bool name_fragment(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(isupper((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_' || *s == '.'))
			return false;
	return true;
}

/* Silvermont's PDF splits "03H" into "03" and "H" lines: glue them back. */
static size_t join_split_h(char **lines, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(lines[i], "H") && w > 0 && strlen(lines[w - 1]) == 2) {
			char *j = malloc(4);
			snprintf(j, 4, "%sH", lines[w - 1]);
			free(lines[w - 1]);
			free(lines[i]);
			lines[w - 1] = j;
			continue;
		}
		lines[w++] = lines[i];
	}
	return w;
}

/*
 * Tables laid out as "code umask NAME description": the two hex tokens may share a line
 * with the name (Core) or stand on lines of their own (Goldmont, Silvermont).  A name that
 * ends its line continues on the following lines that hold nothing but a name fragment.
 */
static size_t parse_code_umask_name(char **lines, size_t n, struct seed_event *out)
{
	/* Flatten into tokens, remembering which tokens are alone on their line. */
	static char tok[MAX_LINES * 8][96];
	static bool alone[MAX_LINES * 8], last[MAX_LINES * 8];
	size_t nt = 0, found = 0;
	for (size_t i = 0; i < n; i++) {
		char copy[4096], *save = NULL;
		size_t first = nt;
		snprintf(copy, sizeof(copy), "%s", lines[i]);
		for (char *t = strtok_r(copy, " \t", &save); t && nt < MAX_LINES * 8; t = strtok_r(NULL, " \t", &save)) {
			snprintf(tok[nt], sizeof(tok[nt]), "%s", t);
			alone[nt] = last[nt] = false;
			nt++;
		}
		if (nt > first) {
			last[nt - 1] = true;
			alone[first] = nt - first == 1;
		}
	}
	for (size_t i = 0; i + 2 < nt && found < MAX_SEED_EVENTS; i++) {
		unsigned code, umask;
		if (!hexh(tok[i], &code) || !hexh(tok[i + 1], &umask) || !name_fragment(tok[i + 2]))
			continue;
		struct seed_event *e = &out[found++];
		size_t j = i + 2;
		snprintf(e->name, sizeof(e->name), "%s", tok[j]);
		while (last[j] && j + 1 < nt && alone[j + 1] && name_fragment(tok[j + 1]) && !hexh(tok[j + 1], &code)) {
			strncat(e->name, tok[j + 1], sizeof(e->name) - strlen(e->name) - 1);
			j++;
		}
		e->code = (unsigned)strtoul(tok[i], NULL, 16);
		e->umask = umask;
		i = j;
	}
	return found;
}

/*
 * The P6 table is laid out "code NAME umask description", with names broken at '_' and
 * the two EMON_KNI_PREF events listing their four umasks after the description.
 */
static size_t parse_p6(char **lines, size_t n, struct seed_event *out)
{
	enum { IDLE, NAME, UMASK_LIST } st = IDLE;
	unsigned code = 0, v;
	char name[96] = "";
	size_t found = 0, listed = 0;

	for (size_t i = 0; i < n && found < MAX_SEED_EVENTS; i++) {
		const char *l = lines[i];
		switch (st) {
		case IDLE:
			if (hexh(l, &code)) {
				name[0] = 0;
				st = NAME;
			}
			break;
		case NAME:
			if (hexh(l, &v) && name[0]) {
				snprintf(out[found].name, sizeof(out[found].name), "%s", name);
				out[found].code = code;
				out[found++].umask = v;
				st = IDLE;
			} else if (name_fragment(l) || (l[0] == '_' && name_fragment(l + 1))) {
				strncat(name, l, sizeof(name) - strlen(name) - 1);
			} else {
				st = UMASK_LIST;
				listed = 0;
			}
			break;
		case UMASK_LIST:
			if (hexh(l, &v)) {
				snprintf(out[found].name, sizeof(out[found].name), "%s", name);
				out[found].code = code;
				out[found++].umask = v;
				listed++;
			} else if (listed) {
				st = IDLE;
			}
			break;
		}
	}
	return found;
}

/* The set carries the seed event: the exact name, or NAME.SUFFIX for events the seed lists
 * with several unit masks, with the same code and umask. */
static void check_seed_in_set(const char *key, const struct seed_event *e, size_t n)
{
	const struct event_set *s = events_set_find(key);
	assert_non_null(s);
	for (size_t i = 0; i < n; i++) {
		struct event_def d, k;
		struct events_iter it;
		bool found = events_find(s, e[i].name, &d);
		bool ok = found && d.event == e[i].code && d.umask == e[i].umask;
		size_t len = strlen(e[i].name);
		for (events_iter_start(&it, s); !found && !ok && events_next(&it, &k);)
			ok = !strncmp(k.name, e[i].name, len) && k.name[len] == '.' && k.event == e[i].code &&
			     k.umask == e[i].umask;
		if (!ok)
			fail_msg("%s: seed event %s %02XH/%02XH missing or different (table has %s)", key, e[i].name,
				 e[i].code, e[i].umask, found ? "another code" : "no such name");
	}
}

static void seed_core(void **state)
{
	(void)state;
	size_t n;
	char **lines = seed_lines("000_", &n);
	NEED_SEEDS(lines);
	struct seed_event ev[MAX_SEED_EVENTS];
	size_t found = parse_code_umask_name(lines, n, ev);
	assert_int_equal(found, 3);	/* the seed text stops after LOAD_BLOCK.OVERLAP_STORE */
	assert_string_equal(ev[2].name, "LOAD_BLOCK.OVERLAP_STORE");
	check_seed_in_set("core", ev, found);
	free_lines(lines, n);
}

static void seed_goldmont(void **state)
{
	(void)state;
	size_t n;
	char **lines = seed_lines("002_", &n);
	NEED_SEEDS(lines);
	struct seed_event ev[MAX_SEED_EVENTS];
	size_t found = parse_code_umask_name(lines, n, ev);
	assert_int_equal(found, 13);
	check_seed_in_set("goldmont", ev, found);
	/* Goldmont Plus has every seed event but PAGE_WALKS.* (05H): its file has no event 05H at all
	 * (its walks are DTLB_LOAD_MISSES.WALK_PENDING and friends), so it must not inherit them. */
	struct seed_event glp[MAX_SEED_EVENTS];
	size_t nglp = 0;
	for (size_t i = 0; i < found; i++)
		if (ev[i].code != 0x05)
			glp[nglp++] = ev[i];
	assert_int_equal(nglp, found - 3);
	check_seed_in_set("goldmont_plus", glp, nglp);
	/* Every seed row marked "Precise Event" is precise in the table. */
	const struct event_set *s = events_set_find("goldmont");
	assert_true(named(s, "LD_BLOCKS.STORE_FORWARD").precise);
	assert_true(named(s, "MISALIGN_MEM_REF.STORE_PAGE_SPLIT").precise);
	assert_false(named(s, "UOPS_ISSUED.ANY").precise);
	free_lines(lines, n);
}

static void seed_silvermont(void **state)
{
	(void)state;
	size_t n;
	char **lines = seed_lines("003_", &n);
	NEED_SEEDS(lines);
	n = join_split_h(lines, n);
	struct seed_event ev[MAX_SEED_EVENTS];
	size_t found = parse_code_umask_name(lines, n, ev);
	assert_int_equal(found, 11);
	check_seed_in_set("silvermont", ev, found);
	free_lines(lines, n);
}

static void seed_p6(void **state)
{
	(void)state;
	size_t n;
	char **lines = seed_lines("004_", &n);
	NEED_SEEDS(lines);
	struct seed_event ev[MAX_SEED_EVENTS];
	size_t found = parse_p6(lines, n, ev);
	assert_int_equal(found, 12);	/* 4 single events + 2 x 4 umasks */
	check_seed_in_set("p6", ev, found);
	free_lines(lines, n);
}

static void seed_ibs(void **state)
{
	(void)state;
	size_t n, found = 0;
	char **lines = seed_lines("001_", &n);
	NEED_SEEDS(lines);
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned code;
		char name[128];
		if (sscanf(lines[i], "Event Select 0x%4x %127[^\n]", &code, name) != 2)
			continue;
		assert_true(!strncmp(lines[i + 1], "Abbreviation: ", 14));
		const struct ibs_event_def *d = ibs_event_find((uint16_t)code);
		if (!d)
			fail_msg("IBS derived event 0x%04X (%s) missing", code, name);
		assert_string_equal(d->name, name);
		assert_string_equal(d->abbrev, lines[i + 1] + 14);
		assert_true(strlen(d->desc) > 10);
		found++;
	}
	assert_int_equal(found, 59);
	assert_int_equal(ibs_events_count(), found);	/* and nothing invented */
	free_lines(lines, n);
}

/* ---- the tables ---- */

/* Every set: the keys identification may map CPUs to (cpu/uarch.h: tools/gen_uarch.py's list,
 * read from events/sets.csv, the one table of keys), each with a set here, in the same order and
 * the same encoding, and nothing more. */
static void every_key_has_a_set(void **state)
{
	(void)state;
	assert_true(uarch_event_sets_count() > 60);
	for (size_t i = 0; i < uarch_event_sets_count(); i++) {
		const char *key = uarch_event_set_key(i);
		const struct event_set *s = events_set_find(key);
		if (!s)
			fail_msg("no event set for key %s", key);
		assert_string_equal(s->key, key);
		assert_ptr_equal(events_set_at(i), s);
		assert_true(s->n > 0);
		/* Every set can count cycles and instructions: the harness relies on both. */
		assert_true(has_role(s, EV_ROLE_CYCLES));
		assert_true(has_role(s, EV_ROLE_INSTRUCTIONS));
		assert_int_equal(s->amd, uarch_event_set_amd(i));
		assert_non_null(s->perf);
		assert_non_null(s->vendor_name);
	}
	assert_int_equal(events_set_count(), uarch_event_sets_count());
	/* The encodings: Intel's and AMD's both present, and Zen 4's AMD. */
	assert_true(events_set_find("zen4")->amd && !events_set_find("skylake")->amd);
	assert_null(events_set_find("nosuchcore"));
	assert_null(events_set_at(events_set_count()));
	assert_ptr_equal(events_set_find("GOLDMONT"), events_set_find("goldmont"));
	/* No set: nothing is found or walked, and the caller's struct is left alone. */
	struct event_def d = { .name = "untouched" };
	struct events_iter it;
	assert_false(events_find(NULL, "INST_RETIRED.ANY", &d));
	assert_false(events_at(NULL, 0, &d));
	assert_false(events_for_role(NULL, EV_ROLE_CYCLES, &d));
	events_iter_start(&it, NULL);
	assert_false(events_next(&it, &d));
	assert_string_equal(d.name, "untouched");
}

static void table_invariants(void **state)
{
	(void)state;
	for (size_t i = 0; i < events_set_count(); i++) {
		const struct event_set *s = events_set_at(i);
		struct events_iter it;
		struct event_def def, *d = &def, again;
		size_t k = 0;
		for (events_iter_start(&it, s); events_next(&it, &def); k++) {
			/* Walking the set and asking for event k decode the same event. */
			assert_int_equal(d->index, k);
			assert_true(events_at(s, k, &again));
			assert_memory_equal(&again, d, sizeof(again));
			assert_true(strlen(d->name) > 0 && strlen(d->name) < sizeof(((struct event_spec *)0)->name));
			assert_true(strlen(d->source) > 0);	/* the vendor file, or the role row's */
			assert_non_null(d->desc);
			assert_non_null(d->errata);
			assert_true(d->event <= (s->amd ? 0xFFF : 0xFF));
			if (s->amd)
				assert_true(d->fixed == EV_NO_FIXED && !d->any);
			if (d->fixed_only)
				assert_true(d->fixed != EV_NO_FIXED);
			assert_true(events_find(s, d->name, &again));	/* names are unique in a set */
			assert_int_equal(again.index, k);
			assert_true(d->counters < (1u << 16) && d->counters_htoff < (1u << 16));
			if (d->has_alt)		/* the second offcore form has its own MSR, or none at all */
				assert_true(d->msr_alt ? d->msr_alt == 0x1A7 && d->msr == 0x1A6 : !d->msr);
			if (d->pair)	/* events/amd_rules.csv: 003H from Family 17h, 05FH on Family 19h */
				assert_true(s->amd && (d->event == 0x003 || (d->event == 0x05F && !strcmp(s->key, "zen3")) ||
						       (d->event == 0x05F && !strcmp(s->key, "zen4"))));
		}
		assert_int_equal(k, s->n);
		assert_false(events_at(s, s->n, &again));
		/* Every hand-written (role) row has our own description. */
		long idx;
		for (size_t r = 0; (idx = events_role_row(s, r)) >= 0; r++) {
			assert_true(idx < (long)s->n);
			assert_true(events_at(s, (size_t)idx, &again));
			assert_true(strlen(again.desc) > 0);
		}
	}
}

/* The review's findings, as the vendor data states them. */
static void vendor_constraints(void **state)
{
	(void)state;
	const struct event_set *s;
	/* Family 15h has no event 035H; cycles (076H) only on PERF_CTL[2:0] (BKDG 42301). */
	struct events_iter it;
	struct event_def d;
	s = events_set_find("fam15h");
	for (events_iter_start(&it, s); events_next(&it, &d);)
		assert_true(d.event != 0x035);
	assert_int_equal(role_event(s, EV_ROLE_CYCLES).counters, 0x07);
	assert_int_equal(named(s, "DISPATCHED_FPU_OPS.OPS_PIPE0").counters, 0x38);
	/* Goldmont Plus has no event 05H. */
	s = events_set_find("goldmont_plus");
	for (events_iter_start(&it, s); events_next(&it, &d);)
		assert_true(d.event != 0x05);
	/* Ice Lake: LD_BLOCKS.*, LD_BLOCKS_PARTIAL.* and MEM_INST_RETIRED.* on counters 0-3 only. */
	s = events_set_find("icelake");
	assert_int_equal(named(s, "LD_BLOCKS.STORE_FORWARD").counters, 0x0F);
	assert_int_equal(named(s, "MEM_INST_RETIRED.SPLIT_LOADS").counters, 0x0F);
	/* Skylake: 0-3 with SMT on, 0-7 with it off, except MEM_INST_RETIRED (0-3 either way). */
	s = events_set_find("skylake");
	assert_int_equal(named(s, "LD_BLOCKS.STORE_FORWARD").counters_htoff, 0xFF);
	assert_int_equal(named(s, "MEM_INST_RETIRED.ALL_LOADS").counters_htoff, 0);
	/* Counter-1-only and fixed-only events. */
	assert_int_equal(named(s, "INST_RETIRED.PREC_DIST").counters, 0x02);
	assert_true(named(events_set_find("icelake"), "INST_RETIRED.PREC_DIST").fixed_only);
	/* Offcore: both forms, each with its response MSR and the event's value. */
	s = events_set_find("icelake");
	struct event_def ocr = named(s, "OCR.DEMAND_DATA_RD.L3_HIT.SNOOP_MISS"), *o = &ocr;
	assert_true(o->event == 0xB7 && o->umask == 0x01 && o->msr == 0x1A6 && o->msr_alt == 0x1A7);
	assert_true(o->has_alt && o->alt_event == 0xBB && o->alt_umask == 0x01 && o->msr_value != 0);
	/* Load latency needs PEBS machinery: its MSR is carried, the scheduler refuses it. */
	s = events_set_find("skylake");
	assert_int_equal(named(s, "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4").msr, 0x3F6);
	/* Deprecated events are listed and marked. */
	assert_true(named(events_set_find("cascadelakex"), "L2_LINES_OUT.USELESS_PREF").deprecated);
	assert_false(named(events_set_find("cascadelakex"), "L2_LINES_OUT.USELESS_HWPF").deprecated);
	/* Zen: the large-increment FLOPs event needs a merged pair. */
	s = events_set_find("zen4");
	bool pair = false;
	for (events_iter_start(&it, s); events_next(&it, &d);)
		pair |= d.pair && d.event == 0x003;
	assert_true(pair);
	/* Each set names perf's table and the vendor's file. */
	assert_string_equal(events_set_find("skylake_server")->perf, "skylakex");
	assert_string_equal(events_set_find("skylake_server")->vendor_name, "SKX");
}

static void architectural_events_everywhere(void **state)
{
	(void)state;
	static const char *const no_fixed[] = { "pentium_pro", "pentium2", "p6", "pentium_m", "coreduo" };
	for (size_t i = 0; i < events_set_count(); i++) {
		const struct event_set *s = events_set_at(i);
		bool fixed = !s->amd;
		for (size_t k = 0; k < sizeof(no_fixed) / sizeof(no_fixed[0]); k++)
			fixed &= strcmp(s->key, no_fixed[k]) != 0;
		if (!fixed)
			continue;	/* P6 and Yonah have no fixed counters */
		/* Instructions and cycles: a general-counter form that fixed counter 0 / 1 also counts;
		 * reference cycles at the TSC rate: fixed counter 2 only. */
		struct event_def in = role_event(s, EV_ROLE_INSTRUCTIONS), *ins = &in;
		struct event_def cy = role_event(s, EV_ROLE_CYCLES), *cyc = &cy;
		struct event_def rf = role_event(s, EV_ROLE_REF_CYCLES), *ref = &rf;
		assert_true(ins->event == 0xC0 && ins->fixed == 0 && !ins->fixed_only);
		assert_true(cyc->event == 0x3C && cyc->umask == 0 && cyc->fixed == 1 && !cyc->fixed_only);
		assert_true(ref->fixed == 2 && ref->fixed_only);
	}
	/* Topdown slots only where CPUID.0AH can enumerate them (Ice Lake on). */
	assert_true(has(events_set_find("icelake"), "TOPDOWN.SLOTS"));
	assert_false(has(events_set_find("skylake"), "TOPDOWN.SLOTS"));
}

static void check_role_code(const char *key, uint32_t role, const char *name, unsigned code, unsigned umask)
{
	const struct event_set *s = events_set_find(key);
	struct event_def def = role_event(s, role), *d = &def;
	assert_string_equal(d->name, name);
	assert_int_equal(d->event, code);
	assert_int_equal(d->umask, umask);
}

static void same_name_different_codes(void **state)
{
	(void)state;
	/* Golden Cove moved the store-forward block from umask 02H to 82H. */
	check_role_code("skylake", EV_ROLE_STLF_BLOCK, "LD_BLOCKS.STORE_FORWARD", 0x03, 0x02);
	check_role_code("goldencove", EV_ROLE_STLF_BLOCK, "LD_BLOCKS.STORE_FORWARD", 0x03, 0x82);
	check_role_code("lioncove", EV_ROLE_STLF_BLOCK, "LD_BLOCKS.STORE_FORWARD", 0x03, 0x82);
	struct event_def a = named(events_set_find("skylake"), "ld_blocks.store_forward");
	struct event_def b = named(events_set_find("goldencove"), "LD_BLOCKS.Store_Forward");
	assert_true(a.umask != b.umask);
	/* 4K aliasing: 07H/01H on the big cores up to Tiger Lake, 03H/04H on Goldmont and later Atoms
	 * and from Golden Cove on. */
	check_role_code("skylake", EV_ROLE_ALIAS_4K, "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS", 0x07, 0x01);
	check_role_code("tigerlake", EV_ROLE_ALIAS_4K, "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS", 0x07, 0x01);
	check_role_code("goldmont", EV_ROLE_ALIAS_4K, "LD_BLOCKS.4K_ALIAS", 0x03, 0x04);
	check_role_code("tremont", EV_ROLE_ALIAS_4K, "LD_BLOCKS.4K_ALIAS", 0x03, 0x04);
	check_role_code("elkhartlake", EV_ROLE_ALIAS_4K, "LD_BLOCKS.4K_ALIAS", 0x03, 0x04);
	check_role_code("sierraforest", EV_ROLE_ALIAS_4K, "LD_BLOCKS.ADDRESS_ALIAS", 0x03, 0x04);
	check_role_code("cougarcove", EV_ROLE_STLF_BLOCK, "LD_BLOCKS.STORE_FORWARD", 0x03, 0x82);
	check_role_code("goldencove", EV_ROLE_ALIAS_4K, "LD_BLOCKS.ADDRESS_ALIAS", 0x03, 0x04);
	assert_false(has(events_set_find("goldencove"), "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS"));
	/* Core and Silvermont have their own store-forward vocabulary. */
	check_role_code("core", EV_ROLE_STA_BLOCK, "LOAD_BLOCK.STA", 0x03, 0x02);
	check_role_code("core", EV_ROLE_STD_BLOCK, "LOAD_BLOCK.STD", 0x03, 0x04);
	check_role_code("core", EV_ROLE_OVERLAP_STORE, "LOAD_BLOCK.OVERLAP_STORE", 0x03, 0x08);
	check_role_code("silvermont", EV_ROLE_STLF_BLOCK, "REHABQ.LD_BLOCK_ST_FORWARD", 0x03, 0x01);
	check_role_code("silvermont", EV_ROLE_SPLIT_LOAD, "REHABQ.LD_SPLITS", 0x03, 0x08);
	/* Split and page-split accesses, retired forms preferred. */
	check_role_code("skylake", EV_ROLE_SPLIT_LOAD, "MEM_INST_RETIRED.SPLIT_LOADS", 0xD0, 0x41);
	check_role_code("haswell", EV_ROLE_SPLIT_STORE, "MEM_UOPS_RETIRED.SPLIT_STORES", 0xD0, 0x42);
	check_role_code("goldmont", EV_ROLE_PAGE_SPLIT_LOAD, "MISALIGN_MEM_REF.LOAD_PAGE_SPLIT", 0x13, 0x02);
	check_role_code("goldmont", EV_ROLE_PAGE_SPLIT_STORE, "MISALIGN_MEM_REF.STORE_PAGE_SPLIT", 0x13, 0x04);
	/* AMD counts successful forwards; failures are 24H/02H on Zen 2+ and 2AH before Zen. */
	check_role_code("zen3", EV_ROLE_STLF_OK, "STORE_TO_LOAD_FORWARD", 0x35, 0x00);
	check_role_code("zen2", EV_ROLE_STLF_BLOCK, "BAD_STATUS_2.STLI_OTHER", 0x24, 0x02);
	check_role_code("zen5", EV_ROLE_STLF_BLOCK, "BAD_STATUS_2.STLI_OTHER", 0x24, 0x02);
	check_role_code("fam10h", EV_ROLE_STLF_BLOCK, "CANCELLED_STORE_TO_LOAD_FORWARD_OPERATIONS.ALL", 0x2A, 0x07);
	check_role_code("fam15h", EV_ROLE_STLF_BLOCK, "CANCELLED_STORE_TO_LOAD.SIZE_ADDRESS_MISMATCHES", 0x2A, 0x01);
	assert_false(has_role(events_set_find("fam15h"), EV_ROLE_STLF_OK));
	check_role_code("zen4", EV_ROLE_SPLIT_LOAD, "MISALIGNED_LOADS.MA64", 0x47, 0x01);
	check_role_code("zen4", EV_ROLE_PAGE_SPLIT_LOAD, "MISALIGNED_LOADS.MA4K", 0x47, 0x02);
	check_role_code("zen3", EV_ROLE_SMI, "SMI_RECEIVED", 0x2B, 0x00);
	check_role_code("fam10h", EV_ROLE_SMI, "SMIS_RECEIVED", 0x2B, 0x00);
	check_role_code("amd_legacy", EV_ROLE_CYCLES, "CPU_CLK_UNHALTED", 0x76, 0x00);
	check_role_code("amd_legacy", EV_ROLE_INSTRUCTIONS, "RETIRED_INSTRUCTIONS", 0xC0, 0x00);
	/* Where no such event exists there is none, rather than a guess. */
	assert_false(has_role(events_set_find("gracemont"), EV_ROLE_STLF_BLOCK));
	assert_false(has_role(events_set_find("silvermont"), EV_ROLE_ALIAS_4K));
	assert_false(has_role(events_set_find("skylake"), EV_ROLE_SMI));
	/* A role nobody has, and role 0, find nothing. */
	assert_false(has_role(events_set_find("p6"), EV_ROLE_PAGE_SPLIT_STORE));
	assert_false(has_role(events_set_find("p6"), 0));
}

static void role_names(void **state)
{
	(void)state;
	for (unsigned bit = 0; bit < EV_ROLE_COUNT; bit++) {
		const char *w = events_role_name(1u << bit);
		assert_non_null(w);
		assert_int_equal(events_role_parse(w), 1u << bit);
	}
	assert_null(events_role_name(1u << EV_ROLE_COUNT));
	assert_null(events_role_name(3));
	assert_int_equal(events_role_parse("STLF_BLOCK"), EV_ROLE_STLF_BLOCK);
	assert_int_equal(events_role_parse("nonsense"), 0);
}

/* ---- event specs ---- */

static bool parse(const char *key, const char *text, struct event_spec *s, char *err, size_t cap)
{
	const struct event_set *set = key ? events_set_find(key) : NULL;
	return event_spec_parse(set, set ? set->amd : false, text, strlen(text), s, err, cap);
}

static void spec_names(void **state)
{
	(void)state;
	struct event_spec s;
	char err[512];
	assert_true(parse("goldmont", "  ld_blocks.4k_alias ", &s, err, sizeof(err)));
	assert_string_equal(s.name, "LD_BLOCKS.4K_ALIAS");
	assert_true(s.event == 0x03 && s.umask == 0x04 && s.named && s.fixed == EV_NO_FIXED);
	assert_true(s.row.found && s.roles == named(events_set_find("goldmont"), "LD_BLOCKS.4K_ALIAS").roles);
	assert_true(s.roles & EV_ROLE_ALIAS_4K);
	assert_true(parse("skylake", "CPU_CLK_UNHALTED.REF_TSC", &s, err, sizeof(err)));
	assert_true(s.fixed == 2 && s.fixed_only);
	assert_true(parse("zen4", "cycles", &s, err, sizeof(err)));
	assert_string_equal(s.name, "CYCLES_NOT_IN_HALT");
	/* perf's and libpfm4's EVENT:UMASK, and perf's PMU/.../ syntax. */
	assert_true(parse("icelake", "ld_blocks:store_forward", &s, err, sizeof(err)));
	assert_string_equal(s.name, "LD_BLOCKS.STORE_FORWARD");
	assert_true(parse("zen4", "MISALIGNED_LOADS:MA4K", &s, err, sizeof(err)));
	assert_true(s.event == 0x47 && s.umask == 0x02);
	assert_true(parse("icelake", "cpu/LD_BLOCKS.STORE_FORWARD/", &s, err, sizeof(err)));
	assert_true(s.named && s.counters == 0x0F);
	assert_true(parse("core", "instructions", &s, err, sizeof(err)));
	assert_int_equal(s.event, 0xC0);
	/* A name only works within its set... */
	assert_false(parse("skylake", "REHABQ.LD_SPLITS", &s, err, sizeof(err)));
	assert_non_null(strstr(err, "unknown event 'REHABQ.LD_SPLITS'"));
	assert_non_null(strstr(err, "(skylake)"));
	/* ...and the nearest names are offered: the Golden Cove rename, a typo, umask variants. */
	assert_false(parse("goldencove", "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS", &s, err, sizeof(err)));
	assert_non_null(strstr(err, "nearest: LD_BLOCKS.ADDRESS_ALIAS"));
	assert_false(parse("skylake", "LD_BLOCKS.STORE_FORWRD", &s, err, sizeof(err)));
	assert_non_null(strstr(err, "nearest: LD_BLOCKS.STORE_FORWARD"));
	assert_false(parse("p6", "EMON_KNI_PREF_MISS", &s, err, sizeof(err)));
	assert_non_null(strstr(err, "EMON_KNI_PREF_MISS.NTA"));
	assert_non_null(strstr(err, "EMON_KNI_PREF_MISS.WEAK"));
	assert_false(parse("zen3", "QQQQQQQQQQQQQQQQQQQQ", &s, err, sizeof(err)));
	assert_non_null(strstr(err, "no similar names"));
	/* Without a set, names are refused and say why. */
	assert_false(parse(NULL, "LD_BLOCKS.STORE_FORWARD", &s, err, sizeof(err)));
	assert_non_null(strstr(err, "names need a microarchitecture"));
}

static void spec_raw_fields(void **state)
{
	(void)state;
	struct event_spec s;
	char err[512];
	assert_true(parse("skylake", "event=0x03,umask=0x02", &s, err, sizeof(err)));
	assert_true(s.event == 3 && s.umask == 2 && !s.named && !s.roles && s.fixed == EV_NO_FIXED);
	assert_string_equal(s.name, "event=0x03,umask=0x02");
	/* It encodes LD_BLOCKS.STORE_FORWARD, so it keeps that event's counter restriction. */
	assert_true(s.counters == 0x0F && s.counters_htoff == 0xFF);
	assert_true(parse("icelake", "cpu/event=0x03,umask=0x02/", &s, err, sizeof(err)));
	assert_int_equal(s.counters, 0x0F);
	/* An encoding no event of the set has is unrestricted. */
	assert_true(parse("icelake", "event=0x03,umask=0x7f", &s, err, sizeof(err)));
	assert_int_equal(s.counters, 0);
	/* perf's offcore_rsp: the value for OFFCORE_RSP_0. */
	assert_true(parse("icelake", "event=0xb7,umask=0x01,offcore_rsp=0x10001", &s, err, sizeof(err)));
	assert_true(s.msr == 0x1A6 && s.msr_value == 0x10001);
	assert_true(parse(NULL, " Event=0xC0, cmask=1 ,inv,edge=1,any=0 ", &s, err, sizeof(err)));
	assert_true(s.event == 0xC0 && s.umask == 0 && s.cmask == 1 && s.inv && s.edge && !s.any);
	assert_true(parse("skylake", "event=3,umask=2,any", &s, err, sizeof(err)));
	assert_true(s.any);
	assert_true(parse("zen4", "event=0x1c1,umask=0x3", &s, err, sizeof(err)));
	assert_int_equal(s.event, 0x1C1);

	static const struct { const char *key, *text, *expect; } bad[] = {
		{ "skylake", "event=0x103,umask=0", "Intel event selects are 8 bits" },
		{ "zen4", "event=0x1003", "AMD event selects are 12 bits" },
		{ "zen4", "event=0x24,umask=2,any", "AnyThread is Intel-only" },
		{ "skylake", "event=0x3,umsk=2", "unknown field 'umsk'" },
		{ "skylake", "umask=2", "no event= field" },
		{ "skylake", "event=0x3,,umask=2", "empty field" },
		{ "skylake", "event=0x3,umask=0x100", "'umask=0x100'" },
		{ "skylake", "event=0xzz", "'0xzz' is not a number" },
		{ "skylake", "event", "needs a value" },
		{ "skylake", "event=3,event=4", "second time" },
		{ "skylake", "event=3,inv=2", "is a flag" },
		{ "skylake", "event=3,cmask=256", "cmask must be 0..0xff" },
		{ "skylake", "", "empty event spec" },
		{ "skylake", "   ", "empty event spec" },
		{ "zen4", "event=0xb7,offcore_rsp=1", "unknown field 'offcore_rsp'" },
		{ "skylake", "cpu//", "empty event spec" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (parse(bad[i].key, bad[i].text, &s, err, sizeof(err)))
			fail_msg("'%s' was accepted", bad[i].text);
		if (!strstr(err, bad[i].expect))
			fail_msg("'%s': error '%s' lacks '%s'", bad[i].text, err, bad[i].expect);
	}
}

static void spec_perf_raw(void **state)
{
	(void)state;
	struct event_spec s;
	char err[512];
	/* Intel rUUEE, and the PERFEVTSEL modifier bits perf passes through. */
	assert_true(parse("skylake", "r0203", &s, err, sizeof(err)));
	assert_true(s.event == 0x03 && s.umask == 0x02 && !s.named);
	assert_true(parse("skylake", "R1A3C", &s, err, sizeof(err)));
	assert_true(s.event == 0x3C && s.umask == 0x1A);
	assert_true(parse("skylake", "r18000c4", &s, err, sizeof(err)));	/* cmask 1, inv, event C4 */
	assert_true(s.event == 0xC4 && s.cmask == 1 && s.inv && !s.edge);
	assert_true(parse("skylake", "r2403c4", &s, err, sizeof(err)));	/* any (21) + edge (18) */
	assert_true(s.any && s.edge && !s.inv && s.umask == 0x03);
	/* AMD: event bits 11:8 in config 35:32. */
	assert_true(parse("zen4", "r1000000C1", &s, err, sizeof(err)));
	assert_int_equal(s.event, 0x1C1);
	assert_true(parse("zen4", "r0224", &s, err, sizeof(err)));
	assert_true(s.event == 0x24 && s.umask == 0x02);
	/* Bits that are not event fields are refused, naming them. */
	assert_false(parse("skylake", "r430203", &s, err, sizeof(err)));	/* EN, USR, OS */
	assert_non_null(strstr(err, "0x430000"));
	assert_false(parse("skylake", "r1000000c1", &s, err, sizeof(err)));	/* AMD-only high bits */
	assert_non_null(strstr(err, "r1000000c1"));
	assert_false(parse("zen4", "r2000c1", &s, err, sizeof(err)));		/* AnyThread on AMD */
	assert_false(parse("skylake", "r11112222333344445", &s, err, sizeof(err)));
	assert_non_null(strstr(err, "16 hex digits"));
	/* 'r' followed by something not hex is a name, looked up as such. */
	assert_false(parse("bonnell", "rxyz", &s, err, sizeof(err)));
	assert_non_null(strstr(err, "unknown event 'rxyz'"));
}

static void suggestions(void **state)
{
	(void)state;
	char near[4][EVENT_NAME_MAX];
	const struct event_set *p6 = events_set_find("p6");
	size_t n = events_suggest(p6, "emon_kni_pref_dispatched", near, 4);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_true(!strncmp(near[i], "EMON_KNI_PREF_DISPATCHED.", 25));
	/* Long names (perfmon's go past 63 characters) are compared in full. */
	const struct event_set *cl = events_set_find("cascadelakex");
	size_t longest = 0;
	struct events_iter it;
	struct event_def d;
	for (events_iter_start(&it, cl); events_next(&it, &d);)
		if (strlen(d.name) > longest)
			longest = strlen(d.name);
	assert_true(longest > 63 && longest < EVENT_NAME_MAX);
	/* Deterministic: same answer twice. */
	char again[4][EVENT_NAME_MAX];
	assert_int_equal(events_suggest(p6, "emon_kni_pref_dispatched", again, 4), n);
	assert_memory_equal(near, again, sizeof(near));
	assert_int_equal(events_suggest(p6, "x", near, 0), 0);
	assert_int_equal(events_suggest(NULL, "x", near, 4), 0);
}

/* Issue 22: the rules by code the generator derives from each set's rows, the AMD family rules
 * compiled from events/amd_rules.csv, and raw specs in an offcore event's second form. */
static void rules_by_code(void **state)
{
	(void)state;
	struct event_rule r;
	const struct event_set *icl = events_set_find("icelake");
	/* LD_BLOCKS.STORE_FORWARD 03H/02H and LD_BLOCKS.NO_SR 03H/08H: both 0-3. */
	assert_true(events_code_rule(icl, 0x03, 0x02, &r));
	assert_int_equal(r.counters, 0xF);
	assert_false(r.none);
	assert_true(events_code_rule(icl, 0x03, 0x40, &r));	/* a unit mask no row has: the code's */
	assert_int_equal(r.counters, 0xF);
	assert_false(r.by_umask);
	assert_false(events_code_rule(icl, 0xEE, 0x00, &r));	/* a code no row has: no rule */
	/* Skylake C0H/01H: PREC_DIST on 1, the PS form on 0,2,3: no counter in common. */
	assert_true(events_code_rule(events_set_find("skylake"), 0xC0, 0x01, &r));
	assert_true(r.none);
	/* Sandy Bridge C0H/01H is TakenAlone (INST_RETIRED.PREC_DIST), C0H/00H is not. */
	assert_true(events_code_rule(events_set_find("sandybridge"), 0xC0, 0x01, &r));
	assert_true(r.taken_alone);
	assert_int_equal(r.counters, 0x2);
	assert_true(!events_code_rule(events_set_find("sandybridge"), 0xC0, 0x00, &r) || !r.taken_alone);
	/* An offcore row counts for its second form's code too (Lion Cove 2BH/01H, Linux: 0-3). */
	assert_true(events_code_rule(events_set_find("lioncove"), 0x2B, 0x01, &r));
	assert_int_equal(r.counters, 0xF);

	/* Family 15h (BKDG 42301): cycles on [2:0], FP on [5:3], 031H with two bits nowhere. */
	assert_true(events_amd_rule(0x15, 0x076, 0x00, &r));
	assert_int_equal(r.counters, 0x07);
	assert_true(events_amd_rule(0x15, 0x10F, 0x00, &r));
	assert_int_equal(r.counters, 0x38);
	assert_true(events_amd_rule(0x15, 0x000, 0x11, &r));	/* both nibbles: PERF_CTL3 */
	assert_int_equal(r.counters, 0x08);
	assert_true(events_amd_rule(0x15, 0x031, 0x03, &r));
	assert_true(r.none);
	assert_true(events_amd_rule(0x15, 0x031, 0x02, &r));
	assert_false(r.none);
	assert_true(events_amd_rule(0x15, 0x0A0, 0x00, &r));	/* not a core unit */
	assert_true(r.none);
	assert_false(events_amd_rule(0x10, 0x076, 0x00, &r));	/* Family 10h: any counter */
	/* Merged pairs: 003H from Family 17h (Hygon 18h too), 05FH on Family 19h only. */
	assert_true(events_amd_rule(0x17, 0x003, 0xFF, &r) && r.pair);
	assert_true(events_amd_rule(0x18, 0x003, 0x01, &r) && r.pair);
	assert_true(events_amd_rule(0x19, 0x05F, 0x00, &r) && r.pair);
	assert_false(events_amd_rule(0x1A, 0x05F, 0x00, &r));
	assert_false(events_amd_rule(0x16, 0x003, 0x00, &r));
	assert_int_equal(events_set_find("fam15h")->family, 0x15);
	assert_int_equal(events_set_find("zen4")->family, 0x19);
	assert_int_equal(icl->family, 0);
}

static void spec_offcore_forms(void **state)
{
	(void)state;
	struct event_spec e;
	char err[256];
	const struct event_set *icl = events_set_find("icelake");
	const char *second = "event=0xbb,umask=0x01,offcore_rsp=0x10001";
	assert_true(event_spec_parse(icl, false, second, strlen(second), &e, err, sizeof(err)));
	assert_int_equal(e.msr, 0x1A7);
	assert_int_equal(e.msr_value, 0x10001);
	assert_true(e.has_alt);
	assert_int_equal(e.msr_alt, 0x1A6);
	assert_int_equal(e.alt_event, 0xB7);
	assert_int_equal(e.alt_umask, 0x01);
	const char *first = "event=0xb7,umask=0x01,offcore_rsp=0x10001";
	assert_true(event_spec_parse(icl, false, first, strlen(first), &e, err, sizeof(err)));
	assert_int_equal(e.msr, 0x1A6);
	assert_int_equal(e.msr_alt, 0x1A7);
	assert_int_equal(e.alt_event, 0xBB);
	/* A raw encoding of a row (LD_BLOCKS.STORE_FORWARD, 0-3) takes the row's limits; any other raw
	 * encoding has none. */
	assert_true(event_spec_parse(icl, false, "event=0x03,umask=0x02", 21, &e, err, sizeof(err)));
	assert_true(e.row.found && !e.named);
	assert_int_equal(e.row.counters, named(icl, "LD_BLOCKS.STORE_FORWARD").counters);
	assert_int_equal(e.row.counters, 0x0F);
	assert_true(event_spec_parse(icl, false, "event=0x03,umask=0x02,cmask=1", 29, &e, err, sizeof(err)));
	assert_false(e.row.found);
	/* No response value: refused when parsed, naming the MSR the code reads. */
	assert_false(event_spec_parse(icl, false, "event=0xbb,umask=0x01", 21, &e, err, sizeof(err)));
	assert_non_null(strstr(err, "OFFCORE_RSP_1"));
	assert_false(event_spec_parse(icl, false, "r01b7", 5, &e, err, sizeof(err)));
	assert_non_null(strstr(err, "OFFCORE_RSP_0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(seed_core),
		cmocka_unit_test(seed_goldmont),
		cmocka_unit_test(seed_silvermont),
		cmocka_unit_test(seed_p6),
		cmocka_unit_test(seed_ibs),
		cmocka_unit_test(every_key_has_a_set),
		cmocka_unit_test(table_invariants),
		cmocka_unit_test(architectural_events_everywhere),
		cmocka_unit_test(vendor_constraints),
		cmocka_unit_test(same_name_different_codes),
		cmocka_unit_test(role_names),
		cmocka_unit_test(spec_names),
		cmocka_unit_test(spec_raw_fields),
		cmocka_unit_test(spec_perf_raw),
		cmocka_unit_test(suggestions),
		cmocka_unit_test(rules_by_code),
		cmocka_unit_test(spec_offcore_forms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
