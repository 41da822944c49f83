/*
 * pmu/ibs/ibs_capture_host.c - reading `ibs_sample` and `ibs` records back
 * from a capture; see ibs.h.
 *
 * A capture is a serial log (firmware noise, ANSI escapes, CR/LF) or saved
 * .jsonl records.  Which lines are records is lib/capture.h's rule (the
 * prefix at the start of a line only); the JSON is read by the strict
 * reader (lib/json_read.h), so any valid JSON a rig writes back -- spaces
 * after ':' and ',', keys in any order -- reads the same, and anything that
 * is not JSON is refused.  Every field is type-checked: a damaged IBS record
 * is an error naming the field and what is wrong; other record types are
 * not our business.  Host-only (the _host.c suffix keeps it out of the image).
 */
#include "pmu/ibs/ibs.h"
#include "lib/capture.h"
#include "lib/json_read.h"
#include "lib/record.h"

#define MAX_REGS 16

static enum ibs_line_type error(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static enum ibs_line_type error(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
	return IBS_LINE_ERROR;
}

/* A string field without NUL bytes that fits cap (with its NUL); false with err filled otherwise. */
static bool get_str(const struct json_value *obj, const char *rtype, const char *key, char *out, size_t cap,
		    bool *have, char *err, size_t err_cap)
{
	const struct json_value *v = json_get(obj, key);
	const char *s;

	*have = false;
	if (!v)
		return true;
	if (!(s = json_text(v))) {
		error(err, err_cap, "%s: \"%s\" is %s, not a string", rtype, key,
		      v->type == JSON_STRING ? "a string holding NUL" : json_type_name(v->type));
		return false;
	}
	if (v->len >= cap) {
		error(err, err_cap, "%s: \"%s\" is longer than %zu bytes", rtype, key, cap - 1);
		return false;
	}
	memcpy(out, s, v->len + 1);
	*have = true;
	return true;
}

/* A number written as "0x.." (registers, family, model) or as a JSON integer, at most max. */
static bool number_of(const struct json_value *v, uint64_t max, uint64_t *out)
{
	const char *s = json_text(v);
	if (s)
		return lc_parse_u64(s, v->len, out) && *out <= max;
	return json_u64(v, out) && *out <= max;
}

static bool get_num(const struct json_value *obj, const char *rtype, const char *key, uint64_t max, uint64_t *out,
		    bool *have, char *err, size_t err_cap)
{
	const struct json_value *v = json_get(obj, key);

	*have = false;
	if (!v)
		return true;
	if (!number_of(v, max, out)) {
		if (v->type == JSON_STRING && json_text(v))
			error(err, err_cap, "%s: %s '%.40s' is not a number (up to 0x%llx)", rtype, key, v->str,
			      (unsigned long long)max);
		else
			error(err, err_cap, "%s: %s is %s, not a number (up to 0x%llx)", rtype, key,
			      json_type_name(v->type), (unsigned long long)max);
		return false;
	}
	*have = true;
	return true;
}

static enum ibs_line_type read_regs(const struct json_value *regs, enum ibs_kind kind, struct ibs_capture_item *it,
				    char *err, size_t cap)
{
	size_t n = 0;

	if (!regs)
		return error(err, cap, "ibs_sample: no registers");
	if (regs->type != JSON_OBJECT)
		return error(err, cap, "ibs_sample: \"regs\" is %s, not an object", json_type_name(regs->type));
	for (const struct json_value *m = regs->child; m; m = m->next, n++) {
		uint64_t v;
		int slot = ibs_reg_find(kind, m->key, m->key_len);
		if (n == MAX_REGS)
			return error(err, cap, "ibs_sample: more than %d registers", MAX_REGS);
		if (slot < 0 || strlen(m->key) != m->key_len)
			return error(err, cap, "ibs_sample: '%.40s' is not an IBS %s register", m->key,
				     ibs_kind_name(kind));
		if (!number_of(m, UINT64_MAX, &v)) {
			if (m->type == JSON_STRING && json_text(m))
				return error(err, cap, "ibs_sample: %s '%.40s' is not a number", m->key, m->str);
			return error(err, cap, "ibs_sample: %s is %s, not a number", m->key, json_type_name(m->type));
		}
		it->sample.v[slot] = v;
		it->sample.have |= (uint16_t)(1u << slot);
	}
	if (!n)
		return error(err, cap, "ibs_sample: no registers");
	if (!(it->sample.have & 1u))
		return error(err, cap, "ibs_sample: the control register (%s) is missing", ibs_reg_def(kind, 0)->name);
	return IBS_LINE_SAMPLE;
}

static enum ibs_line_type read_sampled(const struct json_value *v, struct ibs_capture_item *it, char *err,
				       size_t cap)
{
	if (!v)
		return IBS_LINE_VARIANT;
	if (v->type != JSON_ARRAY)
		return error(err, cap, "ibs: \"sampled\" is %s, not an array", json_type_name(v->type));
	it->have_sampled = true;
	for (const struct json_value *e = v->child; e; e = e->next) {
		const char *name = json_text(e);
		if (!name)
			return error(err, cap, "ibs: \"sampled\" holds %s, not a kind name", json_type_name(e->type));
		for (int k = 0; k < IBS_KINDS; k++)
			if (!strcmp(name, ibs_kind_name((enum ibs_kind)k)))
				it->sampled[k] = true;
	}
	return IBS_LINE_VARIANT;
}

/* The fields both record types share: kernel, variant, family, model. */
static enum ibs_line_type read_common(const struct json_value *r, const char *rtype, struct ibs_capture_item *it,
				      char *err, size_t cap)
{
	bool have_kernel, have_variant, have_family, have_model, have_page;
	uint64_t family = 0, model = 0, page = 0;

	if (!get_str(r, rtype, "kernel", it->kernel, sizeof(it->kernel), &have_kernel, err, cap) ||
	    !get_str(r, rtype, "variant", it->variant, sizeof(it->variant), &have_variant, err, cap) ||
	    !get_num(r, rtype, "family", UINT32_MAX, &family, &have_family, err, cap) ||
	    !get_num(r, rtype, "model", UINT32_MAX, &model, &have_model, err, cap))
		return IBS_LINE_ERROR;
	const struct json_value *ap = json_get(r, "arena_page");
	if (ap && ap->type != JSON_NULL &&
	    !get_num(r, rtype, "arena_page", UINT32_MAX, &page, &have_page, err, cap))
		return IBS_LINE_ERROR;
	if (!have_family || !have_model || !have_kernel || !have_variant)
		return error(err, cap, "%s: %s is missing", rtype,
			     !have_kernel ? "\"kernel\"" : !have_variant ? "\"variant\"" :
			     !have_family ? "\"family\"" : "\"model\"");
	it->family = (uint32_t)family;
	it->model = (uint32_t)model;
	it->arena_page = (uint32_t)page;
	return IBS_LINE_OTHER;
}

static enum ibs_line_type read_sample(const struct json_value *r, struct ibs_capture_item *it, char *err, size_t cap)
{
	char kind_name[8];
	bool have_kind;
	enum ibs_kind kind;

	if (!get_str(r, "ibs_sample", "kind", kind_name, sizeof(kind_name), &have_kind, err, cap))
		return IBS_LINE_ERROR;
	if (!have_kind)
		return error(err, cap, "ibs_sample: \"kind\" is missing");
	if (!strcmp(kind_name, "fetch"))
		kind = IBS_KIND_FETCH;
	else if (!strcmp(kind_name, "op"))
		kind = IBS_KIND_OP;
	else
		return error(err, cap, "ibs_sample: kind '%s' is neither fetch nor op", kind_name);
	if (read_common(r, "ibs_sample", it, err, cap) == IBS_LINE_ERROR)
		return IBS_LINE_ERROR;
	it->sample.kind = (uint8_t)kind;
	return read_regs(json_get(r, "regs"), kind, it, err, cap);
}

static enum ibs_line_type read_variant(const struct json_value *r, struct ibs_capture_item *it, char *err,
				       size_t cap)
{
	const struct json_value *avail = json_get(r, "available");
	uint64_t caps = 0;

	if (avail && avail->type != JSON_TRUE && avail->type != JSON_FALSE)
		return error(err, cap, "ibs: \"available\" is %s, not true or false", json_type_name(avail->type));
	if (avail && avail->type == JSON_FALSE)
		return IBS_LINE_ABSENT;
	if (read_common(r, "ibs record", it, err, cap) == IBS_LINE_ERROR ||
	    !get_num(r, "ibs", "ibs_caps", UINT32_MAX, &caps, &it->have_caps, err, cap))
		return IBS_LINE_ERROR;
	it->caps = (uint32_t)caps;
	return read_sampled(json_get(r, "sampled"), it, err, cap);
}

static bool mentions(const char *s, size_t n, const char *word)
{
	size_t k = strlen(word);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, word, k))
			return true;
	return false;
}

enum ibs_line_type ibs_capture_parse(const char *line, size_t len, struct ibs_capture_item *it, char *err,
				     size_t err_cap)
{
	const char *js;
	size_t jl;
	struct json_doc doc;
	char why[120];
	enum ibs_line_type t = IBS_LINE_OTHER;

	memset(it, 0, sizeof(*it));
	if (err_cap)
		err[0] = '\0';
	if (!capture_record_text(line, len, &js, &jl))
		return IBS_LINE_OTHER;
	if (!json_parse(&doc, js, jl, why, sizeof(why))) {
		/* Only a damaged IBS record is ours to name; the run check names the others. */
		if (mentions(js, jl, "\"ibs_sample\""))
			return error(err, err_cap, "ibs_sample record is malformed: %s", why);
		if (mentions(js, jl, "\"ibs\""))
			return error(err, err_cap, "ibs record is malformed: %s", why);
		return IBS_LINE_OTHER;
	}
	const char *type = json_text(json_get(doc.root, "type"));
	if (type && !strcmp(type, "ibs_sample"))
		t = read_sample(doc.root, it, err, err_cap);
	else if (type && !strcmp(type, "ibs"))
		t = read_variant(doc.root, it, err, err_cap);
	json_free(&doc);
	return t;
}
