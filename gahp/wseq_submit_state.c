/*
 * The state file a submit leaves for each batch: the project, the
 * authenticator file's path (never the authenticator), the batch and, per
 * job, where its outputs go -- what status, wait, fetch, abort and retire
 * need later, without the description (which may have changed since).
 * Lines of tokens: a value is "=" and its bytes, percent-encoded where not
 * plainly printable; "-" is no value.
 *
 * It says where the authenticator is sent, so it lives where no job's
 * outputs can reach: not in the working directory (a job's directory) but
 * in the user's state directory, one subdirectory per working directory
 * (named by the MD5 of its path), all mode 0700; and a state file or
 * directory that is not the user's own, or that others may write, is
 * refused.
 */
#include "wseq_submit.h"
#include "fileutil.h"
#include "md5.h"

#include <pwd.h>
#include <sys/stat.h>

#define STATE_MAX (256L * 1024 * 1024)

bool ws_name_ok(const char *name)
{
	const char *p;

	if (!*name || *name == '.' || *name == '-' || strlen(name) > 150)
		return false;
	for (p = name; *p; p++)
		if (!(*p >= 'A' && *p <= 'Z') && !(*p >= 'a' && *p <= 'z') && !(*p >= '0' && *p <= '9') &&
		    !strchr("_.-+#", *p))
			return false;
	return true;
}

char *ws_state_root(void)
{
	const char *e = getenv("WSEQ_SUBMIT_STATE_DIR"), *home;
	struct passwd *pw;

	if (e && *e == '/')
		return xstrdup(e);
	e = getenv("XDG_STATE_HOME");
	if (e && *e == '/')
		return xasprintf("%s/wseq_submit", e);
	home = getenv("HOME");
	if (!home || *home != '/') {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	return home ? xasprintf("%s/.local/state/wseq_submit", home) : NULL;
}

int ws_state_private(const char *path, bool dir)
{
	struct stat st;

	if ((dir ? stat(path, &st) : lstat(path, &st)) < 0)
		return -1;
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return ws_fail(NULL, "%s is not a %s: refused", path, dir ? "directory" : "plain file");
	if (st.st_uid != geteuid())
		return ws_fail(NULL, "%s belongs to uid %ld, not to you: refused (a batch's state "
			       "says where your authenticator goes)", path, (long)st.st_uid);
	if (st.st_mode & 022)
		return ws_fail(NULL, "%s may be written by others (mode %04o): refused (a batch's "
			       "state says where your authenticator goes; chmod go-w it)", path,
			       (unsigned)(st.st_mode & 07777));
	return 0;
}

char *ws_state_dir(void)
{
	char cwd[PATH_MAX], hex[MD5_HEX_LEN + 1];
	char *base = ws_state_root(), *dir = NULL, *where = NULL;

	if (!base)
		return ws_fail(NULL, "no home directory to keep the batches' state in (set "
			       "WSEQ_SUBMIT_STATE_DIR)"), NULL;
	if (!getcwd(cwd, sizeof(cwd)) || md5_buf(cwd, strlen(cwd), hex) < 0) {
		ws_fail(NULL, "cannot tell the working directory: %s", strerror(errno));
		goto out;
	}
	dir = xasprintf("%s/%s", base, hex);
	where = xasprintf("%s/dir", dir);
	if (mkdir_p(base, 0700) < 0 || (mkdir(dir, 0700) < 0 && errno != EEXIST)) {
		ws_fail(NULL, "cannot make %s: %s", dir, strerror(errno));
	} else if (ws_state_private(base, true) == 0 && ws_state_private(dir, true) == 0) {
		if (access(where, F_OK) != 0)
			write_file_atomic(where, cwd, strlen(cwd), 0600);
		goto out;
	}
	free(dir);
	dir = NULL;
out:
	free(where);
	free(base);
	return dir;
}

char *ws_state_path(const char *batch)
{
	char *dir = ws_state_dir(), *path;

	if (!dir)
		return NULL;
	path = xasprintf("%s/%s", dir, batch);
	free(dir);
	return path;
}

static void put(struct sbuf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	sbuf_addch(b, ' ');
	if (!s) {
		sbuf_addch(b, '-');
		return;
	}
	sbuf_addch(b, '=');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c >= 0x7f || c == '%') {
			sbuf_addch(b, '%');
			sbuf_addch(b, hex[c >> 4]);
			sbuf_addch(b, hex[c & 15]);
		} else {
			sbuf_addch(b, (char)c);
		}
	}
}

