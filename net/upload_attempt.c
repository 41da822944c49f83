/* net/upload_attempt.c - see upload_attempt.h. */
#include "net/upload_attempt.h"

/*
 * The firmware's HTTP waits up to 5 s for a silent server's answer inside Response() itself (edk2
 * NetworkPkg PcdHttpIoTimeout), where our deadline cannot cut it: an attempt through it is not
 * started with less than that left.
 */
#define MIN_FIRMWARE_ATTEMPT_MS 5500u
#define FIRST_WAIT_MS 1000u	/* waits 1, 2, 4 s */
#define MAX_WAIT_MS 4000u
#define ASCII_FIRST_PRINTABLE 0x20
#define ASCII_DEL 0x7f

void upload_request(struct http_request *rq, const struct upload_spec *spec, const char *token, bool final,
		    uint64_t body_len, const char *user_agent)
{
	memset(rq, 0, sizeof(*rq));
	rq->method = HTTP_POST;
	rq->url = &spec->url;
	rq->user_agent = user_agent;
	rq->content_type = UPLOAD_CONTENT_TYPE;
	rq->token = token;
	rq->extra_name = UPLOAD_KIND_HEADER;
	rq->extra_value = final ? "final" : "live";
	rq->body_len = body_len;
}

struct retry_policy upload_policy(const struct upload_spec *spec, uint64_t budget_ms, unsigned max_attempts)
{
	return (struct retry_policy){
		.max_attempts = max_attempts,
		.first_wait_ms = FIRST_WAIT_MS,
		.max_wait_ms = MAX_WAIT_MS,
		.budget_ms = budget_ms,
		.min_attempt_ms = spec->via == HTTP_VIA_TCP4 ? UPLOAD_MIN_ATTEMPT_MS : MIN_FIRMWARE_ATTEMPT_MS,
	};
}

enum upload_verdict upload_judge(bool answered, unsigned status, bool retryable, const char *failure, char *why,
				 size_t cap)
{
	if (answered && http_status_ok(status)) {
		if (cap)
			why[0] = '\0';
		return UPLOAD_STORED;
	}
	if (answered)
		snprintf(why, cap, "the collector answered HTTP %u", status);
	else
		snprintf(why, cap, "%s", failure);
	return (answered ? http_status_retryable(status) : retryable) ? UPLOAD_TRY_AGAIN : UPLOAD_GIVE_UP;
}

void upload_shown_response(const uint8_t *p, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	if (!cap)
		return;
	for (size_t i = 0; i < n && k + 1 < cap; i++)
		out[k++] = (p[i] >= ASCII_FIRST_PRINTABLE && p[i] < ASCII_DEL) ? (char)p[i] : ' ';
	while (k && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

const char *upload_protocol_name(const char *via)
{
	if (!via)
		return NULL;
	return strcmp(via, http_via_name(HTTP_VIA_TCP4)) == 0 ? "EFI_TCP4_PROTOCOL" : "EFI_HTTP_PROTOCOL";
}
