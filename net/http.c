/* net/http.c - see http.h. */
#include "net/http.h"
#include "lib/decimal.h"
#include "lib/strbuf.h"

#define SCHEME "http://"
#define SCHEME_LEN 7
#define PORT_MAX 65535u
#define IPV4_OCTET_MAX 255u
#define IPV4_OCTET_DIGITS 3
#define PORT_DIGITS 5
#define STATUS_MIN 100u		/* RFC 9110 §15: three digits, 1xx..5xx */
#define STATUS_MAX 599u
#define STATUS_DIGITS 3
#define STATUS_NO_CONTENT 204u	/* RFC 9110 §15.3.5: never a body */
#define STATUS_NOT_MODIFIED 304u	/* RFC 9110 §15.4.5: never a body */
#define STATUS_REQUEST_TIMEOUT 408u
#define STATUS_TOO_MANY 429u	/* RFC 6585 §4 */
#define CONTENT_LENGTH_MAX 999999999999999ull	/* 15 digits: beyond this a length is no response of ours */
#define CHUNK_SIZE_DIGITS 15

static bool host_char(char c)
{
	return lc_isdigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '.';
}

/* Printable ASCII without space: what a path, a token or a header value may hold here. */
static bool visible(char c)
{
	return c > ' ' && c < 0x7f;
}

/* Dotted quad: four decimal parts of one to three digits, each 0..255. */
static bool parse_ipv4(const char *s, size_t len, uint8_t out[4])
{
	size_t i = 0;
	for (unsigned part = 0; part < 4; part++) {
		uint64_t v;
		size_t end;
		if (part && (i >= len || s[i++] != '.'))
			return false;
		if (dec_parse(s + i, len - i, IPV4_OCTET_MAX, &v, &end) != DEC_OK || end > IPV4_OCTET_DIGITS)
			return false;
		out[part] = (uint8_t)v;
		i += end;
	}
	return i == len;
}

bool http_url_parse(const char *text, size_t len, struct http_url *u, char *why, size_t cap)
{
	memset(u, 0, sizeof(*u));
	u->port = HTTP_DEFAULT_PORT;
	bool scheme = len >= SCHEME_LEN;
	for (size_t i = 0; scheme && i < SCHEME_LEN; i++)
		scheme = lc_tolower((unsigned char)text[i]) == SCHEME[i];
	if (!scheme) {
		bool https = len >= 8 && lc_tolower((unsigned char)text[4]) == 's' && text[5] == ':';
		snprintf(why, cap, "%s", https ? "https:// is not supported (the image has no TLS): use http://"
						: "not an http:// URL (expected http://HOST[:PORT]/PATH)");
		return false;
	}
	const char *p = text + SCHEME_LEN, *end = text + len;
	const char *h = p;
	while (p < end && *p != ':' && *p != '/' && *p != '?' && *p != '#')
		p++;
	size_t hlen = (size_t)(p - h);
	if (hlen == 0) {
		snprintf(why, cap, "the URL has no host");
		return false;
	}
	for (size_t i = 0; i < hlen; i++) {
		if (!host_char(h[i])) {
			snprintf(why, cap, "the host has a character '%c' a host name or IPv4 address cannot "
				 "(IPv6 and user@ are not supported)", visible(h[i]) ? h[i] : '?');
			return false;
		}
	}
	if (hlen >= HTTP_HOST_MAX) {
		snprintf(why, cap, "the host is %zu characters long; at most %d fit", hlen, HTTP_HOST_MAX - 1);
		return false;
	}
	memcpy(u->host, h, hlen);
	u->is_ipv4 = parse_ipv4(h, hlen, u->ipv4);
	if (p < end && *p == ':') {
		uint64_t port = 0;
		size_t used = 0;
		p++;
		enum dec_result r = dec_parse(p, (size_t)(end - p), PORT_MAX, &port, &used);
		p += used;
		if (r != DEC_OK || used > PORT_DIGITS || port == 0 || (p < end && *p != '/')) {
			snprintf(why, cap, "bad port (expected a number 1..65535 after the host's ':')");
			return false;
		}
		u->port = (uint16_t)port;
	}
	if (p < end && *p != '/') {
		snprintf(why, cap, "the URL's path must start with '/'");
		return false;
	}
	size_t plen = (size_t)(end - p);
	for (size_t i = 0; i < plen; i++) {
		if (!visible(p[i]) || p[i] == '#') {
			snprintf(why, cap, "the path has a character that cannot go in a request (space, control or '#')");
			return false;
		}
	}
	if (plen >= HTTP_PATH_MAX) {
		snprintf(why, cap, "the path is %zu characters long; at most %d fit", plen, HTTP_PATH_MAX - 1);
		return false;
	}
	if (plen)
		memcpy(u->path, p, plen);
	else
		u->path[0] = '/';
	return true;
}