static void free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The next token of *cur: 0 and *out (allocated, or NULL for "-"), or -1. */
static int get(char **cur, char **out)
{
	char *s = *cur, *e, *w, *r;

	*out = NULL;
	while (*s == ' ')
		s++;
	if (!*s)
		return -1;
	e = s + strcspn(s, " ");
	if (*e)
		*e++ = '\0';
	*cur = e;
	if (strcmp(s, "-") == 0)
		return 0;
	if (*s != '=')
		return -1;
	for (w = r = s + 1; *r; r++) {
		if (*r == '%') {
			int h = hexval(r[1]), l = h < 0 ? -1 : hexval(r[2]);

			if (l < 0)
				return -1;
			*w++ = (char)(h * 16 + l);
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	*out = xstrdup(s + 1);
	return 0;
}

static int get_long(char **cur, long *v)
{
	char *t;
	int ret;

	if (get(cur, &t) < 0 || !t)
		return -1;
	ret = parse_long(t, v);
	free(t);
	return ret;
}

static void put_list(struct sbuf *b, char **v, size_t n)
{
	char num[32];
	size_t i;

	snprintf(num, sizeof(num), "%zu", n);
	put(b, num);
	for (i = 0; i < n; i++)
		put(b, v[i]);
}

static int get_list(char **cur, char ***v, size_t *n)
{
	long k, i;

	if (get_long(cur, &k) < 0 || k < 0 || k > 100000)
		return -1;
	*v = xcalloc((size_t)k + 1, sizeof(char *));
	*n = (size_t)k;
	for (i = 0; i < k; i++)
		if (get(cur, &(*v)[i]) < 0 || !(*v)[i])
			return -1;
	return 0;
}

int ws_state_write(const struct ws_state *s, const char *path, struct sbuf *err)
{
	struct sbuf b = SBUF_INIT(STATE_MAX);
	char num[64];
	size_t i;
	int ret;

	sbuf_addstr(&b, "# wseq_submit state of one batch: status, wait, fetch, abort and retire read it\n");
	sbuf_addstr(&b, "version");
	put(&b, "1");
	sbuf_addstr(&b, "\nproject");
	put(&b, s->project);
	sbuf_addstr(&b, "\nauth_file");
	put(&b, s->auth_file);
	sbuf_addstr(&b, "\nbatch");
	put(&b, s->batch);
	snprintf(num, sizeof(num), "%ld", s->batch_id);
	sbuf_addstr(&b, "\nbatch_id");
	put(&b, num);
	sbuf_addstr(&b, "\napp");
	put(&b, s->app);
	sbuf_addstr(&b, "\nsequence");
	put(&b, s->sequence ? "1" : "0");
	sbuf_addstr(&b, "\ndir");
	put(&b, s->dir);
	snprintf(num, sizeof(num), "%.0f", s->lease);
	sbuf_addstr(&b, "\nlease");
	put(&b, num);
	sbuf_addch(&b, '\n');
	for (i = 0; i < s->njobs; i++) {
		const struct ws_job *j = &s->jobs[i];

		snprintf(num, sizeof(num), "%ld", j->proc);
		sbuf_addstr(&b, "job");
		put(&b, num);
		put(&b, j->name);
		put(&b, j->iwd);
		put(&b, j->output);
		put(&b, j->error);
		put(&b, j->log);
		put(&b, j->suffix_proc ? "1" : "0");
		put(&b, j->outputs_given ? "1" : "0");
		put_list(&b, j->outputs, j->noutputs);
		put_list(&b, j->remap_from, j->nremaps);
		put_list(&b, j->remap_to, j->nremaps);
		if (sbuf_addch(&b, '\n') < 0) {
			sbuf_release(&b);
			sbuf_addstr(err, "the state file would be too large");
			return -1;
		}
	}
	ret = write_file_atomic(path, b.buf, b.len, 0600);
	if (ret < 0)
		sbuf_addf(err, "cannot write %s", path);
	sbuf_release(&b);
	return ret;
}

static int read_job(char *cur, struct ws_state *s)
{
	struct ws_job *j;
	char *flag;
	int bad;

	ARRAY_GROW(s->jobs, s->njobs);
	j = &s->jobs[s->njobs++];
	memset(j, 0, sizeof(*j));
	if (get_long(&cur, &j->proc) < 0 || get(&cur, &j->name) < 0 || !j->name ||
	    get(&cur, &j->iwd) < 0 || !j->iwd || get(&cur, &j->output) < 0 ||
	    get(&cur, &j->error) < 0 || get(&cur, &j->log) < 0)
		return -1;
	if (get(&cur, &flag) < 0 || !flag)
		return -1;
	j->suffix_proc = strcmp(flag, "1") == 0;
	free(flag);
	if (get(&cur, &flag) < 0 || !flag)
		return -1;
	j->outputs_given = strcmp(flag, "1") == 0;
	free(flag);
	bad = get_list(&cur, &j->outputs, &j->noutputs) < 0 ||
	      get_list(&cur, &j->remap_from, &j->nremaps) < 0;
	if (!bad) {
		char **to = NULL;
		size_t n = 0;

		bad = get_list(&cur, &to, &n) < 0 || n != j->nremaps;
		if (bad)
			free_list(to, n);
		else
			j->remap_to = to;
	}
	return bad ? -1 : 0;
}

int ws_state_read(const char *path, struct ws_state *s, struct sbuf *err)
{
	struct sbuf text = SBUF_INIT(STATE_MAX);
	char *line, *next;
	long lineno = 0;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	if (ws_state_private(path, false) < 0) {
		sbuf_addf(err, "%s: not read", path);
		return -1;
	}
	if (read_file(path, STATE_MAX, &text) < 0) {
		sbuf_addf(err, "cannot read %s", path);
		return -1;
	}
	for (line = text.buf; line && *line; line = next) {
		char *key, *cur;
		long v = 0;
		int bad = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (*line == '#' || !*line)
			continue;
		cur = line + strcspn(line, " ");
		if (*cur)
			*cur++ = '\0';
		key = line;
		if (!strcmp(key, "project"))
			bad = get(&cur, &s->project) < 0 || !s->project;
		else if (!strcmp(key, "auth_file"))
			bad = get(&cur, &s->auth_file) < 0;
		else if (!strcmp(key, "batch"))
			bad = get(&cur, &s->batch) < 0 || !s->batch;
		else if (!strcmp(key, "batch_id"))
			bad = get_long(&cur, &s->batch_id) < 0;
		else if (!strcmp(key, "app"))
			bad = get(&cur, &s->app) < 0 || !s->app;
		else if (!strcmp(key, "sequence"))
			bad = get_long(&cur, &v) < 0, s->sequence = v != 0;
		else if (!strcmp(key, "dir"))
			bad = get(&cur, &s->dir) < 0 || !s->dir;
		else if (!strcmp(key, "lease"))
			bad = get_long(&cur, &v) < 0, s->lease = (double)v;
		else if (!strcmp(key, "job"))
			bad = read_job(cur, s) < 0;
		else if (!strcmp(key, "version"))
			bad = get_long(&cur, &v) < 0 || v != 1;
		if (bad) {
			sbuf_addf(err, "%s:%ld: not a state file wseq_submit wrote", path, lineno);
			goto out;
		}
	}
	if (!s->project || !s->batch || !s->dir || !s->app) {
		sbuf_addf(err, "%s: not a state file wseq_submit wrote", path);
		goto out;
	}
	ret = 0;
out:
	sbuf_release(&text);
	if (ret < 0)
		ws_state_release(s);
	return ret;
}

void ws_state_release(struct ws_state *s)
{
	size_t i;

	for (i = 0; i < s->njobs; i++) {
		struct ws_job *j = &s->jobs[i];

		free(j->name);
		free(j->iwd);
		free(j->output);
		free(j->error);
		free(j->log);
		free_list(j->outputs, j->noutputs);
		free_list(j->remap_from, j->nremaps);
		free_list(j->remap_to, j->nremaps);
	}
	free(s->jobs);
	free(s->project);
	free(s->auth_file);
	free(s->batch);
	free(s->app);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}
