/*
 * The rule of what a job's text may choose on a host (exec_rule.h): the
 * words of a command line and the open names of inputs.
 */
#include "exec_rule.h"
#include "dirhier.h"
#include "xml.h"

/* The option that chose wseq_wrapper's job file; matched anywhere, once quotes are gone. */
#define JOB_FILE_OPTION "--job_file"

const char *exec_rule_cmdline(const char *cmd)
{
	const char *p;
	char *bare, *q;
	bool bad;

	if (!cmd)
		return NULL;
	/* the client and the wrapper each split words their own way: drop what groups or escapes */
	bare = q = xmalloc(strlen(cmd) + 1);
	for (p = cmd; *p; p++)
		if (*p != '"' && *p != '\'' && *p != '\\')
			*q++ = *p;
	*q = '\0';
	bad = strstr(bare, JOB_FILE_OPTION) != NULL;
	free(bare);
	return bad ? "names the wrapper's option " JOB_FILE_OPTION " (the job file is the app "
		     "version's)" : NULL;
}

/* Names the client, the wrapper or the zip of outputs use in the slot directory. */
static bool reserved(const char *name)
{
	static const char *const names[] = { EXEC_JOB_FILE, "init_data.xml", "stderr.txt",
					     "stdout.txt", "wseq_outputs.zip" };
	static const char *const prefixes[] = { "boinc_", "wrapper_", "wseq_" };
	size_t i;

	if (!strcmp(name, EXEC_OPEN_NAME))
		return false;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

const char *exec_rule_open_name(const char *name, bool own)
{
	if (own && (strlen(name) > EXEC_OPEN_NAME_MAX || !dirhier_name_ok(name)))
		return "is not a plain file name (at most 200 bytes, without /, \\, .. or a leading "
		       ". or -)";
	if (own && reserved(name))
		return "is a name the client or the wrapper uses";
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return "is not a plain file name";
	if (!strcmp(name, EXEC_JOB_FILE))
		return "is the wrapper's job file (only the app version gives it)";
	return NULL;
}

struct wu_walk {
	bool any_exec;
	struct sbuf *why;
};

static int walk_fail(struct wu_walk *w, const char *what, const char *name, const char *reason)
{
	if (w->why && !w->why->len)
		sbuf_addf(w->why, "%s%s%.100s%s %s", what, name ? " '" : "", name ? name : "",
			  name ? "'" : "", reason);
	return -1;
}

static int walk_file_ref(struct wu_walk *w, const xmlNode *n)
{
	char *name = xml_child_text(n, "open_name");
	const char *why;
	int rc = 0;

	if (!name)
		name = xml_child_text(n, "file_name");
	if (!name)
		name = xstrdup("");
	if ((why = exec_rule_open_name(name, w->any_exec)) != NULL)
		rc = walk_fail(w, "input file open name", name, why);
	free(name);
	return rc;
}

static int walk(struct wu_walk *w, const xmlNode *n)
{
	const xmlNode *c;
	const char *why;
	char *t;
	int rc = 0;

	xml_for_each(c, n, NULL) {
		if (xml_is(c, "command_line") && !w->any_exec) {
			t = xml_text(c);
			if ((why = exec_rule_cmdline(t)) != NULL)
				rc = walk_fail(w, "its command line", NULL, why);
			free(t);
		} else if (xml_is(c, "file_ref")) {
			rc = walk_file_ref(w, c);
		} else if (xml_is(c, "file_info") && !w->any_exec && xml_child(c, "executable")) {
			t = xml_child_text(c, "name");
			rc = walk_fail(w, "input file", t ? t : "", "is marked executable (only jobs "
				       "of an any_executable app bring a program)");
			free(t);
		}
		if (rc == 0)
			rc = walk(w, c);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int exec_rule_wu_doc(const char *xml_doc, bool any_exec, struct sbuf *why)
{
	struct sbuf text = SBUF_INIT((size_t)64 << 20), err = SBUF_INIT(1024);
	struct wu_walk w = { any_exec, why };
	xmlDoc *d;
	int rc = -1;
	int bad = sbuf_addstr(&text, "<wu>") | sbuf_addstr(&text, xml_doc ? xml_doc : "") |
		  sbuf_addstr(&text, "</wu>");

	if (bad)
		walk_fail(&w, "its XML is too long", NULL, "");
	else if ((d = xml_read_memory(text.buf, text.len, "workunit", &err)) == NULL)
		walk_fail(&w, "its XML does not parse:", NULL, sbuf_str(&err));
	else {
		rc = walk(&w, xmlDocGetRootElement(d));
		xmlFreeDoc(d);
	}
	sbuf_release(&text);
	sbuf_release(&err);
	return rc;
}
