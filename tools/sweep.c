/*
 * sweep: the parameter sweep's master (seed 004). This first part works on
 * a project that is running: `sweep create SPEC` stores a session -- its
 * tasks, one per parameter set, and the files cgi-bin/sweep serves -- and
 * prints its session ID; `sweep status SESSION` counts its tasks. Clients
 * (sweep_client) started with that session ID then pull the tasks. See
 * doc/sweep.md.
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "db_queries.h"
#include "log.h"
#include "param.h"
#include "sweep_session.h"

struct options {
	char *project;
};

static const struct param options[] = {
	{ "project", PARAM_STR, offsetof(struct options, project), NULL, 0, 0, 0, "DIR",
	  "project directory (default: WSEQ_PROJECT_DIR, then . and ..)" },
	PARAM_TABLE_END
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: sweep [options] create SPEC\n"
		    "       sweep [options] status SESSION\n"
		    "       sweep [options] collect SESSION\n\n"
		    "create: store a sweep session in the project -- one task per line of the\n"
		    "spec's parameter file, the worker executables and the client configuration --\n"
		    "and print its session ID. status: how many of a session's tasks are done,\n"
		    "running, waiting or failed. collect: validate the results that came back\n"
		    "and write the spec's Output from every valid one.\n\noptions:\n");
	param_print_help(options, fp);
}

static int count(struct db *db, const char *tail, int64_t batch, int64_t *n)
{
	struct db_val v[] = { DBV_INT(batch), DBV_INT(batch) };
	size_t nv = 0;
	const char *q;

	for (q = tail; *q; q++)
		nv += *q == '?';        /* every placeholder is the batch */

	return db_workunit_count(db, tail, v, nv, n);
}

static int status(struct db *db, const char *sid)
{
	struct db_batch b = { 0 };
	char *name = xasprintf("sweep:%s", sid);
	int64_t total = 0, done = 0, failed = 0, running = 0;
	int rc = db_batch_lookup_name(db, name, &b);

	free(name);
	if (rc == DB_NOT_FOUND)
		return log_error("no sweep session %s", sid);
	if (rc == DB_OK)
		rc = count(db, "WHERE batch=?", b.id, &total);
	if (rc == DB_OK)
		rc = count(db, "WHERE batch=? AND id IN (SELECT workunitid FROM result WHERE batch=? "
			   "AND outcome=1)", b.id, &done);
	if (rc == DB_OK)
		rc = count(db, "WHERE batch=? AND error_mask<>0 AND id NOT IN (SELECT workunitid "
			   "FROM result WHERE batch=? AND outcome=1)", b.id, &failed);
	if (rc == DB_OK)
		rc = count(db, "WHERE batch=? AND id IN (SELECT workunitid FROM result WHERE batch=? "
			   "AND server_state=4)", b.id, &running);
	if (rc == DB_OK)
		printf("session %s: %lld tasks, %lld done, %lld running, %lld waiting, %lld failed\n",
		       sid, (long long)total, (long long)done, (long long)running,
		       (long long)(total - done - failed - running), (long long)failed);
	db_batch_free(&b);
	return rc == DB_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct project_config cfg;
	struct db_params dp;
	struct db *db = NULL;
	char *path = NULL;
	int i, rc = 1;

	log_init("sweep", NULL);
	param_set_defaults(options, &o);
	i = param_parse_args(options, &o, argc, argv);
	if (i == -2) {
		usage(stdout);
		return 0;
	}
	if (i < 0)
		return 2;
	if (argc - i != 2 || (strcmp(argv[i], "create") && strcmp(argv[i], "status") &&
			      strcmp(argv[i], "collect"))) {
		usage(stderr);
		param_free(options, &o);
		return 2;
	}
	if (o.project)
		path = xasprintf("%s/config.xml", o.project);
	if (config_load(&cfg, path, NULL, NULL) < 0)
		goto out;
	db_params_from_config(&dp, &cfg);
	if (db_open(&db, &dp, 0) != DB_OK)
		goto out;
	if (!strcmp(argv[i], "create")) {
		struct sbuf err = SBUF_INIT(4096);
		char sid[SWEEP_SID_LEN + 1] = "";
		int64_t batch = 0;
		size_t n = 0;

		if (sweep_session_create(db, &cfg, argv[i + 1], sid, &batch, &n, &err) == 0) {
			log_info("session %.8s...: %zu tasks (batch %lld)", sid, n, (long long)batch);
			printf("%s\n", sid);
			rc = 0;
		} else {
			log_error("%s", sbuf_str(&err));
		}
		sbuf_free(&err);
	} else if (!strcmp(argv[i], "collect")) {
		struct sbuf err = SBUF_INIT(4096);
		struct sweep_collect_stats st;

		if (sweep_session_collect(db, &cfg, argv[i + 1], &st, &err) == 0) {
			printf("%zu valid, %zu invalid; %zu done, %zu failed, %zu pending; output %s\n",
			       st.valid, st.invalid, st.done, st.failed, st.pending, st.output);
			rc = 0;
		} else {
			log_error("%s", sbuf_str(&err));
		}
		free(st.output);
		sbuf_free(&err);
	} else {
		rc = status(db, argv[i + 1]) == 0 ? 0 : 1;
	}
out:
	if (db)
		db_close(db);
	config_free(&cfg);
	free(path);
	param_free(options, &o);
	return rc;
}
