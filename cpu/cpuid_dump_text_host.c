/*
 * cpu/cpuid_dump_text_host.c - what both readers of a CPUID dump share
 * (cpuid_dump_internal.h): the text's lines, its hex digits and error
 * messages, and the query of what they parsed (cpuid_dump.h).  Below
 * cpuid_dump_host.c, which chooses the reader, and cpuid_dump_tagged_host.c,
 * one of them: neither calls the other's helpers, so they call in one
 * direction only.
 */
#include "cpu/cpuid_dump_internal.h"

int cpuid_dump_hexval(char c)
{
	if (lc_isdigit(c))
		return c - '0';
	c = (char)lc_tolower(c);
	return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

size_t cpuid_dump_hex_run(const char *p, const char *e)
{
	size_t k = 0;
	while (p + k < e && cpuid_dump_hexval(p[k]) >= 0)
		k++;
	return k;
}

/* Up to 16 characters at p for an error message, non-printables as '?'. */
const char *cpuid_dump_excerpt(const char *p, const char *e, char out[20])
{
	size_t n = 0;
	if (p >= e) {
		memcpy(out, "end of line", 12);
		return out;
	}
	out[n++] = '\'';
	while (p < e && n < 17) {
		char c = *p++;
		out[n++] = (c >= 0x20 && c < 0x7f) ? c : '?';
	}
	out[n++] = '\'';
	out[n] = '\0';
	return out;
}

bool cpuid_dump_fail(struct cpuid_dump *d, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	d->err_line = line;
	va_start(ap, fmt);
	vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
	return false;
}

bool cpuid_dump_next_line(const char **p, const char *end, uint32_t *no, struct cpuid_dump_line *l)
{
	if (*p >= end)
		return false;
	const char *nl = *p;
	while (nl < end && *nl != '\n')
		nl++;
	*l = (struct cpuid_dump_line){ *p, (size_t)(nl - *p), ++*no };
	*p = nl < end ? nl + 1 : end;
	if (l->n && l->p[l->n - 1] == '\r')
		l->n--;
	return true;
}

bool cpuid_dump_query(const struct cpuid_dump *d, size_t cpu, uint32_t leaf, uint32_t subleaf,
		      struct cpuid_regs *out)
{
	const struct cpuid_dump_leaf *any = NULL;

	memset(out, 0, sizeof(*out));
	if (cpu >= d->ncpus)
		return false;
	const struct cpuid_dump_cpu *c = &d->cpus[cpu];
	for (size_t i = c->first; i < c->first + c->count; i++) {
		const struct cpuid_dump_leaf *e = &d->leaves[i];
		if (e->leaf != leaf)
			continue;
		if ((e->sl == DUMP_SL_TAGGED || e->sl == DUMP_SL_ORDER) && e->subleaf == subleaf) {
			*out = e->r;
			return true;
		}
		if (e->sl == DUMP_SL_ANY)
			any = e;
	}
	if (any)
		*out = any->r;
	return any != NULL;
}
