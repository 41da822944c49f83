/*
 * host/cmd_events.c - print the event vocabulary as CSV.
 *
 *   pmuboot-host events                    the set of the CPU this runs on
 *   pmuboot-host events --uarch KEY        one set (KEY "ibs": the IBS derived events)
 *   pmuboot-host events --uarch all        every set, then the IBS derived events
 *   pmuboot-host events --uarch list       the keys, their vendor, event count, name, perf's and
 *                                          the vendor's names for the table
 *   pmuboot-host events ... --grep WORD    only events whose name (or description) holds WORD
 *   pmuboot-host events --uarch KEY --spec SPEC   resolve one event spec as the image would
 *   pmuboot-host events --spec SPEC        the same in the event set of this CPU
 *
 * Rows are sorted by key, then name, then code, so the output is the same on every run.
 */
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/events.h"
#include "cpu/cpu.h"
#include "host/host.h"
#include "lib/strbuf.h"

/* The first eleven columns are the original listing; the vendor facts follow (docs/events.md). */
#define HEADER "uarch,name,event,umask,cmask,inv,edge,counters,precise,source,description," \
	       "any,umask_ext,counters_smt_off,flags,msr,msr_value,alt,errata,roles"

struct row {
	const char *key;
	const struct ibs_event_def *ibs;	/* an IBS derived event, or NULL: */
	struct event_def def;			/* a set's event */
};

