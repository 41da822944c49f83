/* boot/upload.c - see upload.h. */
#include "boot/upload.h"
#include "boot/boot.h"
#include "boot/http_call.h"
#include "boot/net.h"
#include "net/netcfg.h"
#include "lib/out.h"
#include "net/upload_attempt.h"
#include "version.h"

#define BODY_FIRST (1u << 20)	/* a default run is some 100 KiB; raw IBS samples grow it */
#define BODY_ALIGN 4096u
#define FINAL_ATTEMPTS 4
#define LIVE_BUDGET_MS 10000u	/* a live upload may hold a stage's end this long at most */
#define LIVE_ATTEMPTS 2
#define RESPONSE_SHOWN 160
#define MS_PER_S 1000u
#define USER_AGENT "pmuboot/" PMUBOOT_VERSION " (build " PMUBOOT_BUILD_ID ")"
#define URL_TEXT HTTP_URL_TEXT_MAX

static struct {
	struct upload_spec spec;
	const char *token;
	char *body;
	size_t len, cap;
	uint32_t lines, lost;
	bool live_stopped;
} up;

struct outcome {
	bool ok, tried;
	unsigned attempts, status;
	const char *via, *fallback;
	EFI_STATUS efi_status;
	char why[HTTP_CALL_WHY];
	char response[RESPONSE_SHOWN];
	uint64_t ms, budget_ms;
	size_t bytes;
	uint32_t records;
};

/* Room for n more bytes: the buffer doubles, but only where the firmware may be called. */
static bool room(size_t n)
{
	if (up.len + n <= up.cap)
		return true;
	if (fw_elsewhere || !fw_interrupts_on())
		return false;
	size_t cap = up.cap ? up.cap : BODY_FIRST;
	while (cap < up.len + n)
		cap *= 2;
	char *b = fw_alloc_pages(cap, BODY_ALIGN);
	if (!b)
		return false;
	if (up.len)
		memcpy(b, up.body, up.len);
	if (up.body)
		fw_free_pages(up.body, up.cap, BODY_ALIGN);
	up.body = b;
	up.cap = cap;
	return true;
}

/* The records sink: each record's JSON text and '\n', as the results file saves it. */
static void keep_line(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	if (kind != OUT_RECORD)
		return;
	size_t plen = sizeof(REC_PREFIX) - 1;
	if (len >= plen && memcmp(line, REC_PREFIX, plen) == 0) {
		line += plen;
		len -= plen;
	}
	if (!room(len + 1)) {
		up.lost++;
		return;
	}
	memcpy(up.body + up.len, line, len);
	up.body[up.len + len] = '\n';
	up.len += len + 1;
	up.lines++;
}

void upload_attach(const struct config *cfg)
{
	char why[160];
	memset(&up, 0, sizeof(up));
	if (!upload_spec_parse(cfg->upload, strlen(cfg->upload), &up.spec, why, sizeof(why)) || !up.spec.on)
		return;	/* a bad value was refused when it was read, and the option kept its default */
	up.token = cfg->upload_token;
	struct out_sink sink = { .name = "upload", .write_line = keep_line, .records_only = true };
	if (!room(BODY_FIRST) || !out_add_sink(&sink)) {
		up.lost = 1;	/* said by the upload record: the run cannot be sent whole */
		return;
	}
}

void upload_begin_record(struct rec *r)
{
	char url[URL_TEXT];
	if (!up.spec.on) {
		rec_null(r, "upload");
		return;
	}
	http_url_text(&up.spec.url, url, sizeof(url));
	rec_obj(r, "upload");
	rec_str(r, "url", url);
	rec_bool(r, "live", up.spec.live);
	rec_str(r, "via", http_via_name(up.spec.via));
	rec_u64(r, "timeout_s", up.spec.timeout_s);
	rec_bool(r, "token", up.token && up.token[0]);
	rec_obj_end(r);
}

