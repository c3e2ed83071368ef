/*
 * What boinc_gahp reads back from a project (gahp/submit_client.c,
 * boinc_gahp_cmd.c, boinc_gahp_fetch.c): the reply body of every remote
 * submission RPC -- XML, BOINC's <error> element, the expected root --
 * then the parts the commands interpret: get_templates' open names,
 * query_batch2's batch sizes and job statuses, query_completed_job's
 * entity-escaped stderr. The server is not ours to trust either (a
 * misconfigured URL, a proxy's error page). The first byte picks the RPC;
 * the rest is the reply. Property: the result line built from a
 * query_batch2 reply splits back into one token a batch size and two a job.
 */
#include "fuzz.h"
#include "boinc_gahp.h"
#include "submit_client.h"

static const char *const roots[] = {
	"ping", "get_templates", "create_batch", "query_files", "upload_files", "submit_batch",
	"query_batch2", "query_completed_job", "abort_jobs", "retire_batch", "set_expire_time",
};

static void query_batch2(xmlNode *root)
{
	struct sbuf out = SBUF_INIT(1 << 24), err = SBUF_INIT(4096);
	char **argv = NULL;
	long nbatches = 0, njobs = 0;
	xmlNode *c;
	int n;

	for (c = root->children; c; c = c->next) {
		nbatches += xml_is(c, "batch_size");
		njobs += xml_is(c, "job");
	}
	if (gahp_query_reply(root, nbatches, &out, &err) == 0) {
		char *line = xstrdup(sbuf_str(&out));

		n = gahp_split(line, &argv);
		FUZZ_CHECK(n == nbatches + 2 * njobs);
		free(argv);
		free(line);
	}
	sbuf_release(&out);
	sbuf_release(&err);
}

static void completed_job(xmlNode *root)
{
	xmlNode *job = xml_child(root, "completed_job"), *se;
	char *text;

	if (!job || !(se = xml_child(job, "stderr_out")))
		return;
	text = (char *)xmlNodeGetContent(se);
	if (text) {
		size_t before = strlen(text);

		gahp_unescape_entities(text);
		FUZZ_CHECK(strlen(text) <= before);
	}
	xmlFree(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct rpc_templates t;
	const char *root_name;
	xmlDoc *doc;

	fuzz_setup();
	if (size < 1)
		return 0;
	root_name = roots[data[0] % ARRAY_SIZE(roots)];
	if (rpc_reply_parse((const char *)data + 1, size - 1, "submit_rpc_handler.php", root_name,
			    &doc, &err) < 0) {
		FUZZ_CHECK(err.len > 0 && doc == NULL);
		goto out;
	}
	if (!strcmp(root_name, "get_templates")) {
		rpc_templates_from_reply(doc, &t, &err);
		rpc_templates_release(&t);
	} else if (!strcmp(root_name, "query_batch2")) {
		query_batch2(xmlDocGetRootElement(doc));
	} else if (!strcmp(root_name, "query_completed_job")) {
		completed_job(xmlDocGetRootElement(doc));
	}
	xmlFreeDoc(doc);
out:
	sbuf_release(&err);
	return 0;
}
