/*
 * boot/net_fetch.h - a file from the server the image was loaded from:
 * TFTP through the PXE base code after a PXE boot, HTTP GET of a URL beside
 * the boot file's after a UEFI HTTP boot (boot/http_call.h).
 */
#ifndef PMUBOOT_BOOT_NET_FETCH_H
#define PMUBOOT_BOOT_NET_FETCH_H

#include "net/fetch.h"

/*
 * Read name (a path relative to the boot server's root, as the boot file's
 * is) into buf.  Returns its length, NET_FETCH_ABSENT or NET_FETCH_FAILED (net/fetch.h).
 * where: how it was asked for ("tftp://10.0.2.2/pmuboot.cfg").
 */
long net_fetch(const char *name, char *buf, size_t cap, char *where, size_t where_cap, char *why, size_t why_cap);

#endif
