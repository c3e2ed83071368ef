/*
 * A job's input files by upstream's modes (lib/boinc_submit.py's FILE_DESC):
 *
 *   local_staged  a file already on the server: a job file's name, or a name
 *                 of the submitter's own (their area, submit_int.h)
 *   sandbox       a name in the submitter's area
 *   local         upstream: a path on the server; here only a path into the
 *                 submitter's own area (or a bare name there)
 *   inline        the content itself, at most INLINE_MAX bytes
 *   remote        a URL the hosts fetch, with its size and MD5: never one of a
 *                 loopback, private, link-local or otherwise non-public
 *                 address, so no volunteer's client is pointed into its own
 *                 network
 *   semilocal     a URL the server fetches (libcurl) once, at most
 *                 SEMILOCAL_MAX bytes in SEMILOCAL_TIMEOUT seconds, from a
 *                 public address only: every address the name resolves to is
 *                 checked, and the connection itself (libcurl's
 *                 opensocket callback) again, so a name that resolves anew
 *                 to 127.0.0.1 is refused too; no redirects, no proxy
 *
 * What the server stores (inline, semilocal) becomes a job file like any
 * other: content-addressed, jf_<md5>, tied to the batch.
 */
#include "submit_int.h"
#include "db.h"
#include "db_queries.h"
#include "dirhier.h"
#include "field.h"
#include "log.h"
#include "wtime.h"
#include "work.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define URL_MAX 2048

/* ---- addresses -------------------------------------------------------------------- */

/* Is the IPv4 address b (4 bytes, network order) public? */
static bool v4_public(const unsigned char *b)
{
	return !(b[0] == 0 || b[0] == 10 || b[0] == 127 ||             /* this, private, loopback */
		 (b[0] == 100 && (b[1] & 0xc0) == 64) ||                /* carrier-grade NAT */
		 (b[0] == 169 && b[1] == 254) ||                        /* link-local */
		 (b[0] == 172 && (b[1] & 0xf0) == 16) ||                /* private */
		 (b[0] == 192 && b[1] == 0 && (b[2] == 0 || b[2] == 2)) || /* IETF, TEST-NET-1 */
		 (b[0] == 192 && b[1] == 168) ||                        /* private */
		 (b[0] == 198 && (b[1] & 0xfe) == 18) ||                /* benchmarking */
		 (b[0] == 198 && b[1] == 51 && b[2] == 100) ||          /* TEST-NET-2 */
		 (b[0] == 203 && b[1] == 0 && b[2] == 113) ||           /* TEST-NET-3 */
		 b[0] >= 224);                                          /* multicast, reserved, broadcast */
}

/*
 * The IPv4 check reads the address's bytes, never a sockaddr_in made here
 * and read back through a struct sockaddr: at -O2 that store and load may
 * be reordered (strict aliasing), and ::ffff:8.8.8.8 came out not public.
 */
bool submit_addr_public(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return v4_public((const unsigned char *)
				 &((const struct sockaddr_in *)(const void *)sa)->sin_addr);
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		const unsigned char *b = a->s6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a) || IN6_IS_ADDR_V4COMPAT(a))
			return v4_public(b + 12);
		return !(IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_LOOPBACK(a) ||
			 IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_SITELOCAL(a) ||
			 IN6_IS_ADDR_MULTICAST(a) ||
			 (b[0] & 0xfe) == 0xfc ||                               /* unique local */
			 (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) || /* documentation */
			 (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b) || /* NAT64 */
			 (b[0] == 0x20 && b[1] == 0x02) ||                      /* 6to4: an IPv4 inside */
			 (b[0] == 0x01 && b[1] == 0x00 && !b[2] && !b[3] && !b[4] && !b[5] && !b[6] && !b[7]));
	}
	return false;
}

/*
 * url as a job's input may name it: http or https, a host that resolves
 * only to public addresses, no user or password, no fragment, printable
 * ASCII. 0, or -1 with the submitter told why (what: "remote", "semilocal").
 */
