/* lib/strbuf.c - see strbuf.h. */
#include "lib/strbuf.h"

size_t str_appendf(char *buf, size_t cap, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (len >= cap)
		return len;
	va_start(ap, fmt);
	int n = vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
	return n < 0 ? len : len + (size_t)n;
}
