/*
 * Writing the scheduler reply the BOINC 7.20 client parses
 * (scheduler_op.cpp SCHEDULER_REPLY::parse): every object a top-level child
 * of <scheduler_reply>, one tag a line. Jobs are written from their
 * database records: the workunit's xml_doc gives the input file_infos and
 * the file_refs, the result's xml_doc_in the output file_infos and file_refs.
 * A known user's reply carries the project's links and notices feed for the
 * Manager (<gui_urls>, <rss_feeds>: sched_reply_gui_urls).
 */
#include "sched_types.h"
#include "sched_policy.h"
#include "config.h"
#include "fileutil.h"
#include "crypt_rsa.h"
#include "upload_cert.h"
#include "log.h"
#include "xml.h"
#include "xml_write.h"

#include <ctype.h>

#define MAX_REPLY_NAMES 100000

void sched_reply_init(struct sched_reply *r)
{
	memset(r, 0, sizeof(*r));
	sbuf_init(&r->extra, 64 << 20);
	prefs_project_init(&r->prefs);
}

static void free_names(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sched_reply_release(struct sched_reply *r)
{
	size_t i;

	for (i = 0; i < r->nmessages; i++)
		free(r->messages[i].text);
	free(r->messages);
	free_names(r->acks, r->nacks);
	free_names(r->aborts, r->naborts);
	free_names(r->abort_if_not_started, r->nabort_if_not_started);
	free_names(r->delete_files, r->ndelete_files);
	for (i = 0; i < r->njobs; i++) {
		db_result_release(&r->jobs[i].result);
		db_workunit_release(&r->jobs[i].wu);
	}
	free(r->jobs);
	free(r->touches);
	free(r->usable);
	sbuf_release(&r->extra);
	free(r->account.user_name);
	free(r->account.cross_project_id);
	free(r->account.project_prefs);
	free(r->account.host_venue);
	free(r->account.team_name);
	free(r->account.global_prefs);
	prefs_project_release(&r->prefs);
	memset(r, 0, sizeof(*r));
}

void sched_reply_message(struct sched_reply *r, const char *priority, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text)
		return;
	ARRAY_GROW(r->messages, r->nmessages);
	r->messages[r->nmessages].text = text;
	r->messages[r->nmessages].priority = priority;
	r->nmessages++;
}

void sched_reply_add(char ***list, size_t *n, const char *name)
{
	if (*n >= MAX_REPLY_NAMES)
		return;
	ARRAY_GROW(*list, *n);
	(*list)[(*n)++] = xstrdup(name);
}

struct sched_reply_mark sched_reply_mark(const struct sched_reply *r)
{
	struct sched_reply_mark m = { r->njobs, r->naborts, r->ndelete_files, r->extra.len,
				      r->ntouches };

	return m;
}

void sched_reply_back_to(struct sched_reply *r, struct sched_reply_mark m)
{
	while (r->njobs > m.njobs) {
		r->njobs--;
		r->rsc_secs[r->jobs[r->njobs].rsc] -= r->jobs[r->njobs].seconds;
		r->rsc_insts[r->jobs[r->njobs].rsc] -= r->jobs[r->njobs].instances;
		r->rsc_room[r->jobs[r->njobs].rsc]++;
		db_result_release(&r->jobs[r->njobs].result);
		db_workunit_release(&r->jobs[r->njobs].wu);
	}
	while (r->naborts > m.naborts)
		free(r->aborts[--r->naborts]);
	while (r->ndelete_files > m.ndelete_files)
		free(r->delete_files[--r->ndelete_files]);
	if (r->extra.len > m.extra_len)
		sbuf_truncate(&r->extra, m.extra_len);
	if (r->ntouches > m.ntouches)
		r->ntouches = m.ntouches;
}

bool sched_reply_acked(const struct sched_reply *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nacks; i++)
		if (!strcmp(r->acks[i], name))
			return true;
	return false;
}

void sched_reply_touch(struct sched_reply *r, int64_t wuid, int64_t t)
{
	size_t i;

	for (i = 0; i < r->ntouches; i++) {
		if (r->touches[i].wuid == wuid) {
			if (t < r->touches[i].t)
				r->touches[i].t = t;
			return;
		}
	}
	ARRAY_GROW(r->touches, r->ntouches);
	r->touches[r->ntouches].wuid = wuid;
	r->touches[r->ntouches++].t = t;
}

static void name_list(struct sbuf *b, const char *tag, char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		sbuf_addf(b, "<%s>\n", tag);
		xml_elem_str(b, 4, "name", v[i]);
		sbuf_addf(b, "</%s>\n", tag);
	}
}

