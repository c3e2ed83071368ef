/*
 * assimilator: hands finished workunits (assimilate_state READY) to the
 * project. The canonical result's output files are copied to
 * PROJECT/results/WU_NAME/OPEN_NAME (the file's physical name when it has
 * no open name); a workunit that failed gets PROJECT/results/WU_NAME/error
 * saying why. Then --script, if given, runs as
 *
 *   SCRIPT WU_NAME FILE...            (the copied files)
 *   SCRIPT --error WU_NAME ERROR_MASK
 *
 * and only when everything succeeded is the workunit marked DONE (with
 * transition_time=now, so the transitioner releases its files). A failure
 * leaves it READY for the next pass. Copies go through a temporary file and
 * a rename, so a rerun after a crash simply writes them again, and first
 * removes the temporary files the crashed run left.
 */
#include "daemon.h"
#include "db_daemons.h"
#include "dirhier.h"
#include "fileutil.h"
#include "filelist.h"
#include "log.h"
#include "runcmd.h"
#include "wtime.h"

struct as_settings {
	char *app;
	char *script;
	long batch;
};

static struct as_settings settings;

#define A(name, type, field, def, flags, min, max, arg, help) \
	{ name, type, offsetof(struct as_settings, field), def, flags, min, max, arg, help }

static const struct param as_params[] = {
	A("app", PARAM_STR, app, NULL, 0, 0, 0, "NAME",
	  "assimilate this app's workunits only (default: every app)"),
	A("script", PARAM_STR, script, NULL, 0, 0, 0, "CMD",
	  "then run CMD WU_NAME FILE..., or CMD --error WU_NAME MASK; a failure retries later"),
	A("batch", PARAM_INT, batch, "500", PARAM_BOUNDED, 1, 100000, "N",
	  "workunits read per query"),
	PARAM_TABLE_END
};

/* assimilate(): the database failed (end the pass), as opposed to -1, this workunit failed */
#define AS_DB_ERROR (-2)

struct as_job {
	const struct daemon_ctx *ctx;
	int64_t wuid;
};

/* "error_mask 10: too_many_error_results too_many_total_results\n" */
static char *error_text(int mask)
{
	struct sbuf b = SBUF_INIT(1024);
	int bit;

	sbuf_addf(&b, "error_mask %d:", mask);
	for (bit = 1; bit <= WU_ERROR_LAST; bit <<= 1)
		if (mask & bit)
			sbuf_addf(&b, " %s", wu_error_name(bit));
	sbuf_addch(&b, '\n');
	return sbuf_detach(&b, NULL);
}

static int run_script(const struct daemon_ctx *ctx, const char *const *args, size_t n,
		      const char *wu_name)
{
	int rc;

	if (!settings.script || !*settings.script)
		return 0;
	rc = runcmd(settings.script, args, n, ctx->cfg->project_dir);
	if (rc == 0)
		return 0;
	if (rc > 0)
		log_error("[WU %s] %s exited with status %d; trying again later", wu_name,
			  settings.script, rc);
	return -1;
}

static int assimilate_error(const struct daemon_ctx *ctx, const struct db_workunit *wu,
			    const char *dir)
{
	char *path = xasprintf("%s/error", dir), *text = error_text(wu->error_mask);
	char mask[32];
	const char *args[3] = { "--error", wu->name, mask };
	int rc = remove_stale_temps(path);

	if (rc == 0)
		rc = write_file_atomic(path, text, strlen(text), 0644);

	snprintf(mask, sizeof(mask), "%d", wu->error_mask);
	if (rc == 0)
		rc = run_script(ctx, args, ARRAY_SIZE(args), wu->name);
	free(text);
	free(path);
	return rc;
}

static int assimilate_canonical(const struct daemon_ctx *ctx, const struct db_workunit *wu,
				const char *dir)
{
	struct db_result r = { 0 };
	struct job_filelist l = { NULL, 0 };
	char **copies = NULL;
	size_t i, ncopies = 0;
	int rc = db_result_lookup_id(ctx->db, wu->canonical_resultid, &r);

	if (rc != DB_OK) {
		if (rc != DB_NOT_FOUND)
			return AS_DB_ERROR;
		return log_error("[WU %s] canonical result %" PRId64 " not found", wu->name,
				 wu->canonical_resultid);
	}
	if (filelist_result_outputs(&r, &l) < 0) {
		db_result_release(&r);
		return -1;
	}
	copies = xcalloc(l.n + 1, sizeof(*copies));
	for (i = 0; i < l.n && rc == 0; i++) {
		const char *as = l.f[i].open_name && *l.f[i].open_name ? l.f[i].open_name : l.f[i].name;
		struct sbuf src = SBUF_INIT(PATH_MAX);

		if (!l.f[i].upload && !l.f[i].reported) {
			/* kept on the host (a sequence's state between uploads): nothing to copy */
		} else if (!dirhier_name_ok(as)) {
			rc = log_error("[WU %s] refusing output name \"%s\"", wu->name, as);
		} else if (dirhier_path(l.f[i].name, ctx->cfg->upload_dir,
					ctx->cfg->uldl_dir_fanout, false, &src) < 0) {
			rc = -1;
		} else {
			copies[ncopies] = xasprintf("%s/%s", dir, as);
			if (remove_stale_temps(copies[ncopies]) < 0 ||
			    copy_file(sbuf_str(&src), copies[ncopies], 0644) < 0)
				rc = log_error("[WU %s] cannot copy output %s", wu->name, l.f[i].name);
			ncopies++;
		}
		sbuf_release(&src);
	}
	if (rc == 0) {
		const char **args = xcalloc(ncopies + 2, sizeof(*args));

		args[0] = wu->name;
		for (i = 0; i < ncopies; i++)
			args[i + 1] = copies[i];
		rc = run_script(ctx, args, ncopies + 1, wu->name);
		free(args);
	}
	for (i = 0; i < ncopies; i++)
		free(copies[i]);
	free(copies);
	filelist_release(&l);
	db_result_release(&r);
	return rc;
}