static int url_check(struct rpc *r, const char *what, const char *url)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *user = NULL, *q = submit_quoted(url ? url : "");
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL, *p;
	int rc = 0, e;
	size_t i;

	if (!url || !*url) {
		rc = submit_fail(r, "input file mode %s: no <url>", what);
		goto out;
	}
	for (i = 0; url[i]; i++)
		if ((unsigned char)url[i] <= ' ' || (unsigned char)url[i] >= 0x7f)
			break;
	if (url[i] || i > URL_MAX || !u ||
	    curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK) {
		rc = submit_fail(r, "input file mode %s: %s is not a URL (printable ASCII, at most %d "
				 "bytes)", what, q, URL_MAX);
		goto out;
	}
	if (strcmp(scheme, "http") && strcmp(scheme, "https")) {
		rc = submit_fail(r, "input file mode %s: %s is not an http or https URL", what, q);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !*host) {
		rc = submit_fail(r, "input file mode %s: %s names no host", what, q);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK) {
		rc = submit_fail(r, "input file mode %s: %s carries a user name; wseq does not pass "
				 "credentials on", what, q);
		goto out;
	}
	/* [::1] comes back bracketed */
	if (host[0] == '[') {
		memmove(host, host + 1, strlen(host));
		host[strcspn(host, "]")] = 0;
	}
	if ((e = getaddrinfo(host, NULL, &hints, &ai)) != 0) {
		rc = submit_fail(r, "input file mode %s: the host of %s does not resolve (%s)", what, q,
				 gai_strerror(e));
		goto out;
	}
	for (p = ai; p; p = p->ai_next) {
		if (!submit_addr_public(p->ai_addr)) {
			char a[INET6_ADDRSTRLEN] = "?";

			getnameinfo(p->ai_addr, p->ai_addrlen, a, sizeof(a), NULL, 0, NI_NUMERICHOST);
			rc = submit_fail(r, "input file mode %s: %s resolves to %s, a loopback, private, "
					 "link-local or otherwise non-public address: refused", what, q, a);
			goto out;
		}
	}
out:
	if (ai)
		freeaddrinfo(ai);
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	if (u)
		curl_url_cleanup(u);
	free(q);
	return rc;
}

/* ---- files the server has ----------------------------------------------------------- */

/*
 * The job file called phys for this request's batch: looked up once per
 * request and tied to the batch (its lease and the batch's life keep it on
 * the server). proven: the user holds the content (their area, or sent it).
 */
static const struct work_file *job_file(struct rpc *r, struct staged *st, const char *phys,
					const char *given, bool proven)
{
	struct db_job_file jf = { 0 };
	enum jf_state s;
	char *q;
	size_t i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->files[i].name, phys))
			return &st->files[i];
	ARRAY_GROW(st->files, st->n);
	s = submit_job_file_find_as(r, phys, proven, &jf, &st->files[st->n]);
	if (s == JF_OK && db_batch_file_assoc_add(r->c->db, jf.id, st->batch) != DB_OK)
		s = JF_DB_ERROR;
	db_job_file_release(&jf);
	if (s == JF_OK)
		return &st->files[st->n++];
	work_file_release(&st->files[st->n]);
	q = submit_quoted(given);
	if (s == JF_DB_ERROR)
		submit_db_fail(r);
	else if (s == JF_PROJECT)
		submit_fail(r, "input file %s is not a job file: the project has a file of that "
			    "name", q);
	else if (s == JF_BAD)
		submit_fail(r, "input file %s on the server does not match its name", q);
	else if (s == JF_OTHERS)
		submit_fail(r, "input file %s is not one of your job files: upload it with your "
			    "batch first", q);
	else
		submit_fail(r, "input file %s is not on the server", q);
	free(q);
	return NULL;
}

/* A name of the user's own area: the job file it stands for. */
static const struct work_file *area_file(struct rpc *r, struct staged *st, const char *mode,
					 const char *name)
{
	const struct work_file *f = NULL;
	const char *why = submit_area_name(name);
	char *phys = NULL, *q = submit_quoted(name);
	int got;

	if (why) {
		submit_fail(r, "input file mode %s: bad filename %s: %s", mode, q, why);
	} else if ((got = submit_area_lookup(r, name, &phys)) == 0) {
		submit_fail(r, "input file mode %s: %s is not among your files (upload_files puts "
			    "it there)", mode, q);
	} else if (got > 0) {
		f = job_file(r, st, phys, name, true);
	}
	free(phys);
	free(q);
	return f;
}