/* Parse one of our own xml_doc fragments (several top-level elements). */
static xmlDoc *parse_fragment(const char *doc, const char *what)
{
	struct sbuf w = SBUF_INIT(64 << 20);
	xmlDoc *d;

	sbuf_addstr(&w, "<fragment>");
	sbuf_addstr(&w, doc ? doc : "");
	sbuf_addstr(&w, "</fragment>");
	d = xml_read_memory(sbuf_str(&w), w.len, what, NULL);
	sbuf_release(&w);
	return d;
}

struct seen {
	char **names;
	size_t n;
};

static bool seen_add(struct seen *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return false;
	ARRAY_GROW(s->names, s->n);
	s->names[s->n++] = xstrdup(name);
	return true;
}

static void seen_release(struct seen *s)
{
	free_names(s->names, s->n);
	s->names = NULL;
	s->n = 0;
}

/*
 * Copy the top-level <file_info>s of a fragment, each file once per reply;
 * with upload_key, each uploaded output's certificate is checked (made when
 * it has none or the key does not verify it).
 */
static int copy_file_infos(struct sbuf *b, xmlNode *root, struct seen *files, EVP_PKEY *upload_key)
{
	xmlNode *n;

	xml_for_each(n, root, "file_info") {
		char *name = xml_child_text(n, "name");
		bool fresh = name && seen_add(files, name);
		int rc = 0;

		if (fresh && upload_key)
			rc = upload_cert_ensure(n, name, upload_key);
		free(name);
		if (rc < 0)
			return -1;
		if (!fresh)
			continue;
		if (xml_serialize(n, b) < 0 || sbuf_addch(b, '\n') < 0)
			return -1;
	}
	return 0;
}

/* Copy the children of the fragment's first <tag> element (file_refs, command_line). */
static int copy_children(struct sbuf *b, xmlNode *root, const char *tag)
{
	xmlNode *t = xml_child(root, tag), *c;

	if (!t)
		return 0;
	xml_for_each(c, t, NULL) {
		if (xml_is(c, "name") || xml_is(c, "app_name") || xml_is(c, "wu_name"))
			continue;
		sbuf_addstr(b, "    ");
		if (xml_serialize(c, b) < 0 || sbuf_addch(b, '\n') < 0)
			return -1;
	}
	return 0;
}

static int write_job(struct sbuf *b, const struct sched_job *j, struct seen *files,
		     EVP_PKEY *upload_key)
{
	xmlDoc *wd = parse_fragment(j->wu.xml_doc, j->wu.name);
	xmlDoc *rd = parse_fragment(j->result.xml_doc_in, j->result.name);
	int rc = -1;

	if (!wd || !rd) {
		log_error("job %s: stored xml_doc does not parse", j->result.name);
		goto out;
	}
	if (copy_file_infos(b, xmlDocGetRootElement(wd), files, NULL) < 0 ||
	    copy_file_infos(b, xmlDocGetRootElement(rd), files, upload_key) < 0)
		goto out;
	sbuf_addstr(b, "<workunit>\n");
	xml_elem_str(b, 4, "name", j->wu.name);
	xml_elem_str(b, 4, "app_name", j->app->name);
	sbuf_addf(b, "    <version_num>%d</version_num>\n", j->av->version_num);
	sbuf_addf(b, "    <rsc_fpops_est>%.17g</rsc_fpops_est>\n", j->wu.rsc_fpops_est);
	sbuf_addf(b, "    <rsc_fpops_bound>%.17g</rsc_fpops_bound>\n", j->wu.rsc_fpops_bound);
	sbuf_addf(b, "    <rsc_memory_bound>%.17g</rsc_memory_bound>\n", j->wu.rsc_memory_bound);
	sbuf_addf(b, "    <rsc_disk_bound>%.17g</rsc_disk_bound>\n", j->wu.rsc_disk_bound);
	if (copy_children(b, xmlDocGetRootElement(wd), "workunit") < 0)
		goto out;
	sbuf_addstr(b, "</workunit>\n<result>\n");
	xml_elem_str(b, 4, "name", j->result.name);
	xml_elem_str(b, 4, "wu_name", j->wu.name);
	sbuf_addf(b, "    <report_deadline>%" PRId64 "</report_deadline>\n", j->result.report_deadline);
	xml_elem_str(b, 4, "platform", j->platform);
	sbuf_addf(b, "    <version_num>%d</version_num>\n", j->av->version_num);
	if (j->av->plan_class && *j->av->plan_class)
		xml_elem_str(b, 4, "plan_class", j->av->plan_class);
	if (copy_children(b, xmlDocGetRootElement(rd), "result") < 0)
		goto out;
	rc = sbuf_addstr(b, "</result>\n");
out:
	if (wd)
		xmlFreeDoc(wd);
	if (rd)
		xmlFreeDoc(rd);
	return rc;
}

