/*
 * The remote job submission RPCs (submit/submit_rpc.c) up to where the
 * database is needed: the XML request a submitter's client (boinc_gahp,
 * BOINC's submit scripts) posts as the form field "request" -- parsed,
 * dispatched and read as far as each RPC reads it before it authenticates
 * -- with the files of upload_files as parts file_0, file_1, ... (after
 * "\n--file--\n" separators). An input starting with '?' is instead the
 * query string of get_output.php. Without a database every RPC must answer
 * in BOINC's error form that the database is unavailable, and the reply
 * must be well-formed XML with the request's root (or <error>). The same
 * parts go through submit_head_check(), the look at a large body's first
 * bytes for its authenticator, which must refuse them (no database) with a
 * reason.
 */
#include "fuzz.h"
#include "submit.h"
#include "xml.h"

#define FILE_SEPARATOR "\n--file--\n"
#define MAX_FILES 4

static void get_output(const uint8_t *data, size_t size)
{
	char *q = fuzz_cstr(data + 1, size - 1), *out = NULL;
	struct project_config cfg = { .upload_dir = (char *)"/nonexistent", .uldl_dir_fanout = 16 };
	struct submit_ctx c = { .cfg = &cfg, .db = NULL, .remote_addr = "fuzz" };
	struct sbuf err = SBUF_INIT(1024);
	struct form f;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);

	if (!fp)
		abort();
	if (form_parse_query(q, &f, &err) == 0)
		submit_get_output(&c, &f, fp);
	fclose(fp);
	/* Without a database, nothing but an error can come out. */
	FUZZ_CHECK(len == 0 || !strncmp(out, "Status: 4", 9) || !strncmp(out, "Status: 503", 11));
	form_release(&f);
	sbuf_release(&err);
	free(out);
	free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct project_config cfg = { .long_name = (char *)"fuzz" };
	struct submit_ctx c = { .cfg = &cfg, .db = NULL, .remote_addr = "fuzz" };
	struct form_part parts[1 + MAX_FILES];
	char names[MAX_FILES][16];
	struct form f = { parts, 0 };
	struct sbuf out = SBUF_INIT(1 << 20);
	const char *p = (const char *)data, *end = p + size;
	xmlDoc *doc;
	xmlNode *root;

	fuzz_setup();
	if (size > 0 && data[0] == '?') {
		get_output(data, size);
		return 0;
	}
	memset(parts, 0, sizeof(parts));
	while (f.n < 1 + MAX_FILES) {
		const char *sep = memmem(p, (size_t)(end - p), FILE_SEPARATOR, strlen(FILE_SEPARATOR));
		struct form_part *part = &parts[f.n];

		if (f.n == 0) {
			part->name = (char *)"request";
		} else {
			snprintf(names[f.n - 1], sizeof(names[0]), "file_%zu", f.n - 1);
			part->name = names[f.n - 1];
		}
		part->data = p;
		part->len = sep ? (size_t)(sep - p) : (size_t)(end - p);
		f.n++;
		if (!sep)
			break;
		p = sep + strlen(FILE_SEPARATOR);
	}
	submit_rpc(&c, &f, &out);
	{
		struct sbuf why = SBUF_INIT(4096);

		FUZZ_CHECK(submit_head_check(&c, &f, (long)size, &why) < 0 && why.len > 0);
		sbuf_release(&why);
	}

	doc = xml_read_memory(out.buf ? out.buf : "", out.len, "reply", NULL);
	root = doc ? xmlDocGetRootElement(doc) : NULL;
	FUZZ_CHECK(root != NULL);
	if (!xml_is(root, "error")) {
		xmlNode *e = xml_child(root, "error");
		char *msg = e ? xml_child_text(e, "error_msg") : NULL;

		/* a known RPC: it got as far as the database, and no further */
		FUZZ_CHECK(msg != NULL);
		FUZZ_CHECK(!strcmp(msg, "bad command") || strstr(msg, "database is unavailable"));
		free(msg);
	}
	xmlFreeDoc(doc);
	sbuf_release(&out);
	return 0;
}
