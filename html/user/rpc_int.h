/* What the account RPCs' files share (rpc.c, rpc_info.c). */
#ifndef WSEQ_RPC_INT_H
#define WSEQ_RPC_INT_H

#include "web.h"
#include "db_records.h"

#define XML_HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n"

/* "    <name>value</name>\n", the value %-encoded (xml_write.h for the rest). */
void elem_url(struct sbuf *b, const char *name, const char *value);
/* The reply becomes an XML document: its declaration so far. */
void start_xml(struct web_reply *o);
/* The error document (logged). */
void rpc_error(const struct web_req *r, struct web_reply *o, int num, const char *msg);
void acct_error(const struct web_req *r, struct web_reply *o, const struct account_error *e);
/* A required parameter, or NULL after an error reply naming it. */
const char *need(const struct web_req *r, struct web_reply *o, const char *name);
/* The project is up and the database reachable, else an error reply. */
bool usable(const struct web_ctx *c, const struct web_req *r, struct web_reply *o);
/* The account whose authenticator is parameter name, else an error reply (-136). */
bool by_key(const struct web_ctx *c, const struct web_req *r, struct web_reply *o,
	    const char *name, struct db_user *u);

void am_set_info(const struct web_ctx *c, const struct web_req *r, struct web_reply *o);
void show_user_xml(const struct web_ctx *c, const struct web_req *r, struct web_reply *o);
void team_lookup(const struct web_ctx *c, const struct web_req *r, struct web_reply *o);
/* A team's public fields as <team>..</team>. */
void team_xml(struct sbuf *b, const struct db_team *t);

#endif
