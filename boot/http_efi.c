/*
 * boot/http_efi.c - one request through the firmware's EFI_HTTP_PROTOCOL
 * (UEFI 2.10 ch. 29): a child of the NIC's HTTP service binding,
 * configured for HTTP/1.1 over IPv4, a Request token then Response tokens
 * until the body is in.
 *
 * What edk2's HttpDxe does that shapes this (NetworkPkg/HttpDxe):
 * - it adds no header of its own: Host and Content-Length are ours
 *   (net/http.c puts them in);
 * - Request() opens the TCP connection itself and waits for it, up to
 *   60 s (HTTP_CONNECTION_TIMEOUT) when a host never answers: that wait is
 *   the firmware's, inside the call, and our deadline cannot cut it short;
 * - Configure()'s time-out is stored but not used: every later wait is
 *   ours, and a token still pending at the deadline is cancelled;
 * - the response's status arrives as an index into EFI_HTTP_STATUS_CODE
 *   (net/http.h, http_status_from_efi), codes outside that list as 0;
 * - http:// is refused (EFI_ACCESS_DENIED) when edk2 is built without
 *   PcdAllowHttpConnections: *refused then lets the TCP4 client try.
 */
#include "boot/http_call.h"
#include "boot/http_wait.h"
#include "boot/efi_net.h"
#include "boot/net.h"

#define NO_MAPPING_RETRY_US 100000
#define URL_CHARS HTTP_URL_TEXT_MAX

/*
 * One HTTP child and the token it may have pending.  The token, its message
 * and the request or response data live here, not in the function that
 * hands them to the firmware: a token still pending at a time-out is
 * aborted only in close_child, and the firmware then writes its status
 * (and may have filled the message) - in memory that must still be ours.
 */
struct child {
	struct http_child ch;
	struct efi_http *http;
	struct efi_http_token tok;
	struct efi_http_message msg;
	struct efi_http_request_data req;
	struct efi_http_response_data resp;
};

static void poll_http(void *proto)
{
	struct efi_http *http = proto;
	http->poll(http);
}

static bool open_child(struct child *c, struct http_call *call, bool *refused)
{
	static EFI_GUID sb_guid = EFI_HTTP_SB_GUID;
	static EFI_GUID http_guid = EFI_HTTP_GUID;
	if (!http_child_open(&c->ch, call, &sb_guid, &http_guid, "EFI_HTTP_PROTOCOL", poll_http)) {
		*refused = true;
		return false;
	}
	c->http = c->ch.proto;
	const struct net_state *n = net_probe();
	struct efi_http_v4_access_point ap;
	memset(&ap, 0, sizeof(ap));
	ap.use_default_address = n->addr != NET_ADDR_PXE;
	if (n->addr == NET_ADDR_PXE) {
		memcpy(ap.local_address.Addr, n->station, 4);
		memcpy(ap.local_subnet.Addr, n->mask, 4);
	}
	struct efi_http_config cfg = { EFI_HTTP_VERSION_11, (UINT32)call->timeout_ms, FALSE, { &ap } };
	EFI_STATUS st = c->http->configure(c->http, &cfg);
	if (st != EFI_SUCCESS) {
		*refused = true;
		http_call_fail(call, st, false, "the HTTP instance could not be configured");
		return false;
	}
	return true;
}

static void close_child(struct child *c)
{
	if (c->http) {
		c->http->cancel(c->http, NULL);	/* every token still pending is aborted and signalled */
		c->http->configure(c->http, NULL);
	}
	http_child_close(&c->ch);
}

/*
 * The header fields of a response: the firmware allocates the array and each
 * field's name and value apart (edk2 HttpUtilitiesParse), and the caller
 * frees them all (UEFI 2.10 ch. 29, EFI_HTTP_PROTOCOL.Response: "Headers").
 */
static void free_headers(struct efi_http_message *m)
{
	for (UINTN i = 0; m->headers && i < m->header_count; i++) {
		if (m->headers[i].name)
			fw_st->BootServices->FreePool(m->headers[i].name);
		if (m->headers[i].value)
			fw_st->BootServices->FreePool(m->headers[i].value);
	}
	if (m->headers)
		fw_st->BootServices->FreePool(m->headers);
	m->headers = NULL;
	m->header_count = 0;
}

/* The Content-Length among the headers the firmware returned, or -1. */
static int64_t content_length(const struct efi_http_message *m)
{
	for (UINTN i = 0; m->headers && i < m->header_count; i++) {
		const char *name = (const char *)m->headers[i].name, *v = (const char *)m->headers[i].value;
		if (!name || !v || lc_strcasecmp(name, "Content-Length"))
			continue;
		uint64_t n;
		return http_content_length(v, strlen(v), &n) ? (int64_t)n : -1;
	}
	return -1;
}

