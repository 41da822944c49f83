/* linux/cpuinfo_linux.c - see cpuinfo_linux.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/cpuinfo_linux.h"

#define CPUINFO_PATH "/proc/cpuinfo"
/* /proc/cpuinfo of a few hundred CPUs is a few hundred KiB; past this it is not what we think. */
#define CPUINFO_MAX (16u << 20)
#define CPUINFO_CHUNK 65536u

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

bool cpuinfo_microcode(const char *text, int cpu, uint32_t *rev)
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

/* The whole file, NUL-terminated (its size is 0 to stat: read until the end); NULL on failure. */
static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0;
	if (!f)
		return NULL;
	for (;;) {
		char *grown = n + CPUINFO_CHUNK + 1 <= CPUINFO_MAX ? realloc(buf, n + CPUINFO_CHUNK + 1) : NULL;
		if (!grown) {
			free(buf);
			fclose(f);
			return NULL;
		}
		buf = grown;
		size_t got = fread(buf + n, 1, CPUINFO_CHUNK, f);
		n += got;
		if (got < CPUINFO_CHUNK)
			break;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

bool cpuinfo_microcode_now(int cpu, uint32_t *rev)
{
	char *text = read_all(CPUINFO_PATH);
	if (!text)
		return false;
	bool ok = cpuinfo_microcode(text, cpu, rev);
	free(text);
	return ok;
}
