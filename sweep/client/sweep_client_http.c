/*
 * sweep_client's requests to the master: libcurl, one handle kept for the
 * whole run so the connection stays open between tasks. A request is
 * retried with back-off (1 s doubling to 30 s) until the master gives one of
 * the answers the caller can act on; the client gives up when it has heard
 * nothing usable for max_silence seconds in a row. The session ID is in
 * every URL, so URLs are never logged.
 */
#include "sweep_client.h"
#include "log.h"
#include "wtime.h"

#include <curl/curl.h>
#include <poll.h>

#define BACKOFF_MAX 30
#define CONNECT_TIMEOUT 10
#define LOW_SPEED_TIME 60

volatile sig_atomic_t sc_stop;

bool sc_sleep(double secs)
{
	double end = dnow() + secs;

	while (!sc_stop) {
		double left = end - dnow();

		if (left <= 0)
			return true;
		/* poll() with no descriptors: a signal ends it early */
		poll(NULL, 0, left > 0.2 ? 200 : (int)(left * 1000) + 1);
	}
	return false;
}

void sc_reply_init(struct sc_reply *r)
{
	r->status = 0;
	sbuf_init(&r->body, SWEEP_MSG_MAX);
}

void sc_reply_release(struct sc_reply *r)
{
	sbuf_release(&r->body);
}

int sc_http_init(struct sc_http *h, const char *base, const char *session, const char *label,
		 long max_silence)
{
	char *q;

	memset(h, 0, sizeof(*h));
	h->curl = curl_easy_init();
	if (!h->curl)
		return log_error("cannot initialise libcurl");
	q = curl_easy_escape(h->curl, session, 0);
	if (!q)
		return log_error("cannot escape the session ID");
	h->session_q = xstrdup(q);
	curl_free(q);
	log_add_secret(h->session_q);
	q = curl_easy_escape(h->curl, label, 0);
	if (!q)
		return log_error("cannot escape the host label");
	h->label_q = xasprintf("&host=%s", q);
	curl_free(q);
	h->base = xstrdup(base);
	h->max_silence = max_silence;
	h->backoff = 1;
	return 0;
}

int sc_http_fork(struct sc_http *h)
{
	/*
	 * The inherited handle's socket is the parent's too. Plain HTTP says
	 * nothing when a connection closes, so cleaning the copy up here only
	 * closes this process's descriptor; the parent's connection lives on.
	 */
	curl_easy_cleanup(h->curl);
	h->curl = curl_easy_init();
	if (!h->curl)
		return log_error("cannot initialise libcurl");
	return 0;
}

void sc_http_release(struct sc_http *h)
{
	if (h->curl)
		curl_easy_cleanup(h->curl);
	if (h->session_q)
		memset(h->session_q, 0, strlen(h->session_q));
	free(h->session_q);
	free(h->label_q);
	free(h->base);
	memset(h, 0, sizeof(*h));
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct sc_reply *r = arg;

	if (sbuf_add(&r->body, p, size * n) < 0)
		return 0;       /* too large: curl ends the transfer with an error */
	return size * n;
}

static int xferinfo(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)arg, (void)dt, (void)dn, (void)ut, (void)un;
	return sc_stop ? 1 : 0;
}

static long min_long(long a, long b)
{
	return a < b ? a : b;
}

int sc_request_once(struct sc_http *h, const char *path, const char *extra,
		    const struct sbuf *post, long timeout, struct sc_reply *r)
{
	CURL *c = h->curl;
	struct curl_slist *hdr = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *url;
	CURLcode rc;

	sbuf_reset(&r->body);
	r->status = 0;
	url = xasprintf("%s%s?sessionID=%s%s%s", h->base, path, h->session_q, h->label_q,
			extra ? extra : "");
	/* reset keeps open connections; every option is set again below */
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROXY, "");         /* the session ID goes to the master only */
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, xferinfo);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, min_long(CONNECT_TIMEOUT, h->max_silence));
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, min_long(LOW_SPEED_TIME, h->max_silence));
	if (timeout > 0)
		curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "sweep_client/" PACKAGE_VERSION);
	if (post) {
		hdr = curl_slist_append(hdr, "Content-Type: application/octet-stream");
		hdr = curl_slist_append(hdr, "Expect:");
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, post->buf ? post->buf : "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)post->len);
	}
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
		log_debug("%s%s: %ld, %zu bytes", path, post ? " (POST)" : "", r->status, r->body.len);
	}
	curl_slist_free_all(hdr);
	memset(url, 0, strlen(url));
	free(url);
	if (rc != CURLE_OK) {
		r->status = 0;
		if (!sc_stop)
			log_warn("%s: no answer from %s: %s", path, h->base,
				 *errbuf ? errbuf : curl_easy_strerror(rc));
		return -1;
	}
	return 0;
}

void sc_http_missed(struct sc_http *h)
{
	if (h->failing_since == 0)
		h->failing_since = dnow();
}

static void heard(struct sc_http *h)
{
	h->failing_since = 0;
	h->backoff = 1;
}

bool sc_http_silent(const struct sc_http *h)
{
	return h->failing_since != 0 && dnow() - h->failing_since >= (double)h->max_silence;
}

bool sc_http_backoff(struct sc_http *h)
{
	double wait = h->backoff;

	if (h->failing_since != 0) {
		double left = h->failing_since + (double)h->max_silence - dnow();

		if (left < wait)
			wait = left > 0 ? left : 0;
	}
	if (h->backoff < BACKOFF_MAX)
		h->backoff = h->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : h->backoff * 2;
	return sc_sleep(wait);
}

static bool accepted(long status, const long *accept)
{
	for (; *accept; accept++)
		if (*accept == status)
			return true;
	return false;
}

enum sc_req sc_request(struct sc_http *h, const char *path, const char *extra,
		       const struct sbuf *post, const long *accept, struct sc_reply *r)
{
	for (;;) {
		if (sc_stop)
			return SC_REQ_STOPPED;
		if (sc_request_once(h, path, extra, post, 0, r) == 0) {
			if (accepted(r->status, accept)) {
				heard(h);
				return SC_REQ_OK;
			}
			log_warn("%s: unexpected answer %ld from the master", path, r->status);
		}
		sc_http_missed(h);
		if (sc_http_silent(h)) {
			log_error("%s: no usable answer from %s for %ld s: giving up", path, h->base,
				  h->max_silence);
			return SC_REQ_SILENT;
		}
		if (!sc_http_backoff(h))
			return SC_REQ_STOPPED;
	}
}

void sc_http_heard(struct sc_http *h)
{
	heard(h);
}
