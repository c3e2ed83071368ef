/*
 * The ops overview: whether each daemon runs (as bin/status tells, from
 * its pid file), the last lines of its log, the work in the database by
 * state, and the disk use of the download and upload trees.
 */
#include "ops.h"
#include "config.h"
#include "daemon_proc.h"
#include "db_ops.h"
#include "db_status.h"
#include "log.h"
#include "wtime.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/statvfs.h>

#define LOG_TAIL_BYTES 4096
#define LOG_TAIL_LINES 6
/* A tree walk stops after this many entries (its sum is then a lower bound). */
#define DISK_WALK_MAX 200000
#define RECENT_DAYS 7

/* The last lines of a file (at most LOG_TAIL_BYTES of it). */
static void log_tail(struct sbuf *b, const char *path)
{
	char buf[LOG_TAIL_BYTES + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end;
	ssize_t n;
	const char *p;
	int lines = 0;

	if (fd < 0) {
		sbuf_addstr(b, " <span class=\"dim\">(no log yet)</span></h3>\n");
		return;
	}
	end = lseek(fd, 0, SEEK_END);
	if (end > LOG_TAIL_BYTES)
		lseek(fd, end - LOG_TAIL_BYTES, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, LOG_TAIL_BYTES);
	close(fd);
	if (n <= 0) {
		sbuf_addstr(b, " <span class=\"dim\">(empty)</span></h3>\n");
		return;
	}
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	for (p = buf + n; p > buf; p--)
		if (p[-1] == '\n' && ++lines == LOG_TAIL_LINES)
			break;
	sbuf_addstr(b, "</h3>\n<pre class=\"log\">");
	ops_esc(b, p);
	sbuf_addstr(b, "</pre>\n");
}

static void daemons(struct ops *o)
{
	const struct project_config *cfg = o->c->cfg;
	size_t i;

	sbuf_addstr(o->b, "<h2>Daemons</h2>\n");
	if (!cfg->ndaemons) {
		sbuf_addstr(o->b, "<p>config.xml lists no daemons.</p>\n");
		return;
	}
	sbuf_addstr(o->b, "<table id=\"daemons\">\n<tr><th>Daemon</th><th>Status</th><th>Pid</th>"
			  "<th>Command</th></tr>\n");
	for (i = 0; i < cfg->ndaemons; i++) {
		struct proc_daemon d;

		if (proc_daemon_init(cfg, &cfg->daemons[i], &d) == 0) {
			bool run;

			proc_daemon_probe(&d);
			run = d.state == PROC_RUNNING;
			sbuf_addstr(o->b, "<tr><td>");
			ops_esc(o->b, d.name);
			sbuf_addf(o->b, "</td><td class=\"%s\">%s%s</td><td>", run ? "running" :
				  d.cd->disabled ? "dim" : "not-running", d.cd->disabled ? "disabled" :
				  run ? "running" : "not running",
				  d.cd->disabled && run ? ", but running" : "");
			if (run)
				sbuf_addf(o->b, "%ld", (long)d.pid);
			sbuf_addstr(o->b, "</td><td><code>");
			ops_esc(o->b, d.cd->cmd);
			sbuf_addstr(o->b, "</code></td></tr>\n");
		}
		proc_daemon_release(&d);
	}
	sbuf_addstr(o->b, "</table>\n<h2>The last lines of their logs</h2>\n");
	for (i = 0; i < cfg->ndaemons; i++) {
		struct proc_daemon d;

		if (proc_daemon_init(cfg, &cfg->daemons[i], &d) == 0) {
			size_t n = strlen(cfg->project_dir);
			const char *rel = !strncmp(d.log_path, cfg->project_dir, n) &&
					  d.log_path[n] == '/' ? d.log_path + n + 1 : d.log_path;

			sbuf_addstr(o->b, "<h3 class=\"log\">");
			ops_esc(o->b, d.name);
			sbuf_addstr(o->b, " <span class=\"dim\">");
			ops_esc(o->b, rel);
			sbuf_addstr(o->b, "</span>");
			log_tail(o->b, d.log_path);
		}
		proc_daemon_release(&d);
	}
}

struct count_list {
	struct db_ops_count v[256];
	size_t n;
};

static int take_count(struct db_ops_count *c, void *arg)
{
	struct count_list *l = arg;

	if (l->n == ARRAY_SIZE(l->v))
		return 1;
	l->v[l->n++] = *c;
	return 0;
}

static void count_row(struct ops *o, const char *label, int64_t n)
{
	sbuf_addstr(o->b, "<tr><th>");
	ops_esc(o->b, label);
	sbuf_addstr(o->b, "</th><td class=\"num\">");
	ops_int(o->b, n);
	sbuf_addstr(o->b, "</td></tr>\n");
}

static void workunit_counts(struct ops *o, const struct count_list *wu, const struct db_status *s)
{
	static const char *const assim[] = { "waiting for results or validation",
		"ready to assimilate", "assimilated" };
	int64_t by[3] = { 0 }, failed = 0, cancelled = 0;
	size_t i;

	for (i = 0; i < wu->n; i++) {
		if (wu->v[i].a >= 0 && wu->v[i].a < 3)
			by[wu->v[i].a] += wu->v[i].n;
		failed += wu->v[i].b ? wu->v[i].n : 0;
		cancelled += wu->v[i].c ? wu->v[i].n : 0;
	}
	sbuf_addstr(o->b, "<table id=\"wu_counts\">\n<tr><th colspan=\"2\">Workunits</th></tr>\n");
	for (i = 0; i < 3; i++)
		count_row(o, assim[i], by[i]);
	count_row(o, "failed (error_mask set)", failed);
	count_row(o, "of which cancelled", cancelled);
	count_row(o, "waiting for the validator", s->wus_need_validate);
	count_row(o, "waiting for file deletion", s->wus_need_file_delete);
	sbuf_addstr(o->b, "</table>\n");
}

static void result_counts(struct ops *o, const struct count_list *live,
			  const struct count_list *over)
{
	int64_t by[6] = { 0 };
	size_t i;

	for (i = 0; i < live->n; i++)
		if (live->v[i].a >= 0 && live->v[i].a < 6)
			by[live->v[i].a] += live->v[i].n;
	sbuf_addstr(o->b, "<table id=\"result_counts\">\n<tr><th colspan=\"2\">Results</th></tr>\n");
	count_row(o, "inactive", by[RESULT_SERVER_STATE_INACTIVE]);
	count_row(o, "unsent", by[RESULT_SERVER_STATE_UNSENT]);
	count_row(o, "in progress", by[RESULT_SERVER_STATE_IN_PROGRESS]);
	sbuf_addf(o->b, "<tr><th colspan=\"2\">Over, deadline in the last %d days</th></tr>\n",
		  RECENT_DAYS);
	for (i = 0; i < over->n; i++)
		count_row(o, ops_outcome_name((int)over->v[i].a), over->v[i].n);
	if (!over->n)
		sbuf_addstr(o->b, "<tr><td colspan=\"2\" class=\"dim\">none</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n");
}

static void other_counts(struct ops *o, const struct count_list *seqs,
			 const struct count_list *batches, const struct db_status *s)
{
	size_t i;

	sbuf_addstr(o->b, "<table id=\"other_counts\">\n<tr><th colspan=\"2\">Sequences</th></tr>\n");
	for (i = 0; i < seqs->n; i++)
		count_row(o, ops_seq_state((int)seqs->v[i].a), seqs->v[i].n);
	sbuf_addstr(o->b, "<tr><th colspan=\"2\">Batches</th></tr>\n");
	for (i = 0; i < batches->n; i++)
		count_row(o, ops_batch_state((int)batches->v[i].a), batches->v[i].n);
	sbuf_addstr(o->b, "<tr><th colspan=\"2\">Transitioner</th></tr>\n<tr><th>backlog</th><td "
			  "class=\"num\">");
	ops_duration(o->b, s->min_transition_time > 0 && s->min_transition_time < now()
		     ? (double)(now() - s->min_transition_time) : 0);
	sbuf_addstr(o->b, "</td></tr>\n</table>\n");
}

static bool counts(struct ops *o)
{
	struct count_list *l = xcalloc(5, sizeof(*l));
	struct db_status s;
	struct db *db = o->c->db;
	bool ok = db && db_ops_wu_states(db, take_count, &l[0]) == DB_OK &&
		  db_ops_result_states(db, take_count, &l[1]) == DB_OK &&
		  db_ops_outcomes_since(db, now() - RECENT_DAYS * 86400L, take_count, &l[2]) == DB_OK &&
		  db_ops_seq_states(db, take_count, &l[3]) == DB_OK &&
		  db_ops_batch_states(db, take_count, &l[4]) == DB_OK &&
		  db_status_counts(db, now() - 86400, &s) == DB_OK;

	if (ok) {
		sbuf_addstr(o->b, "<h2>Work</h2>\n<div style=\"display:flex;gap:1.5em;flex-wrap:wrap\">\n");
		workunit_counts(o, &l[0], &s);
		result_counts(o, &l[1], &l[2]);
		other_counts(o, &l[3], &l[4], &s);
		sbuf_addstr(o->b, "</div>\n");
	}
	free(l);
	return ok;
}

/* ---- disk use ---- */

/* nftw passes no argument: the walk in progress (one request at a time). */
static struct disk_walk {
	double bytes;
	int64_t files;
	bool cut;
} walk;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)path;
	(void)f;
	if (type == FTW_F) {
		walk.bytes += (double)st->st_blocks * 512;
		walk.files++;
	}
	if (walk.files >= DISK_WALK_MAX) {
		walk.cut = true;
		return 1;
	}
	return 0;
}

