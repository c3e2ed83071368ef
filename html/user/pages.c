/*
 * The volunteers' pages: which page a request is for. The account RPCs
 * come first (their .php names are the protocol's).
 */
#include "web.h"
#include "config.h"

static void not_found(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	o->status = 404;
	sbuf_addstr(&o->body, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			      "<title>Not found</title></head><body><h1>Not found</h1><p>");
	web_html(&o->body, r->page);
	sbuf_addstr(&o->body, " is not a page of ");
	web_html(&o->body, c->cfg->long_name);
	sbuf_addstr(&o->body, ".</p></body></html>\n");
}

int web_handle(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	if (user_rpc(c, r, o) == 0)
		return 0;
	not_found(c, r, o);
	return -1;
}
