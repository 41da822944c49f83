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
	if (http_efi_call(call, &refused) || !refused || via == HTTP_VIA_EFI)
		return call->status != 0;
	/* Nothing went out: the same request through our own client, with the firmware's reason kept. */
	static char why[HTTP_CALL_WHY];
	snprintf(why, sizeof(why), "%s", call->why);
	call->fallback = why;
	call->why[0] = '\0';
	call->efi_status = EFI_SUCCESS;
	return http_tcp4_call(call);
}
