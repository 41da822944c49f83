/* host/kernels_dir.c - kernel files from a directory (pmuboot-host run kernels=DIR). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/kernel_tools.h"
#include "host/host_dump.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct ukernel_file *)a)->where, ((const struct ukernel_file *)b)->where);
}

size_t kt_read_dir(const char *dir, struct ukernel_file *files, size_t max, char *why, size_t cap)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *e;

	why[0] = 0;
	if (!d) {
		snprintf(why, cap, "kernels=%s: %s", dir, strerror(errno));
		return 0;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= 5 || strcmp(e->d_name + len - 5, ".pmuk"))
			continue;
		if (n == max) {
			snprintf(why, cap, "kernels=%s: more than %zu kernel files; the rest were not read", dir, max);
			break;
		}
		struct ukernel_file *f = &files[n++];
		memset(f, 0, sizeof(*f));
		snprintf(f->where, sizeof(f->where), "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(f->where, &st) != 0 || !S_ISREG(st.st_mode)) {
			f->problem = "not a regular file";
			continue;
		}
		if (st.st_size > UK_FILE_MAX) {
			f->problem = "larger than a kernel file can be: not read";
			continue;
		}
		size_t len2;
		char *data = host_read_file(f->where, &len2);
		if (!data) {
			f->problem = "could not be read";
			continue;
		}
		f->data = (const uint8_t *)data;
		f->len = len2;
	}
	closedir(d);
	qsort(files, n, sizeof(*files), by_name);
	return n;
}
