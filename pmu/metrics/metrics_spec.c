/* pmu/metrics/metrics_spec.c - what counts a metric's input: see metrics_input_spec in metrics.h. */
#include "pmu/metrics/metrics.h"

#define CMASK_MAX 0xFFu
#define UMASK_MAX 0xFFu

/* The number after a modifier's letters: decimal, or hex with 0x; false when it is not one or exceeds max. */
static bool mod_value(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	bool hex = len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	size_t i = hex ? 2 : 0;
	if (i >= len)
		return false;
	for (; i < len; i++) {
		char c = s[i];
		unsigned d = lc_isdigit((unsigned char)c) ? (unsigned)(c - '0') :
			     hex && c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
			     hex && c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
		if (d >= (hex ? 16u : 10u) || v > (max - d) / (hex ? 16 : 10))
			return false;
		v = v * (hex ? 16 : 10) + d;
	}
	*out = v;
	return true;
}

static bool is(const char *m, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(m, word, len);
}

static bool prefixed(const char *m, size_t len, const char *prefix, size_t *skip)
{
	size_t n = strlen(prefix);
	*skip = n;
	return len > n && !memcmp(m, prefix, n);
}

/* One modifier of perfmon's spelling applied to out; false with why. */
static bool apply(const char *m, size_t len, struct event_spec *out, enum count_priv *priv, char *buf, size_t cap,
		  const char **why)
{
	uint64_t v;
	size_t k;
	if (is(m, len, "SUP") || is(m, len, "sup")) {
		*priv = COUNT_PRIV_KERNEL;
	} else if (is(m, len, "USER") || is(m, len, "user")) {
		*priv = COUNT_PRIV_USER;
	} else if (is(m, len, "perf_metrics")) {
		if (out->fixed != FIXED_TOPDOWN_SLOTS) {
			*why = ":perf_metrics belongs to TOPDOWN.SLOTS on fixed counter 3";
			return false;
		}
	} else if (is(m, len, "percore")) {
		*why = "both threads' slots (:percore) are not counted by pmuboot";
		return false;
	} else if (prefixed(m, len, "eq", &k)) {
		*why = "the counter-mask equality (:eq, CPUID.23H:EBX[1]) is not programmed by pmuboot";
		return false;
	} else if (prefixed(m, len, "ocr_msr_val=", &k)) {
		if (!mod_value(m + k, len - k, UINT64_MAX, &v) || !out->msr) {
			*why = ":ocr_msr_val= needs an offcore response event and a value";
			return false;
		}
		out->msr_value = v;
	} else if (m[0] == 'c' && mod_value(m + 1, len - 1, CMASK_MAX, &v)) {
		out->cmask = (uint8_t)v;
	} else if (m[0] == 'e' && mod_value(m + 1, len - 1, 1, &v)) {
		out->edge = v != 0;
	} else if (m[0] == 'i' && mod_value(m + 1, len - 1, 1, &v)) {
		out->inv = v != 0;
	} else if (m[0] == 'u' && mod_value(m + 1, len - 1, UMASK_MAX, &v)) {
		out->umask = (uint8_t)v;
	} else {
		snprintf(buf, cap, "event modifier ':%.*s' is not one pmuboot programs", (int)(len > 40 ? 40 : len), m);
		*why = buf;
		return false;
	}
	return true;
}

bool metrics_input_spec(const struct event_set *set, const struct metric_input *in, struct event_spec *out,
			enum count_priv *priv, char *buf, size_t cap, const char **why)
{
	*priv = COUNT_PRIV_ALL;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	switch (in->kind) {
	case METRIC_IN_PERF_METRICS:
		count_td_spec(in->arg, in->name, out);
		return true;
	case METRIC_IN_RETIRE_LATENCY:
		*why = "a retire latency (PEBS) is not measured by pmuboot";
		return false;
	case METRIC_IN_CONST:
		*why = "a constant, not an event";
		return false;
	case METRIC_IN_EVENT:
		break;
	}
	const char *colon = strchr(in->spec, ':');
	size_t base = colon ? (size_t)(colon - in->spec) : strlen(in->spec);
	char err[160];
	if (!set || !event_spec_parse(set, set->amd, in->spec, base, out, err, sizeof(err))) {
		snprintf(buf, cap, "%s", set ? err : "no event set");
		*why = buf;
		return false;
	}
	/* Keep the input's own spelling as the name: the records and errors say what the vendor named. */
	size_t n = strlen(in->name) < sizeof(out->name) ? strlen(in->name) : sizeof(out->name) - 1;
	memcpy(out->name, in->name, n);
	out->name[n] = 0;
	for (const char *m = colon; m;) {
		const char *next = strchr(m + 1, ':');
		size_t len = next ? (size_t)(next - m - 1) : strlen(m + 1);
		if (!len || !apply(m + 1, len, out, priv, buf, cap, why)) {
			if (!*why)
				*why = "an empty event modifier";
			return false;
		}
		m = next;
	}
	return true;
}