static void disk_row(struct ops *o, const char *what, const char *dir)
{
	struct statvfs fs;

	memset(&walk, 0, sizeof(walk));
	nftw(dir, walk_one, 16, FTW_PHYS | FTW_MOUNT);
	sbuf_addstr(o->b, "<tr><td>");
	ops_esc(o->b, what);
	sbuf_addstr(o->b, "</td><td><code>");
	ops_esc(o->b, dir);
	sbuf_addstr(o->b, "</code></td><td class=\"num\">");
	ops_int(o->b, walk.files);
	sbuf_addstr(o->b, walk.cut ? "+" : "");
	sbuf_addstr(o->b, "</td><td class=\"num\">");
	ops_bytes(o->b, walk.bytes);
	sbuf_addstr(o->b, walk.cut ? " (at least)" : "");
	sbuf_addstr(o->b, "</td><td class=\"num\">");
	if (statvfs(dir, &fs) == 0)
		ops_bytes(o->b, (double)fs.f_bavail * (double)fs.f_frsize);
	sbuf_addstr(o->b, "</td></tr>\n");
}

static void disk(struct ops *o)
{
	sbuf_addstr(o->b, "<h2>Disk</h2>\n<table id=\"disk\">\n<tr><th>Tree</th><th>Directory</th>"
			  "<th>Files</th><th>Used</th><th>Free on its file system</th></tr>\n");
	disk_row(o, "download", o->c->cfg->download_dir);
	disk_row(o, "upload", o->c->cfg->upload_dir);
	sbuf_addstr(o->b, "</table>\n");
}

void ops_overview(struct ops *o)
{
	ops_start(o, "Overview");
	daemons(o);
	if (!counts(o)) {
		log_error("ops overview: the database cannot be read");
		sbuf_addstr(o->b, "<p class=\"error\">The database cannot be read at the moment: no "
				  "counts.</p>\n");
	}
	disk(o);
	ops_end(o);
}
