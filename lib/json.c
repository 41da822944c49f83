/* lib/json.c - see json.h. */
#include "lib/json.h"

size_t json_escape(char *dst, size_t cap, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	char tmp[7];

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t k = 0;
		switch (c) {
		case '"': tmp[k++] = '\\'; tmp[k++] = '"'; break;
		case '\\': tmp[k++] = '\\'; tmp[k++] = '\\'; break;
		case '\n': tmp[k++] = '\\'; tmp[k++] = 'n'; break;
		case '\r': tmp[k++] = '\\'; tmp[k++] = 'r'; break;
		case '\t': tmp[k++] = '\\'; tmp[k++] = 't'; break;
		default:
			if (c < 0x20 || c >= 0x7f) {
				tmp[k++] = '\\';
				tmp[k++] = 'u';
				tmp[k++] = '0';
				tmp[k++] = '0';
				tmp[k++] = hex[c >> 4];
				tmp[k++] = hex[c & 15];
			} else {
				tmp[k++] = (char)c;
			}
		}
		for (size_t j = 0; j < k; j++, n++)
			if (n + 1 < cap)
				dst[n] = tmp[j];
	}
	if (cap)
		dst[n < cap ? n : cap - 1] = '\0';
	return n;
}
