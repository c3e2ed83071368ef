/*
 * Input and output templates (backend/template.c) as create_work, the
 * remote submission RPCs and the transitioner read them from the project's
 * templates/ directory. The first byte picks the kind (even: input, odd:
 * output); the rest is the template. A template that parses is then turned
 * into the xml_doc of a workunit or the xml_doc_in of a result, which the
 * scheduler copies into its replies to clients. Property: that document is
 * always well-formed XML.
 */
#include "fuzz.h"
#include "template.h"
#include "xml.h"

static void check_doc(const struct sbuf *b)
{
	char *text = xasprintf("<doc>%s</doc>", sbuf_str(b));
	xmlDoc *d = xml_read_memory(text, strlen(text), "xml_doc", NULL);

	FUZZ_CHECK(d != NULL);
	xmlFreeDoc(d);
	free(text);
}

static void input(const char *text, size_t len)
{
	struct input_template t;
	struct template_infile files[64];
	struct sbuf doc = SBUF_INIT(TEMPLATE_MAX * 2);
	size_t i;

	if (input_template_parse(text, len, "fuzz_in", &t) < 0)
		return;
	for (i = 0; i < t.nfiles && i < ARRAY_SIZE(files); i++) {
		files[i].name = i % 2 ? "in_<&>_1" : "plain";
		files[i].url = "http://x/download/a&b";
		files[i].md5 = "0123456789abcdef0123456789abcdef";
		files[i].nbytes = 1e9;
	}
	if (t.nfiles <= ARRAY_SIZE(files)) {
		if (input_template_process(&t, files, t.nfiles, NULL, &doc) == 0)
			check_doc(&doc);
		sbuf_reset(&doc);
		if (input_template_process(&t, files, t.nfiles, "--x <y> & z", &doc) == 0)
			check_doc(&doc);
	}
	sbuf_release(&doc);
	input_template_release(&t);
}

static void output(const char *text, size_t len)
{
	struct result_template t;
	struct sbuf doc = SBUF_INIT(TEMPLATE_MAX * 2);

	if (result_template_parse(text, len, "fuzz_out", &t) < 0)
		return;
	if (result_template_process(&t, "wu_1_r0<&>", "http://x/cgi-bin/file_upload_handler", &doc) == 0)
		check_doc(&doc);
	sbuf_release(&doc);
	result_template_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_setup();
	fuzz_two_ways(data, size, input, output);
	return 0;
}