/* Mark it DONE if it still is READY (another instance or a rerun may have been first). */
static int mark_done(struct db *db, void *arg)
{
	struct as_job *j = arg;
	struct db_workunit wu = { 0 };
	int rc = db_workunit_lock(db, j->wuid, &wu);

	if (rc == DB_OK && wu.assimilate_state != ASSIMILATE_READY)
		rc = DB_NOT_FOUND;
	if (rc == DB_OK) {
		wu.assimilate_state = ASSIMILATE_DONE;
		wu.transition_time = now();
		rc = db_workunit_update_state(db, &wu);
	}
	db_workunit_release(&wu);
	return rc;
}

/* -1: this workunit failed (logged), it stays READY; AS_DB_ERROR: the database failed. */
static int assimilate(const struct daemon_ctx *ctx, const struct db_workunit *wu)
{
	char *dir;
	int rc;

	if (!dirhier_name_ok(wu->name))
		return log_error("[WU %s] name unusable as a directory", wu->name);
	dir = xasprintf("%s/results/%s", ctx->cfg->project_dir, wu->name);
	rc = mkdir_p(dir, 0755);
	if (rc == 0 && wu->canonical_resultid)
		rc = assimilate_canonical(ctx, wu, dir);
	else if (rc == 0 && wu->error_mask)
		rc = assimilate_error(ctx, wu, dir);
	else if (rc == 0)
		rc = log_error("[WU %s] ready but has neither a canonical result nor an error",
			       wu->name);
	if (rc == 0)
		log_info("[WU %s] assimilated into %s", wu->name, dir);
	free(dir);
	return rc;
}

struct wulist {
	struct db_workunit *v;
	size_t n;
};

static int take_wu(struct db_workunit *wu, void *arg)
{
	struct wulist *l = arg;
	struct db_rows rows = DB_ROWS(l->v, l->n, 0);

	return db_rows_take(wu, &rows);
}

static int assimilate_app(struct daemon_ctx *ctx, int64_t appid, bool *worked)
{
	int64_t after = 0;

	for (;;) {
		struct wulist l = { NULL, 0 };
		size_t i;
		int rc = db_workunit_enum_assimilate_mod(ctx->db, appid, ctx->mod_n, ctx->mod_i,
							 after, (int)settings.batch, take_wu, &l);

		for (i = 0; i < l.n && rc == DB_OK; i++) {
			struct as_job j = { ctx, l.v[i].id };

			after = l.v[i].id;
			if (daemon_stopping(ctx))
				break;
			rc = assimilate(ctx, &l.v[i]);
			if (rc == AS_DB_ERROR) {
				rc = DB_ERROR;
				break;
			}
			if (rc < 0) {
				rc = DB_OK;
				continue;
			}
			rc = db_txn_run(ctx->db, mark_done, &j);
			if (rc == DB_OK)
				*worked = true;
			else if (rc == DB_NOT_FOUND)
				rc = DB_OK;
		}
		for (i = 0; i < l.n; i++)
			db_workunit_release(&l.v[i]);
		free(l.v);
		if (rc != DB_OK)
			return -1;
		if (l.n < (size_t)settings.batch || daemon_stopping(ctx))
			return 0;
	}
}

static int as_pass(struct daemon_ctx *ctx)
{
	const int64_t *appid = ctx->priv;
	int64_t *apps = NULL;
	size_t napps = 0;
	bool worked = false;
	int rc = 0;
	size_t i;

	if (*appid) {
		rc = assimilate_app(ctx, *appid, &worked);
	} else if (db_app_ids(ctx->db, &apps, &napps) != DB_OK) {
		rc = -1;
	} else {
		for (i = 0; i < napps && rc == 0; i++)
			rc = assimilate_app(ctx, apps[i], &worked);
	}
	free(apps);
	if (rc < 0)
		return DAEMON_PASS_ERROR;
	return worked ? DAEMON_PASS_WORKED : DAEMON_PASS_IDLE;
}

static int as_init(struct daemon_ctx *ctx)
{
	char *dir = xasprintf("%s/results", ctx->cfg->project_dir);
	int64_t appid = 0;
	int rc = mkdir_p(dir, 0755);

	free(dir);
	if (rc < 0)
		return -1;
	if (settings.app && *settings.app && db_app_id(ctx->db, settings.app, &appid) != DB_OK)
		return -1;
	ctx->priv = xmalloc(sizeof(appid));
	memcpy(ctx->priv, &appid, sizeof(appid));
	return 0;
}

static void as_fini(struct daemon_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

static const struct daemon_spec as_spec = {
	.name = "assimilator",
	.summary = "Copy the outputs of finished workunits to the project's results/ directory.",
	.params = as_params,
	.settings = &settings,
	.needs_db = true,
	.init = as_init,
	.pass = as_pass,
	.fini = as_fini,
};

int main(int argc, char **argv)
{
	return daemon_main(&as_spec, argc, argv);
}
