/*
 * The volunteers' web program (html/): a whole request as a browser, a
 * client or an attacker may send it -- method, page, query string,
 * cookies, content type and body -- through web_req_init() and
 * web_handle(), with no database (the RPCs answer -138, the pages what they
 * can without one), and the account checks every door shares
 * (account_check_email, account_check_name, account_check_prefs -- a
 * preferences document accepted stays well-formed echoed inside another,
 * as am_get_info does) on the parameters. The input is
 *
 *   METHOD \n PAGE \n QUERY_STRING \n COOKIE \n CONTENT_TYPE \n body
 *
 * Properties: the reply has a status from 200 to 599; an account RPC's
 * reply is an XML document (get_project_config's always a
 * <project_config>); anything else is an HTML page from its doctype, an
 * empty redirect, or the XML of show_user.php?format=xml, of
 * server_status[.php]?xml=1 or ?counts=1 and of the news feeds (notices.php,
 * rss_main.php); every XML reply parses.
 */
#include "fuzz.h"
#include "account.h"
#include "config.h"
#include "web.h"
#include "xml.h"

#define FIELDS 5

struct vars {
	char *v[FIELDS];                /* method, page, query, cookie, content type */
	char script[512];
};

static const char *getvar(const char *name, void *arg)
{
	const struct vars *vs = arg;

	if (!strcmp(name, "REQUEST_METHOD"))
		return vs->v[0];
	if (!strcmp(name, "SCRIPT_NAME"))
		return vs->script;
	if (!strcmp(name, "QUERY_STRING"))
		return vs->v[2];
	if (!strcmp(name, "HTTP_COOKIE"))
		return vs->v[3];
	if (!strcmp(name, "CONTENT_TYPE"))
		return vs->v[4];
	if (!strcmp(name, "REMOTE_ADDR"))
		return "192.0.2.1";
	return NULL;
}

static bool is_rpc(const char *page)
{
	static const char *const rpcs[] = { "get_project_config.php", "create_account.php",
		"lookup_account.php", "am_get_info.php", "am_set_info.php", "team_lookup.php" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rpcs); i++)
		if (!strcmp(page, rpcs[i]))
			return true;
	return false;
}

/* The pages whose reply may be an XML document rather than an HTML page. */
static bool xml_page(const char *page)
{
	return !strcmp(page, "show_user.php") || !strncmp(page, "server_status", 13) ||
	       !strcmp(page, "notices.php") || !strcmp(page, "rss_main.php");
}

static void check_reply(const struct web_req *r, const struct web_reply *o)
{
	const char *body = o->body.buf ? o->body.buf : "";
	bool xml = !strncmp(body, "<?xml", 5), html = !strncmp(body, "<!DOCTYPE html>", 15);

	FUZZ_CHECK(o->status >= 200 && o->status <= 599);
	if (!strcmp(r->page, "get_project_config.php"))
		FUZZ_CHECK(strstr(body, "<project_config>") != NULL);
	if (is_rpc(r->page))
		FUZZ_CHECK(xml);
	else if (o->status == 303)
		FUZZ_CHECK(o->body.len == 0);
	else
		FUZZ_CHECK(html || (xml && xml_page(r->page)));
	if (xml) {
		xmlDoc *d = xml_read_memory(body, o->body.len, "reply", NULL);

		FUZZ_CHECK(d != NULL);
		if (d)
			xmlFreeDoc(d);
	}
}

/* Preferences accepted are echoed inside other documents: there they stay well-formed. */
static void check_prefs(const char *v)
{
	struct account_error e;
	struct sbuf b = SBUF_INIT(2 * ACCOUNT_PREFS_MAX);
	xmlDoc *d;

	if (!v)
		return;
	if (account_check_prefs(v, "prefs", &e) != ACCT_OK) {
		FUZZ_CHECK(e.num == ACCT_ERR_XML_PARSE);
		sbuf_release(&b);
		return;
	}
	sbuf_addf(&b, "<am_get_info_reply>\n<global_prefs>\n%s\n</global_prefs>\n"
		  "</am_get_info_reply>\n", v);
	d = xml_read_memory(b.buf, b.len, "echo", NULL);
	FUZZ_CHECK(d != NULL);
	if (d)
		xmlFreeDoc(d);
	sbuf_release(&b);
}

static void check_params(const struct web_req *r)
{
	struct account_error e;
	const char *v;
	char *c;

	if ((v = web_param(r, "email_addr")) != NULL) {
		char *k = account_lowercase(v);

		if (account_check_email(v, &e) != ACCT_OK)
			FUZZ_CHECK(e.num == ACCT_ERR_BAD_EMAIL);
		free(k);
	}
	if ((v = web_param(r, "user_name")) != NULL && account_check_name(v, "name", &e) != ACCT_OK)
		FUZZ_CHECK(e.num == ACCT_ERR_BAD_USER_NAME);
	check_prefs(web_param(r, "global_prefs"));
	check_prefs(web_param(r, "project_prefs"));
	c = web_cookie(r, "wseq_session");
	free(c);
	c = web_cookie(r, "wseq_csrf");
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct project_config cfg;
	static struct account_settings acct;
	struct web_ctx c = { .cfg = &cfg, .acct = &acct, .db = NULL };
	char *in = fuzz_cstr(data, size), *p = in, *body = NULL;
	struct vars vs;
	struct web_req r;
	struct web_reply o;
	size_t i, len = 0;

	fuzz_setup();
	if (!cfg.long_name) {
		cfg.long_name = xstrdup("Fuzz <Project> & Co");
		cfg.master_url = xstrdup("http://127.0.0.1/fz/");
		cfg.cgi_url = xstrdup("http://127.0.0.1/fz_cgi/");
		cfg.project_dir = xstrdup(fuzz_scratch_dir());
		param_set_defaults(account_params, &acct);
	}
	for (i = 0; i < FIELDS; i++) {
		char *nl = memchr(p, '\n', size - (size_t)(p - in));

		vs.v[i] = p;
		if (!nl)
			goto out;
		*nl = '\0';
		p = nl + 1;
	}
	snprintf(vs.script, sizeof(vs.script), "/fz/%s", vs.v[1]);
	len = size - (size_t)(p - in);
	if (!strcmp(vs.v[0], "POST"))
		body = xstrndup(p, len);        /* the request takes it over */
	web_req_init(&r, getvar, &vs, body, body ? strlen(body) : 0);
	web_reply_init(&o);
	web_handle(&c, &r, &o);
	check_reply(&r, &o);
	check_params(&r);
	web_reply_release(&o);
	web_req_release(&r);
out:
	free(in);
	return 0;
}