/*
 * The version's stored <app_version> (after its file_infos), with how it
 * uses this host before its end, as upstream's APP_VERSION::write does:
 * the CPUs, the speed the client estimates runtimes and limits with, the
 * coprocessor (the client then runs the job on one of them and passes
 * --device N), and the plan class's command line after the version's own
 * (the client keeps the last <cmdline>).
 */
static void write_app_version(struct sbuf *b, const struct sched_job *j)
{
	const char *doc = j->av->xml_doc ? j->av->xml_doc : "";
	const char *end = NULL, *p, *c0, *c1;
	const struct host_usage *u = j->bav ? &j->bav->u : NULL;

	for (p = strstr(doc, "</app_version>"); p; p = strstr(p + 1, "</app_version>"))
		end = p;
	if (!u || !end) {
		sbuf_addstr(b, doc);
		sbuf_addch(b, '\n');
		return;
	}
	sbuf_add(b, doc, (size_t)(end - doc));
	sbuf_addf(b, "    <avg_ncpus>%g</avg_ncpus>\n    <max_ncpus>%g</max_ncpus>\n"
		     "    <flops>%.17g</flops>\n", u->avg_ncpus, u->max_ncpus, u->projected_flops);
	if (u->rsc > 0 && u->ncoproc > 0) {
		sbuf_addstr(b, "    <coproc>\n");
		xml_elem_str(b, 4, "type", j->bav->rsc_type);
		sbuf_addf(b, "        <count>%g</count>\n    </coproc>\n", u->ncoproc);
		if (u->gpu_ram > 0)
			sbuf_addf(b, "    <gpu_ram>%.0f</gpu_ram>\n", u->gpu_ram);
	}
	if (*u->cmdline) {
		/* the stored one is escaped already: copied as it is */
		c0 = strstr(doc, "<cmdline>");
		c1 = c0 ? strstr(c0, "</cmdline>") : NULL;
		sbuf_addstr(b, "    <cmdline>");
		if (c0 && c1 && c1 < end && c1 > c0 + 9) {
			sbuf_add(b, c0 + 9, (size_t)(c1 - c0 - 9));
			sbuf_addch(b, ' ');
		}
		xml_add_text(b, u->cmdline);
		sbuf_addstr(b, "</cmdline>\n");
	}
	sbuf_addstr(b, end);
	sbuf_addch(b, '\n');
}

/* The user, host and team fields the client keeps and the Manager shows. */
static void write_account(struct sbuf *b, const struct sched_reply_account *a)
{
	sbuf_addf(b, "<userid>%" PRId64 "</userid>\n", a->userid);
	xml_elem_str(b, 4, "user_name", a->user_name);
	sbuf_addf(b, "<user_total_credit>%f</user_total_credit>\n"
		     "<user_expavg_credit>%f</user_expavg_credit>\n"
		     "<user_create_time>%" PRId64 "</user_create_time>\n",
		  a->user_total_credit, a->user_expavg_credit, a->user_create_time);
	xml_elem_str(b, 4, "email_hash", a->email_hash);
	xml_elem_str(b, 4, "cross_project_id", a->cross_project_id);
	xml_elem_str(b, 4, "external_cpid", a->external_cpid);
	sbuf_addf(b, "<host_total_credit>%f</host_total_credit>\n"
		     "<host_expavg_credit>%f</host_expavg_credit>\n"
		     "<host_create_time>%" PRId64 "</host_create_time>\n",
		  a->host_total_credit, a->host_expavg_credit, a->host_create_time);
	xml_elem_str(b, 4, "host_venue", a->host_venue);
	if (a->team_name) {
		sbuf_addf(b, "<teamid>%" PRId64 "</teamid>\n", a->teamid);
		xml_elem_str(b, 4, "team_name", a->team_name);
	} else {
		sbuf_addstr(b, "<team_name></team_name>\n");
	}
	/* computing prefs newer than the client's: they replace its own (upstream's rule) */
	if (a->global_prefs && !strncmp(a->global_prefs, "<global_preferences>", 20))
		sbuf_addf(b, "%s\n", a->global_prefs);
	/* the client keeps project prefs as sent: a well-formed document or nothing */
	if (a->project_prefs && !strncmp(a->project_prefs, "<project_preferences>", 21))
		sbuf_addf(b, "%s\n", a->project_prefs);
}

