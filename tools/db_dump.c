/*
 * db_dump: the statistics export stats sites read, in BOINC's layout
 * (boinc-account-rpc.md, section 9): tables.xml, and user.gz, team.gz,
 * host.gz, user_deleted.gz and host_deleted.gz, each a gzip of XML. Only
 * rows with credit are written; a host names its owner only if the owner
 * lets it be seen (show_hosts); a user is known by md5(cross-project id +
 * e-mail address), never by the address.
 *
 * The files are written into a directory beside the output (html/stats_tmp
 * beside html/stats), which then takes the output's place in one rename
 * (an exchange where the file system can, so html/stats never goes
 * missing); the old dump is removed, or kept as stats_Y_M_D_h_m_s. Rows are
 * read a batch at a time from one consistent snapshot of the database.
 * make_project runs it every day as a task of config.xml.
 */
#include "common.h"
#include "account.h"
#include "config.h"
#include "db_daemons.h"
#include "db_stats.h"
#include "db_tool.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"
#include "param.h"
#include "tool.h"
#include "wtime.h"
#include "xml_write.h"

#include <fcntl.h>
#include <sys/file.h>
#include <zlib.h>

struct options {
	char *dir;
	long batch;
	long level;
	bool keep_old;
};

static const struct param options[] = {
	{ "dir", PARAM_STR, offsetof(struct options, dir), NULL, 0, 0, 0, "DIR",
	  "where the export goes (default: html/stats in the project, served at the master "
	  "URL's stats/)" },
	{ "batch", PARAM_INT, offsetof(struct options, batch), "1000", PARAM_BOUNDED, 10, 100000,
	  "N", "rows read a query" },
	{ "compression_level", PARAM_INT, offsetof(struct options, level), "6", PARAM_BOUNDED, 1, 9,
	  "N", "gzip level of the .gz files" },
	{ "keep_old", PARAM_BOOL, offsetof(struct options, keep_old), "0", 0, 0, 0, NULL,
	  "keep the previous export as DIR_Y_M_D_h_m_s instead of removing it" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: db_dump [options]\n\n"
	"Export the users, teams and hosts with credit for stats sites, as BOINC does:\n"
	"tables.xml, user.gz, team.gz, host.gz, user_deleted.gz, host_deleted.gz in\n"
	"html/stats/ (replaced whole). Run it in the project directory.\n";

/* ---- one gzip file of XML records ---------------------------------------- */

/* The largest record: a host's misc may hold a MEDIUMBLOB (16 MiB), escaped. */
#define RECORD_MAX (128u << 20)

struct gzout {
	gzFile gz;
	char *path;
	struct sbuf rec;        /* the record being written */
	int failed;
};

static int gz_open(struct gzout *o, const char *dir, const char *name, long level,
		   const char *root)
{
	char mode[8];

	snprintf(mode, sizeof(mode), "wb%ld", level);
	o->path = xasprintf("%s/%s", dir, name);
	sbuf_init(&o->rec, RECORD_MAX);
	o->failed = 0;
	errno = 0;
	o->gz = gzopen(o->path, mode);
	if (!o->gz) {
		o->failed = 1;
		return log_error("cannot create %s: %s", o->path, strerror(errno ? errno : ENOMEM));
	}
	gzbuffer(o->gz, 256 * 1024);
	sbuf_addf(&o->rec, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<%s>\n", root);
	return 0;
}

/* Write the record built in o->rec; 0 / -1 (logged). */
static int gz_flush(struct gzout *o)
{
	if (o->failed)
		return -1;
	if (o->rec.len && gzwrite(o->gz, o->rec.buf, (unsigned)o->rec.len) != (int)o->rec.len) {
		int zerr;
		const char *msg = gzerror(o->gz, &zerr);

		o->failed = 1;
		return log_error("cannot write %s: %s", o->path,
				 zerr == Z_ERRNO ? strerror(errno) : msg);
	}
	sbuf_reset(&o->rec);
	return 0;
}

static int gz_close(struct gzout *o, const char *root)
{
	int rc = -1;

	if (o->gz) {
		sbuf_addf(&o->rec, "</%s>\n", root);
		rc = gz_flush(o);
		if (gzclose(o->gz) != Z_OK && rc == 0)
			rc = log_error("cannot write %s: %s", o->path, strerror(errno));
		/* for the web server, whatever the umask of the cron job */
		if (rc == 0 && chmod(o->path, 0644) < 0)
			rc = log_error("cannot chmod %s: %s", o->path, strerror(errno));
	}
	o->gz = NULL;
	sbuf_release(&o->rec);
	free(o->path);
	o->path = NULL;
	return rc;
}

/* ---- XML elements ------------------------------------------------------------ */

/* Only when it has a value. */
static void el_str_opt(struct sbuf *b, const char *name, const char *v)
{
	if (v && *v)
		xml_elem_str(b, 1, name, v);
}

/* ---- the three tables ------------------------------------------------------ */

struct dump {
	struct gzout out;
	int64_t n;
	double total_credit;
};

static int put_user(struct db_stats_user *r, void *arg)
{
	struct dump *d = arg;
	struct sbuf *b = &d->out.rec;
	struct db_user u = { 0 };
	char cpid[33];

	u.cross_project_id = r->cross_project_id;
	u.email_addr = r->email_addr;
	account_external_cpid(&u, cpid);
	sbuf_addstr(b, "<user>\n");
	xml_elem_i64(b, 1, "id", r->id);
	xml_elem_str(b, 1, "name", r->name);
	xml_elem_i64(b, 1, "create_time", r->create_time);
	xml_elem_f(b, 1, "total_credit", r->total_credit);
	xml_elem_f(b, 1, "expavg_credit", r->expavg_credit);
	xml_elem_f(b, 1, "expavg_time", r->expavg_time);
	xml_elem_str(b, 1, "cpid", cpid);
	el_str_opt(b, "country", r->country);
	el_str_opt(b, "url", r->url);
	if (r->teamid)
		xml_elem_i64(b, 1, "teamid", r->teamid);
	if (r->has_profile)
		sbuf_addstr(b, " <has_profile/>\n");
	sbuf_addstr(b, "</user>\n");
	d->n++;
	d->total_credit += r->total_credit;
	return gz_flush(&d->out);
}

static int put_team(struct db_stats_team *r, void *arg)
{
	struct dump *d = arg;
	struct sbuf *b = &d->out.rec;

	sbuf_addstr(b, "<team>\n");
	xml_elem_i64(b, 1, "id", r->id);
	xml_elem_i64(b, 1, "type", r->type);
	xml_elem_str(b, 1, "name", r->name);
	xml_elem_i64(b, 1, "userid", r->userid);
	xml_elem_f(b, 1, "total_credit", r->total_credit);
	xml_elem_f(b, 1, "expavg_credit", r->expavg_credit);
	xml_elem_f(b, 1, "expavg_time", r->expavg_time);
	el_str_opt(b, "founder_name", r->founder_name);
	xml_elem_i64(b, 1, "create_time", r->create_time);
	el_str_opt(b, "url", r->url);
	el_str_opt(b, "name_html", r->name_html);
	el_str_opt(b, "description", r->description);
	xml_elem_str(b, 1, "country", r->country);
	sbuf_addstr(b, "</team>\n");
	d->n++;
	d->total_credit += r->total_credit;
	return gz_flush(&d->out);
}

static int put_host(struct db_stats_host *r, void *arg)
{
	struct dump *d = arg;
	struct sbuf *b = &d->out.rec;

	sbuf_addstr(b, "<host>\n");
	xml_elem_i64(b, 1, "id", r->id);
	if (r->show_hosts)
		xml_elem_i64(b, 1, "userid", r->userid);
	xml_elem_f(b, 1, "total_credit", r->total_credit);
	xml_elem_f(b, 1, "expavg_credit", r->expavg_credit);
	xml_elem_f(b, 1, "expavg_time", r->expavg_time);
	xml_elem_str(b, 1, "p_vendor", r->p_vendor);
	xml_elem_str(b, 1, "p_model", r->p_model);
	xml_elem_str(b, 1, "os_name", r->os_name);
	xml_elem_str(b, 1, "os_version", r->os_version);
	xml_elem_cdata(b, 1, "misc", r->misc);
	xml_elem_i64(b, 1, "create_time", r->create_time);
	xml_elem_i64(b, 1, "rpc_time", r->rpc_time);
	xml_elem_i64(b, 1, "timezone", r->timezone);
	xml_elem_i64(b, 1, "ncpus", r->p_ncpus);
	xml_elem_f(b, 1, "p_fpops", r->p_fpops);
	xml_elem_f(b, 1, "p_iops", r->p_iops);
	xml_elem_f(b, 1, "p_membw", r->p_membw);
	xml_elem_f(b, 1, "m_nbytes", r->m_nbytes);
	xml_elem_f(b, 1, "m_cache", r->m_cache);
	xml_elem_f(b, 1, "m_swap", r->m_swap);
	xml_elem_f(b, 1, "d_total", r->d_total);
	xml_elem_f(b, 1, "d_free", r->d_free);
	xml_elem_f(b, 1, "n_bwup", r->n_bwup);
	xml_elem_f(b, 1, "n_bwdown", r->n_bwdown);
	xml_elem_f(b, 1, "avg_turnaround", r->avg_turnaround);
	xml_elem_f(b, 1, "credit_per_cpu_sec", r->credit_per_cpu_sec);
	xml_elem_str(b, 1, "host_cpid", r->host_cpid);
	sbuf_addstr(b, "</host>\n");
	d->n++;
	d->total_credit += r->total_credit;
	return gz_flush(&d->out);
}

enum table { T_USER, T_TEAM, T_HOST, T_NTABLES };

static const struct {
	const char *file, *root;
} table_files[T_NTABLES] = {
	{ "user.gz", "users" }, { "team.gz", "teams" }, { "host.gz", "hosts" },
};

struct run {
	const struct options *o;
	struct db *db;
	const char *tmp;
	struct dump d[T_NTABLES];
	struct sbuf apps;       /* the <application> elements of tables.xml */
};

static int write_table(struct run *r, enum table t)
{
	struct dump *d = &r->d[t];
	int batch = (int)r->o->batch, rc;

	if (gz_open(&d->out, r->tmp, table_files[t].file, r->o->level, table_files[t].root) < 0) {
		gz_close(&d->out, table_files[t].root);
		return -1;
	}
	switch (t) {
	case T_USER: rc = db_stats_enum_users(r->db, batch, put_user, d); break;
	case T_TEAM: rc = db_stats_enum_teams(r->db, batch, put_team, d); break;
	default: rc = db_stats_enum_hosts(r->db, batch, put_host, d); break;
	}
	if (gz_close(&d->out, table_files[t].root) < 0 || rc != DB_OK)
		return -1;
	return 0;
}

/* No deletion is recorded yet: the lists stats sites expect, empty. */
static int write_deleted(struct run *r, const char *file, const char *root)
{
	struct gzout o = { 0 };
	int rc = gz_open(&o, r->tmp, file, r->o->level, root);

	return gz_close(&o, root) < 0 ? -1 : rc;
}

static int put_app(struct db_app *a, void *arg)
{
	struct sbuf *b = arg;

	if (a->deprecated)
		return 0;
	sbuf_addstr(b, "        <application>\n            <name>");
	xml_add_text(b, a->name);
	sbuf_addstr(b, "</name>\n        </application>\n");
	return 0;
}

static int write_tables_xml(struct run *r)
{
	struct sbuf b = SBUF_INIT(RECORD_MAX);
	static const char *const count_names[T_NTABLES] = { "nusers_total", "nteams_total",
							    "nhosts_total" };
	char *path = xasprintf("%s/tables.xml", r->tmp);
	size_t t;
	int rc;

	sbuf_addstr(&b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<tables>\n");
	sbuf_addf(&b, "    <update_time>%" PRId64 "</update_time>\n", (int64_t)now());
	for (t = 0; t < T_NTABLES; t++)
		if (r->d[t].n)
			xml_elem_i64(&b, 4, count_names[t], r->d[t].n);
	if (r->d[T_USER].total_credit > 0)
		sbuf_addf(&b, "    <total_credit>%f</total_credit>\n", r->d[T_USER].total_credit);
	sbuf_addstr(&b, "    <applications>\n");
	sbuf_add(&b, sbuf_str(&r->apps), r->apps.len);
	sbuf_addstr(&b, "    </applications>\n    <badges>\n    </badges>\n</tables>\n");
	rc = write_file_atomic(path, sbuf_str(&b), b.len, 0644);
	free(path);
	sbuf_release(&b);
	return rc;
}

/* Every file of the export into r->tmp, from one snapshot of the database. */
static int dump_all(struct run *r)
{
	size_t t;
	int rc = db_begin_snapshot(r->db) == DB_OK ? 0 : -1;

	for (t = 0; t < T_NTABLES && rc == 0; t++)
		rc = write_table(r, (enum table)t);
	if (rc == 0)
		rc = write_deleted(r, "user_deleted.gz", "users_deleted");
	if (rc == 0)
		rc = write_deleted(r, "host_deleted.gz", "hosts_deleted");
	if (rc == 0 && db_app_enum_all(r->db, put_app, &r->apps) != DB_OK)
		rc = -1;
	if (db_in_transaction(r->db) && db_commit(r->db) != DB_OK)
		rc = -1;
	if (rc == 0)
		rc = write_tables_xml(r);
	return rc;
}

/* ---- the directory swap ------------------------------------------------------- */

/* DIR_Y_M_D_h_m_s, BOINC's name for an old export (with _N if taken). */
static char *old_name(const char *dir)
{
	time_t t = now();
	struct tm tm;
	char *name;
	int i;

	localtime_r(&t, &tm);
	name = xasprintf("%s_%d_%d_%d_%d_%d_%d", dir, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec);
	for (i = 2; access(name, F_OK) == 0 && i < 1000; i++) {
		char *base = xasprintf("%s_%d_%d_%d_%d_%d_%d_%d", dir, tm.tm_year + 1900,
				       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, i);
		free(name);
		name = base;
	}
	return name;
}

/* The old export, now at path: kept under its dated name, or removed. */
static int retire_old(const char *path, const char *dir, bool keep)
{
	char *name;
	int rc = 0;

	if (!keep)
		return remove_tree(path);
	name = old_name(dir);
	if (rename(path, name) < 0)
		rc = log_error("cannot rename %s to %s: %s", path, name, strerror(errno));
	else
		printf("db_dump: the previous export is kept in %s\n", name);
	free(name);
	return rc;
}

/*
 * tmp becomes dir. Where the file system can exchange two names in one
 * step, dir is never missing; elsewhere it is, between two renames.
 */
static int swap_in(const char *tmp, const char *dir, bool keep)
{
	struct stat st;
	char *aside;
	int rc;

	if (stat(dir, &st) < 0) {
		if (errno != ENOENT)
			return log_error("cannot stat %s: %s", dir, strerror(errno));
		if (rename(tmp, dir) < 0)
			return log_error("cannot rename %s to %s: %s", tmp, dir, strerror(errno));
		return 0;
	}
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0)
		return retire_old(tmp, dir, keep);    /* tmp now holds the old export */
	if (errno != EINVAL && errno != ENOSYS && errno != EXDEV && errno != ENOTSUP)
		return log_error("cannot exchange %s and %s: %s", tmp, dir, strerror(errno));
	aside = xasprintf("%s_old", tmp);
	if (access(aside, F_OK) == 0 && remove_tree(aside) < 0) {
		free(aside);
		return -1;
	}
	if (rename(dir, aside) < 0) {
		rc = log_error("cannot rename %s to %s: %s", dir, aside, strerror(errno));
	} else if (rename(tmp, dir) < 0) {
		rc = log_error("cannot rename %s to %s: %s", tmp, dir, strerror(errno));
		rename(aside, dir);
	} else {
		rc = retire_old(aside, dir, keep);
	}
	free(aside);
	return rc;
}

/* A fresh, empty tmp (a killed run may have left one). */
static int make_tmp(const char *tmp)
{
	if (access(tmp, F_OK) == 0 && remove_tree(tmp) < 0)
		return -1;
	if (mkdir(tmp, 0755) < 0 || chmod(tmp, 0755) < 0)
		return log_error("cannot create %s: %s", tmp, strerror(errno));
	return 0;
}

/* One db_dump at a time in a project: the others find the lock taken. */
static int take_lock(const struct project_config *cfg, int *fd)
{
	char *path = xasprintf("%s/db_dump.lock", cfg->pid_dir);
	int rc = 0;

	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		rc = log_error("cannot open %s: %s", path, strerror(errno));
	else if (flock(*fd, LOCK_EX | LOCK_NB) < 0)
		rc = log_error("another db_dump is running (%s is locked)", path);
	free(path);
	return rc;
}

/* --dir, or html/stats; without a final '/' (its _tmp goes beside it, not in it). */
static char *out_dir(const struct options *o, const struct project_config *cfg)
{
	char *dir = o->dir ? xstrdup(o->dir) : xasprintf("%s/html/stats", cfg->project_dir);
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
	return dir;
}

static int dump(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	const struct project_config *cfg = &ctx->cfg;
	struct run r = { .o = o, .db = ctx->db, .apps = SBUF_INIT(RECORD_MAX) };
	char *dir = out_dir(o, cfg), *tmp = xasprintf("%s_tmp", dir);
	double t0 = dnow();
	int rc, lock = -1;
	size_t t;

	r.tmp = tmp;
	/* without the lock, tmp may be another run's: leave it alone */
	rc = take_lock(cfg, &lock);
	if (rc == 0 && (rc = make_tmp(tmp)) == 0 && (rc = dump_all(&r)) < 0)
		remove_tree(tmp);
	if (rc < 0)
		log_error("no export made; %s is as it was", dir);
	else
		rc = swap_in(tmp, dir, o->keep_old);
	if (rc == 0)
		printf("db_dump: %" PRId64 " users, %" PRId64 " teams, %" PRId64 " hosts, "
		       "total credit %f, in %s (%.1f s)\n", r.d[T_USER].n, r.d[T_TEAM].n,
		       r.d[T_HOST].n, r.d[T_USER].total_credit, dir, dnow() - t0);
	for (t = 0; t < T_NTABLES; t++)
		sbuf_release(&r.d[t].out.rec);
	sbuf_release(&r.apps);
	if (lock >= 0)
		close(lock);
	free(tmp);
	free(dir);
	return rc;
}

static int check_options(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;

	if (o->dir && !*o->dir)
		return tool_usage_error("--dir must not be empty");
	return 0;
}

static struct options opts;

static const struct tool_spec db_dump_spec = {
	.name = "db_dump",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.load_config = tool_load_config,
	.open_db = db_tool_open,
	.check = check_options,
	.run = dump,
};

int main(int argc, char **argv)
{
	return tool_main(&db_dump_spec, argc, argv);
}