/*
 * Content the request brings (inline, semilocal): stored as its job file,
 * jf_<md5>, recorded and kept a grace period, then as any job file. A file
 * this request writes anew is removed again if the submit fails.
 */
static const struct work_file *content_file(struct rpc *r, struct staged *st, const void *data,
					    size_t len)
{
	char md5[MD5_HEX_LEN + 1], *phys;
	struct work_file wf;
	const struct work_file *f = NULL;
	int s;

	md5_buf(data, len, md5);
	phys = xasprintf("jf_%s", md5);
	if (submit_store_check(r, phys) == 0) {
		s = work_stage_buffer(r->c->cfg, phys, data, len, &wf);
		if (s > 0)
			submit_fail(r, "file immutability violation for %s", phys);
		else if (s < 0)
			submit_fail(r, "cannot store %s (see the server log)", phys);
		if (s == 0 && wf.staged) {
			ARRAY_GROW(st->fresh, st->nfresh);
			st->fresh[st->nfresh++] = wf;
		} else if (s == 0) {
			work_file_release(&wf);
		}
		if (s == 0 && submit_note_job_file(r, phys, dnow() + JOB_FILE_GRACE, 0) == 0)
			f = job_file(r, st, phys, phys, true);
	}
	free(phys);
	return f;
}

/* ---- semilocal: the server fetches ------------------------------------------------ */

struct fetch {
	struct sbuf body;
	bool refused;                   /* a connection to a non-public address */
};

static size_t fetch_write(char *p, size_t size, size_t n, void *arg)
{
	struct fetch *f = arg;

	if (sbuf_add(&f->body, p, size * n) < 0)
		return 0;               /* past SEMILOCAL_MAX: the transfer stops */
	return size * n;
}

/* Every connection libcurl opens: to a public address only. */
static curl_socket_t fetch_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct fetch *f = arg;

	if (purpose != CURLSOCKTYPE_IPCXN || !submit_addr_public(&a->addr)) {
		f->refused = true;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype, a->protocol);
}

static const struct work_file *semilocal_file(struct rpc *r, struct staged *st, const char *url)
{
	struct fetch f = { SBUF_INIT(SEMILOCAL_MAX), false };
	const struct work_file *wf = NULL;
	CURL *c;
	CURLcode e;
	long code = 0;
	char *q;

	if (url_check(r, "semilocal", url))
		return NULL;
	q = submit_quoted(url);
	if (!(c = curl_easy_init())) {
		submit_fail(r, "input file mode semilocal: cannot fetch now");
		goto out;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PROXY, "");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)SEMILOCAL_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)SEMILOCAL_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)SEMILOCAL_MAX);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, fetch_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &f);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, fetch_socket);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &f);
	e = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	if (f.refused)
		submit_fail(r, "input file mode semilocal: %s connects to a non-public address: "
			    "refused", q);
	else if (e == CURLE_FILESIZE_EXCEEDED || e == CURLE_WRITE_ERROR)
		submit_fail(r, "input file mode semilocal: %s is larger than %ld bytes", q,
			    (long)SEMILOCAL_MAX);
	else if (e == CURLE_OPERATION_TIMEDOUT)
		submit_fail(r, "input file mode semilocal: %s took longer than %d s", q,
			    SEMILOCAL_TIMEOUT);
	else if (e != CURLE_OK)
		submit_fail(r, "input file mode semilocal: cannot fetch %s: %s", q,
			    curl_easy_strerror(e));
	else if (code != 200)
		submit_fail(r, "input file mode semilocal: %s answered HTTP %ld", q, code);
	else
		wf = content_file(r, st, f.body.buf ? f.body.buf : "", f.body.len);
out:
	sbuf_release(&f.body);
	free(q);
	return wf;
}

/* ---- remote: the hosts fetch -------------------------------------------------------- */

