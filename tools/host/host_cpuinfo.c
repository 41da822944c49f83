/* tools/host/host_cpuinfo.c - see host_cpuinfo.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/host/host_cpuinfo.h"
#include "tools/host/host_dump.h"

#define CPUINFO_PATH "/proc/cpuinfo"

/* "key<tabs/spaces>: value" -> value, when the line's key is exactly `key`. */
static const char *field(const char *line, const char *end, const char *key, const char **vend)
{
	size_t n = strlen(key);
	if ((size_t)(end - line) <= n || memcmp(line, key, n) != 0)
		return NULL;
	const char *p = line + n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p != ':')
		return NULL;
	p++;
	while (p < end && *p == ' ')
		p++;
	*vend = end;
	while (*vend > p && ((*vend)[-1] == ' ' || (*vend)[-1] == '\t'))
		(*vend)--;
	return p;
}

static bool number(const char *p, const char *e, uint64_t *v)
{
	return p < e && lc_parse_u64(p, (size_t)(e - p), v);
}

bool host_cpuinfo_microcode(const char *text, int cpu, uint32_t *rev)
{
	bool in_block = false;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p), *v, *ve;
		uint64_t x;
		if ((v = field(p, end, "processor", &ve)))
			in_block = number(v, ve, &x) && x == (uint64_t)cpu;
		else if (in_block && (v = field(p, end, "microcode", &ve)))
			return number(v, ve, &x) && x <= 0xffffffffu && ((*rev = (uint32_t)x), true);
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

bool host_cpuinfo_microcode_now(int cpu, uint32_t *rev)
{
	size_t len;
	char *text = host_read_file(CPUINFO_PATH, &len);
	if (!text)
		return false;
	bool ok = host_cpuinfo_microcode(text, cpu, rev);
	free(text);
	return ok;
}
