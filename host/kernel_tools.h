/*
 * host/kernel_tools.h - user kernels on the host: the text file
 * (docs/kernels.md), assembling it with NASM, disassembling with ndisasm,
 * and loading kernel files from a directory.
 */
#ifndef PMUBOOT_HOST_KERNEL_TOOLS_H
#define PMUBOOT_HOST_KERNEL_TOOLS_H

#include "bench/ukernel.h"

/*
 * Assemble the kernel text file at path into k.  On error prints
 * "pmuboot-host kernel: PATH:LINE: message" (or NASM's own messages, which
 * name the same file and line) to stderr and returns false.
 */
bool kt_build(const char *path, struct ukernel *k);

/*
 * ndisasm -b 64 of bytes, one instruction per line as "OFFSET  HEX  TEXT",
 * into out (NUL-terminated).  False, with the reason in out, when ndisasm
 * cannot be run.
 */
bool kt_disasm(const uint8_t *bytes, size_t n, char *out, size_t cap);

/* The instructions only (no offsets or bytes), joined by " / ", for a record. */
bool kt_disasm_brief(const uint8_t *bytes, size_t n, char *out, size_t cap);

/*
 * Every *.pmuk file in dir into files[0..max), sorted by name (data from
 * malloc; an unreadable or oversized file is an entry with data NULL and
 * the problem).  why says what went wrong with the directory itself.
 */
size_t kt_read_dir(const char *dir, struct ukernel_file *files, size_t max, char *why, size_t cap);

#endif
