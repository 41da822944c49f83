/*
 * boot/http_wait.h - what the two HTTP ways (boot/http_efi.c,
 * boot/http_tcp4.c) share: a child of the NIC's service binding, waiting
 * for a token, and saying why an exchange failed.
 */
#ifndef PMUBOOT_BOOT_HTTP_WAIT_H
#define PMUBOOT_BOOT_HTTP_WAIT_H

#include "boot/http_call.h"

/*
 * A token's completion: the firmware signals ev, whose notify function sets
 * done; the wait polls the protocol meanwhile (Poll moves packets sooner
 * than the NIC's 10 ms timer would) until done or the deadline.  The struct must stay put while a
 * token may be pending: the firmware writes done through a pointer to it.
 */
struct http_token_wait {
	EFI_EVENT ev;
	volatile BOOLEAN done;
	void (*poll)(void *proto);
	void *proto;
};
EFI_STATUS http_token_wait_open(struct http_token_wait *w, void (*poll)(void *proto), void *proto);
/* Before handing the firmware a token that signals w->ev. */
static inline void http_token_wait_arm(struct http_token_wait *w) { w->done = FALSE; }
/* True when the token completed; false when the deadline passed first. */
bool http_token_wait(struct http_token_wait *w, EFI_EVENT deadline);
void http_token_wait_close(struct http_token_wait *w);
/*
 * A child of one of the NIC's service bindings (UEFI 2.10 §11.6,
 * EFI_SERVICE_BINDING_PROTOCOL.CreateChild), its protocol, and a token wait
 * polling it.  False, with the failure said in call (naming proto_name,
 * "EFI_TCP4_PROTOCOL"), when one step fails; http_child_close undoes what
 * was done either way, after the caller has aborted its own tokens.
 */
struct http_child {
	EFI_SERVICE_BINDING *sb;
	EFI_HANDLE handle;
	void *proto;
	struct http_token_wait wait;
};
bool http_child_open(struct http_child *c, struct http_call *call, EFI_GUID *sb_guid, EFI_GUID *proto_guid,
		     const char *proto_name, void (*poll)(void *proto));
void http_child_close(struct http_child *c);

/* A failure of the exchange: call->why says it, prefixed by call->via, with the firmware's status in words. */
void http_call_fail(struct http_call *call, EFI_STATUS st, bool retryable, const char *what);

#endif