size_t http_url_text(const struct http_url *u, char *out, size_t cap)
{
	if (u->port == HTTP_DEFAULT_PORT)
		return (size_t)snprintf(out, cap, SCHEME "%s%s", u->host, u->path);
	return (size_t)snprintf(out, cap, SCHEME "%s:%u%s", u->host, u->port, u->path);
}

bool http_url_sibling(const struct http_url *u, const char *name, struct http_url *out)
{
	*out = *u;
	size_t dir = 0;
	for (size_t i = 0; u->path[i] && u->path[i] != '?'; i++)
		if (u->path[i] == '/')
			dir = i + 1;
	size_t n = strlen(name);
	if (dir + n >= sizeof(out->path))
		return false;
	memcpy(out->path + dir, name, n + 1);
	return true;
}

static const char *const via_names[] = { [HTTP_VIA_AUTO] = "auto", [HTTP_VIA_FIRMWARE] = "http",
					 [HTTP_VIA_TCP4] = "tcp4" };

const char *http_via_name(enum http_via v)
{
	return via_names[v];
}

enum http_route http_route_after_firmware(enum http_via via, bool whole, bool refused, bool unsized_get)
{
	if (whole && !(unsized_get && via == HTTP_VIA_AUTO))
		return HTTP_ROUTE_DONE;
	/* A failure part-way (a body cut short) is no response, whatever its status line said. */
	if (!whole && (!refused || via == HTTP_VIA_FIRMWARE))
		return HTTP_ROUTE_FAILED;
	return HTTP_ROUTE_TCP4;
}

const char *http_method_name(enum http_method m)
{
	return m == HTTP_POST ? "POST" : "GET";
}

static bool header_value_ok(const char *v)
{
	for (; *v; v++)
		if (!visible(*v) && *v != ' ')
			return false;
	return true;
}

static void add_header(struct http_request *rq, const char *name, const char *value)
{
	if (rq->nheaders < HTTP_HEADERS_MAX)
		rq->headers[rq->nheaders++] = (struct http_header){ name, value };
}

