/* net/fetch.c - see fetch.h. */
#include "net/fetch.h"
#include "net/http.h"

#define KIB 1024u

/* word (lower case) occurs in s[0..len), ASCII case ignored. */
static bool has_ci(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);
	for (size_t at = 0; at + n <= len; at++) {
		size_t i = 0;
		while (i < n && lc_tolower((unsigned char)s[at + i]) == word[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}

bool fetch_tftp_absent(unsigned code, const char *msg, size_t len)
{
	if (code == TFTP_ERROR_NOT_FOUND)
		return true;
	size_t n = 0;
	while (n < len && msg[n])
		n++;
	return code == TFTP_ERROR_UNDEFINED && (has_ci(msg, n, "not found") || has_ci(msg, n, "no such"));
}

long fetch_http_result(unsigned status, bool unsized, bool cut, size_t len, size_t cap, char *why, size_t why_cap)
{
	if (http_status_absent(status))
		return NET_FETCH_ABSENT;
	if (!http_status_ok(status)) {
		snprintf(why, why_cap, "the server answered HTTP %u", status);
		return NET_FETCH_FAILED;
	}
	if (unsized) {	/* only where the firmware's HTTP was the one way (http_call falls back for a GET) */
		snprintf(why, why_cap, "the server gave no Content-Length: the firmware's HTTP cannot show the file "
			 "arrived whole");
		return NET_FETCH_FAILED;
	}
	if (cut || len >= cap) {
		snprintf(why, why_cap, "the file is more than the %zu KiB pmuboot reads", cap / KIB);
		return NET_FETCH_FAILED;
	}
	return (long)len;
}
