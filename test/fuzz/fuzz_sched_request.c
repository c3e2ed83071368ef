/*
 * The scheduler request (sched/sched_request.c, sched/sched_clean.c) as a
 * BOINC client -- or anyone -- sends it, parsed by sched_request_parse(),
 * and the parts of the reply (sched/sched_reply.c) that echo what it sent.
 * Properties: what the parser keeps is what the database and later XML
 * documents can hold -- host strings within their column and valid text,
 * a reported stderr of characters XML carries (query_completed_job serves
 * it again, escaped), MD5s of 32 hex digits or none, the CPU first among
 * at most SCHED_MAX_RSC resources (fuzz_sched_coprocs checks the rest) -- and the reply
 * with the parser's notes and the echoed result and file names always
 * parses as a <scheduler_reply>. (sched_handle() without a database adds
 * nothing: its reply is then a fixed "unavailable" or "could not read".)
 */
#include "fuzz.h"
#include "field.h"
#include "scheduler.h"
#include "sched_types.h"
#include "xml.h"

static void check_text(const char *s, size_t max_chars)
{
	size_t chars = 0;

	if (!s)
		return;
	FUZZ_CHECK(field_text_ok(s, strlen(s), true));
	for (const char *p = s; *p; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	FUZZ_CHECK(chars <= max_chars);
}

static void check_request(const struct sched_request *r)
{
	static const size_t host_strs[] = {
		offsetof(struct db_host, host_cpid), offsetof(struct db_host, domain_name),
		offsetof(struct db_host, serialnum), offsetof(struct db_host, last_ip_addr),
		offsetof(struct db_host, p_vendor), offsetof(struct db_host, p_model),
		offsetof(struct db_host, os_name), offsetof(struct db_host, os_version),
		offsetof(struct db_host, product_name),
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(host_strs); i++)
		check_text(*(char **)((const char *)&r->host + host_strs[i]), FIELD_COLUMN_CHARS);
	check_text(r->notes, SIZE_MAX);
	check_text(r->p_features, 8191);
	FUZZ_CHECK(r->nrsc >= 1 && r->nrsc <= SCHED_MAX_RSC && !strcmp(r->rsc[0].type, "CPU"));
	for (i = 1; i < (size_t)r->nrsc; i++)
		FUZZ_CHECK(r->rsc[i].count >= 1 && r->rsc[i].count <= SCHED_COPROC_MAX_COUNT);
	for (i = 0; i < r->nresults; i++) {
		const struct sched_result_report *x = &r->results[i];

		check_text(x->stderr_out, SIZE_MAX);
		check_text(x->platform, FIELD_COLUMN_CHARS);
		check_text(x->plan_class, FIELD_COLUMN_CHARS);
		for (j = 0; j < x->nfiles; j++) {
			const char *m = x->files[j].md5_cksum;

			FUZZ_CHECK(!*m || (strlen(m) == 32 && strspn(m, "0123456789abcdefABCDEF") == 32));
		}
	}
}

/*
 * The reply a known host would get for this request: the notes in a
 * <message>, every reported result acknowledged and every other result
 * named for abortion, the names echoed as the client sent them.
 */
static void check_reply(const struct sched_request *r)
{
	struct sched_reply reply;
	struct sbuf out = SBUF_INIT(1 << 22);
	xmlDoc *doc;
	size_t i;

	sched_reply_init(&reply);
	reply.project_name = "fuzz project";
	if (r->notes && *r->notes)
		sched_reply_message(&reply, "low", "The project corrected fields of the scheduler "
				    "request: %s", r->notes);
	for (i = 0; i < r->nresults; i++)
		sched_reply_add(&reply.acks, &reply.nacks, r->results[i].name);
	for (i = 0; i < r->nother; i++)
		sched_reply_add(&reply.aborts, &reply.naborts, r->other[i].name);
	for (i = 0; i < r->nsticky; i++)
		sched_reply_add(&reply.delete_files, &reply.ndelete_files, r->sticky[i].name);
	if (sched_reply_write(&reply, &out) == 0) {
		doc = xml_read_memory(out.buf, out.len, "reply", NULL);
		if (!doc || !xml_is(xmlDocGetRootElement(doc), "scheduler_reply"))
			fprintf(stderr, "the reply: %s\n", sbuf_str(&out));
		FUZZ_CHECK(doc && xml_is(xmlDocGetRootElement(doc), "scheduler_reply"));
		xmlFreeDoc(doc);
	}
	sched_reply_release(&reply);
	sbuf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sched_request req;
	struct sbuf err = SBUF_INIT(2048);

	fuzz_setup();
	if (sched_request_parse((const char *)data, size, &req, &err) == 0) {
		check_request(&req);
		check_reply(&req);
	} else {
		FUZZ_CHECK(err.len > 0);
	}
	sched_request_release(&req);
	sbuf_release(&err);
	return 0;
}