bool http_request_prepare(struct http_request *rq, char *why, size_t cap)
{
	const struct http_url *u = rq->url;
	rq->nheaders = 0;
	/* RFC 9110 §7.2: Host is the authority, the port only when it is not the scheme's default. */
	if (u->port == HTTP_DEFAULT_PORT)
		snprintf(rq->host_value, sizeof(rq->host_value), "%s", u->host);
	else
		snprintf(rq->host_value, sizeof(rq->host_value), "%s:%u", u->host, u->port);
	add_header(rq, "Host", rq->host_value);
	if (rq->user_agent)
		add_header(rq, "User-Agent", rq->user_agent);
	if (rq->method == HTTP_POST) {
		if (rq->content_type)
			add_header(rq, "Content-Type", rq->content_type);
		snprintf(rq->length_value, sizeof(rq->length_value), "%llu", (unsigned long long)rq->body_len);
		add_header(rq, "Content-Length", rq->length_value);
	}
	if (rq->token && rq->token[0]) {
		size_t n = strlen(rq->token);
		bool ok = n < HTTP_TOKEN_MAX;
		for (size_t i = 0; ok && i < n; i++)
			ok = visible(rq->token[i]);
		if (!ok) {
			snprintf(why, cap, "the upload token is longer than %d characters or holds a space or control "
				 "character", HTTP_TOKEN_MAX - 1);
			return false;
		}
		snprintf(rq->auth_value, sizeof(rq->auth_value), "Bearer %s", rq->token);
		add_header(rq, "Authorization", rq->auth_value);
	}
	if (rq->extra_name && rq->extra_value) {
		if (!header_value_ok(rq->extra_value)) {
			snprintf(why, cap, "header %s holds a control character", rq->extra_name);
			return false;
		}
		add_header(rq, rq->extra_name, rq->extra_value);
	}
	/* One request per connection: the server's close ends a response that gives no length. */
	add_header(rq, "Connection", "close");
	if (rq->user_agent && !header_value_ok(rq->user_agent)) {
		snprintf(why, cap, "the User-Agent holds a control character");
		return false;
	}
	return true;
}

size_t http_request_head(const struct http_request *rq, char *buf, size_t cap)
{
	size_t k = str_appendf(buf, cap, 0, "%s %s HTTP/1.1\r\n", http_method_name(rq->method), rq->url->path);
	for (size_t i = 0; i < rq->nheaders; i++)
		k = str_appendf(buf, cap, k, "%s: %s\r\n", rq->headers[i].name, rq->headers[i].value);
	k = str_appendf(buf, cap, k, "\r\n");
	return k < cap ? k : 0;
}

/* --- the response --- */

void http_response_init(struct http_response *r, uint8_t *body, size_t body_cap)
{
	memset(r, 0, sizeof(*r));
	r->state = HTTP_R_STATUS;
	r->body = body ? body : r->keep;
	r->body_cap = body ? body_cap : sizeof(r->keep);
}

static void fail(struct http_response *r, const char *why)
{
	r->state = HTTP_R_ERROR;
	r->error = why;
}

/* "HTTP/1.1 201 Created" (RFC 9112 §4); the reason phrase is optional. */
static void status_line(struct http_response *r, const char *s, size_t n)
{
	static const char proto[] = "HTTP/1.";
	size_t plen = sizeof(proto) - 1;
	if (n < plen + 5 || memcmp(s, proto, plen) || !lc_isdigit(s[plen]) || s[plen + 1] != ' ') {
		fail(r, "the response does not start with an HTTP/1.x status line");
		return;
	}
	uint64_t code = 0;
	if (!dec_whole(s + plen + 2, STATUS_DIGITS, STATUS_MAX, &code) || code < STATUS_MIN ||
	    (n > plen + 5 && s[plen + 5] != ' ')) {
		fail(r, "the status line has no three-digit status code");
		return;
	}
	r->minor_version = (unsigned)(s[plen] - '0');
	r->status = (unsigned)code;
	r->state = HTTP_R_HEADERS;
}

bool http_content_length(const char *v, size_t n, uint64_t *out)
{
	return dec_whole(v, n, CONTENT_LENGTH_MAX, out);
}

/* True when the last coding of a Transfer-Encoding list is chunked (RFC 9112 §6.1). */
static bool last_coding_chunked(const char *v, size_t n)
{
	size_t e = n;
	while (e && (v[e - 1] == ' ' || v[e - 1] == '\t'))
		e--;
	size_t b = e;
	while (b && v[b - 1] != ',' && v[b - 1] != ' ' && v[b - 1] != '\t')
		b--;
	return lc_eq_ci_n(v + b, e - b, "chunked");
}