static void send_run(bool final, uint64_t budget_ms, unsigned max_attempts, struct outcome *o)
{
	static struct http_request rq;
	static struct http_call call;
	memset(o, 0, sizeof(*o));
	o->bytes = up.len;
	o->records = up.lines;
	o->budget_ms = budget_ms;
	if (up.lost) {
		snprintf(o->why, sizeof(o->why), "%u records could not be kept in memory for the upload (it would not "
			 "be the whole run): nothing sent", up.lost);
		return;
	}
	uint64_t t0 = fw_clock_ms();
	if (!net_ready(budget_ms < NET_DHCP_WAIT_MS ? budget_ms : NET_DHCP_WAIT_MS, o->why, sizeof(o->why))) {
		o->ms = fw_clock_ms() - t0;
		return;
	}
	upload_request(&rq, &up.spec, up.token, final, up.len, USER_AGENT);
	if (!http_request_prepare(&rq, o->why, sizeof(o->why)))
		return;
	struct retry_policy policy = upload_policy(&up.spec, budget_ms, max_attempts);
	/*
	 * The budget covers the network's set-up too (DHCP can take most of it): the first attempt gets the rest,
	 * at least our own client's least (the firmware's own connect wait may then end it; later attempts
	 * need policy.min_attempt_ms).
	 */
	uint64_t ready_ms = fw_clock_ms() - t0;
	uint64_t attempt_ms = budget_ms > ready_ms ? budget_ms - ready_ms : 0;
	if (attempt_ms < UPLOAD_MIN_ATTEMPT_MS) {
		snprintf(o->why, sizeof(o->why), "setting up the network took %llu ms of the %llu ms the upload may take: "
			 "no time left for an attempt", (unsigned long long)ready_ms, (unsigned long long)budget_ms);
		o->ms = ready_ms;
		return;
	}
	o->tried = true;
	for (;;) {
		memset(&call, 0, sizeof(call));
		call.rq = &rq;
		call.body = up.body;
		call.timeout_ms = attempt_ms < UPLOAD_ATTEMPT_MAX_MS ? attempt_ms : UPLOAD_ATTEMPT_MAX_MS;
		o->attempts++;
		bool answered = http_call(up.spec.via, &call);
		o->via = call.via;
		o->fallback = call.fallback;
		o->status = call.status;
		o->efi_status = call.efi_status;
		if (answered)
			upload_shown_response(call.body_out, call.body_len, o->response, sizeof(o->response));
		enum upload_verdict v = upload_judge(answered, call.status, call.retryable, call.why, o->why, sizeof(o->why));
		o->ok = v == UPLOAD_STORED;
		if (v != UPLOAD_TRY_AGAIN)
			break;
		uint64_t spent = fw_clock_ms() - t0;
		int64_t wait = retry_next(&policy, o->attempts, spent, &attempt_ms);
		char shown[HTTP_CALL_WHY * 4];
		out_text("upload: attempt %u failed after %llu ms: %s%s", o->attempts, (unsigned long long)spent,
			 out_clean(shown, sizeof(shown), o->why), wait == RETRY_STOP ? "" : "; trying again");
		if (wait == RETRY_STOP)
			break;
		fw_stall_us((uint64_t)wait * US_PER_MS);
	}
	o->ms = fw_clock_ms() - t0;
}

static void report(const struct outcome *o, bool final, const char *after)
{
	struct rec r;
	struct rec *rp = &r;
	char url[URL_TEXT], mac[3 * NET_MAC_MAX], ip[16], shown[HTTP_CALL_WHY * 4];
	const struct net_state *n = net_probe();

	http_url_text(&up.spec.url, url, sizeof(url));
	rec_start(rp, "upload");
	rec_bool(rp, "final", final);
	rec_str(rp, "after", after);
	rec_bool(rp, "ok", o->ok);
	rec_str(rp, "url", url);
	rec_str(rp, "via", o->via);
	rec_str(rp, "protocol", upload_protocol_name(o->via));
	rec_str(rp, "fallback", o->fallback);
	rec_str(rp, "address", n->addr != NET_ADDR_NONE ? net_addr_name(n->addr) : NULL);
	net_ip_text(n->station, ip, sizeof(ip));
	rec_str(rp, "station", n->have_station ? ip : NULL);
	netcfg_mac_text(n->mac, n->mac_len, ':', mac, sizeof(mac));
	rec_str(rp, "mac", n->mac_len ? mac : NULL);
	rec_u64(rp, "lines", o->records);
	rec_u64(rp, "bytes", o->bytes);
	rec_u64(rp, "attempts", o->attempts);
	if (o->status)
		rec_u64(rp, "status", o->status);
	else
		rec_null(rp, "status");
	rec_str(rp, "response", o->status ? o->response : NULL);
	rec_u64(rp, "elapsed_ms", o->ms);
	rec_u64(rp, "timeout_ms", o->budget_ms);
	rec_str(rp, "why", o->ok ? NULL : o->why);
	rec_str(rp, "efi_status", !o->ok && o->efi_status != EFI_SUCCESS ? efi_status_name(o->efi_status) : NULL);
	if (!final)
		rec_bool(rp, "live_stopped", up.live_stopped);
	rec_emit(rp);

	if (o->ok)
		out_text("upload: %u lines (%zu bytes) to %s: HTTP %u via %s, %u attempt%s, %llu ms", o->records,
			 o->bytes, out_clean(shown, sizeof(shown), url), o->status, upload_protocol_name(o->via), o->attempts,
			 o->attempts == 1 ? "" : "s", (unsigned long long)o->ms);
	else
		out_text("upload: not stored%s after %u attempt%s: %s; the serial capture and results file keep the "
			 "records", final ? "" : " (live)", o->attempts, o->attempts == 1 ? "" : "s",
			 out_clean(shown, sizeof(shown), o->why));
}

void upload_after_stage(const char *name)
{
	struct outcome o;
	if (!up.spec.on || !up.spec.live || up.live_stopped || fw_elsewhere || !fw_interrupts_on() ||
	    !rec_stream_open())
		return;
	uint64_t budget = (uint64_t)up.spec.timeout_s * MS_PER_S;
	fw_clock_start();
	send_run(false, budget < LIVE_BUDGET_MS ? budget : LIVE_BUDGET_MS, LIVE_ATTEMPTS, &o);
	fw_clock_stop();
	/* A collector that is not answering would cost every stage its wait: the final upload still tries. */
	if (!o.ok)
		up.live_stopped = true;
	report(&o, false, name);
}

void upload_final(void)
{
	struct outcome o;
	if (!up.spec.on)
		return;
	fw_clock_start();
	send_run(true, (uint64_t)up.spec.timeout_s * MS_PER_S, FINAL_ATTEMPTS, &o);
	fw_clock_stop();
	out_remove_sink("upload");
	report(&o, true, NULL);
	net_release();
}
