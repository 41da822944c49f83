/*
 * tests/host/capture_dump.c - what lib/capture_host.c reads in each capture file
 * named, as one JSON line per file, for tests/host/test_capture_readers.py to
 * hold against tools/pmucap/capture.py (the authoritative reader).  The test
 * compiles it against the build's libpmuboot.a.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/capture.h"

static const char *const kinds[] = {
	[CAPTURE_DAMAGED_LINE] = "damaged_line", [CAPTURE_NOT_A_RECORD] = "not_a_record",
	[CAPTURE_BAD_RECORD] = "bad_record", [CAPTURE_BEFORE_BEGIN] = "before_begin", [CAPTURE_NO_END] = "no_end",
	[CAPTURE_BAD_COUNT] = "bad_count", [CAPTURE_COUNT_MISMATCH] = "count_mismatch", [CAPTURE_BAD_CRC] = "bad_crc",
	[CAPTURE_CRC_MISMATCH] = "crc_mismatch", [CAPTURE_BAD_STATUS] = "bad_status",
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	if (!f)
		return NULL;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				exit(3);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	for (int a = 1; a < argc; a++) {
		size_t len;
		char *text = slurp(argv[a], &len);
		struct capture_file c;
		if (!text || !capture_file_read(&c, text, len))
			return 2;
		printf("{\"serial\":%s,\"runs\":[", c.serial ? "true" : "false");
		for (size_t i = 0; i < c.nruns; i++) {
			const struct capture_run *r = &c.runs[i];
			printf("%s{\"number\":%u,\"start\":%u,\"end\":%u,\"count\":%u,\"complete\":%s,\"records\":[", i ? "," : "",
			       r->number, r->first_line, r->end_line, r->count, r->complete ? "true" : "false");
			const char *sep = "";
			for (size_t k = 0; k < c.nrecords; k++)
				if (c.records[k].run == r->number && c.records[k].valid && !c.records[k].end) {
					printf("%s%u", sep, c.records[k].line);
					sep = ",";
				}
			printf("]}");
		}
		printf("],\"problems\":[");
		for (size_t i = 0; i < c.nproblems; i++)
			printf("%s[%u,%u,\"%s\"]", i ? "," : "", c.problems[i].run, c.problems[i].line,
			       kinds[c.problems[i].kind]);
		printf("]}\n");
		capture_file_free(&c);
		free(text);
	}
	return 0;
}
