/*
 * boot/http_tcp4.c - the project's HTTP/1.1 client over EFI_TCP4_PROTOCOL
 * (UEFI 2.10 ch. 28): one connection per request ("Connection: close"),
 * the request written by net/http.c, the response read by its parser.
 *
 * Each token is waited for by http_token_wait (boot/http_call.h), until
 * it completes or the call's deadline passes.  Whatever happens,
 * Configure(NULL) aborts what is still pending before the child goes, so
 * no token of ours outlives this call.
 */
#include "boot/http_call.h"
#include "boot/http_wait.h"
#include "boot/net.h"

#define TCP_TTL 64		/* RFC 1700's recommended default TTL */
#define NO_MAPPING_RETRY_US 100000	/* the station address is still being configured */
#define RECV_CHUNK 4096
#define SEND_CHUNK (64u * 1024u)
#define CLOSE_WAIT_MS 250	/* a polite close; the reset in Configure(NULL) follows regardless */
#define HEAD_MAX 2048

struct conn {
	struct http_child ch;
	EFI_TCP4 *tcp;
	EFI_EVENT deadline;
};

static void poll_tcp(void *proto)
{
	EFI_TCP4 *tcp = proto;
	tcp->Poll(tcp);
}

static bool open_conn(struct conn *c, struct http_call *call)
{
	static EFI_GUID sb_guid = EFI_TCP4_SERVICE_BINDING_PROTOCOL;
	static EFI_GUID tcp_guid = EFI_TCP4_PROTOCOL;
	if (!http_child_open(&c->ch, call, &sb_guid, &tcp_guid, "EFI_TCP4_PROTOCOL", poll_tcp))
		return false;
	c->tcp = c->ch.proto;
	return true;
}

static void close_conn(struct conn *c, bool polite)
{
	if (c->tcp && polite) {
		EFI_TCP4_CLOSE_TOKEN close = { { c->ch.wait.ev, EFI_SUCCESS }, FALSE };
		http_token_wait_arm(&c->ch.wait);
		if (c->tcp->Close(c->tcp, &close) == EFI_SUCCESS) {
			EFI_EVENT d = fw_deadline(CLOSE_WAIT_MS);
			http_token_wait(&c->ch.wait, d);
			fw_deadline_end(d);
		}
	}
	if (c->tcp)
		c->tcp->Configure(c->tcp, NULL);	/* aborts every token still pending, signalling it */
	http_child_close(&c->ch);
}

static bool configure(struct conn *c, struct http_call *call)
{
	const struct net_state *n = net_probe();
	const struct http_url *u = call->rq->url;
	EFI_TCP4_CONFIG_DATA cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.TimeToLive = TCP_TTL;
	cfg.AccessPoint.UseDefaultAddress = n->addr != NET_ADDR_PXE;
	if (n->addr == NET_ADDR_PXE) {
		memcpy(cfg.AccessPoint.StationAddress.Addr, n->station, 4);
		memcpy(cfg.AccessPoint.SubnetMask.Addr, n->mask, 4);
	}
	memcpy(cfg.AccessPoint.RemoteAddress.Addr, u->ipv4, 4);
	cfg.AccessPoint.RemotePort = u->port;
	cfg.AccessPoint.ActiveFlag = TRUE;
	EFI_STATUS st;
	/* EFI_NO_MAPPING: the default address is still on its way (DHCP, address conflict detection). */
	while ((st = c->tcp->Configure(c->tcp, &cfg)) == EFI_NO_MAPPING && !fw_deadline_passed(c->deadline))
		fw_stall_us(NO_MAPPING_RETRY_US);
	if (st != EFI_SUCCESS) {
		http_call_fail(call, st, st == EFI_NO_MAPPING, "the TCP4 instance could not be configured");
		return false;
	}
	/* An explicit (PXE) address has no routes of its own: the DHCP answer's router reaches other subnets. */
	if (n->addr == NET_ADDR_PXE && n->have_gateway && !net_on_link(u->ipv4)) {
		EFI_IPv4_ADDRESS any = { { 0, 0, 0, 0 } }, gw;
		memcpy(gw.Addr, n->gateway, 4);
		c->tcp->Routes(c->tcp, FALSE, &any, &any, &gw);
	}
	return true;
}

static bool tcp_connect(struct conn *c, struct http_call *call)
{
	EFI_TCP4_CONNECTION_TOKEN tok = { { c->ch.wait.ev, EFI_SUCCESS } };
	http_token_wait_arm(&c->ch.wait);
	EFI_STATUS st = c->tcp->Connect(c->tcp, &tok);
	if (st != EFI_SUCCESS) {
		http_call_fail(call, st, true, "connect refused by the firmware");
		return false;
	}
	if (!http_token_wait(&c->ch.wait, c->deadline)) {
		http_call_fail(call, EFI_TIMEOUT, true, "no connection before the time-out");
		return false;
	}
	if (tok.CompletionToken.Status != EFI_SUCCESS) {
		http_call_fail(call, tok.CompletionToken.Status, true, "could not connect");
		return false;
	}
	return true;
}

