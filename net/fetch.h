/*
 * net/fetch.h - what a file fetched from the boot server came to (the
 * portable half of boot/net_fetch.c, which talks TFTP through the PXE base
 * code and HTTP through boot/http_call.h): the file's length, absent, or
 * failed with the reason in words.
 */
#ifndef PMUBOOT_NET_FETCH_H
#define PMUBOOT_NET_FETCH_H

#include "lib/libc.h"

#define NET_FETCH_ABSENT (-1)	/* the server has no such file */
#define NET_FETCH_FAILED (-2)	/* anything else: why says what */

/* RFC 1350 §5 error codes. */
#define TFTP_ERROR_UNDEFINED 0	/* "Not defined, see error message" */
#define TFTP_ERROR_NOT_FOUND 1	/* "File not found" */

/*
 * A TFTP error that means the file is not there: code 1, or code 0 with a
 * message saying so ("not found", "no such", any case).  edk2's PXE base
 * code keeps only the low byte of the code as it arrived in network order
 * (UefiPxeBcDxe: (UINT8) Packet->Error.ErrorCode), so every code below 256
 * reads 0 there: the server's message says the rest.  msg: len bytes, NUL
 * ends it earlier.
 */
bool fetch_tftp_absent(unsigned code, const char *msg, size_t len);

/*
 * A GET's answer for a file read into cap bytes (one kept for a NUL):
 * status, unsized (the firmware's HTTP got no Content-Length), cut (the
 * body was longer than the room), len bytes received.  The length, or
 * NET_FETCH_ABSENT, or NET_FETCH_FAILED with why.
 */
long fetch_http_result(unsigned status, bool unsized, bool cut, size_t len, size_t cap, char *why, size_t why_cap);

#endif
