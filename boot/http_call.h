/*
 * boot/http_call.h - one HTTP request and its response through the
 * firmware's network stack.
 *
 * Two ways, the same request (net/http.h builds its headers):
 *   "http"  EFI_HTTP_PROTOCOL (boot/http_efi.c): the firmware's own HTTP
 *           client, where the NIC has its service binding (edk2's HttpDxe;
 *           Debian's OVMF has it);
 *   "tcp4"  the project's HTTP/1.1 client over EFI_TCP4_PROTOCOL
 *           (boot/http_tcp4.c), for firmware without EFI_HTTP_PROTOCOL or
 *           where it refuses http:// (edk2 built without
 *           PcdAllowHttpConnections answers EFI_ACCESS_DENIED).
 * http_call() takes the firmware's where it can and falls back to tcp4
 * when it is missing or refuses before anything was sent, and for a GET
 * whose response had no Content-Length (chunked or ended by closing: the
 * firmware's HTTP hands over what it has without saying whether that is
 * all; tcp4 reads either to its end).  Every wait is
 * bounded by call->timeout_ms (a firmware timer, fw_deadline); what is
 * still pending then is cancelled and the child destroyed.
 */
#ifndef PMUBOOT_BOOT_HTTP_CALL_H
#define PMUBOOT_BOOT_HTTP_CALL_H

#include "boot/boot.h"
#include "net/http.h"

#define HTTP_CALL_WHY 192

struct http_call {
	/* In. */
	struct http_request *rq;	/* prepared (http_request_prepare) */
	const void *body;		/* POST: rq->body_len bytes */
	uint8_t *resp_body;		/* where the response body goes; NULL keeps its first bytes only */
	size_t resp_cap;
	uint64_t timeout_ms;
	/* Out. */
	const char *via;		/* "http" or "tcp4": the way that answered (or failed last) */
	const char *fallback;		/* why the firmware's HTTP was not used, when it was not */
	unsigned status;		/* the HTTP status; 0: no response */
	uint8_t *body_out;		/* the response body (resp_body, or a short copy) */
	size_t body_len;
	bool body_cut;			/* the body was longer than the room for it */
	bool body_unsized;		/* the firmware's HTTP got no Content-Length: it cannot show the body is whole */
	bool retryable;			/* a failure another attempt may not have (no answer, a reset, 5xx) */
	EFI_STATUS efi_status;		/* the firmware's status behind a failure */
	char why[HTTP_CALL_WHY];	/* no response, or a damaged one: what happened, in words */
	uint8_t keep[HTTP_BODY_KEEP];
};

/* One exchange; true when a whole response arrived (any status: the caller judges it). */
bool http_call(enum http_via via, struct http_call *call);

/* The two ways (boot/http_efi.c, boot/http_tcp4.c).  http_efi_call sets *refused when the firmware's
 * HTTP is missing or refused before anything went out (then tcp4 may be tried). */
bool http_efi_call(struct http_call *call, bool *refused);
bool http_tcp4_call(struct http_call *call);

#endif
