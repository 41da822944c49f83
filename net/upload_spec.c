/* net/upload_spec.c - see upload_spec.h. */
#include "net/upload_spec.h"
#include "lib/decimal.h"

#define TIMEOUT_KEY "timeout="
#define TIMEOUT_KEY_LEN 8

bool upload_spec_parse(const char *v, size_t len, struct upload_spec *s, char *why, size_t cap)
{
	struct upload_spec out;
	memset(&out, 0, sizeof(out));
	out.timeout_s = UPLOAD_TIMEOUT_DEFAULT_S;
	memset(s, 0, sizeof(*s));
	if (len == 0 || lc_eq_ci_n(v, len, "off"))
		return true;
	bool have_url = false;
	size_t i = 0;
	while (i <= len) {
		size_t e = i;
		while (e < len && v[e] != ',')
			e++;
		const char *w = v + i;
		size_t n = e - i;
		i = e + 1;
		if (n == 0) {
			snprintf(why, cap, "an empty word between commas");
			return false;
		}
		if (lc_eq_ci_n(w, n, "live")) {
			out.live = true;
		} else if (lc_eq_ci_n(w, n, "http") || lc_eq_ci_n(w, n, "tcp4")) {
			out.via = lc_eq_ci_n(w, n, "http") ? HTTP_VIA_FIRMWARE : HTTP_VIA_TCP4;
		} else if (n > TIMEOUT_KEY_LEN && lc_eq_ci_n(w, TIMEOUT_KEY_LEN, TIMEOUT_KEY)) {
			uint64_t t = 0;
			bool ok = dec_whole(w + TIMEOUT_KEY_LEN, n - TIMEOUT_KEY_LEN, UPLOAD_TIMEOUT_MAX_S, &t);
			if (!ok || t < 1) {
				snprintf(why, cap, "timeout= takes seconds, 1..%d", UPLOAD_TIMEOUT_MAX_S);
				return false;
			}
			out.timeout_s = (uint32_t)t;
		} else if (n > 4 && lc_eq_ci_n(w, 4, "http")) {
			if (have_url) {
				snprintf(why, cap, "two URLs: give one collector");
				return false;
			}
			char uwhy[128];
			if (!http_url_parse(w, n, &out.url, uwhy, sizeof(uwhy))) {
				snprintf(why, cap, "bad URL: %s", uwhy);
				return false;
			}
			have_url = true;
		} else {
			snprintf(why, cap, "'%.*s' is not a URL, live, http, tcp4 or timeout=S", (int)(n > 40 ? 40 : n), w);
			return false;
		}
	}
	if (!have_url) {
		snprintf(why, cap, "no URL (expected http://HOST[:PORT]/PATH[,live][,http|tcp4][,timeout=S])");
		return false;
	}
	out.on = true;
	*s = out;
	return true;
}