static void csv_field(const char *s, bool last)
{
	if (strpbrk(s, ",\"\n")) {
		putchar('"');
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
	putchar(last ? '\n' : ',');
}

/* "any" / "0-3" / "0+2" for the general counters, then " fixed<N>" when a fixed counter counts it. */
static void counters_text(const struct event_def *d, char *buf, size_t cap)
{
	size_t w = 0;
	if (d->fixed_only) {
		w = (size_t)snprintf(buf, cap, "none");
	} else if (!d->counters) {
		w = (size_t)snprintf(buf, cap, "any");
	} else {
		for (int i = 0; i < 32 && w < cap; i++) {
			if (!(d->counters & (1u << i)))
				continue;
			int j = i;
			while (j + 1 < 32 && (d->counters & (1u << (j + 1))))
				j++;
			w = str_appendf(buf, cap, w, j > i ? "%s%d-%d" : "%s%d", w ? "+" : "", i, j);
			i = j;
		}
	}
	if (d->fixed != EV_NO_FIXED && w < cap)
		str_appendf(buf, cap, w, " fixed%d", d->fixed);
}

/* "0-3" for a counter mask ("" for none). */
static void mask_text(uint32_t m, char *buf, size_t cap)
{
	size_t w = 0;
	buf[0] = 0;
	for (int i = 0; i < 32 && w < cap; i++) {
		if (!(m & (1u << i)))
			continue;
		int j = i;
		while (j + 1 < 32 && (m & (1u << (j + 1))))
			j++;
		w = str_appendf(buf, cap, w, j > i ? "%s%d-%d" : "%s%d", w ? "+" : "", i, j);
		i = j;
	}
}

/* A field that is empty unless `present`: formatted only then. */
static void opt_hex(char *buf, size_t cap, bool present, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void opt_hex(char *buf, size_t cap, bool present, const char *fmt, ...)
{
	va_list ap;

	buf[0] = 0;
	if (!present)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
}

static void vendor_fields(const char *key, const struct event_def *d)
{
	char buf[96], flags[96] = "";
	(void)key;
	csv_field(d->any ? "1" : "0", false);
	opt_hex(buf, sizeof(buf), d->umask_ext, "0x%02x", d->umask_ext);
	csv_field(buf, false);
	mask_text(d->counters_htoff, buf, sizeof(buf));
	csv_field(buf, false);
	static const struct { size_t off; const char *word; } fl[] = {
		{ offsetof(struct event_def, fixed_only), "fixed_only" },
		{ offsetof(struct event_def, pebs2), "pebs2" },
		{ offsetof(struct event_def, taken_alone), "taken_alone" },
		{ offsetof(struct event_def, pair), "pair" },
		{ offsetof(struct event_def, deprecated), "deprecated" },
	};
	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		if (*((const bool *)((const char *)d + fl[i].off)))
			str_appendf(flags, sizeof(flags), strlen(flags), "%s%s", flags[0] ? " " : "", fl[i].word);
	csv_field(flags, false);
	if (d->msr_alt)
		snprintf(buf, sizeof(buf), "0x%x+0x%x", d->msr, d->msr_alt);
	else
		opt_hex(buf, sizeof(buf), d->msr, "0x%x", d->msr);
	csv_field(buf, false);
	opt_hex(buf, sizeof(buf), d->msr, "0x%llx", (unsigned long long)d->msr_value);
	csv_field(buf, false);
	opt_hex(buf, sizeof(buf), d->has_alt, "0x%02x/0x%02x", d->alt_event, d->alt_umask);
	csv_field(buf, false);
	csv_field(d->errata ? d->errata : "", false);
	buf[0] = 0;
	for (unsigned b = 0; b < 32; b++)
		if ((d->roles & (1u << b)) && events_role_name(1u << b))
			str_appendf(buf, sizeof(buf), strlen(buf), "%s%s", buf[0] ? " " : "", events_role_name(1u << b));
	csv_field(buf, true);
}

static void print_row(const struct row *r)
{
	char ev[16], um[8], cm[8], ctr[64];
	csv_field(r->key, false);
	if (r->ibs) {
		char desc[256];
		snprintf(ev, sizeof(ev), "0x%04x", r->ibs->code);
		snprintf(desc, sizeof(desc), "[%s] %s", r->ibs->abbrev, r->ibs->desc);
		csv_field(r->ibs->name, false);
		csv_field(ev, false);
		fputs(",,,,ibs,,", stdout);	/* umask, cmask, inv, edge empty; counters "ibs"; precise empty */
		csv_field("AMD BKDG 31116 (Fam10h) IBS derived events", false);
		csv_field(desc, false);
		fputs(",,,,,,,,\n", stdout);	/* no vendor facts: not a counter event */
		return;
	}
	const struct event_def *d = &r->def;
	snprintf(ev, sizeof(ev), d->event > 0xFF ? "0x%03x" : "0x%02x", d->event);
	snprintf(um, sizeof(um), "0x%02x", d->umask);
	snprintf(cm, sizeof(cm), "%u", d->cmask);
	counters_text(d, ctr, sizeof(ctr));
	csv_field(d->name, false);
	csv_field(ev, false);
	csv_field(um, false);
	csv_field(cm, false);
	csv_field(d->inv ? "1" : "0", false);
	csv_field(d->edge ? "1" : "0", false);
	csv_field(ctr, false);
	csv_field(d->precise ? "1" : "0", false);
	csv_field(d->source, false);
	csv_field(d->desc, false);
	vendor_fields(r->key, d);
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	if (x->ibs && y->ibs)	/* IBS derived events read best in code order */
		return x->ibs->code < y->ibs->code ? -1 : x->ibs->code > y->ibs->code;
	c = strcmp(!x->ibs ? x->def.name : x->ibs->name, !y->ibs ? y->def.name : y->ibs->name);
	if (c)
		return c;
	unsigned cx = !x->ibs ? (unsigned)x->def.event << 8 | x->def.umask : x->ibs->code;
	unsigned cy = !y->ibs ? (unsigned)y->def.event << 8 | y->def.umask : y->ibs->code;
	return cx < cy ? -1 : cx > cy;
}

static size_t add_set(struct row *rows, size_t n, const struct event_set *s)
{
	struct events_iter it;
	for (events_iter_start(&it, s); events_next(&it, &rows[n].def); n++)
		rows[n].key = s->key;
	return n;
}

static size_t add_ibs(struct row *rows, size_t n)
{
	for (size_t i = 0; i < ibs_events_count(); i++)
		rows[n++] = (struct row){ .key = EVENTS_IBS_KEY, .ibs = ibs_event_at(i) };
	return n;
}

static void list_keys(FILE *f, bool csv)
{
	if (csv)
		puts("key,vendor,events,name,perf,vendor_name");
	for (size_t i = 0; i < events_set_count(); i++) {
		const struct event_set *s = events_set_at(i);
		if (csv) {
			printf("%s,%s,%zu,", s->key, s->amd ? "amd" : "intel", s->n);
			csv_field(s->name, false);
			csv_field(s->perf, false);
			csv_field(s->vendor_name, true);
		} else {
			fprintf(f, "  %-16s %s\n", s->key, s->name);
		}
	}
	if (csv)
		printf("%s,amd,%zu,AMD Family 10h IBS derived events (not counter events),,\n", EVENTS_IBS_KEY,
		       ibs_events_count());
	else
		fprintf(f, "  %-16s %s\n", EVENTS_IBS_KEY, "AMD IBS derived events");
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pmuboot-host events [--uarch KEY|all|list|ibs] [--grep WORD] [--spec SPEC]\n"
		   "\n"
		   "The event vocabulary as CSV: " HEADER "\n"
		   "\n"
		   "  (no options)        the event set of the CPU this runs on\n"
		   "  --uarch KEY         one event set; KEY ibs: the IBS derived events; all: every set\n"
		   "                      then the IBS derived events; list: the keys\n"
		   "  --grep WORD         only events whose name (or description) holds WORD\n"
		   "  --spec SPEC         resolve one event spec as the image would (an event name,\n"
		   "                      EVENT:UMASK, cpu/event=0x..,umask=0x../, event=0x..,umask=0x..[,cmask=N]\n"
		   "                      [,inv][,edge][,any], or rUUEE), in --uarch KEY's set or, without\n"
		   "                      --uarch, in this CPU's event set\n"
		   "  -h, --help          this text\n"
		   "\n"
		   "Exit status: 0, 1 a spec that does not resolve, 2 bad arguments.\n");
	return f == stderr ? 2 : 0;
}

/* The event set the image would use on this CPU; NULL with the reason printed. */
static const struct event_set *this_cpu_set(void)
{
	static struct cpu_info ci;
	cpu_identify(&ci);
	const struct event_set *set = ci.event_set ? events_set_find(ci.event_set) : NULL;
	if (!set)
		fprintf(stderr, "pmuboot-host events: this CPU (%s family 0x%x model 0x%x) has no event set; "
				"give --uarch KEY (--uarch list shows them)\n", ci.vendor_str, ci.family, ci.model);
	else
		fprintf(stderr, "pmuboot-host events: --spec in event set %s (this CPU: %s family 0x%x model 0x%x%s)\n",
			set->key, ci.vendor_str, ci.family, ci.model, ci.fallback ? ", a fallback set" : "");
	return set;
}

static int resolve_spec(const struct event_set *set, const char *spec)
{
	struct event_spec s;
	char err[512];
	if (!set) {
		fprintf(stderr, "pmuboot-host events: --spec needs an event set, not 'ibs'\n");
		return 2;
	}
	if (!event_spec_parse(set, set->amd, spec, strlen(spec), &s, err, sizeof(err))) {
		fprintf(stderr, "pmuboot-host events: %s\n", err);
		return 1;
	}
	char ctr[64];
	mask_text(s.counters, ctr, sizeof(ctr));
	printf("name=%s event=0x%02x umask=0x%02x cmask=%u inv=%d edge=%d any=%d fixed=%d counters=%s", s.name,
	       s.event, s.umask, s.cmask, s.inv, s.edge, s.any, s.fixed, ctr[0] ? ctr : "any");
	if (s.msr)
		printf(" msr=0x%x msr_value=0x%llx", s.msr, (unsigned long long)s.msr_value);
	printf("%s%s\n", s.fixed_only ? " fixed_only" : "", s.named ? "" : " raw");
	return 0;
}

/* Case-insensitive substring test. */
static bool contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; hay && *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return !n;
}

