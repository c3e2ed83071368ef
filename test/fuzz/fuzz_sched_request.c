/*
 * The scheduler request (sched/sched_request.c) as a BOINC client -- or
 * anyone -- sends it: parsed by sched_request_parse(), then handled whole by
 * sched_handle() without a database, which parses it again and writes the
 * reply a client gets while the project is down or the request is refused.
 * Properties: every reported result's xml_doc_out (later stored and parsed
 * again) is well-formed XML, and the reply always parses as a
 * <scheduler_reply>.
 */
#include "fuzz.h"
#include "scheduler.h"
#include "sched_types.h"
#include "xml.h"

static void check_xml(const char *what, const char *text)
{
	char *doc = xasprintf("<%s>%s</%s>", what, text ? text : "", what);
	xmlDoc *d = xml_read_memory(doc, strlen(doc), what, NULL);

	FUZZ_CHECK(d != NULL);
	xmlFreeDoc(d);
	free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sched_settings set;
	static struct project_config cfg;
	struct sched_ctx ctx = { .cfg = &cfg, .set = &set, .db = NULL, .remote_addr = "fuzz" };
	struct sched_request req;
	struct sbuf err = SBUF_INIT(2048), reply = SBUF_INIT(1 << 20);
	xmlDoc *doc;
	size_t i;

	fuzz_setup();
	if (!cfg.long_name) {
		param_set_defaults(sched_params, &set);
		cfg.long_name = xstrdup("fuzz project");
	}
	if (sched_request_parse((const char *)data, size, &req, &err) == 0)
		for (i = 0; i < req.nresults; i++)
			check_xml("xml_doc_out", req.results[i].xml_doc_out);
	sched_request_free(&req);

	sched_handle(&ctx, (const char *)data, size, &reply);
	doc = xml_read_memory(reply.buf ? reply.buf : "", reply.len, "reply", NULL);
	FUZZ_CHECK(doc && xml_is(xmlDocGetRootElement(doc), "scheduler_reply"));
	xmlFreeDoc(doc);
	sbuf_free(&reply);
	sbuf_free(&err);
	return 0;
}
