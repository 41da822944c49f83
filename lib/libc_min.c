/*
 * lib/libc_min.c - the freestanding C library for the UEFI image.
 *
 * Only linked into the image; pmuboot-host and the tests use the system
 * library.  vsnprintf implements the subset of C99 the project uses:
 * flags '-' and '0', a width, a precision for %s, length modifiers hh h l
 * ll z, and conversions d i u x X p s c %.  It always NUL-terminates and
 * returns the length the full output would have had, like C99.
 */
#include "lib/libc.h"

void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d < s) {
		while (n--)
			*d++ = *s++;
	} else if (d > s) {
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	for (; *a && *a == *b; a++, b++)
		;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n && *a && *a == *b; n--, a++, b++)
		;
	return n ? (unsigned char)*a - (unsigned char)*b : 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

struct sink {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct sink *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct sink *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

static void put_field(struct sink *o, const char *s, int len, int width, bool left, char padc)
{
	if (!left)
		pad(o, padc, width - len);
	for (int i = 0; i < len; i++)
		put(o, s[i]);
	if (left)
		pad(o, ' ', width - len);
}

/* Render v in base with optional sign into the end of tmp; returns the start. */
static char *render(char *end, uint64_t v, unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = end;
	do {
		*--p = digits[v % base];
		v /= base;
	} while (v);
	return p;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct sink o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		bool left = false, zero = false;
		int width = 0, prec = -1, lng = 0;
		for (fmt++; *fmt == '-' || *fmt == '0'; fmt++) {
			if (*fmt == '-')
				left = true;
			else
				zero = true;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		}
		/* Not dec_parse: these are our own format strings, not outside text, and inline costs fewer image bytes. */
		for (; lc_isdigit(*fmt); fmt++)
			width = width * 10 + (*fmt - '0');
		if (*fmt == '.') {
			prec = 0;
			fmt++;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			}
			for (; lc_isdigit(*fmt); fmt++)
				prec = prec * 10 + (*fmt - '0');
		}
		for (;; fmt++) {
			if (*fmt == 'l')
				lng++;
			else if (*fmt == 'z')
				lng = 2;
			else if (*fmt != 'h')
				break;
		}

		char tmp[24], *end = tmp + sizeof(tmp), *s;
		char padc = (zero && !left) ? '0' : ' ';
		switch (*fmt) {
		case 'd':
		case 'i': {
			int64_t v = lng ? va_arg(ap, long long) : va_arg(ap, int);
			uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
			s = render(end, mag, 10, false);
			if (v < 0) {
				if (padc == '0') {
					put(&o, '-');
					width--;
				} else {
					*--s = '-';
				}
			}
			put_field(&o, s, (int)(end - s), width, left, padc);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			uint64_t v = lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned int);
			s = render(end, v, *fmt == 'u' ? 10 : 16, *fmt == 'X');
			put_field(&o, s, (int)(end - s), width, left, padc);
			break;
		}
		case 'p': {
			s = render(end, (uint64_t)(uintptr_t)va_arg(ap, void *), 16, false);
			*--s = 'x';
			*--s = '0';
			put_field(&o, s, (int)(end - s), width, left, ' ');
			break;
		}
		case 's': {
			const char *str = va_arg(ap, const char *);
			if (!str)
				str = "(null)";
			int len = 0;
			while (str[len] && (prec < 0 || len < prec))
				len++;
			put_field(&o, str, len, width, left, ' ');
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			put_field(&o, &c, 1, width, left, ' ');
			break;
		}
		case '%':
			put(&o, '%');
			break;
		default:
			/* Unknown conversion: show it rather than misread the arguments. */
			put(&o, '%');
			if (*fmt)
				put(&o, *fmt);
			else
				fmt--;
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
