/* boot/http_wait.c - see http_wait.h. */
#include "boot/http_wait.h"
#include "boot/net.h"
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

bool http_child_open(struct http_child *c, struct http_call *call, EFI_GUID *sb_guid, EFI_GUID *proto_guid,
		     const char *proto_name, void (*poll)(void *proto))
{
	static const char *const failed_step[] = {
		"the network interface has no %s service",
		"the firmware made no %s instance",
		"the %s instance cannot be used",
	};
	char what[HTTP_CALL_WHY];
	unsigned step = 0;
	EFI_STATUS st = EFI_UNSUPPORTED;
	memset(c, 0, sizeof(*c));
	c->sb = net_service_binding(sb_guid);
	if (c->sb) {
		step = 1;
		st = c->sb->CreateChild(c->sb, &c->handle);
		if (st != EFI_SUCCESS)
			c->handle = NULL;
	}
	if (st == EFI_SUCCESS) {
		step = 2;
		st = fw_st->BootServices->HandleProtocol(c->handle, proto_guid, &c->proto);
		if (st == EFI_SUCCESS)
			st = http_token_wait_open(&c->wait, poll, c->proto);
		else
			c->proto = NULL;
	}
	if (st == EFI_SUCCESS)
		return true;
	snprintf(what, sizeof(what), failed_step[step], proto_name);
	http_call_fail(call, st, false, what);
	return false;
}

void http_child_close(struct http_child *c)
{
	if (c->handle)
		c->sb->DestroyChild(c->sb, c->handle);
	c->handle = NULL;
	http_token_wait_close(&c->wait);
}

void http_call_fail(struct http_call *call, EFI_STATUS st, bool retryable, const char *what)
{
	call->efi_status = st;
	call->retryable = retryable;
	snprintf(call->why, sizeof(call->why), "%s: %s (%s)", call->via, what, efi_status_name(st));
}