static void header_line(struct http_response *r, const char *s, size_t n)
{
	if (n == 0) {
		/* The end of the headers (RFC 9112 §6.3 decides what follows). */
		if (r->status < 200) {
			r->state = HTTP_R_STATUS;	/* 1xx: an interim response, the real one follows */
			r->have_length = r->chunked = false;
			r->header_lines = 0;
			return;
		}
		if (r->status == STATUS_NO_CONTENT || r->status == STATUS_NOT_MODIFIED)
			r->no_body = true;
		if (r->no_body || (r->have_length && r->content_length == 0 && !r->chunked))
			r->state = HTTP_R_DONE;
		else
			r->state = r->chunked ? HTTP_R_CHUNK_SIZE : HTTP_R_BODY;
		return;
	}
	if (++r->header_lines > HTTP_RESPONSE_HEADERS_MAX) {
		fail(r, "the response has too many header lines");
		return;
	}
	if (s[0] == ' ' || s[0] == '\t') {
		fail(r, "the response folds a header over two lines (obsolete, RFC 9112 §5.2)");
		return;
	}
	size_t colon = 0;
	while (colon < n && s[colon] != ':')
		colon++;
	if (colon == 0 || colon == n) {
		fail(r, "a response header line has no name or no ':'");
		return;
	}
	for (size_t i = 0; i < colon; i++) {
		if (!visible(s[i])) {
			fail(r, "a response header name holds a space or control character");
			return;
		}
	}
	const char *v = s + colon + 1;
	size_t vn = n - colon - 1;
	while (vn && (*v == ' ' || *v == '\t'))
		v++, vn--;
	while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
		vn--;
	if (lc_eq_ci_n(s, colon, "Content-Length")) {
		uint64_t len;
		if (!http_content_length(v, vn, &len)) {
			fail(r, "the response's Content-Length is not a number");
			return;
		}
		if (r->have_length && len != r->content_length) {
			fail(r, "the response gives two different Content-Length values");
			return;
		}
		r->have_length = true;
		r->content_length = len;
	} else if (lc_eq_ci_n(s, colon, "Transfer-Encoding")) {
		if (!last_coding_chunked(v, vn)) {
			fail(r, "the response uses a transfer coding other than chunked");
			return;
		}
		r->chunked = true;
	}
}

static void take_body(struct http_response *r, const uint8_t *p, size_t n)
{
	size_t room = r->body_cap - r->body_len;
	size_t k = n < room ? n : room;
	if (k)
		memcpy(r->body + r->body_len, p, k);
	r->body_len += k;
	if (k < n)
		r->body_cut = true;
	r->body_seen += n;
}

