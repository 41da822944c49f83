/* lib/libc_util.c - locale-free helpers shared by the image and host builds. */
#include "lib/libc.h"
#include "lib/decimal.h"

int lc_strcasecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = lc_tolower((unsigned char)*a), cb = lc_tolower((unsigned char)*b);
		if (ca != cb || ca == 0)
			return ca - cb;
	}
}

void lc_sort_u64(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j] < v[j - 1]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

bool lc_eq_ci_n(const char *a, size_t alen, const char *b)
{
	if (alen != strlen(b))
		return false;
	for (size_t i = 0; i < alen; i++)
		if (lc_tolower((unsigned char)a[i]) != lc_tolower((unsigned char)b[i]))
			return false;
	return true;
}

#define HEX_DIGIT_BITS 4

static int hex_digit_value(int c)
{
	if (lc_isdigit(c))
		return c - '0';
	c = lc_tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

bool lc_parse_u64(const char *s, size_t len, uint64_t *out)
{
	if (!(len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
		return dec_whole(s, len, UINT64_MAX, out);
	s += 2;
	len -= 2;
	uint64_t v = 0;
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		int d = hex_digit_value((unsigned char)s[i]);
		if (d < 0 || v > (UINT64_MAX >> HEX_DIGIT_BITS))
			return false;
		v = (v << HEX_DIGIT_BITS) | (uint64_t)d;
	}
	*out = v;
	return true;
}

bool lc_next_item(const char **p, char sep, const char **item, size_t *len)
{
	const char *s = *p;

	for (;;) {
		while (*s == sep || lc_isspace((unsigned char)*s))
			s++;
		if (!*s) {
			*p = s;
			return false;
		}
		const char *w = s;
		while (*s && *s != sep)
			s++;
		size_t n = (size_t)(s - w);
		while (n && lc_isspace((unsigned char)w[n - 1]))
			n--;
		if (n) {
			*item = w;
			*len = n;
			*p = s;
			return true;
		}
	}
}