static bool send_request(struct child *c, struct http_call *call, EFI_EVENT deadline)
{
	static CHAR16 url16[URL_CHARS];
	static struct efi_http_header hdr[HTTP_HEADERS_MAX];
	char url[URL_CHARS];
	const struct http_request *rq = call->rq;

	http_url_text(rq->url, url, sizeof(url));
	size_t i = 0;
	for (; url[i] && i + 1 < URL_CHARS; i++)
		url16[i] = (CHAR16)(unsigned char)url[i];
	url16[i] = 0;
	for (size_t k = 0; k < rq->nheaders; k++)
		hdr[k] = (struct efi_http_header){ (CHAR8 *)rq->headers[k].name, (CHAR8 *)rq->headers[k].value };
	c->req = (struct efi_http_request_data){ rq->method == HTTP_POST ? EFI_HTTP_METHOD_POST : EFI_HTTP_METHOD_GET,
						 url16 };
	c->msg = (struct efi_http_message){ { .request = &c->req }, rq->nheaders, hdr,
					    rq->method == HTTP_POST ? rq->body_len : 0,
					    rq->method == HTTP_POST ? (void *)call->body : NULL };
	c->tok = (struct efi_http_token){ c->ch.wait.ev, EFI_SUCCESS, &c->msg };
	EFI_STATUS st;
	http_token_wait_arm(&c->ch.wait);
	/* EFI_NO_MAPPING: the station address is still being configured. */
	while ((st = c->http->request(c->http, &c->tok)) == EFI_NO_MAPPING && !fw_deadline_passed(deadline))
		fw_stall_us(NO_MAPPING_RETRY_US);
	if (st != EFI_SUCCESS) {
		/* Refused before the request went out: connection refused or reset count as the server's answer. */
		http_call_fail(call, st, st != EFI_ACCESS_DENIED && st != EFI_UNSUPPORTED && st != EFI_INVALID_PARAMETER,
		     st == EFI_ACCESS_DENIED ? "the firmware refuses http:// requests" : "the request could not be made");
		return false;
	}
	if (!http_token_wait(&c->ch.wait, deadline)) {
		http_call_fail(call, EFI_TIMEOUT, true, "the request was not sent before the time-out");
		return false;
	}
	if (c->tok.status != EFI_SUCCESS) {
		http_call_fail(call, c->tok.status, true, "sending the request failed");
		return false;
	}
	return true;
}

static bool read_response(struct child *c, struct http_call *call, EFI_EVENT deadline)
{
	uint8_t *buf = call->resp_body ? call->resp_body : call->keep;
	size_t cap = call->resp_body ? call->resp_cap : sizeof(call->keep);
	c->resp = (struct efi_http_response_data){ 0 };
	c->msg = (struct efi_http_message){ { .response = &c->resp }, 0, NULL, cap, buf };
	c->tok = (struct efi_http_token){ c->ch.wait.ev, EFI_SUCCESS, &c->msg };

	http_token_wait_arm(&c->ch.wait);
	EFI_STATUS st = c->http->response(c->http, &c->tok);
	if (st == EFI_SUCCESS && !http_token_wait(&c->ch.wait, deadline)) {
		http_call_fail(call, EFI_TIMEOUT, true, "no response before the time-out");
		return false;
	}
	if (st == EFI_SUCCESS)
		st = c->tok.status;
	/* EFI_HTTP_ERROR: a whole response whose status is an error; the status says which. */
	if (st == EFI_TIMEOUT) {
		/* HttpDxe gives up on a silent server itself (PcdHttpIoTimeout, 5 s in edk2). */
		http_call_fail(call, st, true, "no response before the firmware's own time-out");
		return false;
	}
	if (st != EFI_SUCCESS && st != EFI_NET_HTTP_ERROR) {
		http_call_fail(call, st, true, "reading the response failed");
		return false;
	}
	call->status = http_status_from_efi(c->resp.status_code);
	int64_t want = content_length(&c->msg);
	size_t got = c->msg.body_length <= cap ? c->msg.body_length : cap;
	free_headers(&c->msg);
	if (!call->status) {
		snprintf(call->why, sizeof(call->why), "http: the firmware could not name the response's status (a code "
			 "outside UEFI's EFI_HTTP_STATUS_CODE list)");
		call->retryable = true;
		return false;
	}
	/* More body: Response again with no status to fill (UEFI 2.10 ch. 29, EFI_HTTP_PROTOCOL.Response). */
	while (want > 0 && got < (uint64_t)want && got < cap) {
		c->msg = (struct efi_http_message){ { .response = NULL }, 0, NULL, cap - got, buf + got };
		c->tok = (struct efi_http_token){ c->ch.wait.ev, EFI_SUCCESS, &c->msg };
		http_token_wait_arm(&c->ch.wait);
		st = c->http->response(c->http, &c->tok);
		if (st == EFI_SUCCESS && !http_token_wait(&c->ch.wait, deadline)) {
			http_call_fail(call, EFI_TIMEOUT, true, "the response body did not arrive before the time-out");
			return false;
		}
		if (st == EFI_SUCCESS)
			st = c->tok.status;
		if (st != EFI_SUCCESS || c->msg.body_length == 0) {
			http_call_fail(call, st != EFI_SUCCESS ? st : EFI_END_OF_FILE, true, "the response body was cut short");
			return false;
		}
		got += c->msg.body_length <= cap - got ? c->msg.body_length : cap - got;
	}
	call->body_out = buf;
	call->body_len = got;
	call->body_cut = want > 0 && (uint64_t)want > got;
	call->body_unsized = want < 0;
	return true;
}

bool http_efi_call(struct http_call *call, bool *refused)
{
	struct child c;
	*refused = false;
	call->via = "http";
	memset(&c, 0, sizeof(c));
	EFI_EVENT deadline = fw_deadline(call->timeout_ms);
	bool ok = open_child(&c, call, refused) && send_request(&c, call, deadline) && read_response(&c, call, deadline);
	if (!ok && !*refused && call->efi_status == EFI_ACCESS_DENIED)
		*refused = true;	/* http:// not allowed: nothing was sent */
	close_child(&c);
	fw_deadline_end(deadline);
	return ok;
}
