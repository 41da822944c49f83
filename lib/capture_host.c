/* lib/capture_host.c - see capture.h. */
#include "lib/capture.h"

#include <stdlib.h>
#include "lib/crc32.h"
#include "lib/json_read.h"
#include "lib/record.h"

#define ESC 0x1b
#define CRC_HEX_DIGITS 8

/*
 * ECMA-48 §5.4 control sequences (ESC '[' parameters intermediates final),
 * OSC strings (ESC ']' ... BEL or ESC '\'), and two-byte escapes: how far
 * the one at s[0] reaches, or 0 when s[0] is not ESC.
 */
static size_t escape_len(const unsigned char *s, size_t n)
{
	size_t i = 1;
	if (n == 0 || s[0] != ESC)
		return 0;
	if (n < 2)
		return 1;
	if (s[1] == '[') {
		for (i = 2; i < n && s[i] >= 0x30 && s[i] <= 0x3f; i++)
			;
		for (; i < n && s[i] >= 0x20 && s[i] <= 0x2f; i++)
			;
		return i < n && s[i] >= 0x40 && s[i] <= 0x7e ? i + 1 : i;
	}
	if (s[1] == ']') {
		for (i = 2; i < n; i++) {
			if (s[i] == 0x07)
				return i + 1;
			if (s[i] == ESC && i + 1 < n && s[i + 1] == '\\')
				return i + 2;
		}
		return n;
	}
	return 2;
}

bool capture_record_text(const char *line, size_t len, const char **json, size_t *jlen)
{
	const unsigned char *s = (const unsigned char *)line;
	size_t i = 0, k;
	static const char prefix[] = REC_PREFIX;

	while (i < len && ((k = escape_len(s + i, len - i)) > 0 || s[i] == '\r'))
		i += k ? k : 1;
	while (len > i && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len - i >= sizeof(prefix) - 1 && memcmp(s + i, prefix, sizeof(prefix) - 1) == 0)
		i += sizeof(prefix) - 1;
	else if (!(i < len && s[i] == '{'))
		return false;
	*json = line + i;
	*jlen = len - i;
	return true;
}

struct scan {
	struct capture_run *runs;
	size_t n, cap;
	struct capture_run *cur;	/* open run, or NULL */
	bool has_begin, bad_json;
	unsigned bad_line;
	uint32_t count, crc;
};

static struct capture_run *open_run(struct scan *sc, unsigned line, bool has_begin)
{
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 8;
		struct capture_run *r = realloc(sc->runs, cap * sizeof(*r));
		if (!r)
			return NULL;
		sc->runs = r;
		sc->cap = cap;
	}
	sc->cur = &sc->runs[sc->n++];
	memset(sc->cur, 0, sizeof(*sc->cur));
	sc->cur->first_line = sc->cur->last_line = line;
	sc->has_begin = has_begin;
	sc->bad_json = false;
	sc->count = 0;
	sc->crc = CRC32_INIT;
	return sc->cur;
}

static void close_run(struct scan *sc, const struct json_value *end)
{
	struct capture_run *r = sc->cur;
	uint64_t records = 0;
	const char *crc = end ? json_text(json_get(end, "crc32")) : NULL;
	char have[CRC_HEX_DIGITS + 1];

	sc->cur = NULL;
	snprintf(have, sizeof(have), "%08x", sc->crc);
	if (!sc->has_begin)
		snprintf(r->problem, sizeof(r->problem), "records before any begin record (lines %u-%u)",
			 r->first_line, r->last_line);
	else if (sc->bad_json)
		snprintf(r->problem, sizeof(r->problem), "line %u is a damaged record (not valid JSON)", sc->bad_line);
	else if (!end)
		snprintf(r->problem, sizeof(r->problem), "incomplete: no end record (cut off after line %u)",
			 r->last_line);
	else if (!json_u64(json_get(end, "records"), &records) || !crc)
		snprintf(r->problem, sizeof(r->problem), "its end record has no record count or CRC");
	else if (records != sc->count)
		snprintf(r->problem, sizeof(r->problem), "the end record counts %llu records, the capture holds %u",
			 (unsigned long long)records, sc->count);
	else if (strcmp(crc, have) != 0)
		snprintf(r->problem, sizeof(r->problem),
			 "CRC mismatch (end record says %.8s, the records give %s): a record was damaged or rewritten",
			 crc, have);
	else
		r->complete = true;
}

struct capture_run *capture_runs(const char *text, size_t len, size_t *nruns)
{
	struct scan sc = { 0 };
	unsigned lineno = 0;

	for (size_t pos = 0; pos < len;) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		lineno++;
		const char *js;
		size_t jl;
		if (capture_record_text(text + pos, end - pos, &js, &jl)) {
			struct json_doc doc;
			bool ok = json_parse(&doc, js, jl, NULL, 0);
			const char *type = ok ? json_text(json_get(doc.root, "type")) : NULL;
			bool is_begin = type && !strcmp(type, "begin"), is_end = type && !strcmp(type, "end");
			if (is_begin && sc.cur)
				close_run(&sc, NULL);
			if (!sc.cur && !open_run(&sc, lineno, is_begin)) {
				json_free(&doc);
				break;
			}
			sc.cur->last_line = lineno;
			if (is_end) {
				close_run(&sc, doc.root);
			} else {
				if (!ok && !sc.bad_json) {
					sc.bad_json = true;
					sc.bad_line = lineno;
				}
				sc.count++;
				sc.crc = crc32_update(sc.crc, js, jl);
				sc.crc = crc32_update(sc.crc, "\n", 1);
			}
			json_free(&doc);
		}
		pos = end + 1;
	}
	if (sc.cur)
		close_run(&sc, NULL);
	*nruns = sc.n;
	return sc.runs;
}

const struct capture_run *capture_run_of_line(const struct capture_run *runs, size_t n, unsigned line)
{
	/* Runs are in line order and do not overlap: a binary search, so a capture of many runs stays linear. */
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (runs[mid].last_line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && line >= runs[lo].first_line ? &runs[lo] : NULL;
}
