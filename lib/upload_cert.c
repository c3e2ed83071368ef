/*
 * Upload certificates (upload_cert.h): made into a result's xml_doc_in when
 * the result is made, checked and made when missing by the scheduler.
 */
#include "upload_cert.h"
#include "crypt_rsa.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"
#include "xml.h"

bool upload_cert_is_upload(const xmlNode *n)
{
	const xmlNode *u;
	bool up = xml_child(n, "upload_url") != NULL;

	xml_for_each(u, n, "url") {
		char *t = xml_text(u);

		up = up || strstr(t, "file_upload_handler");
		free(t);
	}
	return up;
}

int upload_cert_ensure(xmlNode *n, const char *name, EVP_PKEY *key)
{
	xmlNode *old = xml_child(n, "xml_signature");
	struct sbuf sig = SBUF_INIT(CRYPT_TEXT_MAX);
	char *mx = xml_child_text(n, "max_nbytes"), *have = NULL;
	double max_nbytes = -1;
	int rc = -1;

	if (!upload_cert_is_upload(n)) {
		free(mx);
		return 0;
	}
	if (!mx || parse_double(mx, &max_nbytes) < 0) {
		free(mx);
		return log_error("output %s: no max_nbytes, so no upload certificate", name);
	}
	if (old) {
		have = xml_text(old);
		rc = crypt_upload_cert_check(key, name, max_nbytes, have) == 0 ? 0 : -1;
		free(have);
		if (rc == 0)
			goto out;
		/* made with another key (replaced since), or damaged: made again */
		xmlUnlinkNode(old);
		xmlFreeNode(old);
	}
	rc = -1;
	if (sbuf_addch(&sig, '\n') == 0 && crypt_upload_cert(key, name, max_nbytes, &sig) == 0 &&
	    xmlNewTextChild(n, NULL, BAD_CAST "xml_signature", BAD_CAST sbuf_str(&sig)))
		rc = 1;
	else
		log_error("output %s: cannot make its upload certificate", name);
out:
	free(mx);
	sbuf_release(&sig);
	return rc;
}

int upload_cert_sign_doc(const char *doc, EVP_PKEY *key, struct sbuf *out)
{
	struct sbuf w = SBUF_INIT(64 << 20);
	size_t start = out->len;
	xmlDoc *d;
	xmlNode *n;
	int made = 0, rc = 0;

	sbuf_addstr(&w, "<fragment>");
	sbuf_addstr(&w, doc);
	sbuf_addstr(&w, "</fragment>");
	d = xml_read_memory(sbuf_str(&w), w.len, "xml_doc_in", NULL);
	sbuf_release(&w);
	if (!d)
		return log_error("a result's xml_doc_in does not parse: not certified");
	xml_for_each(n, xmlDocGetRootElement(d), "file_info") {
		char *name = xml_child_text(n, "name");
		int r = name ? upload_cert_ensure(n, name, key) : 0;

		free(name);
		if (r < 0)
			rc = -1;
		made += r > 0;
	}
	if (rc == 0 && made == 0)
		rc = sbuf_addstr(out, doc);
	else if (rc == 0)
		rc = xml_serialize_children(xmlDocGetRootElement(d), out);
	xmlFreeDoc(d);
	if (rc < 0)
		sbuf_truncate(out, start);
	return rc < 0 ? -1 : 0;
}

/* One project's key a process (a daemon, a tool, a web program serves one project). */
static struct {
	char *path;
	struct stat st;
	EVP_PKEY *key;
} cache;

static void cache_clear(void)
{
	EVP_PKEY_free(cache.key);
	free(cache.path);
	memset(&cache, 0, sizeof(cache));
}

EVP_PKEY *upload_cert_key(const char *key_dir)
{
	char *path = xasprintf("%s/upload_private", key_dir ? key_dir : ".");

	if (cache.path && !strcmp(cache.path, path) && !file_changed(path, &cache.st)) {
		free(path);
		return cache.key;
	}
	if (!cache.path)
		atexit(cache_clear);
	cache_clear();
	cache.path = path;
	file_changed(path, &cache.st);
	if (crypt_load_private(path, &cache.key) < 0) {
		cache.key = NULL;
		log_warn("outputs are certified when they are sent, not when they are made");
	}
	return cache.key;
}
