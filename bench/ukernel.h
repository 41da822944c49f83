/*
 * bench/ukernel.h - user kernels: the kernel file format and its reader.
 *
 * A user kernel is an instruction sequence (the body, one iteration), an
 * optional init sequence run once before the unrolled loop, an optional
 * control to compare it with, and an unroll hint.  `pmuboot-host kernel
 * build` assembles a small NASM text file into a kernel file; pmuboot.cfg
 * can also give a body as hex (`kernel.NAME=...`).  docs/kernels.md
 * describes the text file, the register contract and this format.
 *
 * Kernel file, format version 1 (all integers little-endian):
 *   0   4  magic "PMUK"
 *   4   1  format version (UK_FORMAT_VERSION)
 *   5   1  flags, 0 (reserved: a file with a flag set needs a newer reader)
 *   6   1  name length, 1..UK_NAME_MAX
 *   7   1  control length, 0..UK_NAME_MAX (0: no control)
 *   8   2  unroll hint, 0 (the harness's default) or 1..UK_UNROLL_MAX
 *   10  2  init length, 0..UK_INIT_MAX
 *   12  2  body length, 1..UK_BODY_MAX
 *   14  2  reserved, 0
 *   16     name, control, init bytes, body bytes (in that order)
 *   end-4  CRC-32 (lib/crc32.h) of every byte before it
 * The file is exactly that long; anything else is refused, with the
 * reason and the byte offset.  Names are [a-z][a-z0-9_]*; a control is a
 * user kernel's name or a built-in `kernel.variant`.
 */
#ifndef PMUBOOT_BENCH_UKERNEL_H
#define PMUBOOT_BENCH_UKERNEL_H

#include "lib/libc.h"

#define UK_MAGIC "PMUK"
#define UK_MAGIC_LEN 4
#define UK_FORMAT_VERSION 1
#define UK_HEADER_BYTES 16
#define UK_CRC_BYTES 4
#define UK_NAME_MAX 31
#define UK_BODY_MAX 1024
#define UK_INIT_MAX 1024
#define UK_UNROLL_MAX 256
/* Unrolled body bytes the harness will place at most (unroll x body length). */
#define UK_UNROLLED_MAX (64u * 1024)
#define UK_FILE_MAX (UK_HEADER_BYTES + 2 * UK_NAME_MAX + UK_INIT_MAX + UK_BODY_MAX + UK_CRC_BYTES)
/* The unroll used when the file gives none (0). */
#define UK_UNROLL_DEFAULT 8

struct ukernel {
	char name[UK_NAME_MAX + 1];
	char control[UK_NAME_MAX + 1];	/* "" when none */
	uint16_t unroll;		/* 0: UK_UNROLL_DEFAULT */
	uint16_t init_len, body_len;
	uint8_t init[UK_INIT_MAX];
	uint8_t body[UK_BODY_MAX];
};

/* A kernel name: [a-z][a-z0-9_]*, 1..UK_NAME_MAX characters. */
bool ukernel_name_ok(const char *s, size_t len);
/* A control: a kernel name, or a built-in's kernel.variant (two names joined by one '.'). */
bool ukernel_control_ok(const char *s, size_t len);

/*
 * Read a kernel file.  False, with what is wrong and at which byte in why,
 * for anything but a well-formed version-1 file of exactly len bytes; k is
 * then unspecified.
 */
bool ukernel_parse(const uint8_t *buf, size_t len, struct ukernel *k, char *why, size_t why_cap);

/*
 * Write k as a kernel file.  Returns its length, or 0 (with why) when k is
 * not valid or does not fit in cap.  ukernel_parse reads back the same k.
 * Host only (bench/ukernel_encode_host.c): the image reads kernel files.
 */
size_t ukernel_encode(const struct ukernel *k, uint8_t *out, size_t cap, char *why, size_t why_cap);

/* The size limits above (unroll, body, init, unrolled bytes); false with why. */
bool ukernel_limits_ok(const struct ukernel *k, char *why, size_t why_cap);

/*
 * A kernel from a name and its body as hex digits (pmuboot.cfg's
 * `kernel.NAME=HEX`; spaces are not allowed, an optional "0x" is).  No
 * init, no control, the default unroll.
 */
bool ukernel_from_hex(const char *name, size_t name_len, const char *hex, size_t hex_len, struct ukernel *k,
		      char *why, size_t why_cap);

/* The unroll to use: the file's hint, or UK_UNROLL_DEFAULT. */
unsigned ukernel_unroll(const struct ukernel *k);

/* A kernel file as the platform read it (boot medium, host directory), before it is parsed. */
#define UK_WHERE_MAX 96
struct ukernel_file {
	char where[UK_WHERE_MAX];	/* its path, for messages */
	const uint8_t *data;		/* NULL when it could not be read */
	size_t len;
	const char *problem;		/* why it could not be read, or NULL */
};

/* A kernel given as hex in the options (kernel.NAME=HEX). */
struct ukernel_hex {
	const char *name, *hex;
};

/* The user kernels of a run, each with where it came from. */
#define UK_SET_MAX 16
struct ukernel_set {
	struct ukernel *k[UK_SET_MAX];
	char where[UK_SET_MAX][UK_WHERE_MAX];
	size_t n;
};

/*
 * Parse every file and hex kernel into s (storage from lib/heap.h).  A
 * file that cannot be read or parsed, a name given twice, or more than
 * UK_SET_MAX kernels: bad(where, why) is called and the rest go on.
 */
void ukernel_set_build(struct ukernel_set *s, const struct ukernel_file *files, size_t nfiles,
		       const struct ukernel_hex *hex, size_t nhex,
		       void (*bad)(const char *where, const char *why, void *ctx), void *ctx);
/* The kernel called name (without "user."), or NULL. */
const struct ukernel *ukernel_set_find(const struct ukernel_set *s, const char *name, size_t len);

/* bytes as lower-case hex into out (NUL-terminated, cut short to fit cap). */
void ukernel_hex(const uint8_t *bytes, size_t n, char *out, size_t cap);

#endif