int sched_reply_write(const struct sched_reply *r, struct sbuf *b)
{
	struct seen apps = { 0 }, versions = { 0 }, files = { 0 };
	size_t i;
	int rc = 0;

	sbuf_addstr(b, "<scheduler_reply>\n");
	sbuf_addstr(b, "<scheduler_version>720</scheduler_version>\n");
	if (r->project_name)
		xml_elem_str(b, 0, "project_name", r->project_name);
	if (r->project_is_down)
		sbuf_addstr(b, "<project_is_down/>\n");
	for (i = 0; i < r->nmessages; i++) {
		if (r->messages[i].priority)
			sbuf_addf(b, "<message priority=\"%s\">", r->messages[i].priority);
		else
			sbuf_addstr(b, "<message>");
		xml_add_text(b, r->messages[i].text);
		sbuf_addstr(b, "</message>\n");
	}
	if (r->request_delay > 0)
		sbuf_addf(b, "<request_delay>%.0f</request_delay>\n", r->request_delay);
	if (r->next_rpc_delay > 0)
		sbuf_addf(b, "<next_rpc_delay>%.0f</next_rpc_delay>\n", r->next_rpc_delay);
	if (r->hostid)
		sbuf_addf(b, "<hostid>%" PRId64 "</hostid>\n", r->hostid);
	if (r->account.known)
		write_account(b, &r->account);
	if (r->code_sign_key) {
		sbuf_addstr(b, "<code_sign_key>\n");
		sbuf_addstr(b, r->code_sign_key);
		sbuf_addstr(b, "</code_sign_key>\n");
	}
	name_list(b, "result_ack", r->acks, r->nacks);
	name_list(b, "result_abort", r->aborts, r->naborts);
	name_list(b, "result_abort_if_not_started", r->abort_if_not_started, r->nabort_if_not_started);
	for (i = 0; i < r->ndelete_files; i++)
		xml_elem_str(b, 0, "delete_file_info", r->delete_files[i]);
	for (i = 0; i < r->njobs && rc == 0; i++) {
		const struct sched_job *j = &r->jobs[i];

		if (seen_add(&apps, j->app->name)) {
			sbuf_addstr(b, "<app>\n");
			xml_elem_str(b, 4, "name", j->app->name);
			xml_elem_str(b, 4, "user_friendly_name",
				 *j->app->user_friendly_name ? j->app->user_friendly_name : j->app->name);
			sbuf_addstr(b, "</app>\n");
		}
		{
			char key[32];
			snprintf(key, sizeof(key), "%" PRId64, j->av->id);
			if (seen_add(&versions, key))
				write_app_version(b, j);
		}
		rc = write_job(b, j, &files, r->upload_key);
	}
	if (r->extra.len)
		sbuf_add(b, r->extra.buf, r->extra.len);
	if (sbuf_addstr(b, "</scheduler_reply>\n") < 0)
		rc = -1;
	seen_release(&apps);
	seen_release(&versions);
	seen_release(&files);
	return rc;
}

/* ---- the Manager's project links and notices feed: <gui_urls>, <rss_feeds> ---- */

#define GUI_URLS_MAX (64L << 10)

/*
 * What a project without its own gui_urls.xml sends: its pages, and its
 * news as the feed the Manager shows as notices (upstream's
 * tools/gui_urls.xml, with wseq's page names).
 */
static const char gui_urls_default[] =
	"<gui_urls>\n"
	"    <gui_url>\n"
	"        <name>Your account</name>\n"
	"        <description>View your account information</description>\n"
	"        <url><master_url/>account</url>\n"
	"    </gui_url>\n"
	"    <gui_url>\n"
	"        <name>Your tasks</name>\n"
	"        <description>View the last week or so of computational work</description>\n"
	"        <url><master_url/>results</url>\n"
	"    </gui_url>\n"
	"    <ifteam>\n"
	"        <gui_url>\n"
	"            <name>Your team</name>\n"
	"            <description>View information about your team: <team_name/></description>\n"
	"            <url><master_url/>team?id=<teamid/></url>\n"
	"        </gui_url>\n"
	"    </ifteam>\n"
	"    <gui_url>\n"
	"        <name>News</name>\n"
	"        <description>News from <project_name/></description>\n"
	"        <url><master_url/>news</url>\n"
	"    </gui_url>\n"
	"    <gui_url>\n"
	"        <name>Server status</name>\n"
	"        <description>The project's servers and work</description>\n"
	"        <url><master_url/>server_status</url>\n"
	"    </gui_url>\n"
	"</gui_urls>\n"
	"<rss_feeds>\n"
	"    <rss_feed>\n"
	"        <url><master_url/>notices.php?userid=<userid/>&auth=<rss_auth/></url>\n"
	"        <poll_interval>86400</poll_interval>\n"
	"    </rss_feed>\n"
	"</rss_feeds>\n";

