/*
 * net/http.h - HTTP/1.1 as bytes: the upload URL, the request head, and a
 * response parser that takes the bytes as they arrive.
 *
 * The image uploads its records through the firmware's EFI_HTTP_PROTOCOL
 * where there is one, otherwise through its own client over
 * EFI_TCP4_PROTOCOL (boot/http_tcp4.c).  Both send the same headers, built
 * here; the TCP4 client also writes the request line and reads the
 * response with this parser.  Nothing here calls the firmware, so the
 * unit tests and the fuzzer (tests/fuzz/fuzz_http.c) drive it with canned
 * bytes.
 *
 * Sources: RFC 9110 (HTTP semantics: status codes §15, Content-Length
 * §8.6, Authorization §11.6.2), RFC 9112 (HTTP/1.1: request line §3,
 * status line §4, field syntax §5, message body length §6.3, chunked
 * coding §7.1), RFC 3986 (URI syntax, §3.2 authority), RFC 6750 §2.1
 * (the Bearer scheme).
 */
#ifndef PMUBOOT_NET_HTTP_H
#define PMUBOOT_NET_HTTP_H

#include "lib/libc.h"

#define HTTP_DEFAULT_PORT 80	/* RFC 9110 §4.2.1 */
#define HTTP_HOST_MAX 128
#define HTTP_PATH_MAX 256
/* Room for a URL as text (http_url_text): "http://", the host, ":65535", the path and its NUL. */
#define HTTP_URL_TEXT_MAX (HTTP_HOST_MAX + HTTP_PATH_MAX + 16)
#define HTTP_LINE_MAX 1024	/* a status, header or chunk-size line longer than this is refused */
#define HTTP_HEADERS_MAX 8	/* headers a request carries */
#define HTTP_RESPONSE_HEADERS_MAX 100	/* header lines a response may have */
#define HTTP_BODY_KEEP 256	/* response bytes kept when the caller gives no buffer */
#define HTTP_TOKEN_MAX 256

/* An http:// URL: host (a name or a dotted IPv4 address), port and path. */
struct http_url {
	char host[HTTP_HOST_MAX];
	uint16_t port;
	bool is_ipv4;
	uint8_t ipv4[4];	/* when is_ipv4 */
	char path[HTTP_PATH_MAX];	/* from the first '/' on ("/" when the URL has none), query included */
};

/* Parse text[0..len) as http://HOST[:PORT][/PATH]; false with why on anything else. */
bool http_url_parse(const char *text, size_t len, struct http_url *u, char *why, size_t cap);
/* The URL back as text, "http://host[:port]/path". */
size_t http_url_text(const struct http_url *u, char *out, size_t cap);
/* The URL of name beside the file the URL names: "http://h/a/b.efi" + "x.cfg" -> "http://h/a/x.cfg". */
bool http_url_sibling(const struct http_url *u, const char *name, struct http_url *out);

enum http_method { HTTP_GET, HTTP_POST };

/*
 * Which client carries a request (boot/http_call.h): the firmware's
 * EFI_HTTP_PROTOCOL where it serves, else the project's own over
 * EFI_TCP4_PROTOCOL (auto); or only one of them (upload=...,http|tcp4).
 */
enum http_via { HTTP_VIA_AUTO, HTTP_VIA_FIRMWARE, HTTP_VIA_TCP4 };
/* "auto", "http", "tcp4": the words of the upload= option. */
const char *http_via_name(enum http_via v);

/*
 * After the firmware's HTTP tried a request: whole, a whole response came;
 * refused, it was missing or refused before anything was sent;
 * unsized_get, the request was a GET whose response gave no
 * Content-Length (the firmware's HTTP cannot show such a body is whole;
 * a GET is asked again without harm).  What to do next.
 */
enum http_route { HTTP_ROUTE_DONE, HTTP_ROUTE_FAILED, HTTP_ROUTE_TCP4 };
enum http_route http_route_after_firmware(enum http_via via, bool whole, bool refused, bool unsized_get);

struct http_header {
	const char *name, *value;
};

