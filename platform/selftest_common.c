/* platform/selftest_common.c - see selftest.h. */
#include "platform/selftest.h"
#include "lib/out.h"

static const char names[SELFTEST_COUNT][8] = { "fixup", "window", "nmi", "paging", "fault", "apfault", "aphang" };

const char *selftest_name(unsigned index) { return index < SELFTEST_COUNT ? names[index] : "?"; }

bool selftest_parse(const char *list, unsigned *mask, char *why, size_t why_cap)
{
	*mask = 0;
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool found = false;
		if (len == 3 && strncmp(p, "all", 3) == 0) {
			*mask |= ST_ALL;
			found = true;
		}
		for (unsigned i = 0; i < SELFTEST_COUNT && !found; i++)
			if (strlen(names[i]) == len && strncmp(p, names[i], len) == 0) {
				*mask |= 1u << i;
				found = true;
			}
		if (!found && len) {
			snprintf(why, why_cap, "unknown self-test '%.*s' (expected fixup, window, nmi, paging, fault, apfault, aphang or all)",
				 (int)(len > 40 ? 40 : len), p);
			return false;
		}
		p = end ? end + 1 : p + len;
	}
	return true;
}

void st_begin(struct st *s, const char *name)
{
	s->name = name;
	s->passed = s->failed = 0;
	rec_start(&s->r, "selftest");
	rec_str(&s->r, "test", name);
	rec_arr(&s->r, "checks");
}

void st_check(struct st *s, const char *what, bool ok, int64_t value, const char *fmt, ...)
{
	char detail[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	rec_obj(&s->r, NULL);
	rec_str(&s->r, "check", what);
	rec_bool(&s->r, "ok", ok);
	rec_i64(&s->r, "value", value);
	rec_str(&s->r, "detail", detail);
	rec_obj_end(&s->r);
	if (ok) {
		s->passed++;
	} else {
		s->failed++;
		out_text("selftest %s: FAILED: %s: %s", s->name, what, detail);
	}
}

bool st_end(struct st *s)
{
	rec_arr_end(&s->r);
	rec_str(&s->r, "status", s->failed ? "fail" : "pass");
	rec_u64(&s->r, "passed", s->passed);
	rec_u64(&s->r, "failed", s->failed);
	rec_emit(&s->r);
	if (s->failed)
		rec_stream_note_error();
	out_text("selftest %s: %s (%u checks passed, %u failed)", s->name, s->failed ? "FAIL" : "pass", s->passed,
		 s->failed);
	return s->failed == 0;
}

void selftest_skip(const char *list, const char *reason)
{
	struct rec r;	/* on the stack */
	unsigned mask;
	char why[128];

	if (!list[0])
		return;
	if (!selftest_parse(list, &mask, why, sizeof(why))) {
		rec_error("selftest", "selftest", "%s", why);
		return;
	}
	for (unsigned i = 0; i < SELFTEST_COUNT; i++) {
		if (!(mask & (1u << i)))
			continue;
		rec_start(&r, "selftest");
		rec_str(&r, "test", names[i]);
		rec_str(&r, "status", "skipped");
		rec_str(&r, "reason", reason);
		rec_emit(&r);
	}
}
