/*
 * lib/json.h - JSON string escaping.
 *
 * Strings reach the records from firmware (vendor names, file paths), from
 * CPUID (brand strings with odd bytes) and from users (option values).  The
 * escaper makes any byte sequence a valid JSON string of pure ASCII: quote,
 * backslash and control characters are escaped, and bytes >= 0x80 become
 * \u00XX (read as Latin-1), so a capture stays valid whatever the source.
 */
#ifndef PMUBOOT_LIB_JSON_H
#define PMUBOOT_LIB_JSON_H

#include "lib/libc.h"

/*
 * Write the escaped form of s[0..len) (without surrounding quotes) into
 * dst[0..cap).  Returns the number of bytes the full escape needs; if that
 * is >= cap nothing useful was written beyond cap-1 and dst is still
 * NUL-terminated when cap > 0.
 */
size_t json_escape(char *dst, size_t cap, const char *s, size_t len);

#endif