static const struct work_file *remote_file(struct rpc *r, struct staged *st, const xmlNode *in)
{
	char *url = xml_child_text(in, "url"), *md5 = xml_child_text(in, "md5");
	double nbytes = -1;
	struct work_file *wf = NULL;
	size_t i;

	if (url_check(r, "remote", url) || submit_num(r, in, "nbytes", 0, REMOTE_MAX, &nbytes))
		goto out;
	if (nbytes < 0) {
		submit_fail(r, "input file mode remote: no <nbytes>");
		goto out;
	}
	for (i = 0; md5 && i < MD5_HEX_LEN; i++)
		if (!md5[i] || !strchr("0123456789abcdef", md5[i]))
			break;
	if (!md5 || i != MD5_HEX_LEN || md5[i]) {
		submit_fail(r, "input file mode remote: <md5> is not an MD5 in lower-case hex");
		goto out;
	}
	ARRAY_GROW(st->files, st->n);
	wf = &st->files[st->n++];
	memset(wf, 0, sizeof(*wf));
	/* named by its content, apart from the server's own job files */
	wf->name = xasprintf("jfr_%s", md5);
	wf->url = xstrdup(url);
	memcpy(wf->md5, md5, sizeof(wf->md5));
	wf->nbytes = nbytes;
out:
	free(url);
	free(md5);
	return wf;
}

/* ---- the modes ---------------------------------------------------------------------- */

const struct work_file *submit_input_file(struct rpc *r, struct staged *st, const xmlNode *in,
					  size_t job)
{
	char *mode = xml_child_text(in, "mode"), *src = xml_child_text(in, "source");
	const char *m = mode && *mode ? mode : "local_staged", *why;
	const struct work_file *f = NULL;
	char *q;

	if (!strcmp(m, "local_staged")) {
		switch (submit_name_kind(src ? src : "", &why)) {
		case NAME_BAD:
			submit_bad_filename(r, src ? src : "", why);
			break;
		case NAME_JOB_FILE:
			f = job_file(r, st, src, src, false);
			break;
		case NAME_AREA:
			f = area_file(r, st, m, src);
			break;
		}
	} else if (!strcmp(m, "sandbox")) {
		f = area_file(r, st, m, src ? src : "");
	} else if (!strcmp(m, "local")) {
		/* a path into the user's own area, or a bare name there */
		char *area = submit_area_path(r, NULL);
		size_t n = strlen(area);
		const char *name = src ? src : "";

		if (!strncmp(name, area, n) && name[n] == '/')
			name += n + 1;
		if (strchr(name, '/')) {
			q = submit_quoted(name);
			submit_fail(r, "input file mode local: %s is not in your own area (%s/): wseq "
				    "takes local files from there only", q, area);
			free(q);
		} else {
			f = area_file(r, st, m, name);
		}
		free(area);
	} else if (!strcmp(m, "inline")) {
		size_t len = src ? strlen(src) : 0;

		if (len > INLINE_MAX)
			submit_fail(r, "input file mode inline: job %zu's file is %zu bytes, more than "
				    "%d: upload it with upload_files", job, len, INLINE_MAX);
		else
			f = content_file(r, st, src ? src : "", len);
	} else if (!strcmp(m, "remote")) {
		f = remote_file(r, st, in);
	} else if (!strcmp(m, "semilocal")) {
		f = semilocal_file(r, st, src);
	} else {
		q = submit_quoted(m);
		submit_fail(r, "input file mode %s is not one wseq knows (local_staged, sandbox, "
			    "local, inline, remote, semilocal)", q);
		free(q);
	}
	free(mode);
	free(src);
	return f;
}

void submit_staged_release(struct staged *st, bool failed)
{
	size_t i;

	for (i = 0; i < st->nfresh; i++) {
		if (failed)
			work_unstage_input(&st->fresh[i]);
		work_file_release(&st->fresh[i]);
	}
	for (i = 0; i < st->n; i++)
		work_file_release(&st->files[i]);
	free(st->files);
	free(st->fresh);
	memset(st, 0, sizeof(*st));
}
