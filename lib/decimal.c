/* lib/decimal.c - see decimal.h. */
#include "lib/decimal.h"

#define DEC_BASE 10u

enum dec_result dec_parse(const char *s, size_t len, uint64_t max, uint64_t *value, size_t *end)
{
	uint64_t v = 0;
	size_t i = 0;
	for (; i < len && lc_isdigit(s[i]); i++) {
		uint64_t d = (uint64_t)(s[i] - '0');
		/* Would this digit take the number past max?  Asked without forming it (it may not fit 64 bits). */
		if (d > max || v > (max - d) / DEC_BASE) {
			*end = i;
			return DEC_TOO_BIG;
		}
		v = v * DEC_BASE + d;
	}
	*end = i;
	if (i == 0)
		return DEC_NO_DIGIT;
	*value = v;
	return DEC_OK;
}

bool dec_whole(const char *s, size_t len, uint64_t max, uint64_t *value)
{
	size_t end;
	return dec_parse(s, len, max, value, &end) == DEC_OK && end == len;
}
