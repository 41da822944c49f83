/*
 * net/upload_attempt.h - the portable half of an upload (boot/upload.c
 * keeps the firmware's half: the network's set-up, the exchange, the
 * clock): the request it sends, the retry policy its spec implies, the
 * verdict on each attempt, and what its record shows of an answer.
 * Nothing here calls the firmware, so the unit tests drive it directly.
 */
#ifndef PMUBOOT_NET_UPLOAD_ATTEMPT_H
#define PMUBOOT_NET_UPLOAD_ATTEMPT_H

#include "net/http.h"
#include "net/retry.h"
#include "net/upload_spec.h"

#define UPLOAD_CONTENT_TYPE "application/x-ndjson"
#define UPLOAD_KIND_HEADER "X-Pmuboot-Upload"
#define UPLOAD_ATTEMPT_MAX_MS 10000u	/* one attempt: connect, send, the answer */
#define UPLOAD_MIN_ATTEMPT_MS 2000u	/* less left than this: no further attempt (our own client) */

/* The POST of a run's records: final, or live (the records so far); the caller prepares it (http_request_prepare). */
void upload_request(struct http_request *rq, const struct upload_spec *spec, const char *token, bool final,
		    uint64_t body_len, const char *user_agent);

/* Attempts, waits and their budget for one upload through spec's way. */
struct retry_policy upload_policy(const struct upload_spec *spec, uint64_t budget_ms, unsigned max_attempts);

enum upload_verdict { UPLOAD_STORED, UPLOAD_TRY_AGAIN, UPLOAD_GIVE_UP };

/*
 * One attempt's outcome: answered (a whole response with this status) or
 * not (failure says why, retryable whether another attempt may fare
 * better).  *why: the failure in words ("" when stored).
 */
enum upload_verdict upload_judge(bool answered, unsigned status, bool retryable, const char *failure, char *why,
				 size_t cap);

/* What the collector said, printable ASCII only (others as spaces, trailing spaces dropped), for the record. */
void upload_shown_response(const uint8_t *p, size_t n, char *out, size_t cap);

/* The firmware protocol behind a way's name ("http", "tcp4"), or NULL for none. */
const char *upload_protocol_name(const char *via);

#endif
