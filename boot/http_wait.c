/* boot/http_wait.c - see http_wait.h. */
#include "boot/http_wait.h"
#include "net/efi_status.h"

#define TOKEN_POLL_US 1000

static VOID EFIAPI set_done(EFI_EVENT ev, VOID *ctx)
{
	(void)ev;
	*(volatile BOOLEAN *)ctx = TRUE;
}

EFI_STATUS http_token_wait_open(struct http_token_wait *w, void (*poll)(void *proto), void *proto)
{
	w->poll = poll;
	w->proto = proto;
	w->done = FALSE;
	EFI_STATUS st = fw_st->BootServices->CreateEvent(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, set_done, (void *)&w->done,
							 &w->ev);
	if (st != EFI_SUCCESS)
		w->ev = NULL;
	return st;
}

bool http_token_wait(struct http_token_wait *w, EFI_EVENT deadline)
{
	while (!w->done) {
		if (fw_deadline_passed(deadline))
			return false;
		w->poll(w->proto);
		fw_stall_us(TOKEN_POLL_US);
	}
	return true;
}

void http_token_wait_close(struct http_token_wait *w)
{
	if (w->ev)
		fw_st->BootServices->CloseEvent(w->ev);
	w->ev = NULL;
}

void http_call_fail(struct http_call *call, EFI_STATUS st, bool retryable, const char *what)
{
	call->efi_status = st;
	call->retryable = retryable;
	snprintf(call->why, sizeof(call->why), "%s: %s (%s)", call->via, what, efi_status_name(st));
}
