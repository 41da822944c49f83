/*
 * tools/host/cmd_events.c - print the event vocabulary as CSV.
 *
 *   pmuboot-host events                    every set, then the IBS derived events
 *   pmuboot-host events --uarch KEY        one set (KEY "ibs": the IBS derived events)
 *   pmuboot-host events --uarch list       the keys, their vendor, event count and name
 *   pmuboot-host events --uarch KEY --spec SPEC   resolve one event spec as the image would
 *
 * Rows are sorted by key, then name, then code, so the output is the same on every run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/events.h"
#include "tools/host/host.h"
#include "lib/strbuf.h"

#define HEADER "uarch,name,event,umask,cmask,inv,edge,counters,precise,source,description"

struct row {
	const char *key;
	const struct event_def *def;		/* or */
	const struct ibs_event_def *ibs;
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
		csv_field(desc, true);
		return;
	}
	const struct event_def *d = r->def;
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
	csv_field(d->desc, true);
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	if (x->ibs && y->ibs)	/* IBS derived events read best in code order */
		return x->ibs->code < y->ibs->code ? -1 : x->ibs->code > y->ibs->code;
	c = strcmp(x->def ? x->def->name : x->ibs->name, y->def ? y->def->name : y->ibs->name);
	if (c)
		return c;
	unsigned cx = x->def ? (unsigned)x->def->event << 8 | x->def->umask : x->ibs->code;
	unsigned cy = y->def ? (unsigned)y->def->event << 8 | y->def->umask : y->ibs->code;
	return cx < cy ? -1 : cx > cy;
}

static size_t add_set(struct row *rows, size_t n, const struct event_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		rows[n++] = (struct row){ s->key, &s->events[i], NULL };
	return n;
}

static size_t add_ibs(struct row *rows, size_t n)
{
	for (size_t i = 0; i < ibs_events_count(); i++)
		rows[n++] = (struct row){ EVENTS_IBS_KEY, NULL, ibs_event_at(i) };
	return n;
}

static void list_keys(FILE *f, bool csv)
{
	if (csv)
		puts("key,vendor,events,name");
	for (size_t i = 0; i < events_set_count(); i++) {
		const struct event_set *s = events_set_at(i);
		if (csv) {
			printf("%s,%s,%zu,", s->key, s->amd ? "amd" : "intel", s->n);
			csv_field(s->name, true);
		} else {
			fprintf(f, "  %-16s %s\n", s->key, s->name);
		}
	}
	if (csv)
		printf("%s,amd,%zu,AMD Family 10h IBS derived events (not counter events)\n", EVENTS_IBS_KEY,
		       ibs_events_count());
	else
		fprintf(f, "  %-16s %s\n", EVENTS_IBS_KEY, "AMD IBS derived events");
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pmuboot-host events [--uarch KEY|list|ibs] [--spec SPEC]\n");
	return f == stderr ? 2 : 0;
}

static int resolve_spec(const struct event_set *set, const char *spec)
{
	struct event_spec s;
	char err[512];
	if (!set) {
		fprintf(stderr, "pmuboot-host events: --spec needs --uarch KEY (a set, not 'ibs' or 'list')\n");
		return 2;
	}
	if (!event_spec_parse(set, set->amd, spec, strlen(spec), &s, err, sizeof(err))) {
		fprintf(stderr, "pmuboot-host events: %s\n", err);
		return 1;
	}
	printf("name=%s event=0x%02x umask=0x%02x cmask=%u inv=%d edge=%d any=%d fixed=%d%s%s\n", s.name, s.event,
	       s.umask, s.cmask, s.inv, s.edge, s.any, s.fixed, s.fixed_only ? " fixed_only" : "",
	       s.def ? "" : " raw");
	return 0;
}

int cmd_events(int argc, char **argv)
{
	const char *uarch = NULL, *spec = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--uarch") && i + 1 < argc)
			uarch = argv[++i];
		else if (!strncmp(argv[i], "--uarch=", 8))
			uarch = argv[i] + 8;
		else if (!strcmp(argv[i], "--spec") && i + 1 < argc)
			spec = argv[++i];
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
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
	if (uarch && !ibs && !(set = events_set_find(uarch))) {
		fprintf(stderr, "pmuboot-host events: unknown microarchitecture '%s'; valid keys:\n", uarch);
		list_keys(stderr, false);
		return 2;
	}
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
		print_row(&rows[i]);
	free(rows);
	return 0;
}