static bool row_matches(const struct row *r, const char *word)
{
	if (!word)
		return true;
	if (r->ibs)
		return contains(r->ibs->name, word) || contains(r->ibs->abbrev, word) || contains(r->ibs->desc, word);
	return contains(r->def.name, word) || contains(r->def.desc, word);
}

int cmd_events(int argc, char **argv)
{
	const char *uarch = NULL, *spec = NULL, *grep = NULL;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--uarch") && i + 1 < argc)
			uarch = argv[++i];
		else if (!strncmp(argv[i], "--uarch=", 8))
			uarch = argv[i] + 8;
		else if (!strcmp(argv[i], "--spec") && i + 1 < argc)
			spec = argv[++i];
		else if (!strcmp(argv[i], "--grep") && i + 1 < argc)
			grep = argv[++i];
		else {
			fprintf(stderr, "pmuboot-host events: unexpected argument '%s'\n", argv[i]);
			return usage(stderr);
		}
	}
	if (uarch && !strcmp(uarch, "list")) {
		list_keys(stdout, true);
		return 0;
	}
	const struct event_set *set = NULL;
	bool ibs = uarch && !lc_strcasecmp(uarch, EVENTS_IBS_KEY);
	bool all = uarch && !strcmp(uarch, "all");
	if (!uarch && !spec) {
		/* This CPU's set, as identification gives it.  A CPU with none (no architectural PMU on a model
		 * the table does not know, or a doubted one) is not an error: its listing is empty. */
		static struct cpu_info ci;
		cpu_identify(&ci);
		if (!ci.event_set || !(set = events_set_find(ci.event_set))) {
			fprintf(stderr, "pmuboot-host events: this CPU (%s family 0x%x model 0x%x) has no event set; "
				"--uarch KEY or --uarch all lists others\n", ci.vendor_str, ci.family, ci.model);
			puts(HEADER);
			return 0;
		}
	} else if (uarch && !ibs && !all && !(set = events_set_find(uarch))) {
		fprintf(stderr, "pmuboot-host events: unknown microarchitecture '%s'; valid keys:\n", uarch);
		list_keys(stderr, false);
		return 2;
	}
	if (spec && !uarch && !(set = this_cpu_set()))
		return 2;
	if (spec)
		return resolve_spec(set, spec);

	size_t total = ibs_events_count();
	for (size_t i = 0; i < events_set_count(); i++)
		total += events_set_at(i)->n;
	struct row *rows = calloc(total ? total : 1, sizeof(*rows));
	size_t n = 0;
	if (!rows) {
		fprintf(stderr, "pmuboot-host events: out of memory\n");
		return 1;
	}
	if (set) {
		n = add_set(rows, n, set);
	} else if (ibs) {
		n = add_ibs(rows, n);
	} else {
		for (size_t i = 0; i < events_set_count(); i++)
			n = add_set(rows, n, events_set_at(i));
		n = add_ibs(rows, n);
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	puts(HEADER);
	for (size_t i = 0; i < n; i++)
		if (row_matches(&rows[i], grep))
			print_row(&rows[i]);
	free(rows);
	return 0;
}
