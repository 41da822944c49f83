/*
 * net/upload_spec.h - the upload= option: where a run's records go and how.
 *
 *   upload=http://HOST[:PORT]/PATH[,live][,http|tcp4][,timeout=S]
 *
 * The URL is the collector's (plain http://: the image has no TLS); `live`
 * also uploads the records so far after each stage; `http` or `tcp4` asks
 * for one way of sending (the firmware's EFI_HTTP_PROTOCOL, or the
 * project's own client over EFI_TCP4_PROTOCOL; default: the firmware's
 * where it serves, else ours); timeout=S bounds the final upload, every
 * attempt and wait together (default UPLOAD_TIMEOUT_DEFAULT_S).  Empty or
 * `off`: no upload.  Parsed when the option is read (run/config_opts.c, so
 * a bad value is an error naming its line) and again by boot/upload.c.
 */
#ifndef PMUBOOT_NET_UPLOAD_SPEC_H
#define PMUBOOT_NET_UPLOAD_SPEC_H

#include "net/http.h"

#define UPLOAD_TIMEOUT_DEFAULT_S 30
#define UPLOAD_TIMEOUT_MAX_S 600

struct upload_spec {
	bool on;
	struct http_url url;
	bool live;
	enum http_via via;
	uint32_t timeout_s;
};

/* Parse the option's value; false with why (the spec is then off). */
bool upload_spec_parse(const char *v, size_t len, struct upload_spec *s, char *why, size_t cap);

#endif
