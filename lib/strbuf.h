/*
 * lib/strbuf.h - appending formatted text to a fixed buffer.
 *
 * Messages are built piece by piece into fixed buffers, and cutting them
 * short when the buffer is full is intended.  str_appendf says so in one
 * place: it writes at buf[len] what fits (NUL-terminated) and returns the
 * length the text would have, like snprintf, so callers go on while the
 * result is below cap.  A length already at or past cap writes nothing.
 */
#ifndef PMUBOOT_LIB_STRBUF_H
#define PMUBOOT_LIB_STRBUF_H

#include "lib/libc.h"

size_t str_appendf(char *buf, size_t cap, size_t len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