static bool send_bytes(struct conn *c, struct http_call *call, const uint8_t *p, size_t n)
{
	while (n) {
		UINT32 k = n > SEND_CHUNK ? SEND_CHUNK : (UINT32)n;
		EFI_TCP4_TRANSMIT_DATA tx;
		memset(&tx, 0, sizeof(tx));
		tx.Push = TRUE;
		tx.DataLength = k;
		tx.FragmentCount = 1;
		tx.FragmentTable[0].FragmentLength = k;
		tx.FragmentTable[0].FragmentBuffer = (void *)p;
		EFI_TCP4_IO_TOKEN tok = { { c->ch.wait.ev, EFI_SUCCESS }, { .TxData = &tx } };
		http_token_wait_arm(&c->ch.wait);
		EFI_STATUS st = c->tcp->Transmit(c->tcp, &tok);
		if (st != EFI_SUCCESS) {
			http_call_fail(call, st, true, "sending the request failed");
			return false;
		}
		if (!http_token_wait(&c->ch.wait, c->deadline)) {
			http_call_fail(call, EFI_TIMEOUT, true, "the request was not sent before the time-out");
			return false;
		}
		if (tok.CompletionToken.Status != EFI_SUCCESS) {
			http_call_fail(call, tok.CompletionToken.Status, true, "sending the request failed");
			return false;
		}
		p += k;
		n -= k;
	}
	return true;
}

static bool receive(struct conn *c, struct http_call *call, struct http_response *resp)
{
	static uint8_t buf[RECV_CHUNK];
	while (!http_response_done(resp) && !http_response_failed(resp)) {
		EFI_TCP4_RECEIVE_DATA rx;
		memset(&rx, 0, sizeof(rx));
		rx.DataLength = sizeof(buf);
		rx.FragmentCount = 1;
		rx.FragmentTable[0].FragmentLength = sizeof(buf);
		rx.FragmentTable[0].FragmentBuffer = buf;
		EFI_TCP4_IO_TOKEN tok = { { c->ch.wait.ev, EFI_SUCCESS }, { .RxData = &rx } };
		http_token_wait_arm(&c->ch.wait);
		EFI_STATUS st = c->tcp->Receive(c->tcp, &tok);
		if (st == EFI_SUCCESS && !http_token_wait(&c->ch.wait, c->deadline)) {
			http_call_fail(call, EFI_TIMEOUT, true, "no complete response before the time-out");
			return false;
		}
		if (st == EFI_SUCCESS)
			st = tok.CompletionToken.Status;
		if (st == EFI_CONNECTION_FIN) {
			http_response_eof(resp);
			break;
		}
		if (st != EFI_SUCCESS) {
			http_call_fail(call, st, true, "reading the response failed");
			return false;
		}
		size_t got = rx.DataLength <= sizeof(buf) ? rx.DataLength : sizeof(buf);
		http_response_feed(resp, buf, got);
	}
	if (http_response_failed(resp)) {
		call->retryable = true;
		snprintf(call->why, sizeof(call->why), "tcp4: the response cannot be read: %s", resp->error);
		return false;
	}
	return true;
}

bool http_tcp4_call(struct http_call *call)
{
	static struct http_response resp;
	static char head[HEAD_MAX];
	struct conn c;

	call->via = "tcp4";
	if (!call->rq->url->is_ipv4) {
		snprintf(call->why, sizeof(call->why),
			 "tcp4: the URL's host is a name; this client needs an IPv4 address (it does not use DNS)");
		call->retryable = false;
		return false;
	}
	size_t hlen = http_request_head(call->rq, head, sizeof(head));
	if (!hlen) {
		snprintf(call->why, sizeof(call->why), "tcp4: the request head is over %d bytes", HEAD_MAX);
		return false;
	}
	memset(&c, 0, sizeof(c));
	c.deadline = fw_deadline(call->timeout_ms);
	http_response_init(&resp, call->resp_body, call->resp_cap);
	bool ok = open_conn(&c, call) && configure(&c, call) && tcp_connect(&c, call) &&
		  send_bytes(&c, call, (const uint8_t *)head, hlen) &&
		  (call->rq->method != HTTP_POST || send_bytes(&c, call, call->body, call->rq->body_len)) &&
		  receive(&c, call, &resp);
	close_conn(&c, ok);
	fw_deadline_end(c.deadline);
	if (!ok)
		return false;
	call->status = resp.status;
	call->body_cut = resp.body_cut;
	call->body_len = resp.body_len;
	if (call->resp_body) {
		call->body_out = call->resp_body;
	} else {
		memcpy(call->keep, resp.keep, resp.body_len);
		call->body_out = call->keep;
	}
	return true;
}
