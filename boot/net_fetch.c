/* boot/net_fetch.c - see net_fetch.h. */
#include "boot/net_fetch.h"
#include "boot/http_call.h"
#include "boot/net.h"
#include "version.h"

#define FETCH_TIMEOUT_MS 10000u

/* The server said the file is not there (net/fetch.h says how that is told). */
static bool tftp_absent(const EFI_PXE_BASE_CODE_MODE *m)
{
	return m->TftpErrorReceived && fetch_tftp_absent(m->TftpError.ErrorCode, (const char *)m->TftpError.ErrorString,
							 sizeof(m->TftpError.ErrorString));
}

static long tftp(const struct net_state *n, const char *name, char *buf, size_t cap, char *why, size_t why_cap)
{
	EFI_PXE_BASE_CODE *pxe = n->pxe;
	EFI_IP_ADDRESS server;
	UINT64 size = 0;

	if (!n->have_server) {
		snprintf(why, why_cap, "the DHCP answer names no boot server");
		return NET_FETCH_FAILED;
	}
	memset(&server, 0, sizeof(server));
	memcpy(server.v4.Addr, n->server, 4);
	/* The size first: a missing file is then told apart from a failed read by the server's own error. */
	EFI_STATUS st = pxe->Mtftp(pxe, EFI_PXE_BASE_CODE_TFTP_GET_FILE_SIZE, NULL, FALSE, &size, NULL, &server,
				   (UINT8 *)name, NULL, FALSE);
	if (st == EFI_NOT_FOUND || (st == EFI_TFTP_ERROR && tftp_absent(pxe->Mode)))
		return NET_FETCH_ABSENT;
	bool sized = st == EFI_SUCCESS;
	if (sized && size >= cap) {
		snprintf(why, why_cap, "%llu bytes is more than the %zu KiB pmuboot reads", (unsigned long long)size,
			 cap / 1024);
		return NET_FETCH_FAILED;
	}
	if (!sized && st != EFI_UNSUPPORTED) {
		if (st == EFI_TFTP_ERROR && pxe->Mode->TftpErrorReceived)
			snprintf(why, why_cap, "the TFTP server answered: %.80s", pxe->Mode->TftpError.ErrorString);
		else
			snprintf(why, why_cap, "TFTP failed (%s)", efi_status_name(st));
		return NET_FETCH_FAILED;
	}
	/* iPXE's PXE base code has no size query (EFI_UNSUPPORTED) and reports the buffer's size on a read. */
	memset(buf, 0, cap);
	UINT64 len = cap - 1;
	st = pxe->Mtftp(pxe, EFI_PXE_BASE_CODE_TFTP_READ_FILE, buf, FALSE, &len, NULL, &server, (UINT8 *)name, NULL,
			FALSE);
	if (st == EFI_NOT_FOUND || (st == EFI_TFTP_ERROR && tftp_absent(pxe->Mode)))
		return NET_FETCH_ABSENT;
	if (st != EFI_SUCCESS) {
		snprintf(why, why_cap, "TFTP read failed (%s)", efi_status_name(st));
		return NET_FETCH_FAILED;
	}
	if (!sized || len > cap - 1)
		len = strlen(buf);
	return (long)len;
}

static long http_get(const struct net_state *n, const char *name, char *buf, size_t cap, char *where,
		     size_t where_cap, char *why, size_t why_cap)
{
	static struct http_request rq;
	static struct http_call call;
	struct http_url url;

	if (!n->boot_url.host[0]) {
		snprintf(why, why_cap, "the boot URL is not an http:// URL pmuboot can use");
		return NET_FETCH_FAILED;
	}
	if (!http_url_sibling(&n->boot_url, name, &url)) {
		snprintf(why, why_cap, "the URL beside the boot file is too long");
		return NET_FETCH_FAILED;
	}
	http_url_text(&url, where, where_cap);
	if (!net_ready(NET_DHCP_WAIT_MS, why, why_cap))
		return NET_FETCH_FAILED;
	memset(&rq, 0, sizeof(rq));
	rq.method = HTTP_GET;
	rq.url = &url;
	rq.user_agent = "pmuboot/" PMUBOOT_VERSION;
	if (!http_request_prepare(&rq, why, why_cap))
		return NET_FETCH_FAILED;
	memset(&call, 0, sizeof(call));
	call.rq = &rq;
	call.resp_body = (uint8_t *)buf;
	call.resp_cap = cap - 1;
	call.timeout_ms = FETCH_TIMEOUT_MS;
	if (!http_call(HTTP_VIA_AUTO, &call)) {
		snprintf(why, why_cap, "%s", call.why);
		return NET_FETCH_FAILED;
	}
	long len = fetch_http_result(call.status, call.body_unsized, call.body_cut, call.body_len, cap, why, why_cap);
	if (len >= 0)
		buf[len] = '\0';
	return len;
}

long net_fetch(const char *name, char *buf, size_t cap, char *where, size_t where_cap, char *why, size_t why_cap)
{
	const struct net_state *n = net_probe();
	char ip[16];
	why[0] = '\0';
	if (n->boot == NET_BOOT_PXE) {
		net_ip_text(n->server, ip, sizeof(ip));
		snprintf(where, where_cap, "tftp://%s/%s", ip, name);
		return tftp(n, name, buf, cap, why, why_cap);
	}
	if (n->boot == NET_BOOT_HTTP)
		return http_get(n, name, buf, cap, where, where_cap, why, why_cap);
	snprintf(where, where_cap, "%s", name);
	snprintf(why, why_cap, "the image was not loaded over the network");
	return NET_FETCH_FAILED;
}