static bool parse_hex(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	for (; i < n && lc_isxdigit(s[i]); i++) {
		if (i >= CHUNK_SIZE_DIGITS)
			return false;
		int c = lc_tolower((unsigned char)s[i]);
		v = v * 16 + (uint64_t)(lc_isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	/* After the digits: nothing, white space, or a chunk extension (RFC 9112 §7.1.1). */
	if (i == 0 || (i < n && s[i] != ';' && s[i] != ' ' && s[i] != '\t'))
		return false;
	*out = v;
	return true;
}

static void chunk_line(struct http_response *r, const char *s, size_t n)
{
	switch (r->state) {
	case HTTP_R_CHUNK_SIZE:
		if (!parse_hex(s, n, &r->chunk_left)) {
			fail(r, "a chunk size in the response is not a hex number");
			return;
		}
		r->state = r->chunk_left ? HTTP_R_CHUNK_DATA : HTTP_R_TRAILER;
		return;
	case HTTP_R_CHUNK_END:
		if (n != 0) {
			fail(r, "a chunk in the response is longer than its size says");
			return;
		}
		r->state = HTTP_R_CHUNK_SIZE;
		return;
	case HTTP_R_TRAILER:
		if (n == 0)
			r->state = HTTP_R_DONE;
		else if (++r->header_lines > HTTP_RESPONSE_HEADERS_MAX)
			fail(r, "the response has too many trailer lines");
		return;
	default:
		return;
	}
}

static bool line_state(enum http_resp_state s)
{
	return s == HTTP_R_STATUS || s == HTTP_R_HEADERS || s == HTTP_R_CHUNK_SIZE || s == HTTP_R_CHUNK_END ||
	       s == HTTP_R_TRAILER;
}

/* One whole line (without its LF, a CR before it dropped) to whichever state wants lines. */
static void whole_line(struct http_response *r)
{
	size_t n = r->line_len;
	if (n && r->line[n - 1] == '\r')
		n--;
	r->line_len = 0;
	if (r->state == HTTP_R_STATUS)
		status_line(r, r->line, n);
	else if (r->state == HTTP_R_HEADERS)
		header_line(r, r->line, n);
	else
		chunk_line(r, r->line, n);
}

size_t http_response_feed(struct http_response *r, const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n && r->state != HTTP_R_DONE && r->state != HTTP_R_ERROR) {
		if (line_state(r->state)) {
			uint8_t c = p[i++];
			if (c == '\n') {
				whole_line(r);
				continue;
			}
			if (c == 0) {
				fail(r, "the response holds a NUL byte in its head");
				break;
			}
			if (r->line_len + 1 >= sizeof(r->line)) {
				fail(r, "a line of the response head is longer than 1024 bytes");
				break;
			}
			r->line[r->line_len++] = (char)c;
			continue;
		}
		size_t take = n - i;
		if (r->state == HTTP_R_CHUNK_DATA && take > r->chunk_left)
			take = (size_t)r->chunk_left;
		if (r->state == HTTP_R_BODY && r->have_length && take > r->content_length - r->body_seen)
			take = (size_t)(r->content_length - r->body_seen);
		take_body(r, p + i, take);
		i += take;
		if (r->state == HTTP_R_CHUNK_DATA) {
			r->chunk_left -= take;
			if (r->chunk_left == 0)
				r->state = HTTP_R_CHUNK_END;
		} else if (r->have_length && r->body_seen == r->content_length) {
			r->state = HTTP_R_DONE;
		}
	}
	return i;
}

void http_response_eof(struct http_response *r)
{
	if (r->state == HTTP_R_DONE || r->state == HTTP_R_ERROR)
		return;
	if (r->state == HTTP_R_BODY && !r->have_length) {
		r->state = HTTP_R_DONE;	/* RFC 9112 §6.3 rule 8: the body runs to the close */
		return;
	}
	if (r->state == HTTP_R_STATUS && r->line_len == 0 && r->status == 0)
		fail(r, "the server closed the connection without a response");
	else if (r->state == HTTP_R_STATUS || r->state == HTTP_R_HEADERS)
		fail(r, "the server closed the connection in the middle of the response head");
	else
		fail(r, "the server closed the connection before the end of the response body");
}

bool http_status_retryable(unsigned status)
{
	return status == STATUS_REQUEST_TIMEOUT || status == STATUS_TOO_MANY || (status >= 500 && status <= 599);
}

/*
 * EFI_HTTP_STATUS_CODE in the order of UEFI 2.10 §29.6 (and edk2's
 * MdePkg/Include/Protocol/Http.h): index 0 is HTTP_STATUS_UNSUPPORTED_STATUS,
 * there is no 306, and 308 was appended last (UEFI 2.8).
 */
static const uint16_t efi_status_codes[] = {
	0, 100, 101, 200, 201, 202, 203, 204, 205, 206, 300, 301, 302, 303, 304, 305, 307,
	400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417,
	500, 501, 502, 503, 504, 505, 308,
};

unsigned http_status_from_efi(unsigned efi_code)
{
	return efi_code < ARRAY_SIZE(efi_status_codes) ? efi_status_codes[efi_code] : 0;
}