struct gui_subst {
	const char *tag;
	const char *value;
};

/* The length of an entity reference at s ("&amp;", "&#38;"), 0 if none. */
static size_t entity_len(const char *s)
{
	size_t n = 1;

	if (s[n] == '#')
		n++;
	if (!isalnum((unsigned char)s[n]))
		return 0;
	while (isalnum((unsigned char)s[n]) && n < 12)
		n++;
	return s[n] == ';' ? n + 1 : 0;
}

/*
 * The template with each <tag/> replaced by its value escaped for XML,
 * <ifteam>...</ifteam> kept only for a team's member, and a bare '&'
 * (upstream's own file writes "&auth=") as "&amp;".
 */
static void gui_urls_expand(struct sbuf *b, const char *s, const struct gui_subst *sub,
			    size_t nsub, bool team)
{
	size_t i, n;

	while (*s) {
		if (*s == '&') {
			n = entity_len(s);
			sbuf_add(b, n ? s : "&amp;", n ? n : 5);
			s += n ? n : 1;
			continue;
		}
		if (*s != '<') {
			sbuf_addch(b, *s++);
			continue;
		}
		if (!strncmp(s, "<ifteam>", 8)) {
			const char *end = strstr(s, "</ifteam>");

			s = team || !end ? s + 8 : end + 9;
			continue;
		}
		if (!strncmp(s, "</ifteam>", 9)) {
			s += 9;
			continue;
		}
		for (i = 0; i < nsub; i++) {
			n = strlen(sub[i].tag);
			if (!strncmp(s, sub[i].tag, n))
				break;
		}
		if (i < nsub) {
			xml_add_text(b, sub[i].value ? sub[i].value : "");
			s += n;
		} else {
			sbuf_addch(b, *s++);
		}
	}
}

/* The admin's gui_urls.xml of the project, or the default: 0, or -1 (logged). */
static int gui_urls_template(const char *project_dir, struct sbuf *t)
{
	char *path = xasprintf("%s/gui_urls.xml", project_dir ? project_dir : ".");
	int rc = 0;

	if (access(path, F_OK) != 0)
		sbuf_addstr(t, gui_urls_default);
	else if (read_file(path, GUI_URLS_MAX, t) < 0)
		rc = log_error("%s: cannot be read (at most %ld bytes)", path, GUI_URLS_MAX);
	free(path);
	return rc;
}

int sched_reply_gui_urls(struct sched_reply *r, const struct project_config *cfg, int64_t hostid)
{
	const struct sched_reply_account *a = &r->account;
	struct sbuf t = SBUF_INIT(GUI_URLS_MAX + 1), out = SBUF_INIT(4 * GUI_URLS_MAX);
	struct sbuf frag = SBUF_INIT(4 * GUI_URLS_MAX + 64);
	char userid[24], teamid[24], host[24];
	struct gui_subst sub[] = {
		{ "<master_url/>", cfg->master_url }, { "<project_name/>", cfg->long_name },
		{ "<userid/>", userid }, { "<user_name/>", a->user_name },
		{ "<teamid/>", teamid }, { "<team_name/>", a->team_name },
		{ "<hostid/>", host }, { "<rss_auth/>", a->rss_auth },
	};
	xmlDoc *d = NULL;
	int rc = -1;

	if (!a->known || gui_urls_template(cfg->project_dir, &t) < 0)
		goto out;
	snprintf(userid, sizeof(userid), "%" PRId64, a->userid);
	snprintf(teamid, sizeof(teamid), "%" PRId64, a->team_name ? a->teamid : 0);
	snprintf(host, sizeof(host), "%" PRId64, hostid);
	gui_urls_expand(&out, sbuf_str(&t), sub, ARRAY_SIZE(sub), a->team_name != NULL);
	sbuf_addf(&frag, "<fragment>%s</fragment>", sbuf_str(&out));
	d = xml_read_memory(sbuf_str(&frag), frag.len, "gui_urls.xml", NULL);
	if (!d) {
		log_error("gui_urls.xml: not well-formed once filled in: not sent");
		goto out;
	}
	rc = sbuf_add(&r->extra, out.buf, out.len);
out:
	if (d)
		xmlFreeDoc(d);
	sbuf_release(&t);
	sbuf_release(&out);
	sbuf_release(&frag);
	return rc;
}
