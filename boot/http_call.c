/* boot/http_call.c - the firmware's HTTP where it serves, else the TCP4 client; see http_call.h. */
#include "boot/http_call.h"

bool http_call(enum http_via via, struct http_call *call)
{
	call->fallback = NULL;
	if (via == HTTP_VIA_TCP4) {
		call->fallback = "tcp4 asked for (upload=...,tcp4)";
		return http_tcp4_call(call);
	}
	bool refused = false;
	bool whole = http_efi_call(call, &refused);
	bool unsized = whole && call->body_unsized && call->rq->method == HTTP_GET;
	enum http_route next = http_route_after_firmware(via, whole, refused, unsized);
	if (next != HTTP_ROUTE_TCP4)
		return next == HTTP_ROUTE_DONE;
	/* The same request through our own client, with the firmware's reason kept. */
	static char why[HTTP_CALL_WHY];
	snprintf(why, sizeof(why), "%s", unsized ? "http: the firmware's HTTP got no Content-Length and cannot show the "
						   "body arrived whole" : call->why);
	call->fallback = why;
	call->why[0] = '\0';
	call->efi_status = EFI_SUCCESS;
	call->status = 0;
	call->body_out = NULL;
	call->body_len = 0;
	call->body_cut = call->body_unsized = false;
	return http_tcp4_call(call);
}