/*
 * A request: the caller fills the first fields, http_request_prepare
 * fills the headers (they point into the struct, so it must stay put).
 */
struct http_request {
	enum http_method method;
	const struct http_url *url;
	const char *user_agent;
	const char *content_type;	/* POST only; NULL: none */
	const char *token;		/* NULL or "": no Authorization header */
	const char *extra_name, *extra_value;	/* one more header, or NULL */
	uint64_t body_len;		/* POST: the body's length (Content-Length) */
	/* Filled by http_request_prepare. */
	char host_value[HTTP_HOST_MAX + 8];
	char length_value[24];
	char auth_value[HTTP_TOKEN_MAX + 8];
	struct http_header headers[HTTP_HEADERS_MAX];
	size_t nheaders;
};

/* Fill rq->headers (Host, User-Agent, Content-Type, Content-Length, Authorization, extra, Connection: close).
 * False with why when a value could not go in a header (a control character, too long). */
bool http_request_prepare(struct http_request *rq, char *why, size_t cap);
/* The request line, the headers and the blank line into buf; the length, or 0 when it does not fit. */
size_t http_request_head(const struct http_request *rq, char *buf, size_t cap);
const char *http_method_name(enum http_method m);

enum http_resp_state {
	HTTP_R_STATUS, HTTP_R_HEADERS, HTTP_R_BODY, HTTP_R_CHUNK_SIZE, HTTP_R_CHUNK_DATA, HTTP_R_CHUNK_END,
	HTTP_R_TRAILER, HTTP_R_DONE, HTTP_R_ERROR
};

/* A response read incrementally: feed it the bytes as they come, then tell it when the peer closed. */
struct http_response {
	enum http_resp_state state;
	unsigned status;		/* 100..599 once the status line is read */
	unsigned minor_version;		/* HTTP/1.x */
	bool have_length, chunked, no_body;
	uint64_t content_length;
	uint64_t body_seen;		/* body bytes received (chunked: decoded) */
	uint64_t chunk_left;
	unsigned header_lines;
	/* Where the body goes: the caller's buffer, or keep[] (the first HTTP_BODY_KEEP bytes). */
	uint8_t *body;
	size_t body_cap, body_len;
	bool body_cut;			/* more body arrived than body_cap */
	uint8_t keep[HTTP_BODY_KEEP];
	char line[HTTP_LINE_MAX];
	size_t line_len;
	const char *error;		/* state HTTP_R_ERROR: why, in words */
};

/* Start reading a response; body NULL keeps the first HTTP_BODY_KEEP bytes of it. */
void http_response_init(struct http_response *r, uint8_t *body, size_t body_cap);
/* Take n bytes; returns how many were used (the rest follow the response and are not its). */
size_t http_response_feed(struct http_response *r, const uint8_t *p, size_t n);
/* The peer closed the connection: ends a body that runs to the close, or is an error. */
void http_response_eof(struct http_response *r);
static inline bool http_response_done(const struct http_response *r) { return r->state == HTTP_R_DONE; }
static inline bool http_response_failed(const struct http_response *r) { return r->state == HTTP_R_ERROR; }

/* A Content-Length value (RFC 9110 §8.6: digits only), at most 15 digits; false for anything else. */
bool http_content_length(const char *v, size_t n, uint64_t *out);

/* A status worth another try later: 408, 429 and every 5xx (RFC 9110 §15.5.9, RFC 6585 §4, §15.6). */
bool http_status_retryable(unsigned status);
/* 2xx. */
static inline bool http_status_ok(unsigned status) { return status >= 200 && status <= 299; }
/* 404 Not Found, 410 Gone (RFC 9110 §15.5.5, §15.5.11): the server has no such resource. */
static inline bool http_status_absent(unsigned status) { return status == 404 || status == 410; }

/*
 * UEFI 2.10 §29.6.6, EFI_HTTP_STATUS_CODE: the firmware reports a status as
 * an index into its own list; the number it stands for, or 0 for
 * HTTP_STATUS_UNSUPPORTED_STATUS and indexes past the list.
 */
unsigned http_status_from_efi(unsigned efi_code);

#endif
