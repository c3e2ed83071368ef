/*
 * BOINC_SUBMIT: the grammar of the request line, and one batch of jobs sent
 * by send_batch() (submit_send.c, shared with wseq_submit): five RPCs
 * whatever the number of jobs, each distinct input file hashed once and
 * uploaded only if the server lacks it, the batch discarded if the SUBMIT
 * fails before its jobs are made.
 */
#include "boinc_gahp.h"
#include "submit_client.h"
#include "submit_send.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"

const char *gahp_exec_app = "wseq_exec";

struct submit_job {
	const char *name;
	long nargs;
	char **args;
	long nfiles;
	char **files;           /* SRC DST pairs; DST is sent only as the open name of a job
				 * with its own executable (else slots go by position) */
};

struct submit_spec {
	const char *batch, *app;
	long njobs;
	struct submit_job *jobs;
	struct send_params params;      /* the optional trailing ones; 0 = not given */
};

/* The bounds of the trailing job parameters: those the server takes (doc/submit_rpc.md). */
#define FPOPS_MAX 1e30
#define BYTES_MAX 1e18
#define DELAY_BOUND_MAX 1e9

#define SUBMIT_USE "BOINC_SUBMIT ID BATCH APP NJOBS (JOB NARGS ARG... NFILES (SRC DST)...)... " \
		   "[FPOPS_EST FPOPS_BOUND MEM_BOUND DISK_BOUND DELAY_BOUND APP_VERSION_NUM]"

/* One job's tokens from argv[*i] on. */
static int parse_job(int argc, char **argv, int *i, long j, struct submit_job *jb,
		     struct sbuf *why)
{
	if (argc - *i < 3) {
		sbuf_addf(why, "job %ld: too few arguments: want JOB NARGS ARG... NFILES "
			  "(SRC DST)...", j + 1);
		return -1;
	}
	jb->name = argv[(*i)++];
	if (gahp_want_count("NARGS", argv[(*i)++], &jb->nargs, why))
		return -1;
	if (jb->nargs > argc - *i - 1) {
		sbuf_addf(why, "job %ld: NARGS is %ld, more than the arguments left", j + 1,
			  jb->nargs);
		return -1;
	}
	jb->args = &argv[*i];
	*i += (int)jb->nargs;
	if (gahp_want_count("NFILES", argv[(*i)++], &jb->nfiles, why))
		return -1;
	if (2 * jb->nfiles > argc - *i) {
		sbuf_addf(why, "job %ld: NFILES is %ld, more than the SRC DST pairs left", j + 1,
			  jb->nfiles);
		return -1;
	}
	jb->files = &argv[*i];
	*i += (int)(2 * jb->nfiles);
	return 0;
}

/* The six trailing job parameters, each NULL or a number (APP_VERSION_NUM an integer). */
static int parse_params(char **argv, struct submit_spec *s, struct sbuf *why)
{
	if (gahp_want_number("FPOPS_EST", argv[0], FPOPS_MAX, true, &s->params.fpops_est, why) ||
	    gahp_want_number("FPOPS_BOUND", argv[1], FPOPS_MAX, true, &s->params.fpops_bound, why) ||
	    gahp_want_number("MEM_BOUND", argv[2], BYTES_MAX, true, &s->params.mem_bound, why) ||
	    gahp_want_number("DISK_BOUND", argv[3], BYTES_MAX, true, &s->params.disk_bound, why) ||
	    gahp_want_number("DELAY_BOUND", argv[4], DELAY_BOUND_MAX, true, &s->params.delay_bound, why))
		return -1;
	if (strcmp(argv[5], "NULL") == 0) {
		s->params.app_version_num = 0;
		return 0;
	}
	/* a fraction is refused too ("1.5 is not a whole number") */
	return field_long("APP_VERSION_NUM", argv[5], 0, INT_MAX, 0, &s->params.app_version_num, why) ==
	       FIELD_OK ? 0 : -1;
}

/* BOINC_SUBMIT id BATCH APP NJOBS (JOB NARGS ARG... NFILES (SRC DST)...)... [6 params] */
int gahp_submit_parse(int argc, char **argv, void **specp, struct sbuf *why)
{
	struct submit_spec *s;
	long j;
	int i = 5;

	if (gahp_want_args(argc, 5, true, SUBMIT_USE, why) || gahp_want_reqid(argv[1], why))
		return -1;
	s = xcalloc(1, sizeof(*s));
	s->batch = argv[2];
	s->app = argv[3];
	if (gahp_want_count("NJOBS", argv[4], &s->njobs, why))
		goto bad;
	if (s->njobs < 1 || s->njobs > argc) {
		sbuf_addf(why, "NJOBS is %ld: want 1 to the jobs on the line", s->njobs);
		goto bad;
	}
	s->jobs = xcalloc((size_t)s->njobs, sizeof(*s->jobs));
	for (j = 0; j < s->njobs; j++)
		if (parse_job(argc, argv, &i, j, &s->jobs[j], why))
			goto bad;
	if (argc - i == 6) {
		if (parse_params(&argv[i], s, why))
			goto bad;
	} else if (argc - i != 0) {
		sbuf_addf(why, "after the jobs, want none or the six job parameters, not %d "
			  "arguments", argc - i);
		goto bad;
	}
	*specp = s;
	return 0;
bad:
	gahp_submit_free(s);
	return -1;
}

void gahp_submit_free(void *p)
{
	struct submit_spec *s = p;

	if (s) {
		free(s->jobs);
		free(s);
	}
}

void gahp_submit_run(struct gahp_req *r, struct sbuf *res)
{
	struct submit_spec *s = r->spec;
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct send_batch b;
	struct send_result sr;
	char *label = xasprintf("submit %s", r->reqid);
	long j, f;
	bool ok;

	memset(&b, 0, sizeof(b));
	b.url = r->url;
	b.auth = r->auth;
	b.batch = s->batch;
	b.app = s->app;
	/* HTCondor's executable as a file, not an app's name: the job brings its program */
	if (strchr(s->app, '/')) {
		b.executable = s->app;
		b.app = gahp_exec_app;
	}
	b.label = label;
	send_batch_jobs(&b, s->njobs);
	for (j = 0; j < s->njobs; j++) {
		struct submit_job *jb = &s->jobs[j];

		b.jobs[j].name = jb->name;
		b.jobs[j].nargs = jb->nargs;
		b.jobs[j].args = jb->args;
		b.jobs[j].nfiles = jb->nfiles;
		/* SRC of each SRC DST pair; DST is not sent (slots go by position) */
		send_job_files(&b.jobs[j], jb->nfiles, true);
		for (f = 0; f < jb->nfiles; f++) {
			b.jobs[j].files[f] = jb->files[2 * f];
			b.jobs[j].open_names[f] = (char *)path_base(jb->files[2 * f + 1]);
		}
	}
	b.params = s->params;
	ok = send_batch(&b, &sr, &err) == 0;
	if (ok)
		sbuf_addstr(res, " NULL");
	else
		gahp_error(res, r->auth, "%s: %s", send_step_text(sr.failed), sbuf_str(&err));
	/* the counts tests and benchmarks read: each distinct file hashed once, only absent ones sent */
	log_info("submit %s: batch id %s, %ld jobs, %zu distinct input files hashed, "
		 "%zu uploaded (%lld bytes)%s",
		 r->reqid, sr.batch_id[0] ? sr.batch_id : "none", s->njobs, sr.hashed, sr.uploaded,
		 sr.bytes, ok ? "" : ", failed");
	send_batch_jobs_release(&b);
	free(label);
	sbuf_release(&err);
}
