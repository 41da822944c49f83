/* host/kernel_tools.c - see kernel_tools.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/kernel_tools.h"
#include "host/host_dump.h"

#define TEXT_MAX (256u * 1024)
#define TOOL_OUT_MAX (64u * 1024)

enum part { PART_NONE, PART_INIT, PART_BODY };

struct text_state {
	const char *path;
	struct ukernel *k;
	FILE *src[2];		/* init, body: the NASM sources being written */
	char src_path[2][64];
	bool seen[2];
	size_t lines[2];	/* source lines in each part */
	bool name_set, unroll_set;
};

static void err_at(const char *path, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err_at(const char *path, unsigned line, const char *fmt, ...)
{
	va_list ap;
	if (line)
		fprintf(stderr, "pmuboot-host kernel: %s:%u: ", path, line);
	else
		fprintf(stderr, "pmuboot-host kernel: %s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void trim(const char **s, size_t *n)
{
	while (*n && lc_isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && lc_isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* "init:" or "body:" alone on its line (a comment may follow). */
static enum part part_label(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == ';') {
			n = i;
			break;
		}
	trim(&s, &n);
	if (n == 5 && !memcmp(s, "init:", 5))
		return PART_INIT;
	if (n == 5 && !memcmp(s, "body:", 5))
		return PART_BODY;
	return PART_NONE;
}

/* "; key: value" header lines: name, control, unroll.  Other comments are comments. */
static bool header_line(struct text_state *t, unsigned line, const char *s, size_t n, bool *bad)
{
	static const char *const keys[] = { "name", "control", "unroll" };
	if (!n || s[0] != ';')
		return false;
	s++;
	n--;
	trim(&s, &n);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		size_t kl = strlen(keys[i]);
		if (n <= kl || memcmp(s, keys[i], kl) || s[kl] != ':')
			continue;
		const char *v = s + kl + 1;
		size_t vn = n - kl - 1;
		trim(&v, &vn);
		if (i == 0) {
			if (!ukernel_name_ok(v, vn)) {
				err_at(t->path, line, "name '%.*s' is not [a-z][a-z0-9_]* of at most %d characters", (int)vn, v,
				       UK_NAME_MAX);
				*bad = true;
			} else {
				memcpy(t->k->name, v, vn);
				t->k->name[vn] = 0;
				t->name_set = true;
			}
		} else if (i == 1) {
			if (!ukernel_control_ok(v, vn)) {
				err_at(t->path, line, "control '%.*s' is neither a kernel name nor kernel.variant", (int)vn, v);
				*bad = true;
			} else {
				memcpy(t->k->control, v, vn);
				t->k->control[vn] = 0;
			}
		} else {
			uint64_t u;
			if (!lc_parse_u64(v, vn, &u) || u < 1 || u > UK_UNROLL_MAX) {
				err_at(t->path, line, "unroll '%.*s' is not a number 1..%u", (int)vn, v, UK_UNROLL_MAX);
				*bad = true;
			} else {
				t->k->unroll = (uint16_t)u;
				t->unroll_set = true;
			}
		}
		return true;
	}
	return true;	/* a plain comment */
}

/* Run argv (no shell); its stdout into out (NUL-terminated), stderr passed through.  Exit status or -1. */
static int run_tool(char *const argv[], char *out, size_t cap)
{
	int fd[2];
	if (pipe(fd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "pmuboot-host kernel: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	size_t n = 0;
	for (;;) {
		char tmp[4096];
		ssize_t got = read(fd[0], tmp, sizeof(tmp));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		size_t take = (size_t)got;
		if (out && n + take >= cap)
			take = cap > n + 1 ? cap - n - 1 : 0;
		if (out)
			memcpy(out + n, tmp, take);
		n += take;
	}
	close(fd[0]);
	if (out && cap)
		out[n < cap ? n : cap - 1] = 0;
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *nasm_program(void)
{
	const char *n = getenv("NASM");
	return n && *n ? n : "nasm";
}

/* Assemble one part's source; its bytes into dst.  False (reported) on failure. */
static bool assemble(struct text_state *t, int which, uint8_t *dst, uint16_t *len, size_t max)
{
	char bin[80];
	snprintf(bin, sizeof(bin), "%s.bin", t->src_path[which]);
	char *argv[] = { (char *)nasm_program(), "-f", "bin", "-o", bin, t->src_path[which], NULL };
	int rc = run_tool(argv, NULL, 0);
	bool ok = false;
	if (rc != 0) {
		err_at(t->path, 0, "%s failed to assemble %s (exit status %d)", argv[0], which ? "body" : "init", rc);
	} else {
		size_t n;
		char *b = host_read_file(bin, &n);
		if (!b)
			err_at(t->path, 0, "cannot read NASM's output: %s", strerror(errno));
		else if (n > max)
			err_at(t->path, 0, "%s is %zu bytes; at most %zu are allowed", which ? "the body" : "init", n, max);
		else if (which == 1 && n == 0)
			err_at(t->path, 0, "the body assembles to no bytes");
		else {
			memcpy(dst, b, n);
			*len = (uint16_t)n;
			ok = true;
		}
		free(b);
	}
	unlink(bin);
	return ok;
}

static bool open_sources(struct text_state *t)
{
	for (int i = 0; i < 2; i++) {
		snprintf(t->src_path[i], sizeof(t->src_path[i]), "/tmp/pmuboot-kernel-XXXXXX");
		int fd = mkstemp(t->src_path[i]);
		if (fd < 0 || !(t->src[i] = fdopen(fd, "w"))) {
			err_at(t->path, 0, "cannot create a temporary file: %s", strerror(errno));
			return false;
		}
		/* Position-independent: the body is copied many times, so labels must be RIP-relative. */
		fprintf(t->src[i], "bits 64\ndefault rel\n");
	}
	return true;
}

static void close_sources(struct text_state *t)
{
	for (int i = 0; i < 2; i++) {
		if (t->src[i])
			fclose(t->src[i]);
		t->src[i] = NULL;
		if (t->src_path[i][0])
			unlink(t->src_path[i]);
	}
}

bool kt_build(const char *path, struct ukernel *k)
{
	struct text_state t;
	size_t len;
	bool bad = false;
	enum part cur = PART_NONE;

	memset(&t, 0, sizeof(t));
	memset(k, 0, sizeof(*k));
	t.path = path;
	t.k = k;
	char *text = host_read_file(path, &len);
	if (!text) {
		err_at(path, 0, "%s", strerror(errno));
		return false;
	}
	if (len > TEXT_MAX || memchr(text, 0, len)) {
		err_at(path, 0, len > TEXT_MAX ? "larger than %u bytes" : "not a text file (a NUL byte)", TEXT_MAX);
		free(text);
		return false;
	}
	if (!open_sources(&t)) {
		close_sources(&t);
		free(text);
		return false;
	}
	unsigned line = 1;
	for (size_t i = 0; i < len; line++) {
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		const char *s = text + i;
		size_t n = e - i;
		i = e + 1;
		enum part p = part_label(s, n);
		if (p != PART_NONE) {
			int w = p == PART_BODY;
			if (t.seen[w]) {
				err_at(path, line, "a second '%s:' section", w ? "body" : "init");
				bad = true;
			}
			t.seen[w] = true;
			cur = p;
			continue;
		}
		if (cur == PART_NONE) {
			const char *ts = s;
			size_t tn = n;
			trim(&ts, &tn);
			if (tn && !header_line(&t, line, ts, tn, &bad)) {
				err_at(path, line, "'%.*s' before 'init:' or 'body:' (only '; name:', '; control:', "
				       "'; unroll:' and comments go there)", (int)(tn > 40 ? 40 : tn), ts);
				bad = true;
			}
			continue;
		}
		/* NASM names the original file and line in its messages. */
		int w = cur == PART_BODY;
		/* NASM numbers the line after "%line N+1" as N + 1. */
		fprintf(t.src[w], "%%line %u+1 %s\n%.*s\n", line - 1, path, (int)n, s);
		t.lines[w]++;
	}
	free(text);
	if (!t.name_set) {
		err_at(path, 0, "no '; name: NAME' line");
		bad = true;
	}
	if (!t.seen[1]) {
		err_at(path, 0, "no 'body:' section");
		bad = true;
	}
	for (int i = 0; i < 2; i++)
		if (t.src[i] && fflush(t.src[i]) != 0)
			bad = true;
	if (!bad && t.seen[0] && !assemble(&t, 0, k->init, &k->init_len, UK_INIT_MAX))
		bad = true;
	if (!bad && !assemble(&t, 1, k->body, &k->body_len, UK_BODY_MAX))
		bad = true;
	close_sources(&t);
	if (!bad && (uint32_t)ukernel_unroll(k) * k->body_len > UK_UNROLLED_MAX) {
		err_at(path, 0, "%u copies of a %u-byte body exceed the %u bytes the harness places (lower '; unroll:')",
		       ukernel_unroll(k), k->body_len, UK_UNROLLED_MAX);
		bad = true;
	}
	return !bad;
}

static bool disasm_raw(const uint8_t *bytes, size_t n, char *out, size_t cap)
{
	char path[] = "/tmp/pmuboot-disasm-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		snprintf(out, cap, "cannot create a temporary file: %s", strerror(errno));
		return false;
	}
	bool wrote = write(fd, bytes, n) == (ssize_t)n;
	close(fd);
	const char *nd = getenv("NDISASM");
	char *argv[] = { (char *)(nd && *nd ? nd : "ndisasm"), "-b", "64", path, NULL };
	int rc = wrote ? run_tool(argv, out, cap) : -1;
	unlink(path);
	if (rc != 0) {
		snprintf(out, cap, "ndisasm (Debian package nasm) could not disassemble the bytes (status %d)", rc);
		return false;
	}
	return true;
}

bool kt_disasm(const uint8_t *bytes, size_t n, char *out, size_t cap)
{
	return disasm_raw(bytes, n, out, cap);
}

bool kt_disasm_brief(const uint8_t *bytes, size_t n, char *out, size_t cap)
{
	char *raw = malloc(TOOL_OUT_MAX);
	if (!raw) {
		snprintf(out, cap, "out of memory");
		return false;
	}
	if (!disasm_raw(bytes, n, raw, TOOL_OUT_MAX)) {
		snprintf(out, cap, "%s", raw);
		free(raw);
		return false;
	}
	/* ndisasm lines: "00000000  4801C8            add rax,rcx" - keep the third column. */
	size_t k = 0;
	out[0] = 0;
	for (char *l = strtok(raw, "\n"); l && k + 1 < cap; l = strtok(NULL, "\n")) {
		char *p = l;
		for (int col = 0; col < 2; col++) {
			while (*p && *p != ' ')
				p++;
			while (*p == ' ')
				p++;
		}
		if (!*p)
			continue;	/* a continuation line of a long instruction's bytes */
		k += (size_t)snprintf(out + k, cap - k, "%s%s", k ? " / " : "", p);
	}
	free(raw);
	return true;
}
